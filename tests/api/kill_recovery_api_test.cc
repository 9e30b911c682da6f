// kill -9 at random moments, many times: a cube publish, a package creation, an import and an
// undo, each run by a `tessera serve` process that the test kills while the work runs (at a
// moment drawn between the request and a little past the time the work takes uninterrupted),
// starts again and checks:
//   - all or nothing: the data served or stored is exactly the state before the work or exactly
//     the state after it, and the status says which;
//   - never stuck: nothing reads "publishing", "creating", "importing" or "undoing" once the node
//     is back;
//   - no orphan files: no temporary file anywhere, no snapshot or package that no record names,
//     empty scratch and upload directories.
// TESSERA_KILL_RUNS (default 3) sets the kills per job kind; TESSERA_KILL_SEED replays the moments
// of an earlier run (each test prints its seed, and the outcomes it saw).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "api/demo_node_fixture.h"
#include "api/migration/migration_api_fixture.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

int KillRuns() {
  const char* runs = std::getenv("TESSERA_KILL_RUNS");
  return runs ? std::max(1, std::atoi(runs)) : 3;
}

// The moments of the kills, reproducible from the printed seed.
class KillMoments {
 public:
  explicit KillMoments(const std::string& kind) : kind_(kind) {
    const char* seed = std::getenv("TESSERA_KILL_SEED");
    seed_ = seed ? std::strtoull(seed, nullptr, 10)
                 : static_cast<uint64_t>(Clock::now().time_since_epoch().count());
    random_.seed(seed_);
  }
  ~KillMoments() {
    std::cout << "[ figures  ] kill -9 during " << kind_ << ": " << runs_ << " kills (seed "
              << seed_ << "):";
    for (const auto& [outcome, count] : outcomes_) std::cout << " " << count << " " << outcome;
    std::cout << "; the work takes " << work_.count() << " ms uninterrupted\n";
  }

  void set_work_duration(std::chrono::milliseconds work) { work_ = work; }
  // Sleeps between 0 and 130% of the work's uninterrupted duration. This sleep is the test, not a
  // wait for something: the kill that follows it lands at a random moment of the work.
  void SleepUntilTheNextKill() {
    std::uniform_int_distribution<int64_t> pick(0, work_.count() * 13 / 10);
    std::this_thread::sleep_for(std::chrono::milliseconds(pick(random_)));
  }
  void Count(const std::string& outcome) {
    ++runs_;
    ++outcomes_[outcome];
  }

 private:
  std::string kind_;
  uint64_t seed_ = 0;
  std::mt19937_64 random_;
  std::chrono::milliseconds work_{0};
  int runs_ = 0;
  std::map<std::string, int> outcomes_;
};

std::chrono::milliseconds Since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

// Sends `method target` with `body` to the node on `port` from another thread, so that the node
// may be killed before it answers; the answer (or the broken connection) is dropped.
std::thread SendInBackground(uint16_t port, http::Headers headers, std::string method,
                             std::string target, std::string body) {
  return std::thread([=] {
    try {
      http::Client("127.0.0.1", port).Send(method, target, headers, body);
    } catch (const std::exception&) {
    }
  });
}

// The files under `directory`, a directory the node empties at start.
void ExpectEmptyDirectory(const std::filesystem::path& directory) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    ADD_FAILURE() << "left behind: " << entry.path();
  }
}

void ExpectNoTemporaryFiles(const std::filesystem::path& root) {
  for (const auto& path : TemporaryFilesUnder(root)) ADD_FAILURE() << "left behind: " << path;
}

// Cube publishes

class CubePublishKills : public DemoNodeTest {
 protected:
  int64_t DemoRows() const override { return 100000; }
};

