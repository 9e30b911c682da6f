// The streaming JSON writer against nlohmann's parser: what it writes must parse, strictly, to
// the document meant.
#include "core/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/json.h"

namespace tessera {
namespace {

Json Parsed(const std::string& text) { return Json::parse(text); }  // throws on invalid JSON

TEST(JsonWriter, NestedObjectsAndArraysWithCommasWhereTheyBelong) {
  std::string out;
  JsonWriter writer(out);
  writer.BeginObject();
  writer.Key("id");
  writer.String("A1");
  writer.Key("rows");
  writer.BeginArray();
  for (int r = 0; r < 3; ++r) {
    writer.BeginArray();
    writer.Int(r);
    writer.Double(r + 0.5);
    writer.Null();
    writer.Bool(r % 2 == 0);
    writer.EndArray();
  }
  writer.EndArray();
  writer.Key("empty");
  writer.BeginObject();
  writer.EndObject();
  writer.Key("raw");
  writer.Raw(R"({"a":[1,2]})");
  writer.Key("none");
  writer.BeginArray();
  writer.EndArray();
  writer.EndObject();
  EXPECT_EQ(Parsed(out), Json::parse(R"({"id": "A1", "rows": [[0, 0.5, null, true],
      [1, 1.5, null, false], [2, 2.5, null, true]], "empty": {}, "raw": {"a": [1, 2]},
      "none": []})"));
}

TEST(JsonWriter, DoublesReadBackExactlyAndNonFiniteBecomesNull) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> exponent(-300, 300);
  for (int i = 0; i < 5000; ++i) {
    const double value = std::pow(10.0, exponent(random)) * (i % 2 ? -1 : 1);
    std::string out;
    JsonWriter(out).Double(value);
    EXPECT_EQ(Parsed(out).get<double>(), value) << out;
  }
  for (const double value : {std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(), std::nan("")}) {
    std::string out;
    JsonWriter(out).Double(value);
    EXPECT_EQ(out, "null");
  }
  std::string out;
  JsonWriter writer(out);
  writer.BeginArray();
  writer.Int(std::numeric_limits<int64_t>::min());
  writer.Int(std::numeric_limits<int64_t>::max());
  writer.EndArray();
  EXPECT_EQ(Parsed(out)[0].get<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Parsed(out)[1].get<int64_t>(), std::numeric_limits<int64_t>::max());
}

TEST(JsonWriter, StringsAreEscapedAndInvalidUtf8IsReplaced) {
  const std::string valid = "quote \" backslash \\ tab \t newline \n nul " + std::string(1, '\0') +
                            " bell \x07 unicode Ünïcødé 東京 😀 /";
  std::string out;
  JsonWriter writer(out);
  writer.BeginObject();
  writer.Key("key \"with\" quotes");
  writer.String(valid);
  writer.EndObject();
  const Json parsed = Parsed(out);
  EXPECT_EQ(parsed["key \"with\" quotes"].get<std::string>(), valid);

  // Bytes that are not UTF-8 (a lone continuation byte, a truncated sequence, an overlong form,
  // a surrogate) each become U+FFFD and the text stays valid.
  const std::string replacement = "\xEF\xBF\xBD";
  const std::pair<std::string, std::string> cases[] = {
      {"a\x80z", "a" + replacement + "z"},
      {"a\xE6\x9Dz", "a" + replacement + replacement + "z"},
      {"\xC0\xAF", replacement + replacement},
      {"\xED\xA0\x80", replacement + replacement + replacement},
      {"end\xF0", "end" + replacement},
  };
  for (const auto& [input, expected] : cases) {
    std::string text;
    JsonWriter(text).String(input);
    EXPECT_EQ(Parsed(text).get<std::string>(), expected) << text;
  }

  // Random bytes: always valid JSON, and valid UTF-8 input comes back unchanged.
  std::mt19937 random(5);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(random() % 40, '\0');
    for (auto& byte : bytes) byte = static_cast<char>(random() % 256);
    std::string text;
    JsonWriter(text).String(bytes);
    EXPECT_NO_THROW(Parsed(text)) << i;
  }
}

}  // namespace
}  // namespace tessera
