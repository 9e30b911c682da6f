// service/project_model.h
//
// A project's semantic layer as the engine needs it: every object of the project read from the
// storage service and assembled into a model::SemanticModel (which refuses an inconsistent one),
// and the name of the warehouse its reports and cubes read.
#pragma once

#include <string>

#include "model/semantic_model.h"
#include "storage/metadata_store.h"

namespace tessera::service {

model::SemanticModel LoadSemanticModel(storage::MetadataStore& store,
                                       const std::string& project_id);

// The project definition's "warehouse" ("demo" when it names none); Error(kNotFound) for an
// unknown project.
std::string LoadWarehouseName(storage::MetadataStore& store, const std::string& project_id);

}  // namespace tessera::service
