// Migrations over HTTP between two real nodes -- a source and a target, each with its own storage
// service, one shared package location -- made from the demo bundle (the target a clone of the
// source) and then diverged: the calls and order of the official Python client (spec 04 §7),
// and the refusals of spec 04 §2.3, on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <thread>

#include "api/api_fixture.h"
#include "app/node.h"
#include "service/bundle_service.h"
#include "service/directory_service.h"
#include "service/migration_environments.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;

const std::string kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

// One environment served by a node.
struct ServedEnvironment {
  ServedEnvironment(StoreBackend backend, const std::string& name,
                    const std::filesystem::path& packages)
      : storage(backend) {
    config.listen = "127.0.0.1:0";
    config.data_dir = data_dir.path().string();
    config.storage_url = storage.database.url();
    config.access_log = false;
    config.log_level = "warn";
    config.demo_on_first_start = false;
    config.packages_dir = packages.string();
    config.public_url = "https://" + name + ".example.com/TesseraLibrary/";
  }

  void Start() {
    node = std::make_unique<app::Node>(config);
    node->Start();
    client = std::make_unique<ApiClient>(node->port());
    token = client->Login();
  }

  http::Headers Headers(const std::string& project_id = "") {
    return AuthHeaders(token, project_id);
  }

  http::Response Send(std::string_view method, const std::string& target, const Json& body,
                      const std::string& project_id = "") {
    http::Headers headers = Headers(project_id);
    headers.Set("Content-Type", "application/json");
    headers.Set("Prefer", "respond-async");
    return client->Send(method, target, headers, body.dump());
  }

  Json Get(const std::string& migration_id, const std::string& show = "default") {
    auto response =
        client->Get("/api/migrations/" + migration_id + "?showContent=" + show, Headers());
    EXPECT_EQ(response.status, 200) << response.body;
    return BodyOf(response);
  }

  // Polls GET until `field` of `part` leaves `busy` (or 20 s pass).
  Json WaitWhile(const std::string& migration_id, const std::string& part,
                 const std::string& busy) {
    Json record = Get(migration_id);
    for (int i = 0; i < 400 && record[part]["status"] == busy; ++i) {
      std::this_thread::sleep_for(50ms);
      record = Get(migration_id);
    }
    return record;
  }

  Environment storage;
  TempDir data_dir;
  app::Config config;
  std::unique_ptr<app::Node> node;
  std::unique_ptr<ApiClient> client;
  std::string token;
};

