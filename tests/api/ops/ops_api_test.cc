// Operations over real HTTP: /health/live, /health/ready (storage, warehouses, package location)
// and /metrics in the Prometheus text format. Expected counts come from the requests the test
// sent and from the storage service read directly, never from the node's own figures.
#include <fstream>
#include <map>
#include <regex>

#include "api/demo_api.h"
#include "support/free_port.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

// One sample per line: "name{labels} value" -> value. Labels are kept as written (sorted as the
// node writes them), so a series is looked up by its exact text.
std::map<std::string, double> ParseSamples(const std::string& text) {
  static const std::regex kSample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})?) (\S+)$)");
  std::map<std::string, double> samples;
  std::istringstream lines(text);
  std::string family;  // of the latest TYPE line: every sample after it belongs to it
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# TYPE ")) family = line.substr(7, line.find(' ', 7) - 7);
    if (line.empty() || line.starts_with('#')) continue;
    EXPECT_TRUE(!family.empty() && line.starts_with(family))
        << "a sample outside its family's block (after TYPE " << family << "): " << line;
    std::smatch match;
    EXPECT_TRUE(std::regex_match(line, match, kSample)) << "not a sample line: " << line;
    if (match.empty()) continue;
    const std::string value = match[3];
    samples[match[1]] = value == "+Inf" ? INFINITY : std::stod(value);
  }
  return samples;
}

// Parses the page with the Prometheus project's own Python parser (Debian's
// python3-prometheus-client); returns its complaint, or "" when the page is valid.
std::string PrometheusParserComplaint(const std::string& text) {
  TempDir dir;
  const auto page = dir.path() / "metrics.txt";
  std::ofstream(page) << text;
  const std::string command =
      "/usr/bin/python3 -c 'import sys\n"
      "from prometheus_client.parser import text_string_to_metric_families as parse\n"
      "families = list(parse(open(sys.argv[1]).read()))\n"
      "assert families, \"no metric family\"\n' " +
      page.string() + " 2>&1";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = pclose(pipe);
  return status == 0 ? "" : (output.empty() ? "exit status " + std::to_string(status) : output);
}

