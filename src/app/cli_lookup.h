// app/cli_lookup.h
//
// Finding what a person names on the command line -- a project, or a report or cube -- by id or
// by name. Ids and names compare ignoring case; when several names match that way, those spelt
// exactly as given win. Reads only.
//
// Contract: every failure throws std::invalid_argument saying what is missing and what exists:
//   "no project 'Nope'; the projects are: Sales, Tutorial" (or "there are no projects yet")
//   "no report or cube 'X' in project 'Tutorial'" / "... in any project"
//   "no cube 'X' in any project" (FindCube: reports are not looked at)
//   "'sales' names 2 projects: 'Sales' (ID), 'SALES' (ID); give its exact name or its id"
#pragma once

#include <string>

#include "model/object.h"
#include "storage/metadata_store.h"

namespace tessera::app {

struct ProjectRef {
  std::string id;
  std::string name;
};

ProjectRef FindProject(storage::MetadataStore& store, const std::string& id_or_name);

// A report definition object -- a grid report, a cube or a pushed dataset -- and its project.
struct FoundReport {
  ProjectRef project;
  model::ObjectRecord object;
};

// The report or cube `id_or_name` in the project `project` names, or in every project when
// `project` is empty.
FoundReport FindReportOrCube(storage::MetadataStore& store, const std::string& id_or_name,
                             const std::string& project);

// The same among cubes only (OLAP cubes and datasets).
FoundReport FindCube(storage::MetadataStore& store, const std::string& id_or_name,
                     const std::string& project);

}  // namespace tessera::app
