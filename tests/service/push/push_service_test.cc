// The push API at the service level, without HTTP: dataset models saved as super cubes, upload
// sessions with their chunks, publishes through CubeService and their progress, the update
// policies (replace, add, update, upsert), the single-request API, and bad input refused without
// changing what is served (the shapes of the bodies are api/push/push_requests.h's, tested there).
// The published data is read back from CubeService and aggregated by the engine; every expected
// value is computed here from the rows the test pushed -- on SQLite and PostgreSQL.
#include "service/push/push_service.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/cube_executor.h"
#include "engine/push/pushed_dataset.h"
#include "engine/warehouse_fixture.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "service/job_runner.h"
#include "service/object/object_service.h"
#include "service/project/warehouse_registry.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

using Sums = std::map<std::string, std::optional<double>>;

// Sales of 20 stores in 5 cities; amounts are quarters, so every sum is exact.
struct Sale {
  int64_t store;
  std::string city;
  std::optional<double> amount;
  int64_t units;
};

std::vector<Sale> Sales(size_t count, uint64_t seed) {
  std::vector<Sale> sales;
  uint64_t state = seed;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (size_t i = 0; i < count; ++i) {
    Sale sale;
    sale.store = static_cast<int64_t>(next() % 20) + 1;
    sale.city = "City " + std::to_string(sale.store % 5);
    if (next() % 10 != 0) sale.amount = static_cast<double>(next() % 4000) / 4.0;
    sale.units = static_cast<int64_t>(next() % 50);
    sales.push_back(std::move(sale));
  }
  return sales;
}

Json RowsOf(const std::vector<Sale>& sales, size_t begin, size_t end) {
  Json rows = Json::array();
  for (size_t r = begin; r < end; ++r) {
    const Sale& sale = sales[r];
    rows.push_back({sale.store, sale.city, sale.amount ? Json(*sale.amount) : Json(), sale.units});
  }
  return rows;
}

// Sum of amount per city, computed from the rows: a city whose amounts are all null has none.
Sums AmountByCity(const std::vector<Sale>& sales) {
  Sums sums;
  for (const auto& sale : sales) {
    auto& sum = sums[sale.city];
    if (sale.amount) sum = sum.value_or(0) + *sale.amount;
  }
  return sums;
}

Sums UnitsByStore(const std::vector<Sale>& sales) {
  Sums sums;
  for (const auto& sale : sales) {
    auto& sum = sums[std::to_string(sale.store)];
    sum = sum.value_or(0) + static_cast<double>(sale.units);
  }
  return sums;
}

Json Column(const std::string& name, const std::string& type) {
  return {{"name", name}, {"dataType", type}};
}

Json Attribute(const std::string& table, const std::string& column) {
  return {
      {"name", column},
      {"attributeForms",
       {{{"category", "ID"}, {"expressions", {{{"tableName", table}, {"columnName", column}}}}}}}};
}

Json Metric(const std::string& table, const std::string& column) {
  return {{"name", column}, {"expressions", {{{"tableName", table}, {"columnName", column}}}}};
}

// One table "sales": attributes store_id and city, metrics amount and units.
Json SalesModel(const std::string& name) {
  return {{"name", name},
          {"description", "pushed by a test"},
          {"folderId", ""},
          {"tables",
           {{{"name", "sales"},
             {"columnHeaders",
              {Column("store_id", "INTEGER"), Column("city", "STRING"), Column("amount", "DOUBLE"),
               Column("units", "INTEGER")}}}}},
          {"attributes", {Attribute("sales", "store_id"), Attribute("sales", "city")}},
          {"metrics", {Metric("sales", "amount"), Metric("sales", "units")}}};
}

// One table "t" keyed by its attribute store, with the metric amount.
Json KeyedModel(const std::string& name) {
  return {{"name", name},
          {"tables",
           {{{"name", "t"},
             {"columnHeaders", {Column("store", "INTEGER"), Column("amount", "DOUBLE")}}}}},
          {"attributes", Json::array({Attribute("t", "store")})},
          {"metrics", Json::array({Metric("t", "amount")})}};
}

void ExpectSameSums(const Sums& actual, const Sums& expected) {
  ASSERT_EQ(actual.size(), expected.size()) << ::testing::PrintToString(actual);
  for (const auto& [key, value] : expected) {
    auto found = actual.find(key);
    ASSERT_NE(found, actual.end()) << key;
    ASSERT_EQ(found->second.has_value(), value.has_value()) << key;
    if (value) {
      EXPECT_NEAR(*found->second, *value, 1e-9 * std::max(1.0, std::abs(*value))) << key;
    }
  }
}

