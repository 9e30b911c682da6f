#include "service/password_hasher.h"

#include <gtest/gtest.h>

namespace tessera::service {
namespace {

TEST(PasswordHasher, ProducesSaltedArgon2idHashesThatVerify) {
  std::string first = HashPassword("Correct Horse");
  std::string second = HashPassword("Correct Horse");
  EXPECT_EQ(first.rfind("$argon2id$", 0), 0u) << first;
  EXPECT_NE(first, second);  // a fresh salt each time
  EXPECT_TRUE(VerifyPassword(first, "Correct Horse"));
  EXPECT_FALSE(VerifyPassword(first, "correct horse"));
  EXPECT_FALSE(VerifyPassword(first, ""));
}

TEST(PasswordHasher, EmptyPasswordMatchesOnlyEmpty) {
  EXPECT_EQ(HashPassword(""), "");
  EXPECT_TRUE(VerifyPassword("", ""));
  EXPECT_FALSE(VerifyPassword("", "anything"));
}

TEST(PasswordHasher, AGarbledHashNeverVerifies) {
  EXPECT_FALSE(VerifyPassword("$argon2id$garbage", "x"));
}

}  // namespace
}  // namespace tessera::service
