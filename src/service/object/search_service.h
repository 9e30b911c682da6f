// service/object/search_service.h
//
// Object search: the quick search, answered at once, and the two-step metadata search whose hits
// are stored for the session (until logout or expiry) and fetched in pages. Both search live
// metadata and show only objects the caller may browse. Hits are ordered by name, then id, so pages
// are stable.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/time.h"
#include "service/object/object_service.h"
#include "service/session/principal.h"
#include "storage/metadata_store.h"

namespace tessera::service::object {

// How a name matches: the `pattern` query parameter's codes (default 4, contains).
enum class NamePattern {
  kAnyWord = 0,
  kBeginsWith = 1,
  kExactly = 2,
  kBeginsWithPhrase = 3,
  kContains = 4,
  kEndsWith = 5
};

enum class CertifiedFilter { kAll, kCertifiedOnly, kNotCertifiedOnly };

struct ObjectReference {
  std::string id;
  int type = 0;
};

struct SearchQuery {
  std::optional<std::string> name;
  NamePattern pattern = NamePattern::kContains;
  std::vector<int> types;           // type or subtype codes; empty = every type
  std::optional<std::string> root;  // folder id; default: the project root
  bool include_subfolders = true;
  CertifiedFilter certified = CertifiedFilter::kAll;
  std::optional<bool> hidden;  // keep only hidden (true) or only visible (false)
  std::optional<ObjectReference> uses_object;
  std::optional<ObjectReference> used_by_object;
  bool uses_recursive = false;
  bool used_by_recursive = false;
  std::optional<Timestamp> modified_after;
  std::optional<Timestamp> modified_before;
  std::optional<Timestamp> created_after;
  std::optional<Timestamp> created_before;
  std::optional<std::string> description_contains;
  std::optional<std::string> owner_id;
  std::vector<std::string> excluded_folders;
  bool get_ancestors = false;
};

struct StoredSearch {
  std::string id;
  int64_t total = 0;
};

class SearchService {
 public:
  explicit SearchService(storage::MetadataStore& store);

  // `project_id` "" searches configuration-level objects.
  ObjectList QuickSearch(const session::Principal& principal, const std::string& project_id,
                         const SearchQuery& query, const Page& page);

  StoredSearch Start(const session::Principal& principal, const std::string& session_id,
                     const std::string& project_id, const SearchQuery& query);

  // kNotFound for an unknown search id or one of another session.
  ObjectList Fetch(const session::Principal& principal, const std::string& session_id,
                   const std::string& search_id, const Page& page, bool with_ancestors);

 private:
  std::vector<ObjectView> Run(storage::MetadataTransaction& tx, const session::Principal& principal,
                              const std::string& project_id, const SearchQuery& query);

  storage::MetadataStore& store_;
};

}  // namespace tessera::service::object
