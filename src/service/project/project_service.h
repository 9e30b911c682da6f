// service/project/project_service.h
//
// Projects: listing, lookup by id or name, the project header of every project-scoped call, and
// creation with the predefined folder tree (model/well_known.h). A user sees a project when it
// holds browse on the project's object row.
//
// Every call reads the projects from a snapshot kept in memory (the project records and their
// owners' names), so the calls made on every request do not reach the store. The snapshot is
// read again from the store when it may be out of date:
//   - after this node commits a change to the directory (MetadataStore::DirectoryGeneration());
//   - after a notice on kDirectoryNoticeChannel, or one that notices may have been missed
//     (HearNotice): another node changed it;
//   - once it is older than `cache_ttl`, which bounds how long a change made where no notice is
//     sent (another process on the same SQLite file) goes unseen;
//   - when a project asked for by id or name (Get, ResolveHeader) is not in it, so a project
//     added anywhere is found at once.
// Thread-safe; the snapshot is shared, never changed once built.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "service/object/object_view.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::project {

struct ProjectView {
  storage::ProjectRecord project;
  std::string owner_name;
  int acg = 0;
};

inline constexpr int kProjectStatusActive = 0;

// Writes a new active project with id `id` and its predefined folder tree, owned by `owner_id`,
// inside an open transaction. kAlreadyExists for a taken name.
storage::ProjectRecord CreateProjectInTransaction(storage::MetadataTransaction& tx,
                                                  const std::string& id, const std::string& name,
                                                  const std::string& description,
                                                  const std::string& owner_id);

class ProjectService {
 public:
  explicit ProjectService(storage::MetadataStore& store,
                          std::chrono::milliseconds cache_ttl = std::chrono::milliseconds(2000));

  // Loaded projects (status 0) the principal may access, by name; or every project when
  // `include_unloaded` (the monitors listing).
  std::vector<ProjectView> List(const session::Principal& principal, bool include_unloaded);

  // By upper/lower-case 32-hex id first, then by exact name. kNotFound / kInsufficientPrivileges.
  ProjectView Get(const session::Principal& principal, std::string_view id_or_name);

  // The canonical id named by a project header. Missing -> kMissingParameter; malformed or naming
  // no project -> kInvalidInput; a project the principal may not access ->
  // kInsufficientPrivileges.
  std::string ResolveHeader(const session::Principal& principal, std::string_view header_value);

  // Requires Administer environment. kAlreadyExists for a taken name.
  ProjectView Create(const session::Principal& principal, std::string_view name,
                     std::string_view description);

  // A notice on kDirectoryNoticeChannel, or one with an empty channel: the snapshot is dropped.
  void HearNotice(const storage::Notice& notice);

 private:
  struct Snapshot;
  std::shared_ptr<const Snapshot> CurrentSnapshot();
  std::shared_ptr<const Snapshot> ReadSnapshot();

  storage::MetadataStore& store_;
  const std::chrono::milliseconds cache_ttl_;
  std::mutex mutex_;
  std::shared_ptr<const Snapshot> snapshot_;
  uint64_t notices_heard_ = 0;
};

}  // namespace tessera::service::project