class PushServiceTest : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    service::DirectoryService directory(*store_);
    directory.Bootstrap(std::nullopt);
    administrator_ = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
    project_id_ = service::bundle::BundleService(*store_)
                      .Import(administrator_, kDemoBundle, "demo")
                      .project_id;
    registry_ =
        std::make_unique<service::project::WarehouseRegistry>(std::map<std::string, std::string>{});
    jobs_ = std::make_unique<service::JobRunner>(*store_, service::JobRunnerOptions{});
    service::cube::CubeServiceOptions cube_options;
    cube_options.data_dir = data_dir_.path();
    cubes_ =
        std::make_unique<service::cube::CubeService>(*store_, *registry_, *jobs_, cube_options);
    cubes_->RegisterJobs();
    objects_ = std::make_unique<service::object::ObjectService>(*store_);
    push_ = std::make_unique<service::push::PushService>(*store_, *objects_, *cubes_);
  }

  service::push::PushedDatasetRef CreateModelOf(const Json& model) {
    return push_->CreateModel(administrator_, project_id_, engine::push::ParsePushModel(model));
  }

  std::string CreateModel(const Json& model) { return CreateModelOf(model).id; }

  std::string OpenSession(const std::string& dataset,
                          const std::vector<service::push::UploadTableRequest>& tables) {
    return push_->OpenSession(administrator_, project_id_, dataset,
                              service::push::OpenSessionRequest{tables});
  }

  static service::push::UploadTableRequest Table(const std::string& name, const std::string& policy,
                                                 const Json& headers) {
    return {name, engine::push::ParseUpdatePolicy(policy), headers.get<std::vector<std::string>>()};
  }

  void PutChunk(const std::string& dataset, const std::string& session, const std::string& table,
                int64_t index, const Json& rows) {
    push_->PutChunk(administrator_, project_id_, dataset, session,
                    service::push::ChunkRequest{table, index, rows.dump()});
  }

  // Publishes the session and waits for the publish to end; its progress status.
  int PublishAndWait(const std::string& dataset, const std::string& session) {
    push_->Publish(administrator_, project_id_, dataset, session);
    cubes_->WaitForPublish(project_id_, dataset);
    return push_->Progress(administrator_, project_id_, dataset, session).status;
  }

  // One session over one table with `rows` in chunks of `chunk_rows`, published.
  void Upload(const std::string& dataset, const std::string& table, const std::string& policy,
              const Json& headers, const Json& rows, size_t chunk_rows = 1000) {
    const std::string session = OpenSession(dataset, {Table(table, policy, headers)});
    for (size_t begin = 0, index = 1; begin < rows.size(); begin += chunk_rows, ++index) {
      Json chunk(
          rows.begin() + static_cast<std::ptrdiff_t>(begin),
          rows.begin() + static_cast<std::ptrdiff_t>(std::min(rows.size(), begin + chunk_rows)));
      PutChunk(dataset, session, table, static_cast<int64_t>(index), chunk);
    }
    ASSERT_EQ(PublishAndWait(dataset, session), 1);
  }

  // The published data of `dataset` aggregated by the engine: `metric` summed per element of
  // `attribute` (ID form as text).
  Sums Published(const std::string& dataset_id, const std::string& attribute,
                 const std::string& metric) {
    std::shared_ptr<const engine::Dataset> dataset = cubes_->Get(project_id_, dataset_id);
    if (!dataset) {
      ADD_FAILURE() << "nothing published for " << dataset_id;
      return {};
    }
    engine::CubeQuery query;
    const int attribute_index =
        dataset->AttributeIndex(engine::push::PushedAttributeId(dataset_id, attribute));
    const int metric_index = dataset->MetricIndex(engine::push::PushedMetricId(dataset_id, metric));
    if (attribute_index < 0 || metric_index < 0) {
      ADD_FAILURE() << "no " << attribute << " or " << metric << " in " << dataset_id;
      return {};
    }
    query.attributes = {attribute_index};
    engine::MetricRequest request;
    request.id = "m";
    request.name = metric;
    request.column = metric_index;
    query.metrics = {request};
    engine::ResultSet result = engine::ExecuteCubeQuery(dataset, query);
    const engine::Dictionary& dictionary = dataset->attribute(attribute_index).dictionary;
    Sums sums;
    for (size_t row = 0; row < result.row_count; ++row) {
      sums[engine::CellText(dictionary.Value(0, result.codes[0][row]))] = result.Value(0, row);
    }
    return sums;
  }

  size_t PublishedRows(const std::string& dataset_id) {
    auto dataset = cubes_->Get(project_id_, dataset_id);
    return dataset ? dataset->row_count() : 0;
  }

  // A "Store sales" dataset with `sales` pushed in one session and published.
  std::string CreateStoreSales(const std::vector<Sale>& sales) {
    const std::string id = CreateModel(SalesModel("Store sales"));
    const std::string session =
        OpenSession(id, {Table("sales", "replace", {"store_id", "city", "amount", "units"})});
    for (size_t begin = 0, index = 1; begin < sales.size(); begin += 40, ++index) {
      PutChunk(id, session, "sales", static_cast<int64_t>(index),
               RowsOf(sales, begin, std::min(sales.size(), begin + 40)));
    }
    EXPECT_EQ(PublishAndWait(id, session), 1);
    return id;
  }

  template <typename Call>
  void ExpectRefused(ErrorCode code, const std::string& what, Call call) {
    auto error = ErrorFrom(call);
    ASSERT_TRUE(error) << what << " was accepted";
    EXPECT_EQ(error->code(), code) << what << ": " << error->message();
  }

  // A second node: its own jobs, cube service and push service over the same storage service
  // and cubes directory.
  struct OtherNode {
    explicit OtherNode(PushServiceTest& test)
        : jobs(*test.store_, service::JobRunnerOptions{}),
          cubes(*test.store_, *test.registry_, jobs, CubeOptions(test.data_dir_.path())),
          push(*test.store_, *test.objects_, cubes) {
      cubes.RegisterJobs();
    }
    static service::cube::CubeServiceOptions CubeOptions(const std::filesystem::path& data_dir) {
      service::cube::CubeServiceOptions options;
      options.data_dir = data_dir;
      return options;
    }
    service::JobRunner jobs;
    service::cube::CubeService cubes;
    service::push::PushService push;
  };

  TempDir data_dir_;
  std::unique_ptr<storage::MetadataStore> store_;
  service::session::Principal administrator_;
  std::string project_id_;
  std::unique_ptr<service::project::WarehouseRegistry> registry_;
  std::unique_ptr<service::JobRunner> jobs_;
  std::unique_ptr<service::cube::CubeService> cubes_;
  std::unique_ptr<service::object::ObjectService> objects_;
  std::unique_ptr<service::push::PushService> push_;
};

