// Generic objects and folders without the HTTP stack, over the demo Tutorial project on SQLite
// and PostgreSQL: reading an object with its owner, ancestors and the caller's rights; the ACL
// refusing objects a user may not browse or change; folder listings with paging; renaming,
// describing and hiding (each a new version), all or nothing; ACL changes; creating folders
// (duplicate names refused); personal folders and saving objects in them; deleting, refused for
// predefined or non-empty folders and objects others use. Expected values come from the bundle's
// YAML files, fixed names, or the storage service read directly.
#include "service/object/object_service.h"

#include <gtest/gtest.h>

#include "model/object_types.h"
#include "model/rights.h"
#include "model/well_known.h"
#include "service/tutorial_project.h"

namespace tessera::testing {
namespace {

using service::object::ObjectPatch;
using service::session::Principal;
using Names = std::vector<std::string>;

// The predefined folders directly in Public Objects, by their fixed names.
const Names kPublicObjectsFolders = {
    "Consolidations", "Custom Groups", "Dashboard Templates", "Filters",  "Metrics", "Prompts",
    "Reports",        "Searches",      "Shared Dashboards",   "Templates"};

const std::string kPublicObjects(model::kPublicObjectsFolderId);
const std::string kReports(model::kSharedReportsFolderId);
const std::string kMetricsFolder = model::PredefinedFolderId(5);

class ObjectServiceTest : public TutorialProjectTest {
 protected:
  void SetUp() override {
    TutorialProjectTest::SetUp();
    if (IsSkipped()) return;
    objects_ = std::make_unique<service::object::ObjectService>(*store_);
    metrics_ = TutorialListNames("metrics.yaml", "metrics");
  }

  Principal NewNormalUser(const std::string& username) {
    service::NewUser user;
    user.username = username;
    user.password = "password of " + username;
    return directory_->LoadPrincipal(directory_->CreateUser(admin_, user).id);
  }

  static Names NamesOf(const std::vector<service::object::ObjectView>& views) {
    Names names;
    for (const auto& view : views) names.push_back(view.record.name);
    return names;
  }

  static ObjectPatch Renamed(const std::string& name) {
    ObjectPatch patch;
    patch.name = name;
    return patch;
  }

  static service::object::AclChange Grant(
      const std::string& trustee, int rights,
      service::object::AclChange::Op op = service::object::AclChange::Op::kAdd) {
    service::object::AclChange change;
    change.op = op;
    change.entry.trustee_id = trustee;
    change.entry.rights = rights;
    return change;
  }

  // The error code of `call`, and that the message names `fragment` when one is given.
  static ErrorCode CodeOf(const std::function<void()>& call, const std::string& fragment = "") {
    auto error = ErrorFrom(call);
    EXPECT_TRUE(error) << "expected an error";
    if (!error) return ErrorCode::kInternal;
    EXPECT_NE(error->message().find(fragment), std::string_view::npos) << error->message();
    return error->code();
  }

