#include "service/project/project_model.h"

#include "core/error.h"

namespace tessera::service::project {

model::SemanticModel LoadSemanticModel(storage::MetadataStore& store,
                                       const std::string& project_id) {
  std::vector<model::ObjectRecord> objects;
  store.Read([&](storage::MetadataTransaction& tx) { objects = tx.ListObjects(project_id, {}); });
  return model::SemanticModel::Build(objects);
}

std::shared_ptr<const model::SemanticModel> SemanticModels::Get(const std::string& project_id) {
  std::shared_ptr<const model::SemanticModel> model;
  store_.Read([&](storage::MetadataTransaction& tx) {
    const int64_t generation = tx.ObjectsGeneration();
    {
      std::lock_guard lock(mutex_);
      auto found = built_.find(project_id);
      if (found != built_.end() && found->second.objects_generation == generation) {
        model = found->second.model;
        return;
      }
    }
    model = std::make_shared<const model::SemanticModel>(
        model::SemanticModel::Build(tx.ListObjects(project_id, {})));
    std::lock_guard lock(mutex_);
    built_[project_id] = {generation, model};
  });
  return model;
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

}  // namespace tessera::service::project
