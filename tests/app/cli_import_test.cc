// `tessera project import --dry-run` and `--prune` on the real binary. What the project holds
// afterwards is read over HTTP from a server started on the data directory.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "app/admin_session.h"
#include "app/cli_process.h"
#include "app/serve_process.h"
#include "app/tutorial_copy.h"
#include "core/ids.h"
#include "core/time.h"
#include "model/object.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "storage/metadata_store.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

// `tessera ARGUMENTS`, its settings from the command line alone.
std::string Tessera(const std::string& arguments) {
  return "env -u TESSERA_DATA_DIR -u TESSERA_STORAGE_URL -u TESSERA_CONFIG " + Binary() + " " +
         arguments + " --log-level warn";
}

// The id of the object a line "  <what> (<id>)" of `output` names; "" when there is none.
std::string ListedId(const std::string& output, const std::string& what) {
  std::smatch found;
  if (!std::regex_search(output, found, std::regex("  " + what + R"( \(([0-9A-F]{32})\)\n)"))) {
    return "";
  }
  return found[1];
}

// The number of objects of the Tutorial bundle: what a second import of it finds unchanged.
int TutorialObjectCount(const std::string& data_flag) {
  Outcome again = RunCommand(Tessera("project import " + kTutorialBundleDir.string() + data_flag));
  std::smatch found;
  EXPECT_TRUE(std::regex_search(again.output, found,
                                std::regex(R"(: 0 created, 0 updated, ([0-9]+) unchanged\n)")))
      << again.output;
  return found.empty() ? -1 : std::stoi(found[1]);
}

class ProjectImport : public ::testing::Test {
 protected:
  void SetUp() override {
    Outcome imported =
        RunCommand(Tessera("project import " + kTutorialBundleDir.string() + flag()));
    ASSERT_EQ(imported.exit_code, 0) << imported.output;
    total_ = TutorialObjectCount(flag());
    WriteChangedTutorial(scratch_.path() / "changed");
  }

  std::string flag() const { return " --data-dir " + data_.path().string(); }
  std::string Import(const std::string& bundle, const std::string& options = "") {
    Outcome outcome = RunCommand(Tessera("project import " + bundle + options + flag()));
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    return outcome.output;
  }
  std::string changed() const { return (scratch_.path() / "changed").string(); }
  std::string original() const { return kTutorialBundleDir.string(); }

  TempDir data_, scratch_;
  int total_ = 0;
};

TEST_F(ProjectImport, DryRunPrintsWhatWouldChangeAndWritesNothing) {
  const std::string dry = Import(changed(), " --dry-run");
  EXPECT_NE(dry.find(": 1 created, 1 updated, " + std::to_string(total_ - 1) +
                     " unchanged (dry run: nothing was written)\n"),
            std::string::npos)
      << dry;
  EXPECT_NE(ListedId(dry, "created report 'Extra Report'"), "") << dry;
  EXPECT_NE(ListedId(dry, "updated report 'Western Europe by Country'"), "") << dry;

  // Nothing was written: the real import still finds both changes to make.
  const std::string real = Import(changed());
  EXPECT_NE(real.find(": 1 created, 1 updated, " + std::to_string(total_ - 1) + " unchanged\n"),
            std::string::npos)
      << real;
}

