// Base64 as the datasets push API carries chunks: RFC 4648 vectors, padding optional, white
// space ignored, anything else refused.
#include "core/base64.h"

#include <gtest/gtest.h>

#include <random>

namespace tessera {
namespace {

TEST(Base64, EncodesAndDecodesTheRfcVectors) {
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(EncodeBase64(plain), encoded);
    EXPECT_EQ(DecodeBase64(encoded), plain) << encoded;
  }
}

TEST(Base64, DecodesTheChunkOfTheSpecSample) {
  EXPECT_EQ(DecodeBase64("W1sxLCJPc2xvIiwxMi41XSxbMiwiQmVyZ2VuIiw3LjBdXQ=="),
            R"([[1,"Oslo",12.5],[2,"Bergen",7.0]])");
}

TEST(Base64, AcceptsTextWithoutPadding) {
  EXPECT_EQ(DecodeBase64("Zg"), "f");
  EXPECT_EQ(DecodeBase64("Zm8"), "fo");
  EXPECT_EQ(DecodeBase64("Zm9vYmE"), "fooba");
}

TEST(Base64, IgnoresWhiteSpaceAndLineBreaks) {
  EXPECT_EQ(DecodeBase64("Zm9v\nYmFy\r\n"), "foobar");
  EXPECT_EQ(DecodeBase64(" Zm 9v\tYg = = "), "foob");
}

TEST(Base64, RefusesCharactersOutsideTheStandardAlphabet) {
  EXPECT_EQ(DecodeBase64("Zm9v!"), std::nullopt);
  EXPECT_EQ(DecodeBase64("Zm9-"), std::nullopt);  // URL-safe alphabet
  EXPECT_EQ(DecodeBase64("Zm9_"), std::nullopt);
  EXPECT_EQ(DecodeBase64(std::string("Zm9v\0", 5)), std::nullopt);
  EXPECT_EQ(DecodeBase64("Zm9v\xC3\xA9"), std::nullopt);
}

TEST(Base64, RefusesMisplacedOrExcessPadding) {
  EXPECT_EQ(DecodeBase64("Zg="), std::nullopt);
  EXPECT_EQ(DecodeBase64("Zg==="), std::nullopt);
  EXPECT_EQ(DecodeBase64("Zm9v="), std::nullopt);
  EXPECT_EQ(DecodeBase64("Zm=9v"), std::nullopt);
  EXPECT_EQ(DecodeBase64("=Zm9"), std::nullopt);
  EXPECT_EQ(DecodeBase64("Zg==Zg=="), std::nullopt);
}

TEST(Base64, RefusesALengthThatCannotBeBase64) {
  EXPECT_EQ(DecodeBase64("Z"), std::nullopt);
  EXPECT_EQ(DecodeBase64("Zm9vY"), std::nullopt);
  EXPECT_EQ(DecodeBase64("Z==="), std::nullopt);
}

TEST(Base64, RoundTripsEveryByteValueAndLength) {
  std::mt19937 random(7);
  for (size_t length = 0; length < 300; ++length) {
    std::string bytes(length, '\0');
    for (auto& byte : bytes) byte = static_cast<char>(random() & 0xFF);
    const std::string encoded = EncodeBase64(bytes);
    EXPECT_EQ(encoded.size() % 4, 0u);
    EXPECT_EQ(DecodeBase64(encoded), bytes);
  }
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(DecodeBase64(EncodeBase64(all)), all);
}

}  // namespace
}  // namespace tessera
