// WriteBundle (model/bundle/bundle.h): project.yaml, one list file per schema or filter kind, one
// file per report, cube and dashboard, named after the object ("Sales by Region" ->
// reports/sales-by-region.yaml, then -2, -3 ... for clashes). Keys come in a fixed order
// (name, id, description, folder, then the kind's own), and id and folder only when they differ
// from what ReadBundle would derive, so an exported bundle reads like an authored one.
#include <cctype>
#include <fstream>
#include <set>

#include "core/error.h"
#include "core/ids.h"
#include "model/bundle/bundle.h"
#include "model/bundle/definitions.h"
#include "model/bundle/emit.h"
#include "model/bundle/index.h"
#include "model/bundle/layout.h"
#include "model/object_types.h"

namespace tessera::model::bundle {
namespace {

namespace fs = std::filesystem;

std::optional<BundleKind> KindOfObject(const BundleObject& object) {
  return KindOf(object.record.type, object.record.subtype);
}

BundleIndex IndexOf(const Bundle& bundle) {
  BundleIndex index(bundle.project_name);
  for (const auto& object : bundle.objects) {
    if (auto kind = KindOfObject(object)) {
      index.Declare(*kind, object.record.name, object.record.id, object.location);
    }
  }
  return index;
}

// "Sales by Region" -> "sales-by-region".
std::string FileStem(const std::string& name, BundleKind kind) {
  std::string stem;
  for (unsigned char c : name) {
    if (std::isalnum(c)) {
      stem += static_cast<char>(std::tolower(c));
    } else if (!stem.empty() && stem.back() != '-') {
      stem += '-';
    }
  }
  while (!stem.empty() && stem.back() == '-') stem.pop_back();
  return stem.empty() ? std::string(KindNoun(kind)) : stem;
}

std::string UniqueStem(const std::string& stem, std::set<std::string>& taken) {
  std::string candidate = stem;
  for (int n = 2; !taken.insert(candidate).second; ++n) candidate = stem + "-" + std::to_string(n);
  return candidate;
}

void WriteFile(const fs::path& path, const YAML::Emitter& out) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << out.c_str() << "\n";
  if (!file) throw Error(ErrorCode::kInternal, "cannot write " + path.string());
}

void RemoveYamlFiles(const fs::path& folder) {
  std::error_code error;
  if (!fs::is_directory(folder, error)) return;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") fs::remove(entry.path());
  }
}

void EmitObject(YAML::Emitter& out, BundleKind kind, const BundleObject& object,
                const BundleIndex& index) {
  const ObjectRecord& record = object.record;
  out << YAML::BeginMap;
  EmitField(out, "name", record.name);
  if (record.id != index.DeterministicId(kind, record.name)) EmitField(out, "id", record.id);
  EmitField(out, "description", record.description);
  if (object.folder_path != DefaultFolderPath(record.type, record.subtype)) {
    EmitField(out, "folder", object.folder_path);
  }
  EmitDefinition(out, kind, record, index);
  out << YAML::EndMap;
}

void WriteProject(const Bundle& bundle, const fs::path& directory) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  EmitField(out, "name", bundle.project_name);
  const std::string project_key = "tessera:" + bundle.project_name + ":" +
                                  std::to_string(kTypeProject) + ":" + bundle.project_name;
  if (bundle.project_id != DeterministicObjectId(project_key)) {
    EmitField(out, "id", bundle.project_id);
  }
  EmitField(out, "description", bundle.description);
  EmitField(out, "warehouse", bundle.warehouse);
  if (!bundle.folder_paths.empty()) {
    out << YAML::Key << "folders" << YAML::Value << YAML::BeginSeq;
    for (const auto& path : bundle.folder_paths) EmitText(out, path);
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  WriteFile(directory / "project.yaml", out);
}

void WriteList(const Bundle& bundle, const ListFile& list, const BundleIndex& index,
               const fs::path& directory) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << list.key << YAML::Value << YAML::BeginSeq;
  bool is_empty = true;
  for (const auto& object : bundle.objects) {
    if (KindOfObject(object) != list.kind) continue;
    EmitObject(out, list.kind, object, index);
    is_empty = false;
  }
  out << YAML::EndSeq << YAML::EndMap;
  if (is_empty) {
    fs::remove(directory / list.file);
  } else {
    WriteFile(directory / list.file, out);
  }
}

void WriteFolder(const Bundle& bundle, const ObjectFolder& folder, const BundleIndex& index,
                 const fs::path& directory) {
  const fs::path path = directory / folder.folder;
  RemoveYamlFiles(path);
  std::set<std::string> stems;
  for (const auto& object : bundle.objects) {
    if (KindOfObject(object) != folder.kind) continue;
    fs::create_directories(path);
    YAML::Emitter out;
    EmitObject(out, folder.kind, object, index);
    WriteFile(path / (UniqueStem(FileStem(object.record.name, folder.kind), stems) + ".yaml"), out);
  }
}

}  // namespace

void WriteBundle(const Bundle& bundle, const std::filesystem::path& directory) {
  const BundleIndex index = IndexOf(bundle);
  try {
    fs::create_directories(directory);
    WriteProject(bundle, directory);
    for (const auto& list : kListFiles) WriteList(bundle, list, index, directory);
    for (const auto& folder : kObjectFolders) WriteFolder(bundle, folder, index, directory);
  } catch (const fs::filesystem_error& e) {
    throw Error(ErrorCode::kInternal,
                "cannot write the bundle to " + directory.string() + ": " + e.what());
  }
}

}  // namespace tessera::model::bundle
