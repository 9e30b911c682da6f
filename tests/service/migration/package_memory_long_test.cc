// Package creation, import and undo of 20,000 objects at the service level keep the heap within
// a bound that does not depend on the number of objects: what they track per object waits on
// disk (storage::ScratchTable), and objects are read and written a batch at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/ids.h"
#include "core/time.h"
#include "model/package/settings.h"
#include "model/semantic.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "service/migration/migration_environments.h"
#include "service/migration/package_builder.h"
#include "service/migration/package_import.h"
#include "service/migration/package_undo.h"
#include "support/heap_usage.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using model::ObjectRecord;
using storage::MetadataTransaction;

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";
constexpr int kObjects = 20000;
constexpr int64_t kMiB = 1 << 20;
// Bounds on the heap's growth, a few MiB above what each phase takes: the scratch tables' page
// caches (six of kScratchCacheBytes at most in an import, two in an undo), a batch of 500 objects
// and the libraries' buffers. Keeping a few hundred bytes per object in memory again crosses them;
// before the per-object state moved to disk, heaptrack saw an import of 20,000 objects grow the
// heap by about 21 MB.
constexpr int64_t kCreationBound = 6 * kMiB;
constexpr int64_t kImportBound = 10 * kMiB;
constexpr int64_t kUndoBound = 6 * kMiB;

// The largest heap growth over `baseline` seen at the samples.
class PeakHeap {
 public:
  PeakHeap() : baseline_(HeapBytesInUse()) {}
  void Sample() { peak_ = std::max(peak_, HeapBytesInUse() - baseline_); }
  double mib() const { return static_cast<double>(peak_) / kMiB; }
  int64_t bytes() const { return peak_; }

 private:
  int64_t baseline_;
  int64_t peak_ = 0;
};

class PackageMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = std::make_unique<Environment>(StoreBackend::kSqlite);
    target_ = std::make_unique<Environment>(StoreBackend::kSqlite);
    service::DirectoryService directory(*source_->store);
    directory.Bootstrap(std::nullopt);
    auto administrator = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
    project_ = service::bundle::BundleService(*source_->store)
                   .Import(administrator, kDemoBundle)
                   .project_id;
    CloneProject(*source_, *target_, project_);
    AddBulkMetrics();
  }

  // kObjects copies of Revenue in a new folder, in the source only.
  void AddBulkMetrics() {
    ObjectRecord folder = source_->Named(project_, "Public Objects");
    folder.id = NewObjectId();
    folder.name = "Bulk";
    folder.folder_id = std::string(model::kPublicObjectsFolderId);
    folder.definition = Json::object();
    bulk_folder_id_ = folder.id;
    ObjectRecord revenue = source_->Named(project_, "Revenue");
    source_->store->Write([&](MetadataTransaction& tx) {
      tx.PutObject(folder);
      for (int i = 0; i < kObjects; ++i) {
        ObjectRecord metric = revenue;
        metric.id = NewObjectId();
        metric.version = NewObjectId();
        metric.name = "Revenue " + std::to_string(i);
        metric.folder_id = folder.id;
        tx.PutObject(metric);
        tx.SetDependencies(project_, metric.id, model::UsedObjectIds(metric));
        content_.push_back({metric.id, metric.name, metric.type,
                            model::package::ConflictRule::kReplace,
                            /*include_dependents=*/true});
      }
    });
  }

  std::unique_ptr<Environment> source_;
  std::unique_ptr<Environment> target_;
  std::string project_;
  std::string bulk_folder_id_;
  std::vector<model::package::ContentItem> content_;
  TempDir packages_;
  TempDir scratch_;
};

