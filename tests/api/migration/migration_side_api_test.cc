// Operations on a migration besides its import, over HTTP between two real servers
// (api/migration/migration_api_fixture.h): editing a created package, which rebuilds it under the
// same ids, and certifying it on the source, then synchronising the certification on the target.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "api/migration/migration_api_fixture.h"

namespace tessera::testing {
namespace {

std::string ReadText(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteText(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

class MigrationSideApi : public MigrationApi {
 protected:
  // Creates with `body` and waits for the package to be built; returns the migration id.
  std::string Create(const Json& body) {
    auto created = source_->Send("POST", "/api/migrations", body, project_);
    EXPECT_EQ(created.status, 201) << created.body;
    std::string id = BodyOf(created).value("id", "");
    Json record = source_->WaitWhile(id, "packageInfo", "creating");
    EXPECT_EQ(record["packageInfo"]["status"], "created") << record.dump();
    return id;
  }

  http::Response Edit(const std::string& id, const Json& body) {
    return source_->Send("PUT", "/api/migrations/" + id + "/packageInfo", body, project_);
  }

  http::Response Certify(ServedEnvironment& side, const std::string& id, const Json& body,
                         const std::string& query = "") {
    return side.Send("PATCH", "/api/migrations/" + id + "/packageInfo/certification" + query, body);
  }
};

TEST_P(MigrationSideApi, AnEditedPackageIsRebuiltUnderItsIdsAndImportsTheNewContent) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  model::ObjectRecord revenue = source_->storage.Named(project_, "Revenue");
  revenue.description = "Revenue, restated";
  source_->storage.Save(revenue);
  std::string id = Create(ObjectMigrationBody(cost, "replace"));
  std::string old_path = source_->Get(id, "all")["packageInfo"]["storage"]["path"];

  Json edited = ObjectMigrationBody(revenue, "replace")["packageInfo"];
  edited["name"] = "Revenue instead";
  auto response = Edit(id, edited);
  ASSERT_EQ(response.status, 202) << response.body;
  EXPECT_EQ(BodyOf(response),
            Json({{"id", id.substr(0, 32)}, {"status", "creating"}, {"progress", 0}}));
  Json rebuilt = source_->WaitWhile(id, "packageInfo", "creating");
  ASSERT_EQ(rebuilt["packageInfo"]["status"], "created") << rebuilt.dump();
  Json all = source_->Get(id, "all");
  EXPECT_EQ(all["id"], id);
  EXPECT_EQ(all["packageInfo"]["name"], "Revenue instead");
  ASSERT_EQ(all["packageInfo"]["tocView"]["content"].size(), 1u);
  EXPECT_EQ(all["packageInfo"]["tocView"]["content"][0]["id"], revenue.id);
  std::string new_path = all["packageInfo"]["storage"]["path"];
  EXPECT_NE(new_path, old_path);
  EXPECT_FALSE(std::filesystem::exists(packages_.path() / old_path));
  EXPECT_TRUE(std::filesystem::exists(packages_.path() / new_path));

  RequestAndApprove(id);
  Json imported = ImportOnTarget(id);
  EXPECT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  auto object =
      target_->client->Get("/api/objects/" + revenue.id + "?type=4", target_->Headers(project_));
  EXPECT_EQ(BodyOf(object)["description"], "Revenue, restated");
}

TEST_P(MigrationSideApi, EditingAPackageKeepsTheFileAReuseOfItStillNeeds) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  std::string id = Create(ObjectMigrationBody(cost, "replace"));
  std::string path = source_->Get(id, "all")["packageInfo"]["storage"]["path"];
  auto reused = source_->Send("POST", "/api/migrations?packageId=" + id.substr(0, 32),
                              {{"importInfo", Json::object()}});
  ASSERT_EQ(reused.status, 201) << reused.body;
  std::string reuse_id = BodyOf(reused)["id"];

  Json edited = ObjectMigrationBody(source_->storage.Named(project_, "Revenue"), "replace");
  ASSERT_EQ(Edit(id, edited).status, 202);
  source_->WaitWhile(id, "packageInfo", "creating");

  EXPECT_TRUE(std::filesystem::exists(packages_.path() / path));
  Json reuse = source_->Get(reuse_id, "all");
  EXPECT_EQ(reuse["packageInfo"]["storage"]["path"], path);
  ASSERT_EQ(reuse["packageInfo"]["tocView"]["content"].size(), 1u) << reuse.dump();
  EXPECT_EQ(reuse["packageInfo"]["tocView"]["content"][0]["id"], cost.id);
}

TEST_P(MigrationSideApi, EditsThatCannotApplyAreRefusedAndChangeNothing) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  std::string id = Create(ObjectMigrationBody(cost, "replace"));
  Json before = source_->Get(id, "all");
  Json body = ObjectMigrationBody(cost, "use_existing")["packageInfo"];

