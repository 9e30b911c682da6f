#include "core/ids.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "core/error.h"

namespace tessera {
namespace {

TEST(Ids, ObjectIdsAreUpperCaseHexAndUnique) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string id = NewObjectId();
    ASSERT_TRUE(std::regex_match(id, std::regex("[0-9A-F]{32}")));
    ASSERT_TRUE(seen.insert(id).second);
  }
}

TEST(Ids, CanonicalFormAcceptsEitherCaseOnly32Hex) {
  EXPECT_EQ(CanonicalObjectId("d43364c684e34a5f9b2f9ad7108f7828"),
            "D43364C684E34A5F9B2F9AD7108F7828");
  EXPECT_FALSE(CanonicalObjectId("D43364C684E34A5F9B2F9AD7108F782"));
  EXPECT_FALSE(CanonicalObjectId("G43364C684E34A5F9B2F9AD7108F7828"));
}

TEST(Ids, RequireObjectIdGivesTheCanonicalFormOrSaysWhereWhatIsWrongAndWhatIsAccepted) {
  EXPECT_EQ(RequireObjectId("d43364c684e34a5f9b2f9ad7108f7828", "body.parent"),
            "D43364C684E34A5F9B2F9AD7108F7828");
  try {
    RequireObjectId("Sales", "body.parent");
    FAIL() << "a name was taken for an id";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(e.message(),
              "body.parent: 'Sales' is not an object id; expected 32 hexadecimal characters");
  }
  // A long input is cut in the message rather than repeated whole.
  try {
    RequireObjectId(std::string(100000, 'x'), "targetObjectId");
    FAIL() << "100,000 x taken for an id";
  } catch (const Error& e) {
    EXPECT_LT(e.message().size(), 300u);
    EXPECT_TRUE(e.message().starts_with("targetObjectId: 'xxxx")) << e.message();
  }
}

TEST(Ids, TokensAndTicketsHaveTheirSpecFormats) {
  EXPECT_TRUE(std::regex_match(NewAuthToken(), std::regex("[a-z2-7]{26}")));
  EXPECT_TRUE(std::regex_match(NewTicketId(), std::regex("[0-9a-f]{32}")));
}

TEST(Ids, DeterministicIdsFollowSpec05) {
  // First 16 bytes of SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223 (FIPS 180-2 example).
  EXPECT_EQ(DeterministicObjectId("abc"), "BA7816BF8F01CFEA414140DE5DAE2223");
}

}  // namespace
}  // namespace tessera
