// tessera.toml read strictly: unknown keys and tables, syntax errors and bad values are refused
// with the file and line, and every configuration the repository itself writes still loads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/config.h"
#include "support/temp_dir.h"

namespace tessera::app {
namespace {

const std::filesystem::path kSourceDir = TESSERA_SOURCE_DIR;

class StrictConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    // Only the file may speak: a variable would hide its value.
    for (const auto& spec : SettingSpecs()) ::unsetenv(spec.env);
  }

  // Writes `text` as a configuration file and returns its path.
  std::string Write(const std::string& text) {
    const std::string path = (dir_.path() / "tessera.toml").string();
    std::ofstream(path) << text;
    return path;
  }

  // The message LoadConfig refuses `text` with; "" when it loads.
  std::string Refusal(const std::string& text) {
    try {
      LoadConfig({}, Write(text));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  }

  testing::TempDir dir_;
};

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(StrictConfigFile, AnUnknownKeyInATableIsRefusedWithItsLineAndTheKeysTheTableAccepts) {
  const std::string message = Refusal("data_dir = \"/tmp/x\"\n[server]\nlisen = \"0.0.0.0:80\"\n");
  const std::string expected = Write("") + ":3: unknown key 'server.lisen'; accepted keys in " +
                               "[server]: listen, context_path, io_threads, ";
  EXPECT_EQ(message.substr(0, expected.size()), expected) << message;
  EXPECT_NE(message.find(", idle_timeout_seconds, "), std::string::npos) << message;
}

TEST_F(StrictConfigFile, AnUnknownKeyInASmallTableListsAllItAccepts) {
  EXPECT_EQ(Refusal("[jobs]\nlease_seconds = 5\nleese_seconds = 6\n"),
            Write("") + ":3: unknown key 'jobs.leese_seconds'; accepted keys in [jobs]: " +
                "lease_seconds");
}

TEST_F(StrictConfigFile, AnUnknownTableIsRefusedWithTheTablesAccepted) {
  EXPECT_EQ(Refusal("\n[srever]\nlisten = \"127.0.0.1:1\"\n"),
            Write("") +
                ":2: unknown table [srever]; accepted at the top level: data_dir, [server], "
                "[storage], [auth], [packages], [cubes], [migrations], [jobs], [instances], "
                "[uploads], [demo], [web], "
                "[log], [metrics], [warehouses.NAME]");
}

TEST_F(StrictConfigFile, AnUnknownKeyAtTheTopLevelIsRefused) {
  const std::string message = Refusal("datadir = \"/tmp/x\"\n");
  const std::string expected =
      Write("") + ":1: unknown key 'datadir'; accepted at the top level: data_dir, [server], ";
  EXPECT_EQ(message.substr(0, expected.size()), expected) << message;
}

TEST_F(StrictConfigFile, ADottedKeyIsCheckedLikeItsTable) {
  const std::string message = Refusal("server.lisen = \"127.0.0.1:1\"\n");
  const std::string expected = Write("") + ":1: unknown key 'server.lisen'; accepted keys in ";
  EXPECT_EQ(message.substr(0, expected.size()), expected) << message;
}

TEST_F(StrictConfigFile, AnUnknownKeyOfAWarehouseIsRefused) {
  EXPECT_EQ(
      Refusal("[warehouses.sales]\nurl = \"sqlite:///tmp/sales.db\"\nuser = \"me\"\n"),
      Write("") +
          ":3: unknown key 'warehouses.sales.user'; accepted keys in [warehouses.sales]: url");
}

TEST_F(StrictConfigFile, AWarehouseWithoutAUrlIsRefusedWithItsLine) {
  EXPECT_EQ(Refusal("[warehouses.demo]\nurl = \"sqlite:///tmp/w.db\"\n\n[warehouses.sales]\n"),
            Write("") + ":4: [warehouses.sales] needs url = \"...\"");
}

TEST_F(StrictConfigFile, AKnownTableWrittenAsAValueIsRefused) {
  EXPECT_EQ(Refusal("jobs = 5\n"), Write("") +
                                       ":1: 'jobs' must be a table, [jobs]; accepted keys in "
                                       "[jobs]: lease_seconds");
}

TEST_F(StrictConfigFile, ASyntaxErrorNamesItsLineAndColumn) {
  const std::string message = Refusal("[server]\nlisten = \"127.0.0.1:1\"\nio_threads = = 2\n");
  // The second '=' is the 14th character of line 3.
  const std::string expected = Write("") + ":3:14: ";
  EXPECT_EQ(message.substr(0, expected.size()), expected) << message;
  EXPECT_GT(message.size(), expected.size()) << "the parser's description follows";
}

TEST_F(StrictConfigFile, AnUnclosedTableHeaderNamesItsLineAndColumn) {
  const std::string message = Refusal("[server\nlisten = 1\n");
  // The line ends, at column 8, where ']' was expected.
  const std::string expected = Write("") + ":1:8: ";
  EXPECT_EQ(message.substr(0, expected.size()), expected) << message;
  EXPECT_NE(message.find("']'"), std::string::npos) << message;
}

TEST_F(StrictConfigFile, ABadValueNamesItsLineAndKey) {
  EXPECT_EQ(Refusal("[server]\nlisten = \"127.0.0.1:1\"\nio_threads = \"many\"\n"),
            Write("") + ":3: server.io_threads: 'many' is not an integer from 1 to 64");
}

TEST_F(StrictConfigFile, AValueOfAnUnsupportedTypeNamesItsLine) {
  EXPECT_EQ(Refusal("[server]\nio_threads = 2.5\n"),
            Write("") + ":2: server.io_threads: expected a string, a whole number, true or false");
}

TEST_F(StrictConfigFile, AFileThatCannotBeReadIsNamed) {
  const std::string missing = (dir_.path() / "missing.toml").string();
  try {
    LoadConfig({}, missing);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read configuration file " + missing + ": No such file or directory");
  }
}

// The keys of the settings table in docs/configuration.md: "| `server.listen` | ...".
std::set<std::string> DocumentedKeys() {
  std::set<std::string> keys;
  std::istringstream lines(ReadText(kSourceDir / "docs/configuration.md"));
  const std::regex row(R"(^\| `([a-z_.]+)` \| `TESSERA_[A-Z_]+` \|)");
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, match, row)) keys.insert(match[1]);
  }
  return keys;
}

