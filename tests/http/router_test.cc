#include "http/router.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace tessera::http {
namespace {

using Kind = RouteMatch::Kind;

Handler Named(std::string name) {
  return [name](const Request&, const PathParams&) { return Response::Json(200, name); };
}

std::string HandlerName(const RouteMatch& match) {
  if (match.kind != Kind::kFound) return "<no handler>";
  return (*match.handler)(Request{}, match.params).body;
}

TEST(Router, LiteralSegmentWinsOverParameter) {
  Router router;
  router.Add("GET", "/api/objects/{id}", Named("object"));
  router.Add("GET", "/api/objects/search", Named("search"));

  EXPECT_EQ(HandlerName(router.Match("GET", "/api/objects/search")), "search");
  RouteMatch match = router.Match("GET", "/api/objects/ABC");
  EXPECT_EQ(HandlerName(match), "object");
  EXPECT_EQ(match.params.at("id"), "ABC");
}

TEST(Router, ListsEveryRouteOnceSortedByTemplateThenMethod) {
  Router router;
  router.Add("post", "/api/objects/{id}", Named("update"));
  router.Add("GET", "/api/objects/{id}", Named("object"));
  router.Add("GET", "/api/objects/search", Named("search"));
  router.Add("GET", "/", Named("root"));

  std::vector<RouteEntry> expected = {{"GET", "/"},
                                      {"GET", "/api/objects/search"},
                                      {"GET", "/api/objects/{id}"},
                                      {"POST", "/api/objects/{id}"}};
  EXPECT_EQ(router.Routes(), expected);
}

TEST(Router, FallsBackToParameterWhenLiteralBranchDeadEnds) {
  Router router;
  router.Add("GET", "/a/b/c", Named("literal"));
  router.Add("GET", "/a/{x}/d", Named("param"));

  RouteMatch match = router.Match("GET", "/a/b/d");

  EXPECT_EQ(HandlerName(match), "param");
  EXPECT_EQ(match.params.at("x"), "b");
}

TEST(Router, BindsEveryParameterOfTheMatchedTemplate) {
  Router router;
  router.Add("GET", "/api/v2/reports/{reportId}/instances/{instanceId}", Named("instance"));
  router.Add("GET", "/api/v2/reports/{id}", Named("report"));

  RouteMatch instance = router.Match("GET", "/api/v2/reports/R1/instances/I2");
  RouteMatch report = router.Match("GET", "/api/v2/reports/R1");

  EXPECT_EQ(instance.params, (PathParams{{"reportId", "R1"}, {"instanceId", "I2"}}));
  EXPECT_EQ(report.params, (PathParams{{"id", "R1"}}));
}

TEST(Router, TrailingSlashMatchesTheSameRoute) {
  Router router;
  router.Add("GET", "/api/projects", Named("projects"));
  router.Add("POST", "/api/v2/reports/{id}/instances/", Named("instances"));

  EXPECT_EQ(HandlerName(router.Match("GET", "/api/projects/")), "projects");
  EXPECT_EQ(HandlerName(router.Match("POST", "/api/v2/reports/R/instances/")), "instances");
  EXPECT_EQ(HandlerName(router.Match("POST", "/api/v2/reports/R/instances")), "instances");
}

TEST(Router, DecodesEachSegmentBeforeMatching) {
  Router router;
  router.Add("GET", "/api/projects/{projectIdOrName}", Named("project"));
  router.Add("GET", "/api/status", Named("status"));

  EXPECT_EQ(router.Match("GET", "/api/projects/My%20Project").params.at("projectIdOrName"),
            "My Project");
  EXPECT_EQ(router.Match("GET", "/api/projects/a%2Fb").params.at("projectIdOrName"), "a/b");
  EXPECT_EQ(HandlerName(router.Match("GET", "/api/st%61tus")), "status");
}

TEST(Router, MalformedEscapeInPathIsNotFound) {
  Router router;
  router.Add("GET", "/api/projects/{id}", Named("project"));

  EXPECT_EQ(router.Match("GET", "/api/projects/100%").kind, Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", "/api/projects/%zz").kind, Kind::kNotFound);
}

TEST(Router, KnownPathUnderAnotherMethodIsMethodNotAllowed) {
  Router router;
  router.Add("GET", "/api/projects/{id}", Named("get"));
  router.Add("DELETE", "/api/projects/{id}", Named("delete"));

  RouteMatch match = router.Match("PUT", "/api/projects/P1");

  EXPECT_EQ(match.kind, Kind::kMethodNotAllowed);
  EXPECT_EQ(match.handler, nullptr);
  EXPECT_EQ(match.allowed_methods, (std::vector<std::string>{"DELETE", "GET"}));
}

TEST(Router, UnknownPathIsNotFound) {
  Router router;
  router.Add("GET", "/api/projects/{id}", Named("project"));

  EXPECT_EQ(router.Match("GET", "/api/reports/R1").kind, Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", "/api/projects/P1/extra").kind, Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", "/api").kind, Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", "api/projects/P1").kind, Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", "").kind, Kind::kNotFound);
}

TEST(Router, RepeatedSlashesAreNotCollapsed) {
  Router router;
  router.Add("GET", "/api/projects", Named("projects"));
  router.Add("GET", "/api/projects/{id}", Named("project"));
  router.Add("GET", "/", Named("root"));

  EXPECT_EQ(router.Match("GET", "/api//projects").kind, Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", "/api/projects//").kind, Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", "//").kind, Kind::kNotFound);
  EXPECT_EQ(HandlerName(router.Match("GET", "/")), "root");
}

TEST(Router, HeadIsServedByTheGetRoute) {
  Router router;
  router.Add("GET", "/api/status", Named("status"));

  EXPECT_EQ(HandlerName(router.Match("HEAD", "/api/status")), "status");
}

TEST(Router, MethodsCompareCaseInsensitively) {
  Router router;
  router.Add("post", "/api/auth/login", Named("login"));

  EXPECT_EQ(HandlerName(router.Match("POST", "/api/auth/login")), "login");
}

TEST(Router, DuplicateMethodAndTemplateThrows) {
  Router router;
  router.Add("GET", "/api/objects/{id}", Named("a"));

  EXPECT_THROW(router.Add("GET", "/api/objects/{id}", Named("b")), std::invalid_argument);
  EXPECT_THROW(router.Add("GET", "/api/objects/{objectId}/", Named("b")), std::invalid_argument);
  EXPECT_NO_THROW(router.Add("PUT", "/api/objects/{id}", Named("c")));
}

TEST(Router, MalformedTemplatesThrow) {
  Router router;
  for (std::string_view bad : {"/api/{}", "/api/{id", "/api/id}", "/api/x{id}", "/api/{a{b}}",
                               "/api/{id}/{id}", "api/objects", "", "/api//objects"}) {
    EXPECT_THROW(router.Add("GET", bad, Named("bad")), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace tessera::http
