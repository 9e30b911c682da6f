#include "service/session/password_hasher.h"

#include <gtest/gtest.h>

namespace tessera::service {
namespace {

TEST(PasswordHasher, ProducesSaltedArgon2idHashesThatVerify) {
  std::string first = session::HashPassword("Correct Horse");
  std::string second = session::HashPassword("Correct Horse");
  EXPECT_EQ(first.rfind("$argon2id$", 0), 0u) << first;
  EXPECT_NE(first, second);  // a fresh salt each time
  EXPECT_TRUE(session::VerifyPassword(first, "Correct Horse"));
  EXPECT_FALSE(session::VerifyPassword(first, "correct horse"));
  EXPECT_FALSE(session::VerifyPassword(first, ""));
}

TEST(PasswordHasher, EmptyPasswordMatchesOnlyEmpty) {
  EXPECT_EQ(session::HashPassword(""), "");
  EXPECT_TRUE(session::VerifyPassword("", ""));
  EXPECT_FALSE(session::VerifyPassword("", "anything"));
}

TEST(PasswordHasher, AGarbledHashNeverVerifies) {
  EXPECT_FALSE(session::VerifyPassword("$argon2id$garbage", "x"));
}

}  // namespace
}  // namespace tessera::service
