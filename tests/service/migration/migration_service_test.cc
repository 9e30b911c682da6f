// Migrations between two environments through the migration service: each environment its own
// storage service and job runner, one shared package location; a migration's steps in order
// (create, request, approve, import, undo, delete) with the states each step leaves -- on SQLite
// and PostgreSQL.
#include "service/migration/migration_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <string_view>

#include "core/error.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "service/migration/migration_environments.h"
#include "support/pg_cluster.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;
using model::package::ConflictRule;
using service::migration::ImportStatus;
using service::migration::MigrationRecord;
using service::migration::PackageStatus;
using service::migration::RequestStatus;

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";
const std::string kAdministrator(model::kAdministratorUserId);

// An environment that runs migrations: its store, jobs, location and service.
struct MigratingEnvironment : Environment {
  MigratingEnvironment(StoreBackend backend, const std::string& name,
                       const std::filesystem::path& packages)
      : Environment(backend),
        jobs(*store, {name, 2, std::chrono::milliseconds(30000)}),
        location(*store, packages),
        migrations(*store, jobs, location,
                   service::migration::MigrationServiceOptions{
                       .environment = {"https://" + name + ".example.com/TesseraLibrary/", name},
                       .platform_version = "11.6.0200.0001",
                       .scratch_dir = {},
                       .before_creation_commit = {},
                       .before_import_commit = {}}) {
    migrations.RegisterJobs();
  }
  // A job still running (a test that failed early) must not outlive the service it runs in.
  ~MigratingEnvironment() { jobs.Stop(); }

  service::session::Principal Administrator() {
    return service::DirectoryService(*store).LoadPrincipal(kAdministrator);
  }

  MigrationRecord Get(const service::migration::MigrationId& id) {
    return migrations.Get(Administrator(), id);
  }

  // The record once `done` holds for it; after 20 s, a failure naming `what` and the last record.
  MigrationRecord WaitFor(const service::migration::MigrationId& id,
                          const std::function<bool(const MigrationRecord&)>& done,
                          std::string_view what) {
    MigrationRecord record;
    EXPECT_TRUE(WaitUntil(
        [&] {
          record = Get(id);
          return done(record);
        },
        20s, what));
    return record;
  }

  service::JobRunner jobs;
  service::migration::StorageLocationService location;
  service::migration::MigrationService migrations;
};

// A source record as the client carries it to the target: marked replicated.
MigrationRecord Replicated(MigrationRecord record) {
  record.package_info.replicated = true;
  return record;
}

class MigrationServiceTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    if (!IsBackendConfigured(GetParam())) GTEST_SKIP() << "TESSERA_TEST_PG is not set";
    source_ = std::make_unique<MigratingEnvironment>(GetParam(), "dev", packages_.path());
    target_ = std::make_unique<MigratingEnvironment>(GetParam(), "prod", packages_.path());
    service::DirectoryService(*source_->store).Bootstrap(std::nullopt);
    project_ = service::bundle::BundleService(*source_->store)
                   .Import(source_->Administrator(), kDemoBundle)
                   .project_id;
    CloneProject(*source_, *target_, project_);
  }

  // What mstrio-py asks for in an object migration of `object` with `action`.
  service::migration::CreateRequest ObjectMigration(const model::ObjectRecord& object,
                                                    ConflictRule action) {
    service::migration::CreateRequest request;
    request.name = "Revenue to prod";
    request.environment = {"https://dev.example.com/TesseraLibrary/", "dev"};
    request.content = service::migration::ContentList(
        std::vector<model::package::ContentItem>{{object.id, object.name, object.type, action}});
    return request;
  }

  MigrationRecord CreateAndApprove(const service::migration::CreateRequest& request) {
    auto admin = source_->Administrator();
    MigrationRecord record = source_->migrations.Create(admin, project_, request);
    auto id = service::migration::IdOf(record);
    record = source_->WaitFor(
        id,
        [](const MigrationRecord& r) { return r.package_info.status != PackageStatus::kCreating; },
        "the package creation ended");
    EXPECT_EQ(record.package_info.status, PackageStatus::kCreated) << record.package_info.message;
    for (RequestStatus status : {RequestStatus::kRequested, RequestStatus::kApproved}) {
      service::migration::PatchRequest patch;
      patch.import_request_status = status;
      patch.target_environment =
          service::migration::NamedRef{"https://prod.example.com/TesseraLibrary/", "prod"};
      patch.target_project = service::migration::NamedRef{project_, "Tutorial"};
      source_->migrations.Patch(admin, id, patch, std::nullopt);
    }
    return source_->Get(id);
  }

  // Reads the source record as mstrio-py does (showContent=all), marks it replicated and PUTs it
  // on the target; waits for the import to end.
  MigrationRecord ImportOnTarget(const service::migration::MigrationId& id,
                                 bool generate_undo = true) {
    MigrationRecord started = target_->migrations.Import(
        target_->Administrator(), Replicated(source_->Get(id)), project_, generate_undo);
    EXPECT_EQ(started.import_info.status, ImportStatus::kImporting);
    return target_->WaitFor(
        id,
        [](const MigrationRecord& r) { return r.import_info.status != ImportStatus::kImporting; },
        "the import ended");
  }

  MigrationRecord UndoOnTarget(const service::migration::MigrationId& id) {
    auto admin = target_->Administrator();
    for (RequestStatus status : {RequestStatus::kRequested, RequestStatus::kApproved}) {
      service::migration::PatchRequest patch;
      patch.undo_request_status = status;
      target_->migrations.Patch(admin, id, patch, project_);
    }
    return target_->WaitFor(
        id, [](const MigrationRecord& r) { return r.import_info.status != ImportStatus::kUndoing; },
        "the undo ended");
  }

  TempDir packages_;
  std::unique_ptr<MigratingEnvironment> source_;
  std::unique_ptr<MigratingEnvironment> target_;
  std::string project_;
};