  Json configuration = body;
  configuration["type"] = "configuration";
  ExpectError(Edit(id, configuration), 400, "ERR006");
  Json unknown_rule = body;
  unknown_rule["tocView"]["content"][0]["action"] = "overwrite";
  ExpectError(Edit(id, unknown_rule), 400, "ERR006");
  ExpectError(Edit(NewObjectId() + ":" + NewObjectId(), body), 404, "ERR004");
  EXPECT_EQ(source_->Get(id, "all"), before);

  RequestAndApprove(id);
  Json approved = source_->Get(id, "all");
  ExpectError(Edit(id, body), 400, "ERR006");  // the import is approved
  EXPECT_EQ(source_->Get(id, "all"), approved);
  ImportOnTarget(id);
  ExpectError(target_->Send("PUT", "/api/migrations/" + id + "/packageInfo", body, project_), 400,
              "ERR006");  // only on the source
}

TEST_P(MigrationSideApi, ACertificationSetOnTheSourceIsSynchronisedOnTheTarget) {
  std::string id = Create(ObjectMigrationBody(source_->storage.Named(project_, "Cost"), "replace"));
  Json by_client = {
      {"status", "certified"},
      {"operator",
       {{"id", kAdministratorId}, {"name", "administrator"}, {"fullName", "Administrator"}}},
      {"lastUpdatedDate", "2026-11-20T10:00:00.000+0000"}};
  ExpectError(Certify(*source_, id, {{"status", "approved"}}), 400, "ERR006");
  EXPECT_FALSE(source_->Get(id)["packageInfo"].contains("certification"));

  auto docs =
      Certify(*source_, id, {{"packageInfo", {{"certification", {{"status", "requested"}}}}}});
  ASSERT_EQ(docs.status, 204) << docs.body;
  EXPECT_EQ(source_->Get(id)["packageInfo"]["certification"]["status"], "requested");
  auto certified = Certify(*source_, id, by_client);
  ASSERT_EQ(certified.status, 204) << certified.body;
  Json shown = source_->Get(id)["packageInfo"]["certification"];
  EXPECT_EQ(shown["status"], "certified");
  EXPECT_EQ(shown["operator"], by_client["operator"]);
  EXPECT_EQ(shown["lastUpdatedDate"], by_client["lastUpdatedDate"]);

  RequestAndApprove(id);
  ExpectError(Certify(*source_, id, by_client), 400, "ERR006");  // locked now
  ImportOnTarget(id);
  auto unchanged = Certify(*target_, id, Json::object(), "?autoSync=true");
  ASSERT_EQ(unchanged.status, 204) << unchanged.body;
  EXPECT_EQ(target_->Get(id)["packageInfo"]["certification"], shown);

  // Another environment rejects it later and writes so to the shared status file.
  std::filesystem::path status_file = packages_.path() / "mstr/shared/migrations/status" /
                                      id.substr(0, 32) / (id.substr(33) + ".json");
  Json status = ParseJson(ReadText(status_file));
  Json rejected = by_client;
  rejected["status"] = "rejected";
  rejected["lastUpdatedDate"] = "2026-11-21T10:00:00.000+0000";
  status["certification"] = rejected;
  WriteText(status_file, DumpJson(status));
  for (ServedEnvironment* side : {target_.get(), source_.get()}) {
    auto synced = Certify(*side, id, Json::object(), "?autoSync=true");
    ASSERT_EQ(synced.status, 204) << synced.body;
    EXPECT_EQ(side->Get(id)["packageInfo"]["certification"], rejected);
  }
}

// The migration and the caller are checked before the body, as they were when the service read it.
TEST_P(MigrationSideApi, ACertificationOfAnUnknownMigrationOrByAnUnprivilegedCallerIsNotA400) {
  std::string id = Create(ObjectMigrationBody(source_->storage.Named(project_, "Cost"), "replace"));
  Json malformed = {{"status", "approved"}};
  ExpectError(Certify(*source_, id, malformed), 400, "ERR006");

  ExpectError(Certify(*source_, NewObjectId() + ":" + NewObjectId(), malformed), 404, "ERR004");
  std::string administrator = source_->token;
  source_->token = source_->LoginWithout(model::Privilege::kCreatePackage, "no_create");
  auto refused = Certify(*source_, id, malformed);
  source_->token = administrator;
  ExpectError(refused, 403, "ERR014");
  EXPECT_EQ(BodyOf(refused)["message"],
            "You do not have Create package privilege(s) to perform the task.");
  EXPECT_FALSE(source_->Get(id)["packageInfo"].contains("certification"));
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrationSideApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
