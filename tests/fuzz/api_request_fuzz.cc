// Fuzz harness: the REST API's request handling (api::Api::Handle) -- every route's JSON bodies,
// query parameters and path parameters -- on a node with the demo project (fuzz/api_world.h).
//
// Input: one request in the text form of fuzz/request_text.h. Unless the input sets them, the
// administrator's token (X-MSTR-AuthToken) and the demo project (X-MSTR-ProjectID) are added; a
// header given the value "-" is left out instead.
//
// Contract checked: every request gets a response below 500, and no request crashes the node.
// The world is reset every TESSERA_FUZZ_API_RESET_EVERY inputs (default 2000), so what requests
// delete comes back. A 5xx is reported with the cause the API logged.
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/strings.h"
#include "fuzz/api_world.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/request_text.h"

namespace {

using namespace tessera;

// Keeps the message of the last error the API logged, so a 500 can say what escaped.
class LastErrorSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::string Take() {
    std::lock_guard lock(mutex_);
    return std::exchange(last_, "");
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override {
    if (message.level < spdlog::level::err) return;
    last_.assign(message.payload.data(), message.payload.size());
  }
  void flush_() override {}

 private:
  std::string last_;
};

struct Harness {
  std::shared_ptr<LastErrorSink> errors = std::make_shared<LastErrorSink>();
  std::unique_ptr<fuzz::ApiWorld> world;
  uint64_t reset_every = 2000;
  uint64_t runs = 0;
};

Harness& TheHarness() {
  static Harness harness;
  return harness;
}

// The administrator's session and the demo project, unless the input says otherwise.
void AddDefaultHeaders(http::Request& request, const fuzz::Names& names) {
  http::Headers headers;
  bool has_token = false, has_project = false;
  for (const auto& [name, value] : request.headers.fields()) {
    has_token = has_token || EqualsIgnoreCase(name, "X-MSTR-AuthToken");
    has_project = has_project || EqualsIgnoreCase(name, "X-MSTR-ProjectID");
    if (value != "-") headers.Add(name, value);
  }
  if (!has_token) headers.Add("X-MSTR-AuthToken", names.at("token"));
  if (!has_project) headers.Add("X-MSTR-ProjectID", names.at("project"));
  request.headers = std::move(headers);
}

bool MayEndSessions(const http::Request& request, const http::Response& response) {
  return response.status == 401 || request.path.find("/auth/") != std::string::npos ||
         request.path.find("/sessions") != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Harness& harness = TheHarness();
  auto logger = std::make_shared<spdlog::logger>("fuzz", harness.errors);
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::err);
  if (const char* every = std::getenv("TESSERA_FUZZ_API_RESET_EVERY")) {
    harness.reset_every = std::max<uint64_t>(1, std::strtoull(every, nullptr, 10));
  }
  harness.world = std::make_unique<fuzz::ApiWorld>(fuzz::ScratchDir() / "api");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Harness& harness = TheHarness();
  fuzz::ApiWorld& world = *harness.world;
  std::optional<http::Request> request = fuzz::ParseRequestText(
      std::string_view(reinterpret_cast<const char*>(data), size), world.names());
  if (!request) return 0;
  AddDefaultHeaders(*request, world.names());
  harness.errors->Take();
  const http::Response response = world.Handle(*request);
  if (response.status >= 500) {
    fuzz::Finding("a request was answered " + std::to_string(response.status),
                  request->method + " " + request->path + "\n" + response.body +
                      "\nlogged: " + harness.errors->Take());
  }
  if (MayEndSessions(*request, response)) world.RefreshSessions();
  if (++harness.runs % harness.reset_every == 0) world.Reset();
  return 0;
}
