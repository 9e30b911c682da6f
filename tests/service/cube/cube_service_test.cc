// Published cubes of a node: publish, status, refresh, snapshots on disk loaded after a restart
// without the warehouse, failed publishes that keep the previous dataset, status persisted in the
// storage service, publishes as leased jobs failed by a restarted node, files left by interrupted
// publishes removed -- on SQLite and PostgreSQL (store and warehouse on the same backend).
#include "service/cube/cube_service.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <set>
#include <thread>

#include "core/error.h"
#include "core/ids.h"
#include "engine/cube_executor.h"
#include "engine/demo/data.h"
#include "engine/rollup_set.h"
#include "engine/warehouse_fixture.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/cube/rollup_grains.h"
#include "service/directory_service.h"
#include "service/project/project_model.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";
// Nothing listens on port 1: every connection is refused at once.
const std::string kUnreachableWarehouse = "postgresql://tessera@127.0.0.1:1/none";
constexpr char kNodeId[] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
constexpr char kOtherNodeId[] = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";

// A one-shot signal between a test and a publish.
class Latch {
 public:
  void Open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  bool Wait(std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
};

// A publish held once its files are written, before it records them, until the test lets it go.
struct HeldPublish {
  Latch reached;
  Latch released;
  std::function<void()> Hook() {
    return [this] {
      reached.Open();
      released.Wait();
    };
  }
};

class CubeServiceTest : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    service::DirectoryService directory(*store_);
    directory.Bootstrap(std::nullopt);
    auto administrator = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
    project_id_ = service::bundle::BundleService(*store_)
                      .Import(administrator, kDemoBundle, "demo")
                      .project_id;
    model::SemanticModel model = service::project::LoadSemanticModel(*store_, project_id_);
    sales_cube_id_ = *model.FindByName(model::kTypeReportDefinition, "Sales Cube");
    item_cube_id_ = *model.FindByName(model::kTypeReportDefinition, "Item Sales Cube");

    warehouse_database_ = std::make_unique<TestDatabase>(GetParam());
    auto warehouse =
        engine::warehouse::Warehouse::Open({.name = "demo", .url = warehouse_database_->url()});
    engine::demo::GenerateDemoData(*warehouse, {3000, 5});
  }

  // A node's cube service over the shared store and data directory, reading `warehouse_url`,
  // its publishes jobs of a runner with node id `node_id` (kept until the test ends, so that
  // it outlives the service).
  std::unique_ptr<service::cube::CubeService> Node(const std::string& warehouse_url,
                                                   const std::string& node_id = kNodeId,
                                                   std::function<void()> before_commit = nullptr) {
    registries_.push_back(std::make_unique<service::project::WarehouseRegistry>(
        std::map<std::string, std::string>{{"demo", warehouse_url}}));
    service::JobRunnerOptions jobs;
    jobs.node_id = node_id;
    runners_.push_back(std::make_unique<service::JobRunner>(*store_, jobs));
    service::cube::CubeServiceOptions options;
    options.data_dir = data_dir_.path();
    options.before_publish_commit = std::move(before_commit);
    auto cubes = std::make_unique<service::cube::CubeService>(*store_, *registries_.back(),
                                                              *runners_.back(), options);
    cubes->RegisterJobs();
    return cubes;
  }
  std::unique_ptr<service::cube::CubeService> Node() { return Node(warehouse_database_->url()); }
  // Another node's cube service, sharing the cubes directory but not the data directory, that
  // checks the records every `interval` unless it hears notices.
  std::unique_ptr<service::cube::CubeService> NodeThatChecks(std::chrono::milliseconds interval,
                                                             bool hears_notices) {
    registries_.push_back(std::make_unique<service::project::WarehouseRegistry>(
        std::map<std::string, std::string>{{"demo", warehouse_database_->url()}}));
    service::JobRunnerOptions jobs;
    jobs.node_id = kOtherNodeId;
    runners_.push_back(std::make_unique<service::JobRunner>(*store_, jobs));
    service::cube::CubeServiceOptions options;
    options.data_dir = other_data_dir_.path();
    options.cubes_dir = data_dir_.path() / "cubes";  // shared with Node()'s
    options.version_check_interval = interval;
    auto cubes = std::make_unique<service::cube::CubeService>(*store_, *registries_.back(),
                                                              *runners_.back(), options);
    cubes->RegisterJobs();
    cubes->set_hears_notices(hears_notices);
    return cubes;
  }
  service::JobRunner& LastRunner() { return *runners_.back(); }

  std::filesystem::path CubesDirectory() const { return data_dir_.path() / "cubes" / project_id_; }

  // The names of the files in the project's cubes directory.
  std::set<std::string> FilesOnDisk() const {
    std::set<std::string> names;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(CubesDirectory(), error)) {
      names.insert(entry.path().filename().string());
    }
    return names;
  }

  std::optional<storage::JobRecord> StoredJob(const std::string& id) {
    std::optional<storage::JobRecord> job;
    store_->Read([&](storage::MetadataTransaction& tx) { job = tx.FindJob(id); });
    return job;
  }

  // Adds `delta` to every sale's revenue, so the next publish has other data.
  void ChangeWarehouse(double delta) {
    warehouse_database_->ExecuteDirect("UPDATE sales_fact SET revenue = revenue + " +
                                       std::to_string(delta));
  }

  // The number of (year, ..., channel, customer) groups of the demo warehouse: the Sales Cube's
  // rows, computed by hand.
  int64_t SalesCubeGroups() {
    auto warehouse =
        engine::warehouse::Warehouse::Open({.name = "check", .url = warehouse_database_->url()});
    return QueryInt(
        *warehouse,
        "SELECT COUNT(*) FROM (SELECT DISTINCT f.channel_id, f.customer_id, "
        "m.month_id, ci.country_id, it.subcategory_id FROM sales_fact f "
        "JOIN lu_day d ON d.day_id = f.day_id JOIN lu_month m ON m.month_id = d.month_id "
        "JOIN lu_city ci ON ci.city_id = f.city_id "
        "JOIN lu_item it ON it.item_id = f.item_id) g");
  }

  double TotalRevenue() {
    auto warehouse =
        engine::warehouse::Warehouse::Open({.name = "check", .url = warehouse_database_->url()});
    auto value = QueryValue(*warehouse, "SELECT SUM(revenue) FROM sales_fact");
    return std::get<double>(value);
  }

  static double SumOf(const engine::Dataset& dataset, const std::string& metric_name) {
    for (const auto& metric : dataset.metrics()) {
      if (metric.name != metric_name) continue;
      double sum = 0;
      for (size_t row = 0; row < dataset.row_count(); ++row) {
        if (metric.IsValid(row)) sum += (*metric.values)[row];
      }
      return sum;
    }
    ADD_FAILURE() << "no metric " << metric_name;
    return 0;
  }

  std::optional<storage::CubeSnapshotRecord> StoredRecord(const std::string& cube_id) {
    std::optional<storage::CubeSnapshotRecord> record;
    store_->Read([&](storage::MetadataTransaction& tx) {
      record = tx.FindCubeSnapshot(project_id_, cube_id);
    });
    return record;
  }

  void PublishAndWait(service::cube::CubeService& cubes, const std::string& cube_id) {
    cubes.Publish(project_id_, cube_id);
    cubes.WaitForPublish(project_id_, cube_id);
  }

  TempDir other_data_dir_;
  TempDir data_dir_;
  std::unique_ptr<storage::MetadataStore> store_;
  std::unique_ptr<TestDatabase> warehouse_database_;
  std::vector<std::unique_ptr<service::project::WarehouseRegistry>> registries_;
  std::vector<std::unique_ptr<service::JobRunner>> runners_;
  std::string project_id_;
  std::string sales_cube_id_;
  std::string item_cube_id_;
};

