// http/message.h
//
// Plain request and response values exchanged between the HTTP server and the handlers in api/.
// They carry no Beast types, so api/ and tests build them freely. Header names compare
// case-insensitively. Query parameters keep every occurrence in arrival order, already
// percent-decoded ('+' decoded as a space, as HTML forms and Python's requests send it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::http {

using Field = std::pair<std::string, std::string>;

class Headers {
 public:
  void Add(std::string name, std::string value);
  void Set(std::string name, std::string value);  // replaces every field of that name
  std::optional<std::string_view> Get(std::string_view name) const;  // the first one
  const std::vector<Field>& fields() const { return fields_; }

 private:
  std::vector<Field> fields_;
};

class QueryParams {
 public:
  // Parses "a=1&b=x%2Cy&a=2"; throws nothing: a malformed escape keeps the raw text.
  static QueryParams Parse(std::string_view query_string);

  void Add(std::string name, std::string value);
  std::optional<std::string_view> Get(std::string_view name) const;  // the first occurrence
  // Every value of `name`, each also split on commas: "type=776&type=779" and "type=776,779"
  // both give {"776", "779"}. Empty pieces are dropped.
  std::vector<std::string> GetList(std::string_view name) const;
  bool Has(std::string_view name) const;
  const std::vector<Field>& fields() const { return fields_; }

 private:
  std::vector<Field> fields_;
};

// A request body the server wrote to a file rather than to memory (Admission::spools_body).
// The file is removed when the last reference to it goes.
class BodyFile {
 public:
  BodyFile(std::string path, uint64_t size) : path_(std::move(path)), size_(size) {}
  ~BodyFile();
  BodyFile(const BodyFile&) = delete;
  BodyFile& operator=(const BodyFile&) = delete;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }

 private:
  std::string path_;
  uint64_t size_;
};

struct Request {
  std::string method;  // upper case: "GET", "POST", ...
  std::string path;    // raw path without the query string, still percent-encoded
  QueryParams query;
  Headers headers;
  std::string body;                           // empty when the body went to body_file
  std::shared_ptr<const BodyFile> body_file;  // set only for requests the server spools
  std::string remote_address;
  std::string request_id;  // set by the server for log correlation
};

struct Response {
  int status = 200;
  Headers headers;
  std::string body;
  // When set, the body is this file's content, streamed from disk instead of `body`. A file that
  // cannot be opened when the answer is written is answered 500 ERR001.
  std::string body_file;
  // The route template that answered ("/api/reports/{id}"), for metrics; never sent. Empty when
  // no route matched.
  std::string route;

  static Response Json(int status, std::string json_body);
  // `body` sent as it is, e.g. an HTML page or the Prometheus text format.
  static Response Text(int status, std::string content_type, std::string body);
  static Response File(int status, std::string path, std::string content_type);
  static Response Empty(int status);
  bool is_json() const;
};

}  // namespace tessera::http
