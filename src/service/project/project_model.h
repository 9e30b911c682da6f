// service/project/project_model.h
//
// A project's semantic layer as the engine needs it: every object of the project read from the
// storage service and assembled into a model::SemanticModel (which refuses an inconsistent one),
// and the name of the warehouse its reports and cubes read.
//
// SemanticModels keeps each project's model once built and hands out the same one until an
// object changes: every Get reads MetadataTransaction::ObjectsGeneration() and builds the model
// again, in the same transaction, when the number moved since it was built. The storage service
// counts the changes of every node and process, so a change made anywhere is seen by the next Get.
// A model that cannot be built is not kept. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "model/semantic_model.h"
#include "storage/metadata_store.h"

namespace tessera::service::project {

model::SemanticModel LoadSemanticModel(storage::MetadataStore& store,
                                       const std::string& project_id);

class SemanticModels {
 public:
  explicit SemanticModels(storage::MetadataStore& store) : store_(store) {}

  std::shared_ptr<const model::SemanticModel> Get(const std::string& project_id);

 private:
  struct Built {
    int64_t objects_generation = 0;
    std::shared_ptr<const model::SemanticModel> model;
  };

  storage::MetadataStore& store_;
  std::mutex mutex_;
  std::unordered_map<std::string, Built> built_;  // by project id
};

// The project definition's "warehouse" ("demo" when it names none); Error(kNotFound) for an
// unknown project.
std::string LoadWarehouseName(storage::MetadataStore& store, const std::string& project_id);

}  // namespace tessera::service::project
