#include "api/demo_node_fixture.h"

#include <sqlite3.h>

#include <stdexcept>

#include "engine/demo/data.h"
#include "engine/warehouse/warehouse.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "service/project/project_model.h"
#include "support/wait.h"

namespace tessera::testing {

using namespace std::chrono_literals;

namespace {

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

sqlite3* OpenSqlite(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(db);
    throw std::runtime_error("cannot open " + path.string());
  }
  sqlite3_busy_timeout(db, 10000);
  return db;
}

}  // namespace

void ExecuteSqlite(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = OpenSqlite(path);
  char* error = nullptr;
  int result = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close_v2(db);
  if (result != SQLITE_OK) throw std::runtime_error(sql + ": " + message);
}

double QuerySqliteDouble(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = OpenSqlite(path);
  sqlite3_stmt* statement = nullptr;
  double value = 0;
  bool ok = sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_ROW;
  if (ok) value = sqlite3_column_double(statement, 0);
  sqlite3_finalize(statement);
  sqlite3_close_v2(db);
  if (!ok) throw std::runtime_error("no row from " + sql);
  return value;
}

std::vector<std::filesystem::path> TemporaryFilesUnder(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> found;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(root, error);
       it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (error) break;
    if (it->path().filename().string().find(".tmp") != std::string::npos) {
      found.push_back(it->path());
    }
  }
  return found;
}

void DemoNodeTest::SetUp() {
  if (!IsBackendConfigured(GetParam())) GTEST_SKIP() << "TESSERA_TEST_PG is not set";
  database_ = std::make_unique<TestDatabase>(GetParam());
  store_ = storage::MetadataStore::Open({.url = database_->url()});
  service::DirectoryService directory(*store_);
  directory.Bootstrap(std::nullopt);
  auto administrator = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
  project_ =
      service::bundle::BundleService(*store_).Import(administrator, kDemoBundle, "demo").project_id;
  model::SemanticModel model = service::project::LoadSemanticModel(*store_, project_);
  sales_cube_ = *model.FindByName(model::kTypeReportDefinition, "Sales Cube");
  revenue_metric_ = *model.FindByName(model::kTypeMetric, "Revenue");
  auto warehouse = engine::warehouse::Warehouse::Open(
      {.name = "demo", .url = "sqlite://" + warehouse_path().string()});
  engine::demo::GenerateDemoData(*warehouse, {DemoRows(), 7});
}

NodeSettings DemoNodeTest::Settings(std::vector<std::string> environment) const {
  NodeSettings settings;
  settings.storage_url = database_->url();
  settings.data_dir = data_dir_.path();
  settings.environment = std::move(environment);
  return settings;
}

http::Response DemoNodeTest::Publish(NodeProcess& node, const std::string& cube_id) {
  return node.client().Send("POST", "/api/v2/cubes/" + cube_id, node.Headers(project_));
}

int DemoNodeTest::CubeStatusBits(NodeProcess& node, const std::string& cube_id) {
  auto response = node.client().Send("HEAD", "/api/cubes/" + cube_id, node.Headers(project_));
  EXPECT_EQ(response.status, 200);
  return std::stoi(std::string(response.headers.Get("X-MSTR-CubeStatus").value_or("-1")));
}

Json DemoNodeTest::PublishJob(NodeProcess& node, const std::string& cube_id) {
  // Any job number names the cube's latest publish (service/cube/cube_info.h).
  auto response =
      node.client().Get("/api/v2/monitors/jobs/1:" + cube_id + project_, node.Headers(project_));
  EXPECT_EQ(response.status, 200) << response.body;
  return BodyOf(response);
}

Json DemoNodeTest::WaitForPublishEnd(NodeProcess& node, const std::string& cube_id,
                                     std::chrono::milliseconds timeout) {
  Json job;
  EXPECT_TRUE(WaitUntil(
      [&] {
        job = PublishJob(node, cube_id);
        return job.value("status", "") != "executing";
      },
      timeout, "the publish of cube " + cube_id + " was no longer executing", 50ms));
  return job;
}

double DemoNodeTest::ServedRevenue(NodeProcess& node, const std::string& cube_id) {
  http::Headers headers = node.Headers(project_);
  headers.Set("Content-Type", "application/json");
  Json body = {{"requestedObjects",
                {{"attributes", Json::array()}, {"metrics", {{{"id", revenue_metric_}}}}}}};
  auto response =
      node.client().Send("POST", "/api/v2/cubes/" + cube_id + "/instances", headers, body.dump());
  EXPECT_EQ(response.status, 200) << response.body.substr(0, 500);
  const Json raw = BodyOf(response)["data"]["metricValues"]["raw"];
  if (raw.empty() || raw[0].empty() || !raw[0][0].is_number()) {
    ADD_FAILURE() << "no revenue in " << response.body.substr(0, 500);
    return -1;
  }
  return raw[0][0].get<double>();
}

double DemoNodeTest::WarehouseRevenue() const {
  return QuerySqliteDouble(warehouse_path(), "SELECT SUM(revenue) FROM sales_fact");
}

void DemoNodeTest::AddToEveryRevenue(double delta) const {
  ExecuteSqlite(warehouse_path(),
                "UPDATE sales_fact SET revenue = revenue + " + std::to_string(delta));
}

std::optional<storage::CubeSnapshotRecord> DemoNodeTest::CubeRecord(const std::string& cube_id) {
  std::optional<storage::CubeSnapshotRecord> record;
  store_->Read(
      [&](storage::MetadataTransaction& tx) { record = tx.FindCubeSnapshot(project_, cube_id); });
  return record;
}

std::set<std::string> DemoNodeTest::RecordedSnapshots(const storage::CubeSnapshotRecord& record) {
  std::set<std::string> names;
  for (const std::string& file : {record.snapshot_file, record.previous_snapshot_file}) {
    if (!file.empty()) names.insert(std::filesystem::path(file).filename().string());
  }
  return names;
}

std::set<std::string> DemoNodeTest::CubeFiles() const {
  std::set<std::string> names;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator(data_dir_.path() / "cubes" / project_, error)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

}  // namespace tessera::testing
