#include "api/migration/migration_requests.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/strings.h"
#include "model/package/kind.h"
#include "model/package/settings.h"

namespace tessera::api::migration {

namespace migration = service::migration;

namespace {

using model::package::PackageKind;
using model::package::PackagePurpose;

constexpr std::string_view kContentPath = "packageInfo.tocView.content";

const Json& RequireBodyObject(const Json& body) {
  if (!body.is_object()) FailAt("body", "expected a JSON object");
  return body;
}

// object[key] read with `parse` (a status parser of service/migration/migration_record.h);
// nullopt when absent.
template <typename Enum>
std::optional<Enum> OptionalStatus(const Json& object, std::string_view key, std::string_view path,
                                   Enum (*parse)(std::string_view, std::string_view)) {
  std::optional<std::string> text = OptionalString(object, key, path);
  if (!text) return std::nullopt;
  return parse(*text, MemberPath(path, key));
}

// body[part][key] as {id, name}, without checks: {} unless both are objects.
migration::NamedRef LenientNamedRef(const Json& body, const char* part, const char* key) {
  if (!body.contains(part) || !body[part].is_object()) return {};
  const Json& holder = body[part];
  if (!holder.contains(key) || !holder[key].is_object()) return {};
  return {holder[key].value("id", ""), holder[key].value("name", "")};
}

migration::ContentList ReadCreateContent(const Json& toc, PackagePurpose purpose,
                                         std::optional<migration::ContentList> streamed) {
  constexpr std::string_view path = kContentPath;
  const Json* content = FindMember(toc, "content");
  migration::ContentList items =
      streamed  ? std::move(*streamed)
      : content ? migration::ContentList(model::package::ParseContent(*content, path))
                : migration::ContentList();
  if (purpose == PackagePurpose::kProjectMerge) {
    // A project merge copies the whole project; an empty list is tolerated.
    if (!items.empty()) {
      FailAt(path, "a project merge copies the whole project and takes no content; remove it");
    }
  } else if (items.empty()) {
    throw Error(ErrorCode::kMissingField,
                std::string(path) + ": an object migration needs at least one object");
  }
  return items;
}

bool IsSha256Hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

// The uploaded file's environment: nullopt when absent; {id, name}, each "" when absent.
std::optional<migration::NamedRef> SharedFileEnvironment(const Json& body) {
  const Json* environment = FindMember(body, "environment");
  if (environment == nullptr) return std::nullopt;
  if (!environment->is_object()) {
    throw Error(ErrorCode::kInvalidInput, "environment: an object {id, name} is expected");
  }
  return migration::NamedRef{OptionalString(*environment, "id", "environment.id").value_or(""),
                             OptionalString(*environment, "name", "environment.name").value_or("")};
}

void ReadExtraInfo(const Json& body, migration::SharedFileDescription& description) {
  const Json* extra = FindMember(body, "extraInfo");
  if (extra == nullptr || !extra->is_object()) {
    throw Error(ErrorCode::kMissingField, "extraInfo: an object is required");
  }
  description.package_type = model::package::ParsePackageKind(
      RequiredString(*extra, "packageType", "extraInfo.packageType"), "extraInfo.packageType");
  description.package_purpose = model::package::ParsePackagePurpose(
      RequiredString(*extra, "packagePurpose", "extraInfo.packagePurpose"),
      "extraInfo.packagePurpose");
}

}  // namespace

migration::CreateRequest ParseCreateBody(const Json& body,
                                         std::optional<migration::ContentList> streamed) {
  RequireBodyObject(body);
  if (FindMember(body, "packageInfo") == nullptr) FailMissingAt("packageInfo");
  constexpr std::string_view path = "packageInfo";
  const Json& package = ObjectOrEmpty(body, "packageInfo", "");
  migration::CreateRequest request;
  request.type =
      model::package::ParsePackageKind(RequiredString(package, "type", path), "packageInfo.type");
  if (auto purpose = OptionalString(package, "purpose", path)) {
    request.purpose = model::package::ParsePackagePurpose(*purpose, "packageInfo.purpose");
  }
  if (request.purpose == PackagePurpose::kProjectMerge && request.type != PackageKind::kProject) {
    FailAt("packageInfo.type", "a project merge needs a package of type project, not '" +
                                   std::string(model::package::PackageKindName(request.type)) +
                                   "'");
  }
  request.name = RequiredString(package, "name", path);
  request.environment =
      migration::NamedRefFromJson(package, "environment", path, migration::RefIdForm::kAnyText);
  if (FindMember(package, "tocView") == nullptr) FailMissingAt("packageInfo.tocView");
  const Json& toc = ObjectOrEmpty(package, "tocView", path);
  const Json* settings = FindMember(toc, "settings");
  request.settings =
      model::package::ParsePackageSettings(settings ? *settings : Json(), request.type);
  request.content = ReadCreateContent(toc, request.purpose, std::move(streamed));
  request.tree_view = migration::TreeViewFromJson(package, path);
  // mstrio-py sends "importInfo": {} and sets the target later with the PATCH that requests the
  // import.
  const Json& imp = ObjectOrEmpty(body, "importInfo", "");
  request.target_environment =
      migration::NamedRefFromJson(imp, "environment", "importInfo", migration::RefIdForm::kAnyText);
  request.target_project =
      migration::NamedRefFromJson(imp, "project", "importInfo", migration::RefIdForm::kObjectId);
  return request;
}

migration::CreateRequest ParseEditBody(const Json& body) {
  Json wrapped = body.is_object() && body.contains("packageInfo")
                     ? body
                     : Json{{"packageInfo", body}, {"importInfo", Json::object()}};
  return ParseCreateBody(wrapped);
}

migration::PatchRequest ParsePatchBody(const Json& body) {
  RequireBodyObject(body);
  migration::PatchRequest request;
  const Json& package = ObjectOrEmpty(body, "packageInfo", "");
  if (auto name = OptionalString(package, "name", "packageInfo")) {
    if (Trim(*name).empty()) FailAt("packageInfo.name", "must not be empty");
    request.name = *name;
  }
  const Json& imp = ObjectOrEmpty(body, "importInfo", "");
  request.import_request_status =
      OptionalStatus(imp, "importRequestStatus", "importInfo", migration::ParseRequestStatus);
  request.undo_request_status =
      OptionalStatus(imp, "undoRequestStatus", "importInfo", migration::ParseRequestStatus);
  if (FindMember(imp, "environment") != nullptr) {
    request.target_environment = migration::NamedRefFromJson(imp, "environment", "importInfo",
                                                             migration::RefIdForm::kAnyText);
  }
  if (FindMember(imp, "project") != nullptr) {
    request.target_project =
        migration::NamedRefFromJson(imp, "project", "importInfo", migration::RefIdForm::kObjectId);
  }
  const Json& validation = ObjectOrEmpty(body, "validation", "");
  request.validation_status =
      OptionalStatus(validation, "status", "validation", migration::ParseValidationStatus);
  if (request.validation_status &&
      *request.validation_status != migration::ValidationStatus::kValidating) {
    FailAt("validation.status",
           "only 'validating' can be requested; the server sets '" +
               std::string(migration::ValidationStatusName(*request.validation_status)) +
               "' when the validation ends");
  }
  return request;
}

migration::MigrationRecord ParseImportBody(const Json& body,
                                           const migration::MigrationId& path_id) {
  RequireBodyObject(body);
  const Json& package = ObjectOrEmpty(body, "packageInfo", "");
  // Only a record read on the source and marked replicated by the client is imported.
  if (OptionalBool(package, "replicated", "packageInfo") != true) {
    FailAt("packageInfo.replicated",
           "must be true: send the source's record (showContent=all) with replicated set to true");
  }
  return ParseValidationBody(body, path_id);
}

migration::MigrationRecord ParseValidationBody(const Json& body,
                                               const migration::MigrationId& path_id) {
  RequireBodyObject(body);
  const Json& package = ObjectOrEmpty(body, "packageInfo", "");
  std::string body_id = RequiredString(body, "id", "");
  std::string expected = migration::FormatMigrationId(path_id);
  if (!EqualsIgnoreCase(body_id, expected)) {
    FailAt("id", "'" + body_id + "' is not the migration of the request path, " + expected);
  }
  if (FindMember(package, "tocView") == nullptr) {
    throw Error(ErrorCode::kMissingField,
                "packageInfo.tocView: read the migration with showContent=all");
  }
  migration::MigrationRecord record = migration::RecordFromJson(body);
  migration::RequireMigrationId(record, path_id);
  return record;
}

migration::CertificationChange ParseCertificationBody(const Json& body) {
  RequireBodyObject(body);
  if (FindMember(body, "packageInfo") != nullptr) {
    const Json& package = ObjectOrEmpty(body, "packageInfo", "");
    if (FindMember(package, "certification") == nullptr) FailMissingAt("packageInfo.certification");
    return migration::CertificationChangeFromJson(
        ObjectOrEmpty(package, "certification", "packageInfo"), "packageInfo.certification");
  }
  return migration::CertificationChangeFromJson(body, "");
}

ReuseTarget ParseReuseBody(const Json& body) {
  return {LenientNamedRef(body, "importInfo", "environment"),
          LenientNamedRef(body, "importInfo", "project")};
}

bool IsSharedFileImport(const Json& body) {
  if (!body.contains("packageInfo") || !body["packageInfo"].is_object()) return false;
  const Json& package = body["packageInfo"];
  return package.contains("purpose") && package["purpose"].is_string() &&
         package["purpose"].get<std::string>() ==
             model::package::PackagePurposeName(PackagePurpose::kMigrationFromSharedFileStore);
}

migration::SharedFileImportRequest ParseSharedFileImportBody(const Json& body) {
  const Json* node = &body;
  for (const char* key : {"packageInfo", "storage", "sharedFileStore", "files"}) {
    const Json* member = FindMember(*node, key);
    if (member == nullptr || !member->is_object()) {
      throw Error(ErrorCode::kMissingField,
                  "packageInfo.storage.sharedFileStore.files.id: the uploaded file is required");
    }
    node = member;
  }
  migration::SharedFileImportRequest request;
  request.file_id = RequiredString(*node, "id", "packageInfo.storage.sharedFileStore.files.id");
  request.target_environment = LenientNamedRef(body, "importInfo", "environment");
  request.target_project = LenientNamedRef(body, "importInfo", "project");
  return request;
}

migration::SharedFileDescription ParseSharedFileBody(const Json& body) {
  if (!body.is_object()) throw Error(ErrorCode::kInvalidInput, "The body must be a JSON object");
  migration::SharedFileDescription description;
  std::string type = RequiredString(body, "type", "type");
  if (type != migration::kSharedPackageFileType) {
    throw Error(ErrorCode::kInvalidInput, fmt::format("type: '{}' is not supported; expected '{}'",
                                                      type, migration::kSharedPackageFileType));
  }
  std::string extension = OptionalString(body, "extension", "extension")
                              .value_or(std::string(migration::kSharedPackageFileExtension));
  if (extension != migration::kSharedPackageFileExtension) {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("extension: '{}' is not supported; expected 'mmp'", extension));
  }
  auto size = OptionalInt(body, "size", "size");
  if (!size) throw Error(ErrorCode::kMissingField, "size: the file's size in bytes is required");
  description.size = *size;
  description.sha256 = RequiredString(body, "sha256", "sha256");
  if (!IsSha256Hex(description.sha256)) {
    throw Error(ErrorCode::kInvalidInput, "sha256: 64 hexadecimal digits are expected");
  }
  description.name = OptionalString(body, "name", "name").value_or("");
  description.environment = SharedFileEnvironment(body);
  ReadExtraInfo(body, description);
  return description;
}

migration::StorageLocationRequest ParseStorageLocationBody(const Json& body) {
  const Json* store = FindMember(body, "sharedFileStore");
  if (store == nullptr || !store->is_object()) {
    throw Error(ErrorCode::kMissingField, "sharedFileStore: an object is required");
  }
  std::string type = RequiredString(*store, "type", "sharedFileStore.type");
  migration::StorageLocationRequest requested;
  if (type == "unset") {
    requested.unset = true;
    return requested;
  }
  if (type != "file_system") {
    throw Error(ErrorCode::kInvalidInput,
                fmt::format("sharedFileStore.type: '{}' is not supported by this server; "
                            "expected file_system or unset",
                            type));
  }
  std::string location = RequiredString(*store, "location", "sharedFileStore.location");
  if (location.empty() || location.front() != '/') {
    throw Error(
        ErrorCode::kInvalidInput,
        fmt::format("sharedFileStore.location: '{}' is not an absolute directory", location));
  }
  requested.location = location;
  requested.alias = OptionalString(*store, "alias", "sharedFileStore.alias").value_or("");
  return requested;
}

}  // namespace tessera::api::migration
