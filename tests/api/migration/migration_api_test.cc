// Object migrations over HTTP between two real servers (api/migration/migration_api_fixture.h): the
// calls and order of the official Python client, and the refusals of the migration state machine
// (service/migration/migration_state.h), on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <thread>

#include "api/migration/migration_api_fixture.h"

namespace tessera::testing {
namespace {

TEST_P(MigrationApi, AnObjectMigrationRunsInThePythonClientsOrderAndUndoes) {
  model::ObjectRecord revenue = source_->storage.Named(project_, "Revenue");
  revenue.description = "Revenue, restated";
  source_->storage.Save(revenue);
  std::string before = target_->storage.Dump(project_);

  std::string id = CreateAndApprove(ObjectMigrationBody(revenue, "replace"));
  Json approved = source_->Get(id);
  EXPECT_EQ(approved["packageInfo"]["status"], "locked");
  EXPECT_EQ(approved["importInfo"]["importRequestStatus"], "approved");
  for (const char* key : {"name", "creator", "creationDate", "lastUpdatedDate", "type"}) {
    EXPECT_TRUE(approved["packageInfo"].contains(key)) << key;
  }
  EXPECT_FALSE(approved["packageInfo"].contains("tocView"));

  auto put = target_->Send("PUT", "/api/migrations/" + id + "?generateUndo=True", Replicated(id),
                           project_);
  ASSERT_EQ(put.status, 201) << put.body;
  EXPECT_EQ(BodyOf(put)["importInfo"]["status"], "importing");
  Json imported = target_->WaitWhile(id, "importInfo", "importing");
  EXPECT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  EXPECT_TRUE(imported["packageInfo"]["replicated"].get<bool>());
  EXPECT_EQ(imported["importInfo"]["undoStorage"]["path"],
            "mstr/shared/migrations/undo/" + id.substr(0, 32) + "/" + id.substr(33) + ".mmp");
  auto object =
      target_->client->Get("/api/objects/" + revenue.id + "?type=4", target_->Headers(project_));
  EXPECT_EQ(BodyOf(object)["description"], "Revenue, restated");
  // Through the status file, which the target writes once its import has committed.
  Json seen_from_source = source_->WaitWhile(id, "importInfo", "importing");
  EXPECT_EQ(seen_from_source["importInfo"]["status"], "imported") << seen_from_source.dump();
  EXPECT_EQ(seen_from_source["importInfo"]["importRequestStatus"], "approved");

  for (const char* status : {"requested", "approved"}) {
    auto patched = target_->Send("PATCH", "/api/migrations/" + id + "?migrationId=" + id,
                                 {{"importInfo", {{"undoRequestStatus", status}}}}, project_);
    EXPECT_EQ(patched.status, 200) << patched.body;
  }
  Json undone = target_->WaitWhile(id, "importInfo", "undoing");
  EXPECT_EQ(undone["importInfo"]["status"], "undo_success") << undone.dump();
  EXPECT_EQ(source_->WaitWhile(id, "importInfo", "undoing")["importInfo"]["status"],
            "undo_success");
  EXPECT_EQ(target_->storage.Dump(project_), before);
}

TEST_P(MigrationApi, ABuiltPackagesContentListIsReadFromItsFileNotKeptInItsRecord) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  std::string id = CreateAndApprove(ObjectMigrationBody(cost, "replace"));
  ImportOnTarget(id);

  for (ServedEnvironment* side : {source_.get(), target_.get()}) {
    std::optional<storage::MigrationRow> row;
    side->storage.store->Read([&](storage::MetadataTransaction& tx) {
      row = tx.FindMigration(side == source_.get() ? "source" : "target", id, false);
    });
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->record["packageInfo"]["tocView"]["content"], Json::array());
    Json content = side->Get(id, "all")["packageInfo"]["tocView"]["content"];
    ASSERT_EQ(content.size(), 1u) << content.dump();
    EXPECT_EQ(content[0]["id"], cost.id);
    EXPECT_EQ(content[0]["action"], "replace");
    EXPECT_EQ(side->Get(id, "tocview")["packageInfo"]["tocView"]["content"], content);
    auto selected = side->client->Get(
        "/api/migrations/" + id + "?showContent=all&fields=packageInfo", side->Headers());
    EXPECT_EQ(BodyOf(selected)["packageInfo"]["tocView"]["content"], content);  // as a document
    EXPECT_FALSE(side->Get(id)["packageInfo"].contains("tocView"));
  }
}

