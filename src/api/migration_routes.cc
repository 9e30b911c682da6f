// Migrations (spec 04 §1, §2, §3.5; spec 06 §11, §13).
#include <fmt/format.h>

#include "api/routes.h"
#include "core/error.h"
#include "core/strings.h"

namespace tessera::api {

namespace {

constexpr int64_t kMaxListLimit = 1000;  // spec 04 §1.8

std::optional<std::string> ProjectHeader(RequestContext& context) {
  std::string project_id = context.OptionalProjectId();
  if (project_id.empty()) return std::nullopt;
  return project_id;
}

service::MigrationId MigrationIdParam(RequestContext& context) {
  return service::ParseMigrationId(context.PathParam("migrationId"));
}

service::NamedRef NamedRefIn(const Json& object, std::string_view key) {
  if (!object.is_object() || !object.contains(key) || !object[std::string(key)].is_object()) {
    return {};
  }
  const Json& ref = object[std::string(key)];
  return {ref.value("id", ""), ref.value("name", "")};
}

http::Response Reuse(RequestContext& context, std::string_view package_id) {
  Json body = context.BodyJson();
  Json import_info = body.value("importInfo", Json::object());
  auto record = context.services().migrations.Reuse(context.principal(), std::string(package_id),
                                                    NamedRefIn(import_info, "environment"),
                                                    NamedRefIn(import_info, "project"));
  return context.Reply(201, service::ShortForm(record, false));
}

http::Response CreateMigration(RequestContext& context) {
  if (auto package_id = context.Query("packageId"); package_id && !package_id->empty()) {
    return Reuse(context, *package_id);
  }
  auto request = service::ParseCreateBody(context.BodyJson());
  auto record =
      context.services().migrations.Create(context.principal(), ProjectHeader(context), request);
  return context.Reply(201, service::ShortForm(record, false));
}

std::vector<model::PackagePurpose> PurposesParam(RequestContext& context) {
  std::vector<model::PackagePurpose> purposes;
  auto value = context.Query("packageInfo.purpose");
  if (!value) return purposes;
  for (const auto& part : Split(*value, ',')) {
    std::string purpose = std::string(Trim(part));
    if (!purpose.empty()) {
      purposes.push_back(model::ParsePackagePurpose(purpose, "packageInfo.purpose"));
    }
  }
  return purposes;
}

http::Response ListMigrations(RequestContext& context) {
  int64_t offset = context.QueryInt("offset").value_or(0);
  int64_t limit = context.QueryInt("limit").value_or(kMaxListLimit);
  if (offset < 0 || limit < 0) {
    throw Error(ErrorCode::kInvalidInput, "offset and limit must not be negative");
  }
  auto page = context.services().migrations.List(context.principal(), PurposesParam(context),
                                                 offset, std::min(limit, kMaxListLimit));
  Json data = Json::array();
  for (const auto& record : page.records) {
    data.push_back(
        service::ProjectForShowContent(service::ToJson(record), service::ShowContent::kDefault));
  }
  return context.Reply(200, {{"total", page.total}, {"data", std::move(data)}});
}

http::Response GetMigration(RequestContext& context) {
  auto show = service::ParseShowContent(context.Query("showContent").value_or(""));
  auto record = context.services().migrations.Get(context.principal(), MigrationIdParam(context));
  return context.Reply(200, service::ProjectForShowContent(service::ToJson(record), show));
}

http::Response PatchMigration(RequestContext& context) {
  auto request = service::ParsePatchBody(context.BodyJson());
  auto record = context.services().migrations.Patch(context.principal(), MigrationIdParam(context),
                                                    request, ProjectHeader(context));
  return context.Reply(200, service::ShortForm(record, request.validation_status.has_value()));
}

http::Response ImportMigration(RequestContext& context) {
  auto record = context.services().migrations.Import(context.principal(), MigrationIdParam(context),
                                                     context.BodyJson(), ProjectHeader(context),
                                                     context.QueryBool("generateUndo", true));
  return context.Reply(201, service::ShortForm(record, false));
}

http::Response ValidateMigration(RequestContext& context) {
  context.services().migrations.Validate(context.principal(), MigrationIdParam(context),
                                         context.BodyJson(), ProjectHeader(context));
  return http::Response::Empty(202);
}

http::Response DeleteMigration(RequestContext& context) {
  auto package_id = context.Query("packageId");
  if (!package_id || package_id->empty()) {
    throw Error(ErrorCode::kMissingParameter, "The query parameter packageId is required");
  }
  context.services().migrations.Delete(context.principal(), std::string(*package_id));
  return RequestContext::NoContent();
}

http::Response GetStorage(RequestContext& context) {
  return context.Reply(200, context.services().storage_location.Describe(context.principal()));
}

http::Response PatchStorage(RequestContext& context) {
  context.services().storage_location.Configure(context.principal(), context.BodyJson());
  return RequestContext::NoContent();
}

http::Response ValidateStorage(RequestContext& context) {
  context.services().storage_location.Validate(context.principal(), context.BodyJson());
  return RequestContext::NoContent();
}

}  // namespace

void RegisterMigrationRoutes(Endpoints& endpoints) {
  endpoints.Add("POST", "/api/migrations", {}, CreateMigration);
  endpoints.Add("GET", "/api/migrations", {}, ListMigrations);
  endpoints.Add("DELETE", "/api/migrations", {}, DeleteMigration);
  endpoints.Add("GET", "/api/migrations/{migrationId}", {}, GetMigration);
  endpoints.Add("PATCH", "/api/migrations/{migrationId}", {}, PatchMigration);
  endpoints.Add("PUT", "/api/migrations/{migrationId}", {}, ImportMigration);
  endpoints.Add("PUT", "/api/migrations/{migrationId}/validation", {}, ValidateMigration);
  endpoints.Add("GET", "/api/mstrServices/library/storage", {}, GetStorage);
  endpoints.Add("PATCH", "/api/mstrServices/library/storage", {}, PatchStorage);
  endpoints.Add("POST", "/api/mstrServices/library/storage/validation", {}, ValidateStorage);
}

}  // namespace tessera::api
