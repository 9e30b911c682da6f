#include "api/partial_response.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace tessera::api {
namespace {

http::QueryParams Query(std::string_view text) { return http::QueryParams::Parse(text); }

TEST(PartialResponse, AbsentOrEmptyFieldsMeansEverything) {
  EXPECT_FALSE(ParseFieldsParameter(Query("")));
  EXPECT_FALSE(ParseFieldsParameter(Query("fields=")));
}

TEST(PartialResponse, RejectsNamesThatAreNotAlphanumericStartingWithALetter) {
  for (const char* bad :
       {"fields=a,b c", "fields=1a", "fields=a.b", "fields=-data", "fields=a,,b", "fields=_a"}) {
    EXPECT_THROW(ParseFieldsParameter(Query(bad)), Error) << bad;
  }
}

TEST(PartialResponse, AcceptsSnakeCaseNamesAsTheClientSendsThem) {
  auto fields = *ParseFieldsParameter(Query("fields=id%2Cext_type%2Cname"));
  Json object = {{"id", "1"}, {"ext_type", 0}, {"extType", 0}, {"other", 2}};
  ApplyFieldSelection(object, fields);
  EXPECT_EQ(object, Json({{"id", "1"}, {"ext_type", 0}}));
}

TEST(PartialResponse, KeepsListedRootFieldsOfObjectsAndOfEachArrayElement) {
  auto fields = *ParseFieldsParameter(Query("fields=id,owner&fields=missing"));
  Json object = {{"name", "n"}, {"id", "1"}, {"owner", {{"id", "2"}, {"name", "o"}}}};
  ApplyFieldSelection(object, fields);
  EXPECT_EQ(object, Json({{"id", "1"}, {"owner", {{"id", "2"}, {"name", "o"}}}}));

  Json array = Json::array({{{"id", "1"}, {"x", 1}}, {{"id", "2"}, {"y", 2}}});
  ApplyFieldSelection(array, fields);
  EXPECT_EQ(array, Json::array({{{"id", "1"}}, {{"id", "2"}}}));
}

}  // namespace
}  // namespace tessera::api