TEST_P(MigrationServiceTest, AnObjectMigrationWalksFromCreationToUndo) {
  model::ObjectRecord revenue = source_->Named(project_, "Revenue");
  revenue.description = "Revenue, restated";
  source_->Save(revenue);
  revenue = *source_->Find(project_, revenue.id);
  std::string before = target_->Dump(project_);

  MigrationRecord approved = CreateAndApprove(ObjectMigration(revenue, ConflictRule::kReplace));
  auto id = service::migration::IdOf(approved);
  EXPECT_EQ(approved.package_info.status, PackageStatus::kLocked);
  EXPECT_EQ(approved.import_info.import_request_status, RequestStatus::kApproved);
  ASSERT_TRUE(approved.package_info.storage.has_value());
  EXPECT_TRUE(std::filesystem::exists(packages_.path() / approved.package_info.storage->path));

  MigrationRecord imported = ImportOnTarget(id);
  EXPECT_EQ(imported.import_info.status, ImportStatus::kImported) << imported.import_info.message;
  EXPECT_TRUE(imported.package_info.replicated);
  EXPECT_EQ(imported.import_info.progress, 100);
  ASSERT_TRUE(imported.import_info.undo_storage.has_value());
  EXPECT_EQ(target_->Find(project_, revenue.id)->version, revenue.version);

  MigrationRecord undone = UndoOnTarget(id);
  EXPECT_EQ(undone.import_info.status, ImportStatus::kUndoSuccess) << undone.import_info.message;
  EXPECT_EQ(target_->Dump(project_), before);
}

TEST_P(MigrationServiceTest, AFailedImportIsImportFailedWithItsReasonAndChangesNothing) {
  model::ObjectRecord revenue = source_->Named(project_, "Revenue");  // used by other metrics
  std::string before = target_->Dump(project_);

  auto id =
      service::migration::IdOf(CreateAndApprove(ObjectMigration(revenue, ConflictRule::kDelete)));
  MigrationRecord failed = ImportOnTarget(id);

  EXPECT_EQ(failed.import_info.status, ImportStatus::kImportFailed);
  EXPECT_NE(failed.import_info.message.find("Cannot delete 'Revenue'"), std::string::npos)
      << failed.import_info.message;
  EXPECT_FALSE(failed.import_info.undo_storage.has_value());
  EXPECT_EQ(target_->Dump(project_), before);
}

TEST_P(MigrationServiceTest, ImportingTheSameMigrationTwiceIsRefused) {
  auto id = service::migration::IdOf(
      CreateAndApprove(ObjectMigration(source_->Named(project_, "Cost"), ConflictRule::kReplace)));
  ImportOnTarget(id);
  try {
    target_->migrations.Import(target_->Administrator(), Replicated(source_->Get(id)), project_,
                               true);
    FAIL() << "imported twice";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(), "Migration already imported; reuse the package to import again");
  }
}

TEST_P(MigrationServiceTest, ATruncatedPackageIsRefusedBeforeTheImportStarts) {
  auto approved =
      CreateAndApprove(ObjectMigration(source_->Named(project_, "Cost"), ConflictRule::kReplace));
  auto file = packages_.path() / approved.package_info.storage->path;
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  try {
    target_->migrations.Import(target_->Administrator(), Replicated(approved), project_, true);
    FAIL() << "a truncated package was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(error.message()).find("Package file is corrupt"), std::string::npos)
        << error.message();
  }
  EXPECT_THROW(target_->Get(service::migration::IdOf(approved)), Error);  // no target record either
}

