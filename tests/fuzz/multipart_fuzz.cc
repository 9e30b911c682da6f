// Fuzz harness: multipart/form-data bodies (api/multipart_file.h), as package uploads send them.
//
// Input: the first line is the request's Content-Type value, the rest is the body, which is
// written to a file as the server spools it. The field looked for is "file", or the name given
// by a second line "name: <field>" right after the Content-Type line.
//
// Contract checked: FindFormFile() either returns a range or throws Error(kInvalidInput); it
// never reads outside the body. A range it returns lies inside the body, right after the blank
// line that ends a part's headers, and is followed by CRLF and the boundary delimiter.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/multipart_file.h"
#include "core/error.h"
#include "fuzz/fuzz_support.h"

namespace {

struct Parsed {
  std::string content_type;
  std::string field = "file";
  std::string body;
};

std::string_view TakeLine(std::string_view& text) {
  size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

Parsed ParseInput(std::string_view text) {
  Parsed parsed;
  parsed.content_type = std::string(TakeLine(text));
  if (text.starts_with("name: ")) parsed.field = std::string(TakeLine(text).substr(6));
  parsed.body = std::string(text);
  return parsed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Parsed input = ParseInput(std::string_view(reinterpret_cast<const char*>(data), size));
  const std::string path = (tessera::fuzz::ScratchDir() / "body").string();
  tessera::fuzz::WriteBytes(path, input.body);
  tessera::api::FileRange range;
  try {
    range = tessera::api::FindFormFile(path, input.body.size(), input.content_type, input.field);
  } catch (const tessera::Error& error) {
    if (error.code() != tessera::ErrorCode::kInvalidInput) {
      tessera::fuzz::Finding("FindFormFile threw another error code", error.what());
    }
    return 0;
  }
  const uint64_t end = range.offset + range.length;
  if (range.offset < 4 || end < range.offset || end > input.body.size()) {
    tessera::fuzz::Finding("the file range lies outside the body",
                           std::to_string(range.offset) + "+" + std::to_string(range.length));
  }
  if (input.body.compare(static_cast<size_t>(range.offset) - 4, 4, "\r\n\r\n") != 0) {
    tessera::fuzz::Finding("the file range does not follow a part's headers",
                           std::to_string(range.offset));
  }
  if (input.body.compare(static_cast<size_t>(end), 4, "\r\n--") != 0) {
    tessera::fuzz::Finding("the file range is not followed by a delimiter", std::to_string(end));
  }
  return 0;
}
