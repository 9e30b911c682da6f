#include "api/dataset/dataset_kind_hint.h"

#include <string>

namespace tessera::api::dataset {

namespace {

std::string_view PathSegment(service::instance::DatasetKind kind) {
  return kind == service::instance::DatasetKind::kCube ? "/cubes/" : "/reports/";
}

// `path` with its first segment of the asked-for kind made one of `actual`; "" when it has none.
std::string SwappedPath(std::string_view path, service::instance::DatasetKind actual) {
  const service::instance::DatasetKind asked = actual == service::instance::DatasetKind::kCube
                                                   ? service::instance::DatasetKind::kReport
                                                   : service::instance::DatasetKind::kCube;
  const size_t at = path.find(PathSegment(asked));
  if (at == std::string_view::npos) return "";
  std::string swapped(path.substr(0, at));
  swapped += PathSegment(actual);
  swapped += path.substr(at + PathSegment(asked).size());
  while (swapped.size() > 1 && swapped.back() == '/') swapped.pop_back();
  return swapped;
}

}  // namespace

Error WithEndpointHint(const service::instance::WrongDatasetKind& error, const http::Router& router,
                       std::string_view method, std::string_view path,
                       std::string_view context_path) {
  std::string hint = SwappedPath(path, error.actual());
  if (hint.empty() || router.Match(method, hint).kind != http::RouteMatch::Kind::kFound) {
    hint = "/api" + std::string(PathSegment(error.actual())) + error.id();
  }
  return Error(error.code(),
               std::string(error.message()) + "; use " + std::string(context_path) + hint);
}

}  // namespace tessera::api::dataset
