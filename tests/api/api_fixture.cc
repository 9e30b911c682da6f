#include "api/api_fixture.h"

#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "service/project/project_service.h"
#include "storage/metadata_store.h"
#include "support/exchange_recorder.h"

namespace tessera::testing {

ApiClient::ApiClient(uint16_t port) : client_("127.0.0.1", port) {}

http::Response ApiClient::Send(std::string_view method, std::string_view target,
                               const http::Headers& headers, std::string_view body) {
  http::Response response = client_.Send(method, target, headers, body);
  RecordExchange(method, target, headers, body, response);
  return response;
}

http::Response ApiClient::Get(std::string_view target, const http::Headers& headers) {
  return Send("GET", target, headers);
}

http::Response ApiClient::PostJson(std::string_view target, const Json& body,
                                   const http::Headers& headers) {
  http::Headers with_type = headers;
  with_type.Set("Content-Type", "application/json");
  return Send("POST", target, with_type, DumpJson(body));
}

std::string ApiClient::Login(const std::string& username, const std::string& password) {
  http::Headers headers;
  headers.Set("Content-Type", "application/x-www-form-urlencoded");
  auto response =
      Send("POST", "/api/auth/login", headers,
           "loginMode=1&applicationType=76&username=" + username + "&password=" + password);
  EXPECT_EQ(response.status, 204) << response.body;
  auto token = response.headers.Get("X-MSTR-AuthToken");
  return token ? std::string(*token) : "";
}

http::Headers AuthHeaders(const std::string& token, const std::string& project_id) {
  http::Headers headers;
  headers.Set("X-MSTR-AuthToken", token);
  if (!project_id.empty()) headers.Set("X-MSTR-ProjectID", project_id);
  return headers;
}

Json BodyOf(const http::Response& response) {
  if (response.body.empty()) return Json();
  return Json::parse(response.body);
}

void ExpectError(const http::Response& response, int status, const std::string& code) {
  EXPECT_EQ(response.status, status) << response.body;
  auto type = response.headers.Get("Content-Type");
  ASSERT_TRUE(type.has_value());
  EXPECT_NE(type->find("application/json"), std::string_view::npos);
  Json body = BodyOf(response);
  EXPECT_EQ(body.value("code", ""), code) << response.body;
  EXPECT_FALSE(body.value("message", "").empty());
  EXPECT_EQ(body.value("ticketId", "").size(), 32u);
}

void ExpectError(const http::Response& response, int status, const std::string& code,
                 const std::string& message) {
  ExpectError(response, status, code);
  EXPECT_EQ(BodyOf(response).value("message", ""), message);
}

void ApiTest::SetUp() {
  if (!IsBackendConfigured(GetParam())) {
    GTEST_SKIP() << "TESSERA_TEST_PG is not set (scripts/with-test-postgres.sh sets it)";
  }
  database_ = std::make_unique<TestDatabase>(GetParam());
  data_dir_ = std::make_unique<TempDir>();
  config_.listen = "127.0.0.1:0";
  config_.data_dir = data_dir_->path().string();
  config_.storage_url = database_->url();
  config_.access_log = false;
  config_.compute_threads = 4;
  config_.log_level = "warn";
  config_.demo_on_first_start = false;
  Configure(config_);
  StartNode();
}

void ApiTest::StartNode() {
  client_.reset();
  node_ = std::make_unique<app::Node>(config_);
  node_->Start();
  client_ = std::make_unique<ApiClient>(node_->port());
}

void ApiTest::StopNode() {
  client_.reset();
  if (node_) node_->Stop();
  node_.reset();
}

void ApiTest::TearDown() { StopNode(); }

std::string ApiTest::CreateProject(const std::string& name, const std::string& description) {
  storage::StoreOptions options;
  options.url = database_->url();
  auto store = storage::MetadataStore::Open(options);
  service::DirectoryService directory(*store);
  auto administrator = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
  service::project::ProjectService projects(*store);
  return projects.Create(administrator, name, description).project.object.id;
}

std::string ApiTest::ImportBundle(const std::string& directory_path, const std::string& warehouse) {
  storage::StoreOptions options;
  options.url = database_->url();
  auto store = storage::MetadataStore::Open(options);
  service::DirectoryService directory(*store);
  auto administrator = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
  return service::bundle::BundleService(*store)
      .Import(administrator, directory_path, warehouse)
      .project_id;
}

void ApiTest::PutObjects(const std::vector<model::ObjectRecord>& objects) {
  storage::StoreOptions options;
  options.url = database_->url();
  auto store = storage::MetadataStore::Open(options);
  store->Write([&](storage::MetadataTransaction& tx) {
    for (const auto& object : objects) tx.PutObject(object);
  });
}

std::string ApiTest::CreateUser(const std::string& username, const std::string& password,
                                const Json& extra) {
  std::string admin = client().Login();
  Json body = {{"username", username}, {"fullName", username + " Tester"}, {"password", password}};
  for (auto& [key, value] : extra.items()) body[key] = value;
  auto response = client().PostJson("/api/users", body, AuthHeaders(admin));
  EXPECT_EQ(response.status, 201) << response.body;
  return BodyOf(response).value("id", "");
}

}  // namespace tessera::testing
