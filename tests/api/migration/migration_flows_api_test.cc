// Three migration flows end to end over HTTP between two real servers
// (api/migration/migration_api_fixture.h), in mstrio-py's order: a configuration package (no
// project header anywhere), a project merge, and an import without an undo package -- each checked
// by what the target's users see, and undone back to a target identical to before.
#include <gtest/gtest.h>

#include "api/migration/migration_api_fixture.h"
#include "model/directory.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/directory_service.h"

namespace tessera::testing {
namespace {

class MigrationFlowsApi : public MigrationApi {};

bool CanLogIn(ServedEnvironment& environment, const std::string& username,
              const std::string& password) {
  http::Headers headers;
  headers.Set("Content-Type", "application/x-www-form-urlencoded");
  return environment.client
             ->Send("POST", "/api/auth/login", headers,
                    "username=" + username + "&password=" + password + "&loginMode=1")
             .status == 204;
}

// The settings of a package of users and roles: no schema update, sources' ACLs on new objects.
Json UserLevelSettings(const Json& acl_on_replacing) {
  return {{"updateSchema", nullptr},
          {"aclOnReplacingObjects", acl_on_replacing},
          {"aclOnNewObjects", Json::array({"keep_acl_as_source_object"})},
          {"defaultAction", "replace"}};
}

Json ReplaceItem(const model::ObjectRecord& object, int type, bool include_dependents) {
  return {{"id", object.id},
          {"name", object.name},
          {"type", type},
          {"action", "replace"},
          {"includeDependents", include_dependents}};
}

TEST_P(MigrationFlowsApi, AConfigurationPackageMovesAUserAndARoleWithoutAProjectAndUndoes) {
  model::ObjectRecord role;
  source_->storage.store->Read([&](storage::MetadataTransaction& tx) {
    role = *tx.FindObject("", service::DirectoryService::NormalUserRoleId());
  });
  role.id = NewObjectId();
  role.name = "Analyst Role";
  source_->storage.Save(role);
  service::DirectoryService directory(*source_->storage.store);
  service::NewUser analyst;
  analyst.username = "ana";
  analyst.password = "s3cret";
  analyst.full_name = "Ana Lyst";
  analyst.roles = {{role.id, {"*"}}};
  model::ObjectRecord user =
      directory.CreateUser(directory.LoadPrincipal(kAdministratorId), analyst);
  std::string before = target_->storage.Dump(project_);
  ASSERT_FALSE(CanLogIn(*target_, "ana", "s3cret"));

  Json body = {{"packageInfo",
                {{"type", "configuration"},
                 {"name", "Analyst and role"},
                 {"environment",
                  {{"id", "https://dev.example.com/TesseraLibrary/"},
                   {"name", "https://dev.example.com/TesseraLibrary/"}}},
                 {"tocView",
                  {{"settings", UserLevelSettings("replace")},
                   {"content",
                    {ReplaceItem(user, model::kTypeUser, true),
                     ReplaceItem(role, model::kTypeSecurityRole, false)}}}},
                 {"treeView", Json::object()}}},
               {"importInfo", Json::object()}};
  std::string id = CreateAndApprove(body, /*configuration=*/true);
  Json approved = source_->Get(id, "all");
  EXPECT_EQ(approved["packageInfo"]["type"], "configuration");
  EXPECT_EQ(approved["packageInfo"]["project"], Json::object());
  auto with_project = target_->Send("PUT", "/api/migrations/" + id, Replicated(id), project_);
  ExpectError(with_project, 400, "ERR006");
  EXPECT_EQ(BodyOf(with_project)["message"],
            "A configuration package must not be imported into a project");

  Json imported = ImportOnTarget(id, /*configuration=*/true);
  ASSERT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  EXPECT_TRUE(CanLogIn(*target_, "ana", "s3cret"));
  auto migrated_role = target_->storage.Find("", role.id);
  ASSERT_TRUE(migrated_role.has_value());
  EXPECT_EQ(migrated_role->version, source_->storage.Find("", role.id)->version);

  Json undone = UndoOnTarget(id, /*configuration=*/true);
  EXPECT_EQ(undone["importInfo"]["status"], "undo_success") << undone.dump();
  EXPECT_FALSE(CanLogIn(*target_, "ana", "s3cret"));
  EXPECT_EQ(target_->storage.Dump(project_), before);
}

TEST_P(MigrationFlowsApi, AProjectMergeTakesTheNewerSideOfEachObjectAndUndoes) {
  model::ObjectRecord revenue = source_->storage.Named(project_, "Revenue");
  revenue.description = "Revenue, restated on dev";
  source_->storage.Save(revenue);  // newer on dev
  model::ObjectRecord cost = target_->storage.Named(project_, "Cost");
  cost.description = "Cost, corrected on prod";
  target_->storage.Save(cost);  // newer on prod
  model::ObjectRecord added = source_->storage.Named(project_, "Cost");
  added.id = NewObjectId();
  added.name = "Cost (dev only)";
  source_->storage.Save(added);
  std::string before = target_->storage.Dump(project_);

  std::string id = CreateAndApprove(ProjectMergeBody("use_newer"));
  Json created = source_->Get(id, "all");
  EXPECT_EQ(created["packageInfo"]["purpose"], "project_merge");
  Json listed = BodyOf(source_->client->Get("/api/migrations?packageInfo.purpose=project_merge",
                                            source_->Headers()));
  EXPECT_EQ(listed["total"], 1);

  Json imported = ImportOnTarget(id);
  ASSERT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  EXPECT_EQ(target_->storage.Find(project_, revenue.id)->description, "Revenue, restated on dev");
  EXPECT_EQ(target_->storage.Find(project_, revenue.id)->version,
            source_->storage.Find(project_, revenue.id)->version);
  EXPECT_EQ(target_->storage.Find(project_, cost.id)->description, "Cost, corrected on prod");
  auto copied = target_->storage.Find(project_, added.id);
  ASSERT_TRUE(copied.has_value());
  EXPECT_EQ(copied->name, "Cost (dev only)");
  auto metric =
      target_->client->Get("/api/objects/" + added.id + "?type=4", target_->Headers(project_));
  EXPECT_EQ(metric.status, 200) << metric.body;

  Json undone = UndoOnTarget(id);
  EXPECT_EQ(undone["importInfo"]["status"], "undo_success") << undone.dump();
  EXPECT_EQ(target_->storage.Dump(project_), before);
}

// The PUT body's content list is read item by item, not kept: a keep_both item in it still
// means no undo package.
TEST_P(MigrationFlowsApi, AKeepBothItemInTheImportBodyMeansNoUndoPackage) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  std::string id = CreateAndApprove(ObjectMigrationBody(cost, "keep_both"));

