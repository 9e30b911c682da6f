#include "core/process_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tessera {
namespace {

// Fields of /proc/self/stat after the command name (which may hold spaces): field 3 onwards.
std::vector<std::string> StatFields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> fields;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

double BootTimeSeconds() {
  std::ifstream in("/proc/stat");
  for (std::string key; in >> key;) {
    if (key == "btime") {
      double seconds = 0;
      in >> seconds;
      return seconds;
    }
    in.ignore(1 << 16, '\n');
  }
  return 0;
}

uint64_t CountOpenFds() {
  std::error_code error;
  uint64_t count = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++count;
  }
  return count;
}

}  // namespace

ProcessStats ReadProcessStats() {
  ProcessStats stats;
  const std::vector<std::string> fields = StatFields();  // fields[0] is stat field 3 (state)
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  if (fields.size() > 21 && ticks > 0) {
    stats.cpu_seconds = (std::stod(fields[11]) + std::stod(fields[12])) / ticks;   // utime, stime
    stats.start_time_seconds = BootTimeSeconds() + std::stod(fields[19]) / ticks;  // starttime
    stats.resident_bytes =
        std::stoull(fields[21]) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));  // rss pages
  }
  stats.open_fds = CountOpenFds();
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) stats.max_fds = limit.rlim_cur;
  return stats;
}

}  // namespace tessera
