#include "app/serve_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>

#include "http/client.h"
#include "support/listening_port.h"
#include "support/wait.h"

extern char** environ;

namespace tessera::testing {

namespace {

bool Answers(uint16_t port) {
  try {
    return http::Client("127.0.0.1", port).Send("GET", "/api/status").status == 200;
  } catch (const std::exception&) {
    return false;
  }
}

// The test's environment without its TESSERA_* variables.
std::vector<std::string> EnvironmentWithoutSettings() {
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (std::string_view(*variable).starts_with("TESSERA_")) continue;
    environment.emplace_back(*variable);
  }
  return environment;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

ServeProcess::ServeProcess(std::filesystem::path binary, std::filesystem::path working_dir,
                           std::filesystem::path log)
    : binary_(std::move(binary)), working_dir_(std::move(working_dir)), log_(std::move(log)) {}

ServeProcess::~ServeProcess() {
  if (pid_ == 0) return;
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
}

void ServeProcess::Start(const std::vector<std::string>& arguments) {
  ASSERT_EQ(pid_, 0) << "already started";
  std::vector<std::string> argv = {binary_.string(), "serve", "--listen", kAnyLoopbackPort};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  std::vector<std::string> environment = EnvironmentWithoutSettings();
  std::vector<char*> argv_pointers = Pointers(argv);
  std::vector<char*> environment_pointers = Pointers(environment);
  const std::uintmax_t log_offset = LogSize(log_);
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (chdir(working_dir_.c_str()) != 0) _exit(126);
    execve(argv_pointers[0], argv_pointers.data(), environment_pointers.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  const ListeningPort listening =
      WaitForListeningPort(pid_, log_, log_offset, deadline - std::chrono::steady_clock::now());
  if (listening.exited) pid_ = 0;
  ASSERT_NE(listening.port, 0) << "tessera serve did not start listening:\n" << Log();
  port_ = listening.port;
  const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  ASSERT_TRUE(WaitUntil([&] { return Answers(port_); }, remaining,
                        "tessera serve answered GET /api/status"))
      << "\n"
      << Log();
}

std::string ServeProcess::Log() const {
  std::ifstream in(log_);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace tessera::testing
