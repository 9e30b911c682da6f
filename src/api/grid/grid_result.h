// api/grid/grid_result.h
//
// The bodies of report and cube instances: one page of an instance's frozen result written straight
// to JSON text (core/json_writer.h), in the v1 hierarchical or the v2 normalised grid format.
//
//   v1  {"id","name","status","instanceId","result":{"definition":{"attributes","metrics",
//       "thresholds","sorting"},"data":{"paging","root"}}}: the page's rows as a tree of
//       attribute elements; a node whose children continue on another page is isPartial; with
//       no attributes root.metrics holds the single row.
//   v2  {"name","id","instanceId","status","definition":{"grid":{...}},"data":{"currentPageBy",
//       "paging","headers","metricValues"}}: rows[j].elements lists the distinct elements of
//       attribute j used by this page, in order of first appearance, and headers.rows indexes
//       them; metricValues.raw / formatted / extras, each omitted when excluded.
// Paging: the page is [offset, offset + limit) cut to the result (limit -1: to the end), `current`
// its row count, `prev` / `next` the neighbouring pages' offsets or null.
// Metric min / max are over the whole result; formatted values use each metric's number format
// ("" for null); form values are text (engine::CellText).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "api/api_version.h"
#include "api/partial_response.h"
#include "engine/cube_query.h"
#include "service/instance/instance_request.h"

namespace tessera::api::grid {

// A dashboard visualization's body starts with its key, name and type instead, and its v1
// definition carries the summaries of the filters that reach it.
struct VisualizationHeader {
  std::string key;
  std::string name;
  std::string visualization_type;
  std::string view_filter_summary;
  std::string element_filter_summary;
  std::string metric_limit_summary;
};

struct GridHeader {
  std::string id;
  std::string name;
  std::string instance_id;
  int status = 1;
  std::optional<VisualizationHeader> visualization;
};

struct GridPage {
  size_t offset = 0;
  int64_t limit = 1000;  // -1 = every row from offset
};

// Whether a top-level key of a v1 body is kept (the general `fields` rule).
using KeepKey = std::function<bool(std::string_view key)>;

struct GridFormat {
  ApiVersion version = ApiVersion::kV2;
  KeepKey keep = [](std::string_view) { return true; };  // v1: the general `fields` rule
  MetricValueParts parts;                                // v2: the `fields` exclusions
};

std::string WriteGrid(const GridHeader& header, const service::instance::InstanceGrid& grid,
                      const engine::ResultSet& result, const GridPage& page,
                      const GridFormat& format);

}  // namespace tessera::api::grid
