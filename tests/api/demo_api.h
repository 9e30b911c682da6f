// tests/api/demo_api.h
//
// A node serving the demo project over the shared demo warehouse of the test's backend
// (tests/engine/demo_fixture.h), logged in as the administrator, with what API tests of reports,
// cubes and datasets share: the demo model to look ids up, independent SQL on the warehouse,
// cube publishing over HTTP.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "api/api_fixture.h"
#include "engine/demo_fixture.h"
#include "model/object_types.h"
#include "support/wait.h"

namespace tessera::testing {

inline constexpr const char* kIdFormId = "45C11FA478E745FEA08D781CEA190FE5";
inline constexpr const char* kDescFormId = "CCFBE2A5EADB4F50941FB879CCF1721C";
inline constexpr int kPublishedStatus = 2 | 4 | 32 | 64;  // Active, Persisted, Loaded, Ready
inline constexpr int64_t kCubeNotPublishedIServerCode = -2147072488;

using Rows = std::vector<std::vector<std::string>>;

class DemoApi : public ApiTest {
 protected:
  void Configure(app::Config& config) override {
    config.warehouses["demo"] = SharedDemoWarehouse(GetParam()).database->url();
  }

  void SetUp() override {
    ApiTest::SetUp();
    if (IsSkipped()) return;
    project_ = ImportBundle(TESSERA_SOURCE_DIR "/demo/tutorial", "demo");
    model_ = std::make_unique<model::SemanticModel>(DemoModel());
    token_ = client().Login();
  }

  http::Headers Headers() const { return AuthHeaders(token_, project_); }
  http::Response Get(const std::string& target) { return client().Get(target, Headers()); }

  Json GetJson(const std::string& target) {
    auto response = Get(target);
    EXPECT_EQ(response.status, 200) << target << ": " << response.body;
    return response.status == 200 ? BodyOf(response) : Json::object();
  }

  const model::SemanticModel& model() const { return *model_; }
  std::string ObjectId(int type, const std::string& name) const {
    auto id = model_->FindByName(type, name);
    EXPECT_TRUE(id.has_value()) << name;
    return id.value_or("");
  }
  std::string ReportId(const std::string& name) const {
    return ObjectId(model::kTypeReportDefinition, name);
  }
  std::string AttributeId(const std::string& name) const {
    return ObjectId(model::kTypeAttribute, name);
  }

  // An independent query on the demo warehouse, every cell as text.
  Rows Query(const std::string& sql) {
    Rows rows;
    for (const auto& row : QueryRows(*SharedDemoWarehouse(GetParam()).warehouse, sql)) {
      std::vector<std::string> texts;
      for (const auto& cell : row) texts.push_back(CellText(cell));
      rows.push_back(std::move(texts));
    }
    return rows;
  }

  int CubeStatus(const std::string& cube_id) {
    auto response = client().Send("HEAD", "/api/cubes/" + cube_id, Headers());
    EXPECT_EQ(response.status, 200);
    auto header = response.headers.Get("X-MSTR-CubeStatus");
    if (!header) {
      ADD_FAILURE() << "no X-MSTR-CubeStatus header";
      return -1;
    }
    return std::stoi(std::string(*header));
  }

  void PublishAndWait(const std::string& cube_id) {
    auto response = client().Send("POST", "/api/v2/cubes/" + cube_id, Headers());
    ASSERT_EQ(response.status, 202) << response.body;
    Json job = BodyOf(response);
    EXPECT_FALSE(job.value("id", "").empty());
    EXPECT_TRUE(job["jobId"].is_number_integer());
    ASSERT_TRUE(WaitUntil([&] { return CubeStatus(cube_id) == kPublishedStatus; },
                          std::chrono::minutes(2), "cube " + cube_id + " was published",
                          std::chrono::milliseconds(50)));
  }

 protected:
  const std::string& project() const { return project_; }
  const std::string& token() const { return token_; }

 private:
  std::string project_, token_;
  std::unique_ptr<model::SemanticModel> model_;
};

}  // namespace tessera::testing
