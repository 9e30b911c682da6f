#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "engine/warehouse/postgres_warehouse.h"
#include "engine/warehouse/warehouse.h"
#include "engine/warehouse_fixture.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using engine::warehouse::SqlValue;
using std::chrono::milliseconds;

// Counts to `limit` in one statement that both dialects understand.
std::string CountTo(int64_t limit) {
  return "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < " +
         std::to_string(limit) + ") SELECT n FROM r";
}

// Runs far longer than any test waits for it.
const std::string kSlowQuery =
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000000) "
    "SELECT count(*) FROM r";

// Streams its first rows at once (enough to fill a network buffer: a server may send rows only a
// buffer at a time), then runs as long as kSlowQuery without another.
const std::string kRowsThenSlowQuery =
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000000) "
    "SELECT n FROM r WHERE n <= 10000 OR n = 1000000000000";

class WarehouseQuery : public WarehouseBackendTest {
 protected:
  void CreatePeople(engine::warehouse::Warehouse& warehouse) {
    engine::warehouse::TableSchema schema{
        .name = "people",
        .columns = {{"id", model::DataType::kInteger}, {"name", model::DataType::kText}},
        .primary_key = {"id"}};
    warehouse.BulkLoad(schema, RowsFrom({{int64_t{1}, std::string("alice")},
                                         {int64_t{2}, std::string("bob")},
                                         {int64_t{3}, std::string("x' OR '1'='1")}}));
  }
};

TEST_P(WarehouseQuery, ValuesArriveTypedAndNullsAsEmpty) {
  auto warehouse = OpenWarehouse();
  CollectingSink sink;

  warehouse->Query({"SELECT 42 AS i, 2.5 AS r, 'text' AS t, NULL AS n", {}}, sink);

  EXPECT_EQ(sink.columns, (std::vector<std::string>{"i", "r", "t", "n"}));
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0][0], SqlValue(int64_t{42}));
  EXPECT_EQ(sink.rows[0][1], SqlValue(2.5));
  EXPECT_EQ(sink.rows[0][2], SqlValue(std::string("text")));
  EXPECT_EQ(sink.rows[0][3], SqlValue(std::monostate{}));
}

TEST_P(WarehouseQuery, TypedColumnsOfALoadedTableReadBackTyped) {
  auto warehouse = OpenWarehouse();
  engine::warehouse::TableSchema schema{.name = "typed",
                                        .columns = {{"i", model::DataType::kInteger},
                                                    {"r", model::DataType::kReal},
                                                    {"d", model::DataType::kDate},
                                                    {"b", model::DataType::kBoolean},
                                                    {"t", model::DataType::kText}},
                                        .primary_key = {}};
  warehouse->BulkLoad(
      schema,
      RowsFrom({{int64_t{7}, 19.99, std::string("2024-02-29"), int64_t{1}, std::string("seven")}}));

  auto rows = QueryRows(*warehouse, "SELECT i, r, d, b, t FROM typed");

  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<SqlValue>{int64_t{7}, 19.99, std::string("2024-02-29"),
                                            int64_t{1}, std::string("seven")}));
}

TEST_P(WarehouseQuery, ParametersAreBoundNotSpliced) {
  auto warehouse = OpenWarehouse();
  CreatePeople(*warehouse);

  auto bob = QueryRows(*warehouse, "SELECT id FROM people WHERE name = ?", {std::string("bob")});
  auto injected = QueryRows(*warehouse, "SELECT id FROM people WHERE name = ? AND id < 3",
                            {std::string("x' OR '1'='1")});
  auto by_number =
      QueryRows(*warehouse, "SELECT name FROM people WHERE id > ? AND id < ?", {int64_t{1}, 2.5});

  EXPECT_EQ(bob, (std::vector<std::vector<SqlValue>>{{int64_t{2}}}));
  EXPECT_TRUE(injected.empty());
  EXPECT_EQ(by_number, (std::vector<std::vector<SqlValue>>{{std::string("bob")}}));
}

TEST_P(WarehouseQuery, AQuestionMarkInsideALiteralIsNotAPlaceholder) {
  auto warehouse = OpenWarehouse();

  auto rows = QueryRows(*warehouse, "SELECT 'why?' AS q, ? AS p", {std::string("because")});

  EXPECT_EQ(rows,
            (std::vector<std::vector<SqlValue>>{{std::string("why?"), std::string("because")}}));
}

TEST_P(WarehouseQuery, ALargeResultStreamsEveryRow) {
  auto warehouse = OpenWarehouse();
  CountingSink sink;

  warehouse->Query({CountTo(100000), {}}, sink);

  EXPECT_EQ(sink.rows, 100000);
  EXPECT_EQ(sink.sum, int64_t{100000} * 100001 / 2);
}