TEST_P(PushServiceTest, AModelIsASuperCubeInMyReportsWithoutDataUntilPublished) {
  service::push::PushedDatasetRef created = CreateModelOf(SalesModel("Store sales"));
  EXPECT_EQ(created.name, "Store sales");
  ASSERT_EQ(created.id.size(), 32u);
  service::object::ObjectView object =
      objects_->Get(administrator_, project_id_, created.id, model::kTypeReportDefinition);
  EXPECT_EQ(object.record.subtype, model::kSubtypeSuperCube);
  EXPECT_EQ(object.record.description, "pushed by a test");
  EXPECT_EQ(object.record.folder_id,
            objects_->PredefinedFolderId(administrator_, project_id_, model::kFolderTypeMyReports));
  EXPECT_EQ(cubes_->Get(project_id_, created.id), nullptr);
  EXPECT_EQ(cubes_->Status(project_id_, created.id).state, service::cube::CubeState::kNotPublished);

  // A model of the same name replaces it and keeps its id.
  Json again = SalesModel("Store sales");
  again["description"] = "again";
  EXPECT_EQ(CreateModel(again), created.id);
  EXPECT_EQ(objects_->Get(administrator_, project_id_, created.id, model::kTypeReportDefinition)
                .record.description,
            "again");
}

TEST_P(PushServiceTest, PublishedDataAnswersLikeTheRowsThatWereSent) {
  const std::vector<Sale> sales = Sales(100, 7);
  const std::string id = CreateModel(SalesModel("Store sales"));
  const std::string session =
      OpenSession(id, {Table("sales", "replace", {"store_id", "city", "amount", "units"})});
  EXPECT_EQ(session.size(), 32u);
  // Chunks in any order; a repeated index replaces its chunk.
  PutChunk(id, session, "sales", 2, RowsOf(sales, 40, 100));
  PutChunk(id, session, "sales", 1, RowsOf(sales, 0, 5));
  PutChunk(id, session, "sales", 1, RowsOf(sales, 0, 40));
  EXPECT_EQ(push_->Progress(administrator_, project_id_, id, session).status, 0);
  EXPECT_EQ(cubes_->Get(project_id_, id), nullptr);  // nothing served before the publish

  EXPECT_EQ(PublishAndWait(id, session), 1);
  EXPECT_EQ(PublishedRows(id), sales.size());
  ExpectSameSums(Published(id, "city", "amount"), AmountByCity(sales));
  ExpectSameSums(Published(id, "store_id", "units"), UnitsByStore(sales));
  EXPECT_EQ(cubes_->Status(project_id_, id).state, service::cube::CubeState::kReady);
  // The finished status stays readable.
  EXPECT_EQ(push_->Progress(administrator_, project_id_, id, session).status, 1);
}

