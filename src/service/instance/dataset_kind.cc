#include "service/instance/dataset_kind.h"

namespace tessera::service::instance {

namespace {

DatasetKind Other(DatasetKind kind) {
  return kind == DatasetKind::kCube ? DatasetKind::kReport : DatasetKind::kCube;
}

}  // namespace

std::string_view DatasetKindName(DatasetKind kind) {
  return kind == DatasetKind::kCube ? "cube" : "report";
}

WrongDatasetKind::WrongDatasetKind(std::string id, DatasetKind actual)
    : Error(ErrorCode::kNotFound, "'" + id + "' is a " + std::string(DatasetKindName(actual)) +
                                      ", not a " + std::string(DatasetKindName(Other(actual)))),
      id_(std::move(id)),
      actual_(actual) {}

}  // namespace tessera::service::instance
