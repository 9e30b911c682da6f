// http/static_files.h
//
// Files of one directory served as they are, for the browser app: StaticFiles("/srv/web") answers
// Serve("assets/app.js", request) with that file's bytes, streamed from disk.
//
// Contract:
//   - `relative_path` is the request path after the caller's prefix, still percent-encoded. It is
//     decoded, then refused (nullopt) when any segment is empty, "." or "..", or holds a
//     backslash or a NUL: nothing outside the root is ever reached through a path, whatever its
//     encoding. Symbolic links inside the root are followed (they are part of the installation).
//   - A path that names no regular file gives nullopt; the caller answers its own 404.
//   - Content-Type follows the file's extension (application/octet-stream when unknown), with
//     "X-Content-Type-Options: nosniff".
//   - Caching: every answer carries an ETag made of the file's size and modification time and
//     "Cache-Control: no-cache" (the browser keeps the file and revalidates it, so a new release
//     is seen at once); a request whose If-None-Match names the current ETag is answered 304
//     without a body.
//   - Only reads the file system; thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "http/message.h"

namespace tessera::http {

// The Content-Type of a file name, by its extension (case-insensitive).
std::string ContentTypeOf(std::string_view file_name);

class StaticFiles {
 public:
  explicit StaticFiles(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }

  std::optional<Response> Serve(std::string_view relative_path, const Request& request) const;

  // The same answers for one file given by its full path (no path checks: the caller chose it).
  static std::optional<Response> ServeFile(const std::filesystem::path& file,
                                           const Request& request);

 private:
  std::filesystem::path root_;
};

}  // namespace tessera::http
