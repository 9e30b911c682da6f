// tests/support/temp_dir.h
//
// A fresh directory under the system temp dir, removed with everything in it on destruction.
#pragma once

#include <filesystem>

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

}  // namespace tessera::testing
