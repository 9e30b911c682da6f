#include "support/pg_cluster.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "support/free_port.h"

namespace tessera::testing {
namespace {

namespace fs = std::filesystem;

bool HasInitdb(const fs::path& bindir) {
  std::error_code ignored;
  return !bindir.empty() && fs::exists(bindir / "initdb", ignored);
}

std::string PgConfigBindir() {
  FILE* pipe = popen("pg_config --bindir 2>/dev/null", "r");
  if (pipe == nullptr) return "";
  std::array<char, 512> buffer{};
  std::string out;
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string FindBindir() {
  if (const char* env = std::getenv("TESSERA_PG_BINDIR"); env != nullptr && HasInitdb(env)) {
    return env;
  }
  if (std::string bindir = PgConfigBindir(); HasInitdb(bindir)) return bindir;
  std::vector<fs::path> candidates;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ignored)) {
    if (HasInitdb(entry.path() / "bin")) candidates.push_back(entry.path() / "bin");
  }
  if (candidates.empty()) return "";
  std::sort(candidates.begin(), candidates.end());
  return candidates.back().string();  // the newest major version, for versions of equal length
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

PrivatePgCluster::PrivatePgCluster() : bindir_(FindBindir()) {
  if (bindir_.empty()) return;
  dir_ = std::make_unique<TempDir>();
  if (geteuid() == 0) {
    const passwd* server_user = getpwnam("postgres");
    if (server_user == nullptr) throw std::runtime_error("running as root but no 'postgres' user");
    if (chown(dir_->path().c_str(), server_user->pw_uid, server_user->pw_gid) != 0) {
      throw std::runtime_error("cannot chown " + dir_->path().string());
    }
    run_as_ = "runuser -u postgres -- ";
  }
  port_ = FreeLoopbackPort();
  Run(bindir_ + "/initdb -D " + (dir_->path() / "data").string() + " -A trust -U postgres");
}

PrivatePgCluster::~PrivatePgCluster() {
  if (!is_running_) return;
  try {
    Stop();
  } catch (const std::exception&) {
    // The directory is removed anyway; a server left behind dies with its data directory.
  }
}

void PrivatePgCluster::Start() {
  const std::string dir = dir_->path().string();
  std::string options = "-k " + dir + " -p " + std::to_string(port_) +
                        " -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100";
  Run(bindir_ + "/pg_ctl -D " + dir + "/data -l " + dir + "/server.log -o '" + options +
      "' -w -t 60 start");
  is_running_ = true;
}

void PrivatePgCluster::Stop() {
  Run(bindir_ + "/pg_ctl -D " + dir_->path().string() + "/data -m fast -w -t 60 stop");
  is_running_ = false;
}

std::string PrivatePgCluster::url() const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/postgres";
}

void PrivatePgCluster::Run(const std::string& command) const {
  const fs::path log = dir_->path() / "commands.log";
  std::string full = run_as_ + command + " >>" + log.string() + " 2>&1";
  if (std::system(full.c_str()) != 0) {
    throw std::runtime_error("failed: " + command + "\n" + ReadFile(log) +
                             ReadFile(dir_->path() / "server.log"));
  }
}

}  // namespace tessera::testing