TEST_P(MigrationApi, ListingShowsTheRecordsOfEachSide) {
  std::string id =
      CreateAndApprove(ObjectMigrationBody(source_->storage.Named(project_, "Cost"), "replace"));

  auto listed = source_->client->Get(
      "/api/migrations?offset=0&limit=100&packageInfo.purpose=object_migration,project_merge",
      source_->Headers());
  ASSERT_EQ(listed.status, 200) << listed.body;
  Json body = BodyOf(listed);
  EXPECT_EQ(body["total"], 1);
  ASSERT_EQ(body["data"].size(), 1u);
  EXPECT_EQ(body["data"][0]["id"], id);
  EXPECT_EQ(body["data"][0]["packageInfo"]["status"], "locked");
  auto merges =
      source_->client->Get("/api/migrations?packageInfo.purpose=project_merge", source_->Headers());
  EXPECT_EQ(BodyOf(merges)["total"], 0);
}

TEST_P(MigrationApi, DeletingOnEachSideAnswers204ThenTheClientsAlreadyDeleted) {
  std::string id =
      CreateAndApprove(ObjectMigrationBody(source_->storage.Named(project_, "Cost"), "replace"));
  std::string package_id = id.substr(0, 32);

  auto first = source_->client->Send("DELETE", "/api/migrations?packageId=" + package_id,
                                     source_->Headers());
  auto again = source_->client->Send("DELETE", "/api/migrations?packageId=" + package_id,
                                     source_->Headers());
  auto missing = source_->client->Send("DELETE", "/api/migrations", source_->Headers());

  EXPECT_EQ(first.status, 204) << first.body;
  ExpectError(again, 404, "ERR006");
  ExpectError(missing, 400, "ERR005");
  ExpectError(source_->client->Get("/api/migrations/" + id, source_->Headers()), 404, "ERR004");
}

TEST_P(MigrationApi, BadRequestsAreRefusedAndChangeNothing) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  Json body = ObjectMigrationBody(cost, "replace");

  ExpectError(source_->Send("POST", "/api/migrations", body), 400, "ERR005");  // no project
  Json configuration = body;
  configuration["packageInfo"]["type"] = "configuration";
  ExpectError(source_->Send("POST", "/api/migrations", configuration, project_), 400, "ERR006");
  Json unknown_rule = body;
  unknown_rule["packageInfo"]["tocView"]["content"][0]["action"] = "merge";
  ExpectError(source_->Send("POST", "/api/migrations", unknown_rule, project_), 400, "ERR006");
  Json duplicated = body;
  duplicated["packageInfo"]["tocView"]["content"].push_back(
      duplicated["packageInfo"]["tocView"]["content"][0]);
  ExpectError(source_->Send("POST", "/api/migrations", duplicated, project_), 400, "ERR006");
  Json not_a_list = body;
  not_a_list["packageInfo"]["tocView"]["content"] = body["packageInfo"]["tocView"]["content"][0];
  ExpectError(source_->Send("POST", "/api/migrations", not_a_list, project_), 400, "ERR006");
  Json empty = body;
  empty["packageInfo"]["tocView"]["content"] = Json::array();
  ExpectError(source_->Send("POST", "/api/migrations", empty, project_), 400, "ERR007");
  ExpectError(source_->client->Get("/api/migrations/NOT-AN-ID", source_->Headers()), 404, "ERR004");

  auto created = source_->Send("POST", "/api/migrations", body, project_);
  std::string id = BodyOf(created).value("id", "");
  source_->WaitWhile(id, "packageInfo", "creating");
  ExpectError(source_->Send("PATCH", "/api/migrations/" + id,
                            {{"importInfo", {{"importRequestStatus", "approved"}}}}),
              400, "ERR006");  // approved before requested
  Json not_approved = source_->Get(id, "all");
  not_approved["packageInfo"]["replicated"] = true;
  ExpectError(target_->Send("PUT", "/api/migrations/" + id, not_approved, project_), 400,
              "ERR006");  // the source has not approved the import

  std::string approved_id = CreateAndApprove(body);
  Json not_replicated = source_->Get(approved_id, "all");
  ExpectError(target_->Send("PUT", "/api/migrations/" + approved_id, not_replicated, project_), 400,
              "ERR006");  // packageInfo.replicated is not true
  Json default_view = source_->Get(approved_id);
  default_view["packageInfo"]["replicated"] = true;
  ExpectError(target_->Send("PUT", "/api/migrations/" + approved_id, default_view, project_), 400,
              "ERR007");  // read without showContent=all
  Json replicated = not_replicated;
  replicated["packageInfo"]["replicated"] = true;
  Json& listed = replicated["packageInfo"]["tocView"]["content"];
  ASSERT_EQ(listed.size(), 1u) << replicated.dump();
  Json twice = replicated;
  twice["packageInfo"]["tocView"]["content"].push_back(listed[0]);
  Json unknown = replicated;
  unknown["packageInfo"]["tocView"]["content"][0]["action"] = "merge";
  Json single = replicated;
  single["packageInfo"]["tocView"]["content"] = listed[0];  // not a list
  for (const Json* bad : {&twice, &unknown, &single}) {
    for (const char* path : {"", "/validation"}) {
      ExpectError(target_->Send("PUT", "/api/migrations/" + approved_id + path, *bad, project_),
                  400, "ERR006");
    }
  }
  auto refused = target_->Send("PUT", "/api/migrations/" + approved_id, twice, project_);
  EXPECT_NE(BodyOf(refused)["message"].get<std::string>().find("listed more than once"),
            std::string::npos)
      << refused.body;
  ExpectError(target_->client->Get("/api/migrations/" + approved_id, target_->Headers()), 404,
              "ERR004");  // nothing was stored on the target
}

