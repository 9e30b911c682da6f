// service/object/object_service.h
//
// Generic objects and folders. Reads enforce the object's ACL: an object needs browse to be seen,
// in a folder listing or on its own (403 ERR017 otherwise); listings and searches leave out what
// the caller may not browse. Project-level calls take a project id; configuration-level calls
// (users, roles, projects as objects) take "".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "service/object/object_view.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::object {

struct Page {
  int64_t offset = 0;
  int64_t limit = -1;  // -1 = all
};

struct ObjectList {
  int64_t total = 0;  // before paging
  std::vector<ObjectView> items;
};

// One change to an ACL (the body of PUT /api/objects/{id}/acl).
struct AclChange {
  enum class Op { kAdd, kRemove, kReplace };
  Op op = Op::kAdd;
  model::AclEntry entry;
};

struct ObjectPatch {
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::optional<bool> hidden;
  std::vector<AclChange> acl_changes;  // applied in order, in the same transaction
};

// Cuts [offset, offset + limit) out of `items`; negative offsets are the caller's error.
template <typename T>
std::vector<T> SlicePage(std::vector<T> items, const Page& page) {
  size_t begin = std::min(items.size(), static_cast<size_t>(page.offset));
  size_t end = page.limit < 0 ? items.size()
                              : std::min(items.size(), begin + static_cast<size_t>(page.limit));
  return std::vector<T>(std::make_move_iterator(items.begin() + begin),
                        std::make_move_iterator(items.begin() + end));
}

// An object to save in a folder: its id, owner, ACL and times are given on creation.
struct NewObject {
  int type = 0;
  int subtype = 0;
  std::string name;
  std::string description;
  Json definition = Json::object();
};

struct SavedObject {
  ObjectView view;
  bool replaced = false;  // an object of that name, type and subtype was there and was replaced
};

class ObjectService {
 public:
  explicit ObjectService(storage::MetadataStore& store);

  // kNotFound when absent or of another type; kAccessDenied without browse.
  ObjectView Get(const session::Principal& principal, const std::string& project_id,
                 const std::string& id, int type);

  // The objects of the project with these ids, of any type, that the principal may browse, in
  // the order of `ids`; unknown and hidden-from-them ids are left out.
  std::vector<ObjectView> FindVisible(const session::Principal& principal,
                                      const std::string& project_id,
                                      const std::vector<std::string>& ids);

  ObjectList ListFolder(const session::Principal& principal, const std::string& project_id,
                        const std::string& folder_id, const Page& page);

  // The id of predefined folder `folder_type` in the project; a personal folder (My Reports, ...)
  // of the principal is created on first use. kNotFound for an unknown folder type.
  std::string PredefinedFolderId(const session::Principal& principal, const std::string& project_id,
                                 int folder_type);

  // Requires Create application objects and write on the parent. kAlreadyExists when the parent
  // already holds a folder of that name (case-insensitive).
  ObjectView CreateFolder(const session::Principal& principal, const std::string& project_id,
                          const std::string& parent_id, const std::string& name,
                          const std::string& description);

  // Saves `object` in folder `folder_id`: a new object owned by the principal, inheriting the
  // folder's ACL (requires Create application objects and write on the folder), or, when the
  // folder already holds an object of the same type and subtype with that name (case-insensitive),
  // that object with the new description and definition (requires write on it; its id stays).
  SavedObject SaveInFolder(const session::Principal& principal, const std::string& project_id,
                           const std::string& folder_id, NewObject object);

  // Requires write for name, description and hidden, control for ACL changes; all of the patch
  // or nothing. A new version id and modification time on every change.
  ObjectView Update(const session::Principal& principal, const std::string& project_id,
                    const std::string& id, int type, const ObjectPatch& patch);

  // Requires control.
  ObjectView UpdateAcl(const session::Principal& principal, const std::string& project_id,
                       const std::string& id, int type, const std::vector<AclChange>& changes);

  // Requires delete. Refuses predefined folders, non-empty folders and objects used by others.
  void Delete(const session::Principal& principal, const std::string& project_id,
              const std::string& id, int type);

 private:
  storage::MetadataStore& store_;
};

}  // namespace tessera::service::object