  auto put = target_->Send("PUT", "/api/migrations/" + id + "?generateUndo=true", Replicated(id),
                           project_);
  ASSERT_EQ(put.status, 201) << put.body;
  Json imported = target_->WaitWhile(id, "importInfo", "importing");
  ASSERT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  EXPECT_EQ(target_->Get(id, "all")["importInfo"]["undoStorage"], Json::object());
}

TEST_P(MigrationFlowsApi, AnImportWithoutUndoTakesItsProjectFromTheBodyAndRefusesUndo) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  cost.description = "Cost, restated";
  source_->storage.Save(cost);
  std::string id = CreateAndApprove(ObjectMigrationBody(cost, "replace"));

  auto put = target_->Send("PUT", "/api/migrations/" + id + "?generateUndo=False", Replicated(id));
  ASSERT_EQ(put.status, 201) << put.body;  // no header: importInfo.project.id names the project
  Json imported = target_->WaitWhile(id, "importInfo", "importing");
  ASSERT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  EXPECT_EQ(imported["importInfo"]["project"]["id"], project_);
  EXPECT_EQ(target_->Get(id, "all")["importInfo"]["undoStorage"], Json::object());
  EXPECT_EQ(target_->storage.Find(project_, cost.id)->description, "Cost, restated");

  auto undo = target_->Send("PATCH", "/api/migrations/" + id,
                            {{"importInfo", {{"undoRequestStatus", "requested"}}}}, project_);
  ExpectError(undo, 400, "ERR006");
  EXPECT_EQ(BodyOf(undo)["message"], "No undo package is available for this migration");
  EXPECT_EQ(target_->Get(id)["importInfo"]["status"], "imported");
}

