// tests/api/dashboard/dashboard_api.h
//
// A node serving the demo project with its cubes published, for dashboard tests: instance and
// filter calls over HTTP, visualization rows, and a gate on the rendering of chosen visualization
// keys (the node's test hooks) to observe which computations run and who waits for whom.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/demo_api.h"
#include "api/grid_rows.h"

namespace tessera::testing {

inline constexpr const char* kValuesOnly =
    "fields=-data.metricValues.extras,-data.metricValues.formatted";

// Holds the computation of chosen visualization keys and records every computation and wait.
class RenderGate {
 public:
  void Hold(const std::string& key) {
    std::lock_guard lock(mutex_);
    held_.insert(key);
  }
  void Release(const std::string& key) {
    std::lock_guard lock(mutex_);
    held_.erase(key);
    changed_.notify_all();
  }
  void BeforeCompute(const std::string& key) {
    std::unique_lock lock(mutex_);
    computed_.push_back(key);
    changed_.notify_all();
    changed_.wait(lock, [&] { return !held_.count(key); });
  }
  void Waiting(const std::string& key, const std::string& on) {
    std::lock_guard lock(mutex_);
    waits_.emplace_back(key, on);
    changed_.notify_all();
  }
  // Waits (bounded) until `predicate` holds on the records.
  bool WaitFor(const std::function<bool()>& predicate) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(60), predicate);
  }
  bool HasComputed(const std::string& key) {
    return std::find(computed_.begin(), computed_.end(), key) != computed_.end();
  }
  bool HasWaited(const std::string& key, const std::string& on) {
    return std::find(waits_.begin(), waits_.end(), std::pair(key, on)) != waits_.end();
  }
  std::vector<std::string> Computed() {
    std::lock_guard lock(mutex_);
    return computed_;
  }
  void Reset() {
    std::lock_guard lock(mutex_);
    computed_.clear();
    waits_.clear();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::set<std::string> held_;
  std::vector<std::string> computed_;
  std::vector<std::pair<std::string, std::string>> waits_;
};

class DashboardApi : public DemoApi {
 protected:
  void Configure(app::Config& config) override {
    DemoApi::Configure(config);
    config.compute_threads = 4;
    std::shared_ptr<RenderGate> gate = gate_;
    config.dashboard_render_hooks.before_compute = [gate](const std::string& key) {
      gate->BeforeCompute(key);
    };
    config.dashboard_render_hooks.waiting = [gate](const std::string& key, const std::string& on) {
      gate->Waiting(key, on);
    };
  }

  void SetUp() override {
    DemoApi::SetUp();
    if (IsSkipped()) return;
    for (const char* cube : {"Sales Cube", "Item Sales Cube"}) {
      if (published_cubes_.count(cube)) PublishAndWait(ReportId(cube));
    }
    overview_ = DashboardId("Sales Overview");
    regional_ = DashboardId("Regional Performance");
  }

  std::string DashboardId(const std::string& name) {
    Json found = GetJson("/api/searches/results?type=14081&limit=-1");
    for (const auto& item : found["result"]) {
      if (item["name"] == name) return item["id"];
    }
    ADD_FAILURE() << "no dashboard " << name;
    return "";
  }

  std::string Instances(const std::string& dashboard) {
    return "/api/dossiers/" + dashboard + "/instances";
  }

  std::string CreateInstance(const std::string& dashboard, const Json& body = Json::object()) {
    auto response = client().PostJson(Instances(dashboard), body, Headers());
    EXPECT_EQ(response.status, 201) << response.body;
    if (response.status != 201) return "";
    Json created = BodyOf(response);
    EXPECT_EQ(created["id"], dashboard);
    EXPECT_EQ(created["status"], 1);
    return created["mid"];
  }

  http::Response PutFilters(const std::string& dashboard, const std::string& mid, const Json& body,
                            const std::string& query = "") {
    return client().Send("PUT", Instances(dashboard) + "/" + mid + "/filters" + query, Headers(),
                         body.dump());
  }

  http::Response GetViz(const std::string& dashboard, const std::string& mid,
                        const std::string& visualization, const std::string& chapter = "K1") {
    return client().Get("/api/v2/dossiers/" + dashboard + "/instances/" + mid + "/chapters/" +
                            chapter + "/visualizations/" + visualization + "?" + kValuesOnly +
                            "&limit=-1",
                        AuthHeaders(token()));
  }

  std::vector<GridRow> VizRows(const std::string& dashboard, const std::string& mid,
                               const std::string& visualization) {
    auto response = GetViz(dashboard, mid, visualization);
    EXPECT_EQ(response.status, 200) << visualization << ": " << response.body;
    if (response.status != 200) return {};
    return RowsOfV2(BodyOf(response));
  }

  Json Status(const std::string& dashboard, const std::string& mid) {
    return GetJson("/api/documents/" + dashboard + "/instances/" + mid + "/status");
  }

  Json InstanceDefinition(const std::string& dashboard, const std::string& mid) {
    return GetJson("/api/v2/dossiers/" + dashboard + "/instances/" + mid + "/definition");
  }

  // SQL rows whose first `keys` columns are forms; the columns listed in `integer_columns` are ID
  // forms, written as integers.
  std::vector<GridRow> Expected(const std::string& sql, size_t keys,
                                const std::set<size_t>& integer_columns) {
    Rows rows = Query(sql);
    for (auto& row : rows) {
      for (size_t c : integer_columns) row[c] = IntegerText(row[c]);
    }
    return RowsOfSql(rows, keys);
  }

  std::string ElementId(const std::string& attribute, const std::string& value) {
    return "h" + value + ";" + AttributeId(attribute);
  }

  std::string MetricId(const std::string& name) const { return ObjectId(model::kTypeMetric, name); }

  std::set<std::string> published_cubes_{"Sales Cube", "Item Sales Cube"};  // before SetUp
  std::shared_ptr<RenderGate> gate_ = std::make_shared<RenderGate>();
  std::string overview_, regional_;
};

}  // namespace tessera::testing
