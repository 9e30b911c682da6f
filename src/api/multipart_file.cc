#include "api/multipart_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/strings.h"

namespace tessera::api {
namespace {

constexpr uint64_t kMaxPartHeaderBytes = 16 * 1024;
constexpr size_t kScanChunkBytes = 1 << 20;

Error Malformed(std::string_view why) {
  return Error(ErrorCode::kInvalidInput, fmt::format("The multipart body is malformed: {}", why));
}

std::string_view Unquoted(std::string_view value) {
  value = Trim(value);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  return value;
}

// The value of parameter `name` in a header value "type; a=1; b=\"2\"", if present.
std::optional<std::string> HeaderParameter(std::string_view value, std::string_view name) {
  std::vector<std::string> pieces = Split(value, ';');
  for (size_t i = 1; i < pieces.size(); ++i) {
    std::string_view piece = Trim(pieces[i]);
    size_t equals = piece.find('=');
    if (equals == std::string_view::npos) continue;
    if (EqualsIgnoreCase(Trim(piece.substr(0, equals)), name)) {
      return std::string(Unquoted(piece.substr(equals + 1)));
    }
  }
  return std::nullopt;
}

std::string BoundaryOf(std::string_view content_type) {
  std::string_view type = Trim(content_type.substr(0, content_type.find(';')));
  if (!EqualsIgnoreCase(type, "multipart/form-data")) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("Content-Type: '{}' is not multipart/form-data", content_type));
  }
  auto boundary = HeaderParameter(content_type, "boundary");
  if (!boundary || boundary->empty() || boundary->size() > 200) {
    throw Error(ErrorCode::kInvalidInput, "Content-Type: the multipart boundary is missing");
  }
  return *boundary;
}

// The name a part's headers give it (Content-Disposition: form-data; name="..."), or "".
std::string PartName(std::string_view headers) {
  for (const std::string& line : Split(headers, '\n')) {
    std::string_view text = Trim(line);
    size_t colon = text.find(':');
    if (colon == std::string_view::npos) continue;
    if (!EqualsIgnoreCase(Trim(text.substr(0, colon)), "content-disposition")) continue;
    return HeaderParameter(text.substr(colon + 1), "name").value_or("");
  }
  return "";
}

class BodyReader {
 public:
  BodyReader(const std::string& path, uint64_t size) : in_(path, std::ios::binary), size_(size) {
    if (!in_) throw Error(ErrorCode::kInternal, "The spooled request body cannot be read");
  }

  uint64_t size() const { return size_; }

  std::string Read(uint64_t offset, uint64_t length) {
    length = std::min(length, size_ - std::min(offset, size_));
    std::string bytes(length, '\0');
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(bytes.data(), static_cast<std::streamsize>(length));
    if (static_cast<uint64_t>(in_.gcount()) != length) {
      throw Error(ErrorCode::kInternal, "The spooled request body cannot be read");
    }
    return bytes;
  }

  // The first offset in [from, end) where `needle` starts.
  std::optional<uint64_t> Find(uint64_t from, uint64_t end, std::string_view needle) {
    end = std::min(end, size_);
    std::boyer_moore_horspool_searcher searcher(needle.begin(), needle.end());
    while (from + needle.size() <= end) {
      std::string chunk = Read(from, std::min<uint64_t>(kScanChunkBytes, end - from));
      auto found = std::search(chunk.begin(), chunk.end(), searcher);
      if (found != chunk.end()) return from + static_cast<uint64_t>(found - chunk.begin());
      if (from + chunk.size() >= end) break;
      from += chunk.size() - (needle.size() - 1);  // a match may straddle two chunks
    }
    return std::nullopt;
  }

 private:
  std::ifstream in_;
  uint64_t size_;
};

}  // namespace

FileRange FindFormFile(const std::string& body_path, uint64_t body_size,
                       std::string_view content_type, std::string_view field) {
  std::string delimiter = "--" + BoundaryOf(content_type);
  std::string next_delimiter = "\r\n" + delimiter;
  BodyReader body(body_path, body_size);
  auto first = body.Find(0, body.size(), delimiter);
  if (!first) throw Malformed("no boundary delimiter");
  uint64_t position = *first + delimiter.size();
  for (;;) {
    std::string after = body.Read(position, 2);
    if (after == "--") break;  // the closing delimiter
    if (after != "\r\n") throw Malformed("a boundary delimiter is not followed by a line break");
    auto header_end = body.Find(position, position + 2 + kMaxPartHeaderBytes + 4, "\r\n\r\n");
    if (!header_end) throw Malformed("a part's headers are unterminated or too long");
    std::string headers = *header_end > position + 2
                              ? body.Read(position + 2, *header_end - position - 2)
                              : std::string();
    uint64_t content_start = *header_end + 4;
    auto content_end = body.Find(content_start, body.size(), next_delimiter);
    if (!content_end) throw Malformed("a part has no closing boundary delimiter");
    if (PartName(headers) == field) return {content_start, *content_end - content_start};
    position = *content_end + next_delimiter.size();
  }
  throw Error(ErrorCode::kInvalidInput,
              fmt::format("The multipart body has no part named '{}'", field));
}

}  // namespace tessera::api
