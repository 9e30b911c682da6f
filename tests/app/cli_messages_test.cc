// What the real `tessera` binary says when it is asked for something it cannot do: each message
// names what is wrong and what is accepted, and a command that only reads creates nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "app/cli_process.h"
#include "app/serve_process.h"
#include "app/warehouse_file.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

const std::filesystem::path kTutorialBundle = TESSERA_SOURCE_DIR "/demo/tutorial";
const std::string kHowToStart = "; pass --data-dir or run `tessera serve` or `tessera demo` first";

// `tessera ARGUMENTS`, its settings from the command line alone (no variable or configuration
// file of the environment the test runs in), logging warnings only.
std::string Tessera(const std::string& arguments) {
  return "env -u TESSERA_DATA_DIR -u TESSERA_STORAGE_URL -u TESSERA_CONFIG " + Binary() + " " +
         arguments + " --log-level warn";
}

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A data directory holding the Tutorial project (its definitions, no warehouse rows).
class TutorialData {
 public:
  TutorialData() {
    Outcome imported = RunCommand(Tessera("project import " + kTutorialBundle.string() + flag()));
    EXPECT_EQ(imported.exit_code, 0) << imported.output;
  }
  std::string flag() const { return " --data-dir " + dir_.path().string(); }

 private:
  TempDir dir_;
};

// The new project's id, which `tessera project create` prints.
std::string CreateProject(const std::string& name, const std::string& data_dir_flag) {
  Outcome created = RunCommand(Tessera("project create " + name + data_dir_flag));
  EXPECT_EQ(created.exit_code, 0) << created.output;
  return created.output.substr(0, 32);
}

TEST(TesseraCliMessages, AConfigurationMistakeStopsTheServerWithTheFileAndLine) {
  TempDir root;
  const std::filesystem::path file = root.path() / "tessera.toml";
  const std::filesystem::path data = root.path() / "data";
  // A server that starts in spite of the mistake is stopped by the timeout and fails the test.
  const std::string serve =
      "timeout 60 " + Tessera("serve --config " + file.string() + " --data-dir " + data.string());

  std::ofstream(file) << "[server]\nlisen = \"127.0.0.1:1\"\n";
  Outcome unknown = RunCommand(serve);
  EXPECT_EQ(unknown.exit_code, 2);
  const std::string expected =
      "tessera: " + file.string() +
      ":2: unknown key 'server.lisen'; accepted keys in [server]: listen, ";
  EXPECT_EQ(unknown.output.substr(0, expected.size()), expected) << unknown.output;

  std::ofstream(file) << "[server\nlisten = \"127.0.0.1:1\"\n";
  Outcome syntax = RunCommand(serve);
  EXPECT_EQ(syntax.exit_code, 2);
  const std::string at = "tessera: " + file.string() + ":1:8: ";
  EXPECT_EQ(syntax.output.substr(0, at.size()), at) << syntax.output;
  EXPECT_FALSE(std::filesystem::exists(data));
}

TEST(TesseraCliMessages, DemoRowsOutsideTheirRangeAreRefusedWithTheRangeInPlainNumbers) {
  TempDir root;
  const std::filesystem::path data = root.path() / "data";
  for (const std::string rows : {"0", "-5", "1099511627777", "99999999999999999999999", "many"}) {
    // A number accepted by mistake would start generating: the timeout makes that a failure.
    Outcome outcome =
        RunCommand("timeout 60 " + Tessera("demo --rows " + rows + " --data-dir " + data.string()));
    EXPECT_EQ(outcome.exit_code, 2) << rows;
    EXPECT_EQ(outcome.output,
              "tessera: --rows: '" + rows + "' is not an integer from 1 to 1099511627776\n");
  }
  EXPECT_FALSE(std::filesystem::exists(data)) << "nothing is generated for a refused demo";
}

