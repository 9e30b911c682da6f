// api/multipart_file.h
//
// The file part of a multipart/form-data body that the server spooled to disk (http::BodyFile),
// found without reading the body into memory -- what Python's requests (`files={'file': ...}`)
// and `curl -F file=@...` send.
//
// Contract: FindFormFile() returns the byte range, within the body file, of the content of the
// part whose Content-Disposition names `field`. It throws Error(kInvalidInput) saying why when
// the content type is not multipart/form-data with a boundary, the body is not well-formed
// multipart (no delimiter, part headers above 16 KiB or unterminated, no closing delimiter), or
// no part has that name. The body file is read in chunks: memory use does not grow with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::api {

struct FileRange {
  uint64_t offset = 0;
  uint64_t length = 0;
};

FileRange FindFormFile(const std::string& body_path, uint64_t body_size,
                       std::string_view content_type, std::string_view field);

}  // namespace tessera::api
