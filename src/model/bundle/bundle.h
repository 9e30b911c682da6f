// model/bundle/bundle.h
//
// Project bundles: a project as a folder of YAML files, authored by people and kept in version
// control.
//
//   project.yaml        name, description, warehouse (connection name), folders (extra paths),
//                       id (optional)
//   tables.yaml         tables:     [{name, physical_name?, columns: [{name, type}]}]
//   attributes.yaml     attributes: [{name, table, parent?, forms: [{name, column}]}]
//   facts.yaml          facts:      [{name, tables: [..], expression}]
//   metrics.yaml        metrics:    [{name, function, fact | attribute} | {name, expression}]
//   filters.yaml        filters:    [{name, qualification}]
//   reports/*.yaml      one report each: {name, source?, cube?, rows, columns, filter?}
//   cubes/*.yaml        one cube each:   {name, attributes, metrics, filter?}
//   dashboards/*.yaml   one dashboard each (model/bundle/dashboard.h; references by name)
//
// Every object may also give `id`, `description` and `folder` (a path below the project root,
// e.g. "Public Objects/Reports/Sales"; each type has a default folder). References name objects
// of the expected type by name or by id. An object without `id` gets the deterministic id
// DeterministicObjectId("tessera:<project name>:<type code>:<object name>"); the project's is
// DeterministicObjectId("tessera:<name>:32:<name>"). Names are unique per type code (so a report
// and a cube may not share one). Qualification trees (filters) use the API's qualification grammar
// (engine/qualification.h) with `name` allowed wherever an `id` is, and
// `{type: elements, values: [...]}` listing ID-form values. Each kind's keys and canonical form:
// model/bundle/definitions.h, model/bundle/qualification.h, model/bundle/dashboard.h. Files in
// reports/, cubes/ and dashboards/ are read in file name order; unknown keys are ignored.
//
// ReadBundle either returns the whole bundle, converted to canonical definitions (ids only,
// model/semantic.h) and checked with SemanticModel::Validate, or throws BundleError listing
// every problem found as "file:line: message" (file relative to the bundle folder). It writes
// nothing. WriteBundle writes the same layout back with names as references, so that
// ReadBundle(WriteBundle(b)) yields the same objects (ids, names, definitions, folders). It
// owns the layout: *.yaml files of reports/, cubes/ and dashboards/ it did not write, and list
// files of kinds the bundle has none of, are removed; objects of other types are not written.
// It throws Error(kInternal) when the folder cannot be written.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/object.h"

namespace tessera::model::bundle {

struct BundleObject {
  ObjectRecord record;      // project_id empty; id, type, subtype, name, description, definition
  std::string folder_path;  // below the project root, "/"-separated
  std::string location;     // "attributes.yaml:12", for messages
};

struct Bundle {
  std::string project_name;
  std::string project_id;  // deterministic unless project.yaml gives one
  std::string description;
  std::string warehouse;                  // connection name; "" = the default warehouse
  std::vector<std::string> folder_paths;  // folders to create besides those objects name
  std::vector<BundleObject> objects;      // in dependency order: tables, attributes, facts, ...
};

class BundleError : public std::runtime_error {
 public:
  explicit BundleError(std::vector<std::string> problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

Bundle ReadBundle(const std::filesystem::path& directory);
void WriteBundle(const Bundle& bundle, const std::filesystem::path& directory);

// The default folder of objects of `type`/`subtype` in a bundle ("Schema Objects/Attributes").
std::string DefaultFolderPath(int type, int subtype);

}  // namespace tessera::model::bundle
