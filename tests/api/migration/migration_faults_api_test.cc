// Migrations that meet faults, over HTTP between two real servers
// (api/migration/migration_api_fixture.h): the target process killed in the middle of an import, a
// package from a newer platform, a package file corrupted in the shared location, and each missing
// privilege on either side.
#include <gtest/gtest.h>

#include <fstream>

#include "api/migration/migration_api_fixture.h"

namespace tessera::testing {
namespace {

class MigrationFaultsApi : public MigrationApi {};

std::string MessageOf(const http::Response& response) {
  return BodyOf(response).value("message", "");
}

TEST_P(MigrationFaultsApi, ATargetKilledInTheMiddleOfAnImportRestartsWithItFailedAndUnchanged) {
  target_->Stop();
  target_->StartProcess({"TESSERA_FAULT_IMPORT_COMMIT_DELAY_MS=600000"});
  model::ObjectRecord revenue = source_->storage.Named(project_, "Revenue");
  revenue.description = "Revenue, restated";
  source_->storage.Save(revenue);
  std::string before = target_->storage.Dump(project_);
  std::string id = CreateAndApprove(ObjectMigrationBody(revenue, "replace"));

  auto put = target_->Send("PUT", "/api/migrations/" + id + "?generateUndo=True", Replicated(id),
                           project_);
  ASSERT_EQ(put.status, 201) << put.body;
  ASSERT_TRUE(WaitForLogLine(target_->log_path(), "the import waits"));
  EXPECT_EQ(target_->Get(id)["importInfo"]["status"], "importing");
  target_->KillProcess();

  EXPECT_EQ(target_->storage.Dump(project_), before);  // nothing of the import was kept
  target_->StartProcess();
  Json failed = target_->Get(id);
  EXPECT_EQ(failed["importInfo"]["status"], "import_failed") << failed.dump();
  EXPECT_NE(failed["importInfo"]["message"].get<std::string>().find("restarted"), std::string::npos)
      << failed.dump();
  EXPECT_EQ(target_->storage.Dump(project_), before);
  EXPECT_EQ(source_->Get(id)["importInfo"]["status"], "import_failed");
  auto undo_dir = packages_.path() / "mstr/shared/migrations/undo";
  if (std::filesystem::exists(undo_dir)) {  // the killed import's undo files went with it
    for (const auto& entry : std::filesystem::recursive_directory_iterator(undo_dir)) {
      if (entry.is_regular_file()) ADD_FAILURE() << "left behind: " << entry.path();
    }
  }

  // The package is reused for a new import (approved at once, as mstrio-py's reuse expects),
  // which succeeds.
  auto reused = source_->Send("POST", "/api/migrations?packageId=" + id.substr(0, 32),
                              {{"importInfo",
                                {{"environment",
                                  {{"id", "https://prod.example.com/TesseraLibrary/"},
                                   {"name", "https://prod.example.com/TesseraLibrary/"}}},
                                 {"project", {{"id", project_}, {"name", "Tutorial"}}}}}});
  ASSERT_EQ(reused.status, 201) << reused.body;
  std::string again = BodyOf(reused).value("id", "");
  EXPECT_EQ(again.substr(0, 32), id.substr(0, 32));
  EXPECT_NE(again, id);
  Json imported = ImportOnTarget(again);
  EXPECT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  EXPECT_EQ(target_->storage.Find(project_, revenue.id)->description, "Revenue, restated");
}

TEST_P(MigrationFaultsApi, APackageFromANewerPlatformIsRefusedAndNothingIsStored) {
  source_->Stop();
  source_->config.reported_version = "11.7.0100.0001";
  source_->Start();
  std::string before = target_->storage.Dump(project_);
  std::string id = CreateAndApprove(
      ObjectMigrationBody(source_->storage.Named(project_, "Cost"), "force_replace"));

  auto put = target_->Send("PUT", "/api/migrations/" + id, Replicated(id), project_);

  ExpectError(put, 400, "ERR006");
  EXPECT_EQ(MessageOf(put),
            "Package created with platform 11.7.0100.0001 cannot be imported into 11.6.0200.0001; "
            "only same or newer targets are supported");
  ExpectError(target_->client->Get("/api/migrations/" + id, target_->Headers()), 404, "ERR004");
  EXPECT_EQ(target_->storage.Dump(project_), before);
}

TEST_P(MigrationFaultsApi, APackageCorruptedInTheSharedLocationFailsClearlyAndChangesNothing) {
  std::string before = target_->storage.Dump(project_);
  std::string id = CreateAndApprove(
      ObjectMigrationBody(source_->storage.Named(project_, "Cost"), "force_replace"));
  auto file = packages_.path() /
              source_->Get(id, "all")["packageInfo"]["storage"]["path"].get<std::string>();
  {
    std::fstream bytes(file, std::ios::in | std::ios::out | std::ios::binary);
    auto size = std::filesystem::file_size(file);
    for (auto at : {size / 3, size / 2}) {
      bytes.seekg(static_cast<std::streamoff>(at));
      char byte = 0;
      bytes.read(&byte, 1);
      bytes.seekp(static_cast<std::streamoff>(at));
      byte = static_cast<char>(byte ^ 0x5A);
      bytes.write(&byte, 1);
    }
  }

  auto put = target_->Send("PUT", "/api/migrations/" + id, Replicated(id), project_);

  std::string message;
  if (put.status == 201) {  // found corrupt once read whole, by the import job
    Json failed = target_->WaitWhile(id, "importInfo", "importing");
    EXPECT_EQ(failed["importInfo"]["status"], "import_failed") << failed.dump();
    message = failed["importInfo"]["message"].get<std::string>();
  } else {
    ExpectError(put, 400, "ERR006");
    message = MessageOf(put);
  }
  EXPECT_NE(message.find("Package file is corrupt"), std::string::npos) << message;
  EXPECT_EQ(target_->storage.Dump(project_), before);
}

TEST_P(MigrationFaultsApi, EachMissingPrivilegeIsA403NamingItAndChangesNothing) {
  model::ObjectRecord cost = source_->storage.Named(project_, "Cost");
  Json body = ObjectMigrationBody(cost, "force_replace");
  std::string no_create = source_->LoginWithout(model::Privilege::kCreatePackage, "no_create");
  std::string no_bypass = source_->LoginWithout(model::Privilege::kBypassObjectSecurity, "nb");
  auto send = [&](ServedEnvironment& environment, const std::string& token, std::string_view method,
                  const std::string& target, const Json& json) {
    http::Headers headers = AuthHeaders(token, project_);
    headers.Set("Content-Type", "application/json");
    return environment.client->Send(method, target, headers, json.dump());
  };
  auto expect_refused = [](const http::Response& response, const std::string& privilege) {
    ExpectError(response, 403, "ERR014");
    EXPECT_EQ(MessageOf(response),
              "You do not have " + privilege + " privilege(s) to perform the task.");
  };

  expect_refused(send(*source_, no_create, "POST", "/api/migrations", body), "Create package");
  expect_refused(send(*source_, no_bypass, "POST", "/api/migrations", body),
                 "Bypass all object security access checks");
  auto listed = source_->client->Get("/api/migrations", source_->Headers());
  EXPECT_EQ(BodyOf(listed)["total"], 0) << listed.body;

  auto created = source_->Send("POST", "/api/migrations", body, project_);
  std::string id = BodyOf(created).value("id", "");
  source_->WaitWhile(id, "packageInfo", "creating");
  expect_refused(send(*source_, no_create, "PATCH", "/api/migrations/" + id,
                      {{"importInfo", {{"importRequestStatus", "requested"}}}}),
                 "Create package");
  EXPECT_EQ(source_->Get(id)["importInfo"]["importRequestStatus"], "pending");
  RequestAndApprove(id);

  std::string no_apply = target_->LoginWithout(model::Privilege::kApplyPackage, "no_apply");
  std::string no_bypass_target =
      target_->LoginWithout(model::Privilege::kBypassObjectSecurity, "nb_target");
  std::string before = target_->storage.Dump(project_);
  expect_refused(send(*target_, no_apply, "PUT", "/api/migrations/" + id, Replicated(id)),
                 "Apply package");
  expect_refused(send(*target_, no_bypass_target, "PUT", "/api/migrations/" + id, Replicated(id)),
                 "Bypass all object security access checks");
  ExpectError(target_->client->Get("/api/migrations/" + id, target_->Headers()), 404, "ERR004");
  EXPECT_EQ(target_->storage.Dump(project_), before);

  Json imported = ImportOnTarget(id);
  ASSERT_EQ(imported["importInfo"]["status"], "imported") << imported.dump();
  expect_refused(send(*target_, no_apply, "PATCH", "/api/migrations/" + id,
                      {{"importInfo", {{"undoRequestStatus", "requested"}}}}),
                 "Apply package");
  EXPECT_EQ(target_->Get(id)["importInfo"]["undoRequestStatus"], "pending");
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrationFaultsApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
