#include "app/admin_session.h"

#include <gtest/gtest.h>

namespace tessera::testing {

AdminSession::AdminSession(uint16_t port) : client_("127.0.0.1", port) {
  http::Headers form;
  form.Set("Content-Type", "application/x-www-form-urlencoded");
  http::Response login =
      client_.Send("POST", "/api/auth/login", form, "username=administrator&password=");
  EXPECT_EQ(login.status, 204) << login.body;
  token_ = std::string(login.headers.Get("X-MSTR-AuthToken").value_or(""));
}

http::Response AdminSession::Get(const std::string& target, const std::string& project_id) {
  http::Headers headers;
  headers.Set("X-MSTR-AuthToken", token_);
  if (!project_id.empty()) headers.Set("X-MSTR-ProjectID", project_id);
  return client_.Send("GET", target, headers);
}

std::string AdminSession::ProjectId(const std::string& name) {
  http::Response projects = Get("/api/projects");
  EXPECT_EQ(projects.status, 200) << projects.body;
  for (const auto& entry : Json::parse(projects.body)) {
    if (entry.value("name", "") == name) return entry.value("id", "");
  }
  ADD_FAILURE() << "no project '" << name << "': " << projects.body;
  return "";
}

http::Response AdminSession::Object(const std::string& project_id, const std::string& id,
                                    int type) {
  return Get("/api/objects/" + id + "?type=" + std::to_string(type), project_id);
}

std::string AdminSession::Description(const std::string& project_id, const std::string& id,
                                      int type) {
  http::Response object = Object(project_id, id, type);
  EXPECT_EQ(object.status, 200) << object.body;
  if (object.status != 200) return "";
  return Json::parse(object.body).value("description", "");
}

}  // namespace tessera::testing
