// What the real `tessera` binary says when it is asked for something it cannot do: each message
// names what is wrong and what is accepted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/cli_process.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

// `tessera ARGUMENTS`, its settings from the command line alone (no variable or configuration
// file of the environment the test runs in), logging warnings only.
std::string Tessera(const std::string& arguments) {
  return "env -u TESSERA_DATA_DIR -u TESSERA_STORAGE_URL -u TESSERA_CONFIG " + Binary() + " " +
         arguments + " --log-level warn";
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

}  // namespace
}  // namespace tessera::testing
