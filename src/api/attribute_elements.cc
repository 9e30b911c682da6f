#include "api/attribute_elements.h"

namespace tessera::api {

namespace {

Json ElementJson(const service::AttributeElement& element) {
  Json form_values = Json::array();
  for (const auto& value : element.form_values) form_values.push_back(value);
  return {{"id", element.id}, {"formValues", std::move(form_values)}};
}

}  // namespace

http::Response AttributeElementsResponse(RequestContext& context, std::string_view id_param,
                                         service::DatasetFilter filter) {
  const service::Page page = context.PageParams();
  service::ElementPage elements = context.services().definitions.Elements(
      context.principal(), context.RequiredProjectId(), context.PathParam(id_param), filter,
      context.PathParam("attributeId"), page);
  Json body = Json::array();
  for (const auto& element : elements.elements) body.push_back(ElementJson(element));
  http::Response response = context.Reply(200, std::move(body));
  SetTotalCount(response, elements.total);
  return response;
}

}  // namespace tessera::api