TEST_P(CubeServiceTest, ACubeNeverPublishedHasNoDatasetAndSaysSo) {
  auto cubes = Node();
  EXPECT_EQ(cubes->Get(project_id_, sales_cube_id_), nullptr);
  service::cube::CubeStatus status = cubes->Status(project_id_, sales_cube_id_);
  EXPECT_EQ(status.state, service::cube::CubeState::kNotPublished);
  EXPECT_EQ(service::cube::CubeStateName(status.state), "not_published");
  EXPECT_EQ(status.rows, 0u);
  EXPECT_FALSE(status.is_loaded);
}

TEST_P(CubeServiceTest, PublishingTheSalesCubeServesItsDatasetAndReportsReady) {
  auto cubes = Node();
  PublishAndWait(*cubes, sales_cube_id_);
  auto dataset = cubes->Get(project_id_, sales_cube_id_);
  ASSERT_NE(dataset, nullptr);
  EXPECT_EQ(static_cast<int64_t>(dataset->row_count()), SalesCubeGroups());
  EXPECT_NEAR(SumOf(*dataset, "Revenue"), TotalRevenue(), 1e-6 * TotalRevenue());

  service::cube::CubeStatus status = cubes->Status(project_id_, sales_cube_id_);
  EXPECT_EQ(status.state, service::cube::CubeState::kReady) << status.error_message;
  EXPECT_EQ(status.rows, dataset->row_count());
  EXPECT_EQ(status.memory_bytes, dataset->MemoryBytes());
  EXPECT_EQ(status.raw_bytes, dataset->RawBytes());
  EXPECT_GT(status.published_ms, ToUnixMillis(Now()) - 600000);
  EXPECT_GE(status.last_publish_duration_ms, 0);
  EXPECT_TRUE(status.is_loaded);
  EXPECT_TRUE(std::filesystem::exists(cubes->SnapshotPath(project_id_, sales_cube_id_)));
  EXPECT_EQ(cubes->LoadedBytes(), dataset->MemoryBytes());
}

TEST_P(CubeServiceTest, TheSnapshotLivesUnderTheDataDirectoryByProjectCubeAndPublish) {
  auto cubes = Node();
  EXPECT_EQ(cubes->SnapshotPath(project_id_, sales_cube_id_), std::filesystem::path());
  PublishAndWait(*cubes, sales_cube_id_);
  const std::string job_id = StoredRecord(sales_cube_id_)->publish_job_id;
  ASSERT_TRUE(IsObjectId(job_id)) << job_id;
  EXPECT_EQ(cubes->SnapshotPath(project_id_, sales_cube_id_),
            CubesDirectory() / (sales_cube_id_ + "." + job_id + ".tsnap"));
}

