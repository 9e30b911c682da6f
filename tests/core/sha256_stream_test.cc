#include "core/sha256_stream.h"

#include <gtest/gtest.h>

#include <string>

#include "core/hash.h"

namespace tessera {
namespace {

TEST(Sha256Stream, EmptyInputIsTheWellKnownDigest) {
  // SHA-256 of the empty string (FIPS 180-2 test vectors; `sha256sum < /dev/null`).
  EXPECT_EQ(Sha256Stream().FinishHex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Stream, SplitInputHashesLikeTheWholeInput) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += static_cast<char>('a' + i * 7 % 26);
  for (size_t piece : {1, 3, 63, 64, 65, 1000, 4999}) {
    Sha256Stream stream;
    for (size_t at = 0; at < text.size(); at += piece) {
      stream.Update(std::string_view(text).substr(at, piece));
    }
    EXPECT_EQ(stream.FinishHex(), Sha256Hex(text)) << "pieces of " << piece;
  }
}

TEST(Sha256Stream, AbcMatchesTheStandardVector) {
  Sha256Stream stream;
  stream.Update("a");
  stream.Update("");
  stream.Update("bc");
  EXPECT_EQ(stream.FinishHex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Stream, FinishingStartsANewMessage) {
  Sha256Stream stream;
  stream.Update("first message");
  EXPECT_EQ(stream.FinishHex(), Sha256Hex("first message"));
  stream.Update("second");
  EXPECT_EQ(stream.FinishHex(), Sha256Hex("second"));
}

}  // namespace
}  // namespace tessera
