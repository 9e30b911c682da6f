// The real `tessera` binary: help text, start-up refusal, graceful shutdown on SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "app/cli_process.h"
#include "app/serve_process.h"
#include "core/json.h"
#include "http/client.h"
#include "support/free_port.h"
#include "support/listening_port.h"
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
  const std::filesystem::path log = data.path() / "server.log";
  pid_t pid = fork();
  if (pid == 0) {
    if (freopen(log.c_str(), "w", stdout) == nullptr) _exit(126);
    std::string dir = (data.path() / "node").string();
    execl(Binary().c_str(), "tessera", "serve", "--listen", kAnyLoopbackPort, "--data-dir",
          dir.c_str(), "--access-log", "false", "--demo-on-first-start", "false",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const ListeningPort listening = WaitForListeningPort(pid, log, 0, std::chrono::seconds(30));
  if (listening.port == 0 && !listening.exited) kill(pid, SIGKILL);
  ASSERT_NE(listening.port, 0);
  EXPECT_EQ(http::Client("127.0.0.1", listening.port).Send("GET", "/api/status").status, 200);
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

// A copy of the demo bundle whose project.yaml names `warehouse` and whose report "Western
// Europe by Country" has another description.
void WriteChangedDemoBundle(const std::filesystem::path& to, const std::string& warehouse) {
  std::filesystem::copy(TESSERA_SOURCE_DIR "/demo/tutorial", to,
                        std::filesystem::copy_options::recursive);
  auto replace = [](const std::filesystem::path& file, const std::string& from,
                    const std::string& with) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), with);
    std::ofstream(file) << text;
  };
  replace(to / "project.yaml", "warehouse: demo", "warehouse: " + warehouse);
  for (const auto& entry : std::filesystem::directory_iterator(to / "reports")) {
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("name: Western Europe by Country") == std::string::npos) continue;
    replace(entry.path(), "description: Revenue and margin",
            "description: Changed revenue and margin");
  }
}

TEST(TesseraCli, ImportRefusesABundleNamingAnUnconfiguredWarehouseAndWritesNothing) {
  TempDir data, scratch;
  std::ofstream(scratch.path() / "tessera.toml")
      << "[warehouses.archive]\nurl = \"sqlite://" << (scratch.path() / "archive.db").string()
      << "\"\n";
  const std::string flags = " --data-dir " + data.path().string() + " --config " +
                            (scratch.path() / "tessera.toml").string();
  const std::string import = Binary() + " project import ";
  ASSERT_EQ(RunCommand(import + TESSERA_SOURCE_DIR "/demo/tutorial" + flags).exit_code, 0);
  WriteChangedDemoBundle(scratch.path() / "bundle", "sales_dw");

  Outcome refused = RunCommand(import + (scratch.path() / "bundle").string() + flags);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(
      refused.output.find(
          "tessera: The bundle's warehouse 'sales_dw' is not configured here; the configured "
          "warehouses are: archive, demo. Name one of them in project.yaml (warehouse: NAME) or "
          "configure it ([warehouses.sales_dw] url = \"...\"); nothing was imported\n"),
      std::string::npos)
      << refused.output;

  // Nothing was written: the original bundle finds every object as it left it.
  Outcome again = RunCommand(import + TESSERA_SOURCE_DIR "/demo/tutorial" + flags);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find(" 0 created, 0 updated"), std::string::npos) << again.output;
}

TEST(TesseraCli, ImportTakesABundleNamingAConfiguredWarehouse) {
  TempDir data, scratch;
  std::ofstream(scratch.path() / "tessera.toml")
      << "[warehouses.sales_dw]\nurl = \"sqlite://" << (scratch.path() / "sales.db").string()
      << "\"\n";
  const std::string flags = " --data-dir " + data.path().string() + " --config " +
                            (scratch.path() / "tessera.toml").string();
  WriteChangedDemoBundle(scratch.path() / "bundle", "sales_dw");
  Outcome imported =
      RunCommand(Binary() + " project import " + (scratch.path() / "bundle").string() + flags);
  EXPECT_EQ(imported.exit_code, 0) << imported.output;
  EXPECT_NE(imported.output.find("project 'Tutorial'"), std::string::npos) << imported.output;
}

}  // namespace
}  // namespace tessera::testing

