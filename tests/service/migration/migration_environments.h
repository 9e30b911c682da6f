// tests/service/migration_environments.h
//
// Environments for migration tests at the service level: each its own storage service (a fresh
// database on the test's backend), with the helpers the tests speak in -- find an object by id or
// name, save it as the object service would, dump a project and the configuration scope as text
// (the "identical before and after" of undo), and clone a project byte for byte into another
// environment (environments promoted from one another share ids, versions and dates).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/ids.h"
#include "core/time.h"
#include "model/semantic.h"
#include "storage/metadata_store.h"
#include "support/test_databases.h"

namespace tessera::testing {

// One environment: its own storage service.
struct Environment {
  explicit Environment(StoreBackend backend) : database(backend) {
    storage::StoreOptions options;
    options.url = database.url();
    store = storage::MetadataStore::Open(options);
  }

  std::optional<model::ObjectRecord> Find(const std::string& project_id, const std::string& id) {
    std::optional<model::ObjectRecord> record;
    store->Read([&](storage::MetadataTransaction& tx) { record = tx.FindObject(project_id, id); });
    return record;
  }

  model::ObjectRecord Named(const std::string& project_id, const std::string& name) {
    std::vector<model::ObjectRecord> all;
    store->Read([&](storage::MetadataTransaction& tx) { all = tx.ListObjects(project_id, {}); });
    for (auto& record : all) {
      if (record.name == name) return record;
    }
    throw std::runtime_error("no object named " + name);
  }

  // Saves `record` as the object service would: new version, modified now.
  void Save(model::ObjectRecord record, std::chrono::milliseconds age = {}) {
    record.version = NewObjectId();
    record.modified = Now() - age;
    store->Write([&](storage::MetadataTransaction& tx) {
      tx.PutObject(record);
      tx.SetDependencies(record.project_id, record.id, model::UsedObjectIds(record));
    });
  }

  // Every object and dependency of the project and of the configuration scope, as text.
  std::string Dump(const std::string& project_id) {
    std::ostringstream out;
    store->Read([&](storage::MetadataTransaction& tx) {
      for (const std::string& scope : {project_id, std::string()}) {
        for (const auto& o : tx.ListObjects(scope, {})) {
          out << scope << '|' << o.id << '|' << o.type << '|' << o.subtype << '|' << o.name << '|'
              << o.description << '|' << o.folder_id << '|' << o.owner_id << '|' << o.version << '|'
              << ToUnixMillis(o.created) << '|' << ToUnixMillis(o.modified) << '|'
              << DumpJson(model::AclToJson(o.acl)) << '|' << DumpJson(o.definition) << "|uses:";
          for (const auto& used : tx.ListUses(scope, o.id)) out << used << ',';
          out << '\n';
        }
      }
    });
    return out.str();
  }

  TestDatabase database;
  std::unique_ptr<storage::MetadataStore> store;
};

inline void CloneProject(Environment& from, Environment& to, const std::string& project_id) {
  std::vector<model::ObjectRecord> project_objects;
  std::vector<model::ObjectRecord> configuration;
  std::vector<storage::ProjectRecord> projects;
  from.store->Read([&](storage::MetadataTransaction& tx) {
    project_objects = tx.ListObjects(project_id, {});
    configuration = tx.ListObjects("", {});
    projects = tx.ListProjects();
  });
  to.store->Write([&](storage::MetadataTransaction& tx) {
    for (const auto& project : projects) tx.PutProject(project);
    for (const auto& record : configuration) tx.PutObject(record);
    for (const auto& record : project_objects) {
      tx.PutObject(record);
      tx.SetDependencies(project_id, record.id, model::UsedObjectIds(record));
    }
  });
}

}  // namespace tessera::testing