TEST_P(WarehouseQuery, RowsReachTheSinkWhileTheQueryStillRuns) {
  auto warehouse = OpenWarehouse();
  std::atomic<bool> cancel{false};
  struct StopAfterTenRows : engine::warehouse::RowSink {
    std::atomic<bool>* cancel;
    int rows = 0;
    void OnColumns(const std::vector<std::string>&) override {}
    void OnRow(const std::vector<SqlValue>&) override {
      if (++rows == 10) cancel->store(true);
    }
  } sink;
  sink.cancel = &cancel;
  auto started = std::chrono::steady_clock::now();

  auto error = ErrorFrom([&] {
    warehouse->Query({CountTo(int64_t{1} << 40), {}}, sink, {.cancel = &cancel});
  });

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::kTimeout);
  EXPECT_GE(sink.rows, 10);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST_P(WarehouseQuery, ASlowQueryTimesOutAndTheWarehouseStillAnswers) {
  auto warehouse = OpenWarehouse(/*max_connections=*/1);
  CountingSink sink;
  auto started = std::chrono::steady_clock::now();

  auto error = ErrorFrom([&] {
    warehouse->Query({kSlowQuery, {}}, sink, {.timeout = milliseconds(200)});
  });

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::kTimeout);
  EXPECT_EQ(error->message(),
            "The query on warehouse 'Test Warehouse' timed out after 200 ms and was cancelled");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(QueryInt(*warehouse, "SELECT 1 + 1"), 2);
}

TEST_P(WarehouseQuery, SettingTheCancelFlagStopsARunningQuery) {
  auto warehouse = OpenWarehouse(/*max_connections=*/1);
  std::atomic<bool> cancel{false};
  struct RowsSeen : engine::warehouse::RowSink {
    std::atomic<int64_t> rows{0};
    void OnColumns(const std::vector<std::string>&) override {}
    void OnRow(const std::vector<SqlValue>&) override { ++rows; }
  } sink;
  std::thread canceller([&] {
    EXPECT_TRUE(WaitUntil([&] { return sink.rows > 0; }, std::chrono::seconds(30),
                          "the query ran (it streamed a row)"));
    cancel.store(true);
  });

  auto error = ErrorFrom([&] {
    warehouse->Query({kRowsThenSlowQuery, {}}, sink, {.cancel = &cancel});
  });
  canceller.join();

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::kTimeout);
  EXPECT_EQ(error->message(), "The query on warehouse 'Test Warehouse' was cancelled");
  EXPECT_EQ(QueryInt(*warehouse, "SELECT 3"), 3);
}

TEST_P(WarehouseQuery, AQueryWhoseFlagIsAlreadySetIsCancelled) {
  auto warehouse = OpenWarehouse();
  std::atomic<bool> cancel{true};
  CountingSink sink;

  auto error = ErrorFrom([&] { warehouse->Query({kSlowQuery, {}}, sink, {.cancel = &cancel}); });

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::kTimeout);
}

TEST_P(WarehouseQuery, AStatementTheDatabaseRefusesIsAnEngineErrorWithItsText) {
  auto warehouse = OpenWarehouse(/*max_connections=*/1);

  auto error = ErrorFrom([&] { QueryRows(*warehouse, "SELECT * FROM no_such_table"); });

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::kEngine);
  EXPECT_NE(error->message().find("no_such_table"), std::string_view::npos) << error->message();
  EXPECT_EQ(QueryInt(*warehouse, "SELECT 5"), 5);
}

TEST_P(WarehouseQuery, AnExceptionFromTheSinkPropagatesAndTheConnectionStaysUsable) {
  auto warehouse = OpenWarehouse(/*max_connections=*/1);
  struct Throwing : engine::warehouse::RowSink {
    void OnColumns(const std::vector<std::string>&) override {}
    void OnRow(const std::vector<SqlValue>&) override { throw std::runtime_error("full"); }
  } sink;

  EXPECT_THROW(warehouse->Query({CountTo(1000), {}}, sink), std::runtime_error);

  EXPECT_EQ(QueryInt(*warehouse, "SELECT 6"), 6);
}

TEST_P(WarehouseQuery, ConcurrentQueriesShareThePool) {
  auto warehouse = OpenWarehouse(/*max_connections=*/2);
  std::vector<std::thread> threads;
  std::atomic<int> correct{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      CountingSink sink;
      warehouse->Query({CountTo(2000), {}}, sink);
      if (sink.rows == 2000) ++correct;
    });
  }
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(correct.load(), 6);
}

TEST_P(WarehouseQuery, IdentifiersAreQuotedWithEmbeddedQuotesDoubled) {
  auto warehouse = OpenWarehouse();

  EXPECT_EQ(warehouse->QuoteIdentifier("region"), "\"region\"");
  EXPECT_EQ(warehouse->QuoteIdentifier("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(QueryInt(*warehouse, "SELECT 8 AS " + warehouse->QuoteIdentifier("we\"ird")), 8);
}

TEST_P(WarehouseQuery, TheDialectFollowsTheUrl) {
  auto warehouse = OpenWarehouse();

  EXPECT_EQ(warehouse->dialect(), is_postgres() ? engine::warehouse::Dialect::kPostgres
                                                : engine::warehouse::Dialect::kSqlite);
  EXPECT_EQ(warehouse->name(), "Test Warehouse");
}

INSTANTIATE_TEST_SUITE_P(Backends, WarehouseQuery, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
