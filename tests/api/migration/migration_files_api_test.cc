// Migration without a shared location over HTTP between two real servers
// (api/migration/migration_api_fixture.h) whose package locations differ: the package is downloaded
// from the source, described and uploaded to the target's shared file store as mstrio-py's
// migrate_from_file does, imported from there, undone and deleted -- and every bad upload is
// refused without leaving anything behind.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "api/migration/migration_api_fixture.h"
#include "core/hash.h"

namespace tessera::testing {
namespace {

constexpr char kFiles[] = "/api/mstrServices/library/storage/sharedFileStore/files";
constexpr char kBoundary[] = "8f2c1e0d6b4a4d3f9a7e5c3b1d2f4e6a";

std::string ReadFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t CountFiles(const std::filesystem::path& directory) {
  if (!std::filesystem::exists(directory)) return 0;
  size_t count = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    count += entry.is_regular_file() ? 1 : 0;
  }
  return count;
}

// What Python's requests sends for files={'file': content}.
std::string MultipartBody(const std::string& content, const std::string& field = "file") {
  return std::string("--") + kBoundary + "\r\nContent-Disposition: form-data; name=\"" + field +
         "\"; filename=\"" + field + "\"\r\n\r\n" + content + "\r\n--" + kBoundary + "--\r\n";
}

class MigrationFilesApi : public MigrationApi {
 protected:
  void SetUp() override {
    MigrationApi::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    auto moved = target_->Send(
        "PATCH", "/api/mstrServices/library/storage",
        {{"sharedFileStore", {{"type", "file_system"}, {"location", target_packages_.path()}}}});
    ASSERT_EQ(moved.status, 204) << moved.body;
  }

  // The package of `id`, downloaded from the source as mstrio-py's download_package does.
  std::string Download(const std::string& id) {
    auto response = source_->client->Get("/api/migrations/packages/" + id.substr(0, 32) + "/binary",
                                         source_->Headers());
    EXPECT_EQ(response.status, 200) << response.body;
    return response.body;
  }

  Json DescribeBody(const std::string& content, const std::string& type = "project") const {
    return {
        {"name", "Cost to prod"},
        {"extension", "mmp"},
        {"type", "migrations.packages"},
        {"size", content.size()},
        {"sha256", Sha256Hex(content)},
        {"environment", {{"id", target_->config.public_url}, {"name", target_->config.public_url}}},
        {"extraInfo",
         {{"packageType", type}, {"packagePurpose", "migration_from_shared_file_store"}}}};
  }

  http::Response Upload(const std::string& file_id, const std::string& body,
                        const std::string& content_type = std::string("multipart/form-data; "
                                                                      "boundary=") +
                                                          kBoundary) {
    http::Headers headers = target_->Headers();
    headers.Set("Content-Type", content_type);
    return target_->client->Send("PUT", std::string(kFiles) + "/" + file_id + "/binary", headers,
                                 body);
  }

  // The body of mstrio-py's migrate_from_file for `file_id` into the target project.
  Json FromFileBody(const std::string& file_id) const {
    Json project = {{"id", project_}, {"name", "Tutorial"}};
    return {{"packageInfo",
             {{"storage", {{"sharedFileStore", {{"files", {{"id", file_id}}}}}}},
              {"purpose", "migration_from_shared_file_store"},
              {"project", project}}},
            {"importInfo",
             {{"environment",
               {{"id", target_->config.public_url}, {"name", target_->config.public_url}}},
              {"project", project}}}};
  }

  Json ListedFiles() {
    auto listed = target_->client->Get(
        std::string(kFiles) + "?offset=0&limit=100&type=migrations.packages", target_->Headers());
    EXPECT_EQ(listed.status, 200) << listed.body;
    return BodyOf(listed)["data"];
  }

  TempDir target_packages_;
};

TEST_P(MigrationFilesApi, ADownloadedPackageUploadedToTheTargetImportsUndoesAndDeletes) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  cost.description = "Cost, restated";
  source_->storage.Save(cost);
  std::string before = target_->storage.Dump(project_);
  std::string id = CreateAndApprove(ObjectMigrationBody(cost, "replace"));
  Json created = source_->Get(id, "all");
  std::string package_file =
      ReadFile(packages_.path() / created["packageInfo"]["storage"]["path"].get<std::string>());