TEST_P(PushServiceTest, ColumnOrientationAndASubsetOfColumns) {
  const std::vector<Sale> sales = Sales(30, 11);
  const std::string id = CreateModel(SalesModel("Columns"));
  service::push::UploadTableRequest table =
      Table("sales", "replace", {"amount", "city", "store_id"});
  table.column_orientation = true;
  const std::string session = OpenSession(id, {table});
  Json amount = Json::array(), city = Json::array(), store = Json::array();
  for (const auto& sale : sales) {
    amount.push_back(sale.amount ? Json(*sale.amount) : Json());
    city.push_back(sale.city);
    store.push_back(sale.store);
  }
  PutChunk(id, session, "sales", 1, Json::array({amount, city, store}));
  ASSERT_EQ(PublishAndWait(id, session), 1);
  ExpectSameSums(Published(id, "city", "amount"), AmountByCity(sales));
  // units was left out: null on every row.
  for (const auto& [store_id, units] : Published(id, "store_id", "units")) {
    EXPECT_FALSE(units.has_value()) << store_id;
  }
}

TEST_P(PushServiceTest, UpdatePoliciesMergeRowsByTheirAttributeColumns) {
  const std::string id = CreateModel(KeyedModel("Policies"));
  const Json headers = {"store", "amount"};
  Upload(id, "t", "replace", headers, {{1, 10.0}, {2, 20.0}, {3, 30.0}}, 2);
  ExpectSameSums(Published(id, "store", "amount"), {{"1", 10.0}, {"2", 20.0}, {"3", 30.0}});

  Upload(id, "t", "add", headers, {{3, 99.0}, {4, 40.0}});  // 3 exists: kept as it was
  ExpectSameSums(Published(id, "store", "amount"),
                 {{"1", 10.0}, {"2", 20.0}, {"3", 30.0}, {"4", 40.0}});

  Upload(id, "t", "update", headers, {{1, 11.0}, {5, 50.0}});  // 5 is new: ignored
  ExpectSameSums(Published(id, "store", "amount"),
                 {{"1", 11.0}, {"2", 20.0}, {"3", 30.0}, {"4", 40.0}});

  Upload(id, "t", "Upsert", headers, {{2, 22.0}, {6, 60.0}, {6, 61.0}});  // the first 6 wins
  ExpectSameSums(Published(id, "store", "amount"),
                 {{"1", 11.0}, {"2", 22.0}, {"3", 30.0}, {"4", 40.0}, {"6", 60.0}});
  EXPECT_EQ(PublishedRows(id), 5u);

  // replace drops every row before; all of its rows are kept, repeated keys too.
  Upload(id, "t", "replace", headers, {{7, 70.0}, {7, 1.0}});
  ExpectSameSums(Published(id, "store", "amount"), {{"7", 71.0}});
  EXPECT_EQ(PublishedRows(id), 2u);
}

TEST_P(PushServiceTest, AGapInTheChunksIsRefusedAndTheSessionStaysOpen) {
  const std::string id = CreateModel(KeyedModel("Gaps"));
  Upload(id, "t", "replace", {"store", "amount"}, {{1, 10.0}});
  const std::string session = OpenSession(id, {Table("t", "add", {"store", "amount"})});
  PutChunk(id, session, "t", 1, {{2, 20.0}});
  PutChunk(id, session, "t", 3, {{4, 40.0}});
  auto gap = ErrorFrom([&] { push_->Publish(administrator_, project_id_, id, session); });
  ASSERT_TRUE(gap);
  EXPECT_EQ(gap->code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(gap->message()).find("chunk 2"), std::string::npos) << gap->message();
  EXPECT_EQ(push_->Progress(administrator_, project_id_, id, session).status, 0);
  ExpectSameSums(Published(id, "store", "amount"), {{"1", 10.0}});

  // With the missing chunk the same session publishes, its chunks in index order.
  PutChunk(id, session, "t", 2, {{3, 30.0}});
  ASSERT_EQ(PublishAndWait(id, session), 1);
  ExpectSameSums(Published(id, "store", "amount"),
                 {{"1", 10.0}, {"2", 20.0}, {"3", 30.0}, {"4", 40.0}});

  // A published session takes neither chunks nor another publish.
  ExpectRefused(ErrorCode::kInvalidInput, "a chunk after the publish", [&] {
    PutChunk(id, session, "t", 4, {{5, 50.0}});
  });
  ExpectRefused(ErrorCode::kInvalidInput, "a second publish",
                [&] { push_->Publish(administrator_, project_id_, id, session); });
}

