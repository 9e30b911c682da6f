// Two nodes on one PostgreSQL storage service, each a `tessera serve` process with its own data
// directory, sharing the warehouse and `cubes.dir` as docs/deployment.md sets them up:
//   - a cube published through one node is served by the other, and a republish reaches the
//     other node's next requests without a restart, while an instance made before keeps the rows
//     it was made on;
//   - a logout, and the deletion of a user, on one node stop the token on the other at once --
//     well before the other node's two-second session cache would have let it go; a project
//     closed to a user on one node leaves the other node's project list as soon;
//   - report, cube and dashboard instances made through one node are answered by the other, page
//     for page, with their sorting and selections, and follow each other's changes.
// Prints how long the other node took to serve the new version and to refuse the token.
// PostgreSQL only (skipped without TESSERA_TEST_PG).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "api/demo_node_fixture.h"
#include "model/object_types.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Well under the session cache's two seconds, well over a notice's delivery.
constexpr auto kAtOnce = 1000ms;

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

class SharedNodesApi : public DemoNodeTest {
 protected:
  void SetUp() override {
    DemoNodeTest::SetUp();
    if (IsSkipped()) return;
    std::ofstream config(other_dir_.path() / "tessera.toml");
    config << "[warehouses.demo]\nurl = \"sqlite://" << warehouse_path().string() << "\"\n";
  }

  // The first node: the fixture's data directory (the warehouse's), the shared cubes directory.
  NodeSettings FirstNode() const {
    return Settings({"TESSERA_CUBES_DIR=" + cubes_.path().string()});
  }

  // The second node: its own data directory, the same storage, warehouse and cubes directory.
  NodeSettings SecondNode() const {
    NodeSettings settings = FirstNode();
    settings.data_dir = other_dir_.path();
    settings.environment.push_back("TESSERA_CONFIG=" +
                                   (other_dir_.path() / "tessera.toml").string());
    return settings;
  }

  std::string CreateInstance(NodeProcess& node) {
    http::Headers headers = node.Headers(project_);
    headers.Set("Content-Type", "application/json");
    Json body = {{"requestedObjects",
                  {{"attributes", Json::array()}, {"metrics", {{{"id", revenue_metric_}}}}}}};
    auto response = node.client().Send("POST", "/api/v2/cubes/" + sales_cube_ + "/instances",
                                       headers, body.dump());
    EXPECT_EQ(response.status, 200) << response.body.substr(0, 500);
    return BodyOf(response).value("instanceId", "");
  }

  // As the user of `token` (default: the node's own login).
  double InstanceRevenue(NodeProcess& node, const std::string& instance_id,
                         const std::string& token = "") {
    auto response =
        node.client().Get("/api/v2/cubes/" + sales_cube_ + "/instances/" + instance_id,
                          token.empty() ? node.Headers(project_) : AuthHeaders(token, project_));
    EXPECT_EQ(response.status, 200) << response.body.substr(0, 500);
    const Json raw = BodyOf(response)["data"]["metricValues"]["raw"];
    return raw.empty() || raw[0].empty() || !raw[0][0].is_number() ? -1 : raw[0][0].get<double>();
  }

  // Polls `request` until it answers `status`; fails, naming the last status seen, when `timeout`
  // passes first.
  static ::testing::AssertionResult Answers(const std::function<http::Response()>& request,
                                            int status, std::chrono::milliseconds timeout) {
    int seen = 0;
    ::testing::AssertionResult answered = WaitUntil(
        [&] {
          seen = request().status;
          return seen == status;
        },
        timeout, "the request was answered " + std::to_string(status), 10ms);
    if (!answered) answered << " (the last answer was " << seen << ")";
    return answered;
  }

  TempDir other_dir_;
  TempDir cubes_;
};

