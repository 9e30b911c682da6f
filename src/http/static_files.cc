#include "http/static_files.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <system_error>
#include <utility>

#include "core/strings.h"

namespace tessera::http {

namespace {

struct ContentType {
  std::string_view extension;
  std::string_view type;
};

constexpr std::array<ContentType, 16> kContentTypes = {{
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json"},
    {".map", "application/json"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".jpg", "image/jpeg"},
    {".jpeg", "image/jpeg"},
    {".gif", "image/gif"},
    {".ico", "image/x-icon"},
    {".webp", "image/webp"},
    {".woff2", "font/woff2"},
    {".woff", "font/woff"},
    {".txt", "text/plain; charset=utf-8"},
}};

// The decoded segments of `relative_path`, or nullopt when one could step outside the root.
std::optional<std::filesystem::path> SafeRelativePath(std::string_view relative_path) {
  if (relative_path.empty()) return std::nullopt;
  std::filesystem::path path;
  for (const std::string& raw : Split(relative_path, '/')) {
    std::optional<std::string> segment = PercentDecode(raw, /*plus_is_space=*/false);
    if (!segment || segment->empty() || *segment == "." || *segment == "..") return std::nullopt;
    if (segment->find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
      return std::nullopt;
    }
    path /= *segment;
  }
  return path;
}

// The file clock's epoch is not the Unix epoch, so ticks may be negative: shown as unsigned hex.
std::string ETagOf(uint64_t size, std::filesystem::file_time_type modified) {
  auto ticks = std::chrono::duration_cast<std::chrono::nanoseconds>(modified.time_since_epoch());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(ticks.count()));
  std::string etag = "\"";
  etag += std::to_string(size);
  etag += '-';
  etag += hex;
  etag += '"';
  return etag;
}

bool NamesETag(std::string_view if_none_match, std::string_view etag) {
  for (const std::string& candidate : Split(if_none_match, ',')) {
    std::string_view tag = Trim(candidate);
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == etag || tag == "*") return true;
  }
  return false;
}

}  // namespace

std::string ContentTypeOf(std::string_view file_name) {
  for (const ContentType& entry : kContentTypes) {
    if (EndsWithIgnoreCase(file_name, entry.extension)) return std::string(entry.type);
  }
  return "application/octet-stream";
}

StaticFiles::StaticFiles(std::filesystem::path root) : root_(std::move(root)) {}

std::optional<Response> StaticFiles::Serve(std::string_view relative_path,
                                           const Request& request) const {
  std::optional<std::filesystem::path> path = SafeRelativePath(relative_path);
  if (!path) return std::nullopt;
  return ServeFile(root_ / *path, request);
}

std::optional<Response> StaticFiles::ServeFile(const std::filesystem::path& file,
                                               const Request& request) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
  uint64_t size = std::filesystem::file_size(file, error);
  if (error) return std::nullopt;
  auto modified = std::filesystem::last_write_time(file, error);
  if (error) return std::nullopt;

  std::string etag = ETagOf(size, modified);
  Response response;
  auto if_none_match = request.headers.Get("If-None-Match");
  if (if_none_match && NamesETag(*if_none_match, etag)) {
    response = Response::Empty(304);
  } else {
    response = Response::File(200, file.string(), ContentTypeOf(file.filename().string()));
  }
  response.headers.Set("ETag", etag);
  response.headers.Set("Cache-Control", "no-cache");
  response.headers.Set("X-Content-Type-Options", "nosniff");
  return response;
}

}  // namespace tessera::http
