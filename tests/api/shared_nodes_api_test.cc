// Two nodes on one PostgreSQL storage service, each a `tessera serve` process with its own data
// directory, sharing the warehouse and `cubes.dir` as docs/deployment.md sets them up:
//   - a cube published through one node is served by the other, and a republish reaches the
//     other node's next requests without a restart, while an instance made before keeps the rows
//     it was made on;
//   - a logout, and the deletion of a user, on one node stop the token on the other at once --
//     well before the other node's two-second session cache would have let it go.
// Prints how long the other node took to serve the new version and to refuse the token.
// PostgreSQL only (skipped without TESSERA_TEST_PG).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <thread>

#include "api/demo_node_fixture.h"

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

  double InstanceRevenue(NodeProcess& node, const std::string& instance_id) {
    auto response = node.client().Get("/api/v2/cubes/" + sales_cube_ + "/instances/" + instance_id,
                                      node.Headers(project_));
    EXPECT_EQ(response.status, 200) << response.body.substr(0, 500);
    const Json raw = BodyOf(response)["data"]["metricValues"]["raw"];
    return raw.empty() || raw[0].empty() || !raw[0][0].is_number() ? -1 : raw[0][0].get<double>();
  }

  // Polls `request` until it answers `status` or `timeout` passes; the last status seen.
  static int WaitForStatus(const std::function<http::Response()>& request, int status,
                           std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    int seen = request().status;
    while (seen != status && Clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
      seen = request().status;
    }
    return seen;
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
  double served = ServedRevenue(second, sales_cube_);
  // The node hears of the publish through its notice, which may trail the commit by a moment;
  // without it the node would keep the old version until it restarted.
  while (std::abs(served - republished) > 1e-6 * republished && Clock::now() - committed < 10s) {
    std::this_thread::sleep_for(10ms);
    served = ServedRevenue(second, sales_cube_);
  }
  EXPECT_NEAR(served, republished, 1e-6 * republished) << "the other node serves an old version";
  std::cout << "[ figures  ] the other node served the new version " << MillisSince(committed)
            << " ms after the publish was seen completed\n";
  EXPECT_NEAR(InstanceRevenue(second, before_republish), published, 1e-6 * published)
      << "an instance lost the rows it was made on";
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
  EXPECT_EQ(WaitForStatus(on_second, 401, kAtOnce), 401);
  const int64_t refused_ms = MillisSince(logged_out);
  EXPECT_LT(std::chrono::milliseconds(refused_ms), kAtOnce);
  std::cout << "[ figures  ] a token logged out on one node was refused by the other after "
            << refused_ms << " ms\n";
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
  EXPECT_EQ(WaitForStatus(on_second, 401, kAtOnce), 401);
  EXPECT_LT(std::chrono::milliseconds(MillisSince(ended)), kAtOnce);
}

INSTANTIATE_TEST_SUITE_P(Postgres, SharedNodesApi, ::testing::Values(StoreBackend::kPostgres),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
