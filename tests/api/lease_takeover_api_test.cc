// Two nodes on one PostgreSQL storage service, each a `tessera serve` process: a node killed in
// the middle of a cube publish, a package creation or an import leaves the job to the other,
// which fails it within the lease (TESSERA_JOB_LEASE_SECONDS) -- the status never stays
// "publishing", "creating" or "importing" -- while the previous data stays served and nothing of
// the job is kept. Prints the time from the kill to the failure. PostgreSQL only (skipped without
// TESSERA_TEST_PG).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "api/demo_node_fixture.h"
#include "api/migration/migration_api_fixture.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kLeaseSeconds = 2;
const std::string kLease = "TESSERA_JOB_LEASE_SECONDS=" + std::to_string(kLeaseSeconds);
// A failure found by the survivor's maintenance (every second) once the lease ran out, plus room
// for a slow machine.
constexpr auto kTakeoverBound = std::chrono::seconds(kLeaseSeconds) + 3s;

std::string NodeIdIn(const std::filesystem::path& data_dir) {
  std::ifstream in(data_dir / "node-id");
  std::string id;
  in >> id;
  return id;
}

int64_t MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

class CubeLeaseTakeoverApi : public DemoNodeTest {};

TEST_P(CubeLeaseTakeoverApi, APublishOfAKilledNodeIsFailedByTheOtherNodeWithinTheLease) {
  // Node B publishes first and keeps serving; node A reads a warehouse that has changed since.
  TempDir survivor_dir;
  std::filesystem::copy_file(warehouse_path(), survivor_dir.path() / "warehouse.db");
  NodeSettings survivor_settings = Settings({kLease});
  survivor_settings.data_dir = survivor_dir.path();
  NodeProcess survivor(survivor_settings);
  survivor.Start();
  ASSERT_EQ(Publish(survivor, sales_cube_).status, 202);
  ASSERT_EQ(WaitForPublishEnd(survivor, sales_cube_)["status"], "completed");
  const double served = WarehouseRevenue();
  AddToEveryRevenue(10);

  NodeProcess doomed(Settings({kLease, "TESSERA_FAULT_CUBE_PUBLISH_DELAY_MS=600000"}));
  doomed.Start();
  ASSERT_EQ(Publish(doomed, sales_cube_).status, 202);
  ASSERT_TRUE(WaitForLogLine(doomed.log_path(), "the cube publish waits"));
  EXPECT_EQ(CubeStatusBits(survivor, sales_cube_), 103);  // served, and publishing elsewhere
  doomed.Kill();
  const auto killed = std::chrono::steady_clock::now();

  Json job = WaitForPublishEnd(survivor, sales_cube_, 60s);
  const int64_t takeover_ms = MillisSince(killed);
  EXPECT_EQ(job["status"], "error") << job.dump();
  EXPECT_LE(std::chrono::milliseconds(takeover_ms), kTakeoverBound);
  const std::string message = job.value("errorMessage", "");
  EXPECT_NE(message.find("interrupted: node " + NodeIdIn(data_dir_.path()) +
                         " stopped before the work was complete"),
            std::string::npos)
      << message;
  EXPECT_EQ(CubeStatusBits(survivor, sales_cube_), 102);
  EXPECT_NEAR(ServedRevenue(survivor, sales_cube_), served, 1e-6 * served);
  std::cout << "[ figures  ] cube publish of a killed node failed by the other node " << takeover_ms
            << " ms after the kill (lease " << kLeaseSeconds << " s)\n";

  // The dead node's own leftovers go when it comes back.
  NodeProcess back(Settings({kLease}));
  back.Start();
  EXPECT_TRUE(CubeFiles().empty());
  EXPECT_TRUE(TemporaryFilesUnder(data_dir_.path()).empty());
}

INSTANTIATE_TEST_SUITE_P(Postgres, CubeLeaseTakeoverApi, ::testing::Values(StoreBackend::kPostgres),
                         BackendParamName);

// The target environment runs as two nodes: target_ (the one killed) and a second process on the
// same storage service.
class MigrationLeaseTakeoverApi : public MigrationApi {
 protected:
  void StartTwoTargetNodes(const std::string& fault) {
    target_->Stop();
    target_->StartProcess({kLease, fault});
    StartSurvivorOf(*target_);
  }

  // A second node of `environment`'s, on its storage service with a data directory of its own.
  void StartSurvivorOf(ServedEnvironment& environment) {
    NodeSettings settings = environment.ProcessSettings({kLease});
    settings.data_dir = survivor_dir_.path();
    survivor_ = std::make_unique<NodeProcess>(settings);
    survivor_->Start();
  }

