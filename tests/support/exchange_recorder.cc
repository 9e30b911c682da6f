#include "support/exchange_recorder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>

#include "core/json.h"

namespace tessera::testing {
namespace {

bool IsJson(std::optional<std::string_view> content_type) {
  return content_type && content_type->find("json") != std::string_view::npos;
}

// The body as text when the validator can check it, else null.
Json RecordedBody(std::optional<std::string_view> content_type, std::string_view body) {
  if (!IsJson(content_type) || body.size() > kMaxRecordedBodyBytes) return nullptr;
  return std::string(body);
}

std::string CurrentTestName() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "";
  return std::string(info->test_suite_name()) + "." + info->name();
}

class RecordFile {
 public:
  explicit RecordFile(const char* directory) {
    if (directory == nullptr || *directory == '\0') return;
    std::filesystem::create_directories(directory);
    path_ = std::filesystem::path(directory) / ("exchanges-" + std::to_string(getpid()) + ".jsonl");
  }

  void Append(const Json& record) {
    if (path_.empty()) return;
    std::lock_guard lock(mutex_);
    std::ofstream out(path_, std::ios::app);
    out << DumpJson(record) << '\n';
    if (!out) ADD_FAILURE() << "could not append an exchange record to " << path_;
  }

 private:
  std::filesystem::path path_;
  std::mutex mutex_;
};

RecordFile& TheRecordFile() {
  static RecordFile file(std::getenv("TESSERA_OPENAPI_RECORD_DIR"));
  return file;
}

Json OptionalText(std::optional<std::string_view> text) {
  return text ? Json(std::string(*text)) : Json(nullptr);
}

}  // namespace

void RecordExchange(std::string_view method, std::string_view target,
                    const http::Headers& request_headers, std::string_view request_body,
                    const http::Response& response) {
  const auto request_type = request_headers.Get("Content-Type");
  const auto response_type = response.headers.Get("Content-Type");
  Json record = {{"test", CurrentTestName()},
                 {"method", std::string(method)},
                 {"target", std::string(target)},
                 {"status", response.status},
                 {"contentType", OptionalText(response_type)},
                 {"requestContentType", OptionalText(request_type)},
                 {"requestBody", RecordedBody(request_type, request_body)},
                 {"responseBody", RecordedBody(response_type, response.body)},
                 {"responseBodyBytes", response.body.size()}};
  TheRecordFile().Append(record);
}

}  // namespace tessera::testing
