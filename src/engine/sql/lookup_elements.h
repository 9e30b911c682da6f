// engine/sql/lookup_elements.h
//
// The elements of an attribute as its lookup table holds them (the element listing of reports,
// which read the warehouse): the distinct combinations of the attribute's forms in its lookup
// table, one value per form in form order (ID first), ordered by the ID form the way dictionaries
// order them (engine/dictionary.h: a null ID first, text by bytes), then cut to
// [offset, offset + limit) by the database. `total` counts every element, whatever the page.
//
// Safety: identifiers come from the model only and are quoted; offset and limit are bound
// parameters.
//
// Errors: Error(kNotFound) when the model has no such attribute or table; what the warehouse
// throws (engine/warehouse/warehouse.h), unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/warehouse/warehouse.h"
#include "model/semantic_model.h"

namespace tessera::engine::sql {

struct ElementRange {
  int64_t offset = 0;
  std::optional<int64_t> limit;  // nullopt = to the end
};

// SELECT of one page of elements; its columns are the forms, in form order.
warehouse::SqlStatement LookupElementsSql(const model::SemanticModel& model,
                                          const model::Attribute& attribute,
                                          warehouse::Dialect dialect, const ElementRange& range);
// SELECT COUNT(*) of every element.
warehouse::SqlStatement LookupElementCountSql(const model::SemanticModel& model,
                                              const model::Attribute& attribute);

struct LookupElements {
  std::vector<std::vector<warehouse::SqlValue>>
      rows;  // one per element of the page, one value per form
  int64_t total = 0;
};

LookupElements ListLookupElements(warehouse::Warehouse& warehouse,
                                  const model::SemanticModel& model,
                                  const model::Attribute& attribute, const ElementRange& range,
                                  const warehouse::QueryOptions& options = {});

}  // namespace tessera::engine::sql