TEST_P(PushServiceTest, BadInputIsRefusedAndChangesNothing) {
  const std::vector<Sale> sales = Sales(50, 3);
  const std::string id = CreateStoreSales(sales);
  const Json all_headers = {"store_id", "city", "amount", "units"};

  // Models.
  Json bad_type = SalesModel("Bad");
  bad_type["tables"][0]["columnHeaders"][0]["dataType"] = "DECIMALS";
  ExpectRefused(ErrorCode::kInvalidInput, "an unknown data type", [&] { CreateModel(bad_type); });
  Json bad_column = SalesModel("Bad");
  bad_column["metrics"][0]["expressions"][0]["columnName"] = "nowhere";
  ExpectRefused(ErrorCode::kInvalidInput, "a metric on an unknown column",
                [&] { CreateModel(bad_column); });
  Json bad_table = SalesModel("Bad");
  bad_table["attributes"][0]["attributeForms"][0]["expressions"][0]["tableName"] = "nowhere";
  ExpectRefused(ErrorCode::kInvalidInput, "an attribute on an unknown table",
                [&] { CreateModel(bad_table); });
  Json text_metric = SalesModel("Bad");
  text_metric["metrics"][0]["expressions"][0]["columnName"] = "city";
  ExpectRefused(ErrorCode::kInvalidInput, "a metric on a STRING column",
                [&] { CreateModel(text_metric); });
  std::vector<model::ObjectRecord> objects;
  store_->Read(
      [&](storage::MetadataTransaction& tx) { objects = tx.ListObjects(project_id_, {}); });
  std::string sales_cube;
  for (const auto& object : objects) {
    EXPECT_NE(object.name, "Bad") << "a refused model was saved";
    if (object.type == model::kTypeReportDefinition && object.name == "Sales Cube") {
      sales_cube = object.id;
    }
  }

  // Sessions.
  ExpectRefused(ErrorCode::kInvalidInput, "an unknown table",
                [&] { OpenSession(id, {Table("nowhere", "add", all_headers)}); });
  ExpectRefused(ErrorCode::kInvalidInput, "an unknown column", [&] {
    OpenSession(id, {Table("sales", "add", {"store_id", "colour"})});
  });
  ASSERT_FALSE(sales_cube.empty());
  ExpectRefused(ErrorCode::kNotSupported, "a cube that is not pushed",
                [&] { OpenSession(sales_cube, {Table("sales", "add", all_headers)}); });
  ExpectRefused(ErrorCode::kNotFound, "an unknown dataset", [&] {
    OpenSession("0123456789ABCDEF0123456789ABCDEF", {Table("sales", "add", all_headers)});
  });
  ExpectRefused(ErrorCode::kInvalidInput, "a malformed dataset id",
                [&] { OpenSession("../etc", {Table("sales", "add", all_headers)}); });

  // Chunks.
  const std::string session = OpenSession(id, {Table("sales", "add", all_headers)});
  const Json good = {{1, "City 1", 1000.0, 1}};
  ExpectRefused(ErrorCode::kInvalidInput, "a string in an INTEGER column", [&] {
    PutChunk(id, session, "sales", 1, {{"one", "City 1", 1.0, 1}});
  });
  ExpectRefused(ErrorCode::kInvalidInput, "a string in a DOUBLE column", [&] {
    PutChunk(id, session, "sales", 1, {{1, "City 1", "much", 1}});
  });
  ExpectRefused(ErrorCode::kInvalidInput, "a short row", [&] {
    PutChunk(id, session, "sales", 1, {{1, "City 1"}});
  });
  ExpectRefused(ErrorCode::kInvalidInput, "a table the dataset lacks",
                [&] { PutChunk(id, session, "stores", 1, good); });
  ExpectRefused(ErrorCode::kInvalidInput, "a chunk that is not JSON", [&] {
    push_->PutChunk(administrator_, project_id_, id, session,
                    service::push::ChunkRequest{"sales", 1, "[["});
  });
  ExpectRefused(ErrorCode::kNotFound, "an unknown session",
                [&] { PutChunk(id, "0123456789abcdef0123456789abcdef", "sales", 1, good); });
  service::session::Principal someone_else = administrator_;
  someone_else.user_id = "0123456789ABCDEF0123456789ABCDEF";
  ExpectRefused(ErrorCode::kNotFound, "another user's session",
                [&] { push_->Progress(someone_else, project_id_, id, session); });

  // Every refused chunk left the session empty: its publish adds nothing.
  ASSERT_EQ(PublishAndWait(id, session), 1);
  EXPECT_EQ(PublishedRows(id), sales.size());
  ExpectSameSums(Published(id, "city", "amount"), AmountByCity(sales));
}

