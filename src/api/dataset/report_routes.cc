// Report definitions (v1 and v2) and the elements of a report's attributes.
#include "api/dataset/attribute_elements.h"
#include "api/dataset/definition_json.h"
#include "api/routes.h"

namespace tessera::api::dataset {

namespace {

service::instance::DatasetDefinition LoadReport(RequestContext& context) {
  return context.services().definitions.Get(context.principal(), context.RequiredProjectId(),
                                            context.PathParam("reportId"),
                                            service::instance::DatasetFilter::kReport);
}

http::Response GetReportV1(RequestContext& context) {
  service::instance::DatasetDefinition report = LoadReport(context);
  Json body = {{"id", report.id},
               {"name", report.name},
               {"result", {{"definition", {{"availableObjects", AvailableObjectsV1(report)}}}}}};
  return context.Reply(200, std::move(body));
}

http::Response GetReportV2(RequestContext& context) {
  service::instance::DatasetDefinition report = LoadReport(context);
  Json definition = {{"grid", ReportGridV2(report)},
                     {"availableObjects", AvailableObjectsV2(report)}};
  return context.Reply(200, {{"id", report.id}, {"name", report.name}, {"definition", definition}});
}

http::Response GetReportElements(RequestContext& context) {
  return AttributeElementsResponse(context, "reportId", service::instance::DatasetFilter::kReport);
}

}  // namespace

void RegisterReportRoutes(Endpoints& endpoints) {
  endpoints.Add("GET", "/api/reports/{reportId}", {}, GetReportV1);
  endpoints.Add("GET", "/api/v2/reports/{reportId}", {}, GetReportV2);
  endpoints.Add("GET", "/api/reports/{reportId}/attributes/{attributeId}/elements",
                {Access::kSession, FieldsDialect::kNone}, GetReportElements);
}

}  // namespace tessera::api::dataset
