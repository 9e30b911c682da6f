// The checks of a value found in a body (ExpectObject, ExpectArray, ExpectString, ExpectInt,
// ExpectBool) and ObjectOrEmpty: each names the path in what it refuses.
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

TEST(JsonChecks, AValueOfTheExpectedKindIsReturned) {
  const Json body = ParseJson(R"({"o": {"a": 1}, "l": [1], "s": "x", "i": 7, "b": false})");

  EXPECT_EQ(ExpectObject(body["o"], "body.o")["a"], 1);
  EXPECT_EQ(ExpectArray(body["l"], "body.l").size(), 1u);
  EXPECT_EQ(ExpectString(body["s"], "body.s"), "x");
  EXPECT_EQ(ExpectInt(body["i"], "body.i"), 7);
  EXPECT_EQ(ExpectBool(body["b"], "body.b"), false);
}

TEST(JsonChecks, AValueOfAnotherKindIsRefusedNamingItsPath) {
  const Json text = "x";
  const Json number = 1.5;

  EXPECT_EQ(Refusal([&] { ExpectObject(text, "body.o"); }),
            std::make_pair(ErrorCode::kInvalidInput, std::string("body.o: expected an object")));
  EXPECT_EQ(Refusal([&] { ExpectArray(text, "body.l"); }).second, "body.l: expected an array");
  EXPECT_EQ(Refusal([&] { ExpectArray(text, "body.l", "{id, action}"); }).second,
            "body.l: expected an array of {id, action}");
  EXPECT_EQ(Refusal([&] { ExpectString(number, "body.s"); }).second, "body.s: expected a string");
  EXPECT_EQ(Refusal([&] { ExpectInt(number, "body.i"); }).second, "body.i: expected an integer");
  EXPECT_EQ(Refusal([&] { ExpectBool(text, "body.b"); }).second, "body.b: expected true or false");
}

TEST(JsonChecks, ObjectOrEmptyTreatsAbsentAndNullAsEmptyAndRefusesOtherKinds) {
  const Json body = ParseJson(R"({"o": {"a": 1}, "n": null, "s": "x"})");

  EXPECT_EQ(ObjectOrEmpty(body, "o", "body")["a"], 1);
  EXPECT_EQ(ObjectOrEmpty(body, "n", "body"), Json::object());
  EXPECT_EQ(ObjectOrEmpty(body, "absent", "body"), Json::object());
  EXPECT_EQ(Refusal([&] { ObjectOrEmpty(body, "s", "body"); }),
            std::make_pair(ErrorCode::kInvalidInput, std::string("body.s: expected an object")));
  EXPECT_EQ(Refusal([&] { ObjectOrEmpty(body, "s", ""); }).second, "s: expected an object");
}

}  // namespace
}  // namespace tessera
