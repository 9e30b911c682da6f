// http/spool_file.h
//
// The file a request body is spooled to when admission asks for it (Admission::spools_body):
// "<spool_dir>/tessera-body-<random hex>.tmp", created new and readable by its owner only.
//
// Contract:
//   - CreateSpoolFile() never throws: it returns the path and the file open for writing, or
//     nullopt with the failure logged (the server then answers 500).
//   - A SpoolFile owns the file while the body is being written and removes it when destroyed,
//     unless Release() handed the path on (to the BodyFile of a complete request, which removes
//     it when the request is released).
//   - IsStorageError() tells a failed write of a spooled body that is the disk's fault (full,
//     over quota, too large, I/O error) from one that is the client's (a socket never fails so).
#pragma once

#include <boost/beast/core/error.hpp>
#include <boost/beast/core/file.hpp>
#include <optional>
#include <string>
#include <utility>

namespace tessera::http {

class SpoolFile {
 public:
  explicit SpoolFile(std::string path) : path_(std::move(path)) {}
  ~SpoolFile();
  SpoolFile(const SpoolFile&) = delete;
  SpoolFile& operator=(const SpoolFile&) = delete;

  std::string Release() { return std::exchange(path_, {}); }

 private:
  std::string path_;
};

struct NewSpoolFile {
  std::string path;
  boost::beast::file file;  // open for writing
};

// `spool_dir` empty: the system's temporary directory.
std::optional<NewSpoolFile> CreateSpoolFile(const std::string& spool_dir);

bool IsStorageError(const boost::beast::error_code& ec);

}  // namespace tessera::http
