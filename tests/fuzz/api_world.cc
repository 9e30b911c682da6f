#include "fuzz/api_world.h"

#include <stdexcept>

#include "api/api.h"
#include "core/json.h"
#include "fuzz/fuzz_support.h"
#include "model/bundle/bundle.h"
#include "model/well_known.h"

namespace tessera::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUser = "fuzzer";
constexpr const char* kUserPassword = "fuzz-pass-1";
constexpr const char* kFormType = "application/x-www-form-urlencoded";
constexpr const char* kJsonType = "application/json";

[[noreturn]] void Broken(const std::string& what, const http::Response& response) {
  throw std::runtime_error("the API harness cannot set up its world: " + what + " answered " +
                           std::to_string(response.status) + " " + response.body);
}

// Every object of the demo bundle by name (the first of a name wins), and the project.
Names DemoNames() {
  const model::bundle::Bundle bundle =
      model::bundle::ReadBundle(TESSERA_SOURCE_DIR "/demo/tutorial");
  Names names;
  for (const auto& object : bundle.objects) names.emplace(object.record.name, object.record.id);
  names["project"] = bundle.project_id;
  names["admin_id"] = std::string(model::kAdministratorUserId);
  return names;
}

// A pushed dataset of one table, as the Python client describes it.
Json PushedModel() {
  Json expression = {{"tableName", "sales"}, {"columnName", "store"}};
  return {{"name", "Fuzz sales"},
          {"tables",
           {{{"name", "sales"},
             {"columnHeaders",
              {{{"name", "store"}, {"dataType", "STRING"}},
               {{"name", "amount"}, {"dataType", "DOUBLE"}}}}}}},
          {"attributes",
           {{{"name", "store"},
             {"attributeForms", {{{"category", "ID"}, {"expressions", {expression}}}}}}}},
          {"metrics",
           {{{"name", "amount"},
             {"expressions", {{{"tableName", "sales"}, {"columnName", "amount"}}}}}}}};
}

// A package of one object, as mstrio-py asks for it.
Json MigrationOf(const std::string& object_id) {
  Json environment = {{"id", "https://dev.example.com/"}, {"name", "https://dev.example.com/"}};
  return {{"packageInfo",
           {{"name", "Fuzz package"},
            {"environment", environment},
            {"tocView",
             {{"settings", {{"defaultAction", "use_existing"}}},
              {"content",
               {{{"id", object_id},
                 {"type", 4},
                 {"action", "replace"},
                 {"includeDependents", false}}}}}},
            {"type", "project"}}},
          {"importInfo", Json::object()}};
}

}  // namespace

ApiWorld::ApiWorld(fs::path directory)
    : template_dir_(directory / "template"), node_dir_(directory / "node"), names_(DemoNames()) {
  MakeTemplate();
  Reset();
}

ApiWorld::~ApiWorld() { node_.reset(); }

void ApiWorld::MakeTemplate() {
  fs::remove_all(template_dir_);
  node_ = std::make_unique<FuzzNode>(FuzzNodeOptions{.data_dir = template_dir_, .load_demo = true});
  names_["project"] = node_->demo_project_id();
  const std::string admin = Login("administrator", "");
  Json user = {{"username", kUser}, {"fullName", "Fuzz User"}, {"password", kUserPassword}};
  http::Response created = Call("POST", "/api/users", DumpJson(user), admin);
  if (created.status != 201) Broken("POST /api/users", created);
  names_["user_id"] = ParseJson(created.body).value("id", "");
  node_.reset();
}

void ApiWorld::Reset() {
  node_.reset();
  fs::remove_all(node_dir_);
  fs::copy(template_dir_, node_dir_, fs::copy_options::recursive);
  node_ = std::make_unique<FuzzNode>(FuzzNodeOptions{.data_dir = node_dir_, .load_demo = true});
  RefreshSessions();
  names_["report_instance"] =
      Create("/api/v2/reports/" + names_["Revenue by Year"] + "/instances", "{}", "instanceId");
  names_["cube_instance"] =
      Create("/api/v2/cubes/" + names_["Sales Cube"] + "/instances", "{}", "instanceId");
  names_["dashboard_instance"] =
      Create("/api/dossiers/" + names_["Sales Overview"] + "/instances", "{}", "mid");
  names_["dataset"] = Create("/api/datasets/models", DumpJson(PushedModel()), "id");
  names_["upload_session"] = Create("/api/datasets/" + names_["dataset"] + "/uploadSessions",
                                    DumpJson({{"tables",
                                               {{{"name", "sales"},
                                                 {"updatePolicy", "replace"},
                                                 {"columnHeaders", {"store", "amount"}}}}}}),
                                    "uploadSessionId");
  names_["migration"] = Create("/api/migrations", DumpJson(MigrationOf(names_["Revenue"])), "id");
}

void ApiWorld::RefreshSessions() {
  for (auto [name, user, password] :
       {std::tuple{"token", "administrator", ""}, std::tuple{"user_token", kUser, kUserPassword}}) {
    auto known = names_.find(name);
    if (known != names_.end() && Call("GET", "/api/sessions", "", known->second).status == 200) {
      continue;
    }
    names_[name] = Login(user, password);
  }
}

http::Response ApiWorld::Handle(http::Request request) {
  if (api::Api::SpoolsBody(request.method, request.path)) {
    const fs::path spooled = node_dir_ / "uploads" / "request-body";
    WriteBytes(spooled, request.body);
    request.body_file =
        std::make_shared<const http::BodyFile>(spooled.string(), request.body.size());
    request.body.clear();
  }
  return node_->api().Handle(request);
}

std::string ApiWorld::Login(const std::string& username, const std::string& password) {
  http::Request request;
  request.method = "POST";
  request.path = "/api/auth/login";
  request.headers.Set("Content-Type", kFormType);
  request.body = "loginMode=1&username=" + username + "&password=" + password;
  http::Response response = node_->api().Handle(request);
  auto token = response.headers.Get("X-MSTR-AuthToken");
  if (response.status != 204 || !token) Broken("login of " + username, response);
  return std::string(*token);
}

std::string ApiWorld::Create(const std::string& target, const std::string& body,
                             const std::string& id_field) {
  http::Response response = Call("POST", target, body, names_["token"]);
  if (response.status != 200 && response.status != 201 && response.status != 202) {
    Broken("POST " + target, response);
  }
  return ParseJson(response.body).value(id_field, "");
}

http::Response ApiWorld::Call(std::string method, std::string target, std::string body,
                              const std::string& token) {
  http::Request request;
  request.method = std::move(method);
  request.path = std::move(target);
  request.headers.Set("Content-Type", kJsonType);
  if (!token.empty()) request.headers.Set("X-MSTR-AuthToken", token);
  if (auto project = names_.find("project"); project != names_.end()) {
    request.headers.Set("X-MSTR-ProjectID", project->second);
  }
  request.body = std::move(body);
  request.request_id = "fuzz-setup";
  return node_->api().Handle(request);
}

}  // namespace tessera::fuzz
