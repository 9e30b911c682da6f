#include "api/grid/grid_params.h"

#include "core/error.h"

namespace tessera::api::grid {

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

}  // namespace tessera::api::grid