// mstrio-py's trigger_validation: retarget on the source, read it whole, PUT it to the target's
// validation, mark the source validating, then read the source until the target's outcome shows.
TEST_P(MigrationFlowsApi, ValidationDryRunsTheImportOnTheTargetAndTheSourceShowsTheOutcome) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  cost.description = "Cost, restated";
  source_->storage.Save(cost);
  std::string before = target_->storage.Dump(project_);
  auto validate = [&](const Json& body) {
    auto created = source_->Send("POST", "/api/migrations", body, project_);
    EXPECT_EQ(created.status, 201) << created.body;
    std::string id = BodyOf(created).value("id", "");
    Json record = source_->WaitWhile(id, "packageInfo", "creating");
    auto retargeted = source_->Send("PATCH", "/api/migrations/" + id,
                                    {{"id", id},
                                     {"packageInfo", source_->Get(id, "all")["packageInfo"]},
                                     {"importInfo",
                                      {{"id", id.substr(33)},
                                       {"environment",
                                        {{"id", "https://prod.example.com/TesseraLibrary/"},
                                         {"name", "https://prod.example.com/TesseraLibrary/"}}},
                                       {"project", {{"id", project_}, {"name", "Tutorial"}}}}}});
    EXPECT_EQ(retargeted.status, 200) << retargeted.body;
    auto put = target_->Send("PUT", "/api/migrations/" + id + "/validation",
                             source_->Get(id, "all"), project_);
    EXPECT_EQ(put.status, 202) << put.body;
    EXPECT_TRUE(put.body.empty());
    auto marked = source_->Send("PATCH", "/api/migrations/" + id,
                                {{"validation", {{"status", "validating"}}}});
    EXPECT_EQ(marked.status, 200) << marked.body;
    EXPECT_TRUE(BodyOf(marked).contains("validation")) << marked.body;
    return std::make_pair(id, source_->WaitWhile(id, "validation", "validating"));
  };

  auto [valid_id, valid] = validate(ObjectMigrationBody(cost, "replace"));
  EXPECT_EQ(valid["validation"]["status"], "validated") << valid.dump();
  EXPECT_EQ(valid["validation"]["progress"], 100);
  auto [invalid_id, invalid] =
      validate(ObjectMigrationBody(source_->storage.Named(project_, "Revenue"), "delete"));
  EXPECT_EQ(invalid["validation"]["status"], "validation_failed") << invalid.dump();
  EXPECT_NE(invalid["validation"]["message"].get<std::string>().find("Cannot delete 'Revenue'"),
            std::string::npos)
      << invalid.dump();

  EXPECT_EQ(target_->storage.Dump(project_), before);  // a dry run changes nothing
  ExpectError(target_->client->Get("/api/migrations/" + valid_id, target_->Headers()), 404,
              "ERR004");
  // The source's list shows the outcome too, and a validated package is not "in progress".
  Json listed = BodyOf(source_->client->Get("/api/migrations?limit=100", source_->Headers()));
  int shown_validated = 0;
  for (const auto& item : listed["data"]) {
    if (item["id"] == valid_id || item["id"] == invalid_id) {
      EXPECT_NE(item["validation"]["status"], "validating") << item.dump();
      ++shown_validated;
    }
  }
  EXPECT_EQ(shown_validated, 2) << listed.dump();
  const std::string invalid_package = source_->Get(invalid_id)["packageInfo"]["id"];
  EXPECT_EQ(source_->client
                ->Send("DELETE", "/api/migrations?packageId=" + invalid_package, source_->Headers())
                .status,
            204);
  RequestAndApprove(valid_id);
  Json imported = ImportOnTarget(valid_id);
  EXPECT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  EXPECT_EQ(target_->storage.Find(project_, cost.id)->description, "Cost, restated");
  ExpectError(target_->Send("PUT", "/api/migrations/" + valid_id + "/validation",
                            source_->Get(valid_id, "all"), project_),
              400, "ERR006");  // the package is locked now
}

