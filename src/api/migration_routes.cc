// Migrations (spec 04 §1, §2, §3.5; spec 06 §11, §13).
#include <fmt/format.h>

#include "api/multipart_file.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"

namespace tessera::api {

namespace {

constexpr int64_t kMaxListLimit = 1000;  // spec 04 §1.8

std::optional<std::string> ProjectHeader(RequestContext& context) {
  std::string project_id = context.OptionalProjectId();
  if (project_id.empty()) return std::nullopt;
  return project_id;
}

service::migration::MigrationId MigrationIdParam(RequestContext& context) {
  return service::migration::ParseMigrationId(context.PathParam("migrationId"));
}

service::migration::NamedRef NamedRefIn(const Json& object, std::string_view key) {
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
  return context.Reply(201, service::migration::ShortForm(record, false));
}

bool IsSharedFileImport(const Json& body) {
  if (!body.contains("packageInfo") || !body["packageInfo"].is_object()) return false;
  const Json& package = body["packageInfo"];
  return package.contains("purpose") && package["purpose"].is_string() &&
         package["purpose"].get<std::string>() ==
             model::package::PackagePurposeName(
                 model::package::PackagePurpose::kMigrationFromSharedFileStore);
}

http::Response CreateMigration(RequestContext& context) {
  if (auto package_id = context.Query("packageId"); package_id && !package_id->empty()) {
    return Reuse(context, *package_id);
  }
  service::migration::StreamedContent content(service::migration::StreamedContent::Form::kRequest,
                                              context.services().migrations.scratch_dir());
  StreamedArray parsed = context.BodyJsonStreaming(service::migration::StreamedContent::Path(),
                                                   [&](Json item) { content.Add(item); });
  const Json& body = parsed.document;
  if (IsSharedFileImport(body)) {
    auto record = context.services().migrations.ImportSharedFile(context.principal(),
                                                                 ProjectHeader(context), body);
    return context.Reply(201, service::migration::ShortForm(record, false));
  }
  std::optional<service::migration::ContentList> items;
  if (parsed.found) {
    content.Finish();
    items = content.TakeItems();
  }
  auto request = service::migration::ParseCreateBody(body, std::move(items));
  auto record =
      context.services().migrations.Create(context.principal(), ProjectHeader(context), request);
  return context.Reply(201, service::migration::ShortForm(record, false));
}

std::vector<model::package::PackagePurpose> PurposesParam(RequestContext& context) {
  std::vector<model::package::PackagePurpose> purposes;
  auto value = context.Query("packageInfo.purpose");
  if (!value) return purposes;
  for (const auto& part : Split(*value, ',')) {
    std::string purpose = std::string(Trim(part));
    if (!purpose.empty()) {
      purposes.push_back(model::package::ParsePackagePurpose(purpose, "packageInfo.purpose"));
    }
  }
  return purposes;
}

// offset (default 0) and limit (default and at most kMaxListLimit) of a list request.
std::pair<int64_t, int64_t> ListWindow(RequestContext& context) {
  int64_t offset = context.QueryInt("offset").value_or(0);
  int64_t limit = context.QueryInt("limit").value_or(kMaxListLimit);
  if (offset < 0 || limit < 0) {
    throw Error(ErrorCode::kInvalidInput, "offset and limit must not be negative");
  }
  return {offset, std::min(limit, kMaxListLimit)};
}

http::Response ListMigrations(RequestContext& context) {
  auto [offset, limit] = ListWindow(context);
  auto page = context.services().migrations.List(context.principal(), PurposesParam(context),
                                                 offset, limit);
  Json data = Json::array();
  for (const auto& record : page.records) {
    data.push_back(service::migration::ProjectForShowContent(
        service::migration::ToJson(record), service::migration::ShowContent::kDefault));
  }
  return context.Reply(200, {{"total", page.total}, {"data", std::move(data)}});
}

http::Response GetMigration(RequestContext& context) {
  auto show = service::migration::ParseShowContent(context.Query("showContent").value_or(""));
  bool with_content = show == service::migration::ShowContent::kAll ||
                      show == service::migration::ShowContent::kTocView;
  auto& migrations = context.services().migrations;
  service::migration::MigrationId id = MigrationIdParam(context);
  if (!with_content || context.has_fields()) {
    auto record = migrations.Get(context.principal(), id, with_content);
    return context.Reply(
        200, service::migration::ProjectForShowContent(service::migration::ToJson(record), show));
  }
  // The content list goes into the response as text, chunk by chunk: a list of 100,000 items
  // would otherwise exist as a document several times over.
  auto record = migrations.Get(context.principal(), id, /*with_content=*/false);
  Json shown = service::migration::ProjectForShowContent(service::migration::ToJson(record), show);
  Json& toc = shown["packageInfo"]["tocView"];
  if (!toc.contains("content")) return context.Reply(200, std::move(shown));
  const std::string placeholder = "content-list-" + NewTicketId();
  toc["content"] = placeholder;
  std::string text = DumpJson(shown);
  size_t at = text.find("\"" + placeholder + "\"");
  if (at == std::string::npos) throw Error(ErrorCode::kInternal, "the content list has no place");
  text.replace(at, placeholder.size() + 2, migrations.ContentListText(context.principal(), id));
  return http::Response::Json(200, std::move(text));
}

http::Response PatchMigration(RequestContext& context) {
  auto request = service::migration::ParsePatchBody(context.BodyJson());
  auto record = context.services().migrations.Patch(context.principal(), MigrationIdParam(context),
                                                    request, ProjectHeader(context));
  return context.Reply(
      200, service::migration::ShortForm(record, request.validation_status.has_value()));
}

// The body of an import or a validation: the source's record with its content list, which is
// read item by item and checked, never held whole.
std::pair<Json, std::optional<service::migration::ContentDigest>> RecordBody(
    RequestContext& context) {
  service::migration::StreamedContent content(service::migration::StreamedContent::Form::kStored,
                                              context.services().migrations.scratch_dir());
  StreamedArray parsed = context.BodyJsonStreaming(service::migration::StreamedContent::Path(),
                                                   [&](Json item) { content.Add(item); });
  if (!parsed.found) return {std::move(parsed.document), std::nullopt};
  content.Finish();
  return {std::move(parsed.document), content.digest()};
}

http::Response ImportMigration(RequestContext& context) {
  auto [body, content] = RecordBody(context);
  auto record = context.services().migrations.Import(
      context.principal(), MigrationIdParam(context), body, ProjectHeader(context),
      context.QueryBool("generateUndo", true), content);
  return context.Reply(201, service::migration::ShortForm(record, false));
}

http::Response ValidateMigration(RequestContext& context) {
  auto [body, content] = RecordBody(context);
  context.services().migrations.Validate(context.principal(), MigrationIdParam(context), body,
                                         ProjectHeader(context));
  return http::Response::Empty(202);
}

http::Response EditPackage(RequestContext& context) {
  auto record = context.services().migrations.Edit(context.principal(), MigrationIdParam(context),
                                                   context.BodyJson());
  const auto& package = record.package_info;
  return context.Reply(202, {{"id", package.id},
                             {"status", service::migration::PackageStatusName(package.status)},
                             {"progress", package.progress}});
}

http::Response CertifyPackage(RequestContext& context) {
  bool auto_sync = context.QueryBool("autoSync", false);
  Json body = auto_sync || context.request().body.empty() ? Json::object() : context.BodyJson();
  context.services().migrations.Certify(context.principal(), MigrationIdParam(context), body,
                                        auto_sync);
  return RequestContext::NoContent();
}

http::Response DeleteMigration(RequestContext& context) {
  auto package_id = context.Query("packageId");
  if (!package_id || package_id->empty()) {
    throw Error(ErrorCode::kMissingParameter, "The query parameter packageId is required");
  }
  context.services().migrations.Delete(context.principal(), std::string(*package_id));
  return RequestContext::NoContent();
}

http::Response DownloadPackage(RequestContext& context) {
  auto download =
      context.services().migrations.Download(context.principal(), context.PathParam("packageId"));
  http::Response response =
      http::Response::File(200, download.file.string(), "application/octet-stream");
  // mstrio-py takes everything after "filename=" as the name: no quotes (spec 04 §3.4).
  response.headers.Set("Content-Disposition", "attachment; filename=" + download.file_name);
  return response;
}

// Shared file store (spec 04 §3.4)

http::Response DescribeSharedFile(RequestContext& context) {
  return context.Reply(
      200, context.services().shared_files.Describe(context.principal(), context.BodyJson()));
}

service::migration::UploadedContent UploadedFileOf(RequestContext& context) {
  const http::Request& request = context.request();
  if (!request.body_file) {
    throw Error(ErrorCode::kInvalidInput, "The request has no file content");
  }
  const http::BodyFile& body = *request.body_file;
  std::string content_type(context.Header("Content-Type").value_or(""));
  if (StartsWithIgnoreCase(content_type, "multipart/")) {
    FileRange range = FindFormFile(body.path(), body.size(), content_type, "file");
    return {body.path(), range.offset, range.length};
  }
  return {body.path(), 0, body.size()};  // the raw file (application/octet-stream)
}

http::Response UploadSharedFile(RequestContext& context) {
  std::string file_id = context.PathParam("fileId");
  service::migration::UploadedContent content = UploadedFileOf(context);
  return context.Reply(
      200, context.services().shared_files.Upload(context.principal(), file_id, content));
}

http::Response GetSharedFile(RequestContext& context) {
  return context.Reply(
      200, context.services().shared_files.Get(context.principal(), context.PathParam("fileId")));
}

http::Response DownloadSharedFile(RequestContext& context) {
  auto file =
      context.services().shared_files.ContentPath(context.principal(), context.PathParam("fileId"));
  return http::Response::File(200, file.string(), "application/octet-stream");
}

http::Response ListSharedFiles(RequestContext& context) {
  auto [offset, limit] = ListWindow(context);
  auto page = context.services().shared_files.List(
      context.principal(), std::string(context.Query("type").value_or("")), offset, limit);
  Json data = Json::array();
  for (auto& file : page.files) data.push_back(std::move(file));
  return context.Reply(200, {{"total", page.total}, {"data", std::move(data)}});
}

http::Response DeleteSharedFile(RequestContext& context) {
  context.services().shared_files.Delete(context.principal(), context.PathParam("fileId"));
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
  endpoints.Add("PUT", "/api/migrations/{migrationId}/packageInfo", {}, EditPackage);
  endpoints.Add("PATCH", "/api/migrations/{migrationId}/packageInfo/certification", {},
                CertifyPackage);
  endpoints.Add("GET", "/api/migrations/packages/{packageId}/binary", {}, DownloadPackage);
  endpoints.Add("GET", "/api/mstrServices/library/storage", {}, GetStorage);
  endpoints.Add("PATCH", "/api/mstrServices/library/storage", {}, PatchStorage);
  endpoints.Add("POST", "/api/mstrServices/library/storage/validation", {}, ValidateStorage);
  const std::string files = "/api/mstrServices/library/storage/sharedFileStore/files";
  endpoints.Add("POST", files, {}, DescribeSharedFile);
  endpoints.Add("GET", files, {}, ListSharedFiles);
  endpoints.Add("GET", files + "/{fileId}", {}, GetSharedFile);
  endpoints.Add("DELETE", files + "/{fileId}", {}, DeleteSharedFile);
  endpoints.Add("PUT", files + "/{fileId}/binary", {}, UploadSharedFile);
  endpoints.Add("GET", files + "/{fileId}/binary", {}, DownloadSharedFile);
}

}  // namespace tessera::api
