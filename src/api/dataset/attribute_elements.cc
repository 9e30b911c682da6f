#include "api/dataset/attribute_elements.h"

namespace tessera::api::dataset {

namespace {

Json ElementJson(const service::instance::AttributeElement& element) {
  Json form_values = Json::array();
  for (const auto& value : element.form_values) form_values.push_back(value);
  return {{"id", element.id}, {"formValues", std::move(form_values)}};
}

}  // namespace

http::Response AttributeElementsResponse(RequestContext& context, std::string_view id_param,
                                         service::instance::DatasetFilter filter) {
  const service::object::Page page = context.PageParams();
  service::instance::ElementPage elements = context.services().definitions.Elements(
      context.principal(), context.RequiredProjectId(), context.PathParam(id_param), filter,
      context.PathParam("attributeId"), page);
  Json body = Json::array();
  for (const auto& element : elements.elements) body.push_back(ElementJson(element));
  http::Response response = context.Reply(200, std::move(body));
  SetTotalCount(response, elements.total);
  return response;
}

}  // namespace tessera::api::dataset
