// tests/api/migration/migration_api_fixture.h
//
// Migrations over HTTP between two real servers -- a source and a target, each with its own
// storage service, one shared package location -- made from the demo bundle (the target a clone
// of the source) and then diverged by each test. A server runs in-process, or as a separate
// `tessera serve` process (TESSERA_BINARY) when a test must kill it.
//
// A PostgreSQL-backed test is skipped when TESSERA_TEST_PG is not set: MigrationApi::SetUp then
// makes no environment, so a fixture overriding SetUp returns after it when IsSkipped().
#pragma once

#include <gtest/gtest.h>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "api/api_fixture.h"
#include "api/node_process.h"
#include "app/node.h"
#include "model/privileges.h"
#include "service/migration/migration_environments.h"

namespace tessera::testing {

inline const std::string kMigrationDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

// One environment served by a node.
struct ServedEnvironment {
  ServedEnvironment(StoreBackend backend, const std::string& name,
                    const std::filesystem::path& packages);
  ~ServedEnvironment();

  void Start();  // in-process
  void Stop();   // whichever way it runs

  // Serves from a separate process instead, with `environment` ("NAME=VALUE") added; its output
  // goes to log_path(). Fails the test unless it answers within 60 s.
  void StartProcess(const std::vector<std::string>& environment = {});
  // What StartProcess runs: this environment's node settings, with `environment`.
  NodeSettings ProcessSettings(const std::vector<std::string>& environment = {}) const;
  void KillProcess();  // SIGKILL, then reaps it
  std::filesystem::path log_path() const { return data_dir.path() / "server.log"; }

  http::Headers Headers(const std::string& project_id = "") const;
  http::Response Send(std::string_view method, const std::string& target, const Json& body,
                      const std::string& project_id = "");
  Json Get(const std::string& migration_id, const std::string& show = "default");
  // Polls GET until `status` of `part` leaves `busy`; fails the test if 30 s pass first.
  Json WaitWhile(const std::string& migration_id, const std::string& part, const std::string& busy);

  // A user whose only role grants every privilege but `missing`, on every project; logged in.
  std::string LoginWithout(model::Privilege missing, const std::string& username);

  Environment storage;
  TempDir data_dir;
  app::Config config;
  std::unique_ptr<app::Node> node;
  std::unique_ptr<NodeProcess> process;
  std::unique_ptr<ApiClient> client;
  std::string token;
};

class MigrationApi : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // The body mstrio-py's create_object_migration sends.
  Json ObjectMigrationBody(const model::ObjectRecord& object, const std::string& action) const;
  // The body of create_project_merge_migration.
  Json ProjectMergeBody(const std::string& default_action) const;

  // Creates with `body` (project header unless `configuration`), waits for `created`, requests
  // and approves on the source as mstrio-py's migrate does; returns the migration id.
  std::string CreateAndApprove(const Json& body, bool configuration = false);
  void RequestAndApprove(const std::string& id, bool configuration = false);
  // The source's record read with showContent=all, marked replicated.
  Json Replicated(const std::string& id);
  // PUTs the replicated record on the target and waits for the import to end.
  Json ImportOnTarget(const std::string& id, bool configuration = false,
                      const std::string& query = "?generateUndo=True");
  // Requests and approves the undo on the target and waits for it to end.
  Json UndoOnTarget(const std::string& id, bool configuration = false);

  TempDir packages_;
  std::unique_ptr<ServedEnvironment> source_;
  std::unique_ptr<ServedEnvironment> target_;
  std::string project_;
};

}  // namespace tessera::testing