// Chunks of a megabyte and more are checked beside their write to the store: a fault still
// refuses the chunk, before the session's state does, and leaves nothing stored.
TEST_P(PushServiceTest, ALargeChunkIsCheckedAsASmallOneIs) {
  const std::vector<Sale> sales = Sales(60000, 11);
  const std::string id = CreateModel(SalesModel("Store sales"));
  const std::string session =
      OpenSession(id, {Table("sales", "replace", {"store_id", "city", "amount", "units"})});
  const Json rows = RowsOf(sales, 0, sales.size());
  ASSERT_GE(rows.dump().size(), size_t{1} << 20);
  Json bad_rows = rows;
  bad_rows[sales.size() - 1][2] = "much";
  auto error_of_bad_chunk = [&] {
    return ErrorFrom([&] { PutChunk(id, session, "sales", 2, bad_rows); });
  };

  auto refused = error_of_bad_chunk();
  ASSERT_TRUE(refused) << "a large chunk with a bad last cell was accepted";
  EXPECT_EQ(refused->code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(refused->message()).find("much"), std::string::npos) << refused->message();
  PutChunk(id, session, "sales", 1, rows);
  ASSERT_EQ(PublishAndWait(id, session), 1);  // chunk 2 was never stored: no gap, no rows of it
  EXPECT_EQ(PublishedRows(id), sales.size());
  ExpectSameSums(Published(id, "city", "amount"), AmountByCity(sales));

  // On a published session the chunk's own fault is what is answered.
  auto after_publish = error_of_bad_chunk();
  ASSERT_TRUE(after_publish);
  EXPECT_NE(std::string(after_publish->message()).find("much"), std::string::npos)
      << after_publish->message();
  auto good_after_publish = ErrorFrom([&] { PutChunk(id, session, "sales", 2, rows); });
  ASSERT_TRUE(good_after_publish) << "a chunk for a published session was accepted";
  EXPECT_NE(std::string(good_after_publish->message()).find("published"), std::string::npos)
      << good_after_publish->message();
}

// The service reads a body's content once it has found the dataset or session it is for: an
// unknown one is Error(kNotFound) whatever the body.
TEST_P(PushServiceTest, AnUnknownDatasetOrSessionIsRefusedBeforeTheBodysFault) {
  const std::string id = CreateModel(KeyedModel("Order"));
  const auto bad_tables = service::Parsed<service::push::OpenSessionRequest>::Of(
      []() -> service::push::OpenSessionRequest { throw Error(ErrorCode::kInvalidInput, "bad"); });
  const auto bad_chunk = service::Parsed<service::push::ChunkRequest>::Of(
      []() -> service::push::ChunkRequest { throw Error(ErrorCode::kInvalidInput, "bad"); });
  ExpectRefused(ErrorCode::kNotFound, "a bad session body on an unknown dataset", [&] {
    push_->OpenSession(administrator_, project_id_, "0123456789ABCDEF0123456789ABCDEF", bad_tables);
  });
  ExpectRefused(ErrorCode::kNotFound, "a bad chunk on an unknown session", [&] {
    push_->PutChunk(administrator_, project_id_, id, "0123456789abcdef0123456789abcdef", bad_chunk);
  });
  ExpectRefused(ErrorCode::kInvalidInput, "a bad session body on a known dataset",
                [&] { push_->OpenSession(administrator_, project_id_, id, bad_tables); });
}

TEST_P(PushServiceTest, ClosedAndSupersededSessionsAreGone) {
  const std::string id = CreateModel(KeyedModel("Sessions"));
  const Json headers = {"store", "amount"};
  const std::string first = OpenSession(id, {Table("t", "replace", headers)});
  PutChunk(id, first, "t", 1, {{1, 10.0}});
  const std::string second = OpenSession(id, {Table("t", "replace", headers)});
  ExpectRefused(ErrorCode::kNotFound, "a superseded session",
                [&] { push_->Progress(administrator_, project_id_, id, first); });
  EXPECT_EQ(push_->Progress(administrator_, project_id_, id, second).status, 0);
  push_->CloseSession(administrator_, project_id_, id, second);
  ExpectRefused(ErrorCode::kNotFound, "a closed session",
                [&] { push_->Progress(administrator_, project_id_, id, second); });
  ExpectRefused(ErrorCode::kNotFound, "a publish of a closed session",
                [&] { push_->Publish(administrator_, project_id_, id, second); });
  EXPECT_EQ(cubes_->Get(project_id_, id), nullptr);
}