TEST_F(StrictConfigFile, TheDocumentedKeysAreExactlyTheAcceptedOnes) {
  std::set<std::string> accepted;
  for (const auto& spec : SettingSpecs()) accepted.insert(spec.key);
  EXPECT_EQ(DocumentedKeys(), accepted);
}

// The ```toml blocks of a markdown file.
std::vector<std::string> TomlBlocks(const std::filesystem::path& markdown) {
  std::vector<std::string> blocks;
  std::istringstream lines(ReadText(markdown));
  std::string block;
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    if (!inside && line == "```toml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      blocks.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return blocks;
}

// The TOML written by `cat > FILE <<TOML ... TOML` in a shell script, its $variables replaced by
// an absolute path.
std::vector<std::string> TomlHeredocs(const std::filesystem::path& script) {
  std::vector<std::string> blocks;
  std::istringstream lines(ReadText(script));
  const std::regex variable(R"(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)");
  std::string block;
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    if (!inside && line.find("<<TOML") != std::string::npos) {
      inside = true;
      block.clear();
    } else if (inside && line == "TOML") {
      inside = false;
      blocks.push_back(block);
    } else if (inside) {
      block += std::regex_replace(line, variable, "/var/tmp/x") + "\n";
    }
  }
  return blocks;
}

TEST_F(StrictConfigFile, EveryConfigurationTheRepositoryWritesLoads) {
  std::vector<std::pair<std::string, std::string>> samples;  // where, text
  for (const char* doc : {"docs/configuration.md", "README.md"}) {
    for (const auto& block : TomlBlocks(kSourceDir / doc)) samples.emplace_back(doc, block);
  }
  for (const char* folder : {"bench", "scripts", ".ci"}) {
    for (const auto& entry : std::filesystem::directory_iterator(kSourceDir / folder)) {
      if (!entry.is_regular_file()) continue;
      for (const auto& block : TomlHeredocs(entry.path())) {
        samples.emplace_back(entry.path().string(), block);
      }
    }
  }
  samples.emplace_back("fuzz corpus every-section",
                       ReadText(kSourceDir / "tests/fuzz/corpus/toml_config/every-section"));
  // docs/configuration.md has two examples; bench/ writes two configuration files.
  EXPECT_GE(samples.size(), 5u);
  for (const auto& [where, text] : samples) {
    EXPECT_EQ(Refusal(text), "") << where << ":\n" << text;
  }
}

}  // namespace
}  // namespace tessera::app
