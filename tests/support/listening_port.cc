#include "support/listening_port.h"

#include <sys/wait.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <thread>

namespace tessera::testing {
namespace {

uint16_t PortInLog(const std::filesystem::path& log, std::uintmax_t log_offset) {
  std::ifstream in(log);
  in.seekg(static_cast<std::streamoff>(log_offset));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  static const std::regex kListening("Tessera listening on [^ ]*:([0-9]+) ");
  std::smatch match;
  if (!std::regex_search(text, match, kListening)) return 0;
  return static_cast<uint16_t>(std::stoi(match[1]));
}

}  // namespace

std::uintmax_t LogSize(const std::filesystem::path& log) {
  std::error_code missing;
  const std::uintmax_t size = std::filesystem::file_size(log, missing);
  return missing ? 0 : size;
}

ListeningPort WaitForListeningPort(pid_t pid, const std::filesystem::path& log,
                                   std::uintmax_t log_offset,
                                   std::chrono::steady_clock::duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  ListeningPort listening;
  while (std::chrono::steady_clock::now() < deadline) {
    listening.port = PortInLog(log, log_offset);
    if (listening.port != 0) return listening;
    if (waitpid(pid, nullptr, WNOHANG) == pid) {
      listening.exited = true;
      return listening;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return listening;
}

}  // namespace tessera::testing
