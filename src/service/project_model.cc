#include "service/project_model.h"

#include "core/error.h"

namespace tessera::service {

model::SemanticModel LoadSemanticModel(storage::MetadataStore& store,
                                       const std::string& project_id) {
  std::vector<model::ObjectRecord> objects;
  store.Read([&](storage::MetadataTransaction& tx) { objects = tx.ListObjects(project_id, {}); });
  return model::SemanticModel::Build(objects);
}

std::string LoadWarehouseName(storage::MetadataStore& store, const std::string& project_id) {
  std::optional<storage::ProjectRecord> project;
  store.Read([&](storage::MetadataTransaction& tx) { project = tx.FindProject(project_id); });
  if (!project) throw Error(ErrorCode::kNotFound, "Project '" + project_id + "' not found");
  const Json& definition = project->object.definition;
  std::string name;
  if (definition.is_object()) {
    auto it = definition.find("warehouse");
    if (it != definition.end() && it->is_string()) name = it->get<std::string>();
  }
  return name.empty() ? "demo" : name;
}

}  // namespace tessera::service