TEST_P(CubeServiceTest, TheStatusIsPersistedInTheStorageService) {
  auto cubes = Node();
  PublishAndWait(*cubes, sales_cube_id_);
  auto record = StoredRecord(sales_cube_id_);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->state, "ready");
  EXPECT_EQ(record->project_id, project_id_);
  EXPECT_EQ(record->cube_id, sales_cube_id_);
  EXPECT_EQ(record->snapshot_file, "cubes/" + project_id_ + "/" + sales_cube_id_ + "." +
                                       record->publish_job_id + ".tsnap");
  EXPECT_EQ(record->rows, SalesCubeGroups());
  EXPECT_GT(record->memory_bytes, 0);
  EXPECT_GT(record->raw_bytes, 0);
  EXPECT_TRUE(record->error_message.empty());
  EXPECT_FALSE(StoredRecord(item_cube_id_));  // not published
  std::vector<storage::CubeSnapshotRecord> listed;
  store_->Read(
      [&](storage::MetadataTransaction& tx) { listed = tx.ListCubeSnapshots(project_id_); });
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].cube_id, sales_cube_id_);
}

TEST_P(CubeServiceTest, ARestartedNodeLoadsTheSnapshotWithoutTheWarehouse) {
  std::shared_ptr<const engine::Dataset> published;
  {
    auto cubes = Node();
    PublishAndWait(*cubes, sales_cube_id_);
    published = cubes->Get(project_id_, sales_cube_id_);
    ASSERT_NE(published, nullptr);
  }
  // The new node cannot reach any warehouse: the dataset can only come from the snapshot.
  auto restarted = Node(kUnreachableWarehouse);
  service::cube::CubeStatus before = restarted->Status(project_id_, sales_cube_id_);
  EXPECT_EQ(before.state, service::cube::CubeState::kReady);
  EXPECT_FALSE(before.is_loaded);
  EXPECT_EQ(before.rows, published->row_count());
  EXPECT_EQ(restarted->LoadedBytes(), 0u);

  auto loaded = restarted->Get(project_id_, sales_cube_id_);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->row_count(), published->row_count());
  EXPECT_EQ(loaded->RawBytes(), published->RawBytes());
  EXPECT_EQ(SumOf(*loaded, "Revenue"), SumOf(*published, "Revenue"));
  EXPECT_EQ(restarted->Get(project_id_, sales_cube_id_), loaded);  // loaded once
  service::cube::CubeStatus after = restarted->Status(project_id_, sales_cube_id_);
  EXPECT_TRUE(after.is_loaded);
  EXPECT_EQ(after.memory_bytes, loaded->MemoryBytes());
  EXPECT_EQ(restarted->LoadedBytes(), loaded->MemoryBytes());
}

TEST_P(CubeServiceTest, AFailedPublishReportsTheErrorAndKeepsThePreviousDataset) {
  {
    auto cubes = Node();
    PublishAndWait(*cubes, sales_cube_id_);
  }
  auto cubes = Node(kUnreachableWarehouse);
  auto previous = cubes->Get(project_id_, sales_cube_id_);
  ASSERT_NE(previous, nullptr);

  cubes->Refresh(project_id_, sales_cube_id_);
  cubes->WaitForPublish(project_id_, sales_cube_id_);

  service::cube::CubeStatus status = cubes->Status(project_id_, sales_cube_id_);
  EXPECT_EQ(status.state, service::cube::CubeState::kFailed);
  EXPECT_FALSE(status.error_message.empty());
  EXPECT_EQ(status.rows, previous->row_count());
  EXPECT_EQ(cubes->Get(project_id_, sales_cube_id_), previous);
  auto record = StoredRecord(sales_cube_id_);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->state, "failed");
  EXPECT_EQ(record->error_message, status.error_message);
  EXPECT_EQ(record->rows, static_cast<int64_t>(previous->row_count()));

  // After another restart the previous snapshot is still what is served.
  auto restarted = Node(kUnreachableWarehouse);
  auto loaded = restarted->Get(project_id_, sales_cube_id_);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->row_count(), previous->row_count());
}

TEST_P(CubeServiceTest, AFirstPublishThatFailsLeavesNothingServed) {
  auto cubes = Node(kUnreachableWarehouse);
  PublishAndWait(*cubes, item_cube_id_);
  service::cube::CubeStatus status = cubes->Status(project_id_, item_cube_id_);
  EXPECT_EQ(status.state, service::cube::CubeState::kFailed);
  EXPECT_NE(status.error_message.find("demo"), std::string::npos) << status.error_message;
  EXPECT_EQ(cubes->Get(project_id_, item_cube_id_), nullptr);
  EXPECT_FALSE(std::filesystem::exists(cubes->SnapshotPath(project_id_, item_cube_id_)));
}