TEST_F(PackageMemory, TwentyThousandObjectsMigrateAndUndoInBoundedMemory) {
  service::migration::PackageScope scope{project_, model::package::PackageKind::kProject,
                                         model::package::PackagePurpose::kObjectMigration};
  service::migration::BuildOptions build;
  build.path = packages_.path() / "bulk.mmp";
  build.scratch_dir = scratch_.path();
  build.manifest.platform_version = "11.6.0200.0001";
  build.manifest.package_id = NewObjectId();
  build.manifest.type = "project";
  build.manifest.purpose = "object_migration";
  build.manifest.source_project = {project_, "Tutorial", project_};
  build.manifest.settings = model::package::ToJson(model::package::PackageSettings{});
  build.manifest.created_at = FormatTimestamp(Now());
  build.manifest.content_count = kObjects;
  std::vector<std::string> chunks;
  source_->store->Read([&](MetadataTransaction& tx) {
    service::migration::DescribeContent(tx, scope, content_, [&](int64_t, std::string chunk) {
      chunks.push_back(std::move(chunk));
    });
  });
  std::vector<model::package::ContentItem>().swap(content_);
  build.content_entry = [&](MetadataTransaction&, int64_t sequence) {
    return chunks.at(static_cast<size_t>(sequence - 1));
  };

  PeakHeap creation;
  build.check_cancelled = [&] { creation.Sample(); };
  service::migration::BuiltPackage built =
      service::migration::BuildPackage(*source_->store, scope, build);
  creation.Sample();
  std::vector<std::string>().swap(chunks);
  EXPECT_GT(built.object_count, kObjects) << "the metrics, their folders and what they use";

  const std::string before = target_->Dump(project_);
  service::migration::PackageImportOptions import_options;
  import_options.package_path = build.path;
  import_options.target_project_id = project_;
  import_options.importing_user_id = std::string(model::kAdministratorUserId);
  import_options.import_id = NewObjectId();
  import_options.undo_path = packages_.path() / "undo.mmp";
  import_options.undo_manifest = build.manifest;
  import_options.undo_manifest.import_id = import_options.import_id;
  import_options.undo_manifest.content_count = 0;
  import_options.scratch_dir = scratch_.path();
  PeakHeap importing;
  import_options.check_cancelled = [&] { importing.Sample(); };
  import_options.before_commit = [&](MetadataTransaction&,
                                     const service::migration::PackageImportSummary&) {
    importing.Sample();
  };  // namespace
  service::migration::PackageImportSummary summary =
      service::migration::ImportPackage(*target_->store, import_options);
  EXPECT_EQ(summary.outcomes[model::package::Outcome::kCreate], kObjects + 1);
  int64_t bulk_in_target = 0;
  target_->store->Read([&](MetadataTransaction& tx) {
    for (const auto& key : tx.ListObjectKeys(project_)) {
      bulk_in_target += key.folder_id == bulk_folder_id_ ? 1 : 0;
    }
  });
  EXPECT_EQ(bulk_in_target, kObjects);

  service::migration::UndoOptions undo;
  undo.undo_path = *import_options.undo_path;
  undo.target_project_id = project_;
  undo.scratch_dir = scratch_.path();
  PeakHeap undoing;
  undo.check_cancelled = [&] { undoing.Sample(); };
  undo.before_commit = [&](MetadataTransaction&, const service::migration::UndoSummary&) {
    undoing.Sample();
  };
  service::migration::UndoSummary undone = service::migration::ApplyUndo(*target_->store, undo);
  EXPECT_EQ(undone.deleted, kObjects + 1);
  EXPECT_EQ(target_->Dump(project_), before);
  EXPECT_TRUE(std::filesystem::is_empty(scratch_.path()));

  std::printf(
      "heap peak growth for %d objects: creation %.2f MiB, import %.2f MiB, undo %.2f MiB\n",
      kObjects, creation.mib(), importing.mib(), undoing.mib());
  EXPECT_LT(creation.bytes(), kCreationBound);
  EXPECT_LT(importing.bytes(), kImportBound);
  EXPECT_LT(undoing.bytes(), kUndoBound);
}

}  // namespace
}  // namespace tessera::testing
