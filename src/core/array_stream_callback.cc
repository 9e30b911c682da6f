#include "core/array_stream_callback.h"

namespace tessera {

ArrayStreamCallback::ArrayStreamCallback(const std::vector<std::string>& array_path,
                                         const std::function<void(Json element)>& on_element)
    : array_path_(array_path),
      on_element_(on_element),
      array_depth_(static_cast<int>(array_path.size())),
      keys_(array_path.size() + 1) {}

// nlohmann's callback reports a key at the depth of its value, and an element of an array opened
// at depth d at depth d + 1; returning false drops the value just parsed.
bool ArrayStreamCallback::operator()(int depth, Json::parse_event_t event, Json& parsed) {
  using Event = Json::parse_event_t;
  if (event == Event::key && depth <= array_depth_) {
    keys_[static_cast<size_t>(depth)] = parsed.get<std::string>();
    // Keys deeper than this one named members of an earlier value.
    for (size_t deeper = static_cast<size_t>(depth) + 1; deeper < keys_.size(); ++deeper) {
      keys_[deeper].clear();
    }
    return true;
  }
  if (depth == array_depth_ && event == Event::array_start && OnPath()) {
    inside_ = found_ = true;
  } else if (depth == array_depth_ && event == Event::array_end) {
    inside_ = false;
  } else if (inside_ && depth == array_depth_ + 1 &&
             (event == Event::object_end || event == Event::array_end || event == Event::value)) {
    on_element_(std::move(parsed));
    return false;
  }
  return true;
}

bool ArrayStreamCallback::OnPath() const {
  for (int depth = 1; depth <= array_depth_; ++depth) {
    if (keys_[static_cast<size_t>(depth)] != array_path_[static_cast<size_t>(depth - 1)]) {
      return false;
    }
  }
  return true;
}

}  // namespace tessera