TEST_P(CubePublishKills, AKilledPublishServesTheOldDataOrTheNewNeverAMixAndNeverStaysPublishing) {
  KillMoments moments("cube publish");
  NodeProcess node(Settings());
  node.Start();
  const auto started = Clock::now();
  ASSERT_EQ(Publish(node, sales_cube_).status, 202);
  ASSERT_EQ(WaitForPublishEnd(node, sales_cube_)["status"], "completed");
  moments.set_work_duration(Since(started));
  double served = WarehouseRevenue();

  for (int run = 1; run <= KillRuns(); ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    AddToEveryRevenue(1);
    const double previous = served;
    const double next = WarehouseRevenue();
    const std::string previous_job = CubeRecord(sales_cube_)->publish_job_id;

    std::thread request = SendInBackground(node.port(), node.Headers(project_), "POST",
                                           "/api/v2/cubes/" + sales_cube_, "");
    moments.SleepUntilTheNextKill();
    node.Kill();
    request.join();
    node.Start();
    ASSERT_FALSE(HasFatalFailure());

    Json job = WaitForPublishEnd(node, sales_cube_, 10s);
    ASSERT_NE(job["status"], "executing") << "still publishing after the restart";
    EXPECT_EQ(CubeStatusBits(node, sales_cube_), 102);
    served = ServedRevenue(node, sales_cube_);
    auto record = CubeRecord(sales_cube_);
    ASSERT_TRUE(record);
    if (std::abs(served - next) <= 1e-6 * next) {
      EXPECT_EQ(record->state, "ready");
      EXPECT_EQ(job["status"], "completed");
      moments.Count("published");
    } else {
      EXPECT_NEAR(served, previous, 1e-6 * previous) << "neither the old data nor the new";
      if (record->publish_job_id == previous_job) {
        moments.Count("not started");
      } else {
        EXPECT_EQ(record->state, "failed");
        EXPECT_EQ(job["status"], "error");
        EXPECT_NE(job.value("errorMessage", "").find("restarted before the work was complete"),
                  std::string::npos)
            << job.dump();
        moments.Count("failed with the previous data served");
      }
    }
    EXPECT_EQ(CubeFiles(), RecordedSnapshots(*record));
    ExpectNoTemporaryFiles(data_dir_.path());
    ExpectEmptyDirectory(data_dir_.path() / "scratch");
    ExpectEmptyDirectory(data_dir_.path() / "uploads");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CubePublishKills, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

// Migrations

class MigrationKills : public MigrationApi {
 protected:
  // The project as text without what every write changes (versions, modification times), so
  // that two imports of one package compare equal.
  std::string ContentOf(Environment& environment) {
    std::ostringstream out;
    environment.store->Read([&](storage::MetadataTransaction& tx) {
      for (const auto& o : tx.ListObjects(project_, {})) {
        out << o.id << '|' << o.type << '|' << o.name << '|' << o.description << '|' << o.folder_id
            << '|' << DumpJson(o.definition) << "|uses:";
        for (const auto& used : tx.ListUses(project_, o.id)) out << used << ',';
        out << '\n';
      }
    });
    return out.str();
  }

  // The source's objects diverge from the target's: `count` descriptions change.
  void ChangeSourceDescriptions(int count) {
    std::vector<model::ObjectRecord> objects;
    source_->storage.store->Read(
        [&](storage::MetadataTransaction& tx) { objects = tx.ListObjects(project_, {}); });
    int changed = 0;
    for (auto& object : objects) {
      if (object.type != 4 && object.type != 12 && object.type != 13) continue;  // metrics,
      object.description += " (restated)";  // attributes, facts
      source_->storage.Save(object);
      if (++changed == count) break;
    }
    ASSERT_EQ(changed, count);
  }

  // A new import of the package `id` belongs to (mstrio-py's reuse); returns its id.
  std::string Reuse(const std::string& id) {
    auto reused = source_->Send("POST", "/api/migrations?packageId=" + id.substr(0, 32),
                                {{"importInfo",
                                  {{"environment",
                                    {{"id", "https://prod.example.com/TesseraLibrary/"},
                                     {"name", "https://prod.example.com/TesseraLibrary/"}}},
                                   {"project", {{"id", project_}, {"name", "Tutorial"}}}}}});
    EXPECT_EQ(reused.status, 201) << reused.body;
    return BodyOf(reused).value("id", "");
  }

  // The target's record of `id`, or null when it has none.
  Json TargetRecord(const std::string& id) {
    auto response = target_->client->Get("/api/migrations/" + id, target_->Headers());
    if (response.status == 404) return Json();
    EXPECT_EQ(response.status, 200) << response.body;
    return BodyOf(response);
  }

  // Every migration, whatever its purpose (a listing shows object migrations only by default).
  static constexpr char kEveryMigration[] =
      "/api/migrations?limit=1000&packageInfo.purpose=object_migration,project_merge";

  // Package files on disk (relative to the location) and the files the records name.
  void ExpectOnlyRecordedPackages(ServedEnvironment& environment) {
    std::set<std::string> named;
    const Json listed = BodyOf(environment.client->Get(kEveryMigration, environment.Headers()));
    for (const auto& record : listed["data"]) {
      const Json& storage = record["packageInfo"]["storage"];
      if (storage.is_object() && storage.contains("path")) named.insert(storage["path"]);
    }
    const auto packages = packages_.path() / "mstr/shared/migrations/packages";
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(packages, error);
         it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (!it->is_regular_file()) continue;
      const std::string relative = std::filesystem::relative(it->path(), packages_.path());
      EXPECT_TRUE(named.count(relative))
          << "a package no record names: " << relative << "; records name " << Json(named).dump();
    }
  }

  void ExpectNoLeftovers(ServedEnvironment& environment) {
    ExpectNoTemporaryFiles(packages_.path());
    ExpectNoTemporaryFiles(environment.data_dir.path());
    ExpectEmptyDirectory(environment.data_dir.path() / "scratch");
    ExpectEmptyDirectory(environment.data_dir.path() / "uploads");
    for (const auto& path : std::filesystem::recursive_directory_iterator(packages_.path())) {
      if (path.path().extension() == ".spool") ADD_FAILURE() << "left behind: " << path.path();
    }
  }
};

TEST_P(MigrationKills, AKilledPackageCreationEndsCreatedOrFailedAndLeavesNoFile) {
  KillMoments moments("package creation");
  source_->Stop();
  source_->StartProcess();
  const Json body = ProjectMergeBody("replace");
  auto started = Clock::now();
  auto created = source_->Send("POST", "/api/migrations", body, project_);
  ASSERT_EQ(created.status, 201) << created.body;
  Json first = source_->WaitWhile(BodyOf(created)["id"], "packageInfo", "creating");
  ASSERT_EQ(first["packageInfo"]["status"], "created");
  moments.set_work_duration(Since(started));

  for (int run = 1; run <= KillRuns(); ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const int64_t before = BodyOf(source_->client->Get(kEveryMigration, source_->Headers()))
                               .value("total", int64_t{0});
    http::Headers headers = source_->Headers(project_);
    headers.Set("Content-Type", "application/json");
    std::thread request =
        SendInBackground(source_->process->port(), headers, "POST", "/api/migrations", body.dump());
    moments.SleepUntilTheNextKill();
    source_->KillProcess();
    request.join();
    source_->StartProcess();
    ASSERT_FALSE(HasFatalFailure());

    Json listed = BodyOf(source_->client->Get(kEveryMigration, source_->Headers()));
    if (listed["total"] == before) {
      moments.Count("not started");
    } else {
      ASSERT_EQ(listed["total"], before + 1);
      const Json& newest = listed["data"][0];  // newest first
      const std::string status = newest["packageInfo"]["status"];
      if (status == "created") {
        const Json& storage = newest["packageInfo"]["storage"];
        EXPECT_EQ(std::filesystem::file_size(packages_.path() / storage["path"].get<std::string>()),
                  storage["size"].get<uint64_t>());
        moments.Count("created");
      } else {
        EXPECT_EQ(status, "create_failed") << newest.dump();
        EXPECT_NE(newest["packageInfo"].value("message", "").find("restarted"), std::string::npos)
            << newest.dump();
        moments.Count("create_failed");
      }
    }
    ExpectOnlyRecordedPackages(*source_);
    ExpectNoLeftovers(*source_);
  }
}

TEST_P(MigrationKills, AKilledImportChangesAllOrNothingAndEndsImportedOrFailed) {
  KillMoments moments("import");
  ChangeSourceDescriptions(20);
  const std::string package = CreateAndApprove(ProjectMergeBody("force_replace"));
  target_->Stop();
  target_->StartProcess();
  const std::string before = ContentOf(target_->storage);
  auto started = Clock::now();
  ASSERT_EQ(ImportOnTarget(package)["importInfo"]["status"], "imported");
  moments.set_work_duration(Since(started));
  const std::string after = ContentOf(target_->storage);
  ASSERT_NE(after, before);
  ASSERT_EQ(UndoOnTarget(package)["importInfo"]["status"], "undo_success");
  ASSERT_EQ(ContentOf(target_->storage), before);

  for (int run = 1; run <= KillRuns(); ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const std::string id = Reuse(package);
    http::Headers headers = target_->Headers(project_);
    headers.Set("Content-Type", "application/json");
    headers.Set("Prefer", "respond-async");
    std::thread request =
        SendInBackground(target_->process->port(), headers, "PUT",
                         "/api/migrations/" + id + "?generateUndo=True", Replicated(id).dump());
    moments.SleepUntilTheNextKill();
    target_->KillProcess();
    request.join();
    target_->StartProcess();
    ASSERT_FALSE(HasFatalFailure());

    Json record = TargetRecord(id);
    const std::string content = ContentOf(target_->storage);
    if (record.is_null()) {
      EXPECT_EQ(content, before);
      moments.Count("not started");
      continue;
    }
    const std::string status = record["importInfo"]["status"];
    if (status == "imported") {
      EXPECT_EQ(content, after);
      moments.Count("imported");
      ASSERT_EQ(UndoOnTarget(id)["importInfo"]["status"], "undo_success");
      EXPECT_EQ(ContentOf(target_->storage), before);
    } else {
      EXPECT_EQ(status, "import_failed") << record.dump();
      EXPECT_EQ(content, before);
      EXPECT_FALSE(record["importInfo"].contains("undoStorage") &&
                   !record["importInfo"]["undoStorage"].empty())
          << record.dump();
      moments.Count("import_failed, nothing changed");
    }
    ExpectNoLeftovers(*target_);
  }
}

TEST_P(MigrationKills, AKilledUndoRestoresAllOrNothingAndEndsUndoneOrFailed) {
  KillMoments moments("undo");
  ChangeSourceDescriptions(20);
  const std::string package = CreateAndApprove(ProjectMergeBody("force_replace"));
  target_->Stop();
  target_->StartProcess();
  const std::string before = ContentOf(target_->storage);
  ASSERT_EQ(ImportOnTarget(package)["importInfo"]["status"], "imported");
  const std::string after = ContentOf(target_->storage);
  auto started = Clock::now();
  ASSERT_EQ(UndoOnTarget(package)["importInfo"]["status"], "undo_success");
  moments.set_work_duration(Since(started));

  for (int run = 1; run <= KillRuns(); ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const std::string id = Reuse(package);
    ASSERT_EQ(ImportOnTarget(id)["importInfo"]["status"], "imported");
    ASSERT_EQ(ContentOf(target_->storage), after);
    auto requested =
        target_->Send("PATCH", "/api/migrations/" + id + "?migrationId=" + id,
                      {{"importInfo", {{"undoRequestStatus", "requested"}}}}, project_);
    ASSERT_EQ(requested.status, 200) << requested.body;
    http::Headers headers = target_->Headers(project_);
    headers.Set("Content-Type", "application/json");
    headers.Set("Prefer", "respond-async");
    Json approve = {{"importInfo", {{"undoRequestStatus", "approved"}}}};
    std::thread request =
        SendInBackground(target_->process->port(), headers, "PATCH",
                         "/api/migrations/" + id + "?migrationId=" + id, approve.dump());
    moments.SleepUntilTheNextKill();
    target_->KillProcess();
    request.join();
    target_->StartProcess();
    ASSERT_FALSE(HasFatalFailure());

    Json record = TargetRecord(id);
    const std::string status = record["importInfo"]["status"];
    const std::string content = ContentOf(target_->storage);
    if (status == "undo_success") {
      EXPECT_EQ(content, before);
      moments.Count("undone");
    } else if (status == "imported") {
      EXPECT_EQ(content, after);
      moments.Count("not started");
    } else {
      EXPECT_EQ(status, "undo_failed") << record.dump();
      EXPECT_EQ(content, after);
      moments.Count("undo_failed, nothing changed");
    }
    ExpectNoLeftovers(*target_);
    if (status != "undo_success") {  // a new undo cycle puts the target back
      ASSERT_EQ(UndoOnTarget(id)["importInfo"]["status"], "undo_success");
      EXPECT_EQ(ContentOf(target_->storage), before);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrationKills, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