TEST_P(CubeServiceTest, ARefreshReplacesTheDatasetWithTheWarehouseData) {
  auto cubes = Node();
  PublishAndWait(*cubes, item_cube_id_);
  auto first = cubes->Get(project_id_, item_cube_id_);
  ASSERT_NE(first, nullptr);
  auto warehouse =
      engine::warehouse::Warehouse::Open({.name = "demo", .url = warehouse_database_->url()});
  engine::demo::GenerateDemoData(*warehouse, {1000, 9});  // the warehouse changes

  cubes->Refresh(project_id_, item_cube_id_);
  cubes->WaitForPublish(project_id_, item_cube_id_);
  auto second = cubes->Get(project_id_, item_cube_id_);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, first);
  EXPECT_NEAR(SumOf(*second, "Revenue"), TotalRevenue(), 1e-6 * TotalRevenue());
  EXPECT_EQ(cubes->Status(project_id_, item_cube_id_).rows, second->row_count());
  EXPECT_EQ(cubes->LoadedBytes(), second->MemoryBytes());
}

TEST_P(CubeServiceTest, ConcurrentPublishesOfOneCubeCoalesce) {
  auto cubes = Node();
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i) {
    callers.emplace_back([&] { cubes->Publish(project_id_, sales_cube_id_); });
  }
  for (auto& caller : callers) caller.join();
  service::cube::CubeStatus during = cubes->Status(project_id_, sales_cube_id_);
  EXPECT_TRUE(during.state == service::cube::CubeState::kPublishing ||
              during.state == service::cube::CubeState::kReady);
  cubes->WaitForPublish(project_id_, sales_cube_id_);
  EXPECT_EQ(cubes->Status(project_id_, sales_cube_id_).state, service::cube::CubeState::kReady);
  EXPECT_NE(cubes->Get(project_id_, sales_cube_id_), nullptr);
}

TEST_P(CubeServiceTest, TwoCubesPublishSideBySideAndTheirMemoryAddsUp) {
  auto cubes = Node();
  cubes->Publish(project_id_, sales_cube_id_);
  cubes->Publish(project_id_, item_cube_id_);
  cubes->WaitForPublish(project_id_, sales_cube_id_);
  cubes->WaitForPublish(project_id_, item_cube_id_);
  auto sales = cubes->Get(project_id_, sales_cube_id_);
  auto items = cubes->Get(project_id_, item_cube_id_);
  ASSERT_NE(sales, nullptr);
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(cubes->LoadedBytes(), sales->MemoryBytes() + items->MemoryBytes());
}

TEST_P(CubeServiceTest, BackgroundPublishesReadAsPublishingUntilTheirTurnEnds) {
  auto cubes = Node();
  cubes->PublishInBackground(project_id_, {sales_cube_id_, item_cube_id_});
  EXPECT_NE(cubes->Status(project_id_, item_cube_id_).state,
            service::cube::CubeState::kNotPublished);
  // A reader that comes before the publish has ended waits for it instead of finding nothing.
  auto item = cubes->Get(project_id_, item_cube_id_);
  ASSERT_NE(item, nullptr);
  auto sales = cubes->Get(project_id_, sales_cube_id_);
  ASSERT_NE(sales, nullptr);
  EXPECT_EQ(static_cast<int64_t>(sales->row_count()), SalesCubeGroups());
  EXPECT_EQ(cubes->Status(project_id_, sales_cube_id_).state, service::cube::CubeState::kReady);
  EXPECT_EQ(cubes->Status(project_id_, item_cube_id_).state, service::cube::CubeState::kReady);
}

TEST_P(CubeServiceTest, AReaderWaitingForABackgroundPublishThatFailsGetsNothing) {
  auto cubes = Node(kUnreachableWarehouse);
  cubes->PublishInBackground(project_id_, {sales_cube_id_});
  EXPECT_EQ(cubes->Get(project_id_, sales_cube_id_), nullptr);
  service::cube::CubeStatus status = cubes->Status(project_id_, sales_cube_id_);
  EXPECT_EQ(status.state, service::cube::CubeState::kFailed);
  EXPECT_FALSE(status.error_message.empty());
}

TEST_P(CubeServiceTest, StoppingANodeEndsItsBackgroundPublishes) {
  auto cubes = Node();
  cubes->PublishInBackground(project_id_, {sales_cube_id_, item_cube_id_});
  cubes.reset();  // must neither hang nor crash
}

TEST_P(CubeServiceTest, UnknownAndMalformedCubesAreRefusedAtOnce) {
  auto cubes = Node();
  auto unknown = ErrorFrom([&] { cubes->Publish(project_id_, std::string(32, 'A')); });
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->code(), ErrorCode::kNotFound);
  auto not_a_cube = ErrorFrom([&] { cubes->Publish(project_id_, project_id_); });
  ASSERT_TRUE(not_a_cube);
  EXPECT_EQ(not_a_cube->code(), ErrorCode::kNotFound);
  auto malformed = ErrorFrom([&] { cubes->Publish(project_id_, "../../etc/passwd"); });
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(ErrorFrom([&] { cubes->Get("..", sales_cube_id_); })->code(), ErrorCode::kInvalidInput);
}

