// Cube definitions, cube info, status and publish, and the elements of a cube's attributes.
#include <chrono>
#include <ctime>

#include "api/dataset/attribute_elements.h"
#include "api/dataset/definition_json.h"
#include "api/routes.h"
#include "core/error.h"
#include "service/cube/cube_info.h"

namespace tessera::api::dataset {

namespace {

service::instance::DatasetDefinition LoadCube(RequestContext& context) {
  return context.services().definitions.Get(context.principal(), context.RequiredProjectId(),
                                            context.PathParam("cubeId"),
                                            service::instance::DatasetFilter::kCube);
}

http::Response GetCubeV1(RequestContext& context) {
  service::instance::DatasetDefinition cube = LoadCube(context);
  Json body = {{"id", cube.id},
               {"name", cube.name},
               {"result", {{"definition", {{"availableObjects", AvailableObjectsV1(cube)}}}}}};
  return context.Reply(200, std::move(body));
}

http::Response GetCubeV2(RequestContext& context) {
  service::instance::DatasetDefinition cube = LoadCube(context);
  return context.Reply(200, {{"id", cube.id},
                             {"name", cube.name},
                             {"definition", {{"availableObjects", AvailableObjectsV2(cube)}}}});
}

// `pattern` is a strftime format; times are UTC.
std::string FormatUtc(Timestamp at, const char* pattern) {
  const std::time_t seconds = Clock::to_time_t(std::chrono::time_point_cast<Clock::duration>(at));
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, pattern, &parts);
  return buffer;
}

// The Python client parses lastUpdateTime as MM/DD/YYYY HH:MM:SS; modificationTime is written
// yyyy-MM-dd HH:mm:ss, the form published samples of the API show.
Json CubeInfoJson(const service::cube::CubeInfo& info) {
  return {{"cubeName", info.name},
          {"cubeId", info.id},
          {"ownerId", info.owner_id},
          {"path", info.path},
          {"modificationTime", FormatUtc(info.modified, "%Y-%m-%d %H:%M:%S")},
          {"lastUpdateTime", FormatUtc(info.last_update, "%m/%d/%Y %H:%M:%S")},
          {"serverMode", 1},
          {"size", info.size_bytes},
          {"status", info.status}};
}

http::Response GetCubesInfo(RequestContext& context) {
  const std::vector<std::string> ids = context.request().query.GetList("id");
  if (ids.empty()) {
    throw Error(ErrorCode::kMissingParameter,
                "The query parameter 'id' is required: the id of each cube, repeated");
  }
  const std::string project_id = context.RequiredProjectId();
  service::Services& services = context.services();
  Json infos = Json::array();
  for (const auto& id : ids) {
    auto info = service::cube::FindCubeInfo(services.objects, services.cubes, context.principal(),
                                            project_id, id);
    if (info) infos.push_back(CubeInfoJson(*info));
  }
  return context.Reply(200, {{"cubesInfos", std::move(infos)}});
}

http::Response HeadCubeStatus(RequestContext& context) {
  service::Services& services = context.services();
  const int status =
      service::cube::CubeStatusOf(services.objects, services.cubes, context.principal(),
                                  context.RequiredProjectId(), context.PathParam("cubeId"));
  http::Response response = http::Response::Empty(200);
  response.headers.Set("X-MSTR-CubeStatus", std::to_string(status));
  return response;
}

http::Response PublishCube(RequestContext& context) {
  service::Services& services = context.services();
  service::cube::PublishJob job =
      service::cube::StartCubePublish(services.objects, services.cubes, context.principal(),
                                      context.RequiredProjectId(), context.PathParam("cubeId"));
  return context.Reply(202, {{"id", job.id}, {"jobId", job.job_id}});
}

http::Response GetCubeElements(RequestContext& context) {
  return AttributeElementsResponse(context, "cubeId", service::instance::DatasetFilter::kCube);
}

std::string_view JobStatusName(service::cube::CubeState state) {
  switch (state) {
    case service::cube::CubeState::kPublishing:
      return "executing";
    case service::cube::CubeState::kReady:
      return "completed";
    case service::cube::CubeState::kFailed:
      return "error";
    case service::cube::CubeState::kNotPublished:
      break;
  }
  return "ready";
}

// The job monitor's view of a cube publish (the job id PublishCube answered).
http::Response GetPublishJob(RequestContext& context) {
  service::Services& services = context.services();
  const service::cube::PublishJobView job = service::cube::FindPublishJob(
      services.objects, services.cubes, context.principal(), context.PathParam("jobId"));
  Json out = {{"id", job.id},
              {"type", "interactive"},
              {"status", JobStatusName(job.state)},
              {"objectType", "cube"},
              {"objectId", job.cube_id},
              {"objectName", job.cube_name},
              {"projectId", job.project_id},
              {"projectName", job.project_name},
              {"elapsedTime", job.elapsed_ms}};
  if (job.state == service::cube::CubeState::kFailed) out["errorMessage"] = job.error_message;
  return context.Reply(200, std::move(out));
}

}  // namespace

void RegisterCubeRoutes(Endpoints& endpoints) {
  const EndpointSpec no_fields{Access::kSession, FieldsDialect::kNone};
  endpoints.Add("GET", "/api/cubes", {}, GetCubesInfo);
  endpoints.Add("GET", "/api/cubes/{cubeId}", {}, GetCubeV1);
  endpoints.Add("HEAD", "/api/cubes/{cubeId}", no_fields, HeadCubeStatus);
  endpoints.Add("GET", "/api/v2/cubes/{cubeId}", {}, GetCubeV2);
  endpoints.Add("POST", "/api/v2/cubes/{cubeId}", no_fields, PublishCube);
  // Older clients (mstrio-py's api/cubes.publish) post to the v1 path.
  endpoints.Add("POST", "/api/cubes/{cubeId}", no_fields, PublishCube);
  endpoints.Add("GET", "/api/cubes/{cubeId}/attributes/{attributeId}/elements", no_fields,
                GetCubeElements);
  endpoints.Add("GET", "/api/v2/monitors/jobs/{jobId}", {}, GetPublishJob);
}

}  // namespace tessera::api::dataset
