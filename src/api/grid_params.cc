#include "api/grid_params.h"

#include "core/error.h"
#include "core/strings.h"

namespace tessera::api {

GridPage PageOf(const RequestContext& context) {
  GridPage page;
  const int64_t offset = context.QueryInt("offset").value_or(0);
  if (offset < 0) {
    throw Error(ErrorCode::kInvalidInput,
                "offset: must be 0 or more, got " + std::to_string(offset));
  }
  page.offset = static_cast<size_t>(offset);
  page.limit = context.QueryInt("limit").value_or(1000);
  if (page.limit == 0 || page.limit < -1) {
    throw Error(ErrorCode::kInvalidInput,
                "limit: must be 1 or more, or -1 for every row, got " + std::to_string(page.limit));
  }
  return page;
}

MetricValueParts PartsOf(const RequestContext& context) {
  MetricValueParts parts;
  for (const auto& value : context.request().query.GetList("fields")) {
    for (const auto& rule : Split(value, ',')) {
      const std::string_view trimmed = Trim(rule);
      if (trimmed == "-data.metricValues.raw") parts.raw = false;
      if (trimmed == "-data.metricValues.formatted") parts.formatted = false;
      if (trimmed == "-data.metricValues.extras") parts.extras = false;
    }
  }
  return parts;
}

}  // namespace tessera::api
