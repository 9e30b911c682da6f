#include "service/object/search_service.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "model/well_known.h"

namespace tessera::service::object {

namespace {

bool NameMatches(const std::string& name, const SearchQuery& query) {
  if (!query.name || query.name->empty()) return true;
  const std::string& text = *query.name;
  switch (query.pattern) {
    case NamePattern::kAnyWord:
      for (const auto& word : Split(text, ' ')) {
        if (!word.empty() && ContainsIgnoreCase(name, word)) return true;
      }
      return false;
    case NamePattern::kBeginsWith:
    case NamePattern::kBeginsWithPhrase:
      return StartsWithIgnoreCase(name, text);
    case NamePattern::kExactly:
      return EqualsIgnoreCase(name, text);
    case NamePattern::kContains:
      return ContainsIgnoreCase(name, text);
    case NamePattern::kEndsWith:
      return EndsWithIgnoreCase(name, text);
  }
  return false;
}

bool TypeMatches(const model::ObjectRecord& object, const std::vector<int>& codes) {
  if (codes.empty()) return true;
  return std::any_of(codes.begin(), codes.end(), [&](int code) {
    return model::IsSubtypeCode(code) ? object.subtype == code : object.type == code;
  });
}

storage::ObjectFilter StorageFilter(const std::vector<int>& codes) {
  storage::ObjectFilter filter;
  for (int code : codes) {
    (model::IsSubtypeCode(code) ? filter.subtypes : filter.types).push_back(code);
  }
  return filter;
}

bool InRange(Timestamp at, const std::optional<Timestamp>& after,
             const std::optional<Timestamp>& before) {
  return (!after || at >= *after) && (!before || at <= *before);
}

// Every object reachable from `start` along uses (or used-by) edges, one step or transitively.
std::set<std::string> Related(storage::MetadataTransaction& tx, const std::string& project_id,
                              const std::string& start, bool follow_uses, bool recursive) {
  std::set<std::string> found;
  std::vector<std::string> pending{start};
  while (!pending.empty()) {
    std::string id = pending.back();
    pending.pop_back();
    auto next = follow_uses ? tx.ListUses(project_id, id) : tx.ListUsedBy(project_id, id);
    for (auto& other : next) {
      if (found.insert(other).second && recursive) pending.push_back(other);
    }
  }
  return found;
}

}  // namespace

SearchService::SearchService(storage::MetadataStore& store) : store_(store) {}

std::vector<ObjectView> SearchService::Run(storage::MetadataTransaction& tx,
                                           const session::Principal& principal,
                                           const std::string& project_id,
                                           const SearchQuery& query) {
  ObjectViewBuilder builder(tx, principal);
  std::optional<std::string> root = query.root;
  if (!root && !project_id.empty()) root = std::string(model::kRootFolderId);
  if (root) {
    auto folder = tx.FindObject(project_id, *root);
    if (!folder || folder->type != model::kTypeFolder) {
      throw Error(ErrorCode::kInvalidInput,
                  "root: '" + *root + "' is not a folder of this project");
    }
  }
  // "Objects that use X" are the ones X is used by, and the reverse.
  std::optional<std::set<std::string>> allowed_ids;
  if (query.uses_object) {
    allowed_ids = Related(tx, project_id, query.uses_object->id, false, query.uses_recursive);
  }
  if (query.used_by_object) {
    allowed_ids = Related(tx, project_id, query.used_by_object->id, true, query.used_by_recursive);
  }
  const std::set<std::string> excluded(query.excluded_folders.begin(),
                                       query.excluded_folders.end());

  std::vector<ObjectView> hits;
  for (const auto& object : tx.ListObjects(project_id, StorageFilter(query.types))) {
    if (!TypeMatches(object, query.types) || !NameMatches(object.name, query)) continue;
    if (allowed_ids && !allowed_ids->count(object.id)) continue;
    if (query.hidden && object.hidden != *query.hidden) continue;
    if (query.certified == CertifiedFilter::kCertifiedOnly && !object.certified) continue;
    if (query.certified == CertifiedFilter::kNotCertifiedOnly && object.certified) continue;
    if (!InRange(object.modified, query.modified_after, query.modified_before)) continue;
    if (!InRange(object.created, query.created_after, query.created_before)) continue;
    if (query.description_contains &&
        !ContainsIgnoreCase(object.description, *query.description_contains)) {
      continue;
    }
    if (query.owner_id && !EqualsIgnoreCase(object.owner_id, *query.owner_id)) continue;
    if (root || !excluded.empty()) {
      std::vector<std::string> ancestors = builder.AncestorIds(object);
      if (root) {
        bool under_root = query.include_subfolders ? std::find(ancestors.begin(), ancestors.end(),
                                                               *root) != ancestors.end()
                                                   : object.folder_id == *root;
        if (!under_root) continue;
      }
      if (std::any_of(ancestors.begin(), ancestors.end(),
                      [&](const std::string& id) { return excluded.count(id) > 0; })) {
        continue;
      }
    }
    if (!(principal.RightsOn(object) & model::kRightBrowse)) continue;
    hits.push_back(builder.Build(object, query.get_ancestors));
  }
  std::sort(hits.begin(), hits.end(), [](const ObjectView& a, const ObjectView& b) {
    return std::tie(a.record.name, a.record.id) < std::tie(b.record.name, b.record.id);
  });
  return hits;
}

ObjectList SearchService::QuickSearch(const session::Principal& principal,
                                      const std::string& project_id, const SearchQuery& query,
                                      const Page& page) {
  ObjectList list;
  store_.Read([&](storage::MetadataTransaction& tx) {
    auto hits = Run(tx, principal, project_id, query);
    list.total = static_cast<int64_t>(hits.size());
    list.items = SlicePage(std::move(hits), page);
  });
  return list;
}

StoredSearch SearchService::Start(const session::Principal& principal,
                                  const std::string& session_id, const std::string& project_id,
                                  const SearchQuery& query) {
  storage::SearchRecord record;
  record.id = NewObjectId();
  record.session_id = session_id;
  record.project_id = project_id;
  record.created = Now();
  store_.Write([&](storage::MetadataTransaction& tx) {
    for (const auto& hit : Run(tx, principal, project_id, query)) {
      record.object_ids.push_back(hit.record.id);
    }
    tx.PutSearch(record);
  });
  return {record.id, static_cast<int64_t>(record.object_ids.size())};
}

ObjectList SearchService::Fetch(const session::Principal& principal, const std::string& session_id,
                                const std::string& search_id, const Page& page,
                                bool with_ancestors) {
  ObjectList list;
  store_.Read([&](storage::MetadataTransaction& tx) {
    auto search = tx.FindSearch(ToUpper(search_id));
    if (!search || search->session_id != session_id) {
      throw Error(ErrorCode::kNotFound, "Search '" + search_id + "' was not found in this session");
    }
    list.total = static_cast<int64_t>(search->object_ids.size());
    std::vector<std::string> ids = SlicePage(search->object_ids, page);
    ObjectViewBuilder builder(tx, principal);
    for (const auto& object : tx.FindObjects(search->project_id, ids)) {
      if (!(principal.RightsOn(object) & model::kRightBrowse)) continue;
      list.items.push_back(builder.Build(object, with_ancestors));
    }
  });
  return list;
}

}  // namespace tessera::service::object
