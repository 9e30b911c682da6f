// ParseJsonStreamingArray against a whole parse of the same text: the document is the whole
// parse with the array emptied, and the elements arrive in order, each equal to the whole parse's.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/error.h"
#include "core/json.h"

namespace tessera {
namespace {

const std::vector<std::string> kContentPath{"packageInfo", "tocView", "content"};

struct Streamed {
  StreamedArray parsed;
  std::vector<Json> elements;
};

Streamed Stream(const std::string& text, const std::vector<std::string>& path = kContentPath) {
  Streamed out;
  out.parsed =
      ParseJsonStreamingArray(text, path, [&](Json element) { out.elements.push_back(element); });
  return out;
}

TEST(JsonStreaming, ElementsArriveInOrderAndTheDocumentKeepsAnEmptyArray) {
  std::string text = R"({"id": "x", "packageInfo": {"name": "n", "tocView": {
      "settings": {"objectActions": [{"id": "a"}]},
      "content": [{"id": "1", "owner": {"id": "o"}, "tags": [1, [2]]}, "two", 3, [4, {"k": 5}],
                  null, {"id": "6"}]},
      "after": {"content": [7]}}, "content": [8]})";
  Json whole = Json::parse(text);
  Streamed streamed = Stream(text);

  EXPECT_TRUE(streamed.parsed.found);
  std::vector<Json> expected(whole["packageInfo"]["tocView"]["content"].begin(),
                             whole["packageInfo"]["tocView"]["content"].end());
  EXPECT_EQ(streamed.elements, expected);
  Json emptied = whole;
  emptied["packageInfo"]["tocView"]["content"] = Json::array();
  EXPECT_EQ(streamed.parsed.document, emptied);
}

TEST(JsonStreaming, ArraysOfTheSameNameElsewhereAreKept) {
  std::string text = R"({"packageInfo": {"content": [1], "tocView": {"settings": {"content": [2]}},
                          "other": {"tocView": {"content": [3]}}}, "tocView": {"content": [4]},
                          "a": {"tocView": 0}, "packageInfo": [{"content": [5]}]})";
  Streamed streamed = Stream(text);
  EXPECT_FALSE(streamed.parsed.found);
  EXPECT_TRUE(streamed.elements.empty());
  EXPECT_EQ(streamed.parsed.document, Json::parse(text));
}

TEST(JsonStreaming, AnythingButAnArrayAtThePathIsKeptAndNotFound) {
  for (std::string value : {"{\"0\": {\"id\": \"1\"}}", "\"list\"", "null", "42"}) {
    std::string text = R"({"packageInfo": {"tocView": {"content": )" + value + "}}}";
    Streamed streamed = Stream(text);
    EXPECT_FALSE(streamed.parsed.found) << value;
    EXPECT_TRUE(streamed.elements.empty()) << value;
    EXPECT_EQ(streamed.parsed.document, Json::parse(text)) << value;
  }
  Streamed empty = Stream(R"({"packageInfo": {"tocView": {"content": []}}})");
  EXPECT_TRUE(empty.parsed.found);
  EXPECT_TRUE(empty.elements.empty());
}

TEST(JsonStreaming, InvalidTextIsAnInvalidInputError) {
  try {
    Stream(R"({"packageInfo": {"tocView": {"content": [{"id": "1"}, {"id": )");
    FAIL() << "truncated JSON parsed";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(std::string(error.message()).rfind("Invalid JSON: ", 0), 0u) << error.message();
  }
}

TEST(JsonStreaming, AnErrorFromTheConsumerEndsTheParse) {
  int seen = 0;
  EXPECT_THROW(ParseJsonStreamingArray(R"({"packageInfo": {"tocView": {"content": [1, 2, 3]}}})",
                                       kContentPath,
                                       [&](Json) {
                                         if (++seen == 2) throw std::runtime_error("bad item");
                                       }),
               std::runtime_error);
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace tessera
