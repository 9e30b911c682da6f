// tests/app/admin_session.h
//
// The administrator logged in to a server a test started (password empty), reading over the REST
// API what the test expects: the values come from the server's answers, never from the code
// under test.
#pragma once

#include <cstdint>
#include <string>

#include "core/json.h"
#include "http/client.h"

namespace tessera::testing {

class AdminSession {
 public:
  explicit AdminSession(uint16_t port);

  // The id of the project named `name`; fails the test and returns "" when there is none.
  std::string ProjectId(const std::string& name);
  // GET /api/objects/{id}?type=<type> in the project: the HTTP status and the body.
  http::Response Object(const std::string& project_id, const std::string& id, int type);
  // The object's description (GET /api/objects answers none when it is empty).
  std::string Description(const std::string& project_id, const std::string& id, int type);
  // GET `target` with the session's token (and the project header when given).
  http::Response Get(const std::string& target, const std::string& project_id = "");

 private:
  http::Client client_;
  std::string token_;
};

}  // namespace tessera::testing
