#include "core/json_file.h"

#include <fstream>
#include <iterator>

#include "core/array_stream_callback.h"
#include "core/error.h"

namespace tessera {

namespace {

std::ifstream OpenForReading(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kInternal, "cannot read the request body file " + path);
  return in;
}

template <typename Parse>
auto ParseFile(const std::string& path, const Parse& parse) {
  std::ifstream in = OpenForReading(path);
  try {
    return parse(in);
  } catch (const nlohmann::json::exception& e) {
    ThrowInvalidJson(e);
  }
}

}  // namespace

bool IsBlankFile(const std::string& path) {
  std::ifstream in = OpenForReading(path);
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    char c = *it;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

Json ParseJsonFile(const std::string& path) {
  return ParseFile(path, [](std::ifstream& in) { return Json::parse(in, DepthLimitedCallback()); });
}

StreamedArray ParseJsonFileStreamingArray(const std::string& path,
                                          const std::vector<std::string>& array_path,
                                          const std::function<void(Json element)>& on_element) {
  ArrayStreamCallback callback(array_path, on_element);
  return ParseFile(path, [&](std::ifstream& in) {
    StreamedArray result;
    result.document = Json::parse(in, DepthLimitedCallback(callback.AsParserCallback()));
    result.found = callback.found();
    return result;
  });
}

}  // namespace tessera
