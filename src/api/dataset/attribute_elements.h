// api/dataset/attribute_elements.h
//
// GET /api/{reports|cubes}/{id}/attributes/{attributeId}/elements, shared by the report and cube
// families: `offset` (0 or more) and `limit` (-1 or more; absent = every element) page the
// elements; the answer is a JSON array [{"id": "<attribute id>:<ID value>", "formValues": [one text
// per form]}] with X-MSTR-Total-Count counting every element.
#pragma once

#include <string_view>

#include "api/request_context.h"
#include "http/message.h"
#include "service/instance/dataset_definition_service.h"

namespace tessera::api::dataset {

// `id_param` names the path parameter holding the report or cube id.
http::Response AttributeElementsResponse(RequestContext& context, std::string_view id_param,
                                         service::instance::DatasetFilter filter);

}  // namespace tessera::api::dataset