TEST_P(CubeServiceTest, AnUnreadableSnapshotIsAnErrorAskingForANewPublish) {
  {
    auto cubes = Node();
    PublishAndWait(*cubes, sales_cube_id_);
  }
  auto restarted = Node(kUnreachableWarehouse);
  std::ofstream(restarted->SnapshotPath(project_id_, sales_cube_id_), std::ios::trunc) << "garbage";
  auto error = ErrorFrom([&] { restarted->Get(project_id_, sales_cube_id_); });
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code(), ErrorCode::kInternal);
  EXPECT_NE(std::string(error->message()).find("publish it again"), std::string::npos)
      << error->message();
}

TEST_P(CubeServiceTest, LowerCaseIdsNameTheSameCube) {
  auto cubes = Node();
  std::string lower = sales_cube_id_;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  PublishAndWait(*cubes, lower);
  EXPECT_NE(cubes->Get(project_id_, sales_cube_id_), nullptr);
}

TEST_P(CubeServiceTest, APublishIsAJobOfTheNodeThatTheCubesRecordNames) {
  auto cubes = Node();
  PublishAndWait(*cubes, sales_cube_id_);
  auto record = StoredRecord(sales_cube_id_);
  ASSERT_TRUE(record);
  auto job = StoredJob(record->publish_job_id);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->kind, "cube_publish");
  EXPECT_EQ(job->state, "done");
  EXPECT_EQ(job->lease_owner, kNodeId);
  EXPECT_EQ(job->data["projectId"], project_id_);
  EXPECT_EQ(job->data["cubeId"], sales_cube_id_);
}

TEST_P(CubeServiceTest, ARefreshKeepsTheSnapshotItReplacesUntilTheNextOne) {
  auto cubes = Node();
  PublishAndWait(*cubes, sales_cube_id_);
  const std::string first = StoredRecord(sales_cube_id_)->snapshot_file;
  HeldPublish held;
  auto second_node = Node(warehouse_database_->url(), kNodeId, held.Hook());
  second_node->Refresh(project_id_, sales_cube_id_);
  ASSERT_TRUE(held.reached.Wait());
  // Both files exist while the new one is not recorded; the record still names the first.
  EXPECT_EQ(FilesOnDisk().size(), 2u);
  EXPECT_EQ(StoredRecord(sales_cube_id_)->snapshot_file, first);
  held.released.Open();
  second_node->WaitForPublish(project_id_, sales_cube_id_);

  const std::string second = StoredRecord(sales_cube_id_)->snapshot_file;
  EXPECT_NE(second, first);
  EXPECT_EQ(StoredRecord(sales_cube_id_)->previous_snapshot_file, first);
  auto file_names = [](std::initializer_list<std::string> files) {
    std::set<std::string> names;
    for (const auto& file : files) names.insert(std::filesystem::path(file).filename());
    return names;
  };
  EXPECT_EQ(FilesOnDisk(), file_names({first, second}));

  PublishAndWait(*cubes, sales_cube_id_);
  const std::string third = StoredRecord(sales_cube_id_)->snapshot_file;
  EXPECT_EQ(FilesOnDisk(), file_names({second, third}));
  // A restart keeps both too.
  Node()->RemoveLeftovers();
  EXPECT_EQ(FilesOnDisk(), file_names({second, third}));
}

TEST_P(CubeServiceTest, AnyNodeReadsTheVersionAnInstanceWasMadeOnUntilItIsReplacedTwice) {
  auto publisher = Node();
  PublishAndWait(*publisher, sales_cube_id_);
  const double published = TotalRevenue();
  const service::cube::CubeService::Version made_on =
      publisher->GetVersion(project_id_, sales_cube_id_);
  ASSERT_NE(made_on.dataset, nullptr);
  EXPECT_EQ(made_on.snapshot_file, StoredRecord(sales_cube_id_)->snapshot_file);

  ChangeWarehouse(1);
  PublishAndWait(*publisher, sales_cube_id_);
  const double republished = TotalRevenue();
  auto other = NodeThatChecks(std::chrono::milliseconds(0), /*hears_notices=*/false);
  auto old_rows = other->GetAt(project_id_, sales_cube_id_, made_on.snapshot_file);
  ASSERT_NE(old_rows, nullptr);
  EXPECT_NEAR(SumOf(*old_rows, "Revenue"), published, 1e-6 * published);
  EXPECT_NEAR(SumOf(*other->Get(project_id_, sales_cube_id_), "Revenue"), republished,
              1e-6 * republished);
  EXPECT_EQ(other->GetAt(project_id_, sales_cube_id_, made_on.snapshot_file), old_rows)
      << "read once while held";

  ChangeWarehouse(1);
  PublishAndWait(*publisher, sales_cube_id_);
  auto error =
      ErrorFrom([&] { Node()->GetAt(project_id_, sales_cube_id_, made_on.snapshot_file); });
  ASSERT_TRUE(error) << "a version replaced twice was still read";
  EXPECT_EQ(error->code(), ErrorCode::kNotFound);
  EXPECT_NE(error->message().find("create a new instance"), std::string::npos) << error->message();
}