TEST(TesseraCliMessages, ReadingCommandsRefuseAMissingDataDirectoryAndCreateNone) {
  TempDir cwd;
  const std::filesystem::path here = std::filesystem::canonical(cwd.path());
  Outcome by_default =
      RunCommand("cd " + here.string() + " && " + Tessera("sql 'Revenue by Year'"));
  EXPECT_EQ(by_default.exit_code, 2);
  EXPECT_EQ(by_default.output, "tessera: no data directory at " + (here / "tessera-data").string() +
                                   kHowToStart + "\n");
  EXPECT_FALSE(std::filesystem::exists(here / "tessera-data"));

  const std::filesystem::path missing = here / "missing";
  Outcome exported = RunCommand(Tessera("project export Tutorial " + (here / "out").string() +
                                        " --data-dir " + missing.string()));
  EXPECT_EQ(exported.exit_code, 2);
  EXPECT_EQ(exported.output,
            "tessera: no data directory at " + missing.string() + kHowToStart + "\n");
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST(TesseraCliMessages, ReadingCommandsRefuseADirectoryWithoutTesseraData) {
  TempDir empty;
  const std::filesystem::path dir = std::filesystem::canonical(empty.path());
  Outcome sql = RunCommand(Tessera("sql 'Revenue by Year' --data-dir " + dir.string()));
  EXPECT_EQ(sql.exit_code, 2);
  EXPECT_EQ(sql.output, "tessera: no Tessera data in " + dir.string() +
                            " (it holds no metadata.db)" + kHowToStart + "\n");
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(TesseraCliMessages, WritingCommandsCreateAMissingDataDirectoryAndSaySo) {
  TempDir root;
  const std::filesystem::path data = root.path() / "new-data";
  Outcome created = RunCommand(Tessera("project create Sales --data-dir " + data.string()));
  EXPECT_EQ(created.exit_code, 0) << created.output;
  EXPECT_TRUE(std::regex_match(created.output, std::regex("created the data directory " +
                                                          data.string() + "\n[0-9A-F]{32}\n")))
      << created.output;
  EXPECT_TRUE(std::filesystem::exists(data / "metadata.db"));
}

TEST(TesseraCliMessages, ServeCreatesAMissingDataDirectoryAndLogsThatItDid) {
  TempDir root;
  const std::filesystem::path data = root.path() / "new-data";
  const std::filesystem::path log = root.path() / "serve.log";
  {
    ServeProcess server(Binary(), root.path(), log);
    server.Start(
        {"--data-dir", data.string(), "--access-log", "false", "--demo-on-first-start", "false"});
  }
  EXPECT_TRUE(std::filesystem::is_directory(data));
  EXPECT_NE(ReadText(log).find(" created the data directory " + data.string() + "\n"),
            std::string::npos)
      << ReadText(log);
}

TEST(TesseraCliMessages, AnUnknownProjectIsRefusedWithTheProjectsThatExist) {
  TutorialData data;
  CreateProject("Sales", data.flag());
  Outcome sql = RunCommand(Tessera("sql 'Revenue by Year' --project Nope" + data.flag()));
  EXPECT_EQ(sql.exit_code, 2);
  EXPECT_EQ(sql.output, "tessera: no project 'Nope'; the projects are: Sales, Tutorial\n");

  TempDir out;
  Outcome exported =
      RunCommand(Tessera("project export Nope " + out.path().string() + data.flag()));
  EXPECT_EQ(exported.exit_code, 2);
  EXPECT_EQ(exported.output, "tessera: no project 'Nope'; the projects are: Sales, Tutorial\n");
}

TEST(TesseraCliMessages, AnUnknownReportIsRefusedNamingWhereItWasLookedFor) {
  TutorialData data;
  Outcome anywhere = RunCommand(Tessera("sql 'Revenue by Yaer'" + data.flag()));
  EXPECT_EQ(anywhere.exit_code, 2);
  EXPECT_EQ(anywhere.output, "tessera: no report or cube 'Revenue by Yaer' in any project\n");
  Outcome in_project =
      RunCommand(Tessera("sql 'Revenue by Yaer' --project tutorial" + data.flag()));
  EXPECT_EQ(in_project.output,
            "tessera: no report or cube 'Revenue by Yaer' in project 'Tutorial'\n");
}

TEST(TesseraCliMessages, ProjectAndReportNamesIgnoreCase) {
  TutorialData data;
  Outcome sql =
      RunCommand(Tessera("sql 'western europe by country' --project TUTORIAL" + data.flag()));
  EXPECT_EQ(sql.exit_code, 0) << sql.output;
  EXPECT_EQ(sql.output.rfind("-- Western Europe by Country (", 0), 0u) << sql.output;

  TempDir out;
  Outcome exported =
      RunCommand(Tessera("project export tutorial " + out.path().string() + data.flag()));
  EXPECT_EQ(exported.exit_code, 0) << exported.output;
  EXPECT_NE(ReadText(out.path() / "project.yaml").find("name: Tutorial\n"), std::string::npos);
}

TEST(TesseraCliMessages, AnExactCaseMatchWinsOverNamesThatDifferOnlyByCase) {
  // The Tutorial bundle with a second report whose name differs from another only by case.
  TempDir bundle, data;
  std::filesystem::copy(kTutorialBundle, bundle.path(), std::filesystem::copy_options::recursive);
  std::ofstream(bundle.path() / "reports/shouting.yaml")
      << "name: WESTERN EUROPE BY COUNTRY\nrows: [Region]\ncolumns: [Revenue]\n";
  const std::string flag = " --data-dir " + data.path().string();
  ASSERT_EQ(RunCommand(Tessera("project import " + bundle.path().string() + flag)).exit_code, 0);

  Outcome upper = RunCommand(Tessera("sql 'WESTERN EUROPE BY COUNTRY'" + flag));
  EXPECT_EQ(upper.output.rfind("-- WESTERN EUROPE BY COUNTRY (", 0), 0u) << upper.output;
  Outcome original = RunCommand(Tessera("sql 'Western Europe by Country'" + flag));
  EXPECT_EQ(original.output.rfind("-- Western Europe by Country (", 0), 0u) << original.output;
  Outcome neither = RunCommand(Tessera("sql 'western europe by country'" + flag));
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_NE(neither.output.find("'western europe by country' names 2 reports or cubes: "),
            std::string::npos)
      << neither.output;
  EXPECT_NE(neither.output.find("give --project or its id\n"), std::string::npos) << neither.output;

  const std::string sales = CreateProject("Sales", flag);
  const std::string shouting = CreateProject("SALES", flag);
  Outcome exact = RunCommand(Tessera("sql 'Revenue by Year' --project SALES" + flag));
  EXPECT_EQ(exact.output, "tessera: no report or cube 'Revenue by Year' in project 'SALES'\n");
  Outcome ambiguous = RunCommand(Tessera("sql 'Revenue by Year' --project sales" + flag));
  EXPECT_EQ(ambiguous.output, "tessera: 'sales' names 2 projects: 'SALES' (" + shouting +
                                  "), 'Sales' (" + sales + "); give its exact name or its id\n");
}

TEST(TesseraCliMessages, AReportThatReadsACubeSaysWhichCubeHasTheQuery) {
  TutorialData data;
  // demo/tutorial/reports/quarterly-sales-by-channel.yaml: source: cube, cube: Sales Cube.
  Outcome sql = RunCommand(Tessera("sql 'Quarterly Sales by Channel'" + data.flag()));
  EXPECT_EQ(sql.exit_code, 2);
  EXPECT_EQ(sql.output,
            "tessera: report 'Quarterly Sales by Channel' reads the cube 'Sales Cube', not the "
            "warehouse: it has no SQL of its own; `tessera sql 'Sales Cube'` prints the query "
            "that publishes the cube\n");
}

TEST(TesseraCliMessages, SqlOfACubePrintsTheQueryItsPublishRuns) {
  TempDir data;
  const std::string flag = " --data-dir " + data.path().string();
  Outcome demo = RunCommand(Tessera("demo --rows 2000 --seed 5" + flag));
  ASSERT_EQ(demo.exit_code, 0) << demo.output;
  std::smatch published;
  ASSERT_TRUE(std::regex_search(demo.output, published,
                                std::regex(R"(cube 'Sales Cube': ([0-9]+) rows in)")))
      << demo.output;

  Outcome sql = RunCommand(Tessera("sql 'sales cube'" + flag));
  ASSERT_EQ(sql.exit_code, 0) << sql.output;
  const std::regex header(
      R"(^-- Sales Cube \([0-9A-F]{32}\), the query that publishes this cube, warehouse 'demo'\n)");
  EXPECT_TRUE(std::regex_search(sql.output, header)) << sql.output;
  EXPECT_EQ(sql.output.find("-- parameter"), std::string::npos) << "Sales Cube has no filter";
  const std::string query = sql.output.substr(sql.output.find('\n') + 1);
  // The query returns one row per row of the published cube.
  EXPECT_EQ(CountRows(data.path() / "warehouse.db", query), std::stoll(published[1]));
}

}  // namespace
}  // namespace tessera::testing
