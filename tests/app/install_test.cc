// `make install` of this build (cmake --install into a temporary prefix): the installed binary,
// started from an unrelated working directory on a fresh data directory, finds the demo bundle
// and the web app under <prefix>/share/tessera. The test marks the installed copies (the
// project's description, a line appended to index.html), so an answer read from the checkout's
// files instead would differ. Also: what `tessera demo` and `tessera serve` do when the demo
// bundle folder holds no bundle.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/serve_process.h"
#include "http/client.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Outcome {
  int exit_code;       // -1 when the command did not exit normally
  std::string output;  // standard output and standard error
};

// Runs `command` with /bin/sh.
Outcome RunCommand(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buffer;
  size_t read = 0;
  while ((read = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    output.append(buffer.data(), read);
  }
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

std::string Binary() {
  const char* path = std::getenv("TESSERA_BINARY");
  return path ? path : "tessera";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The administrator's token (empty password, as on every loopback node).
std::string LogIn(http::Client& client) {
  http::Headers headers;
  headers.Set("Content-Type", "application/x-www-form-urlencoded");
  http::Response response =
      client.Send("POST", "/api/auth/login", headers, "username=administrator&password=");
  EXPECT_EQ(response.status, 204) << response.body;
  return std::string(response.headers.Get("X-MSTR-AuthToken").value_or(""));
}

// "name: description" of each project GET /api/projects lists.
std::vector<std::string> Projects(http::Client& client) {
  http::Headers headers;
  headers.Set("X-MSTR-AuthToken", LogIn(client));
  http::Response response = client.Send("GET", "/api/projects", headers);
  EXPECT_EQ(response.status, 200) << response.body;
  std::vector<std::string> projects;
  for (const auto& project : nlohmann::json::parse(response.body)) {
    projects.push_back(project.value("name", "") + ": " + project.value("description", ""));
  }
  return projects;
}

// Replaces the line starting with `key` in the YAML file `path` by `key value`.
void ReplaceYamlLine(const fs::path& path, const std::string& key, const std::string& value) {
  std::ifstream in(path);
  std::string text, line;
  while (std::getline(in, line)) text += (line.starts_with(key) ? key + " " + value : line) + "\n";
  in.close();
  std::ofstream(path, std::ios::trunc) << text;
}

TEST(Install, TheInstalledServerLoadsTheTutorialAndServesTheWebAppFromItsPrefix) {
  TempDir prefix, data, elsewhere;
  Outcome install =
      RunCommand(std::string(TESSERA_CMAKE) + " --install " TESSERA_BINARY_DIR " --prefix " +
                 prefix.path().string());
  ASSERT_EQ(install.exit_code, 0) << install.output;
  const fs::path share = prefix.path() / "share" / "tessera";
  ASSERT_TRUE(fs::is_regular_file(share / "demo" / "tutorial" / "project.yaml"));
  ASSERT_TRUE(fs::is_regular_file(share / "web" / "index.html"));
  EXPECT_TRUE(fs::is_regular_file(share / "demo" / "SCHEMA.md"));
  ReplaceYamlLine(share / "demo" / "tutorial" / "project.yaml", "description:", "installed copy");
  const std::string marker = "<!-- installed copy -->\n";
  std::ofstream(share / "web" / "index.html", std::ios::app) << marker;

  ServeProcess node(prefix.path() / "bin" / "tessera", elsewhere.path(),
                    data.path() / "server.log");
  node.Start({"--data-dir", data.path().string(), "--demo-rows", "2000", "--access-log", "false"});
  http::Client client("127.0.0.1", node.port());
  EXPECT_THAT(Projects(client), Contains("Tutorial: installed copy")) << node.Log();

  http::Response app = client.Send("GET", "/app");
  EXPECT_EQ(app.status, 200);
  EXPECT_THAT(std::string(app.headers.Get("Content-Type").value_or("")), HasSubstr("text/html"));
  EXPECT_EQ(app.body, ReadFile(TESSERA_SOURCE_DIR "/web/index.html") + marker);
  http::Response script = client.Send("GET", "/app/assets/js/main.js");
  EXPECT_EQ(script.status, 200);
  EXPECT_EQ(script.body, ReadFile(TESSERA_SOURCE_DIR "/web/assets/js/main.js"));
}

TEST(Install, DemoWithoutABundleFailsNamingTheFolderAndTheFlag) {
  TempDir data;
  const fs::path missing = data.path() / "no-bundle-here";
  Outcome demo = RunCommand(Binary() + " demo --rows 10 --data-dir " + data.path().string() +
                            " --demo-bundle-dir " + missing.string());
  EXPECT_NE(demo.exit_code, 0);
  EXPECT_THAT(demo.output, HasSubstr("no demo bundle in " + missing.string()));
  EXPECT_THAT(demo.output, HasSubstr("--demo-bundle-dir"));
  EXPECT_FALSE(fs::exists(data.path() / "warehouse.db")) << "no demo data without its bundle";
}

TEST(Install, ServeWithoutABundleWarnsAndStartsWithoutTheDemo) {
  TempDir data;
  const fs::path missing = data.path() / "no-bundle-here";
  ServeProcess node(Binary(), data.path(), data.path() / "server.log");
  node.Start({"--data-dir", data.path().string(), "--demo-bundle-dir", missing.string(),
              "--access-log", "false"});
  EXPECT_THAT(node.Log(), HasSubstr("no demo bundle in " + missing.string()));
  EXPECT_THAT(node.Log(), HasSubstr("starts without the demo project"));
  http::Client client("127.0.0.1", node.port());
  EXPECT_THAT(Projects(client), IsEmpty());
}

}  // namespace
}  // namespace tessera::testing
