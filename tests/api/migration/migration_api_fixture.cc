#include "api/migration/migration_api_fixture.h"

#include <cstdlib>

#include "model/directory.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "support/wait.h"

namespace tessera::testing {

using namespace std::chrono_literals;

namespace {

// An environment as mstrio-py names it: its base URL as both id and name.
Json EnvironmentRef(const std::string& name) {
  std::string url = "https://" + name + ".example.com/TesseraLibrary/";
  return {{"id", url}, {"name", url}};
}

}  // namespace

ServedEnvironment::ServedEnvironment(StoreBackend backend, const std::string& name,
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

ServedEnvironment::~ServedEnvironment() { Stop(); }

void ServedEnvironment::Start() {
  node = std::make_unique<app::Node>(config);
  node->Start();
  client = std::make_unique<ApiClient>(node->port());
  token = client->Login();
}

void ServedEnvironment::Stop() {
  if (node) {
    node->Stop();
    node.reset();
  }
  process.reset();  // stops it
}

NodeSettings ServedEnvironment::ProcessSettings(const std::vector<std::string>& environment) const {
  NodeSettings settings;
  settings.storage_url = config.storage_url;
  settings.data_dir = config.data_dir;
  settings.packages_dir = config.packages_dir;
  settings.public_url = config.public_url;
  settings.environment = environment;
  return settings;
}

void ServedEnvironment::StartProcess(const std::vector<std::string>& environment) {
  process = std::make_unique<NodeProcess>(ProcessSettings(environment));
  process->Start();
  if (::testing::Test::HasFatalFailure()) return;
  client = std::make_unique<ApiClient>(process->port());
  token = process->token();
}

void ServedEnvironment::KillProcess() {
  ASSERT_TRUE(process) << "no process to kill";
  process->Kill();
  process.reset();
}

http::Headers ServedEnvironment::Headers(const std::string& project_id) const {
  return AuthHeaders(token, project_id);
}

http::Response ServedEnvironment::Send(std::string_view method, const std::string& target,
                                       const Json& body, const std::string& project_id) {
  http::Headers headers = Headers(project_id);
  headers.Set("Content-Type", "application/json");
  headers.Set("Prefer", "respond-async");
  return client->Send(method, target, headers, body.dump());
}

Json ServedEnvironment::Get(const std::string& migration_id, const std::string& show) {
  auto response =
      client->Get("/api/migrations/" + migration_id + "?showContent=" + show, Headers());
  EXPECT_EQ(response.status, 200) << response.body;
  return BodyOf(response);
}

Json ServedEnvironment::WaitWhile(const std::string& migration_id, const std::string& part,
                                  const std::string& busy) {
  Json record;
  EXPECT_TRUE(WaitUntil(
      [&] {
        record = Get(migration_id);
        return record[part]["status"] != busy;
      },
      30s, part + ".status of migration " + migration_id + " left \"" + busy + "\"", 50ms));
  return record;
}

std::string ServedEnvironment::LoginWithout(model::Privilege missing, const std::string& username) {
  service::DirectoryService directory(*storage.store);
  model::ObjectRecord role;
  storage.store->Read([&](storage::MetadataTransaction& tx) {
    role = *tx.FindObject("", service::DirectoryService::SystemAdministratorRoleId());
  });
  model::SecurityRoleDefinition definition;
  for (const auto& info : model::PrivilegeCatalog()) {
    if (info.privilege != missing)
      definition.privileges.push_back(static_cast<int>(info.privilege));
  }
  role.id = NewObjectId();
  role.name = "All but " + std::string(model::FindPrivilege(static_cast<int>(missing))->name);
  role.definition = model::ToJson(definition);
  storage.Save(role);
  service::NewUser user;
  user.username = username;
  user.password = "pw";
  user.full_name = username;
  user.roles = {{role.id, {"*"}}};
  directory.CreateUser(directory.LoadPrincipal(kAdministratorId), user);
  return client->Login(username, "pw");
}

void MigrationApi::SetUp() {
  if (!IsBackendConfigured(GetParam()))
    GTEST_SKIP() << "TESSERA_TEST_PG is not set (scripts/with-test-postgres.sh sets it)";
  source_ = std::make_unique<ServedEnvironment>(GetParam(), "dev", packages_.path());
  target_ = std::make_unique<ServedEnvironment>(GetParam(), "prod", packages_.path());
  service::DirectoryService directory(*source_->storage.store);
  directory.Bootstrap(std::nullopt);
  project_ = service::bundle::BundleService(*source_->storage.store)
                 .Import(directory.LoadPrincipal(kAdministratorId), kMigrationDemoBundle)
                 .project_id;
  CloneProject(source_->storage, target_->storage, project_);
  source_->Start();
  target_->Start();
}

void MigrationApi::TearDown() {
  if (target_) target_->Stop();
  if (source_) source_->Stop();
}

Json MigrationApi::ObjectMigrationBody(const model::ObjectRecord& object,
                                       const std::string& action) const {
  return {{"packageInfo",
           {{"name", "Revenue to prod"},
            {"environment", EnvironmentRef("dev")},
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

Json MigrationApi::ProjectMergeBody(const std::string& default_action) const {
  return {{"packageInfo",
           {{"name", "Merge Tutorial dev into prod"},
            {"environment", EnvironmentRef("dev")},
            {"tocView",
             {{"settings",
               {{"updateSchema", Json::array()},
                {"aclOnReplacingObjects", "replace"},
                {"aclOnNewObjects", Json::array({"keep_acl_as_source_object"})},
                {"validateDependencies", true},
                {"defaultAction", default_action},
                {"translationAction", "use_existing"}}}}},
            {"treeView", Json::object()},
            {"type", "project"},
            {"purpose", "project_merge"}}},
          {"importInfo", Json::object()}};
}

std::string MigrationApi::CreateAndApprove(const Json& body, bool configuration) {
  auto created = source_->Send("POST", "/api/migrations", body, configuration ? "" : project_);
  EXPECT_EQ(created.status, 201) << created.body;
  std::string id = BodyOf(created).value("id", "");
  Json record = source_->WaitWhile(id, "packageInfo", "creating");
  EXPECT_EQ(record["packageInfo"]["status"], "created") << record.dump();
  RequestAndApprove(id, configuration);
  return id;
}

void MigrationApi::RequestAndApprove(const std::string& id, bool configuration) {
  Json import_info = {{"environment", EnvironmentRef("prod")}};
  if (!configuration) import_info["project"] = {{"id", project_}, {"name", "Tutorial"}};
  for (const char* status : {"requested", "approved"}) {
    import_info["importRequestStatus"] = status;
    auto patched = source_->Send("PATCH", "/api/migrations/" + id + "?migrationId=" + id,
                                 {{"importInfo", import_info}});
    EXPECT_EQ(patched.status, 200) << patched.body;
  }
}

Json MigrationApi::Replicated(const std::string& id) {
  Json body = source_->Get(id, "all");
  body["packageInfo"]["replicated"] = true;
  return body;
}

Json MigrationApi::ImportOnTarget(const std::string& id, bool configuration,
                                  const std::string& query) {
  auto put = target_->Send("PUT", "/api/migrations/" + id + query, Replicated(id),
                           configuration ? "" : project_);
  EXPECT_EQ(put.status, 201) << put.body;
  return target_->WaitWhile(id, "importInfo", "importing");
}

Json MigrationApi::UndoOnTarget(const std::string& id, bool configuration) {
  for (const char* status : {"requested", "approved"}) {
    auto patched = target_->Send("PATCH", "/api/migrations/" + id + "?migrationId=" + id,
                                 {{"importInfo", {{"undoRequestStatus", status}}}},
                                 configuration ? "" : project_);
    EXPECT_EQ(patched.status, 200) << patched.body;
  }
  return target_->WaitWhile(id, "importInfo", "undoing");
}

}  // namespace tessera::testing
