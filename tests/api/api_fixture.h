// tests/api/api_fixture.h
//
// A real Tessera node started in-process on an ephemeral loopback port, over a fresh storage
// database of the test's backend, spoken to over real HTTP. Tests parameterised over
// StoreBackend run on SQLite and, when TESSERA_TEST_PG is set, on PostgreSQL.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "app/config.h"
#include "app/node.h"
#include "core/json.h"
#include "http/client.h"
#include "model/object.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"
#include "support/test_databases.h"

namespace tessera::testing {

// Well-known system ids, written out literally rather than read from model/well_known.h.
inline constexpr const char* kRootFolderId = "D43364C684E34A5F9B2F9AD7108F7828";
inline constexpr const char* kPublicObjectsFolderId = "98FE182C2A10427EACE0CD30B6768258";
inline constexpr const char* kReportsFolderId = "D3C7D461F69C4610AA6BAA5EF51F4125";
inline constexpr const char* kEveryoneGroupId = "C82C6B1011D2894CC0009D9F29718E4F";
inline constexpr const char* kAdministratorId = "54F3D26011D2896560009A8E67019608";

// A client bound to one node, with helpers for the calls every test makes.
class ApiClient {
 public:
  explicit ApiClient(uint16_t port);

  http::Response Send(std::string_view method, std::string_view target,
                      const http::Headers& headers = {}, std::string_view body = {});
  http::Response Get(std::string_view target, const http::Headers& headers = {});
  http::Response PostJson(std::string_view target, const Json& body,
                          const http::Headers& headers = {});

  // Logs in with form-encoded standard credentials; fails the test unless it answers 204.
  std::string Login(const std::string& username = "administrator",
                    const std::string& password = "");

 private:
  http::Client client_;
};

http::Headers AuthHeaders(const std::string& token, const std::string& project_id = "");
Json BodyOf(const http::Response& response);

// Asserts an error answer: `status`, and a JSON body with "code" `code`, a non-empty "message"
// and a 32-character "ticketId".
void ExpectError(const http::Response& response, int status, const std::string& code);
// The same, and that the message is exactly `message`.
void ExpectError(const http::Response& response, int status, const std::string& code,
                 const std::string& message);

class ApiTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Override to change the node's configuration before it starts.
  virtual void Configure(app::Config& config) {}

  void StartNode();
  void StopNode();
  uint16_t port() const { return node_->port(); }
  ApiClient& client() { return *client_; }
  TestDatabase& database() { return *database_; }
  const app::Config& config() const { return config_; }

  // Creates a project through the service layer, as `tessera project create` does.
  std::string CreateProject(const std::string& name, const std::string& description = "");
  // Imports a bundle as `tessera project import` does, its warehouse named `warehouse` ("" = the
  // bundle's own); returns the project id.
  std::string ImportBundle(const std::string& directory_path, const std::string& warehouse = "");
  // Writes objects straight into the storage service, for content no endpoint creates yet.
  void PutObjects(const std::vector<model::ObjectRecord>& objects);
  // Creates a user through POST /api/users as the administrator; returns its id.
  std::string CreateUser(const std::string& username, const std::string& password,
                         const Json& extra = Json::object());

 private:
  std::unique_ptr<TestDatabase> database_;
  std::unique_ptr<TempDir> data_dir_;
  app::Config config_;
  std::unique_ptr<app::Node> node_;
  std::unique_ptr<ApiClient> client_;
};

}  // namespace tessera::testing