TEST_P(MigrationServiceTest, APackageOverTheLimitIsCreateFailedAndLeavesNoFile) {
  service::JobRunner small_jobs(*source_->store,
                                {"dev-small", 1, std::chrono::milliseconds(30000)});
  service::migration::MigrationService small(*source_->store, small_jobs, source_->location,
                                             service::migration::MigrationServiceOptions{
                                                 .environment = {"https://dev.example.com/", "dev"},
                                                 .platform_version = "11.6.0200.0001",
                                                 .max_package_bytes = 2048,
                                                 .scratch_dir = {},
                                                 .before_creation_commit = {},
                                                 .before_import_commit = {}});
  small.RegisterJobs();
  auto admin = source_->Administrator();
  service::migration::CreateRequest merge;
  merge.purpose = model::package::PackagePurpose::kProjectMerge;
  merge.name = "Revenue to prod";

  auto id = service::migration::IdOf(small.Create(admin, project_, merge));
  MigrationRecord failed = source_->WaitFor(
      id,
      [](const MigrationRecord& r) { return r.package_info.status != PackageStatus::kCreating; },
      "the package creation ended");

  EXPECT_EQ(failed.package_info.status, PackageStatus::kCreateFailed);
  EXPECT_NE(failed.package_info.message.find("exceeds"), std::string::npos)
      << failed.package_info.message;
  EXPECT_FALSE(failed.package_info.storage.has_value());
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(packages_.path())) {
    if (entry.is_regular_file()) ++files;
  }
  EXPECT_EQ(files, 0u);
}

TEST_P(MigrationServiceTest, DeletingOnEachSideRemovesTheRecordsThenReportsNothingToDelete) {
  auto approved =
      CreateAndApprove(ObjectMigration(source_->Named(project_, "Cost"), ConflictRule::kReplace));
  auto id = service::migration::IdOf(approved);
  ImportOnTarget(id);
  // The source learns the end of the import from the status file the target writes after its
  // commit; until then it shows the import running and refuses to delete it.
  source_->WaitFor(
      id, [](const MigrationRecord& r) { return r.import_info.status == ImportStatus::kImported; },
      "the source sees the import ended");

  source_->migrations.Delete(source_->Administrator(), approved.package_info.id);
  target_->migrations.Delete(target_->Administrator(), approved.package_info.id);

  EXPECT_FALSE(std::filesystem::exists(packages_.path() / approved.package_info.storage->path));
  EXPECT_THROW(source_->Get(id), Error);
  try {
    source_->migrations.Delete(source_->Administrator(), approved.package_info.id);
    FAIL() << "deleted twice";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNothingToDelete);
  }
}

TEST_P(MigrationServiceTest, AStoppedTargetLeavesItsImportFailedNotRunning) {
  auto id = service::migration::IdOf(
      CreateAndApprove(ObjectMigration(source_->Named(project_, "Cost"), ConflictRule::kReplace)));
  MigrationRecord sent = Replicated(source_->Get(id));
  std::string before = target_->Dump(project_);

  target_->jobs.Stop();  // the node stops: the job is never run
  target_->migrations.Import(target_->Administrator(), sent, project_, true);
  service::JobRunner restarted(*target_->store, {"prod", 2, std::chrono::milliseconds(30000)});
  service::migration::MigrationService after_restart(
      *target_->store, restarted, target_->location,
      service::migration::MigrationServiceOptions{
          .environment = {"https://prod.example.com/", "prod"},
          .platform_version = "11.6.0200.0001",
          .scratch_dir = {},
          .before_creation_commit = {},
          .before_import_commit = {}});
  after_restart.RegisterJobs();
  restarted.Recover();

  MigrationRecord record = target_->Get(id);
  EXPECT_EQ(record.import_info.status, ImportStatus::kImportFailed);
  EXPECT_NE(record.import_info.message.find("restarted"), std::string::npos)
      << record.import_info.message;
  EXPECT_EQ(target_->Dump(project_), before);
}