TEST_P(PushServiceTest, AFailedPublishKeepsThePreviousDataServed) {
  const std::string id = CreateModel(KeyedModel("Failing"));
  const Json headers = {"store", "amount"};
  Upload(id, "t", "replace", headers, {{1, 10.0}, {2, 20.0}});

  // No new snapshot can be written: a file stands where the project's cubes directory goes.
  const auto directory = data_dir_.path() / "cubes" / project_id_;
  const auto aside = data_dir_.path() / "aside";
  ASSERT_TRUE(std::filesystem::is_directory(directory));
  std::filesystem::rename(directory, aside);
  std::ofstream(directory) << "x";
  const std::string session = OpenSession(id, {Table("t", "add", headers)});
  PutChunk(id, session, "t", 1, {{3, 30.0}});
  push_->Publish(administrator_, project_id_, id, session);
  cubes_->WaitForPublish(project_id_, id);
  auto failed = ErrorFrom([&] { push_->Progress(administrator_, project_id_, id, session); });
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->code(), ErrorCode::kInternal);
  EXPECT_NE(std::string(failed->message()).find("previous data is still served"), std::string::npos)
      << failed->message();
  ExpectSameSums(Published(id, "store", "amount"), {{"1", 10.0}, {"2", 20.0}});
  EXPECT_EQ(cubes_->Status(project_id_, id).state, service::cube::CubeState::kFailed);

  // Once the way is clear, a new session publishes, merged into the rows served before.
  std::filesystem::remove(directory);
  std::filesystem::rename(aside, directory);
  Upload(id, "t", "add", headers, {{3, 30.0}, {1, 99.0}});
  ExpectSameSums(Published(id, "store", "amount"), {{"1", 10.0}, {"2", 20.0}, {"3", 30.0}});
}

TEST_P(PushServiceTest, AnotherNodeTakesTheNextCallOfASession) {
  OtherNode node(*this);
  service::push::PushService& other = node.push;
  service::cube::CubeService& other_cubes = node.cubes;

  const std::string id = CreateModel(KeyedModel("Shared"));
  const std::string session = OpenSession(id, {Table("t", "replace", {"store", "amount"})});
  other.PutChunk(administrator_, project_id_, id, session,
                 service::push::ChunkRequest{"t", 1, R"([[1,10.5]])"});
  PutChunk(id, session, "t", 2, {{2, 20.25}, {1, 1.0}});
  EXPECT_EQ(other.Progress(administrator_, project_id_, id, session).status, 0);
  other.Publish(administrator_, project_id_, id, session);
  other_cubes.WaitForPublish(project_id_, id);
  EXPECT_EQ(push_->Progress(administrator_, project_id_, id, session).status, 1);
  ExpectSameSums(Published(id, "store", "amount"), {{"1", 11.5}, {"2", 20.25}});
  ExpectRefused(ErrorCode::kInvalidInput, "a chunk after the publish, on the first node", [&] {
    PutChunk(id, session, "t", 3, {{3, 3.0}});
  });
}

// This node parses the chunks it takes ahead of the publish; a chunk replaced through another
// node since is published as replaced.
TEST_P(PushServiceTest, AChunkReplacedThroughAnotherNodeIsPublishedAsReplaced) {
  OtherNode node(*this);
  service::push::PushService& other = node.push;

  const std::string id = CreateModel(KeyedModel("Replaced"));
  const std::string session = OpenSession(id, {Table("t", "replace", {"store", "amount"})});
  PutChunk(id, session, "t", 1, {{1, 10.5}, {2, 1.0}});
  PutChunk(id, session, "t", 2, {{3, 7.0}});
  other.PutChunk(administrator_, project_id_, id, session,
                 service::push::ChunkRequest{"t", 1, R"([[1,2.5],[4,4.0]])"});
  ASSERT_EQ(PublishAndWait(id, session), 1);
  ExpectSameSums(Published(id, "store", "amount"), {{"1", 2.5}, {"3", 7.0}, {"4", 4.0}});
}

TEST_P(PushServiceTest, ASessionWhoseNodeDiedReadsAsItsCubesOutcome) {
  const std::string id = CreateModel(KeyedModel("Orphaned"));
  const std::string session = OpenSession(id, {Table("t", "replace", {"store", "amount"})});
  auto mark_publishing_since = [&](std::chrono::seconds ago) {
    store_->Write([&](storage::MetadataTransaction& tx) {
      auto record = tx.FindUploadSession(session);
      ASSERT_TRUE(record);
      record->state = "publishing";
      record->publish_started = Now() - ago;
      tx.PutUploadSession(*record);
    });
  };
  // Its node recorded the session publishing, then died before the publish began.
  mark_publishing_since(std::chrono::seconds(1));
  EXPECT_EQ(push_->Progress(administrator_, project_id_, id, session).status, 6)
      << "the publish may still begin";
  mark_publishing_since(std::chrono::minutes(5));
  auto stopped = ErrorFrom([&] { push_->Progress(administrator_, project_id_, id, session); });
  ASSERT_TRUE(stopped);
  EXPECT_EQ(stopped->code(), ErrorCode::kInternal);
  EXPECT_NE(std::string(stopped->message()).find("stopped before it began"), std::string::npos)
      << stopped->message();

  // Its node died after the cube's publish ended but before it recorded the session's end.
  mark_publishing_since(std::chrono::seconds(1));
  store_->Write([&](storage::MetadataTransaction& tx) {
    storage::CubeSnapshotRecord cube;
    cube.project_id = project_id_;
    cube.cube_id = id;
    cube.state = "failed";
    cube.error_message = "interrupted: node X stopped before the work was complete";
    cube.updated = Now();
    tx.PutCubeSnapshot(cube);
  });
  auto failed = ErrorFrom([&] { push_->Progress(administrator_, project_id_, id, session); });
  ASSERT_TRUE(failed);
  EXPECT_NE(std::string(failed->message()).find("node X stopped"), std::string::npos)
      << failed->message();
}

