#include "fuzz/fuzz_support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "core/json.h"

namespace tessera::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSectionMark = "=== ";

fs::path MakeScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessera-fuzz-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  return pattern;
}

}  // namespace

const fs::path& ScratchDir() {
  static const fs::path directory = [] {
    fs::path made = MakeScratchDir();
    static const fs::path removed_at_exit = made;
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(removed_at_exit, ignored);
    });
    return made;
  }();
  return directory;
}

void WriteBytes(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<Section> SplitSections(std::string_view text) {
  std::vector<Section> sections(1);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (line.starts_with(kSectionMark)) {
      sections.push_back({std::string(line.substr(kSectionMark.size())), ""});
    } else {
      sections.back().content.append(line);
      if (end != std::string_view::npos) sections.back().content.push_back('\n');
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return sections;
}

void Finding(std::string_view what, std::string_view detail) {
  constexpr size_t kMaxDetail = 2000;
  std::fprintf(stderr, "\n==== FUZZ FINDING: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(std::min(detail.size(), kMaxDetail)), detail.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace tessera::fuzz