namespace tessera::testing {
namespace {

std::string ProjectVersionFromCmake() {
  std::ifstream in(TESSERA_SOURCE_DIR "/CMakeLists.txt");
  for (std::string line; std::getline(in, line);) {
    const std::string prefix = "project(tessera VERSION ";
    if (line.starts_with(prefix))
      return line.substr(prefix.size(), line.find(' ', prefix.size()) - prefix.size());
  }
  return "";
}

TEST(TesseraCli, VersionPrintsTesseraOwnVersion) {
  Outcome outcome = RunCommand(Binary() + " --version");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_EQ(outcome.output, "tessera " + ProjectVersionFromCmake() + "\n");
}

// Every line the server logs with --log-format json is one JSON object with time, level and
// message, including the access log.
TEST(TesseraCli, JsonLogFormatWritesOneObjectPerLine) {
  TempDir data;
  const std::filesystem::path log = data.path() / "server.log";
  pid_t pid = fork();
  if (pid == 0) {
    FILE* out = freopen(log.c_str(), "w", stderr);
    if (out == nullptr || dup2(fileno(stderr), STDOUT_FILENO) < 0) _exit(126);
    const std::string dir = (data.path() / "node").string();
    execl(Binary().c_str(), "tessera", "serve", "--listen", kAnyLoopbackPort, "--data-dir",
          dir.c_str(), "--log-format", "json", "--demo-on-first-start", "false",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const ListeningPort listening = WaitForListeningPort(pid, log, 0, std::chrono::seconds(30));
  if (listening.port == 0 && !listening.exited) kill(pid, SIGKILL);
  ASSERT_NE(listening.port, 0);
  const uint16_t port = listening.port;
  EXPECT_EQ(http::Client("127.0.0.1", port).Send("GET", "/api/status").status, 200);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);

  std::ifstream in(log);
  int lines = 0;
  bool saw_listening = false, saw_access = false;
  for (std::string line; std::getline(in, line); ++lines) {
    Json entry = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(entry.is_object()) << "not JSON: " << line;
    EXPECT_TRUE(entry["time"].is_string()) << line;
    EXPECT_TRUE(entry["level"].is_string()) << line;
    const std::string message = entry.value("message", "");
    saw_listening |=
        message.find("listening on 127.0.0.1:" + std::to_string(port)) != std::string::npos;
    saw_access |= message.find("GET /api/status 200") != std::string::npos;
  }
  EXPECT_GT(lines, 2);
  EXPECT_TRUE(saw_listening);
  EXPECT_TRUE(saw_access);
}

TEST(TesseraCli, AnUnknownLogFormatIsAUsageError) {
  Outcome outcome = RunCommand(Binary() + " serve --log-format xml");
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.output.find("text or json"), std::string::npos) << outcome.output;
}

}  // namespace
}  // namespace tessera::testing

namespace tessera::testing {
namespace {

// `tessera sql` prints "?" placeholders and lists the parameters; the SQL view splices them in.
std::string SpliceParameters(const std::string& cli_output) {
  std::string statement;
  std::vector<std::string> parameters;
  std::istringstream lines(cli_output);
  for (std::string line; std::getline(lines, line);) {
    const std::string parameter_prefix = "-- parameter ";
    if (line.starts_with(parameter_prefix)) {
      parameters.push_back(line.substr(line.find(": ") + 2));
    } else if (!line.starts_with("--")) {
      statement += (statement.empty() ? "" : "\n") + line;
    }
  }
  if (statement.ends_with(";")) statement.pop_back();
  std::string spliced;
  size_t next = 0;
  for (char c : statement) {
    if (c == '?' && next < parameters.size()) {
      spliced += parameters[next++];
    } else {
      spliced += c;
    }
  }
  return spliced;
}

TEST(TesseraCli, SqlPrintsTheStatementTheServerRunsForTheReport) {
  TempDir data;
  const std::string dir = " --data-dir " + data.path().string();
  ASSERT_EQ(RunCommand(Binary() + " demo --rows 2000 --seed 3" + dir).exit_code, 0);
  Outcome sql = RunCommand(Binary() + " sql 'Western Europe by Country'" + dir);
  ASSERT_EQ(sql.exit_code, 0) << sql.output;
  std::smatch id;
  ASSERT_TRUE(std::regex_search(sql.output, id, std::regex(R"(\(([0-9A-F]{32})\))"))) << sql.output;

  ServeProcess server(Binary(), data.path(), data.path() / "server.log");
  server.Start({"--data-dir", data.path().string(), "--access-log", "false"});
  http::Client client("127.0.0.1", server.port());
  http::Headers form;
  form.Set("Content-Type", "application/x-www-form-urlencoded");
  auto login = client.Send("POST", "/api/auth/login", form, "username=administrator&password=");
  ASSERT_EQ(login.status, 204);
  http::Headers headers;
  headers.Set("X-MSTR-AuthToken", std::string(login.headers.Get("X-MSTR-AuthToken").value_or("")));
  std::string project;
  for (const auto& entry : Json::parse(client.Send("GET", "/api/projects", headers).body)) {
    if (entry["name"] == "Tutorial") project = entry["id"];
  }
  ASSERT_FALSE(project.empty());
  headers.Set("X-MSTR-ProjectID", project);
  headers.Set("Content-Type", "application/json");
  const std::string report = "/api/v2/reports/" + id[1].str();
  auto instance = client.Send("POST", report + "/instances", headers, "{}");
  ASSERT_EQ(instance.status, 200) << instance.body;
  const std::string instance_id = Json::parse(instance.body)["instanceId"];
  auto view = client.Send("GET", report + "/instances/" + instance_id + "/sqlView", headers);
  ASSERT_EQ(view.status, 200) << view.body;
  EXPECT_EQ(SpliceParameters(sql.output), Json::parse(view.body)["sqlStatement"]);
}

}  // namespace
}  // namespace tessera::testing
