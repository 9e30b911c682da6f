// tests/fuzz/api_world.h
//
// The world the API harness's requests act on: a FuzzNode (fuzz/fuzz_node.h) with the demo
// project, an administrator session and a session of a user without privileges ("fuzzer"), and a
// report, a cube and a dashboard instance, all named for the request text (fuzz/request_text.h):
//   ${token} ${user_token} ${project} ${admin_id} ${user_id}
//   ${report_instance} ${cube_instance} ${dashboard_instance}
//   ${dataset} ${upload_session} (a pushed dataset and an open upload session of it)
//   ${migration} (a package of the metric Revenue, being created)
//   ${<name of a demo object>}  e.g. ${Revenue}, ${Sales Cube}, ${Sales Overview}
//
// Requests change the world (they delete objects, log out, import packages). Reset() puts it back
// as it was first made: the node's files are copied from a template made once per process, the
// sessions logged in again and the instances made again. RefreshSessions() logs in again when a
// request ended a session. Handle() runs one request as the server would: a body the server
// spools (api::Api::SpoolsBody) is handed over in a file.
//
// Contract: the constructor and Reset() throw std::runtime_error when the world cannot be made
// (a broken build, not an input's fault). Single-threaded use only.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "fuzz/fuzz_node.h"
#include "fuzz/request_text.h"
#include "http/message.h"

namespace tessera::fuzz {

class ApiWorld {
 public:
  explicit ApiWorld(std::filesystem::path directory);
  ~ApiWorld();

  const Names& names() const { return names_; }
  http::Response Handle(http::Request request);
  void Reset();
  void RefreshSessions();

 private:
  void MakeTemplate();
  std::string Login(const std::string& username, const std::string& password);
  // POSTs `body` as the administrator and returns `id_field` of the answer.
  std::string Create(const std::string& target, const std::string& body,
                     const std::string& id_field);
  http::Response Call(std::string method, std::string target, std::string body,
                      const std::string& token);

  std::filesystem::path template_dir_;
  std::filesystem::path node_dir_;
  std::unique_ptr<FuzzNode> node_;
  Names names_;
};

}  // namespace tessera::fuzz
