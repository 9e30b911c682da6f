#include "fuzz/request_text.h"

#include "core/strings.h"

namespace tessera::fuzz {
namespace {

std::string_view TakeLine(std::string_view& text) {
  size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line;
}

}  // namespace

std::string SubstituteNames(std::string_view text, const Names& names) {
  std::string out;
  size_t at = 0;
  while (true) {
    size_t open = text.find("${", at);
    size_t close = open == std::string_view::npos ? open : text.find('}', open + 2);
    if (close == std::string_view::npos) break;
    auto name = names.find(text.substr(open + 2, close - open - 2));
    out.append(text.substr(at, open - at));
    if (name != names.end()) {
      out.append(name->second);
    } else {
      out.append(text.substr(open, close + 1 - open));
    }
    at = close + 1;
  }
  out.append(text.substr(at));
  return out;
}

std::optional<http::Request> ParseRequestText(std::string_view text, const Names& names) {
  const std::string substituted = SubstituteNames(text, names);
  std::string_view rest = substituted;
  std::string_view request_line = TakeLine(rest);
  size_t space = request_line.find(' ');
  if (space == 0 || space == std::string_view::npos) return std::nullopt;
  http::Request request;
  request.method = ToUpper(request_line.substr(0, space));
  std::string_view target = request_line.substr(space + 1);
  size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) {
    request.query = http::QueryParams::Parse(target.substr(question + 1));
  }
  for (std::string_view line = TakeLine(rest); !line.empty(); line = TakeLine(rest)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    request.headers.Add(std::string(Trim(line.substr(0, colon))),
                        std::string(Trim(line.substr(colon + 1))));
  }
  request.body = std::string(rest);
  request.remote_address = "127.0.0.1";
  request.request_id = "fuzz";
  return request;
}

}  // namespace tessera::fuzz
