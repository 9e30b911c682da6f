#include "http/message.h"

#include <gtest/gtest.h>

namespace tessera::http {
namespace {

using Strings = std::vector<std::string>;

TEST(QueryParams, KeepsRepeatedParametersInArrivalOrder) {
  QueryParams params = QueryParams::Parse("a=1&b=2&a=3");

  EXPECT_EQ(params.Get("a"), "1");
  EXPECT_EQ(params.Get("b"), "2");
  ASSERT_EQ(params.fields().size(), 3u);
  EXPECT_EQ(params.fields()[2], Field("a", "3"));
}

TEST(QueryParams, DecodesEscapesAndPlusAsSpaceInNamesAndValues) {
  QueryParams params = QueryParams::Parse("na%6De=My+Project%21&q=a%2Bb");

  EXPECT_EQ(params.Get("name"), "My Project!");
  EXPECT_EQ(params.Get("q"), "a+b");
}

TEST(QueryParams, KeepsRawTextOfMalformedEscape) {
  QueryParams params = QueryParams::Parse("q=100%&r=%zz");

  EXPECT_EQ(params.Get("q"), "100%");
  EXPECT_EQ(params.Get("r"), "%zz");
}

TEST(QueryParams, AcceptsEmptyQueryMissingValuesAndEmptyPairs) {
  EXPECT_TRUE(QueryParams::Parse("").fields().empty());

  QueryParams params = QueryParams::Parse("flag&&empty=&x=a=b");

  EXPECT_TRUE(params.Has("flag"));
  EXPECT_EQ(params.Get("flag"), "");
  EXPECT_EQ(params.Get("empty"), "");
  EXPECT_EQ(params.Get("x"), "a=b");
  EXPECT_FALSE(params.Has("missing"));
  EXPECT_EQ(params.Get("missing"), std::nullopt);
  EXPECT_EQ(params.fields().size(), 3u);
}

TEST(QueryParams, GetListMergesRepeatedAndCommaSeparatedValues) {
  QueryParams params = QueryParams::Parse("type=776&type=779,780&type=781%2C782&other=1");

  EXPECT_EQ(params.GetList("type"), (Strings{"776", "779", "780", "781", "782"}));
}

TEST(QueryParams, GetListDropsEmptyPieces) {
  QueryParams params = QueryParams::Parse("type=,776,,&type=&type=779");

  EXPECT_EQ(params.GetList("type"), (Strings{"776", "779"}));
  EXPECT_TRUE(params.GetList("missing").empty());
}

TEST(Headers, NamesCompareCaseInsensitively) {
  Headers headers;
  headers.Add("X-MSTR-AuthToken", "abc");

  EXPECT_EQ(headers.Get("x-mstr-authtoken"), "abc");
  EXPECT_EQ(headers.Get("X-SVC-AuthToken"), std::nullopt);
}

TEST(Headers, GetReturnsFirstAndSetReplacesEveryField) {
  Headers headers;
  headers.Add("Set-Cookie", "a=1");
  headers.Add("set-cookie", "b=2");
  EXPECT_EQ(headers.Get("Set-Cookie"), "a=1");

  headers.Set("SET-COOKIE", "c=3");

  ASSERT_EQ(headers.fields().size(), 1u);
  EXPECT_EQ(headers.Get("set-cookie"), "c=3");
}

TEST(Response, JsonCarriesUtf8JsonContentType) {
  Response response = Response::Json(201, R"({"id":"1"})");

  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.headers.Get("content-type"), "application/json; charset=utf-8");
  EXPECT_EQ(response.body, R"({"id":"1"})");
  EXPECT_TRUE(response.is_json());
}

TEST(Response, EmptyHasNoBodyAndIsNotJson) {
  Response response = Response::Empty(204);

  EXPECT_EQ(response.status, 204);
  EXPECT_TRUE(response.body.empty());
  EXPECT_FALSE(response.is_json());
}

}  // namespace
}  // namespace tessera::http
