// Packages between two environments at the service level: a source and a target storage service
// made from the demo bundle (the target a byte-for-byte clone of the source), then diverged;
// packages built from the source, imported into the target and undone -- on SQLite and
// PostgreSQL. Undo is checked by comparing a full dump of the target with the dump taken before
// the import.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "core/ids.h"
#include "core/time.h"
#include "model/object_types.h"
#include "model/package/settings.h"
#include "model/semantic.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "service/migration/migration_environments.h"
#include "service/migration/package_builder.h"
#include "service/migration/package_import.h"
#include "service/migration/package_undo.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using model::ObjectRecord;
using storage::MetadataTransaction;

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";
const std::string kAdministrator(model::kAdministratorUserId);

class PackageMigration : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    if (!IsBackendConfigured(GetParam())) GTEST_SKIP() << "TESSERA_TEST_PG is not set";
    source_ = std::make_unique<Environment>(GetParam());
    target_ = std::make_unique<Environment>(GetParam());
    service::DirectoryService directory(*source_->store);
    directory.Bootstrap(std::nullopt);
    auto administrator = directory.LoadPrincipal(kAdministrator);
    project_ = service::bundle::BundleService(*source_->store)
                   .Import(administrator, kDemoBundle)
                   .project_id;
    CloneSourceIntoTarget();
  }

  void CloneSourceIntoTarget() { CloneProject(*source_, *target_, project_); }

  static model::package::ContentItem Item(const ObjectRecord& record,
                                          model::package::ConflictRule action,
                                          bool include_dependents = false) {
    model::package::ContentItem item;
    item.id = record.id;
    item.name = record.name;
    item.type = record.type;
    item.action = action;
    item.include_dependents = include_dependents;
    return item;
  }

  static model::package::PackageSettings Settings(
      model::package::ConflictRule default_action = model::package::ConflictRule::kUseExisting) {
    model::package::PackageSettings settings;
    settings.default_action = default_action;
    return settings;
  }

  std::filesystem::path BuildObjectPackage(const std::vector<model::package::ContentItem>& content,
                                           const model::package::PackageSettings& settings) {
    return Build({project_, model::package::PackageKind::kProject,
                  model::package::PackagePurpose::kObjectMigration},
                 content, settings);
  }

  std::filesystem::path Build(const service::migration::PackageScope& scope,
                              const std::vector<model::package::ContentItem>& content,
                              const model::package::PackageSettings& settings) {
    service::migration::BuildOptions options;
    options.path = packages_.path() / (NewObjectId() + ".mmp");
    options.manifest.platform_version = "11.6.0200.0001";
    options.manifest.package_id = NewObjectId();
    options.manifest.type = std::string(model::package::PackageKindName(scope.kind));
    options.manifest.purpose = std::string(model::package::PackagePurposeName(scope.purpose));
    options.manifest.source_project = {project_, "Tutorial", project_};
    options.manifest.settings = model::package::ToJson(settings);
    options.manifest.created_at = FormatTimestamp(Now());
    std::vector<std::string> chunks;
    source_->store->Read([&](MetadataTransaction& tx) {
      service::migration::DescribeContent(tx, scope, content, [&](int64_t, std::string chunk) {
        chunks.push_back(std::move(chunk));
      });
    });
    options.manifest.content_count = static_cast<int64_t>(content.size());
    options.content_entry = [&](MetadataTransaction&, int64_t sequence) {
      return chunks.at(static_cast<size_t>(sequence - 1));
    };
    service::migration::BuildPackage(*source_->store, scope, options);
    return options.path;
  }

  // Imports into the target's copy of the project, with an undo package unless `with_undo` is
  // false; returns the summary.
  service::migration::PackageImportSummary Import(const std::filesystem::path& package,
                                                  bool with_undo = true) {
    service::migration::PackageImportOptions options;
    options.package_path = package;
    options.target_project_id = project_;
    options.importing_user_id = kAdministrator;
    options.import_id = NewObjectId();
    if (with_undo) options.undo_path = undo_path_;
    options.undo_manifest.platform_version = "11.6.0200.0001";
    options.undo_manifest.package_id = NewObjectId();
    options.undo_manifest.import_id = options.import_id;
    options.undo_manifest.type = "project";
    options.undo_manifest.purpose = "object_migration";
    options.undo_manifest.created_at = FormatTimestamp(Now());
    return service::migration::ImportPackage(*target_->store, options);
  }

  void Undo() {
    service::migration::UndoOptions options;
    options.undo_path = undo_path_;
    options.target_project_id = project_;
    service::migration::ApplyUndo(*target_->store, options);
  }

  // A new metric in a new folder under Public Objects, saved in the source only.
  ObjectRecord AddSourceMetricInNewFolder(const std::string& folder_name,
                                          const std::string& metric_name) {
    ObjectRecord folder = source_->Named(project_, "Public Objects");
    folder.id = NewObjectId();
    folder.name = folder_name;
    folder.folder_id = std::string(model::kPublicObjectsFolderId);
    folder.definition = Json::object();
    source_->Save(folder);
    ObjectRecord metric = source_->Named(project_, "Revenue");
    metric.id = NewObjectId();
    metric.name = metric_name;
    metric.folder_id = folder.id;
    source_->Save(metric);
    return *source_->Find(project_, metric.id);
  }

  // A compound metric "[numerator] / [denominator]" beside `numerator`, saved in the source.
  ObjectRecord CompoundMetric(const std::string& name, const ObjectRecord& numerator,
                              const ObjectRecord& denominator) {
    ObjectRecord metric = source_->Named(project_, "Profit Margin");
    metric.id = NewObjectId();
    metric.name = name;
    metric.folder_id = numerator.folder_id;
    metric.definition["expression"] = "[" + numerator.id + "] / [" + denominator.id + "]";
    source_->Save(metric);
    return *source_->Find(project_, metric.id);
  }

  std::string MessageOfFailedImport(const std::filesystem::path& package) {
    try {
      Import(package);
    } catch (const Error& error) {
      return std::string(error.message());
    }
    return "the import succeeded";
  }

  std::unique_ptr<Environment> source_;
  std::unique_ptr<Environment> target_;
  std::string project_;
  TempDir packages_;
  std::filesystem::path undo_path_ = packages_.path() / "undo" / "undo.mmp";
};

