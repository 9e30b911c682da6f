#include "service/project_model.h"

namespace tessera::service {

model::SemanticModel LoadSemanticModel(storage::MetadataStore& store,
                                       const std::string& project_id) {
  std::vector<model::ObjectRecord> objects;
  store.Read([&](storage::MetadataTransaction& tx) { objects = tx.ListObjects(project_id, {}); });
  return model::SemanticModel::Build(objects);
}

}  // namespace tessera::service