TEST_P(SharedNodesApi, ACubePublishedThroughOneNodeIsServedByTheOtherAtEachNewVersion) {
  NodeProcess first(FirstNode());
  first.Start();
  NodeProcess second(SecondNode());
  second.Start();

  ASSERT_EQ(Publish(first, sales_cube_).status, 202);
  ASSERT_EQ(WaitForPublishEnd(first, sales_cube_)["status"], "completed");
  const double published = WarehouseRevenue();
  EXPECT_NEAR(ServedRevenue(second, sales_cube_), published, 1e-6 * published);
  const std::string before_republish = CreateInstance(second);

  AddToEveryRevenue(1);
  const double republished = WarehouseRevenue();
  ASSERT_GT(republished, published);
  ASSERT_EQ(Publish(first, sales_cube_).status, 202);
  ASSERT_EQ(WaitForPublishEnd(first, sales_cube_)["status"], "completed");
  const auto committed = Clock::now();
  double served = 0;
  // The node hears of the publish through its notice, which may trail the commit by a moment;
  // without it the node would keep the old version until it restarted.
  EXPECT_TRUE(WaitUntil(
      [&] {
        served = ServedRevenue(second, sales_cube_);
        return std::abs(served - republished) <= 1e-6 * republished;
      },
      10s, "the other node served the republished version", 10ms));
  EXPECT_NEAR(served, republished, 1e-6 * republished) << "the other node serves an old version";
  std::cout << "[ figures  ] the other node served the new version " << MillisSince(committed)
            << " ms after the publish was seen completed\n";
  EXPECT_NEAR(InstanceRevenue(second, before_republish), published, 1e-6 * published)
      << "an instance lost the rows it was made on";
  EXPECT_NEAR(InstanceRevenue(first, before_republish, second.token()), published, 1e-6 * published)
      << "the node that rebuilt the instance read another version than the one it was made on";
  EXPECT_EQ(CubeStatusBits(second, sales_cube_), 102);
}

TEST_P(SharedNodesApi, ALogoutOnOneNodeEndsTheSessionOnTheOtherAtOnce) {
  NodeProcess first(FirstNode());
  first.Start();
  NodeProcess second(SecondNode());
  second.Start();
  const std::string token = first.client().Login();
  auto on_second = [&] { return second.client().Get("/api/sessions", AuthHeaders(token)); };
  ASSERT_EQ(on_second().status, 200);  // the second node has validated and cached it

  ASSERT_EQ(first.client().Send("POST", "/api/auth/logout", AuthHeaders(token)).status, 204);
  const auto logged_out = Clock::now();
  EXPECT_TRUE(Answers(on_second, 401, kAtOnce));
  const int64_t refused_ms = MillisSince(logged_out);
  EXPECT_LT(std::chrono::milliseconds(refused_ms), kAtOnce);
  std::cout << "[ figures  ] a token logged out on one node was refused by the other after "
            << refused_ms << " ms\n";
}

// One user's token on both nodes, the demo project as the project header.
class SharedInstancesApi : public SharedNodesApi {
 protected:
  void SetUp() override {
    SharedNodesApi::SetUp();
    if (IsSkipped()) return;
    first_ = std::make_unique<NodeProcess>(FirstNode());
    first_->Start();
    second_ = std::make_unique<NodeProcess>(SecondNode());
    second_->Start();
    token_ = first_->client().Login();
  }

  http::Response Call(NodeProcess& node, const std::string& method, const std::string& target,
                      const Json& body = nullptr) {
    http::Headers headers = AuthHeaders(token_, project_);
    if (body.is_null()) return node.client().Send(method, target, headers);
    headers.Set("Content-Type", "application/json");
    return node.client().Send(method, target, headers, body.dump());
  }

  // The answer's body, required to be `status`.
  Json Answer(NodeProcess& node, const std::string& method, const std::string& target,
              const Json& body = nullptr, int status = 200) {
    http::Response response = Call(node, method, target, body);
    EXPECT_EQ(response.status, status)
        << method << " " << target << ": " << response.body.substr(0, 500);
    return response.body.empty() ? Json() : BodyOf(response);
  }

  std::string IdNamed(int type, const std::string& name) {
    std::vector<model::ObjectRecord> objects;
    store_->Read([&](storage::MetadataTransaction& tx) { objects = tx.ListObjects(project_, {}); });
    for (const auto& object : objects) {
      if (object.type == type && object.name == name) return object.id;
    }
    ADD_FAILURE() << "no object named " << name;
    return "";
  }

  // A filters body selecting `values` of Region on Sales Overview's chapter filter W10.
  Json RegionSelection(const std::string& status, const std::vector<std::string>& values) {
    Json elements = Json::array();
    for (const auto& value : values) {
      elements.push_back({{"id", "h" + value + ";" + IdNamed(model::kTypeAttribute, "Region")}});
    }
    return Json::array(
        {{{"key", "W10"},
          {"currentSelection", {{"selectionStatus", status}, {"elements", elements}}}}});
  }

  std::unique_ptr<NodeProcess> first_;
  std::unique_ptr<NodeProcess> second_;
  std::string token_;
};

