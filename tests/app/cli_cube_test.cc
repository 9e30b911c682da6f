// `tessera cube publish` and `tessera cube status` on the real binary, against a data directory
// and against a running server. The rows a publish reports are counted independently by running
// the cube's query (`tessera sql`) on the warehouse with SQLite.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "app/cli_process.h"
#include "app/serve_process.h"
#include "app/tutorial_copy.h"
#include "app/warehouse_file.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

std::string Tessera(const std::string& arguments) {
  return "env -u TESSERA_DATA_DIR -u TESSERA_STORAGE_URL -u TESSERA_CONFIG " + Binary() + " " +
         arguments + " --log-level warn";
}

// Deletes every other row of the warehouse's fact tables.
void DropHalfTheFacts(const std::filesystem::path& warehouse) {
  std::string deletes;
  for (const auto& table : FactTables(warehouse)) {
    deletes += "DELETE FROM \"" + table + "\" WHERE rowid % 2 = 0;";
  }
  ASSERT_FALSE(deletes.empty());
  ExecuteSql(warehouse, deletes);
}

TEST(TesseraCube, PublishRunsTheCubesQueryAndStatusShowsTheRowsServed) {
  TempDir data;
  const std::string flag = " --data-dir " + data.path().string();
  ASSERT_EQ(RunCommand(Tessera("demo --rows 2000 --seed 7" + flag)).exit_code, 0);
  Outcome sql = RunCommand(Tessera("sql 'Item Sales Cube'" + flag));
  ASSERT_EQ(sql.exit_code, 0) << sql.output;
  const int64_t rows =
      CountRows(data.path() / "warehouse.db", sql.output.substr(sql.output.find('\n') + 1));
  ASSERT_GT(rows, 0);

  Outcome published = RunCommand(Tessera("cube publish 'ITEM SALES CUBE'" + flag));
  ASSERT_EQ(published.exit_code, 0) << published.output;
  // Not a terminal: the progress is plain lines.
  EXPECT_NE(published.output.find("publishing cube 'Item Sales Cube' ...\n"), std::string::npos)
      << published.output;
  EXPECT_NE(published.output.find("publishing cube 'Item Sales Cube': done\n"), std::string::npos)
      << published.output;
  EXPECT_NE(published.output.find("cube 'Item Sales Cube': " + std::to_string(rows) + " rows in "),
            std::string::npos)
      << published.output;

  Outcome status = RunCommand(Tessera("cube status 'item sales cube' --project tutorial" + flag));
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_TRUE(std::regex_search(
      status.output,
      std::regex("^cube 'Item Sales Cube' \\([0-9A-F]{32}\\) in project 'Tutorial': ready, " +
                 std::to_string(rows) + " rows, published [-0-9T:.+]+ in [0-9]+ ms\n$")))
      << status.output;
}

TEST(TesseraCube, AFailedPublishSaysWhyAndStatusKeepsIt) {
  TempDir data;
  const std::string flag = " --data-dir " + data.path().string();
  // The project's definitions only: its warehouse has no tables.
  ASSERT_EQ(RunCommand(Tessera("project import " + kTutorialBundleDir.string() + flag)).exit_code,
            0);
  Outcome before = RunCommand(Tessera("cube status 'Sales Cube'" + flag));
  ASSERT_EQ(before.exit_code, 0) << before.output;
  EXPECT_NE(before.output.find("in project 'Tutorial': not published\n"), std::string::npos)
      << before.output;

  Outcome failed = RunCommand(Tessera("cube publish 'Sales Cube'" + flag));
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  EXPECT_TRUE(std::regex_search(
      failed.output,
      std::regex(R"(tessera: cube 'Sales Cube' \([0-9A-F]{32}\) failed to publish: .+\n)")))
      << failed.output;

  Outcome after = RunCommand(Tessera("cube status 'Sales Cube'" + flag));
  ASSERT_EQ(after.exit_code, 0) << after.output;
  EXPECT_NE(after.output.find("in project 'Tutorial': failed: "), std::string::npos)
      << after.output;
}

TEST(TesseraCube, UnknownCubesAndReportsAreRefusedAsUsageErrors) {
  TempDir data;
  const std::string flag = " --data-dir " + data.path().string();
  ASSERT_EQ(RunCommand(Tessera("project import " + kTutorialBundleDir.string() + flag)).exit_code,
            0);
  Outcome unknown = RunCommand(Tessera("cube publish 'No Such Cube'" + flag));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("tessera: no cube 'No Such Cube' in any project\n"),
            std::string::npos)
      << unknown.output;

  Outcome report = RunCommand(Tessera("cube status 'Revenue by Year'" + flag));
  EXPECT_EQ(report.exit_code, 2) << report.output;
  EXPECT_NE(report.output.find("tessera: no cube 'Revenue by Year' in any project\n"),
            std::string::npos)
      << report.output;

  Outcome project = RunCommand(Tessera("cube status 'Sales Cube' --project Nope" + flag));
  EXPECT_EQ(project.exit_code, 2) << project.output;
  EXPECT_NE(project.output.find("no project 'Nope'; the projects are: Tutorial"), std::string::npos)
      << project.output;
}

