// tests/api/demo_node_fixture.h
//
// A node run as a separate process (api/node_process.h) over the demo project, with a demo
// warehouse of a few thousand sales in its data directory: for tests that kill it in the middle
// of a cube publish and check what it reports and serves when it comes back, and which files it
// leaves. Runs on each storage backend (the warehouse is SQLite in the data directory either way).
// Expected values come from the warehouse through SQL and from the storage service directly,
// never from the node under test.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/node_process.h"
#include "storage/metadata_store.h"
#include "support/temp_dir.h"
#include "support/test_databases.h"

namespace tessera::testing {

class DemoNodeTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override;

  // Sales in the demo warehouse (more make a publish last longer).
  virtual int64_t DemoRows() const { return 20000; }

  // The node's settings, with `environment` ("NAME=VALUE") for its process.
  NodeSettings Settings(std::vector<std::string> environment = {}) const;
  std::filesystem::path warehouse_path() const { return data_dir_.path() / "warehouse.db"; }

  // Over HTTP, as the administrator.
  http::Response Publish(NodeProcess& node, const std::string& cube_id);
  int CubeStatusBits(NodeProcess& node, const std::string& cube_id);  // X-MSTR-CubeStatus
  Json PublishJob(NodeProcess& node, const std::string& cube_id);     // the job monitor's view
  // Polls the job monitor until the publish is no longer "executing"; fails the test if `timeout`
  // passes first.
  Json WaitForPublishEnd(NodeProcess& node, const std::string& cube_id,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // The cube's Revenue over every row, read through a cube instance.
  double ServedRevenue(NodeProcess& node, const std::string& cube_id);

  // The warehouse, through SQL.
  double WarehouseRevenue() const;
  void AddToEveryRevenue(double delta) const;

  // The storage service, directly.
  std::optional<storage::CubeSnapshotRecord> CubeRecord(const std::string& cube_id);
  // Names of the files in the project's cubes directory.
  std::set<std::string> CubeFiles() const;
  // Names of the snapshot files `record` keeps: the one served and the one it replaced, if any.
  static std::set<std::string> RecordedSnapshots(const storage::CubeSnapshotRecord& record);

  TestDatabase& database() { return *database_; }

  std::unique_ptr<TestDatabase> database_;
  std::unique_ptr<storage::MetadataStore> store_;
  TempDir data_dir_;
  std::string project_;
  std::string sales_cube_;
  std::string revenue_metric_;
};

// Files under `root` whose name contains `.tmp` (temporary files of interrupted writers).
std::vector<std::filesystem::path> TemporaryFilesUnder(const std::filesystem::path& root);

// Runs `sql` on the SQLite database at `path`; QuerySqliteDouble reads one number.
void ExecuteSqlite(const std::filesystem::path& path, const std::string& sql);
double QuerySqliteDouble(const std::filesystem::path& path, const std::string& sql);

}  // namespace tessera::testing
