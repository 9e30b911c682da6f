// A cube id on a report path, or a report id on a cube path: still 404 ERR004 (there is no such
// report, or no such cube), with a message saying what the id is and the path that serves it.
#include "api/demo_api.h"

namespace tessera::testing {
namespace {

class DatasetKindApi : public DemoApi {
 protected:
  http::Response Post(const std::string& target, const std::string& body = "{}") {
    http::Headers headers = Headers();
    headers.Set("Content-Type", "application/json");
    return client().Send("POST", target, headers, body);
  }
};

TEST_P(DatasetKindApi, ACubeIdOnAReportPathSaysItIsACubeAndWhichPathServesIt) {
  const std::string cube = ReportId("Sales Cube");
  const std::string is_a_cube = "'" + cube + "' is a cube, not a report; use ";
  ExpectError(Get("/api/reports/" + cube), 404, "ERR004", is_a_cube + "/api/cubes/" + cube);
  ExpectError(Get("/api/v2/reports/" + cube), 404, "ERR004", is_a_cube + "/api/v2/cubes/" + cube);
  ExpectError(Post("/api/v2/reports/" + cube + "/instances/"), 404, "ERR004",
              is_a_cube + "/api/v2/cubes/" + cube + "/instances");
  ExpectError(Post("/api/reports/" + cube + "/instances"), 404, "ERR004",
              is_a_cube + "/api/cubes/" + cube + "/instances");
  // Cubes have no prompts call: the hint is the cube's definition.
  ExpectError(Get("/api/reports/" + cube + "/prompts"), 404, "ERR004",
              is_a_cube + "/api/cubes/" + cube);
}

TEST_P(DatasetKindApi, AReportIdOnACubePathSaysItIsAReportAndWhichPathServesIt) {
  const std::string report = ReportId("Western Europe by Country");
  const std::string is_a_report = "'" + report + "' is a report, not a cube; use ";
  ExpectError(Get("/api/cubes/" + report), 404, "ERR004", is_a_report + "/api/reports/" + report);
  ExpectError(Post("/api/v2/cubes/" + report + "/instances"), 404, "ERR004",
              is_a_report + "/api/v2/reports/" + report + "/instances");
  // Reports are not published: the hint is the report's definition, and nothing starts.
  ExpectError(Post("/api/v2/cubes/" + report, ""), 404, "ERR004",
              is_a_report + "/api/reports/" + report);
  EXPECT_EQ(GetJson("/api/cubes?id=" + report)["cubesInfos"], Json::array());
}

TEST_P(DatasetKindApi, AnIdNamingNothingKeepsTheNotFoundMessage) {
  const std::string unknown = "0123456789ABCDEF0123456789ABCDEF";
  ExpectError(Get("/api/reports/" + unknown), 404, "ERR004",
              "Report '" + unknown + "' was not found in project '" + project() + "'");
  ExpectError(Get("/api/cubes/" + unknown), 404, "ERR004",
              "Cube '" + unknown + "' was not found in project '" + project() + "'");
}

INSTANTIATE_TEST_SUITE_P(Backends, DatasetKindApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
