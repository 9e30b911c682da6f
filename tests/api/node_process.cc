#include "api/node_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "support/listening_port.h"
#include "support/wait.h"

namespace tessera::testing {

using namespace std::chrono_literals;

namespace {

bool Answers(uint16_t port) {
  try {
    return http::Client("127.0.0.1", port).Send("GET", "/api/status").status == 200;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

NodeProcess::NodeProcess(NodeSettings settings) : settings_(std::move(settings)) {}

NodeProcess::~NodeProcess() { Stop(); }

void NodeProcess::Start() {
  ASSERT_EQ(pid_, 0) << "the node is running";
  const char* binary = std::getenv("TESSERA_BINARY");
  ASSERT_NE(binary, nullptr) << "TESSERA_BINARY names the tessera binary";
  std::vector<std::string> arguments = {binary,
                                        "serve",
                                        "--listen",
                                        kAnyLoopbackPort,
                                        "--data-dir",
                                        settings_.data_dir.string(),
                                        "--access-log",
                                        "false",
                                        "--log-level",
                                        "info",
                                        "--demo-on-first-start",
                                        "false"};
  if (!settings_.storage_url.empty()) {
    arguments.insert(arguments.end(), {"--storage-url", settings_.storage_url});
  }
  if (!settings_.packages_dir.empty()) {
    arguments.insert(arguments.end(), {"--packages-dir", settings_.packages_dir.string()});
  }
  if (!settings_.public_url.empty()) {
    arguments.insert(arguments.end(), {"--public-url", settings_.public_url});
  }
  std::string log = log_path().string();
  std::vector<std::string> environment = settings_.environment;
  const std::uintmax_t log_offset = LogSize(log);
  pid_ = fork();
  if (pid_ == 0) {
    // A test that dies (a failed assertion's crash, a sanitizer report) takes its nodes with it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (auto& variable : environment) putenv(variable.data());
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    std::vector<char*> argv;
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    execv(binary, argv.data());
    _exit(127);
  }
  const ListeningPort listening = WaitForListeningPort(pid_, log, log_offset, 60s);
  if (listening.exited) pid_ = 0;
  ASSERT_NE(listening.port, 0) << "the node did not start listening; see " << log;
  port_ = listening.port;
  ASSERT_TRUE(WaitUntil([&] { return Answers(port_); }, 60s, "the node answered GET /api/status"))
      << "; see " << log;
  client_ = std::make_unique<ApiClient>(port_);
  token_ = client_->Login();
}

void NodeProcess::Kill() {
  ASSERT_NE(pid_, 0) << "the node is not running";
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = 0;
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
}

void NodeProcess::Stop() {
  if (pid_ == 0) return;
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
  pid_ = 0;
}

std::filesystem::path NodeProcess::log_path() const {
  return settings_.log_file.empty() ? settings_.data_dir / "server.log" : settings_.log_file;
}

http::Headers NodeProcess::Headers(const std::string& project_id) const {
  return AuthHeaders(token_, project_id);
}

::testing::AssertionResult WaitForLogLine(const std::filesystem::path& log, const std::string& text,
                                          std::chrono::milliseconds timeout) {
  return WaitUntil(
      [&] {
        std::ifstream in(log);
        const std::string content((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
        return content.find(text) != std::string::npos;
      },
      timeout, log.string() + " says \"" + text + "\"", 50ms);
}

}  // namespace tessera::testing
