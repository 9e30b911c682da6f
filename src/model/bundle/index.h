// model/bundle/index.h
//
// The objects of one bundle by kind, name and id: what references in bundle files resolve
// against. A reference is the name of an object of an expected kind, or the id (32 hex, either
// case) of one. Names are unique per type code — a report and a cube may not share a name, since
// both are type 3 and their deterministic ids would collide — and ids are unique across the bundle.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::model::bundle {

// In the order ReadBundle lists objects (each refers only to kinds before it, except filters,
// which may name metrics, and dashboards).
enum class BundleKind { kTable, kAttribute, kFact, kMetric, kFilter, kCube, kReport, kDashboard };

int KindType(BundleKind kind);
int KindSubtype(BundleKind kind);
std::string_view KindNoun(BundleKind kind);    // "attribute"
std::string KindWithArticle(BundleKind kind);  // "an attribute"
std::optional<BundleKind> KindOf(int type, int subtype);

class BundleIndex {
 public:
  explicit BundleIndex(std::string project_name) : project_name_(std::move(project_name)) {}

  // DeterministicObjectId("tessera:<project>:<type>:<name>"), the id of an object without `id`.
  std::string DeterministicId(BundleKind kind, std::string_view name) const;

  // Records an object found at `location`; returns a problem message when its name (per type
  // code) or its id is already taken, and then records nothing.
  std::optional<std::string> Declare(BundleKind kind, const std::string& name,
                                     const std::string& id, const std::string& location);

  std::optional<std::string> Resolve(std::span<const BundleKind> kinds,
                                     std::string_view reference) const;
  std::optional<std::string> Resolve(BundleKind kind, std::string_view reference) const {
    return Resolve(std::span<const BundleKind>(&kind, 1), reference);
  }

  // The name of the object with `id`, or `id` itself when the bundle has no such object.
  std::string NameOf(const std::string& id) const;

  // Attribute form names, for form qualifications.
  void SetForms(const std::string& attribute_id, std::vector<std::string> form_names);
  const std::vector<std::string>* Forms(const std::string& attribute_id) const;

 private:
  struct Entry {
    BundleKind kind;
    std::string name;
    std::string location;
  };

  std::string project_name_;
  std::map<std::string, Entry> by_id_;
  std::map<std::pair<int, std::string>, std::string> ids_by_type_and_name_;
  std::map<std::string, std::vector<std::string>> forms_;
};

}  // namespace tessera::model::bundle
