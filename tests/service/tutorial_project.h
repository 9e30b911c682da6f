// tests/service/tutorial_project.h
//
// The demo Tutorial project for service tests, once per storage backend: a fresh store with the
// administrator (DirectoryService::Bootstrap), the demo bundle imported by the administrator, and
// "heidi", a user with nothing but the Everyone group (so the Normal User role: she may browse
// and run the project's objects, not change them). Expected values come from the bundle's YAML
// files, read here with yaml-cpp, or from the storage service directly, never from the services
// under test.
#pragma once

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ids.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "service/session/principal.h"
#include "support/error_from.h"
#include "support/store_backend_test.h"

namespace tessera::testing {

inline const std::filesystem::path kTutorialBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

// The names listed under `key` in a list file of the bundle, e.g. ("metrics.yaml", "metrics").
inline std::vector<std::string> TutorialListNames(const std::string& file, const std::string& key) {
  std::vector<std::string> names;
  for (const auto& item : YAML::LoadFile((kTutorialBundle / file).string())[key]) {
    names.push_back(item["name"].as<std::string>());
  }
  return names;
}

// The names of the one-object files of a directory of the bundle ("reports", "cubes", ...).
inline std::vector<std::string> TutorialFileNames(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kTutorialBundle / directory)) {
    if (entry.path().extension() != ".yaml") continue;
    names.push_back(YAML::LoadFile(entry.path().string())["name"].as<std::string>());
  }
  return names;
}

inline std::vector<std::string> Sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

inline std::vector<std::string> Concat(std::vector<std::string> a,
                                       const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The names of `names` that `keep` accepts, sorted.
inline std::vector<std::string> SortedWhere(const std::vector<std::string>& names,
                                            const std::function<bool(const std::string&)>& keep) {
  std::vector<std::string> kept;
  std::copy_if(names.begin(), names.end(), std::back_inserter(kept), keep);
  return Sorted(std::move(kept));
}

// The id the bundle gives an object of `type` named `name` (deterministic, per the bundle format).
inline std::string TutorialId(int type, const std::string& name) {
  return DeterministicObjectId("tessera:Tutorial:" + std::to_string(type) + ":" + name);
}

class TutorialProjectTest : public StoreBackendTest {
 protected:
  static constexpr char kHeidiPassword[] = "heidi's password 1";

  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    directory_ = std::make_unique<service::DirectoryService>(*store_);
    directory_->Bootstrap(std::nullopt);
    admin_ = directory_->LoadPrincipal(std::string(model::kAdministratorUserId));
    project_id_ =
        service::bundle::BundleService(*store_).Import(admin_, kTutorialBundle).project_id;
    service::NewUser heidi;
    heidi.username = "heidi";
    heidi.password = kHeidiPassword;
    heidi.full_name = "Heidi Klein";
    heidi_id_ = directory_->CreateUser(admin_, heidi).id;
    heidi_ = directory_->LoadPrincipal(heidi_id_);
  }

  // The object as the storage service holds it (nullopt when absent).
  std::optional<model::ObjectRecord> Stored(const std::string& id) {
    std::optional<model::ObjectRecord> record;
    store_->Read(
        [&](storage::MetadataTransaction& tx) { record = tx.FindObject(project_id_, id); });
    return record;
  }

  // Changes an object directly in the storage service.
  void ChangeStored(const std::string& id,
                    const std::function<void(model::ObjectRecord&)>& change) {
    store_->Write([&](storage::MetadataTransaction& tx) {
      auto record = tx.FindObject(project_id_, id);
      ASSERT_TRUE(record) << id;
      change(*record);
      tx.PutObject(*record);
    });
  }

  // Empties the object's ACL: only its owner (the administrator) and those who bypass object
  // security may see it from now on.
  void MakePrivate(const std::string& id) {
    ChangeStored(id, [](model::ObjectRecord& record) { record.acl.clear(); });
  }

  std::unique_ptr<storage::MetadataStore> store_;
  std::unique_ptr<service::DirectoryService> directory_;
  service::session::Principal admin_;
  service::session::Principal heidi_;
  std::string heidi_id_;
  std::string project_id_;
};

}  // namespace tessera::testing
