// A node killed in the middle of its work and started again, as separate `tessera serve`
// processes over real HTTP: a cube publish killed before it recorded its snapshot ends failed,
// with the previous data still served and nothing left on disk; the files a node writes are its
// user's alone; a migration source stops showing "importing" once the target has gone silent.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "api/demo_node_fixture.h"
#include "api/migration/migration_api_fixture.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kPublished = 102;  // Active | Persisted | Loaded | Ready
constexpr int kPublishing = 1;   // Processing

class RecoveryApi : public DemoNodeTest {};

TEST_P(RecoveryApi, ACubePublishKilledBeforeItsCommitEndsFailedAndThePreviousDataIsServed) {
  const double first_revenue = WarehouseRevenue();
  {
    NodeProcess node(Settings());
    node.Start();
    ASSERT_EQ(Publish(node, sales_cube_).status, 202);
    ASSERT_EQ(WaitForPublishEnd(node, sales_cube_)["status"], "completed");
  }
  const auto published = CubeRecord(sales_cube_);
  ASSERT_TRUE(published);
  AddToEveryRevenue(10);
  ASSERT_GT(WarehouseRevenue(), first_revenue + 1);

  NodeProcess node(Settings({"TESSERA_FAULT_CUBE_PUBLISH_DELAY_MS=600000"}));
  node.Start();
  ASSERT_EQ(Publish(node, sales_cube_).status, 202);
  ASSERT_TRUE(WaitForLogLine(node.log_path(), "the cube publish waits"));
  EXPECT_EQ(CubeStatusBits(node, sales_cube_), kPublished | kPublishing);
  EXPECT_EQ(CubeFiles().size(), 2u);  // the new snapshot is written, not recorded
  node.Kill();
  EXPECT_EQ(CubeRecord(sales_cube_)->state, "publishing");  // what the dead node left

  NodeProcess restarted(Settings());
  restarted.Start();
  EXPECT_EQ(CubeStatusBits(restarted, sales_cube_), kPublished);
  Json job = PublishJob(restarted, sales_cube_);
  EXPECT_EQ(job["status"], "error") << job.dump();
  EXPECT_NE(job.value("errorMessage", "").find("restarted before the work was complete"),
            std::string::npos)
      << job.dump();
  EXPECT_NEAR(ServedRevenue(restarted, sales_cube_), first_revenue, 1e-6 * first_revenue);
  auto record = CubeRecord(sales_cube_);
  EXPECT_EQ(record->state, "failed");
  EXPECT_EQ(record->snapshot_file, published->snapshot_file);
  EXPECT_EQ(CubeFiles(), RecordedSnapshots(*record));
  EXPECT_TRUE(TemporaryFilesUnder(data_dir_.path()).empty());

  // The next publish takes the new data.
  ASSERT_EQ(Publish(restarted, sales_cube_).status, 202);
  EXPECT_EQ(WaitForPublishEnd(restarted, sales_cube_)["status"], "completed");
  const double second_revenue = WarehouseRevenue();
  EXPECT_NEAR(ServedRevenue(restarted, sales_cube_), second_revenue, 1e-6 * second_revenue);
  // The first snapshot stays beside the new one, for the instances made on it.
  EXPECT_EQ(CubeFiles(), RecordedSnapshots(*CubeRecord(sales_cube_)));
  EXPECT_EQ(CubeFiles().size(), 2u);
}

// Every file under `root` is 0600 and every directory 0700 (nothing for group or others).
void ExpectOwnerOnly(const std::filesystem::path& root) {
  struct stat info {};
  ASSERT_EQ(::stat(root.c_str(), &info), 0) << root;
  EXPECT_EQ(info.st_mode & 0777, 0700u) << root;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    ASSERT_EQ(::lstat(entry.path().c_str(), &info), 0) << entry.path();
    const unsigned expected = S_ISDIR(info.st_mode) ? 0700u : 0600u;
    EXPECT_EQ(info.st_mode & 0777, expected) << entry.path();
    if (S_ISREG(info.st_mode)) ++files;
  }
  EXPECT_GE(files, 3) << "the node wrote almost nothing under " << root;
}

