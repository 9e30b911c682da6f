// The JSON scanner reads strings and numbers as nlohmann::json reads them (the reference here),
// and refuses -- returns false -- whatever nlohmann would refuse.
#include "core/json_scanner.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "core/json.h"

namespace tessera {
namespace {

// The string the scanner reads from `json`, or nullopt when it refuses it.
std::optional<std::string> ScannedString(std::string_view json) {
  JsonScanner scanner(json);
  std::string_view value;
  std::string storage;
  if (!scanner.ReadString(value, storage) || !scanner.AtEnd()) return std::nullopt;
  return std::string(value);
}

std::optional<JsonNumber> ScannedNumber(std::string_view json) {
  JsonScanner scanner(json);
  JsonNumber number;
  if (!scanner.ReadNumber(number) || !scanner.AtEnd()) return std::nullopt;
  return number;
}

bool NlohmannAccepts(std::string_view json) { return Json::accept(json.begin(), json.end()); }

TEST(JsonScanner, ReadsStringsAsNlohmannDoes) {
  const std::string strings[] = {
      R"("")",
      R"("Oslo")",
      R"("a \"quoted\" word")",
      R"("back\\slash and \/ slash")",
      R"("\b\f\n\r\t")",
      R"("caf\u00e9 \u20AC \ud83d\ude00")",
      R"("\u0000 inside")",
      "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"",
      "  \"after white space\"\n",
  };
  for (const std::string& json : strings) {
    ASSERT_TRUE(NlohmannAccepts(json)) << json;
    EXPECT_EQ(ScannedString(json), Json::parse(json).get<std::string>()) << json;
  }
}

TEST(JsonScanner, RefusesStringsNlohmannRefuses) {
  const std::string strings[] = {
      R"("unterminated)",
      "\"a raw\nline feed\"",
      "\"a tab\there\"",
      R"("\x41")",
      R"("\u12")",
      R"("\ud83d alone")",
      R"("\ude00 alone")",
      R"("\ud83d\u0041")",
      "\"\xC3\"",          // a truncated sequence
      "\"\xC0\xAF\"",      // an overlong encoding
      "\"\xED\xA0\x80\"",  // an encoded surrogate
      "\"\xF4\x90\x80\x80\"",
      "\"\xFF\"",
      "\xEF\xBB\xBF\"after a byte order mark\"",
  };
  for (const std::string& json : strings) {
    EXPECT_EQ(ScannedString(json), std::nullopt) << json;
  }
  for (size_t i = 0; i + 1 < std::size(strings); ++i) {
    EXPECT_FALSE(NlohmannAccepts(strings[i])) << strings[i];
  }
}

// Long plain runs are scanned eight bytes at a time: every kind of byte a run stops at, at every
// offset within and across those words, is read or refused as nlohmann does.
TEST(JsonScanner, StopsAtTheFirstSpecialByteWhereverItLies) {
  const std::string specials[] = {"\\\"", "\\n",  "\\u00e9", "\xC3\xA9", "\xE2\x82\xAC",
                                  "\n",   "\x01", "\xFF",    "\xC3"};
  for (const std::string& special : specials) {
    for (size_t before = 0; before < 20; ++before) {
      for (size_t after : {size_t{0}, size_t{3}, size_t{11}}) {
        const std::string json =
            "\"" + std::string(before, 'a') + special + std::string(after, 'b') + "\"";
        if (NlohmannAccepts(json)) {
          EXPECT_EQ(ScannedString(json), Json::parse(json).get<std::string>()) << json;
        } else {
          EXPECT_EQ(ScannedString(json), std::nullopt) << json;
        }
      }
    }
  }
}

TEST(JsonScanner, ClassifiesNumbersAsNlohmannDoes) {
  const std::string numbers[] = {"0",
                                 "-0",
                                 "7",
                                 "-7",
                                 "12.50",
                                 "1e3",
                                 "1E+3",
                                 "-2.5e-3",
                                 "9223372036854775807",
                                 "-9223372036854775808",
                                 "9223372036854775808",
                                 "18446744073709551615",
                                 "18446744073709551616",
                                 "-9223372036854775809",
                                 "0.1",
                                 "123456789012345678901234567890",
                                 "4.9e-324",
                                 "1.7976931348623157e308"};
  for (const std::string& json : numbers) {
    const Json reference = Json::parse(json);
    const std::optional<JsonNumber> number = ScannedNumber(json);
    ASSERT_TRUE(number.has_value()) << json;
    EXPECT_EQ(number->token, json);
    switch (number->kind) {
      case JsonNumber::Kind::kInteger:
        EXPECT_TRUE(reference.is_number_integer() && !reference.is_number_unsigned()) << json;
        EXPECT_EQ(number->integer, reference.get<int64_t>()) << json;
        break;
      case JsonNumber::Kind::kUnsigned:
        EXPECT_TRUE(reference.is_number_unsigned()) << json;
        EXPECT_EQ(number->unsigned_integer, reference.get<uint64_t>()) << json;
        break;
      case JsonNumber::Kind::kReal:
        EXPECT_TRUE(reference.is_number_float()) << json;
        EXPECT_EQ(number->real, reference.get<double>()) << json;
        break;
    }
  }
}

