#include "http/message.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/strings.h"

namespace tessera::http {
namespace {

constexpr std::string_view kJsonContentType = "application/json; charset=utf-8";

std::string DecodeQueryComponent(std::string_view text) {
  std::optional<std::string> decoded = PercentDecode(text, /*plus_is_space=*/true);
  return decoded ? std::move(*decoded) : std::string(text);
}

}  // namespace

void Headers::Add(std::string name, std::string value) {
  fields_.emplace_back(std::move(name), std::move(value));
}

void Headers::Set(std::string name, std::string value) {
  std::erase_if(fields_, [&](const Field& field) { return EqualsIgnoreCase(field.first, name); });
  Add(std::move(name), std::move(value));
}

std::optional<std::string_view> Headers::Get(std::string_view name) const {
  for (const Field& field : fields_) {
    if (EqualsIgnoreCase(field.first, name)) return field.second;
  }
  return std::nullopt;
}

BodyFile::~BodyFile() {
  std::error_code ignored;  // a destructor has nobody to tell; a file already gone is fine
  std::filesystem::remove(path_, ignored);
}

QueryParams QueryParams::Parse(std::string_view query_string) {
  QueryParams params;
  size_t start = 0;
  while (start <= query_string.size()) {
    size_t end = query_string.find('&', start);
    if (end == std::string_view::npos) end = query_string.size();
    std::string_view pair = query_string.substr(start, end - start);
    if (!pair.empty()) {
      size_t equals = pair.find('=');
      std::string_view name = pair.substr(0, equals);
      std::string_view value =
          equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1);
      params.Add(DecodeQueryComponent(name), DecodeQueryComponent(value));
    }
    start = end + 1;
  }
  return params;
}

void QueryParams::Add(std::string name, std::string value) {
  fields_.emplace_back(std::move(name), std::move(value));
}

std::optional<std::string_view> QueryParams::Get(std::string_view name) const {
  for (const Field& field : fields_) {
    if (field.first == name) return field.second;
  }
  return std::nullopt;
}

std::vector<std::string> QueryParams::GetList(std::string_view name) const {
  std::vector<std::string> values;
  for (const Field& field : fields_) {
    if (field.first != name) continue;
    for (std::string& piece : Split(field.second, ',')) {
      if (!piece.empty()) values.push_back(std::move(piece));
    }
  }
  return values;
}

bool QueryParams::Has(std::string_view name) const { return Get(name).has_value(); }

Response Response::Json(int status, std::string json_body) {
  return Text(status, std::string(kJsonContentType), std::move(json_body));
}

Response Response::Text(int status, std::string content_type, std::string body) {
  Response response;
  response.status = status;
  response.headers.Set("Content-Type", std::move(content_type));
  response.body = std::move(body);
  return response;
}

Response Response::File(int status, std::string path, std::string content_type) {
  Response response = Text(status, std::move(content_type), "");
  response.body_file = std::move(path);
  return response;
}

Response Response::Empty(int status) {
  Response response;
  response.status = status;
  return response;
}

bool Response::is_json() const {
  std::optional<std::string_view> content_type = headers.Get("Content-Type");
  return content_type && StartsWithIgnoreCase(Trim(*content_type), "application/json");
}

}  // namespace tessera::http