TEST_P(CubeServiceTest, ANodeRestartedDuringAPublishFailsItAndServesThePreviousSnapshot) {
  auto first_life = Node();
  PublishAndWait(*first_life, sales_cube_id_);
  const auto previous = StoredRecord(sales_cube_id_);
  const double previous_revenue = TotalRevenue();
  ChangeWarehouse(1000);

  // The publish writes its snapshot, then its node "dies" before recording it: the node restarts
  // (same node id) while the old life is frozen.
  HeldPublish held;
  auto dying = Node(warehouse_database_->url(), kNodeId, held.Hook());
  dying->Refresh(project_id_, sales_cube_id_);
  ASSERT_TRUE(held.reached.Wait());
  EXPECT_EQ(StoredRecord(sales_cube_id_)->state, "publishing");
  EXPECT_EQ(FilesOnDisk().size(), 2u);

  auto restarted = Node(kUnreachableWarehouse, kNodeId);
  EXPECT_EQ(LastRunner().Recover(), 1);
  restarted->RemoveLeftovers();

  auto record = StoredRecord(sales_cube_id_);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->state, "failed");
  EXPECT_NE(record->error_message.find("restarted before the work was complete"), std::string::npos)
      << record->error_message;
  EXPECT_EQ(record->snapshot_file, previous->snapshot_file);
  EXPECT_EQ(record->rows, previous->rows);
  service::cube::CubeStatus status = restarted->Status(project_id_, sales_cube_id_);
  EXPECT_EQ(status.state, service::cube::CubeState::kFailed);
  EXPECT_EQ(status.error_message, record->error_message);
  EXPECT_EQ(StoredJob(record->publish_job_id)->state, "failed");
  // The half-done publish's snapshot is gone; the previous one is served.
  EXPECT_EQ(FilesOnDisk(),
            std::set<std::string>{std::filesystem::path(previous->snapshot_file).filename()});
  auto served = restarted->Get(project_id_, sales_cube_id_);
  ASSERT_NE(served, nullptr);
  EXPECT_NEAR(SumOf(*served, "Revenue"), previous_revenue, 1e-6 * previous_revenue);

  // The frozen old life wakes up: it no longer holds the job and records nothing.
  held.released.Open();
  dying->WaitForPublish(project_id_, sales_cube_id_);
  EXPECT_EQ(StoredRecord(sales_cube_id_)->state, "failed");
  EXPECT_EQ(StoredRecord(sales_cube_id_)->snapshot_file, previous->snapshot_file);
  EXPECT_EQ(FilesOnDisk().size(), 1u);
}

TEST_P(CubeServiceTest, OfTwoNodesPublishingOneCubeThePublishStartedLastIsRecorded) {
  HeldPublish held;
  auto early = Node(warehouse_database_->url(), kNodeId, held.Hook());
  early->Publish(project_id_, sales_cube_id_);
  ASSERT_TRUE(held.reached.Wait());
  auto late = Node(warehouse_database_->url(), kOtherNodeId);
  PublishAndWait(*late, sales_cube_id_);
  const auto recorded = StoredRecord(sales_cube_id_);
  EXPECT_EQ(recorded->state, "ready");

  held.released.Open();
  early->WaitForPublish(project_id_, sales_cube_id_);
  auto record = StoredRecord(sales_cube_id_);
  EXPECT_EQ(record->state, "ready");
  EXPECT_EQ(record->publish_job_id, recorded->publish_job_id);
  EXPECT_EQ(record->snapshot_file, recorded->snapshot_file);
  EXPECT_EQ(FilesOnDisk(),
            std::set<std::string>{std::filesystem::path(record->snapshot_file).filename()});
  std::vector<storage::JobRecord> failed;
  store_->Read([&](storage::MetadataTransaction& tx) { failed = tx.ListJobs("failed"); });
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].lease_owner, kNodeId);
  EXPECT_EQ(early->Status(project_id_, sales_cube_id_).state, service::cube::CubeState::kReady);
}

TEST_P(CubeServiceTest, FilesAndRecordsLeftByInterruptedPublishesAreCleanedUpAtStart) {
  auto cubes = Node();
  PublishAndWait(*cubes, sales_cube_id_);
  const std::string kept =
      std::filesystem::path(StoredRecord(sales_cube_id_)->snapshot_file).filename().string();
  // What a killed node leaves: a snapshot never recorded, temporary files (also of the file
  // names of releases before publish jobs), and a record "publishing" without a job.
  const std::string dead_job = NewObjectId();
  for (const std::string& name :
       {sales_cube_id_ + "." + dead_job + ".tsnap", sales_cube_id_ + "." + dead_job + ".rows",
        item_cube_id_ + "." + dead_job + ".tsnap.tmp-0123456789",
        sales_cube_id_ + ".tsnap.tmp-ABCDEF"}) {
    std::ofstream(CubesDirectory() / name) << "partial";
  }
  // A publish running on another node keeps its files.
  storage::JobRecord running = LastRunner().NewJob("cube_publish", "", Json::object());
  running.lease_owner = kOtherNodeId;
  const std::string running_file = item_cube_id_ + "." + running.id + ".tsnap.tmp-42";
  std::ofstream(CubesDirectory() / running_file) << "being written";
  storage::CubeSnapshotRecord stale;
  stale.project_id = project_id_;
  stale.cube_id = item_cube_id_;
  stale.state = "publishing";
  stale.created = stale.updated = Now();
  store_->Write([&](storage::MetadataTransaction& tx) {
    tx.PutJob(running);
    tx.PutCubeSnapshot(stale);
  });

  auto restarted = Node(kUnreachableWarehouse);
  restarted->RemoveLeftovers();

  EXPECT_EQ(FilesOnDisk(), (std::set<std::string>{kept, running_file}));
  auto record = StoredRecord(item_cube_id_);
  EXPECT_EQ(record->state, "failed");
  EXPECT_NE(record->error_message.find("interrupted"), std::string::npos) << record->error_message;
  EXPECT_EQ(restarted->Status(project_id_, item_cube_id_).state, service::cube::CubeState::kFailed);
  EXPECT_EQ(StoredRecord(sales_cube_id_)->state, "ready");
  EXPECT_NE(restarted->Get(project_id_, sales_cube_id_), nullptr);
}