TEST(JsonScanner, ReadsLiteralNumbersToTheirValues) {
  EXPECT_EQ(ScannedNumber("-9223372036854775808")->integer, INT64_MIN);
  EXPECT_EQ(ScannedNumber("18446744073709551615")->unsigned_integer, UINT64_MAX);
  EXPECT_EQ(ScannedNumber("12.50")->real, 12.5);
  EXPECT_EQ(ScannedNumber("18446744073709551616")->kind, JsonNumber::Kind::kReal);
}

// Reals of every shape near the scanner's shortcut for short decimals (up to 2^53 and 10^+-22)
// and past it read to the very double nlohmann reads, sign of zero included.
TEST(JsonScanner, ReadsRealsToTheDoubleNlohmannReads) {
  std::mt19937_64 random(20261129);
  const auto digits = [&](size_t count, bool nonzero_first) {
    std::string text;
    for (size_t i = 0; i < count; ++i) {
      const auto low = nonzero_first && i == 0 ? 1u : 0u;
      text += static_cast<char>('0' + std::uniform_int_distribution<unsigned>(low, 9)(random));
    }
    return text;
  };
  std::vector<std::string> numbers = {
      "-0.0", "0.0",  "-0e5",          "9007199254740993.0",          "9007199254740992.5",
      "1e22", "1e23", "123456789e-22", "0.0000000000000000000000001", "4503599627370497.5"};
  for (int i = 0; i < 20000; ++i) {
    const size_t integer_digits = std::uniform_int_distribution<size_t>(0, 19)(random);
    std::string json = i % 3 == 0 ? "-" : "";
    json += integer_digits == 0 ? "0" : digits(integer_digits, true);
    if (i % 4 != 3)
      json += "." + digits(std::uniform_int_distribution<size_t>(1, 20)(random), false);
    if (i % 2 == 0)
      json += "e" + std::to_string(std::uniform_int_distribution<int>(-40, 40)(random));
    numbers.push_back(json);
  }
  for (const std::string& json : numbers) {
    const Json reference = Json::parse(json);
    const std::optional<JsonNumber> number = ScannedNumber(json);
    ASSERT_TRUE(number.has_value()) << json;
    if (!reference.is_number_float()) continue;
    ASSERT_EQ(number->kind, JsonNumber::Kind::kReal) << json;
    const auto expected = reference.get<double>();
    EXPECT_EQ(std::bit_cast<uint64_t>(number->real), std::bit_cast<uint64_t>(expected))
        << json << " read as " << number->real << ", not " << expected;
  }
}

TEST(JsonScanner, RefusesNumbersNlohmannRefuses) {
  const std::string numbers[] = {"-",  "+1",  ".5",    "1.",     "1.e3", "1e",  "1e+",
                                 "01", "-01", "1e999", "-1e999", "0x10", "NaN", "Infinity"};
  for (const std::string& json : numbers) {
    EXPECT_EQ(ScannedNumber(json), std::nullopt) << json;
    EXPECT_FALSE(NlohmannAccepts(json)) << json;
  }
}

TEST(JsonScanner, ReadsStructureAndLiterals) {
  JsonScanner scanner(" [ true , false,null ] ");
  EXPECT_TRUE(scanner.Consume('['));
  EXPECT_TRUE(scanner.ReadLiteral("true"));
  EXPECT_TRUE(scanner.Consume(','));
  EXPECT_FALSE(scanner.ReadLiteral("true"));
  EXPECT_EQ(scanner.PeekAfterSpace(), 'f');
  EXPECT_TRUE(scanner.ReadLiteral("false"));
  EXPECT_TRUE(scanner.Consume(','));
  EXPECT_TRUE(scanner.ReadLiteral("null"));
  EXPECT_FALSE(scanner.AtEnd());
  EXPECT_TRUE(scanner.Consume(']'));
  EXPECT_TRUE(scanner.AtEnd());
  EXPECT_EQ(scanner.PeekAfterSpace(), '\0');
}

}  // namespace
}  // namespace tessera