TEST(TesseraCube, CubeCommandsOnlyReadAndRefuseAMissingDataDirectory) {
  TempDir root;
  const std::filesystem::path missing = std::filesystem::canonical(root.path()) / "missing";
  for (const char* command : {"cube status 'Sales Cube'", "cube publish 'Sales Cube'"}) {
    Outcome outcome = RunCommand(Tessera(std::string(command) + " --data-dir " + missing.string()));
    EXPECT_EQ(outcome.exit_code, 2) << command;
    EXPECT_NE(outcome.output.find("tessera: no data directory at " + missing.string()),
              std::string::npos)
        << outcome.output;
  }
  EXPECT_FALSE(std::filesystem::exists(missing));
}

// The data directory's cube query for `cube`, as `tessera sql` prints it.
std::string CubeQuery(const std::string& flag, const std::string& cube) {
  Outcome sql = RunCommand(Tessera("sql '" + cube + "'" + flag));
  EXPECT_EQ(sql.exit_code, 0) << sql.output;
  return sql.output.substr(sql.output.find('\n') + 1);
}

TEST(TesseraCube, PublishOnARunningServerServesTheNewDataAtOnce) {
  TempDir data;
  const std::string flag = " --data-dir " + data.path().string();
  const std::filesystem::path warehouse = data.path() / "warehouse.db";
  ASSERT_EQ(RunCommand(Tessera("demo --rows 2000 --seed 7" + flag)).exit_code, 0);
  const int64_t rows_before = CountRows(warehouse, CubeQuery(flag, "Item Sales Cube"));
  ServeProcess server(Binary(), data.path(), data.path() / "server.log");
  server.Start({"--data-dir", data.path().string(), "--access-log", "false"});
  const std::string remote =
      " --server http://127.0.0.1:" + std::to_string(server.port()) + "/ --password ''";

  Outcome before = RunCommand(Tessera("cube status 'item sales cube'" + remote));
  ASSERT_EQ(before.exit_code, 0) << before.output;
  const std::regex ready(
      "^cube 'Item Sales Cube' \\([0-9A-F]{32}\\) in project 'Tutorial': ready, ([0-9]+) bytes "
      "in memory, last updated [0-9/]+ [0-9:]+ UTC\n$");
  std::smatch size_before;
  ASSERT_TRUE(std::regex_search(before.output, size_before, ready)) << before.output;

  DropHalfTheFacts(warehouse);
  const int64_t rows_after = CountRows(warehouse, CubeQuery(flag, "Item Sales Cube"));
  ASSERT_LT(rows_after, rows_before);
  Outcome published = RunCommand(Tessera("cube publish 'Item Sales Cube'" + remote));
  ASSERT_EQ(published.exit_code, 0) << published.output;
  EXPECT_NE(published.output.find("publishing cube 'Item Sales Cube': done\n"), std::string::npos)
      << published.output;
  EXPECT_TRUE(std::regex_search(published.output,
                                std::regex("cube 'Item Sales Cube': published in [0-9]+ ms\n")))
      << published.output;

  // The server published it, not this command: the data directory's record of the publish
  // counts the rows the cube's query now returns, and the server serves a smaller dataset.
  Outcome local = RunCommand(Tessera("cube status 'Item Sales Cube'" + flag));
  EXPECT_NE(local.output.find(": ready, " + std::to_string(rows_after) + " rows, published"),
            std::string::npos)
      << local.output << "rows before: " << rows_before << ", after: " << rows_after << "\n"
      << published.output << server.Log();
  Outcome after = RunCommand(Tessera("cube status 'Item Sales Cube'" + remote));
  std::smatch size_after;
  ASSERT_TRUE(std::regex_search(after.output, size_after, ready)) << after.output;
  EXPECT_LT(std::stoll(size_after[1]), std::stoll(size_before[1]));
}

TEST(TesseraCube, RemoteCommandsSayWhatIsMissingOnTheServer) {
  TempDir data;
  const std::string flag = " --data-dir " + data.path().string();
  ASSERT_EQ(RunCommand(Tessera("project import " + kTutorialBundleDir.string() + flag)).exit_code,
            0);
  ServeProcess server(Binary(), data.path(), data.path() / "server.log");
  server.Start({"--data-dir", data.path().string(), "--access-log", "false"});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";

  Outcome unknown = RunCommand(Tessera("cube publish 'No Such Cube' --server " + url));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("tessera: no cube 'No Such Cube' on " + url + "; the cubes are: "),
            std::string::npos)
      << unknown.output;
  EXPECT_NE(unknown.output.find("'Sales Cube' ("), std::string::npos) << unknown.output;

  Outcome project = RunCommand(Tessera("cube status 'Sales Cube' --project Nope --server " + url));
  EXPECT_EQ(project.exit_code, 2) << project.output;
  EXPECT_NE(project.output.find("no project 'Nope' on " + url + "; the projects are: 'Tutorial'"),
            std::string::npos)
      << project.output;

  Outcome failed = RunCommand(Tessera("cube publish 'sales cube' --server " + url));
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  EXPECT_TRUE(std::regex_search(
      failed.output,
      std::regex(R"(tessera: cube 'Sales Cube' \([0-9A-F]{32}\) in project 'Tutorial' failed to )"
                 R"(publish: .+\n)")))
      << failed.output;
  Outcome status = RunCommand(Tessera("cube status 'Sales Cube' --server " + url));
  EXPECT_NE(status.output.find("in project 'Tutorial': not published\n"), std::string::npos)
      << status.output;

  Outcome login = RunCommand(Tessera("cube status 'Sales Cube' --password wrong --server " + url));
  EXPECT_EQ(login.exit_code, 1) << login.output;
  EXPECT_NE(login.output.find(url + " refused the login of 'administrator'"), std::string::npos)
      << login.output;
}

}  // namespace
}  // namespace tessera::testing
