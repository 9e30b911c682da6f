// The order of refusals when a request has several faults: an unknown report, cube, dashboard,
// pushed dataset, upload session or instance is answered 404 whatever is wrong with the body, as
// the services answered when they read the bodies themselves (the bodies are read in api/ now,
// and their faults refused after the lookups).
#include "api/demo_api.h"

namespace tessera::testing {
namespace {

constexpr const char* kUnknownId = "0123456789ABCDEF0123456789ABCDEF";

class RefusalOrderApi : public DemoApi {
 protected:
  http::Response Send(const std::string& method, const std::string& target,
                      const std::string& body) {
    return client().Send(method, target, Headers(), body);
  }

  static std::string Unknown(const std::string& base) { return base + "/" + kUnknownId; }
};

TEST_P(RefusalOrderApi, AnUnknownPushedDatasetIsRefusedBeforeABadUploadSession) {
  ExpectError(Send("POST", Unknown("/api/datasets") + "/uploadSessions", R"({"tables": 5})"), 404,
              "ERR004");
}

TEST_P(RefusalOrderApi, AnUnknownPushUploadSessionIsRefusedBeforeABadChunk) {
  ExpectError(Send("PUT", Unknown(Unknown("/api/datasets") + "/uploadSessions"),
                   R"({"tableName": "t", "index": 0, "data": "@@"})"),
              404, "ERR004");
}

TEST_P(RefusalOrderApi, AnUnknownPushedDatasetIsRefusedBeforeBadTableRows) {
  http::Headers headers = Headers();
  headers.Set("updatePolicy", "add");
  ExpectError(client().Send("PATCH", Unknown("/api/datasets") + "/tables/T", headers,
                            R"({"columnHeaders": 5})"),
              404, "ERR004");
}

TEST_P(RefusalOrderApi, AnUnknownReportIsRefusedBeforeABadSorting) {
  ExpectError(Send("POST", Unknown("/api/v2/reports") + "/instances", R"({"sorting": [1]})"), 404,
              "ERR004");
}

TEST_P(RefusalOrderApi, AnUnknownReportInstanceIsRefusedBeforeABadSorting) {
  const std::string report = ReportId("Profit by Region and Category");
  ExpectError(Send("PUT", Unknown("/api/v2/reports/" + report + "/instances"),
                   R"({"sorting": {"rows": 5}})"),
              404, "ERR004");
}

TEST_P(RefusalOrderApi, AnUnknownDashboardIsRefusedBeforeBadFilters) {
  ExpectError(Send("POST", Unknown("/api/dossiers") + "/instances", R"({"filters": "Region"})"),
              404, "ERR004");
}

TEST_P(RefusalOrderApi, AnUnknownDashboardInstanceIsRefusedBeforeBadFilters) {
  ExpectError(
      Send("PUT", Unknown(Unknown("/api/dossiers") + "/instances") + "/filters", R"("Region")"),
      404, "ERR004");
}

INSTANTIATE_TEST_SUITE_P(Backends, RefusalOrderApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