Json ProjectSecurityBody(const model::ObjectRecord& user) {
  return {{"packageInfo",
           {{"type", "project_security"},
            {"name", "Ana's links"},
            {"tocView",
             {{"settings", UserLevelSettings(nullptr)},
              {"content", Json::array({ReplaceItem(user, model::kTypeUser, true)})}}},
            {"treeView", Json::object()}}},
          {"importInfo", Json::object()}};
}

TEST_P(MigrationFlowsApi, AProjectSecurityPackageMovesOnlyAUsersLinksToTheProjectAndUndoes) {
  service::DirectoryService directory(*source_->storage.store);
  std::string role = service::DirectoryService::NormalUserRoleId();
  service::NewUser analyst;
  analyst.username = "ana";
  analyst.password = "s3cret";
  analyst.roles = {{role, {project_}}};
  model::ObjectRecord ana =
      directory.CreateUser(directory.LoadPrincipal(kAdministratorId), analyst);
  model::ObjectRecord on_target = ana;  // the same user, elsewhere without links to the project
  on_target.definition["securityRoles"] = Json::array({{{"roleId", role}, {"projects", {"X"}}}});
  on_target.definition["passwordHash"] = "the target's own";
  target_->storage.Save(on_target);
  auto read_target = [&] {
    model::ObjectRecord record;
    target_->storage.store->Read(
        [&](storage::MetadataTransaction& tx) { record = *tx.FindObject("", ana.id); });
    return record;
  };
  model::ObjectRecord before = read_target();

  std::string id = CreateAndApprove(ProjectSecurityBody(ana));
  Json imported = ImportOnTarget(id);
  ASSERT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  model::ObjectRecord linked = read_target();
  EXPECT_EQ(model::ProjectRoleIds(linked.definition, project_), std::vector<std::string>({role}));
  EXPECT_EQ(model::ProjectRoleIds(linked.definition, "X"), std::vector<std::string>({role}));
  EXPECT_EQ(linked.definition["passwordHash"], "the target's own");
  EXPECT_NE(linked.version, before.version);

  Json undone = UndoOnTarget(id);
  EXPECT_EQ(undone["importInfo"]["status"], "undo_success") << undone.dump();
  model::ObjectRecord restored = read_target();
  EXPECT_EQ(restored.version, before.version);
  EXPECT_EQ(restored.modified, before.modified);
  EXPECT_EQ(restored.definition, before.definition);

  service::NewUser stranger;
  stranger.username = "bob";
  stranger.roles = {{role, {project_}}};
  model::ObjectRecord bob =
      directory.CreateUser(directory.LoadPrincipal(kAdministratorId), stranger);
  std::string refused = CreateAndApprove(ProjectSecurityBody(bob));
  Json failed = ImportOnTarget(refused);
  EXPECT_EQ(failed["importInfo"]["status"], "import_failed") << failed.dump();
  EXPECT_NE(failed["importInfo"]["message"].get<std::string>().find("configuration package first"),
            std::string::npos)
      << failed.dump();
  EXPECT_EQ(read_target().definition, before.definition);
  ExpectError(source_->Send("POST", "/api/migrations", ProjectSecurityBody(ana)), 400, "ERR005");
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrationFlowsApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
