// tests/support/temp_dir.h
//
// A fresh directory under the system temp dir, removed with everything in it on destruction, and
// the names of the files a directory holds.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Names of the files in `directory` (not recursive), sorted.
std::vector<std::string> FileNames(const std::filesystem::path& directory);

}  // namespace tessera::testing
