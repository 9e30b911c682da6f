// Fuzz harness: project bundles (model/bundle/bundle.h), the YAML folders `tessera project import`
// reads.
//
// Input: the bundle's files as sections (fuzz/fuzz_support.h), e.g.
//   === project.yaml
//   name: Shop
//   === reports/sales.yaml
//   name: Sales
// Section names other than the bundle's own files (project.yaml, the list files, and *.yaml in
// reports/, cubes/ and dashboards/ with a plain file name) are ignored.
//
// Contract checked: ReadBundle() either returns a bundle or throws BundleError with at least one
// problem; nothing else escapes. A bundle it returns survives WriteBundle() and ReadBundle()
// again with the same ids, types, names, definitions and folders.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/json.h"
#include "fuzz/fuzz_support.h"
#include "model/bundle/bundle.h"
#include "model/bundle/layout.h"

namespace {

namespace fs = std::filesystem;
using tessera::model::bundle::Bundle;

bool IsPlainYamlName(std::string_view name) {
  if (name.empty() || name.size() > 64 || !name.ends_with(".yaml") || name.starts_with('.')) {
    return false;
  }
  for (char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.';
    if (!plain) return false;
  }
  return true;
}

bool IsBundleFile(std::string_view name) {
  if (name == "project.yaml") return true;
  for (const auto& list : tessera::model::bundle::kListFiles) {
    if (name == list.file) return true;
  }
  for (const auto& folder : tessera::model::bundle::kObjectFolders) {
    std::string prefix = std::string(folder.folder) + "/";
    if (name.starts_with(prefix) && IsPlainYamlName(name.substr(prefix.size()))) return true;
  }
  return false;
}

fs::path FreshDirectory(const std::string& name) {
  fs::path directory = tessera::fuzz::ScratchDir() / name;
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

void WriteInput(std::string_view input, const fs::path& directory) {
  for (const auto& section : tessera::fuzz::SplitSections(input)) {
    if (!IsBundleFile(section.name)) continue;
    fs::path path = directory / section.name;
    fs::create_directories(path.parent_path());
    tessera::fuzz::WriteBytes(path, section.content);
  }
}

void ExpectSameObjects(const Bundle& first, const Bundle& again) {
  if (first.project_id != again.project_id || first.project_name != again.project_name) {
    tessera::fuzz::Finding("a written bundle reads back as another project", again.project_name);
  }
  if (first.objects.size() != again.objects.size()) {
    tessera::fuzz::Finding(
        "a written bundle reads back with another object count",
        std::to_string(first.objects.size()) + " then " + std::to_string(again.objects.size()));
  }
  for (size_t i = 0; i < first.objects.size(); ++i) {
    const auto& a = first.objects[i];
    const auto& b = again.objects[i];
    if (a.record.id != b.record.id || a.record.type != b.record.type ||
        a.record.subtype != b.record.subtype || a.record.name != b.record.name ||
        a.folder_path != b.folder_path || a.record.definition != b.record.definition) {
      tessera::fuzz::Finding("a written bundle reads back with another object",
                             a.location + ": " + tessera::DumpJson(a.record.definition) + "\n" +
                                 b.location + ": " + tessera::DumpJson(b.record.definition));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path directory = FreshDirectory("bundle");
  WriteInput(std::string_view(reinterpret_cast<const char*>(data), size), directory);
  Bundle bundle;
  try {
    bundle = tessera::model::bundle::ReadBundle(directory);
  } catch (const tessera::model::bundle::BundleError& error) {
    if (error.problems().empty()) tessera::fuzz::Finding("a BundleError lists no problem", "");
    return 0;
  }
  const fs::path written = FreshDirectory("written");
  tessera::model::bundle::WriteBundle(bundle, written);
  try {
    ExpectSameObjects(bundle, tessera::model::bundle::ReadBundle(written));
  } catch (const tessera::model::bundle::BundleError& error) {
    tessera::fuzz::Finding("a written bundle does not read back", error.problems().front());
  }
  return 0;
}
