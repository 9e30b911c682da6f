// `tessera migrate` on the real binary between two running servers that share their package
// location. What each server holds before and after is read over HTTP.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "app/admin_session.h"
#include "app/cli_process.h"
#include "app/serve_process.h"
#include "app/tutorial_copy.h"
#include "core/json.h"
#include "model/object_types.h"
#include "support/free_port.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

constexpr int kReport = model::kTypeReportDefinition;

std::string Tessera(const std::string& arguments) {
  return "env -u TESSERA_DATA_DIR -u TESSERA_STORAGE_URL -u TESSERA_CONFIG "
         "-u TESSERA_SOURCE_PASSWORD -u TESSERA_TARGET_PASSWORD " +
         Binary() + " " + arguments;
}

std::string ListedId(const std::string& output, const std::string& what) {
  std::smatch found;
  if (!std::regex_search(output, found, std::regex("  " + what + R"( \(([0-9A-F]{32})\)\n)"))) {
    return "";
  }
  return found[1];
}

std::string Url(const ServeProcess& server) {
  return "http://127.0.0.1:" + std::to_string(server.port()) + "/";
}

// A source server whose Tutorial has "Extra Report" and a changed "Western Europe by Country",
// and a target server with the Tutorial as the bundle has it.
class Migrate : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteChangedTutorial(scratch_.path() / "changed");
    const std::string source_import = ImportInto(source_data_, scratch_.path() / "changed");
    extra_ = ListedId(source_import, "created report 'Extra Report'");
    western_ = ListedId(source_import, "created report 'Western Europe by Country'");
    ASSERT_NE(extra_, "") << source_import;
    ASSERT_NE(western_, "") << source_import;
    ImportInto(target_data_, kTutorialBundleDir);
    for (auto* side : {&source_, &target_}) {
      const TempDir& data = side == &source_ ? source_data_ : target_data_;
      side->Start({"--data-dir", data.path().string(), "--packages-dir", packages_.path().string(),
                   "--access-log", "false"});
    }
  }

  std::string ImportInto(const TempDir& data, const std::filesystem::path& bundle) {
    Outcome imported = RunCommand(Tessera("project import " + bundle.string() + " --data-dir " +
                                          data.path().string() + " --log-level warn"));
    EXPECT_EQ(imported.exit_code, 0) << imported.output;
    return imported.output;
  }

  // `tessera migrate ARGUMENTS` from the source to the target.
  Outcome Run(const std::string& arguments) {
    return RunCommand(Tessera("migrate " + arguments + " --source " + Url(source_) + " --target " +
                              Url(target_)));
  }

  // The source's object migrations (GET /api/migrations).
  int64_t SourceMigrations() {
    AdminSession source(source_.port());
    http::Response list = source.Get("/api/migrations");
    EXPECT_EQ(list.status, 200) << list.body;
    return Json::parse(list.body).value("total", int64_t{-1});
  }

  TempDir scratch_, packages_, source_data_, target_data_;
  ServeProcess source_{Binary(), source_data_.path(), source_data_.path() / "server.log"};
  ServeProcess target_{Binary(), target_data_.path(), target_data_.path() / "server.log"};
  std::string extra_, western_;
};

