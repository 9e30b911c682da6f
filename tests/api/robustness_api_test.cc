// The server under bad input, load, outages and restarts.
#include <atomic>
#include <thread>

#include "api/api_fixture.h"
#include "support/pg_cluster.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

class RobustnessApi : public ApiTest {
 protected:
  void Configure(app::Config& config) override { config.max_request_body_bytes = 64 * 1024; }
};

TEST_P(RobustnessApi, AHugeBodyIs413AndTheServerKeepsServing) {
  std::string huge(1 << 20, 'x');
  http::Headers headers;
  headers.Set("Content-Type", "application/json");
  auto response = client().Send("POST", "/api/auth/login", headers, huge);
  ExpectError(response, 413, "ERR006");
  EXPECT_EQ(ApiClient(port()).Get("/api/status").status, 200);
}

TEST_P(RobustnessApi, ConcurrentRequestsOnOneTokenAllSucceed) {
  CreateProject("Concurrent");
  std::string token = client().Login();
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      ApiClient own(port());
      for (int i = 0; i < 40; ++i) {
        if (own.Get("/api/projects", AuthHeaders(token)).status == 200) ++ok;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok.load(), 8 * 40);
}

TEST_P(RobustnessApi, ATokenStaysValidAcrossARestart) {
  std::string project = CreateProject("Durable");
  std::string token = client().Login();
  StopNode();
  StartNode();
  auto response = client().Get("/api/projects/" + project, AuthHeaders(token));
  EXPECT_EQ(response.status, 200) << response.body;
}

TEST_P(RobustnessApi, ATooNewStorageSchemaIs503UntilItIsFixed) {
  std::string token = client().Login();
  StopNode();
  database().ExecuteDirect("UPDATE schema_version SET version = 99");
  StartNode();
  EXPECT_EQ(client().Get("/api/status").status, 200);  // the process stays up
  auto refused = client().Get("/api/projects", AuthHeaders(token));
  ExpectError(refused, 503, "ERR016");
  EXPECT_EQ(BodyOf(refused)["message"],
            "The API requires Storage Service. Please contact your administrator.");
  database().ExecuteDirect("UPDATE schema_version SET version = 1");
  EXPECT_TRUE(
      WaitUntil([&] { return client().Get("/api/projects", AuthHeaders(token)).status == 200; },
                std::chrono::seconds(30), "the node served GET /api/projects again"));
}

INSTANTIATE_TEST_SUITE_P(Backends, RobustnessApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

TEST(StorageConfigurationApi, AnInvalidStorageUrlLeavesTheServerUpAnswering503) {
  TempDir data;
  app::Config config;
  config.listen = "127.0.0.1:0";
  config.data_dir = data.path().string();
  config.storage_url = "bogus://nowhere";
  config.access_log = false;
  config.demo_on_first_start = false;
  app::Node node(config);
  node.Start();
  ApiClient client(node.port());
  EXPECT_EQ(client.Get("/api/status").status, 200);
  http::Headers form;
  form.Set("Content-Type", "application/x-www-form-urlencoded");
  ExpectError(client.Send("POST", "/api/auth/login", form, "username=administrator&password="), 503,
              "ERR016");
  node.Stop();
}

TEST(StorageOutageApi, PostgresStoppedMidRunGives503ThenRecoversWithoutRestart) {
  PrivatePgCluster cluster;
  if (!cluster.available()) GTEST_SKIP() << "no PostgreSQL server binaries";
  cluster.Start();
  TempDir data;
  app::Config config;
  config.listen = "127.0.0.1:0";
  config.data_dir = data.path().string();
  config.storage_url = cluster.url();
  config.access_log = false;
  config.demo_on_first_start = false;
  app::Node node(config);
  node.Start();
  ApiClient client(node.port());
  std::string token = client.Login();
  ASSERT_EQ(client.Get("/api/projects", AuthHeaders(token)).status, 200);

  cluster.Stop();
  // Requests may still be answered from the node's caches (a session is cached for two seconds)
  // until one needs the database.
  http::Response refused;
  EXPECT_TRUE(WaitUntil(
      [&] {
        refused = client.Get("/api/projects", AuthHeaders(token));
        return refused.status != 200;
      },
      std::chrono::seconds(30), "the node stopped serving GET /api/projects"));
  ExpectError(refused, 503, "ERR016");
  EXPECT_EQ(client.Get("/api/status").status, 200);

  cluster.Start();
  EXPECT_TRUE(
      WaitUntil([&] { return client.Get("/api/projects", AuthHeaders(token)).status == 200; },
                std::chrono::seconds(10), "the node served GET /api/projects again"));
  node.Stop();
}

TEST(AdministratorPasswordApi, ListeningBeyondLoopbackNeedsAConfiguredPassword) {
  TempDir data;
  app::Config config;
  config.listen = "0.0.0.0:0";
  config.data_dir = data.path().string();
  config.access_log = false;
  config.demo_on_first_start = false;
  EXPECT_THROW(app::Node(config).Start(), std::runtime_error);

  config.listen = "127.0.0.1:0";
  config.admin_password = "Correct Horse";
  app::Node node(config);
  node.Start();
  ApiClient client(node.port());
  http::Headers form;
  form.Set("Content-Type", "application/x-www-form-urlencoded");
  ExpectError(client.Send("POST", "/api/auth/login", form, "username=administrator&password="), 401,
              "ERR003");
  EXPECT_EQ(
      client.Send("POST", "/api/auth/login", form, "username=administrator&password=Correct+Horse")
          .status,
      204);
  node.Stop();
}

}  // namespace
}  // namespace tessera::testing