TEST_P(CubeServiceTest, SnapshotsAndTheirDirectoriesAreTheServerUsersAlone) {
  auto cubes = Node();
  PublishAndWait(*cubes, sales_cube_id_);
  struct stat info {};
  ASSERT_EQ(::stat(cubes->SnapshotPath(project_id_, sales_cube_id_).c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(CubesDirectory().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((data_dir_.path() / "cubes").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

TEST_P(CubeServiceTest, ANodeServesAnotherNodesNewPublishOnceItsCheckIsDue) {
  auto publisher = Node();
  auto other = NodeThatChecks(std::chrono::milliseconds(0), /*hears_notices=*/false);
  PublishAndWait(*publisher, sales_cube_id_);
  const double published = TotalRevenue();
  auto first = other->Get(project_id_, sales_cube_id_);
  ASSERT_NE(first, nullptr) << "the other node cannot load the shared snapshot";
  EXPECT_NEAR(SumOf(*first, "Revenue"), published, 1e-6 * published);

  ChangeWarehouse(1);
  PublishAndWait(*publisher, sales_cube_id_);
  const double republished = TotalRevenue();
  ASSERT_GT(republished, published);
  auto second = other->Get(project_id_, sales_cube_id_);
  ASSERT_NE(second, nullptr);
  EXPECT_NEAR(SumOf(*second, "Revenue"), republished, 1e-6 * republished);
  EXPECT_NEAR(SumOf(*first, "Revenue"), published, 1e-6 * published)
      << "a holder of the first version keeps its rows";
  EXPECT_EQ(other->Get(project_id_, sales_cube_id_), second) << "loaded once";
}

TEST_P(CubeServiceTest, ANodeThatHearsNoticesServesTheNewPublishOnlyOnceItHearsOfIt) {
  auto publisher = Node();
  auto other = NodeThatChecks(std::chrono::hours(1), /*hears_notices=*/true);
  PublishAndWait(*publisher, sales_cube_id_);
  auto first = other->Get(project_id_, sales_cube_id_);
  ASSERT_NE(first, nullptr);
  ChangeWarehouse(1);
  PublishAndWait(*publisher, sales_cube_id_);
  EXPECT_EQ(other->Get(project_id_, sales_cube_id_), first) << "nothing told it yet";

  other->HearNotice({service::cube::kCubeNoticeChannel, project_id_ + ":" + item_cube_id_});
  EXPECT_EQ(other->Get(project_id_, sales_cube_id_), first) << "a notice of another cube";
  other->HearNotice({service::cube::kCubeNoticeChannel, project_id_ + ":" + sales_cube_id_});
  auto second = other->Get(project_id_, sales_cube_id_);
  EXPECT_NE(second, first);
  EXPECT_EQ(SumOf(*second, "Revenue"),
            SumOf(*publisher->Get(project_id_, sales_cube_id_), "Revenue"));

  ChangeWarehouse(1);
  PublishAndWait(*publisher, sales_cube_id_);
  other->HearNotice({});  // notices may have been missed: everything is checked
  EXPECT_EQ(SumOf(*other->Get(project_id_, sales_cube_id_), "Revenue"),
            SumOf(*publisher->Get(project_id_, sales_cube_id_), "Revenue"));
}

TEST_P(CubeServiceTest, ANodeKeepsServingItsDatasetWhenTheNewSnapshotCannotBeRead) {
  auto publisher = Node();
  auto other = NodeThatChecks(std::chrono::milliseconds(0), /*hears_notices=*/false);
  PublishAndWait(*publisher, sales_cube_id_);
  auto first = other->Get(project_id_, sales_cube_id_);
  ASSERT_NE(first, nullptr);
  ChangeWarehouse(1);
  PublishAndWait(*publisher, sales_cube_id_);
  std::ofstream(publisher->SnapshotPath(project_id_, sales_cube_id_), std::ios::trunc) << "garbage";
  EXPECT_EQ(other->Get(project_id_, sales_cube_id_), first);
}

// The engine's answer on the dataset alone is the reference for the answer with its roll-ups.
void ExpectSameAnswer(const std::shared_ptr<const engine::Dataset>& dataset,
                      const engine::RollupSet& rollups, const engine::CubeQuery& query) {
  const engine::ResultSet want = engine::ExecuteCubeQuery(dataset, query);
  const engine::ResultSet got = engine::ExecuteCubeQuery(dataset, &rollups, query);
  EXPECT_EQ(got.dataset, dataset);
  EXPECT_EQ(got.attributes, want.attributes);
  EXPECT_EQ(got.codes, want.codes);
  ASSERT_EQ(got.values.size(), want.values.size());
  EXPECT_EQ(got.present, want.present);
  for (size_t m = 0; m < want.values.size(); ++m) {
    for (size_t row = 0; row < want.row_count; ++row) {
      EXPECT_NEAR(got.values[m][row], want.values[m][row],
                  1e-9 * std::max(1.0, std::abs(want.values[m][row])));
    }
  }
}

engine::CubeQuery QueryByName(const engine::Dataset& dataset,
                              const std::vector<std::string>& attributes,
                              const std::vector<std::string>& metrics) {
  engine::CubeQuery query;
  for (const auto& name : attributes) {
    for (size_t a = 0; a < dataset.attributes().size(); ++a) {
      if (dataset.attribute(a).name == name) query.attributes.push_back(static_cast<int>(a));
    }
  }
  for (const auto& name : metrics) {
    for (size_t m = 0; m < dataset.metrics().size(); ++m) {
      if (dataset.metric(m).name == name) {
        query.metrics.push_back({dataset.metric(m).id, name, static_cast<int>(m), {}, false});
      }
    }
  }
  EXPECT_EQ(query.attributes.size() + query.metrics.size(), attributes.size() + metrics.size());
  return query;
}

TEST_P(CubeServiceTest, APublishedCubeAnswersFromItsRollupsAsFromItsDataset) {
  auto cubes = Node();
  PublishAndWait(*cubes, sales_cube_id_);
  auto dataset = cubes->Get(project_id_, sales_cube_id_);
  ASSERT_NE(dataset, nullptr);
  auto rollups = cubes->RollupsOf(*dataset);
  ASSERT_NE(rollups, nullptr);
  ASSERT_FALSE(rollups->rollups().empty());
  EXPECT_LE(rollups->MemoryBytes(), dataset->MemoryBytes() / 5);
  EXPECT_EQ(cubes->Loaded().rollup_bytes, rollups->MemoryBytes());

  const engine::CubeQuery small = QueryByName(*dataset, {"Region"}, {"Revenue"});
  const engine::Rollup* chosen = rollups->Choose(*dataset, small);
  ASSERT_NE(chosen, nullptr);
  EXPECT_LT(chosen->dataset->row_count(), dataset->row_count() / 4);
  ExpectSameAnswer(dataset, *rollups, small);
  ExpectSameAnswer(dataset, *rollups,
                   QueryByName(*dataset, {"Year", "Category"}, {"Revenue", "Cost", "Units Sold"}));
  ExpectSameAnswer(
      dataset, *rollups,
      QueryByName(*dataset, {"Region", "Country"}, {"Revenue", "Customer Count", "Order Lines"}));
  ExpectSameAnswer(dataset, *rollups, QueryByName(*dataset, {}, {"Revenue", "Units Sold"}));
}

TEST_P(CubeServiceTest, RollupsCoverTheVisibleGrainAndTheDashboardsVisualizations) {
  auto cubes = Node();
  PublishAndWait(*cubes, sales_cube_id_);
  auto dataset = cubes->Get(project_id_, sales_cube_id_);
  ASSERT_NE(dataset, nullptr);
  const auto grains = service::cube::RollupGrainsOf(*store_, project_id_, sales_cube_id_, *dataset);
  ASSERT_FALSE(grains.empty());
  EXPECT_EQ(grains.front(), engine::VisibleGrain(*dataset));
  // Sales Overview's "Profit by Region": Region and Country, and its chapter's Region and Year
  // selectors.
  const engine::CubeQuery profit = QueryByName(*dataset, {"Region", "Country", "Year"}, {});
  std::vector<int> wanted = profit.attributes;
  std::sort(wanted.begin(), wanted.end());
  EXPECT_TRUE(std::any_of(grains.begin(), grains.end(), [&](std::vector<int> grain) {
    std::sort(grain.begin(), grain.end());
    return std::includes(grain.begin(), grain.end(), wanted.begin(), wanted.end()) &&
           grain.size() < dataset->attributes().size() - 1;
  }));
}

TEST_P(CubeServiceTest, ASnapshotLoadedAfterARestartHasItsRollupsAndOnlyServedDatasetsHaveThem) {
  PublishAndWait(*Node(), sales_cube_id_);
  auto restarted = Node(kUnreachableWarehouse);
  auto dataset = restarted->Get(project_id_, sales_cube_id_);
  ASSERT_NE(dataset, nullptr);
  auto rollups = restarted->RollupsOf(*dataset);
  ASSERT_NE(rollups, nullptr);
  EXPECT_FALSE(rollups->rollups().empty());
  const engine::Dataset copy = *dataset;
  EXPECT_EQ(restarted->RollupsOf(copy), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Backends, CubeServiceTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