TEST_P(PackageMigration, AnAbsentObjectIsCreatedWithTheSourcesIdVersionDatesAndFolder) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  ObjectRecord folder = *source_->Find(project_, metric.folder_id);

  Import(
      BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting)}, Settings()));

  auto created = target_->Find(project_, metric.id);
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->name, "Net Revenue");
  EXPECT_EQ(created->version, metric.version);
  EXPECT_EQ(created->created, metric.created);
  EXPECT_EQ(created->modified, metric.modified);
  EXPECT_EQ(created->folder_id, folder.id);
  EXPECT_EQ(created->definition, metric.definition);
  auto created_folder = target_->Find(project_, folder.id);
  ASSERT_TRUE(created_folder.has_value());
  EXPECT_EQ(created_folder->name, "Migrated");
  // The folder was created, then filled: it is saved again.
  EXPECT_NE(created_folder->version, folder.version);
}

TEST_P(PackageMigration, UndoRestoresTheTargetExactly) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  ObjectRecord revenue = source_->Named(project_, "Revenue");
  revenue.description = "Revenue, restated";
  source_->Save(revenue);
  std::string before = target_->Dump(project_);

  Import(BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting),
                             Item(revenue, model::package::ConflictRule::kReplace)},
                            Settings()));
  ASSERT_NE(target_->Dump(project_), before);
  Undo();

  EXPECT_EQ(target_->Dump(project_), before);
}

TEST_P(PackageMigration, ReplaceOverwritesADifferentObjectWithTheSourceVersion) {
  ObjectRecord revenue = source_->Named(project_, "Revenue");
  revenue.description = "Revenue, restated";
  source_->Save(revenue);
  revenue = *source_->Find(project_, revenue.id);

  Import(BuildObjectPackage({Item(revenue, model::package::ConflictRule::kReplace)}, Settings()));

  auto replaced = target_->Find(project_, revenue.id);
  EXPECT_EQ(replaced->description, "Revenue, restated");
  EXPECT_EQ(replaced->version, revenue.version);
  EXPECT_EQ(replaced->modified, revenue.modified);
}

TEST_P(PackageMigration, UseExistingKeepsADifferentTargetObject) {
  ObjectRecord revenue = source_->Named(project_, "Revenue");
  ObjectRecord in_target = *target_->Find(project_, revenue.id);
  revenue.description = "Revenue, restated";
  source_->Save(revenue);

  Import(
      BuildObjectPackage({Item(revenue, model::package::ConflictRule::kUseExisting)}, Settings()));

  auto kept = target_->Find(project_, revenue.id);
  EXPECT_EQ(kept->description, in_target.description);
  EXPECT_EQ(kept->version, in_target.version);
}

