// The real `tessera` binary: help text, start-up refusal, graceful shutdown on SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "app/cli_process.h"
#include "http/client.h"
#include "support/free_port.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

TEST(TesseraCli, ServeHelpDocumentsEverySettingWithItsEnvironmentVariable) {
  Outcome outcome = RunCommand(Binary() + " serve --help");
  EXPECT_EQ(outcome.exit_code, 0);
  for (const char* text :
       {"--listen", "--data-dir", "--config", "--admin-password", "--storage-url", "TESSERA_LISTEN",
        "TESSERA_ADMIN_PASSWORD", "TESSERA_DATA_DIR"}) {
    EXPECT_NE(outcome.output.find(text), std::string::npos) << text;
  }
}

TEST(TesseraCli, ServeRefusesToListenBeyondLoopbackWithoutAnAdminPassword) {
  TempDir data;
  Outcome outcome = RunCommand("env -u TESSERA_ADMIN_PASSWORD " + Binary() +
                               " serve --listen 0.0.0.0:" + std::to_string(FreeLoopbackPort()) +
                               " --data-dir " + data.path().string());
  EXPECT_NE(outcome.exit_code, 0);
  EXPECT_NE(outcome.output.find("--admin-password"), std::string::npos) << outcome.output;
}

TEST(TesseraCli, BadConfigurationIsAUsageError) {
  Outcome outcome = RunCommand(Binary() + " serve --io-threads many");
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.output.find("--io-threads"), std::string::npos) << outcome.output;
}

TEST(TesseraCli, ProjectCreatePrintsTheNewIdAndRefusesADuplicateName) {
  TempDir data;
  std::string base = Binary() + " project create Sales --data-dir " + data.path().string();
  Outcome created = RunCommand(base);
  EXPECT_EQ(created.exit_code, 0) << created.output;
  EXPECT_EQ(created.output.size(), 33u) << created.output;  // 32 hex + newline
  Outcome duplicate = RunCommand(base);
  EXPECT_NE(duplicate.exit_code, 0);
  EXPECT_NE(duplicate.output.find("already exists"), std::string::npos) << duplicate.output;
}

TEST(TesseraCli, SigtermStopsTheServerGracefully) {
  TempDir data;
  int port = FreeLoopbackPort();
  pid_t pid = fork();
  if (pid == 0) {
    std::string listen = "127.0.0.1:" + std::to_string(port);
    std::string dir = data.path().string();
    execl(Binary().c_str(), "tessera", "serve", "--listen", listen.c_str(), "--data-dir",
          dir.c_str(), "--access-log", "false", "--demo-on-first-start", "false",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status_code = 0;
  for (int attempt = 0; attempt < 100 && status_code != 200; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      status_code =
          http::Client("127.0.0.1", static_cast<uint16_t>(port)).Send("GET", "/api/status").status;
    } catch (const std::exception&) {
    }
  }
  EXPECT_EQ(status_code, 200);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace tessera::testing

namespace tessera::testing {
namespace {

TEST(TesseraCli, DemoLoadsTheTutorialAndSqlPrintsAReportsQuery) {
  TempDir data;
  std::string dir = " --data-dir " + data.path().string();
  Outcome demo = RunCommand(Binary() + " demo --rows 2000 --seed 3" + dir);
  ASSERT_EQ(demo.exit_code, 0) << demo.output;
  EXPECT_NE(demo.output.find("project 'Tutorial'"), std::string::npos) << demo.output;
  EXPECT_TRUE(std::filesystem::exists(data.path() / "warehouse.db"));

  Outcome sql = RunCommand(Binary() + " sql 'Western Europe by Country'" + dir);
  ASSERT_EQ(sql.exit_code, 0) << sql.output;
  EXPECT_NE(sql.output.find("SELECT"), std::string::npos) << sql.output;
  EXPECT_NE(sql.output.find("\"sales_fact\""), std::string::npos) << sql.output;
  EXPECT_NE(sql.output.find("IN (?)"), std::string::npos) << sql.output;  // bound, not spliced
  EXPECT_NE(sql.output.find("-- parameter 1: 'Western Europe'"), std::string::npos) << sql.output;

  Outcome unknown = RunCommand(Binary() + " sql 'No Such Report'" + dir);
  EXPECT_NE(unknown.exit_code, 0);
}

TEST(TesseraCli, ExportThenImportRoundTripsAndBrokenBundlesAreRefusedWithLines) {
  TempDir data, exported;
  std::string dir = " --data-dir " + data.path().string();
  ASSERT_EQ(
      RunCommand(Binary() + " project import " TESSERA_SOURCE_DIR "/demo/tutorial" + dir).exit_code,
      0);
  Outcome out = RunCommand(Binary() + " project export Tutorial " + exported.path().string() + dir);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  Outcome again = RunCommand(Binary() + " project import " + exported.path().string() + dir);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find(" 0 created, 0 updated"), std::string::npos) << again.output;

  std::ofstream(exported.path() / "tables.yaml", std::ios::app) << "  - name: [broken\n";
  Outcome broken = RunCommand(Binary() + " project import " + exported.path().string() + dir);
  EXPECT_NE(broken.exit_code, 0);
  EXPECT_NE(broken.output.find("tables.yaml:"), std::string::npos) << broken.output;
  EXPECT_NE(broken.output.find("was not imported"), std::string::npos) << broken.output;
}

}  // namespace
}  // namespace tessera::testing