  auto download = source_->client->Get("/api/migrations/packages/" + id.substr(0, 32) + "/binary",
                                       source_->Headers());
  ASSERT_EQ(download.status, 200) << download.body;
  EXPECT_EQ(download.headers.Get("Content-Type"), "application/octet-stream");
  std::string disposition(download.headers.Get("Content-Disposition").value_or(""));
  std::string file_name = disposition.substr(disposition.find("filename=") + 9);
  EXPECT_EQ(disposition, "attachment; filename=" + file_name);
  EXPECT_TRUE(file_name.ends_with(".mmp")) << file_name;
  EXPECT_EQ(file_name.find_first_of(" \"/"), std::string::npos) << file_name;
  ASSERT_EQ(download.body, package_file);

  auto described = target_->Send("POST", kFiles, DescribeBody(download.body));
  ASSERT_EQ(described.status, 200) << described.body;
  Json metadata = BodyOf(described);
  std::string file_id = metadata["id"];
  EXPECT_EQ(metadata["existing"], false);
  EXPECT_EQ(metadata["size"], download.body.size());
  auto uploaded = Upload(file_id, MultipartBody(download.body));
  ASSERT_EQ(uploaded.status, 200) << uploaded.body;
  EXPECT_EQ(BodyOf(uploaded)["existing"], true);
  EXPECT_EQ(BodyOf(uploaded)["extraInfo"]["packageId"], id.substr(0, 32));
  EXPECT_EQ(ReadFile(target_packages_.path() / metadata["path"].get<std::string>()), download.body);
  auto fetched =
      target_->client->Get(std::string(kFiles) + "/" + file_id + "/binary", target_->Headers());
  EXPECT_EQ(fetched.body, download.body);

  auto started = target_->Send("POST", "/api/migrations", FromFileBody(file_id), project_);
  ASSERT_EQ(started.status, 201) << started.body;
  std::string imported_id = BodyOf(started)["id"];
  EXPECT_EQ(imported_id.substr(0, 32), id.substr(0, 32));
  EXPECT_EQ(BodyOf(started)["importInfo"]["importRequestStatus"], "approved");
  Json imported = target_->WaitWhile(imported_id, "importInfo", "importing");
  ASSERT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  EXPECT_EQ(imported["packageInfo"]["purpose"], "migration_from_shared_file_store");
  EXPECT_EQ(imported["packageInfo"]["storage"]["path"], metadata["path"]);
  auto object =
      target_->client->Get("/api/objects/" + cost.id + "?type=4", target_->Headers(project_));
  EXPECT_EQ(BodyOf(object)["description"], "Cost, restated");

  Json undone = UndoOnTarget(imported_id);
  EXPECT_EQ(undone["importInfo"]["status"], "undo_success") << undone.dump();
  EXPECT_EQ(target_->storage.Dump(project_), before);

  // mstrio-py's delete: the file whose path is the package's, then the migration.
  Json files = ListedFiles();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0]["path"], imported["packageInfo"]["storage"]["path"]);
  auto deleted_file =
      target_->client->Send("DELETE", std::string(kFiles) + "/" + file_id, target_->Headers());
  EXPECT_EQ(deleted_file.status, 204) << deleted_file.body;
  auto deleted = target_->client->Send("DELETE", "/api/migrations?packageId=" + id.substr(0, 32),
                                       target_->Headers());
  EXPECT_EQ(deleted.status, 204) << deleted.body;
  EXPECT_TRUE(ListedFiles().empty());
  EXPECT_EQ(CountFiles(target_packages_.path() / "mstr/shared/files"), 0u);
  EXPECT_EQ(CountFiles(target_packages_.path() / "mstr/shared/migrations/undo"), 0u);
}

