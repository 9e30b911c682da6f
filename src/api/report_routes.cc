// Report definitions (v1 and v2) and the elements of a report's attributes.
#include "api/attribute_elements.h"
#include "api/definition_json.h"
#include "api/routes.h"

namespace tessera::api {

namespace {

service::DatasetDefinition LoadReport(RequestContext& context) {
  return context.services().definitions.Get(context.principal(), context.RequiredProjectId(),
                                            context.PathParam("reportId"),
                                            service::DatasetFilter::kReport);
}

http::Response GetReportV1(RequestContext& context) {
  service::DatasetDefinition report = LoadReport(context);
  Json body = {{"id", report.id},
               {"name", report.name},
               {"result", {{"definition", {{"availableObjects", AvailableObjectsV1(report)}}}}}};
  return context.Reply(200, std::move(body));
}

http::Response GetReportV2(RequestContext& context) {
  service::DatasetDefinition report = LoadReport(context);
  Json definition = {{"grid", ReportGridV2(report)},
                     {"availableObjects", AvailableObjectsV2(report)}};
  return context.Reply(200, {{"id", report.id}, {"name", report.name}, {"definition", definition}});
}

http::Response GetReportElements(RequestContext& context) {
  return AttributeElementsResponse(context, "reportId", service::DatasetFilter::kReport);
}

}  // namespace

void RegisterReportRoutes(Endpoints& endpoints) {
  endpoints.Add("GET", "/api/reports/{reportId}", {}, GetReportV1);
  endpoints.Add("GET", "/api/v2/reports/{reportId}", {}, GetReportV2);
  endpoints.Add("GET", "/api/reports/{reportId}/attributes/{attributeId}/elements",
                {Access::kSession, FieldsRule::kNone}, GetReportElements);
}

}  // namespace tessera::api