TEST_P(PackageMigration, UseNewerReplacesOnlyWhenTheSourceIsNewer) {
  ObjectRecord cost = source_->Named(project_, "Cost");
  ObjectRecord profit = source_->Named(project_, "Profit");
  cost.description = "Cost, edited in the source after the target";
  source_->Save(cost);
  target_->Save(*target_->Find(project_, cost.id), std::chrono::hours(1));
  profit.description = "Profit, edited in the source before the target";
  source_->Save(profit, std::chrono::hours(1));
  target_->Save(*target_->Find(project_, profit.id));
  ObjectRecord profit_in_target = *target_->Find(project_, profit.id);

  Import(BuildObjectPackage(
      {Item(*source_->Find(project_, cost.id), model::package::ConflictRule::kUseNewer),
       Item(*source_->Find(project_, profit.id), model::package::ConflictRule::kUseNewer)},
      Settings()));

  EXPECT_EQ(target_->Find(project_, cost.id)->description, cost.description);
  EXPECT_EQ(target_->Find(project_, profit.id)->version, profit_in_target.version);
}

TEST_P(PackageMigration, UseOlderReplacesOnlyWhenTheSourceIsOlder) {
  ObjectRecord cost = source_->Named(project_, "Cost");
  cost.description = "Cost, edited in the source before the target";
  source_->Save(cost, std::chrono::hours(1));
  target_->Save(*target_->Find(project_, cost.id));

  Import(BuildObjectPackage(
      {Item(*source_->Find(project_, cost.id), model::package::ConflictRule::kUseOlder)},
      Settings()));

  EXPECT_EQ(target_->Find(project_, cost.id)->description, cost.description);
}

TEST_P(PackageMigration, KeepBothSavesTheSourceAsANewObjectBesideTheTargetOne) {
  ObjectRecord revenue = source_->Named(project_, "Revenue");
  ObjectRecord in_target = *target_->Find(project_, revenue.id);
  revenue.description = "Revenue, restated";
  source_->Save(revenue);

  Import(BuildObjectPackage({Item(revenue, model::package::ConflictRule::kKeepBoth)}, Settings()),
         /*with_undo=*/false);

  EXPECT_EQ(target_->Find(project_, revenue.id)->version, in_target.version);
  ObjectRecord copy = target_->Named(project_, "Revenue (1)");
  EXPECT_NE(copy.id, revenue.id);
  EXPECT_EQ(copy.description, "Revenue, restated");
  EXPECT_EQ(copy.folder_id, in_target.folder_id);
}

TEST_P(PackageMigration, ReplaceMovesAnObjectIdenticalExceptItsPathToTheSourceFolder) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  Import(
      BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting)}, Settings()));
  ObjectRecord in_target = *target_->Find(project_, metric.id);
  in_target.folder_id = std::string(model::kPublicObjectsFolderId);  // moved, version kept
  target_->store->Write([&](MetadataTransaction& tx) { tx.PutObject(in_target); });

  Import(BuildObjectPackage({Item(metric, model::package::ConflictRule::kReplace)}, Settings()));

  auto moved = target_->Find(project_, metric.id);
  EXPECT_EQ(moved->folder_id, metric.folder_id);
  EXPECT_EQ(moved->version, metric.version);
}

TEST_P(PackageMigration, DeleteRemovesTheTargetObject) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  Import(
      BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting)}, Settings()));
  ASSERT_TRUE(target_->Find(project_, metric.id).has_value());
  std::string before = target_->Dump(project_);

  Import(BuildObjectPackage({Item(metric, model::package::ConflictRule::kDelete)}, Settings()));
  EXPECT_FALSE(target_->Find(project_, metric.id).has_value());
  Undo();

  EXPECT_EQ(target_->Dump(project_), before);
}

TEST_P(PackageMigration, DeletingAnObjectOthersUseFailsTheImportAndChangesNothing) {
  ObjectRecord revenue = source_->Named(project_, "Revenue");  // Profit and reports use it
  std::string before = target_->Dump(project_);

  std::string message = MessageOfFailedImport(
      BuildObjectPackage({Item(revenue, model::package::ConflictRule::kDelete)}, Settings()));

  EXPECT_NE(message.find("Cannot delete 'Revenue'"), std::string::npos) << message;
  EXPECT_EQ(target_->Dump(project_), before);
  EXPECT_FALSE(std::filesystem::exists(undo_path_));
}

TEST_P(PackageMigration, AMissingDependencyFailsAnObjectImport) {
  ObjectRecord revenue = source_->Named(project_, "Revenue");
  ObjectRecord net = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  ObjectRecord user_of_net = CompoundMetric("Net Revenue Share", net, revenue);
  ASSERT_EQ(model::UsedObjectIds(user_of_net).size(), 2u);  // packaged without Net Revenue
  std::string before = target_->Dump(project_);

  std::string message = MessageOfFailedImport(
      BuildObjectPackage({Item(user_of_net, model::package::ConflictRule::kReplace)}, Settings()));

  EXPECT_NE(message.find("Missing dependencies"), std::string::npos) << message;
  EXPECT_EQ(target_->Dump(project_), before);
}

