// Importing and exporting project bundles through the storage service, on SQLite and PostgreSQL.
#include "service/bundle/bundle_service.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "core/ids.h"
#include "model/bundle/bundle.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/directory_service.h"
#include "service/project/project_model.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

class BundleImport : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    service::DirectoryService directory(*store_);
    directory.Bootstrap(std::nullopt);
    administrator_ = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
  }

  std::map<std::string, model::ObjectRecord> Objects(storage::MetadataStore& store,
                                                     const std::string& project_id) {
    std::map<std::string, model::ObjectRecord> objects;
    store.Read([&](storage::MetadataTransaction& tx) {
      for (auto& object : tx.ListObjects(project_id, {})) objects[object.id] = object;
    });
    return objects;
  }

  std::unique_ptr<storage::MetadataStore> store_;
  service::session::Principal administrator_;
};

TEST_P(BundleImport, TheDemoBundleCreatesItsProjectWithDeterministicIds) {
  service::bundle::BundleService bundles(*store_);
  auto summary = bundles.Import(administrator_, kDemoBundle);
  EXPECT_EQ(summary.project_name, "Tutorial");
  EXPECT_EQ(summary.project_id, DeterministicObjectId("tessera:Tutorial:32:Tutorial"));
  EXPECT_GT(summary.created, 40);
  auto objects = Objects(*store_, summary.project_id);
  const std::string region = DeterministicObjectId("tessera:Tutorial:12:Region");
  ASSERT_TRUE(objects.count(region));
  EXPECT_EQ(objects[region].type, model::kTypeAttribute);
  EXPECT_EQ(objects[region].owner_id, administrator_.user_id);
  // The semantic layer the engine reads back is whole.
  auto semantic = service::project::LoadSemanticModel(*store_, summary.project_id);
  EXPECT_TRUE(semantic.FindByName(model::kTypeMetric, "Profit Margin"));
  EXPECT_EQ(semantic.cubes().size(), 3u);
}

TEST_P(BundleImport, ReimportingAnUnchangedBundleKeepsEveryVersion) {
  service::bundle::BundleService bundles(*store_);
  auto first = bundles.Import(administrator_, kDemoBundle);
  auto before = Objects(*store_, first.project_id);
  auto second = bundles.Import(administrator_, kDemoBundle);
  EXPECT_EQ(second.created, 0);
  EXPECT_EQ(second.updated, 0);
  EXPECT_EQ(second.unchanged, first.created);
  auto after = Objects(*store_, first.project_id);
  ASSERT_EQ(before.size(), after.size());
  for (const auto& [id, object] : before) {
    EXPECT_EQ(after[id].version, object.version) << object.name;
    EXPECT_EQ(after[id].modified, object.modified) << object.name;
  }
}

TEST_P(BundleImport, OnlyAChangedObjectGetsANewVersion) {
  TempDir copy;
  std::filesystem::copy(kDemoBundle, copy.path(), std::filesystem::copy_options::recursive);
  service::bundle::BundleService bundles(*store_);
  auto first = bundles.Import(administrator_, copy.path());
  auto before = Objects(*store_, first.project_id);

  model::bundle::Bundle bundle = model::bundle::ReadBundle(copy.path());
  for (auto& object : bundle.objects) {
    if (object.record.name == "Revenue" && object.record.type == model::kTypeMetric) {
      object.record.description = "Money in";
    }
  }
  model::bundle::WriteBundle(bundle, copy.path());
  auto second = bundles.Import(administrator_, copy.path());
  EXPECT_EQ(second.updated, 1);
  auto after = Objects(*store_, first.project_id);
  const std::string revenue = DeterministicObjectId("tessera:Tutorial:4:Revenue");
  EXPECT_NE(after[revenue].version, before[revenue].version);
  EXPECT_EQ(after[revenue].created, before[revenue].created);
  EXPECT_EQ(after[revenue].description, "Money in");
  const std::string cost = DeterministicObjectId("tessera:Tutorial:4:Cost");
  EXPECT_EQ(after[cost].version, before[cost].version);
}

TEST_P(BundleImport, ABrokenBundleWritesNothingAndReportsEveryProblem) {
  TempDir copy;
  std::filesystem::copy(kDemoBundle, copy.path(), std::filesystem::copy_options::recursive);
  std::ofstream(copy.path() / "facts.yaml", std::ios::app)
      << "  - name: Broken\n    tables: [sales_fact]\n    expression: no_such_column\n";
  std::ofstream(copy.path() / "metrics.yaml", std::ios::app)
      << "  - name: Orphan\n    function: sum\n    fact: Nowhere\n";
  service::bundle::BundleService bundles(*store_);
  try {
    bundles.Import(administrator_, copy.path());
    FAIL() << "expected the bundle to be refused";
  } catch (const model::bundle::BundleError& e) {
    ASSERT_GE(e.problems().size(), 2u);
    std::string all;
    for (const auto& problem : e.problems()) all += problem + "\n";
    EXPECT_NE(all.find("facts.yaml:"), std::string::npos) << all;
    EXPECT_NE(all.find("metrics.yaml:"), std::string::npos) << all;
  }
  store_->Read([&](storage::MetadataTransaction& tx) { EXPECT_TRUE(tx.ListProjects().empty()); });
}

TEST_P(BundleImport, ExportThenImportElsewhereYieldsTheSameObjects) {
  service::bundle::BundleService bundles(*store_);
  auto original = bundles.Import(administrator_, kDemoBundle);
  TempDir exported;
  bundles.Export(administrator_, "Tutorial", exported.path());

  TestDatabase other_database(GetParam());
  storage::StoreOptions options;
  options.url = other_database.url();
  auto other = storage::MetadataStore::Open(options);
  service::DirectoryService directory(*other);
  directory.Bootstrap(std::nullopt);
  service::bundle::BundleService other_bundles(*other);
  auto copy = other_bundles.Import(administrator_, exported.path());
  EXPECT_EQ(copy.project_id, original.project_id);

  auto expected = Objects(*store_, original.project_id);
  auto actual = Objects(*other, copy.project_id);
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto& [id, object] : expected) {
    ASSERT_TRUE(actual.count(id)) << object.name;
    EXPECT_EQ(actual[id].name, object.name);
    EXPECT_EQ(actual[id].type, object.type);
    EXPECT_EQ(actual[id].subtype, object.subtype);
    EXPECT_EQ(actual[id].folder_id, object.folder_id) << object.name;
    EXPECT_EQ(actual[id].definition, object.definition) << object.name;
  }
}

TEST_P(BundleImport, DependenciesAreRecordedBothWays) {
  service::bundle::BundleService bundles(*store_);
  auto summary = bundles.Import(administrator_, kDemoBundle);
  const std::string profit = DeterministicObjectId("tessera:Tutorial:4:Profit");
  const std::string revenue = DeterministicObjectId("tessera:Tutorial:4:Revenue");
  store_->Read([&](storage::MetadataTransaction& tx) {
    auto uses = tx.ListUses(summary.project_id, profit);
    EXPECT_NE(std::find(uses.begin(), uses.end(), revenue), uses.end());
    auto used_by = tx.ListUsedBy(summary.project_id, revenue);
    EXPECT_NE(std::find(used_by.begin(), used_by.end(), profit), used_by.end());
  });
}

TEST_P(BundleImport, ImportNeedsAdministerEnvironment) {
  service::session::Principal nobody;
  nobody.user_id = "0123456789ABCDEF0123456789ABCDEF";
  service::bundle::BundleService bundles(*store_);
  try {
    bundles.Import(nobody, kDemoBundle);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInsufficientPrivileges);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, BundleImport, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
