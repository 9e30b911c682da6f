// api/push/push_requests.h
//
// The bodies of the push API read into the push service's requests (service/push/push_service.h):
//   ParseModelRequest         POST /api/datasets/models: the dataset's model
//   (engine/push/push_model.h) ParseOpenSessionRequest   POST /api/datasets/{id}/uploadSessions:
//   {"tables": [{name,
//                             updatePolicy, columnHeaders?, orientation?}, ...]}
//   ParseChunkRequest         PUT .../uploadSessions/{id}: {tableName, index, data (base64)}
//   ParseSingleDatasetRequest POST /api/datasets: a model of one table with its rows as records
//   ParseTableRowsRequest     PATCH /api/datasets/{id}/tables/{table}: {columnHeaders?, data}
//
// A body that does not have the shape is Error(kInvalidInput), or Error(kMissingField) for a
// missing member, naming the member by its path ("body.tables[0].name"). Whether the tables and
// columns named exist in the dataset is the service's to check.
#pragma once

#include <optional>
#include <string_view>

#include "core/json.h"
#include "engine/push/push_model.h"
#include "service/push/push_service.h"

namespace tessera::api::push {

engine::push::PushModel ParseModelRequest(const Json& body);
service::push::OpenSessionRequest ParseOpenSessionRequest(const Json& body);
service::push::ChunkRequest ParseChunkRequest(const Json& body);
// ParseChunkRequest(ParseJson(body_text)) for a body that is a plain, valid chunk: an object of
// string and number members holding a valid tableName, index and data, each once. Nullopt for
// any other text -- which the caller reads through ParseJson and ParseChunkRequest, whose errors
// are the user's -- so it is only a faster way to the same request.
std::optional<service::push::ChunkRequest> ReadPlainChunkRequest(std::string_view body_text);
service::push::SingleDatasetRequest ParseSingleDatasetRequest(const Json& body);
service::push::TableRowsRequest ParseTableRowsRequest(const Json& body);

}  // namespace tessera::api::push