class MigrationApi : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    if (!IsBackendConfigured(GetParam())) GTEST_SKIP() << "TESSERA_TEST_PG is not set";
    source_ = std::make_unique<ServedEnvironment>(GetParam(), "dev", packages_.path());
    target_ = std::make_unique<ServedEnvironment>(GetParam(), "prod", packages_.path());
    service::DirectoryService directory(*source_->storage.store);
    directory.Bootstrap(std::nullopt);
    project_ = service::BundleService(*source_->storage.store)
                   .Import(directory.LoadPrincipal(kAdministratorId), kDemoBundle)
                   .project_id;
    CloneProject(source_->storage, target_->storage, project_);
    source_->Start();
    target_->Start();
  }

  void TearDown() override {
    if (target_ && target_->node) target_->node->Stop();
    if (source_ && source_->node) source_->node->Stop();
  }

  // The body mstrio-py's create_object_migration sends.
  Json ObjectMigrationBody(const model::ObjectRecord& object, const std::string& action) {
    return {{"packageInfo",
             {{"name", "Revenue to prod"},
              {"environment",
               {{"id", "https://dev.example.com/TesseraLibrary/"},
                {"name", "https://dev.example.com/TesseraLibrary/"}}},
              {"tocView",
               {{"settings",
                 {{"updateSchema", Json::array()},
                  {"aclOnReplacingObjects", "use_existing"},
                  {"aclOnNewObjects", Json::array({"keep_acl_as_source_object"})},
                  {"defaultAction", "use_existing"}}},
                {"content",
                 {{{"id", object.id},
                   {"name", object.name},
                   {"type", object.type},
                   {"action", action},
                   {"includeDependents", false}}}}}},
              {"treeView", Json::object()},
              {"type", "project"}}},
            {"importInfo", Json::object()}};
  }

  // Create, wait for `created`, request and approve on the source, as mstrio-py's migrate does.
  std::string CreateAndApprove(const Json& body) {
    auto created = source_->Send("POST", "/api/migrations", body, project_);
    EXPECT_EQ(created.status, 201) << created.body;
    std::string id = BodyOf(created).value("id", "");
    Json record = source_->WaitWhile(id, "packageInfo", "creating");
    EXPECT_EQ(record["packageInfo"]["status"], "created") << record.dump();
    for (const char* status : {"requested", "approved"}) {
      auto patched = source_->Send("PATCH", "/api/migrations/" + id + "?migrationId=" + id,
                                   {{"importInfo",
                                     {{"environment",
                                       {{"id", "https://prod.example.com/TesseraLibrary/"},
                                        {"name", "https://prod.example.com/TesseraLibrary/"}}},
                                      {"importRequestStatus", status},
                                      {"project", {{"id", project_}, {"name", "Tutorial"}}}}}});
      EXPECT_EQ(patched.status, 200) << patched.body;
    }
    return id;
  }

  Json Replicated(const std::string& id) {
    Json body = source_->Get(id, "all");
    body["packageInfo"]["replicated"] = true;
    return body;
  }

  TempDir packages_;
  std::unique_ptr<ServedEnvironment> source_;
  std::unique_ptr<ServedEnvironment> target_;
  std::string project_;
};

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

  for (const char* status : {"requested", "approved"}) {
    auto patched = target_->Send("PATCH", "/api/migrations/" + id + "?migrationId=" + id,
                                 {{"importInfo", {{"undoRequestStatus", status}}}}, project_);
    EXPECT_EQ(patched.status, 200) << patched.body;
  }
  Json undone = target_->WaitWhile(id, "importInfo", "undoing");
  EXPECT_EQ(undone["importInfo"]["status"], "undo_success") << undone.dump();
  EXPECT_EQ(target_->storage.Dump(project_), before);
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
  ExpectError(source_->client->Get("/api/migrations/NOT-AN-ID", source_->Headers()), 404, "ERR004");

  auto created = source_->Send("POST", "/api/migrations", body, project_);
  std::string id = BodyOf(created).value("id", "");
  source_->WaitWhile(id, "packageInfo", "creating");
  ExpectError(source_->Send("PATCH", "/api/migrations/" + id,
                            {{"importInfo", {{"importRequestStatus", "approved"}}}}),
              400, "ERR006");  // before requested (row 13)
  Json not_approved = source_->Get(id, "all");
  not_approved["packageInfo"]["replicated"] = true;
  ExpectError(target_->Send("PUT", "/api/migrations/" + id, not_approved, project_), 400,
              "ERR006");  // row 19

  std::string approved_id = CreateAndApprove(body);
  Json not_replicated = source_->Get(approved_id, "all");
  ExpectError(target_->Send("PUT", "/api/migrations/" + approved_id, not_replicated, project_), 400,
              "ERR006");  // row 17
  Json default_view = source_->Get(approved_id);
  default_view["packageInfo"]["replicated"] = true;
  ExpectError(target_->Send("PUT", "/api/migrations/" + approved_id, default_view, project_), 400,
              "ERR007");  // read without showContent=all
  ExpectError(target_->client->Get("/api/migrations/" + approved_id, target_->Headers()), 404,
              "ERR004");  // nothing was stored on the target
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

TEST_P(MigrationApi, WithoutALocationPackagesCannotBeCreated) {
  target_->node->Stop();
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
