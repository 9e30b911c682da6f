// tests/fuzz/fuzz_support.h
//
// What the fuzz harnesses share:
//   - ScratchDir(): a directory of this process under $TMPDIR (or /tmp), created on first use and
//     removed when the process exits normally, for parsers that read files;
//   - WriteBytes(): a file with exactly the given bytes;
//   - SplitSections(): the text format of the harnesses whose input is several named parts (a
//     bundle's files, a package's entries): parts start with a line "=== <name>"; whatever comes
//     before the first such line is returned under the name "";
//   - Finding(): a harness's own verdict that an input broke a contract (a 5xx, an escaped
//     exception, a broken round trip): prints it and aborts, which both drivers report as a
//     crash and save the input for.
#pragma once

#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::fuzz {

const std::filesystem::path& ScratchDir();

void WriteBytes(const std::filesystem::path& path, std::string_view bytes);

struct Section {
  std::string name;
  std::string content;
};
std::vector<Section> SplitSections(std::string_view text);

[[noreturn]] void Finding(std::string_view what, std::string_view detail);

}  // namespace tessera::fuzz