TEST(ProjectImportDryRun, NeedsAnExistingDataDirectory) {
  TempDir empty;
  const std::string missing = (std::filesystem::canonical(empty.path()) / "nothing-here").string();
  Outcome outcome = RunCommand(Tessera("project import " + kTutorialBundleDir.string() +
                                       " --dry-run --data-dir " + missing));
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_NE(outcome.output.find("no data directory at " + missing), std::string::npos)
      << outcome.output;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST_F(ProjectImport, PruneRemovesWhatTheBundleNoLongerHas) {
  const std::string added = Import(changed());
  const std::string extra = ListedId(added, "created report 'Extra Report'");
  const std::string western = ListedId(added, "updated report 'Western Europe by Country'");
  ASSERT_NE(extra, "") << added;
  ASSERT_NE(western, "") << added;

  // Without --prune the extra report stays.
  const std::string kept = Import(original());
  EXPECT_NE(kept.find(": 0 created, 1 updated, " + std::to_string(total_ - 1) + " unchanged\n"),
            std::string::npos)
      << kept;

  const std::string preview = Import(original(), " --prune --dry-run");
  EXPECT_NE(preview.find(": 0 created, 0 updated, " + std::to_string(total_) +
                         " unchanged, 1 deleted (dry run: nothing was written)\n"),
            std::string::npos)
      << preview;
  EXPECT_EQ(ListedId(preview, "deleted report 'Extra Report'"), extra) << preview;

  const std::string pruned = Import(original(), " --prune");
  EXPECT_NE(pruned.find(", 1 deleted\n"), std::string::npos) << pruned;
  EXPECT_EQ(ListedId(pruned, "deleted report 'Extra Report'"), extra) << pruned;
  const std::string again = Import(original(), " --prune");
  EXPECT_NE(
      again.find(": 0 created, 0 updated, " + std::to_string(total_) + " unchanged, 0 deleted\n"),
      std::string::npos)
      << again;

  ServeProcess server(Binary(), data_.path(), data_.path() / "server.log");
  server.Start({"--data-dir", data_.path().string(), "--access-log", "false"});
  AdminSession admin(server.port());
  const std::string project = admin.ProjectId("Tutorial");
  EXPECT_EQ(admin.Object(project, extra, model::kTypeReportDefinition).status, 404);
  EXPECT_EQ(admin.Description(project, western, model::kTypeReportDefinition),
            kWesternEuropeDescription);
}

// An object of a kind bundles do not describe -- here a shortcut, as a migration may bring --
// that uses `used_id`, written straight into the data directory's storage.
void AddShortcut(const std::filesystem::path& data_dir, const std::string& project_id,
                 const std::string& id, const std::string& used_id) {
  storage::StoreOptions options;
  options.url = "sqlite://" + (data_dir / "metadata.db").string();
  auto store = storage::MetadataStore::Open(options);
  store->Write([&](storage::MetadataTransaction& tx) {
    model::ObjectRecord shortcut;
    shortcut.project_id = project_id;
    shortcut.id = id;
    shortcut.type = model::kTypeShortcut;
    shortcut.subtype = model::kTypeShortcut * 256;
    shortcut.name = "Link to Extra Report";
    shortcut.folder_id = std::string(model::kRootFolderId);
    shortcut.owner_id = std::string(model::kAdministratorUserId);
    shortcut.version = NewObjectId();
    shortcut.created = shortcut.modified = Now();
    tx.PutObject(shortcut);
    tx.SetDependencies(project_id, id, {used_id});
  });
}

TEST_F(ProjectImport, PruneIsRefusedNamingWhatStillUsesAnObjectToRemoveAndChangesNothing) {
  const std::string added = Import(changed());
  const std::string extra = ListedId(added, "created report 'Extra Report'");
  const std::string western = ListedId(added, "updated report 'Western Europe by Country'");
  std::smatch project;
  ASSERT_TRUE(
      std::regex_search(added, project, std::regex(R"(project 'Tutorial' \(([0-9A-F]{32})\))")))
      << added;
  const std::string link = NewObjectId();
  AddShortcut(data_.path(), project[1], link, extra);

  Outcome refused = RunCommand(Tessera("project import " + original() + " --prune" + flag()));
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("tessera: Cannot prune: report 'Extra Report' (" + extra +
                                ") is still used by object of type 18 'Link to Extra Report' (" +
                                link + "), which stays; nothing was imported\n"),
            std::string::npos)
      << refused.output;

  // Nothing changed: neither the deletion nor the update the same import would have made.
  ServeProcess server(Binary(), data_.path(), data_.path() / "server.log");
  server.Start({"--data-dir", data_.path().string(), "--access-log", "false"});
  AdminSession admin(server.port());
  const std::string project_id = admin.ProjectId("Tutorial");
  EXPECT_EQ(admin.Object(project_id, extra, model::kTypeReportDefinition).status, 200);
  EXPECT_EQ(admin.Description(project_id, western, model::kTypeReportDefinition),
            kChangedWesternEuropeDescription);
}

}  // namespace
}  // namespace tessera::testing
