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

// How many body bytes the running test has kept (kMaxRecordedBodyBytesPerTest).
class BodyBudget {
 public:
  bool Take(const std::string& test, size_t bytes) {
    std::lock_guard lock(mutex_);
    if (test != test_) {
      test_ = test;
      used_ = 0;
    }
    if (used_ + bytes > kMaxRecordedBodyBytesPerTest) return false;
    used_ += bytes;
    return true;
  }

 private:
  std::mutex mutex_;
  std::string test_;
  size_t used_ = 0;
};

// The body as text when the validator can check it, else null.
Json RecordedBody(std::optional<std::string_view> content_type, std::string_view body,
                  const std::string& test) {
  static BodyBudget budget;
  if (!IsJson(content_type) || body.size() > kMaxRecordedBodyBytes) return nullptr;
  if (!budget.Take(test, body.size())) return nullptr;
  return std::string(body);
}

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
  const std::string test = CurrentTestName();
  Json record = {{"test", test},
                 {"method", std::string(method)},
                 {"target", std::string(target)},
                 {"status", response.status},
                 {"contentType", OptionalText(response_type)},
                 {"requestContentType", OptionalText(request_type)},
                 {"requestBody", RecordedBody(request_type, request_body, test)},
                 {"responseBody", RecordedBody(response_type, response.body, test)},
                 {"responseBodyBytes", response.body.size()}};
  TheRecordFile().Append(record);
}

}  // namespace tessera::testing