  Json SurvivorGet(const std::string& id) {
    auto response = survivor_->client().Get("/api/migrations/" + id, survivor_->Headers());
    EXPECT_EQ(response.status, 200) << response.body;
    return BodyOf(response);
  }

  TempDir survivor_dir_;
  std::unique_ptr<NodeProcess> survivor_;
};

TEST_P(MigrationLeaseTakeoverApi, AnImportOfAKilledNodeIsFailedByTheOtherNodeWithinTheLease) {
  StartTwoTargetNodes("TESSERA_FAULT_IMPORT_COMMIT_DELAY_MS=600000");
  model::ObjectRecord revenue = source_->storage.Named(project_, "Revenue");
  revenue.description = "Revenue, restated";
  source_->storage.Save(revenue);
  const std::string before = target_->storage.Dump(project_);
  const std::string id = CreateAndApprove(ObjectMigrationBody(revenue, "replace"));
  auto put = target_->Send("PUT", "/api/migrations/" + id + "?generateUndo=True", Replicated(id),
                           project_);
  ASSERT_EQ(put.status, 201) << put.body;
  ASSERT_TRUE(WaitForLogLine(target_->log_path(), "the import waits"));
  const std::string doomed_node = NodeIdIn(target_->data_dir.path());
  EXPECT_EQ(SurvivorGet(id)["importInfo"]["status"], "importing");
  target_->KillProcess();
  const auto killed = std::chrono::steady_clock::now();

  Json record;
  EXPECT_TRUE(WaitUntil(
      [&] {
        record = SurvivorGet(id);
        return record["importInfo"]["status"] != "importing";
      },
      60s, "importInfo.status of migration " + id + " on the surviving node left \"importing\"",
      50ms));
  const int64_t takeover_ms = MillisSince(killed);
  EXPECT_EQ(record["importInfo"]["status"], "import_failed") << record.dump();
  EXPECT_LE(std::chrono::milliseconds(takeover_ms), kTakeoverBound);
  EXPECT_NE(record["importInfo"]
                .value("message", "")
                .find("interrupted: node " + doomed_node + " stopped before the work was complete"),
            std::string::npos)
      << record.dump();
  EXPECT_EQ(target_->storage.Dump(project_), before);  // nothing of the import was kept
  EXPECT_EQ(source_->Get(id)["importInfo"]["status"], "import_failed");
  EXPECT_TRUE(TemporaryFilesUnder(packages_.path()).empty());
  std::cout << "[ figures  ] import of a killed node failed by the other node " << takeover_ms
            << " ms after the kill (lease " << kLeaseSeconds << " s)\n";
}

TEST_P(MigrationLeaseTakeoverApi, APackageCreationOfAKilledNodeIsFailedByTheOtherNode) {
  // This time the source runs as two nodes.
  source_->Stop();
  source_->StartProcess({kLease, "TESSERA_FAULT_CREATION_COMMIT_DELAY_MS=600000"});
  StartSurvivorOf(*source_);
  auto created = source_->Send("POST", "/api/migrations", ProjectMergeBody("replace"), project_);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = BodyOf(created).value("id", "");
  ASSERT_TRUE(WaitForLogLine(source_->log_path(), "the package creation waits"));
  const std::string doomed_node = NodeIdIn(source_->data_dir.path());
  source_->KillProcess();
  const auto killed = std::chrono::steady_clock::now();

  Json record;
  EXPECT_TRUE(WaitUntil(
      [&] {
        record = SurvivorGet(id);
        return record["packageInfo"]["status"] != "creating";
      },
      60s, "packageInfo.status of migration " + id + " on the surviving node left \"creating\"",
      50ms));
  const int64_t takeover_ms = MillisSince(killed);
  EXPECT_EQ(record["packageInfo"]["status"], "create_failed") << record.dump();
  EXPECT_LE(std::chrono::milliseconds(takeover_ms), kTakeoverBound);
  EXPECT_NE(record["packageInfo"]
                .value("message", "")
                .find("interrupted: node " + doomed_node + " stopped before the work was complete"),
            std::string::npos)
      << record.dump();
  // The package the dead node had written, under its final name and as a temporary file, is gone.
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(packages_.path())) {
    if (entry.is_regular_file() && entry.path().string().find("/packages/") != std::string::npos) {
      ++files;
      ADD_FAILURE() << "left behind: " << entry.path();
    }
  }
  EXPECT_EQ(files, 0);
  std::cout << "[ figures  ] package creation of a killed node failed by the other node "
            << takeover_ms << " ms after the kill (lease " << kLeaseSeconds << " s)\n";
}

INSTANTIATE_TEST_SUITE_P(Postgres, MigrationLeaseTakeoverApi,
                         ::testing::Values(StoreBackend::kPostgres), BackendParamName);

}  // namespace
}  // namespace tessera::testing
