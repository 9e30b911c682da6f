// service/instance/dataset_kind.h
//
// The two kinds of dataset clients execute -- reports and cubes, both type-3 objects -- and the
// error of a lookup whose id names the other kind: a cube where a report was asked for, or a
// report where a cube was. WrongDatasetKind is an Error(kNotFound) (the id names no object of the
// kind asked for) whose message says what the id is instead: "'<id>' is a cube, not a report".
// api/ may add where such a request belongs; nothing else needs to tell it from other errors.
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

namespace tessera::service::instance {

enum class DatasetKind { kReport, kCube };

// "report" or "cube".
std::string_view DatasetKindName(DatasetKind kind);

class WrongDatasetKind : public Error {
 public:
  // `id` names an object of kind `actual` (so not of the other kind).
  WrongDatasetKind(std::string id, DatasetKind actual);

  const std::string& id() const { return id_; }
  DatasetKind actual() const { return actual_; }

 private:
  std::string id_;
  DatasetKind actual_;
};

}  // namespace tessera::service::instance