TEST_P(SharedInstancesApi, ACubeInstanceIsAnsweredByTheOtherNodePageForPage) {
  ASSERT_EQ(Publish(*first_, sales_cube_).status, 202);
  ASSERT_EQ(WaitForPublishEnd(*first_, sales_cube_)["status"], "completed");
  const std::string base = "/api/v2/cubes/" + sales_cube_ + "/instances";
  const Json created = Answer(*first_, "POST", base + "?limit=100", Json::object());
  const std::string id = created.value("instanceId", "");
  ASSERT_FALSE(id.empty());
  const int64_t total = created["data"]["paging"].value("total", int64_t{0});
  ASSERT_GT(total, 300) << "the test needs several pages";

  for (const int64_t offset : {int64_t{0}, int64_t{200}, total - 50}) {
    const std::string page = base + "/" + id + "?offset=" + std::to_string(offset) + "&limit=100";
    const Json on_second = Answer(*second_, "GET", page);
    const Json on_first = Answer(*first_, "GET", page);
    EXPECT_EQ(on_second["data"], on_first["data"]) << "offset " << offset;
    EXPECT_EQ(on_second["definition"], on_first["definition"]);
  }
  // v1 reads the same instance on either node too.
  const std::string v1 = "/api/cubes/" + sales_cube_ + "/instances/" + id + "?offset=100&limit=50";
  EXPECT_EQ(Answer(*second_, "GET", v1)["result"], Answer(*first_, "GET", v1)["result"]);

  // Another user's token, or another object, does not reach it on the other node.
  const std::string foreign = second_->client().Login();
  http::Response as_other = second_->client().Get(base + "/" + id, AuthHeaders(foreign, project_));
  EXPECT_EQ(as_other.status, 404) << as_other.body;
  EXPECT_EQ(Call(*second_, "GET",
                 "/api/v2/cubes/" + IdNamed(model::kTypeReportDefinition, "Item Sales Cube") +
                     "/instances/" + id)
                .status,
            404);
}

TEST_P(SharedInstancesApi, AReportResortedOnOneNodeIsSortedSoOnTheOther) {
  const std::string report = IdNamed(model::kTypeReportDefinition, "Profit by Region and Category");
  const std::string base = "/api/v2/reports/" + report + "/instances";
  const Json created = Answer(*first_, "POST", base, Json::object());
  const std::string id = created.value("instanceId", "");
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(Answer(*second_, "GET", base + "/" + id)["data"], created["data"]);

  // Resorted through the second node by the first metric, descending.
  const std::string metric = IdNamed(model::kTypeMetric, "Profit");
  const Json sorting = {
      {"sorting",
       {{"rows", {{{"type", "metric"}, {"metric", {{"id", metric}}}, {"order", "descending"}}}}}}};
  const Json resorted = Answer(*second_, "PUT", base + "/" + id, sorting);
  EXPECT_NE(resorted["data"], created["data"]) << "the resort changed nothing";
  // The first node held the instance before the resort: it answers with the new order.
  EXPECT_EQ(Answer(*first_, "GET", base + "/" + id)["data"], resorted["data"]);
}

TEST_P(SharedInstancesApi, ADashboardFollowsItsSelectionsThroughEitherNode) {
  for (const std::string& cube :
       {sales_cube_, IdNamed(model::kTypeReportDefinition, "Item Sales Cube")}) {
    ASSERT_EQ(Publish(*first_, cube).status, 202);
    ASSERT_EQ(WaitForPublishEnd(*first_, cube)["status"], "completed");
  }
  const std::string overview = IdNamed(model::kTypeDocumentDefinition, "Sales Overview");
  const std::string base = "/api/dossiers/" + overview + "/instances";
  const std::string id = Answer(*first_, "POST", base, Json::object(), 201).value("mid", "");
  ASSERT_FALSE(id.empty());
  const std::string w5 =
      "/api/v2/dossiers/" + overview + "/instances/" + id + "/chapters/K1/visualizations/W5";
  const Json unfiltered = Answer(*first_, "GET", w5)["data"];
  EXPECT_EQ(Answer(*second_, "GET", w5)["data"], unfiltered);

  // Filtered through the first node, read through the second, which already held it.
  Answer(*first_, "PUT", base + "/" + id + "/filters", RegionSelection("included", {"1"}), 204);
  const Json west = Answer(*second_, "GET", w5)["data"];
  EXPECT_NE(west, unfiltered) << "the second node shows the state before the filter";
  EXPECT_EQ(Answer(*first_, "GET", w5)["data"], west);

  // And back: filtered through the second node, read through the first.
  Answer(*second_, "PUT", base + "/" + id + "/filters", RegionSelection("excluded", {"1"}), 204);
  const Json others = Answer(*first_, "GET", w5)["data"];
  EXPECT_NE(others, west);
  EXPECT_EQ(Answer(*second_, "GET", w5)["data"], others);

  // Deleted through one node, gone on both.
  Answer(*second_, "DELETE", base + "/" + id, nullptr, 204);
  EXPECT_EQ(Call(*first_, "GET", w5).status, 404);
  EXPECT_EQ(Call(*second_, "GET", w5).status, 404);
}

