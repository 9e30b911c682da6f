// service/bundle/bundle_prune.h
//
// `tessera project import --prune`: after a bundle is written into its project, the objects the
// bundle no longer has go (service/bundle/bundle_service.h).
//
// Contract: PruneToBundle, inside the import's transaction, deletes every object of the project
// whose kind a bundle holds (model::KindOf: tables, attributes, facts, metrics, filters, cubes,
// reports, dashboards) and whose id is not in `kept_ids`, with its dependency list and its cube
// snapshot record, and returns them ordered by kind, then name. Objects of other kinds and folders
// are never deleted. Before deleting anything it checks that no object that stays uses one to be
// deleted; otherwise it throws Error(kInvalidInput):
//   "Cannot prune: report 'Extra' (ID) is still used by object of type 18 'Link' (ID), which
//    stays; nothing was imported"
// listing every such object ("; " between them) with all the users that stay.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "service/bundle/bundle_service.h"
#include "storage/metadata_store.h"

namespace tessera::service::bundle {

std::vector<ImportedObject> PruneToBundle(storage::MetadataTransaction& tx,
                                          const std::string& project_id,
                                          const std::set<std::string>& kept_ids);

// "report", "metric", ... for a bundle kind; "object of type N" for any other object.
std::string KindOfObject(int type, int subtype);

}  // namespace tessera::service::bundle
