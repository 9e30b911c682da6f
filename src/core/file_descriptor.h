// core/file_descriptor.h
//
// A file descriptor closed on scope exit. Close() closes it earlier and reports the error of
// close(2) itself, for writers that must know their data reached the file.
#pragma once

#include <unistd.h>

namespace tessera {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  int Close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

}  // namespace tessera