TEST_P(PushServiceTest, AnUnusedSessionExpiresAndItsChunksGoWithIt) {
  const std::string id = CreateModel(KeyedModel("Expiring"));
  const std::string session = OpenSession(id, {Table("t", "replace", {"store", "amount"})});
  PutChunk(id, session, "t", 1, {{1, 1.0}});
  store_->Write([&](storage::MetadataTransaction& tx) {
    auto record = tx.FindUploadSession(session);
    record->last_used = Now() - std::chrono::hours(2);  // beyond the default hour
    tx.PutUploadSession(*record);
  });
  ExpectRefused(ErrorCode::kNotFound, "an expired session",
                [&] { push_->Progress(administrator_, project_id_, id, session); });
  OpenSession(id, {Table("t", "replace", {"store", "amount"})});  // sweeps expired sessions
  store_->Read([&](storage::MetadataTransaction& tx) {
    EXPECT_FALSE(tx.FindUploadSession(session));
    EXPECT_TRUE(tx.ListUploadChunkKeys(session).empty());
  });
}

TEST_P(PushServiceTest, TheSingleRequestApiCreatesAndPatchesOneTable) {
  auto records = [](const std::vector<std::pair<std::string, double>>& rows) {
    Json json = Json::array();
    for (const auto& [city, amount] : rows) json.push_back({{"city", city}, {"amount", amount}});
    return json;
  };
  const Json model = {
      {"name", "Quick"},
      {"description", ""},
      {"folderId", ""},
      {"tables",
       {{{"name", "T"},
         {"columnHeaders", {Column("city", "STRING"), Column("amount", "DOUBLE")}}}}},
      {"attributes",
       {{{"name", "City"},
         {"attributeForms",
          {{{"category", "ID"},
            {"expressions", {{{"tableName", "T"}, {"columnName", "city"}}}}}}}}}},
      {"metrics",
       {{{"name", "Amount"}, {"expressions", {{{"tableName", "T"}, {"columnName", "amount"}}}}}}}};
  const service::push::SingleDatasetRequest body{engine::push::ParsePushModel(model),
                                                 records({{"Oslo", 1.5}, {"Bergen", 2.0}})};
  service::push::PushedDatasetRef created = push_->CreateSingle(administrator_, project_id_, body);
  ASSERT_EQ(created.tables.size(), 1u);
  EXPECT_EQ(created.tables[0].second, "T");
  // Published before CreateSingle returned.
  ExpectSameSums(Published(created.id, "City", "Amount"), {{"Oslo", 1.5}, {"Bergen", 2.0}});

  const service::push::TableRowsRequest patch{{}, records({{"Oslo", 4.0}, {"Tromso", 3.0}})};
  push_->PatchTable(administrator_, project_id_, created.id, created.tables[0].first, "Upsert",
                    patch);
  ExpectSameSums(Published(created.id, "City", "Amount"),
                 {{"Oslo", 4.0}, {"Bergen", 2.0}, {"Tromso", 3.0}});
  push_->PatchTable(
      administrator_, project_id_, created.id, "T", "add",
      service::push::TableRowsRequest{
          {"amount", "city"}, Json::parse(R"([[9.0, "Oslo"], {"city": "Alta", "amount": 1.0}])")});
  ExpectSameSums(Published(created.id, "City", "Amount"),
                 {{"Oslo", 4.0}, {"Bergen", 2.0}, {"Tromso", 3.0}, {"Alta", 1.0}});

  ExpectRefused(ErrorCode::kInvalidInput, "an unknown policy", [&] {
    push_->PatchTable(administrator_, project_id_, created.id, "T", "Sometimes", patch);
  });
  ExpectRefused(ErrorCode::kNotFound, "an unknown table", [&] {
    push_->PatchTable(administrator_, project_id_, created.id, "U", "add", patch);
  });
  const std::string modelled = CreateModel(SalesModel("Modelled"));
  ExpectRefused(ErrorCode::kNotSupported, "a dataset made by a model", [&] {
    push_->PatchTable(administrator_, project_id_, modelled, "sales", "add", patch);
  });
  ExpectSameSums(Published(created.id, "City", "Amount"),
                 {{"Oslo", 4.0}, {"Bergen", 2.0}, {"Tromso", 3.0}, {"Alta", 1.0}});
}

INSTANTIATE_TEST_SUITE_P(Backends, PushServiceTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