TEST_P(MigrationServiceTest, ARunningImportShowsItsProgressOnTheNodeThatRunsIt) {
  auto id = service::migration::IdOf(
      CreateAndApprove(ObjectMigration(source_->Named(project_, "Cost"), ConflictRule::kReplace)));
  std::promise<void> applied;
  std::promise<void> resume;
  std::shared_future<void> resumed = resume.get_future().share();
  service::migration::MigrationServiceOptions options{
      .environment = {"https://prod.example.com/", "prod"},
      .platform_version = "11.6.0200.0001",
      .scratch_dir = {},
      .before_creation_commit = {},
      .before_import_commit = {}};
  options.before_import_commit = [&] {
    applied.set_value();
    resumed.wait();
  };
  service::JobRunner jobs(*target_->store, {"prod-held", 1, std::chrono::milliseconds(30000)});
  service::migration::MigrationService held(*target_->store, jobs, target_->location, options);
  held.RegisterJobs();
  MigrationRecord sent = Replicated(source_->Get(id));
  auto admin = target_->Administrator();

  held.Import(admin, sent, project_, true);
  ASSERT_EQ(applied.get_future().wait_for(30s), std::future_status::ready);
  MigrationRecord during = held.Get(admin, id);
  resume.set_value();
  MigrationRecord after;
  ::testing::AssertionResult ended = WaitUntil(
      [&] {
        after = held.Get(admin, id);
        return after.import_info.status != ImportStatus::kImporting;
      },
      20s, "the held import ended");
  jobs.Stop();  // before any return: the running job uses `held`, which goes first

  ASSERT_TRUE(ended);
  EXPECT_EQ(during.import_info.status, ImportStatus::kImporting);
  EXPECT_GT(during.import_info.progress, 0);
  EXPECT_LT(during.import_info.progress, 100);
  EXPECT_EQ(after.import_info.status, ImportStatus::kImported);
  EXPECT_EQ(after.import_info.progress, 100);
}

// While a package is being created, its content list is stored beside its record, not in it:
// reads without content never carry it, showContent=all shows it; once the package is recorded
// the list is read from the package file and nothing of it is left beside the record.
TEST_P(MigrationServiceTest, AContentListIsStoredBesideItsRecordUntilThePackageHoldsIt) {
  model::ObjectRecord cost = source_->Named(project_, "Cost");
  std::promise<void> written;
  std::promise<void> resume;
  std::shared_future<void> resumed = resume.get_future().share();
  service::migration::MigrationServiceOptions options{
      .environment = {"https://dev.example.com/", "dev"},
      .platform_version = "11.6.0200.0001",
      .scratch_dir = {},
      .before_creation_commit = {},
      .before_import_commit = {}};
  options.before_creation_commit = [&] {
    written.set_value();
    resumed.wait();
  };
  service::JobRunner jobs(*source_->store, {"dev-held", 1, std::chrono::milliseconds(30000)});
  service::migration::MigrationService held(*source_->store, jobs, source_->location, options);
  held.RegisterJobs();
  auto admin = source_->Administrator();
  auto id = service::migration::IdOf(
      held.Create(admin, project_, ObjectMigration(cost, ConflictRule::kReplace)));
  std::string key = service::migration::FormatMigrationId(id);
  auto stored = [&] {
    std::pair<std::optional<storage::MigrationRow>, std::optional<std::string>> found;
    source_->store->Read([&](storage::MetadataTransaction& tx) {
      found = {tx.FindMigration("source", key, false), tx.FindMigrationContent("source", key, 1)};
    });
    return found;
  };
  ASSERT_EQ(written.get_future().wait_for(30s), std::future_status::ready);

  auto [row, chunk] = stored();
  ASSERT_TRUE(row.has_value());
  Json toc = row->record["packageInfo"]["tocView"];
  EXPECT_TRUE(!toc.contains("content") || toc["content"].empty()) << toc.dump();
  ASSERT_TRUE(chunk.has_value());
  EXPECT_EQ(ParseJson(*chunk)[0]["id"], cost.id);
  EXPECT_EQ(ParseJson(*chunk)[0]["version"], cost.version);
  MigrationRecord during = held.Get(admin, id);
  EXPECT_EQ(during.package_info.status, PackageStatus::kCreating);
  ASSERT_EQ(during.package_info.toc_view.content.size(), 1u);
  EXPECT_EQ(during.package_info.toc_view.content[0].item.id, cost.id);
  EXPECT_EQ(during.package_info.toc_view.content[0].version, cost.version);
  EXPECT_TRUE(held.Get(admin, id, false).package_info.toc_view.content.empty());
  auto shown = [](const MigrationRecord& record) {
    return service::migration::ToJson(record)["packageInfo"]["tocView"]["content"];
  };
  EXPECT_EQ(ParseJson(held.ContentListText(admin, id)), shown(during));

  resume.set_value();
  MigrationRecord created;
  ::testing::AssertionResult ended = WaitUntil(
      [&] {
        created = held.Get(admin, id);
        return created.package_info.status != PackageStatus::kCreating;
      },
      20s, "the held creation ended");
  jobs.Stop();  // before any return: the running job uses `held`, which goes first
  ASSERT_TRUE(ended);
  EXPECT_EQ(created.package_info.status, PackageStatus::kCreated) << created.package_info.message;
  EXPECT_FALSE(stored().second.has_value());
  ASSERT_EQ(created.package_info.toc_view.content.size(), 1u);
  EXPECT_EQ(created.package_info.toc_view.content[0], during.package_info.toc_view.content[0]);
  EXPECT_EQ(ParseJson(held.ContentListText(admin, id)), shown(created));
}