TEST_P(PackageMigration, IncludeDependentsCarriesWhatAnObjectUsesWithTheDefaultAction) {
  ObjectRecord net = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  ObjectRecord share =
      CompoundMetric("Net Revenue Share", net, source_->Named(project_, "Revenue"));

  Import(
      BuildObjectPackage({Item(share, model::package::ConflictRule::kReplace, true)}, Settings()));

  EXPECT_TRUE(target_->Find(project_, share.id).has_value());
  EXPECT_TRUE(target_->Find(project_, net.id).has_value());
}

TEST_P(PackageMigration, UndoFailsWhenAnObjectTheImportCreatedGainedUsers) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  Import(
      BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting)}, Settings()));
  std::string after_import = target_->Dump(project_);
  target_->store->Write([&](MetadataTransaction& tx) {
    tx.SetDependencies(project_, source_->Named(project_, "Profit").id, {metric.id});
  });
  std::string before_undo = target_->Dump(project_);

  try {
    Undo();
    FAIL() << "the undo succeeded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.message()).find("now used by 1 objects"), std::string::npos)
        << error.message();
  }
  EXPECT_EQ(target_->Dump(project_), before_undo);
}

TEST_P(PackageMigration, ANameTakenInTheFolderGetsASuffix) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  Import(
      BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting)}, Settings()));
  ObjectRecord other = *target_->Find(project_, metric.id);  // another object, same name
  other.id = NewObjectId();
  ObjectRecord second = metric;
  second.id = NewObjectId();
  source_->Save(second);
  target_->Save(other);

  Import(BuildObjectPackage(
      {Item(*source_->Find(project_, second.id), model::package::ConflictRule::kUseExisting)},
      Settings()));

  EXPECT_EQ(target_->Find(project_, second.id)->name, "Net Revenue (1)");
}

TEST_P(PackageMigration, ACorruptPackageFailsBeforeAnythingChanges) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  auto package =
      BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting)}, Settings());
  std::filesystem::resize_file(package, std::filesystem::file_size(package) - 40);
  std::string before = target_->Dump(project_);

  std::string message = MessageOfFailedImport(package);

  EXPECT_NE(message.find("Package file is corrupt"), std::string::npos) << message;
  EXPECT_EQ(target_->Dump(project_), before);
}

TEST_P(PackageMigration, InheritedAclOnNewObjectsComesFromTheDestinationFolder) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  ObjectRecord public_objects =
      *target_->Find(project_, std::string(model::kPublicObjectsFolderId));
  model::package::PackageSettings settings = Settings();
  settings.acl_on_new = {model::package::AclOnNew::kInheritAclAsDestFolder};

  Import(BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting)}, settings));

  auto folder = target_->Find(project_, metric.folder_id);
  EXPECT_EQ(model::AclToJson(folder->acl), model::AclToJson(model::InheritedAcl(public_objects)));
}

TEST_P(PackageMigration, TrusteesAndOwnersTheTargetLacksAreNotCarriedOver) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  std::string stranger = NewObjectId();  // a user only the source has
  metric.owner_id = stranger;
  metric.acl.push_back({stranger, 255, false, false});
  source_->Save(metric);

  Import(
      BuildObjectPackage({Item(metric, model::package::ConflictRule::kUseExisting)}, Settings()));

  auto created = target_->Find(project_, metric.id);
  EXPECT_EQ(created->owner_id, kAdministrator);
  for (const auto& entry : created->acl) EXPECT_NE(entry.trustee_id, stranger);
}

TEST_P(PackageMigration, AProjectMergeCopiesEveryObjectAndUndoRestoresTheTarget) {
  ObjectRecord metric = AddSourceMetricInNewFolder("Migrated", "Net Revenue");
  ObjectRecord revenue = source_->Named(project_, "Revenue");
  revenue.description = "Revenue, restated";
  source_->Save(revenue);
  std::string before = target_->Dump(project_);

  auto package = Build({project_, model::package::PackageKind::kProject,
                        model::package::PackagePurpose::kProjectMerge},
                       {}, Settings(model::package::ConflictRule::kReplace));
  auto summary = Import(package);

  size_t source_objects = 0;
  source_->store->Read(
      [&](MetadataTransaction& tx) { source_objects = tx.ListObjectKeys(project_).size(); });
  EXPECT_EQ(summary.objects, static_cast<int64_t>(source_objects));
  EXPECT_EQ(target_->Find(project_, revenue.id)->description, "Revenue, restated");
  EXPECT_TRUE(target_->Find(project_, metric.id).has_value());
  Undo();
  EXPECT_EQ(target_->Dump(project_), before);
}

INSTANTIATE_TEST_SUITE_P(Backends, PackageMigration, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
