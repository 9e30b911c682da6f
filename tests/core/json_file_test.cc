// ParseJsonFile and ParseJsonFileStreamingArray against the in-memory parsers on the same text.
#include "core/json_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "support/temp_dir.h"

namespace tessera {
namespace {

std::string WriteFile(const testing::TempDir& dir, const std::string& name,
                      const std::string& text) {
  std::string path = (dir.path() / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(JsonFile, ParsesAsTheTextParsersDo) {
  testing::TempDir dir;
  std::string text = R"({"packageInfo": {"tocView": {"content": [{"id": "1"}, 2, [3]]}}, "n": 4})";
  std::string path = WriteFile(dir, "body.json", text);
  EXPECT_EQ(ParseJsonFile(path), ParseJson(text));

  const std::vector<std::string> at{"packageInfo", "tocView", "content"};
  std::vector<Json> from_file;
  std::vector<Json> from_text;
  StreamedArray file =
      ParseJsonFileStreamingArray(path, at, [&](Json element) { from_file.push_back(element); });
  StreamedArray memory =
      ParseJsonStreamingArray(text, at, [&](Json element) { from_text.push_back(element); });
  EXPECT_TRUE(file.found);
  EXPECT_EQ(file.document, memory.document);
  EXPECT_EQ(from_file, from_text);
  EXPECT_EQ(from_file.size(), 3u);
}

TEST(JsonFile, BlankFilesAreToldApart) {
  testing::TempDir dir;
  EXPECT_TRUE(IsBlankFile(WriteFile(dir, "empty", "")));
  EXPECT_TRUE(IsBlankFile(WriteFile(dir, "spaces", " \r\n\t ")));
  EXPECT_FALSE(IsBlankFile(WriteFile(dir, "object", "  {}")));
}

TEST(JsonFile, InvalidTextIsInvalidInputAndAMissingFileInternal) {
  testing::TempDir dir;
  std::string path = WriteFile(dir, "bad.json", R"({"a": [1, 2)");
  for (auto parse :
       {+[](const std::string& p) { ParseJsonFile(p); },
        +[](const std::string& p) { ParseJsonFileStreamingArray(p, {"a"}, [](Json) {}); }}) {
    try {
      parse(path);
      ADD_FAILURE() << "truncated JSON parsed";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
      EXPECT_EQ(std::string(error.message()).rfind("Invalid JSON: ", 0), 0u);
    }
    try {
      parse((dir.path() / "absent.json").string());
      ADD_FAILURE() << "a missing file parsed";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInternal);
    }
  }
}

}  // namespace
}  // namespace tessera
