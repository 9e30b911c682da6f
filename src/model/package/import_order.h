// model/package/import_order.h
//
// The fixed order in which an import writes package objects, so that an object is written after
// what it uses as far as types allow:
//   project packages:        folders (parents first), tables and columns, attributes, facts,
//                            hierarchies, transformations, functions, filters and custom groups,
//                            prompts, metrics, templates, reports and cubes, documents and
//                            dashboards, then every other type;
//   configuration packages:  security roles, users, user groups, then the rest;
//   project_security:        as configuration (it carries users and groups only).
// Deletions are not ordered here: they run last, in reverse order.
#pragma once

#include <compare>

#include "model/package/kind.h"

namespace tessera::model::package {

// Smaller ranks are written first.
int ImportRank(PackageKind kind, int type, int subtype);

struct ImportOrderKey {
  int rank = 0;
  int folder_depth = 0;  // 0 for everything but folders: a folder after its parent

  auto operator<=>(const ImportOrderKey&) const = default;
};

// `folder_depth` = the number of the folder's ancestors (a project's root folder has 0); it is
// read only for folders. Objects with equal keys may be written in any order.
ImportOrderKey MakeImportOrderKey(PackageKind kind, int type, int subtype, int folder_depth);

}  // namespace tessera::model::package
