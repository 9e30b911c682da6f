// api/partial_response.h
//
// The `fields` query parameter, in the dialect of the endpoint (EndpointSpec::fields). The router
// parses it once per request, before the handler runs (RequestContext::fields()):
//   - kRootFields, the general rule: a comma-separated list of root field names (the parameter
//     may also repeat). Each name starts with a letter and holds only letters, digits and
//     underscores; anything else is 400 ERR006 with the reference server's message. An object
//     keeps only the listed root fields, in the response's own order; an array applies that to
//     each element. RequestContext::Reply() applies it; a handler that streams its answer (the v1
//     grid pages) applies it while writing.
//   - kMetricValueExclusions, the v2 grid pages: "-data.metricValues.raw", ".formatted" and
//     ".extras" leave those parts of the metric values out; other rules are ignored, as the
//     reference server ignores them.
//   - kDatasetObjectTypes, the dataset definitions: the object types to list (tables, columns,
//     attributes, metrics; repeated or comma-separated). Absent: attributes and metrics. Any other
//     name is 400 naming it and the accepted ones.
//   - kNone: not a parameter of the endpoint, ignored.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/json.h"
#include "http/message.h"

namespace tessera::api {

using FieldSelection = std::set<std::string, std::less<>>;

enum class FieldsDialect { kRootFields, kMetricValueExclusions, kDatasetObjectTypes, kNone };

// "rootFields", "metricValueExclusions", "datasetObjectTypes", "none": as the API reference
// names the dialects.
std::string_view FieldsDialectName(FieldsDialect dialect);

struct MetricValueParts {
  bool raw = true;
  bool formatted = true;
  bool extras = true;
};

struct DatasetObjectTypes {
  bool tables = false;
  bool columns = false;
  bool attributes = true;
  bool metrics = true;
};

// `fields` as read in one dialect; the members of the other dialects keep their defaults.
struct FieldsParameter {
  std::optional<FieldSelection> root_fields;  // nullopt: the whole answer
  MetricValueParts metric_values;
  DatasetObjectTypes object_types;
};

// Throws Error(kInvalidInput) as the dialect says.
FieldsParameter ParseFields(FieldsDialect dialect, const http::QueryParams& query);

// nullopt when `fields` is absent or empty (full response). Throws Error(kInvalidInput).
std::optional<FieldSelection> ParseFieldsParameter(const http::QueryParams& query);

void ApplyFieldSelection(Json& body, const FieldSelection& fields);

}  // namespace tessera::api
