// Migrations: /api/migrations (packages, their import and undo, validation, certification,
// download) and the package storage (/api/mstrServices/library/storage: the location and the
// shared file store of uploaded packages). Bodies are parsed by api/migration/migration_requests.h.
#include <fmt/format.h>

#include "api/migration/migration_requests.h"
#include "api/multipart_file.h"
#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"

namespace tessera::api::migration {

namespace {

namespace migration = service::migration;

constexpr int64_t kMaxListLimit = 1000;  // a larger limit is read as this one

std::optional<std::string> ProjectHeader(RequestContext& context) {
  std::string project_id = context.OptionalProjectId();
  if (project_id.empty()) return std::nullopt;
  return project_id;
}

migration::MigrationId MigrationIdParam(RequestContext& context) {
  return migration::ParseMigrationId(context.PathParam("migrationId"));
}

http::Response Reuse(RequestContext& context, std::string_view package_id) {
  ReuseTarget target = ParseReuseBody(context.BodyJson());
  auto record = context.services().migrations.Reuse(context.principal(), std::string(package_id),
                                                    target.environment, target.project);
  return context.Reply(201, migration::ShortForm(record, false));
}

http::Response CreateMigration(RequestContext& context) {
  if (auto package_id = context.Query("packageId"); package_id && !package_id->empty()) {
    return Reuse(context, *package_id);
  }
  migration::StreamedContent content(migration::StreamedContent::Form::kRequest,
                                     context.services().migrations.scratch_dir());
  StreamedArray parsed = context.BodyJsonStreaming(migration::StreamedContent::Path(),
                                                   [&](Json item) { content.Add(item); });
  const Json& body = parsed.document;
  if (IsSharedFileImport(body)) {
    std::optional<std::string> project_id = ProjectHeader(context);
    auto request = ParseSharedFileImportBody(body);
    auto record =
        context.services().migrations.ImportSharedFile(context.principal(), project_id, request);
    return context.Reply(201, migration::ShortForm(record, false));
  }
  std::optional<migration::ContentList> items;
  if (parsed.found) {
    content.Finish();
    items = content.TakeItems();
  }
  auto request = ParseCreateBody(body, std::move(items));
  auto record =
      context.services().migrations.Create(context.principal(), ProjectHeader(context), request);
  return context.Reply(201, migration::ShortForm(record, false));
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
    data.push_back(migration::ProjectForShowContent(migration::ToJson(record),
                                                    migration::ShowContent::kDefault));
  }
  return context.Reply(200, {{"total", page.total}, {"data", std::move(data)}});
}

http::Response GetMigration(RequestContext& context) {
  auto show = migration::ParseShowContent(context.Query("showContent").value_or(""));
  bool with_content =
      show == migration::ShowContent::kAll || show == migration::ShowContent::kTocView;
  auto& migrations = context.services().migrations;
  migration::MigrationId id = MigrationIdParam(context);
  if (!with_content || context.fields().root_fields) {
    auto record = migrations.Get(context.principal(), id, with_content);
    return context.Reply(200, migration::ProjectForShowContent(migration::ToJson(record), show));
  }
  // The content list goes into the response as text, chunk by chunk: a list of 100,000 items
  // would otherwise exist as a document several times over.
  auto record = migrations.Get(context.principal(), id, /*with_content=*/false);
  Json shown = migration::ProjectForShowContent(migration::ToJson(record), show);
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
  auto request = ParsePatchBody(context.BodyJson());
  auto record = context.services().migrations.Patch(context.principal(), MigrationIdParam(context),
                                                    request, ProjectHeader(context));
  return context.Reply(200, migration::ShortForm(record, request.validation_status.has_value()));
}

// The body of an import or a validation: the source's record with its content list, which is
// read item by item and checked, never held whole.
std::pair<Json, std::optional<migration::ContentDigest>> RecordBody(RequestContext& context) {
  migration::StreamedContent content(migration::StreamedContent::Form::kStored,
                                     context.services().migrations.scratch_dir());
  StreamedArray parsed = context.BodyJsonStreaming(migration::StreamedContent::Path(),
                                                   [&](Json item) { content.Add(item); });
  if (!parsed.found) return {std::move(parsed.document), std::nullopt};
  content.Finish();
  return {std::move(parsed.document), content.digest()};
}

http::Response ImportMigration(RequestContext& context) {
  auto [body, content] = RecordBody(context);
  migration::MigrationId id = MigrationIdParam(context);
  std::optional<std::string> project_id = ProjectHeader(context);
  bool generate_undo = context.QueryBool("generateUndo", true);
  migration::MigrationRecord sent = ParseImportBody(body, id);
  auto record = context.services().migrations.Import(context.principal(), sent, project_id,
                                                     generate_undo, content);
  return context.Reply(201, migration::ShortForm(record, false));
}

http::Response ValidateMigration(RequestContext& context) {
  auto [body, content] = RecordBody(context);
  migration::MigrationId id = MigrationIdParam(context);
  std::optional<std::string> project_id = ProjectHeader(context);
  migration::MigrationRecord sent = ParseValidationBody(body, id);
  context.services().migrations.Validate(context.principal(), sent, project_id);
  return http::Response::Empty(202);
}

http::Response EditPackage(RequestContext& context) {
  migration::MigrationId id = MigrationIdParam(context);
  migration::CreateRequest request = ParseEditBody(context.BodyJson());
  auto record = context.services().migrations.Edit(context.principal(), id, request);
  const auto& package = record.package_info;
  return context.Reply(202, {{"id", package.id},
                             {"status", migration::PackageStatusName(package.status)},
                             {"progress", package.progress}});
}

// With autoSync the body is ignored and the status file's certification is taken. Otherwise an
// unknown migration or a caller without its privileges is refused before a bad body.
http::Response CertifyPackage(RequestContext& context) {
  bool auto_sync = context.QueryBool("autoSync", false);
  if (auto_sync) {
    context.services().migrations.SyncCertification(context.principal(), MigrationIdParam(context));
    return RequestContext::NoContent();
  }
  Json body = context.request().body.empty() ? Json::object() : context.BodyJson();
  migration::MigrationId id = MigrationIdParam(context);
  auto& migrations = context.services().migrations;
  migrations.RequireCertifier(context.principal(), id);
  migration::CertificationChange change = ParseCertificationBody(body);
  migrations.Certify(context.principal(), id, change);
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
  // mstrio-py takes everything after "filename=" as the name: no quotes.
  response.headers.Set("Content-Disposition", "attachment; filename=" + download.file_name);
  return response;
}

// Shared file store: package files uploaded to a target that cannot see the source's location.

// A caller without the privilege, or a server without a usable location, is refused before a bad
// body; a size over the limit after it.
http::Response DescribeSharedFile(RequestContext& context) {
  Json body = context.BodyJson();
  auto& shared_files = context.services().shared_files;
  shared_files.RequireCanDescribe(context.principal());
  migration::SharedFileDescription description = ParseSharedFileBody(body);
  return context.Reply(200, shared_files.Describe(context.principal(), description));
}

migration::UploadedContent UploadedFileOf(RequestContext& context) {
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
  migration::UploadedContent content = UploadedFileOf(context);
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

// The body of PatchStorage and ValidateStorage, which refuse a caller who is not an
// administrator before a bad body.
migration::StorageLocationRequest StorageRequestOf(RequestContext& context) {
  Json body = context.BodyJson();
  context.services().storage_location.RequireAdministrator(context.principal());
  return ParseStorageLocationBody(body);
}

http::Response PatchStorage(RequestContext& context) {
  const migration::StorageLocationRequest request = StorageRequestOf(context);
  context.services().storage_location.Configure(context.principal(), request);
  return RequestContext::NoContent();
}

http::Response ValidateStorage(RequestContext& context) {
  const migration::StorageLocationRequest request = StorageRequestOf(context);
  context.services().storage_location.Validate(context.principal(), request);
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

}  // namespace tessera::api::migration
