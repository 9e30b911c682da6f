// model/package/entry.h
//
// One object as a package file carries it: the object's record with its source id, version and
// dates, where it sits in the source (its ancestor folders, nearest first), what it uses, whether
// the package content listed it, and -- in undo packages -- how undo restores it.
//
// Entry JSON, keys in this order:
//   {"id", "type", "subtype", "extType", "name", "description", "abbreviation", "version",
//    "dateCreated", "dateModified", "owner": {"id"}, "acl": [...], "parentId", "hidden",
//    "certified", "level": "project_object"|"configuration_object",
//    "ancestors": [{"id", "name"}], "uses": ["<id>"], "explicitIncluded", "implicitFolder",
//    "undoAction": "force_replace"|"delete" (undo entries only), "definition": {...}}
// An implicit folder is an ancestor of a package object that the package carries only so that
// the object's path can exist in the target; it is imported with use_existing.
//
// EntryFromJson restores exactly what EntryToJson wrote (dates to the millisecond) and throws
// Error(kInvalidInput) naming the key when an entry is malformed.
#pragma once

#include <string>
#include <vector>

#include "model/object.h"

namespace tessera::model::package {

struct PackageAncestor {
  std::string id;
  std::string name;
};

enum class UndoAction {
  kNone,     // a package entry
  kRestore,  // "force_replace": put the record back exactly as it is
  kDelete,   // "delete": the import created the object; undo deletes it
};

struct PackageObject {
  ObjectRecord record;  // project_id is "" for configuration objects, else any non-empty value
  std::vector<PackageAncestor> ancestors;  // nearest first, up to a root folder
  std::vector<std::string> uses;
  bool explicit_included = false;
  bool implicit_folder = false;
  UndoAction undo_action = UndoAction::kNone;
};

Json EntryToJson(const PackageObject& object);

// `project_id` becomes the record's project_id for a project object ("" stays "").
PackageObject EntryFromJson(const Json& entry, const std::string& project_id);

std::vector<std::string> AncestorIds(const PackageObject& object);

}  // namespace tessera::model::package