// Migration bodies grow with the package's content list: the server spools them to disk and
// parses them from there, under the package limit rather than the in-memory body limit.
TEST_P(MigrationApi, MigrationBodiesAreSpooledUnderThePackageLimitNotTheBodyLimit) {
  source_->Stop();
  source_->config.max_body_bytes = 16 * 1024;
  source_->config.max_request_body_bytes = 16 * 1024;
  source_->Start();
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  Json body = ObjectMigrationBody(cost, "replace");
  body["packageInfo"]["tocView"]["content"][0]["name"] = std::string(64 * 1024, 'x');

  auto created = source_->Send("POST", "/api/migrations", body, project_);
  ASSERT_EQ(created.status, 201) << created.body;
  std::string id = BodyOf(created)["id"];
  Json done = source_->WaitWhile(id, "packageInfo", "creating");
  EXPECT_EQ(done["packageInfo"]["status"], "created") << done.dump();
  Json listed = source_->Get(id, "all")["packageInfo"]["tocView"]["content"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["id"], cost.id);

  auto renamed = source_->Send("PATCH", "/api/migrations/" + id,
                               {{"packageInfo", {{"name", std::string(64 * 1024, 'y')}}}});
  EXPECT_EQ(renamed.status, 413) << renamed.body;  // not a content-list body: held in memory
}

TEST_P(MigrationApi, TheStorageLocationIsReadAndChangedByTheAdministrator) {
  auto read = source_->client->Get("/api/mstrServices/library/storage", source_->Headers());
  ASSERT_EQ(read.status, 200) << read.body;
  Json store = BodyOf(read)["sharedFileStore"];
  EXPECT_EQ(store["type"], "file_system");
  EXPECT_EQ(store["location"], packages_.path().string());
  EXPECT_EQ(store["configured"], true);

  TempDir other;
  Json body = {{"sharedFileStore", {{"type", "file_system"}, {"location", other.path().string()}}}};
  EXPECT_EQ(source_->Send("POST", "/api/mstrServices/library/storage/validation", body).status,
            204);
  EXPECT_EQ(source_->Send("PATCH", "/api/mstrServices/library/storage", body).status, 204);
  EXPECT_EQ(BodyOf(source_->client->Get("/api/mstrServices/library/storage",
                                        source_->Headers()))["sharedFileStore"]["location"],
            other.path().string());
  ExpectError(source_->Send("PATCH", "/api/mstrServices/library/storage",
                            {{"sharedFileStore", {{"type", "S3"}, {"location", "bucket"}}}}),
              400, "ERR006");
}

// The caller is checked before the body, as it was when the service read it.
TEST_P(MigrationApi, TheStorageLocationRefusesANonAdministratorBeforeABadBody) {
  Json malformed = {{"sharedFileStore", {{"type", "S3"}, {"location", "bucket"}}}};
  std::string administrator = source_->token;
  std::string no_admin =
      source_->LoginWithout(model::Privilege::kAdministerEnvironment, "no_administer");
  for (auto [method, path] : {std::pair{"PATCH", "/api/mstrServices/library/storage"},
                              std::pair{"POST", "/api/mstrServices/library/storage/validation"}}) {
    ExpectError(source_->Send(method, path, malformed), 400, "ERR006");
    source_->token = no_admin;
    auto refused = source_->Send(method, path, malformed);
    source_->token = administrator;
    ExpectError(refused, 403, "ERR014");
    EXPECT_EQ(BodyOf(refused)["message"],
              "You do not have Administer environment privilege(s) to perform the task.");
  }
}

TEST_P(MigrationApi, WithoutALocationPackagesCannotBeCreated) {
  target_->Stop();
  target_->config.packages_dir = "none";
  target_->Start();

  auto response = target_->Send(
      "POST", "/api/migrations",
      ObjectMigrationBody(target_->storage.Named(project_, "Cost"), "replace"), project_);

  ExpectError(response, 503, "ERR016");
  EXPECT_EQ(BodyOf(response)["message"],
            "The Storage Service is not configured properly, please contact your administrator "
            "to configure Storage Service");
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrationApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
