// project import --dry-run and --prune in the bundle service, on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "core/ids.h"
#include "core/time.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

class BundlePrune : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    service::DirectoryService directory(*store_);
    directory.Bootstrap(std::nullopt);
    administrator_ = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
    std::filesystem::copy(kDemoBundle, extended_.path(), std::filesystem::copy_options::recursive);
    std::ofstream(extended_.path() / "reports" / "zz-extra.yaml")
        << "name: Extra Report\nrows: [Year]\ncolumns: [Revenue]\n";
  }

  std::optional<model::ObjectRecord> Find(const std::string& project, const std::string& id) {
    std::optional<model::ObjectRecord> found;
    store_->Read([&](storage::MetadataTransaction& tx) { found = tx.FindObject(project, id); });
    return found;
  }

  service::bundle::ImportSummary Import(const std::filesystem::path& bundle, bool prune,
                                        bool dry_run) {
    service::bundle::BundleImportOptions options;
    options.prune = prune;
    options.dry_run = dry_run;
    return service::bundle::BundleService(*store_).Import(administrator_, bundle, options);
  }

  std::unique_ptr<storage::MetadataStore> store_;
  service::session::Principal administrator_;
  TempDir extended_;
  const std::string extra_ = DeterministicObjectId("tessera:Tutorial:3:Extra Report");
};

TEST_P(BundlePrune, ADryRunCountsAndListsButWritesNothing) {
  const service::bundle::ImportSummary dry = Import(kDemoBundle, false, true);
  EXPECT_FALSE(dry.written);
  EXPECT_GT(dry.created, 40);
  EXPECT_EQ(dry.created_objects.size(), static_cast<size_t>(dry.created));
  store_->Read([&](storage::MetadataTransaction& tx) { EXPECT_TRUE(tx.ListProjects().empty()); });
}

TEST_P(BundlePrune, PruneDeletesWhatTheBundleNoLongerHasAndADryRunOnlySaysSo) {
  const service::bundle::ImportSummary first = Import(extended_.path(), false, false);
  ASSERT_TRUE(Find(first.project_id, extra_));

  const service::bundle::ImportSummary plain = Import(kDemoBundle, false, false);
  EXPECT_EQ(plain.deleted, 0);
  EXPECT_TRUE(Find(first.project_id, extra_)) << "an import without prune deletes nothing";

  const service::bundle::ImportSummary dry = Import(kDemoBundle, true, true);
  ASSERT_EQ(dry.deleted_objects.size(), 1u);
  EXPECT_EQ(dry.deleted_objects[0].id, extra_);
  EXPECT_EQ(dry.deleted_objects[0].kind, "report");
  EXPECT_EQ(dry.deleted_objects[0].name, "Extra Report");
  EXPECT_TRUE(Find(first.project_id, extra_));

  const service::bundle::ImportSummary pruned = Import(kDemoBundle, true, false);
  EXPECT_EQ(pruned.deleted, 1);
  EXPECT_FALSE(Find(first.project_id, extra_));
  store_->Read([&](storage::MetadataTransaction& tx) {
    EXPECT_TRUE(tx.ListUses(first.project_id, extra_).empty());
  });
}

TEST_P(BundlePrune, PruneIsRefusedWhileAnObjectThatStaysUsesOneToDelete) {
  const service::bundle::ImportSummary first = Import(extended_.path(), false, false);
  const std::string link = NewObjectId();
  store_->Write([&](storage::MetadataTransaction& tx) {
    model::ObjectRecord shortcut;
    shortcut.project_id = first.project_id;
    shortcut.id = link;
    shortcut.type = model::kTypeShortcut;
    shortcut.subtype = model::kTypeShortcut * 256;
    shortcut.name = "Link";
    shortcut.folder_id = std::string(model::kRootFolderId);
    shortcut.owner_id = administrator_.user_id;
    shortcut.version = NewObjectId();
    shortcut.created = shortcut.modified = Now();
    tx.PutObject(shortcut);
    tx.SetDependencies(first.project_id, link, {extra_});
  });
  try {
    Import(kDemoBundle, true, false);
    FAIL() << "the prune was not refused";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(), "Cannot prune: report 'Extra Report' (" + extra_ +
                                   ") is still used by object of type 18 'Link' (" + link +
                                   "), which stays; nothing was imported");
  }
  EXPECT_TRUE(Find(first.project_id, extra_));
}

INSTANTIATE_TEST_SUITE_P(Backends, BundlePrune, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