  std::unique_ptr<service::object::ObjectService> objects_;
  Names metrics_;
};

TEST_P(ObjectServiceTest, GetShowsTheObjectWithOwnerAncestorsAndTheCallersRights) {
  const std::string id = TutorialId(model::kTypeReportDefinition, "Western Europe by Country");
  const YAML::Node yaml =
      YAML::LoadFile((kTutorialBundle / "reports/western-europe-by-country.yaml").string());

  auto view = objects_->Get(heidi_, project_id_, id, model::kTypeReportDefinition);
  EXPECT_EQ(view.record.id, id);
  EXPECT_EQ(view.record.name, yaml["name"].as<std::string>());
  EXPECT_EQ(view.record.description, yaml["description"].as<std::string>());
  EXPECT_EQ(view.record.type, model::kTypeReportDefinition);
  EXPECT_EQ(view.record.subtype, model::kSubtypeReportGrid);
  EXPECT_EQ(view.owner_name, "Administrator");
  EXPECT_EQ(view.acg, model::kRightsView);  // Everyone may browse, read, use and execute
  ASSERT_EQ(view.ancestors.size(), 3u);
  EXPECT_EQ(view.ancestors[0].name, "Tutorial");
  EXPECT_EQ(view.ancestors[0].level, 3);
  EXPECT_EQ(view.ancestors[1].id, kPublicObjects);
  EXPECT_EQ(view.ancestors[1].level, 2);
  EXPECT_EQ(view.ancestors[2].id, kReports);
  EXPECT_EQ(view.ancestors[2].name, "Reports");
  EXPECT_EQ(view.ancestors[2].level, 1);

  EXPECT_EQ(objects_->Get(admin_, project_id_, id, model::kTypeReportDefinition).acg,
            model::kRightsFullControl);
}

TEST_P(ObjectServiceTest, AnUnknownIdOrAnotherTypeIsNotFound) {
  const std::string unknown = "0123456789ABCDEF0123456789ABCDEF";
  EXPECT_EQ(
      CodeOf([&] { objects_->Get(admin_, project_id_, unknown, model::kTypeMetric); }, unknown),
      ErrorCode::kNotFound);
  const std::string metric = TutorialId(model::kTypeMetric, "Revenue");
  EXPECT_EQ(CodeOf([&] { objects_->Get(admin_, project_id_, metric, model::kTypeFilter); }, metric),
            ErrorCode::kNotFound);
  EXPECT_EQ(CodeOf([&] { objects_->ListFolder(admin_, project_id_, metric, {}); }),
            ErrorCode::kNotFound);
}

TEST_P(ObjectServiceTest, AnObjectWithoutBrowseIsRefusedAndLeftOutOfListings) {
  const std::string revenue = TutorialId(model::kTypeMetric, "Revenue");
  const std::string profit = TutorialId(model::kTypeMetric, "Profit");
  MakePrivate(revenue);

  EXPECT_EQ(
      CodeOf([&] { objects_->Get(heidi_, project_id_, revenue, model::kTypeMetric); }, revenue),
      ErrorCode::kAccessDenied);
  const Names others = SortedWhere(metrics_, [](const std::string& n) { return n != "Revenue"; });
  auto listing = objects_->ListFolder(heidi_, project_id_, kMetricsFolder, {});
  EXPECT_EQ(listing.total, static_cast<int64_t>(others.size()));
  EXPECT_EQ(NamesOf(listing.items), others);
  EXPECT_EQ(NamesOf(objects_->FindVisible(heidi_, project_id_,
                                          {revenue, profit, "0123456789ABCDEF0123456789ABCDEF"})),
            Names{"Profit"});
  // The administrator bypasses object security.
  EXPECT_EQ(objects_->Get(admin_, project_id_, revenue, model::kTypeMetric).record.name, "Revenue");
  EXPECT_EQ(objects_->ListFolder(admin_, project_id_, kMetricsFolder, {}).total,
            static_cast<int64_t>(metrics_.size()));
}

TEST_P(ObjectServiceTest, AFolderListsItsChildrenInNameOrderAPageAtATime) {
  EXPECT_EQ(NamesOf(objects_->ListFolder(heidi_, project_id_, kPublicObjects, {}).items),
            kPublicObjectsFolders);
  EXPECT_EQ(NamesOf(objects_->ListFolder(heidi_, project_id_, kReports, {}).items),
            Sorted(Concat(TutorialFileNames("reports"), TutorialFileNames("cubes"))));

  const Names all = Sorted(metrics_);
  ASSERT_GE(all.size(), 6u);
  auto page = objects_->ListFolder(heidi_, project_id_, kMetricsFolder, {.offset = 2, .limit = 3});
  EXPECT_EQ(page.total, static_cast<int64_t>(all.size()));
  EXPECT_EQ(NamesOf(page.items), Names(all.begin() + 2, all.begin() + 5));
  auto beyond =
      objects_->ListFolder(heidi_, project_id_, kMetricsFolder, {.offset = 500, .limit = 3});
  EXPECT_EQ(beyond.total, static_cast<int64_t>(all.size()));
  EXPECT_TRUE(beyond.items.empty());
}

TEST_P(ObjectServiceTest, RenamingDescribingAndHidingEachSaveANewVersion) {
  const std::string id = TutorialId(model::kTypeMetric, "Profit");
  const model::ObjectRecord before = *Stored(id);

  auto renamed =
      objects_->Update(admin_, project_id_, id, model::kTypeMetric, Renamed("  Gross Profit  "));
  EXPECT_EQ(renamed.record.name, "Gross Profit");
  EXPECT_NE(renamed.record.version, before.version);
  EXPECT_GT(renamed.record.modified, before.modified);
  auto stored = Stored(id);
  EXPECT_EQ(stored->name, "Gross Profit");
  EXPECT_EQ(stored->version, renamed.record.version);
  EXPECT_EQ(stored->created, before.created);
  EXPECT_EQ(stored->definition, before.definition);

  ObjectPatch describe;
  describe.description = "Revenue minus cost";
  auto described = objects_->Update(admin_, project_id_, id, model::kTypeMetric, describe);
  EXPECT_EQ(described.record.description, "Revenue minus cost");
  EXPECT_EQ(described.record.name, "Gross Profit");
  EXPECT_NE(described.record.version, renamed.record.version);

  ObjectPatch hide;
  hide.hidden = true;
  auto hidden = objects_->Update(admin_, project_id_, id, model::kTypeMetric, hide);
  EXPECT_TRUE(hidden.record.hidden);
  EXPECT_NE(hidden.record.version, described.record.version);
  EXPECT_TRUE(Stored(id)->hidden);
  EXPECT_EQ(Stored(id)->description, "Revenue minus cost");
}

TEST_P(ObjectServiceTest, ABadPatchChangesNothing) {
  const std::string id = TutorialId(model::kTypeMetric, "Cost");
  const model::ObjectRecord before = *Stored(id);
  EXPECT_EQ(
      CodeOf([&] { objects_->Update(admin_, project_id_, id, model::kTypeMetric, Renamed("   ")); },
             "name"),
      ErrorCode::kInvalidInput);

  // A valid rename with an ACL entry for a trustee that does not exist: neither is applied.
  ObjectPatch patch = Renamed("Total Cost");
  const std::string nobody = "0123456789ABCDEF0123456789ABCDEF";
  patch.acl_changes = {Grant(nobody, model::kRightBrowse)};
  EXPECT_EQ(
      CodeOf([&] { objects_->Update(admin_, project_id_, id, model::kTypeMetric, patch); }, nobody),
      ErrorCode::kInvalidInput);
  auto after = Stored(id);
  EXPECT_EQ(after->name, before.name);
  EXPECT_EQ(after->version, before.version);
  EXPECT_EQ(after->acl.size(), before.acl.size());
}

TEST_P(ObjectServiceTest, AUserWithoutWriteOrControlCannotChangeAnObject) {
  const std::string id = TutorialId(model::kTypeMetric, "Revenue");
  const model::ObjectRecord before = *Stored(id);
  EXPECT_EQ(
      CodeOf(
          [&] { objects_->Update(heidi_, project_id_, id, model::kTypeMetric, Renamed("Sales")); },
          id),
      ErrorCode::kAccessDenied);
  EXPECT_EQ(CodeOf([&] {
              objects_->UpdateAcl(heidi_, project_id_, id, model::kTypeMetric,
                                  {Grant(heidi_id_, model::kRightsFullControl)});
            }),
            ErrorCode::kAccessDenied);
  EXPECT_EQ(Stored(id)->name, before.name);
  EXPECT_EQ(Stored(id)->version, before.version);
}

TEST_P(ObjectServiceTest, WriteGrantedInTheAclLetsAUserRenameButNotChangeTheAcl) {
  const std::string id = TutorialId(model::kTypeFilter, "Year 2024");
  auto granted = objects_->UpdateAcl(admin_, project_id_, id, model::kTypeFilter,
                                     {Grant(heidi_id_, model::kRightWrite)});
  ASSERT_FALSE(granted.record.acl.empty());
  EXPECT_EQ(granted.record.acl.back().trustee_id, heidi_id_);
  EXPECT_EQ(granted.acl_trustees.back().name, "Heidi Klein");

  auto seen = objects_->Get(heidi_, project_id_, id, model::kTypeFilter);
  EXPECT_EQ(seen.acg, model::kRightsView | model::kRightWrite);
  auto renamed =
      objects_->Update(heidi_, project_id_, id, model::kTypeFilter, Renamed("Calendar 2024"));
  EXPECT_EQ(renamed.record.name, "Calendar 2024");
  EXPECT_EQ(Stored(id)->name, "Calendar 2024");
  EXPECT_EQ(CodeOf([&] {
              objects_->UpdateAcl(heidi_, project_id_, id, model::kTypeFilter,
                                  {Grant(heidi_id_, model::kRightControl)});
            }),
            ErrorCode::kAccessDenied);

  // Taking the right away again.
  objects_->UpdateAcl(
      admin_, project_id_, id, model::kTypeFilter,
      {Grant(heidi_id_, model::kRightWrite, service::object::AclChange::Op::kRemove)});
  EXPECT_EQ(objects_->Get(heidi_, project_id_, id, model::kTypeFilter).acg, model::kRightsView);
  EXPECT_EQ(CodeOf([&] {
              objects_->Update(heidi_, project_id_, id, model::kTypeFilter, Renamed("Again"));
            }),
            ErrorCode::kAccessDenied);
}

TEST_P(ObjectServiceTest, ACreatedFolderIsListedAndInheritsItsParentsAcl) {
  auto folder =
      objects_->CreateFolder(admin_, project_id_, kPublicObjects, " Regional Sales ", "By region");
  EXPECT_EQ(folder.record.name, "Regional Sales");
  EXPECT_EQ(folder.record.description, "By region");
  EXPECT_EQ(folder.record.type, model::kTypeFolder);
  EXPECT_EQ(folder.record.subtype, model::kSubtypeFolder);
  EXPECT_EQ(folder.record.folder_id, kPublicObjects);
  EXPECT_EQ(folder.record.owner_id, admin_.user_id);
  ASSERT_EQ(folder.ancestors.size(), 2u);
  EXPECT_EQ(folder.ancestors[1].id, kPublicObjects);

  auto stored = Stored(folder.record.id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->name, "Regional Sales");
  Names expected = Sorted(Concat(kPublicObjectsFolders, Names{"Regional Sales"}));
  EXPECT_EQ(NamesOf(objects_->ListFolder(heidi_, project_id_, kPublicObjects, {}).items), expected);
  EXPECT_EQ(objects_->Get(heidi_, project_id_, folder.record.id, model::kTypeFolder).acg,
            model::kRightsView);
}

TEST_P(ObjectServiceTest, ASecondFolderOfTheSameNameIsRefusedNamingIt) {
  objects_->CreateFolder(admin_, project_id_, kPublicObjects, "Regional Sales", "");
  // The name asked for (trimmed) and the name the message gives.
  const std::vector<std::pair<std::string, std::string>> names = {
      {"regional sales", "regional sales"},
      {" REGIONAL SALES ", "REGIONAL SALES"},
      {"metrics", "metrics"}};
  for (const auto& [name, shown] : names) {
    auto error =
        ErrorFrom([&] { objects_->CreateFolder(admin_, project_id_, kPublicObjects, name, ""); });
    ASSERT_TRUE(error) << name;
    EXPECT_EQ(error->code(), ErrorCode::kAlreadyExists) << name;
    EXPECT_NE(error->message().find("'" + shown + "'"), std::string_view::npos) << error->message();
    EXPECT_NE(error->message().find("Public Objects"), std::string_view::npos) << error->message();
  }
  EXPECT_EQ(objects_->ListFolder(admin_, project_id_, kPublicObjects, {}).total,
            static_cast<int64_t>(kPublicObjectsFolders.size()) + 1);
  // The same name elsewhere, or beside an object that is not a folder, is fine.
  EXPECT_NO_THROW(objects_->CreateFolder(admin_, project_id_, kReports, "Regional Sales", ""));
  EXPECT_NO_THROW(objects_->CreateFolder(admin_, project_id_, kMetricsFolder, "Revenue", ""));
}

TEST_P(ObjectServiceTest, CreatingAFolderNeedsANameAFolderWriteAndThePrivilege) {
  EXPECT_EQ(CodeOf([&] { objects_->CreateFolder(admin_, project_id_, kPublicObjects, "  ", ""); },
                   "name"),
            ErrorCode::kInvalidInput);
  const std::string metric = TutorialId(model::kTypeMetric, "Revenue");
  EXPECT_EQ(
      CodeOf([&] { objects_->CreateFolder(admin_, project_id_, metric, "Inside", ""); }, metric),
      ErrorCode::kNotFound);
  EXPECT_EQ(CodeOf([&] { objects_->CreateFolder(heidi_, project_id_, kPublicObjects, "Mine", ""); },
                   kPublicObjects),
            ErrorCode::kAccessDenied);
  Principal no_privileges;  // a user whose roles grant nothing
  no_privileges.user_id = "0123456789ABCDEF0123456789ABCDEF";
  no_privileges.group_ids = {std::string(model::kEveryoneGroupId)};
  EXPECT_EQ(CodeOf([&] {
              objects_->CreateFolder(no_privileges, project_id_, kPublicObjects, "Mine", "");
            }),
            ErrorCode::kInsufficientPrivileges);
  EXPECT_EQ(objects_->ListFolder(admin_, project_id_, kPublicObjects, {}).total,
            static_cast<int64_t>(kPublicObjectsFolders.size()));
}

TEST_P(ObjectServiceTest, AUserKeepsPrivateObjectsInHerOwnMyReports) {
  const std::string my_reports =
      objects_->PredefinedFolderId(heidi_, project_id_, model::kFolderTypeMyReports);
  EXPECT_EQ(objects_->PredefinedFolderId(heidi_, project_id_, model::kFolderTypeMyReports),
            my_reports);  // created once
  auto folder = objects_->Get(heidi_, project_id_, my_reports, model::kTypeFolder);
  EXPECT_EQ(folder.record.name, "My Reports");
  EXPECT_EQ(folder.acg, model::kRightsFullControl);  // hers
  ASSERT_GE(folder.ancestors.size(), 2u);
  EXPECT_EQ(folder.ancestors[folder.ancestors.size() - 2].name, "Profiles");

  service::object::NewObject report;
  report.type = model::kTypeReportDefinition;
  report.subtype = model::kSubtypeReportGrid;
  report.name = "My Sales";
  report.description = "first";
  auto saved = objects_->SaveInFolder(heidi_, project_id_, my_reports, report);
  EXPECT_FALSE(saved.replaced);
  EXPECT_EQ(saved.view.record.owner_id, heidi_id_);
  EXPECT_EQ(saved.view.record.folder_id, my_reports);

  report.name = "my sales";
  report.description = "second";
  auto replaced = objects_->SaveInFolder(heidi_, project_id_, my_reports, report);
  EXPECT_TRUE(replaced.replaced);
  EXPECT_EQ(replaced.view.record.id, saved.view.record.id);
  EXPECT_NE(replaced.view.record.version, saved.view.record.version);
  EXPECT_EQ(Stored(saved.view.record.id)->description, "second");
  EXPECT_EQ(objects_->ListFolder(heidi_, project_id_, my_reports, {}).total, 1);

  // Nobody else sees them, but the administrator does.
  Principal ivan = NewNormalUser("ivan");
  EXPECT_EQ(CodeOf([&] {
              objects_->Get(ivan, project_id_, saved.view.record.id, model::kTypeReportDefinition);
            }),
            ErrorCode::kAccessDenied);
  EXPECT_EQ(CodeOf([&] { objects_->ListFolder(ivan, project_id_, my_reports, {}); }),
            ErrorCode::kAccessDenied);
  EXPECT_EQ(objects_->Get(admin_, project_id_, saved.view.record.id, model::kTypeReportDefinition)
                .record.name,
            "My Sales");
  EXPECT_NE(objects_->PredefinedFolderId(ivan, project_id_, model::kFolderTypeMyReports),
            my_reports);
  EXPECT_EQ(CodeOf([&] { objects_->PredefinedFolderId(heidi_, project_id_, 9999); }, "9999"),
            ErrorCode::kNotFound);
}

TEST_P(ObjectServiceTest, DeletingIsRefusedForObjectsInUseAndPredefinedOrNonEmptyFolders) {
  const std::string revenue = TutorialId(model::kTypeMetric, "Revenue");
  auto error =
      ErrorFrom([&] { objects_->Delete(admin_, project_id_, revenue, model::kTypeMetric); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code(), ErrorCode::kInvalidInput);
  EXPECT_NE(error->message().find("'Revenue' is used by"), std::string_view::npos)
      << error->message();
  EXPECT_TRUE(Stored(revenue));

  EXPECT_EQ(
      CodeOf([&] { objects_->Delete(admin_, project_id_, kMetricsFolder, model::kTypeFolder); },
             "predefined"),
      ErrorCode::kInvalidInput);
  auto outer = objects_->CreateFolder(admin_, project_id_, kPublicObjects, "Outer", "");
  objects_->CreateFolder(admin_, project_id_, outer.record.id, "Inner", "");
  EXPECT_EQ(
      CodeOf([&] { objects_->Delete(admin_, project_id_, outer.record.id, model::kTypeFolder); },
             "not empty"),
      ErrorCode::kInvalidInput);
  EXPECT_TRUE(Stored(outer.record.id));

  const std::string dashboard = TutorialId(model::kTypeDocumentDefinition, "Sales Overview");
  EXPECT_EQ(
      CodeOf(
          [&] { objects_->Delete(heidi_, project_id_, dashboard, model::kTypeDocumentDefinition); },
          dashboard),
      ErrorCode::kAccessDenied);
  EXPECT_TRUE(Stored(dashboard));
}

TEST_P(ObjectServiceTest, DeletingAnUnusedObjectRemovesItAndWhatItUsedIsFree) {
  const std::string dashboard = TutorialId(model::kTypeDocumentDefinition, "Sales Overview");
  std::vector<std::string> used;
  store_->Read([&](storage::MetadataTransaction& tx) {
    ASSERT_TRUE(tx.ListUsedBy(project_id_, dashboard).empty());
    used = tx.ListUses(project_id_, dashboard);
  });
  ASSERT_FALSE(used.empty());

  objects_->Delete(admin_, project_id_, dashboard, model::kTypeDocumentDefinition);
  EXPECT_FALSE(Stored(dashboard));
  EXPECT_EQ(CodeOf([&] {
              objects_->Get(admin_, project_id_, dashboard, model::kTypeDocumentDefinition);
            }),
            ErrorCode::kNotFound);
  EXPECT_EQ(CodeOf([&] {
              objects_->Delete(admin_, project_id_, dashboard, model::kTypeDocumentDefinition);
            }),
            ErrorCode::kNotFound);
  store_->Read([&](storage::MetadataTransaction& tx) {
    for (const auto& id : used) {
      auto users = tx.ListUsedBy(project_id_, id);
      EXPECT_EQ(std::find(users.begin(), users.end(), dashboard), users.end()) << id;
    }
  });

  auto empty = objects_->CreateFolder(admin_, project_id_, kPublicObjects, "Scratch", "");
  objects_->Delete(admin_, project_id_, empty.record.id, model::kTypeFolder);
  EXPECT_FALSE(Stored(empty.record.id));
}

INSTANTIATE_TEST_SUITE_P(Backends, ObjectServiceTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