// The source's storage service (a private PostgreSQL cluster) stops after the package file is
// written and before the creation is recorded: the job cannot store its outcome until the
// service is back; then the record is create_failed with the reason, and no file is left.
TEST(MigrationStorageOutage, TheSourcesStorageStoppedDuringCreationLeavesCreateFailedAndNoFile) {
  PrivatePgCluster cluster;
  if (!cluster.available()) GTEST_SKIP() << "no PostgreSQL server binaries";
  cluster.Start();
  TempDir packages;
  auto store = storage::MetadataStore::Open(
      {.url = cluster.url(), .retry_interval = std::chrono::milliseconds(200)});
  service::DirectoryService(*store).Bootstrap(std::nullopt);
  auto admin = service::DirectoryService(*store).LoadPrincipal(kAdministrator);
  std::string project =
      service::bundle::BundleService(*store).Import(admin, kDemoBundle).project_id;
  std::promise<void> written;
  std::promise<void> resume;
  std::shared_future<void> resumed = resume.get_future().share();
  std::atomic<bool> first{true};
  service::migration::MigrationServiceOptions options{
      .environment = {"https://dev.example.com/", "dev"},
      .platform_version = "11.6.0200.0001",
      .scratch_dir = {},
      .before_creation_commit = {},
      .before_import_commit = {}};
  options.before_creation_commit = [&] {
    if (first.exchange(false)) {
      written.set_value();
      resumed.wait();
    }
  };
  service::JobRunner jobs(*store, {"dev", 1, std::chrono::milliseconds(30000)});
  service::migration::StorageLocationService location(*store, packages.path());
  service::migration::MigrationService migrations(*store, jobs, location, options);
  migrations.RegisterJobs();
  auto count_files = [&] {
    size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(packages.path())) {
      if (entry.is_regular_file()) ++files;
    }
    return files;
  };
  service::migration::CreateRequest merge;
  merge.purpose = model::package::PackagePurpose::kProjectMerge;
  merge.name = "Tutorial merge";
  merge.settings.default_action = ConflictRule::kUseNewer;

  auto id = service::migration::IdOf(migrations.Create(admin, project, merge));
  ASSERT_EQ(written.get_future().wait_for(30s), std::future_status::ready);
  EXPECT_EQ(count_files(), 1u);
  cluster.Stop();
  try {
    migrations.Get(admin, id);
    FAIL() << "read a record with the storage service stopped";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kStorageUnavailable);
  }
  resume.set_value();
  // EXPECT, not ASSERT: a job still running must be stopped, at the end, before `migrations` goes.
  EXPECT_TRUE(WaitUntil([&] { return jobs.active_jobs() == 0; }, 20s, "the creation job ended"));
  EXPECT_EQ(count_files(), 0u);

  cluster.Start();
  EXPECT_TRUE(WaitUntil([&] { return store->IsAvailable(); }, 10s, "the store was available"));
  EXPECT_EQ(jobs.Recover(), 1);
  MigrationRecord failed = migrations.Get(admin, id);
  EXPECT_EQ(failed.package_info.status, PackageStatus::kCreateFailed);
  EXPECT_EQ(failed.package_info.message, kStorageUnavailableMessage);
  EXPECT_FALSE(failed.package_info.storage.has_value());

  auto again = service::migration::IdOf(migrations.Create(admin, project, merge));
  MigrationRecord created;
  ::testing::AssertionResult ended = WaitUntil(
      [&] {
        created = migrations.Get(admin, again);
        return created.package_info.status != PackageStatus::kCreating;
      },
      20s, "the second creation ended");
  jobs.Stop();  // before any return: the running job uses `migrations`, which goes first
  ASSERT_TRUE(ended);
  EXPECT_EQ(created.package_info.status, PackageStatus::kCreated) << created.package_info.message;
  EXPECT_EQ(count_files(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrationServiceTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