TEST_P(MigrationFilesApi, BadUploadsAreRefusedAndLeaveNothingBehind) {
  std::string id =
      CreateAndApprove(ObjectMigrationBody(source_->storage.Named(project_, "Cost"), "replace"));
  std::string package = Download(id);
  std::string before = target_->storage.Dump(project_);

  Json body = DescribeBody(package);
  for (auto [key, value] : std::vector<std::pair<std::string, Json>>{
           {"type", "reports"}, {"size", 0}, {"sha256", "abc"}, {"extension", "zip"}}) {
    Json bad = body;
    bad[key] = value;
    ExpectError(target_->Send("POST", kFiles, bad), 400, "ERR006");
  }
  Json no_extra = body;
  no_extra.erase("extraInfo");
  ExpectError(target_->Send("POST", kFiles, no_extra), 400, "ERR007");
  Json bad_purpose = body;
  bad_purpose["extraInfo"]["packagePurpose"] = "copy";
  ExpectError(target_->Send("POST", kFiles, bad_purpose), 400, "ERR006");
  EXPECT_TRUE(ListedFiles().empty());

  std::string file_id = BodyOf(target_->Send("POST", kFiles, body))["id"];
  std::string tampered = package;
  tampered[tampered.size() / 2] ^= 0x20;
  ExpectError(Upload(file_id, MultipartBody(package.substr(1))), 400, "ERR006");  // size
  ExpectError(Upload(file_id, MultipartBody(tampered)), 400, "ERR006");           // sha256
  ExpectError(Upload(file_id, MultipartBody(package, "document")), 400, "ERR006");
  ExpectError(Upload(file_id, MultipartBody(package), "multipart/form-data"), 400, "ERR006");
  ExpectError(Upload(file_id, package.substr(0, package.size() / 2) + "--"), 400, "ERR006");
  std::string not_a_package(package.size(), 'x');
  Json described_text = DescribeBody(not_a_package);
  std::string text_id = BodyOf(target_->Send("POST", kFiles, described_text))["id"];
  auto corrupt = Upload(text_id, MultipartBody(not_a_package));
  ExpectError(corrupt, 400, "ERR006");
  EXPECT_NE(corrupt.body.find("Package file is corrupt"), std::string::npos) << corrupt.body;
  Json configuration = DescribeBody(package, "configuration");
  std::string configuration_id = BodyOf(target_->Send("POST", kFiles, configuration))["id"];
  ExpectError(Upload(configuration_id, MultipartBody(package)), 400, "ERR006");  // its type
  ExpectError(Upload("bWlncmF0aW9ucy5wYWNrYWdlczpYWA==", MultipartBody(package)), 404, "ERR004");
  EXPECT_EQ(CountFiles(target_packages_.path() / "mstr/shared/files"), 0u);
  for (const Json& file : ListedFiles()) EXPECT_EQ(file["existing"], false) << file.dump();

  ExpectError(target_->Send("POST", "/api/migrations", FromFileBody(file_id), project_), 400,
              "ERR006");  // nothing uploaded yet
  ExpectError(
      target_->client->Get(std::string(kFiles) + "/" + file_id + "/binary", target_->Headers()),
      404, "ERR004");
  ASSERT_EQ(Upload(file_id, MultipartBody(package)).status, 200);
  ExpectError(Upload(file_id, MultipartBody(package)), 400, "ERR006");  // only once
  Json no_file = FromFileBody(file_id);
  no_file["packageInfo"].erase("storage");
  ExpectError(target_->Send("POST", "/api/migrations", no_file, project_), 400, "ERR007");
  Json no_project = FromFileBody(file_id);
  no_project["importInfo"].erase("project");
  ExpectError(target_->Send("POST", "/api/migrations", no_project), 400,
              "ERR005");  // a project package needs its project
  ExpectError(source_->client->Get("/api/migrations/packages/" + NewObjectId() + "/binary",
                                   source_->Headers()),
              404, "ERR004");
  EXPECT_EQ(target_->storage.Dump(project_), before);
}

// The caller, then the location, are checked before the body, as they were when the service
// read it; the size limit after it.
TEST_P(MigrationFilesApi, ADescriptionIsRefusedForItsCallerOrLocationBeforeItsBody) {
  Json malformed = DescribeBody("package");
  malformed["type"] = "reports";
  ExpectError(target_->Send("POST", kFiles, malformed), 400, "ERR006");
  std::string administrator = target_->token;
  std::string no_apply = target_->LoginWithout(model::Privilege::kApplyPackage, "no_apply");
  auto as_uploader = [&](const std::string& token) {
    target_->token = token;
    auto response = target_->Send("POST", kFiles, malformed);
    target_->token = administrator;
    return response;
  };
  auto refused = as_uploader(no_apply);
  ExpectError(refused, 403, "ERR014");
  EXPECT_EQ(BodyOf(refused)["message"],
            "You do not have Apply package privilege(s) to perform the task.");

  ASSERT_EQ(target_
                ->Send("PATCH", "/api/mstrServices/library/storage",
                       {{"sharedFileStore", {{"type", "unset"}}}})
                .status,
            204);
  target_->Stop();
  target_->config.packages_dir = "none";
  target_->Start();
  ExpectError(as_uploader(no_apply), 403, "ERR014");
  ExpectError(as_uploader(administrator), 503, "ERR016");
  EXPECT_TRUE(ListedFiles().empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrationFilesApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