TEST_F(Migrate, PreviewsImportsAndUndoesAndADryRunChangesNothing) {
  AdminSession source(source_.port());
  AdminSession target(target_.port());
  const std::string project = target.ProjectId("Tutorial");
  ASSERT_EQ(source.ProjectId("Tutorial"), project) << "one bundle, one project id";
  // What the import should do, from the servers: the target lacks one report and has the other
  // with another description.
  ASSERT_EQ(target.Object(project, extra_, kReport).status, 404);
  const std::string new_description = source.Description(project, western_, kReport);
  const std::string old_description = target.Description(project, western_, kReport);
  ASSERT_NE(new_description, old_description);

  Outcome dry = Run("Tutorial " + extra_ + " " + western_ + " --dry-run");
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(
      dry.output.find("what the import changes in project 'Tutorial' on " + Url(target_) + ":\n"),
      std::string::npos)
      << dry.output;
  EXPECT_NE(dry.output.find("\n  replace: 1 created, 1 replaced\n"), std::string::npos)
      << dry.output;
  EXPECT_TRUE(std::regex_search(dry.output, std::regex("\n  use_existing: [0-9]+ kept\n")))
      << dry.output;
  EXPECT_NE(dry.output.find("dry run: nothing was imported"), std::string::npos) << dry.output;
  EXPECT_EQ(target.Object(project, extra_, kReport).status, 404);
  EXPECT_EQ(target.Description(project, western_, kReport), old_description);
  EXPECT_EQ(SourceMigrations(), 0) << "the dry run's package is deleted";

  Outcome imported = Run("tutorial " + extra_ + " " + western_);
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  EXPECT_NE(imported.output.find("importing: done\n"), std::string::npos) << imported.output;
  std::smatch undo;
  ASSERT_TRUE(std::regex_search(
      imported.output, undo,
      std::regex("to undo it: tessera migrate undo ([0-9A-F]{32}) --target " + Url(target_))))
      << imported.output;
  EXPECT_EQ(target.Object(project, extra_, kReport).status, 200);
  EXPECT_EQ(target.Description(project, western_, kReport), new_description);

  Outcome undone =
      RunCommand(Tessera("migrate undo " + undo[1].str() + " --target " + Url(target_)));
  ASSERT_EQ(undone.exit_code, 0) << undone.output;
  EXPECT_NE(undone.output.find("undid the import "), std::string::npos) << undone.output;
  EXPECT_EQ(target.Object(project, extra_, kReport).status, 404);
  EXPECT_EQ(target.Description(project, western_, kReport), old_description);

  Outcome again =
      RunCommand(Tessera("migrate undo " + undo[1].str() + " --target " + Url(target_)));
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("is undo_success on " + Url(target_) +
                              ": only an imported migration can be undone"),
            std::string::npos)
      << again.output;
}

TEST_F(Migrate, AnImportThatWouldFailIsShownAndNothingIsImported) {
  // Deleting the report on the target is refused: a dashboard there uses it.
  Outcome refused = Run("Tutorial " + western_ + " --rule delete");
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("tessera: the import would fail: "), std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("Western Europe by Country"), std::string::npos) << refused.output;
  AdminSession target(target_.port());
  const std::string project = target.ProjectId("Tutorial");
  EXPECT_EQ(target.Object(project, western_, kReport).status, 200);
  EXPECT_EQ(SourceMigrations(), 0) << "the refused package is deleted";
}

TEST_F(Migrate, BadInputsAreRefusedWithWhatIsWrongAndChangeNothing) {
  auto expect = [](const Outcome& outcome, int exit_code, const std::string& message) {
    EXPECT_EQ(outcome.exit_code, exit_code) << outcome.output;
    EXPECT_NE(outcome.output.find(message), std::string::npos) << outcome.output;
  };
  const std::string target = " --target " + Url(target_);
  expect(RunCommand(Tessera("migrate Tutorial " + extra_ + " --source ftp://host/" + target)), 2,
         "tessera: --source 'ftp://host/': not an http:// URL; expected "
         "http://HOST[:PORT][/PATH]");
  const std::string nobody = "http://127.0.0.1:" + std::to_string(FreeLoopbackPort()) + "/";
  expect(RunCommand(Tessera("migrate Tutorial " + extra_ + " --source " + nobody + target)), 1,
         "tessera: cannot reach " + nobody + ": ");
  expect(Run("Tutorial " + extra_ + " --target-password wrong"), 1,
         "tessera: " + Url(target_) + " refused the login of 'administrator': ");
  expect(Run("Nope " + extra_), 2,
         "tessera: no project 'Nope' on " + Url(source_) + "; the projects are: 'Tutorial' (");
  expect(Run("Tutorial 0123456789ABCDEF0123456789ABCDEF"), 2,
         "tessera: no object 0123456789ABCDEF0123456789ABCDEF in project 'Tutorial' on " +
             Url(source_) + "\n");
  expect(Run("Tutorial not-an-id"), 2, "tessera: 'not-an-id' is not an object id");
  expect(Run("Tutorial"), 2, "name the objects to move");
  expect(Run("Tutorial " + extra_ + " --rule merge"), 2,
         "tessera: --rule 'merge' is not a conflict rule; expected use_existing, replace, ");
  expect(RunCommand(Tessera("migrate undo 0123456789ABCDEF0123456789ABCDEF" + target)), 2,
         "tessera: no migration with the import id 0123456789ABCDEF0123456789ABCDEF on " +
             Url(target_));
  expect(RunCommand(Tessera("migrate undo " + extra_)), 2, "tessera: --target is required");

  AdminSession admin(target_.port());
  EXPECT_EQ(admin.Object(admin.ProjectId("Tutorial"), extra_, kReport).status, 404);
  EXPECT_EQ(SourceMigrations(), 0);
}

}  // namespace
}  // namespace tessera::testing