TEST_P(SharedInstancesApi, AnInstanceEndsWithItsSessionOnEveryNode) {
  ASSERT_EQ(Publish(*first_, sales_cube_).status, 202);
  ASSERT_EQ(WaitForPublishEnd(*first_, sales_cube_)["status"], "completed");
  const std::string base = "/api/v2/cubes/" + sales_cube_ + "/instances";
  const std::string id = Answer(*first_, "POST", base, Json::object()).value("instanceId", "");
  ASSERT_EQ(Call(*second_, "POST", "/api/auth/logout").status, 204);
  int64_t records = -1;
  store_->Read(
      [&](storage::MetadataTransaction& tx) { records = tx.FindInstance(id).has_value() ? 1 : 0; });
  EXPECT_EQ(records, 0) << "the instance's record outlived its session";
}

TEST_P(SharedNodesApi, ADeletedUserIsRefusedOnEveryNodeAtOnce) {
  NodeProcess first(FirstNode());
  first.Start();
  NodeProcess second(SecondNode());
  second.Start();
  auto created = first.client().PostJson(
      "/api/users", {{"username", "dana"}, {"fullName", "Dana Tester"}, {"password", "secret"}},
      first.Headers());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string user_id = BodyOf(created).value("id", "");
  const std::string token = second.client().Login("dana", "secret");
  auto on_second = [&] { return second.client().Get("/api/sessions", AuthHeaders(token)); };
  ASSERT_EQ(on_second().status, 200);

  auto deleted = first.client().Send("DELETE", "/api/users/" + user_id, first.Headers());
  ASSERT_EQ(deleted.status, 204) << deleted.body;
  const auto ended = Clock::now();
  EXPECT_TRUE(Answers(on_second, 401, kAtOnce));
  EXPECT_LT(std::chrono::milliseconds(MillisSince(ended)), kAtOnce);
}

TEST_P(SharedNodesApi, AProjectClosedToAUserOnOneNodeLeavesTheOthersListAtOnce) {
  NodeProcess first(FirstNode());
  first.Start();
  NodeProcess second(SecondNode());
  second.Start();
  auto created = first.client().PostJson(
      "/api/users", {{"username", "erin"}, {"fullName", "Erin Tester"}, {"password", "secret"}},
      first.Headers());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string token = second.client().Login("erin", "secret");
  auto listed_on_second = [&] {
    auto response = second.client().Get("/api/projects", AuthHeaders(token));
    bool listed = false;
    for (const auto& project : BodyOf(response)) listed |= project.value("id", "") == project_;
    response.status = listed ? 200 : 404;
    return response;
  };
  ASSERT_EQ(listed_on_second().status, 200) << "the second node has read its project list";

  const Json closed = {{"acl",
                        {{{"op", "REMOVE"},
                          {"trustee", "C82C6B1011D2894CC0009D9F29718E4F"},  // Everyone
                          {"rights", 255}}}}};
  http::Headers headers = first.Headers(project_);
  headers.Set("Content-Type", "application/json");
  auto changed = first.client().Send("PUT", "/api/objects/" + project_ + "/acl?type=32", headers,
                                     closed.dump());
  ASSERT_EQ(changed.status, 200) << changed.body;
  const auto closed_at = Clock::now();
  EXPECT_TRUE(Answers(listed_on_second, 404, kAtOnce));
  std::cout << "[ figures  ] a project closed on one node left the other's list after "
            << MillisSince(closed_at) << " ms\n";
}

// Whether a node can share its storage service with others, it says at start.
class StorageSharingApi : public DemoNodeTest {};

TEST_P(StorageSharingApi, ANodeSaysWhetherOtherNodesMayShareItsStorage) {
  NodeProcess node(Settings());
  node.Start();
  if (GetParam() == StoreBackend::kSqlite) {
    EXPECT_TRUE(WaitForLogLine(node.log_path(), "storage on SQLite serves this node alone"));
  } else {
    EXPECT_TRUE(WaitForLogLine(node.log_path(), "hearing other nodes' changes"));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StorageSharingApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);
INSTANTIATE_TEST_SUITE_P(Postgres, SharedNodesApi, ::testing::Values(StoreBackend::kPostgres),
                         BackendParamName);
INSTANTIATE_TEST_SUITE_P(Postgres, SharedInstancesApi, ::testing::Values(StoreBackend::kPostgres),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
