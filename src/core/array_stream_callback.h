// core/array_stream_callback.h
//
// The nlohmann parser callback behind ParseJsonStreamingArray (core/json.h) and
// ParseJsonFileStreamingArray (core/json_file.h): it hands each element of the array at a key
// path to a consumer as soon as the element is parsed and drops it from the document, which keeps
// an empty array there. found() tells whether such an array was met. Pass it to the parser by
// reference (AsParserCallback): the parser copies what it is given.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/json.h"

namespace tessera {

class ArrayStreamCallback {
 public:
  ArrayStreamCallback(const std::vector<std::string>& array_path,
                      const std::function<void(Json element)>& on_element);

  bool operator()(int depth, Json::parse_event_t event, Json& parsed);

  Json::parser_callback_t AsParserCallback() {
    return [this](int depth, Json::parse_event_t event, Json& parsed) {
      return (*this)(depth, event, parsed);
    };
  }

  bool found() const { return found_; }

 private:
  bool OnPath() const;

  const std::vector<std::string>& array_path_;
  const std::function<void(Json element)>& on_element_;
  int array_depth_;
  std::vector<std::string> keys_;  // keys_[d]: the last key met at depth d
  bool inside_ = false;
  bool found_ = false;
};

}  // namespace tessera