class OpsApi : public ApiTest {
 protected:
  http::Response Metrics(const http::Headers& headers = {}) {
    return client().Get("/metrics", headers);
  }
  std::map<std::string, double> MetricSamples() {
    auto response = Metrics();
    EXPECT_EQ(response.status, 200) << response.body;
    EXPECT_EQ(response.headers.Get("Content-Type").value_or(""),
              "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_EQ(PrometheusParserComplaint(response.body), "");
    return ParseSamples(response.body);
  }
  int64_t CountDirect(const std::string& sql) {
    return std::stoll(database().QueryDirect(sql).value_or("-1"));
  }
};

std::string CmakeProjectVersion() {
  std::ifstream in(TESSERA_SOURCE_DIR "/CMakeLists.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch match;
  std::regex_search(text, match, std::regex(R"(project\(tessera VERSION (\S+))"));
  return match.empty() ? "" : match[1].str();
}

TEST_P(OpsApi, LiveAnswersWithoutATokenAndNamesTheVersion) {
  auto response = client().Get("/health/live");
  ASSERT_EQ(response.status, 200) << response.body;
  Json body = BodyOf(response);
  EXPECT_EQ(body["status"], "live");
  EXPECT_EQ(body["version"], CmakeProjectVersion());
  EXPECT_GE(body["uptimeSeconds"].get<int64_t>(), 0);
  ExpectError(client().Send("POST", "/health/live"), 405, "ERR001");
  ExpectError(client().Get("/health/nothing"), 404, "ERR004");
}

TEST_P(OpsApi, ReadyChecksStorageEveryWarehouseAndThePackageLocation) {
  auto response = client().Get("/health/ready");
  ASSERT_EQ(response.status, 200) << response.body;
  Json body = BodyOf(response);
  EXPECT_EQ(body["status"], "ready");
  std::map<std::string, Json> checks;
  for (const auto& check : body["checks"]) checks[check["name"]] = check;
  ASSERT_TRUE(checks.contains("storage")) << body.dump();
  EXPECT_EQ(checks["storage"]["status"], "up");
  EXPECT_EQ(
      checks["storage"]["detail"],
      std::string(GetParam() == StoreBackend::kPostgres ? "postgresql" : "sqlite") + " answers");
  ASSERT_TRUE(checks.contains("warehouse:demo")) << body.dump();
  EXPECT_EQ(checks["warehouse:demo"]["status"], "up");
  ASSERT_TRUE(checks.contains("packageLocation")) << body.dump();
  EXPECT_EQ(checks["packageLocation"]["status"], "up");
  EXPECT_EQ(checks.size(), 3u) << body.dump();
}

TEST_P(OpsApi, ReadyTurnsDegradedWhenThePackageLocationGoes) {
  std::filesystem::remove_all(config().data_dir + "/packages");
  http::Response response;
  EXPECT_TRUE(WaitUntil(  // a result is reused for a second
      [&] {
        response = client().Get("/health/ready");
        return response.status != 200 || BodyOf(response)["status"] == "degraded";
      },
      std::chrono::seconds(10), "/health/ready noticed that the package location is gone"));
  ASSERT_EQ(response.status, 200) << response.body;
  const Json body = BodyOf(response);
  EXPECT_EQ(body["status"], "degraded") << body.dump();
  for (const auto& check : body["checks"]) {
    EXPECT_EQ(check["status"], check["name"] == "packageLocation" ? "down" : "up") << check.dump();
  }
}

TEST_P(OpsApi, MetricsCountRequestsByRouteTemplateAndStatus) {
  const std::string token = client().Login();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(client().Get("/api/projects", AuthHeaders(token)).status, 200);
  }
  ASSERT_EQ(client().Get("/api/projects/Nope", AuthHeaders(token)).status, 404);
  ASSERT_EQ(client().Get("/api/noSuchRoute", AuthHeaders(token)).status, 404);
  ASSERT_EQ(client().Get("/api/projects", AuthHeaders("not-a-token")).status, 401);
  // Refused before its body is read: counted under its route all the same.
  ASSERT_EQ(client().Send("POST", "/api/folders", AuthHeaders("not-a-token"), "{}").status, 401);
  ASSERT_EQ(client().Send("BREW", "/api/projects", AuthHeaders(token)).status, 405);

  auto samples = MetricSamples();
  const auto requests = [&](const std::string& method, const std::string& route,
                            const std::string& code) {
    return samples["tessera_http_requests_total{method=\"" + method + "\",route=\"" + route +
                   "\",code=\"" + code + "\"}"];
  };
  EXPECT_EQ(requests("GET", "/api/projects", "200"), 3);
  EXPECT_EQ(requests("GET", "/api/projects", "401"), 1);
  EXPECT_EQ(requests("GET", "/api/projects/{projectIdOrName}", "404"), 1);
  EXPECT_EQ(requests("GET", "unmatched", "404"), 1);
  EXPECT_EQ(requests("POST", "/api/folders", "401"), 1);
  EXPECT_EQ(requests("POST", "/api/auth/login", "204"), 1);
  EXPECT_EQ(requests("other", "unmatched", "405"), 1);

  const std::string series = "method=\"GET\",route=\"/api/projects\"";
  EXPECT_EQ(samples["tessera_http_request_duration_seconds_count{" + series + "}"], 4);
  EXPECT_EQ(samples["tessera_http_request_duration_seconds_bucket{" + series + ",le=\"+Inf\"}"], 4);
  double previous = 0;
  for (const char* bound : {"0.001", "0.01", "0.1", "1", "10", "60"}) {
    const double cumulative = samples["tessera_http_request_duration_seconds_bucket{" + series +
                                      ",le=\"" + bound + "\"}"];
    EXPECT_GE(cumulative, previous) << bound;
    previous = cumulative;
  }
  EXPECT_GT(samples["tessera_http_request_duration_seconds_sum{" + series + "}"], 0);
}

TEST_P(OpsApi, MetricsShowSessionsAndJobsAsTheStorageServiceHoldsThem) {
  client().Login();
  client().Login();
  database().ExecuteDirect(
      "INSERT INTO jobs (id, kind, state, data_json, created_ms, updated_ms) VALUES "
      "('J1', 'metrics_test', 'done', '{}', 1, 1), ('J2', 'metrics_test', 'done', '{}', 1, 1), "
      "('J3', 'metrics_test', 'failed', '{}', 1, 1)");

  auto samples = MetricSamples();
  EXPECT_EQ(samples["tessera_storage_up"], 1);
  EXPECT_EQ(samples["tessera_sessions"], CountDirect("SELECT count(*) FROM sessions"));
  EXPECT_EQ(samples["tessera_sessions"], 2);
  EXPECT_EQ(samples["tessera_jobs{kind=\"metrics_test\",state=\"done\"}"], 2);
  EXPECT_EQ(samples["tessera_jobs{kind=\"metrics_test\",state=\"failed\"}"], 1);
  EXPECT_EQ(samples["tessera_instances"], 0);
  EXPECT_EQ(samples["tessera_instance_result_budget_bytes"], 1024.0 * 1024 * 1024);
  EXPECT_GE(samples["tessera_storage_pool_max_connections"], 1);
  EXPECT_GE(samples["tessera_storage_pool_connections{state=\"idle\"}"] +
                samples["tessera_storage_pool_connections{state=\"in_use\"}"],
            1);
  EXPECT_GE(samples["tessera_http_open_connections"], 1);  // this test's own
  EXPECT_EQ(samples["tessera_pool_threads{pool=\"compute\"}"], 4);
  EXPECT_EQ(samples["tessera_pool_threads{pool=\"metadata\"}"], 2);
  EXPECT_GT(samples["process_resident_memory_bytes"], 1 << 20);
  EXPECT_GT(samples["process_open_fds"], 0);
  EXPECT_EQ(samples["tessera_build_info{version=\"" + CmakeProjectVersion() +
                    "\",reported_version=\"11.6.0200.0001\"}"],
            1);
}

INSTANTIATE_TEST_SUITE_P(Backends, OpsApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

// A warehouse that cannot be reached leaves the node ready but degraded, naming it; without a
// package location the check says so; /metrics asks for the configured token.
class DegradedOpsApi : public OpsApi {
 protected:
  void Configure(app::Config& config) override {
    config.warehouses["offline"] =
        "postgresql://tessera@127.0.0.1:" + std::to_string(FreeLoopbackPort()) + "/nothing";
    config.packages_dir = "none";
    config.metrics_token = "s3cret";
  }
};

TEST_P(DegradedOpsApi, ReadyIsDegradedAndNamesWhatFailed) {
  auto response = client().Get("/health/ready");
  ASSERT_EQ(response.status, 200) << response.body;
  Json body = BodyOf(response);
  EXPECT_EQ(body["status"], "degraded");
  std::map<std::string, Json> checks;
  for (const auto& check : body["checks"]) checks[check["name"]] = check;
  EXPECT_EQ(checks["storage"]["status"], "up");
  EXPECT_EQ(checks["warehouse:demo"]["status"], "up");
  EXPECT_EQ(checks["warehouse:offline"]["status"], "down");
  EXPECT_NE(checks["warehouse:offline"]["detail"].get<std::string>(), "");
  EXPECT_EQ(checks["packageLocation"]["status"], "unset");
  EXPECT_NE(checks["packageLocation"]["detail"].get<std::string>().find("not configured"),
            std::string::npos)
      << checks["packageLocation"].dump();
}

TEST_P(DegradedOpsApi, MetricsRequireTheConfiguredToken) {
  auto missing = Metrics();
  ExpectError(missing, 401, "ERR009");
  EXPECT_NE(BodyOf(missing)["message"].get<std::string>().find("Authorization: Bearer"),
            std::string::npos);
  http::Headers wrong;
  wrong.Set("Authorization", "Bearer guess");
  ExpectError(Metrics(wrong), 401, "ERR009");
  http::Headers right;
  right.Set("Authorization", "Bearer s3cret");
  auto response = Metrics(right);
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(PrometheusParserComplaint(response.body), "");
  // Health stays open: load balancers probe it without credentials.
  EXPECT_EQ(client().Get("/health/live").status, 200);
}

INSTANTIATE_TEST_SUITE_P(Backends, DegradedOpsApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

// Storage that cannot be used: not ready (503), and /metrics still answers with what the node
// holds itself.
class StoragelessOpsApi : public OpsApi {
 protected:
  void Configure(app::Config& config) override {
    config.storage_url =
        "postgresql://tessera@127.0.0.1:" + std::to_string(FreeLoopbackPort()) + "/nothing";
  }
};

TEST_P(StoragelessOpsApi, ReadyIs503AndMetricsSayStorageIsDown) {
  auto response = client().Get("/health/ready");
  ASSERT_EQ(response.status, 503) << response.body;
  Json body = BodyOf(response);
  EXPECT_EQ(body["status"], "unavailable");
  ASSERT_FALSE(body["checks"].empty());
  EXPECT_EQ(body["checks"][0]["name"], "storage");
  EXPECT_EQ(body["checks"][0]["status"], "down");
  EXPECT_EQ(client().Get("/health/live").status, 200);

  auto samples = MetricSamples();
  EXPECT_EQ(samples["tessera_storage_up"], 0);
  EXPECT_FALSE(samples.contains("tessera_sessions"));
  EXPECT_EQ(samples["tessera_instances"], 0);
}

// The storage backend does not matter here: one run.
INSTANTIATE_TEST_SUITE_P(Backends, StoragelessOpsApi, ::testing::Values(StoreBackend::kSqlite),
                         BackendParamName);

// What the node holds: instances and the memory of their results, published cubes, publish jobs.
class OpsDemoApi : public DemoApi {};

TEST_P(OpsDemoApi, MetricsFollowInstancesCubesAndPublishJobs) {
  const std::string cube = ReportId("Sales Cube");
  PublishAndWait(cube);
  auto response = client().Send(
      "POST", "/api/v2/reports/" + ReportId("Western Europe by Country") + "/instances", Headers(),
      "{}");
  ASSERT_EQ(response.status, 200) << response.body;

  auto page = client().Get("/metrics");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(PrometheusParserComplaint(page.body), "");
  auto samples = ParseSamples(page.body);
  EXPECT_EQ(samples["tessera_instances"], 1);
  EXPECT_GT(samples["tessera_instance_result_bytes"], 0);
  EXPECT_EQ(samples["tessera_cubes_loaded"], 1);
  EXPECT_GT(samples["tessera_cube_bytes"], 1000);
  EXPECT_EQ(samples["tessera_cube_publishes_running"], 0);
  const int64_t done_jobs = std::stoll(
      database().QueryDirect("SELECT count(*) FROM jobs WHERE state = 'done'").value_or("-1"));
  double reported_done = 0;
  for (const auto& [series, value] : samples) {
    if (series.starts_with("tessera_jobs{") && series.ends_with("state=\"done\"}")) {
      reported_done += value;
    }
  }
  EXPECT_EQ(reported_done, done_jobs);
  EXPECT_GE(done_jobs, 1);
  EXPECT_GE(samples["tessera_warehouse_pool_max_connections{warehouse=\"demo\"}"], 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, OpsDemoApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