TEST_P(RecoveryApi, TheDataDirectoryAndPackagesANodeWritesAreItsUsersAlone) {
  // A data directory the node creates, its warehouse named in a configuration file.
  const auto node_dir = data_dir_.path() / "node";
  const auto config_file = data_dir_.path() / "tessera.toml";
  std::ofstream(config_file) << "[warehouses.demo]\nurl = \"sqlite://" << warehouse_path().string()
                             << "\"\n";
  NodeSettings settings = Settings({"TESSERA_CONFIG=" + config_file.string()});
  settings.data_dir = node_dir;
  settings.log_file = data_dir_.path() / "node.log";
  NodeProcess node(settings);
  node.Start();
  ASSERT_EQ(Publish(node, sales_cube_).status, 202);
  ASSERT_EQ(WaitForPublishEnd(node, sales_cube_)["status"], "completed");
  Json body = {{"packageInfo",
                {{"name", "Sales Cube package"},
                 {"tocView",
                  {{"settings",
                    {{"updateSchema", Json::array()},
                     {"aclOnReplacingObjects", "use_existing"},
                     {"aclOnNewObjects", Json::array({"keep_acl_as_source_object"})},
                     {"defaultAction", "use_existing"}}},
                   {"content",
                    {{{"id", sales_cube_},
                      {"name", "Sales Cube"},
                      {"type", 3},
                      {"action", "replace"},
                      {"includeDependents", false}}}}}},
                 {"treeView", Json::object()},
                 {"type", "project"}}},
               {"importInfo", Json::object()}};
  http::Headers headers = node.Headers(project_);
  headers.Set("Content-Type", "application/json");
  auto created = node.client().Send("POST", "/api/migrations", headers, body.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = BodyOf(created).value("id", "");
  Json record;
  EXPECT_TRUE(WaitUntil(
      [&] {
        record =
            BodyOf(node.client().Get("/api/migrations/" + id + "?showContent=all", node.Headers()));
        return record["packageInfo"]["status"] != "creating";
      },
      30s, "packageInfo.status of migration " + id + " left \"creating\"", 50ms));
  ASSERT_EQ(record["packageInfo"]["status"], "created") << record.dump();
  node.Stop();

  // Among them: the node's id, the snapshot and the package.
  EXPECT_TRUE(std::filesystem::exists(node_dir / "node-id"));
  EXPECT_TRUE(std::filesystem::exists(node_dir / CubeRecord(sales_cube_)->snapshot_file));
  EXPECT_TRUE(std::filesystem::exists(node_dir / "packages" /
                                      record["packageInfo"]["storage"]["path"].get<std::string>()));
  ExpectOwnerOnly(node_dir);
}

INSTANTIATE_TEST_SUITE_P(Backends, RecoveryApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

class SilentTargetApi : public MigrationApi {};

TEST_P(SilentTargetApi, ASourceShowsAnImportFailedOnceItsTargetHasBeenSilentTooLong) {
  source_->Stop();
  source_->config.migration_target_silence_seconds = 2;
  source_->Start();
  target_->Stop();
  target_->StartProcess(
      {"TESSERA_FAULT_IMPORT_COMMIT_DELAY_MS=600000", "TESSERA_JOB_LEASE_SECONDS=1"});
  std::string id = CreateAndApprove(
      ObjectMigrationBody(source_->storage.Named(project_, "Revenue"), "force_replace"));
  auto put = target_->Send("PUT", "/api/migrations/" + id + "?generateUndo=True", Replicated(id),
                           project_);
  ASSERT_EQ(put.status, 201) << put.body;
  ASSERT_TRUE(WaitForLogLine(target_->log_path(), "the import waits"));

  // A live target keeps its import alive in the source's eyes, longer than the silence allowed.
  // Only time passing can show that, so this test sleeps: a little past the 2 s allowed.
  std::this_thread::sleep_for(2500ms);
  EXPECT_EQ(source_->Get(id)["importInfo"]["status"], "importing");

  target_->KillProcess();
  const auto killed = std::chrono::steady_clock::now();
  Json shown;
  EXPECT_TRUE(WaitUntil(
      [&] {
        shown = source_->Get(id);
        return shown["importInfo"]["status"] != "importing";
      },
      30s, "the source saw the import of migration " + id + " end", 100ms));
  const auto silent_for = std::chrono::steady_clock::now() - killed;
  EXPECT_EQ(shown["importInfo"]["status"], "import_failed") << shown.dump();
  EXPECT_LE(silent_for, 5s);
  const std::string message = shown["importInfo"].value("message", "");
  EXPECT_EQ(message.rfind("The target environment has not reported on this import since ", 0), 0u)
      << message;
  EXPECT_NE(message.find("more than 2 s ago: it is stopped or cannot reach the package location"),
            std::string::npos)
      << message;
  std::cout << "[ figures  ] the source showed the silent target's import failed "
            << std::chrono::duration_cast<std::chrono::milliseconds>(silent_for).count()
            << " ms after the target was killed (silence allowed: 2 s)\n";

  // The target comes back: its own outcome replaces the source's guess.
  target_->StartProcess();
  Json after = source_->Get(id);
  EXPECT_EQ(after["importInfo"]["status"], "import_failed");
  EXPECT_NE(after["importInfo"].value("message", "").find("restarted"), std::string::npos)
      << after.dump();
}

INSTANTIATE_TEST_SUITE_P(Backends, SilentTargetApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
