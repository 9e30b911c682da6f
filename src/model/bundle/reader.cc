// ReadBundle (model/bundle/bundle.h): load every file, give every object its id, convert each
// definition with references resolved, then check the whole with SemanticModel::Validate.
// Each step records problems and goes on, so that one run lists them all.
#include <algorithm>
#include <deque>
#include <map>
#include <memory>

#include "core/ids.h"
#include "model/bundle/bundle.h"
#include "model/bundle/definitions.h"
#include "model/bundle/index.h"
#include "model/bundle/layout.h"
#include "model/bundle/yaml.h"
#include "model/object_types.h"
#include "model/semantic_model.h"

namespace tessera::model::bundle {
namespace {

namespace fs = std::filesystem;
using Nodes = std::vector<YAML::Node>;

// An object as found in a file, on its way to a BundleObject.
struct PendingObject {
  BundleKind kind;
  YAML::Node node;
  const YamlFields* fields;
  BundleObject object;
  bool is_declared = false;   // has a name and an id, both its own
  bool has_problems = false;  // its own definition is wrong; Validate's view of it is noise
};

bool IsFolderPath(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.back() == '/') return false;
  return path.find("//") == std::string::npos;
}

std::vector<fs::path> YamlFilesIn(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return files;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class BundleReader {
 public:
  explicit BundleReader(fs::path directory) : directory_(std::move(directory)) {}

  Bundle Read() {
    ReadProject();
    for (const auto& list : kListFiles) CollectList(list);
    for (const auto& folder : kObjectFolders) CollectFolder(folder);
    index_ = std::make_unique<BundleIndex>(bundle_.project_name);
    for (auto& pending : pending_) Declare(pending);
    for (auto& pending : pending_) Convert(pending);
    ValidateModel();
    if (!problems_.empty()) throw BundleError(problems_.list());
    for (auto& pending : pending_) bundle_.objects.push_back(std::move(pending.object));
    return std::move(bundle_);
  }

 private:
  const YamlFields* Open(const std::string& file, bool required, YAML::Node& root) {
    std::optional<YAML::Node> loaded = LoadYamlFile(directory_ / file, file, required, problems_);
    if (!loaded) return nullptr;
    root = *loaded;
    return &files_.emplace_back(file, problems_);
  }

  void ReadProject() {
    YAML::Node root;
    const YamlFields* fields = Open("project.yaml", true, root);
    if (!fields || !fields->ExpectMap(root, "the project {name, description, warehouse}")) return;
    bundle_.project_name = fields->String(root, "name", true).value_or("");
    bundle_.description = fields->String(root, "description", false).value_or("");
    bundle_.warehouse = fields->String(root, "warehouse", false).value_or("");
    bundle_.project_id = ProjectId(*fields, root);
    for (const auto& folder : fields->Sequence(root, "folders", false).value_or(Nodes{})) {
      std::optional<std::string> path = fields->ScalarText(folder, "a folder path");
      if (path && !IsFolderPath(*path)) {
        fields->Problem(folder,
                        "'" + *path + "' is not a folder path like \"Public Objects/Sales\"");
      } else if (path) {
        bundle_.folder_paths.push_back(*path);
      }
    }
  }

  std::string ProjectId(const YamlFields& fields, const YAML::Node& root) {
    if (auto id = ExplicitId(fields, root)) return *id;
    return DeterministicObjectId("tessera:" + bundle_.project_name + ":" +
                                 std::to_string(kTypeProject) + ":" + bundle_.project_name);
  }

  std::optional<std::string> ExplicitId(const YamlFields& fields, const YAML::Node& node) {
    const std::optional<std::string> text = fields.String(node, "id", false);
    if (!text) return std::nullopt;
    std::optional<std::string> id = CanonicalObjectId(*text);
    if (!id) fields.Problem(node["id"], "id: '" + *text + "' is not an object id (32 hex digits)");
    return id;
  }

  void CollectList(const ListFile& list) {
    YAML::Node root;
    const YamlFields* fields = Open(list.file, false, root);
    if (!fields || root.IsNull()) return;
    if (!fields->ExpectMap(root, std::string("a mapping with '") + list.key + "'")) return;
    for (const auto& node : fields->Sequence(root, list.key, true).value_or(Nodes{})) {
      pending_.push_back({list.kind, node, fields, {}});
    }
  }

  void CollectFolder(const ObjectFolder& folder) {
    for (const auto& path : YamlFilesIn(directory_ / folder.folder)) {
      YAML::Node root;
      const std::string file = std::string(folder.folder) + "/" + path.filename().string();
      if (const YamlFields* fields = Open(file, true, root)) {
        pending_.push_back({folder.kind, root, fields, {}});
      }
    }
  }

  void Declare(PendingObject& pending) {
    const YamlFields& fields = *pending.fields;
    pending.object.location = fields.Location(pending.node);
    if (!fields.ExpectMap(pending.node, KindWithArticle(pending.kind))) return;
    ObjectRecord& record = pending.object.record;
    const std::optional<std::string> name = fields.String(pending.node, "name", true);
    if (!name) return;
    record.name = *name;
    record.type = KindType(pending.kind);
    record.subtype = KindSubtype(pending.kind);
    record.id =
        ExplicitId(fields, pending.node).value_or(index_->DeterministicId(pending.kind, *name));
    record.description = fields.String(pending.node, "description", false).value_or("");
    pending.object.folder_path = FolderPath(fields, pending.node, record);
    if (auto duplicate =
            index_->Declare(pending.kind, record.name, record.id, pending.object.location)) {
      fields.Problem(pending.node, *duplicate);
      return;
    }
    pending.is_declared = true;
    if (pending.kind == BundleKind::kAttribute) DeclareForms(pending);
  }

  std::string FolderPath(const YamlFields& fields, const YAML::Node& node,
                         const ObjectRecord& record) {
    const std::optional<std::string> folder = fields.String(node, "folder", false);
    if (!folder) return DefaultFolderPath(record.type, record.subtype);
    if (!IsFolderPath(*folder)) {
      fields.Problem(node["folder"], "folder: '" + *folder +
                                         "' is not a folder path like \"Public Objects/Sales\"");
    }
    return *folder;
  }

  void DeclareForms(const PendingObject& pending) {
    std::vector<std::string> names;
    // A missing key reads as an invalid node: IsDefined() first, the other tests would throw.
    const YAML::Node forms = pending.node["forms"];
    if (!forms.IsDefined() || !forms.IsSequence()) return;
    for (const auto& form : forms) {
      if (!form.IsMap()) continue;
      const YAML::Node name = form["name"];
      if (name.IsDefined() && name.IsScalar()) names.push_back(name.Scalar());
    }
    index_->SetForms(pending.object.record.id, std::move(names));
  }

  void Convert(PendingObject& pending) {
    if (!pending.node.IsMap()) return;
    const size_t problems_before = problems_.size();
    pending.object.record.definition =
        DefinitionFromYaml(pending.kind, pending.node, *pending.fields, *index_);
    pending.has_problems = !pending.is_declared || problems_.size() > problems_before;
  }

  void ValidateModel() {
    std::vector<ObjectRecord> records;
    std::map<std::string, const PendingObject*> by_id;
    for (const auto& pending : pending_) {
      if (!pending.is_declared) continue;
      records.push_back(pending.object.record);
      by_id[pending.object.record.id] = &pending;
    }
    std::vector<ModelProblem> model_problems;
    try {
      model_problems = SemanticModel::Validate(records);
    } catch (const std::exception& e) {
      problems_.Add("project.yaml: the model could not be checked: " + std::string(e.what()));
    }
    for (const auto& problem : model_problems) {
      auto object = by_id.find(problem.object_id);
      if (object == by_id.end()) {
        problems_.Add("project.yaml: " + problem.message);
      } else if (!object->second->has_problems) {
        problems_.Add(object->second->object.location + ": " + problem.message);
      }
    }
  }

  fs::path directory_;
  BundleProblems problems_;
  std::deque<YamlFields> files_;  // stable addresses for PendingObject::fields
  std::vector<PendingObject> pending_;
  std::unique_ptr<BundleIndex> index_;
  Bundle bundle_;
};

}  // namespace

Bundle ReadBundle(const std::filesystem::path& directory) {
  try {
    return BundleReader(directory).Read();
  } catch (const YAML::Exception& error) {
    // A shape the reader's checks did not foresee: still the bundle's problem, never a crash.
    throw BundleError({"the bundle's YAML has an unexpected shape: " + std::string(error.what())});
  }
}

}  // namespace tessera::model::bundle
