// http/message.h
//
// Plain request and response values exchanged between the HTTP server and the handlers in api/.
// They carry no Beast types, so api/ and tests build them freely. Header names compare
// case-insensitively. Query parameters keep every occurrence in arrival order, already
// percent-decoded ('+' decoded as a space, as HTML forms and Python's requests send it).
#pragma once

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
  // both give {"776", "779"} (spec 01 §1.3). Empty pieces are dropped.
  std::vector<std::string> GetList(std::string_view name) const;
  bool Has(std::string_view name) const;
  const std::vector<Field>& fields() const { return fields_; }

 private:
  std::vector<Field> fields_;
};

struct Request {
  std::string method;  // upper case: "GET", "POST", ...
  std::string path;    // raw path without the query string, still percent-encoded
  QueryParams query;
  Headers headers;
  std::string body;
  std::string remote_address;
  std::string request_id;  // set by the server for log correlation
};

struct Response {
  int status = 200;
  Headers headers;
  std::string body;

  static Response Json(int status, std::string json_body);
  static Response Empty(int status);
  bool is_json() const;
};

}  // namespace tessera::http
