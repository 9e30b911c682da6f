#include "engine/warehouse/connection.h"

namespace tessera::engine::warehouse {

Error UnreachableError(const std::string& warehouse_name) {
  return Error(ErrorCode::kEngineUnreachable,
               "The warehouse '" + warehouse_name + "' cannot be reached");
}

Error TimedOutError(const std::string& warehouse_name, std::chrono::milliseconds timeout) {
  return Error(ErrorCode::kTimeout, "The query on warehouse '" + warehouse_name +
                                        "' timed out after " + std::to_string(timeout.count()) +
                                        " ms and was cancelled");
}

Error CancelledError(const std::string& warehouse_name) {
  return Error(ErrorCode::kTimeout,
               "The query on warehouse '" + warehouse_name + "' was cancelled");
}

Error RefusedError(const std::string& warehouse_name, std::string_view database_message) {
  return Error(ErrorCode::kEngine, "The warehouse '" + warehouse_name +
                                       "' refused the statement: " + std::string(database_message));
}

}  // namespace tessera::engine::warehouse
