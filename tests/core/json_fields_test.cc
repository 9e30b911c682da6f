#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/json.h"

namespace tessera {
namespace {

// The error a call throws, as code and message.
template <typename Call>
std::pair<ErrorCode, std::string> Refusal(Call call) {
  try {
    call();
  } catch (const Error& e) {
    return {e.code(), std::string(e.message())};
  }
  ADD_FAILURE() << "nothing was refused";
  return {ErrorCode::kInternal, ""};
}

TEST(JsonFields, PathsNameMembersAndElementsAsMessagesShowThem) {
  EXPECT_EQ(MemberPath("body", "viewFilter"), "body.viewFilter");
  EXPECT_EQ(MemberPath("", "viewFilter"), "viewFilter");
  EXPECT_EQ(ElementPath("body.objects", 3), "body.objects[3]");
  EXPECT_EQ(MemberPath(ElementPath("body.objects", 0), "type"), "body.objects[0].type");
}

TEST(JsonFields, NullAndAbsentMembersAreTheSameAndANonObjectHasNone) {
  const Json body = ParseJson(R"({"a": 1, "b": null})");
  ASSERT_NE(FindMember(body, "a"), nullptr);
  EXPECT_EQ(*FindMember(body, "a"), 1);
  EXPECT_EQ(FindMember(body, "b"), nullptr);
  EXPECT_EQ(FindMember(body, "c"), nullptr);
  EXPECT_EQ(FindMember(ParseJson("[1, 2]"), "a"), nullptr);
}

TEST(JsonFields, FailuresNameThePathWithTheirCode) {
  EXPECT_EQ(
      Refusal([] { FailAt("body.limit", "expected an integer"); }),
      std::make_pair(ErrorCode::kInvalidInput, std::string("body.limit: expected an integer")));
  EXPECT_EQ(Refusal([] { FailMissingAt("body.name"); }),
            std::make_pair(ErrorCode::kMissingField,
                           std::string("body.name: required field is missing")));
}

TEST(JsonFields, ReadersSayWhichFieldHasTheWrongType) {
  const Json body = ParseJson(R"({"name": 7, "flag": "yes", "count": 1.5, "ok": "x"})");
  EXPECT_EQ(Refusal([&] { OptionalString(body, "name", "body"); }).second,
            "body.name: expected a string");
  EXPECT_EQ(Refusal([&] { OptionalBool(body, "flag", "body"); }).second,
            "body.flag: expected true or false");
  EXPECT_EQ(Refusal([&] { OptionalInt(body, "count", "body"); }).second,
            "body.count: expected an integer");
  EXPECT_EQ(Refusal([&] { RequiredString(body, "missing", "body"); }),
            std::make_pair(ErrorCode::kMissingField,
                           std::string("body.missing: required field is missing")));
  EXPECT_EQ(OptionalString(body, "ok", "body"), "x");
  EXPECT_EQ(OptionalString(body, "absent", "body"), std::nullopt);
}

}  // namespace
}  // namespace tessera
