#include "engine/demo/data.h"

#include <gtest/gtest.h>

#include <bit>
#include <map>

#include "engine/warehouse_fixture.h"

namespace tessera::testing {
namespace {

using engine::demo::DemoOptions;
using engine::warehouse::SqlValue;

constexpr int64_t kRows = 20000;

// count, sums and an FNV-1a hash of every sales_fact row in order_line_id order.
struct Fingerprint {
  int64_t rows = 0;
  double revenue = 0;
  int64_t units = 0;
  uint64_t hash = 14695981039346656037ull;

  bool operator==(const Fingerprint&) const = default;
};

class HashingSink : public engine::warehouse::RowSink {
 public:
  void OnColumns(const std::vector<std::string>&) override {}
  void OnRow(const std::vector<SqlValue>& row) override {
    for (const SqlValue& cell : row) {
      Mix(cell.index());
      if (const auto* number = std::get_if<int64_t>(&cell)) Mix(static_cast<uint64_t>(*number));
      if (const auto* real = std::get_if<double>(&cell)) Mix(std::bit_cast<uint64_t>(*real));
      if (const auto* text = std::get_if<std::string>(&cell)) {
        for (char c : *text) Mix(static_cast<unsigned char>(c));
      }
    }
    ++fingerprint.rows;
  }

  Fingerprint fingerprint;

 private:
  void Mix(uint64_t value) { fingerprint.hash = (fingerprint.hash ^ value) * 1099511628211ull; }
};

Fingerprint FingerprintOf(engine::warehouse::Warehouse& warehouse) {
  HashingSink sink;
  warehouse.Query({"SELECT order_line_id, day_id, city_id, item_id, customer_id, channel_id, "
                   "units, revenue, cost, discount FROM sales_fact ORDER BY order_line_id",
                   {}},
                  sink);
  Fingerprint fingerprint = sink.fingerprint;
  auto sums =
      QueryRows(warehouse, "SELECT sum(revenue), CAST(sum(units) AS BIGINT) FROM sales_fact");
  fingerprint.revenue = std::get<double>(sums[0][0]);
  fingerprint.units = std::get<int64_t>(sums[0][1]);
  return fingerprint;
}

std::vector<std::string> TextColumn(engine::warehouse::Warehouse& warehouse,
                                    const std::string& sql) {
  std::vector<std::string> values;
  for (const auto& row : QueryRows(warehouse, sql)) values.push_back(std::get<std::string>(row[0]));
  return values;
}

class DemoData : public WarehouseBackendTest {
 protected:
  // Generated once per backend and shared by the read-only tests of that backend.
  engine::warehouse::Warehouse& Demo() {
    auto& shared = SharedDemo(GetParam());
    if (shared.warehouse == nullptr) {
      shared.database = std::make_unique<TestDatabase>(GetParam());
      shared.warehouse = OpenWarehouseAt(*shared.database);
      engine::demo::GenerateDemoData(*shared.warehouse, {.rows = kRows, .seed = 42});
    }
    return *shared.warehouse;
  }

  static void TearDownTestSuite() {
    for (auto& [backend, shared] : Shared()) {
      shared.warehouse.reset();
      shared.database.reset();
    }
  }

 private:
  struct SharedWarehouse {
    std::unique_ptr<TestDatabase> database;
    std::unique_ptr<engine::warehouse::Warehouse> warehouse;
  };
  static std::map<StoreBackend, SharedWarehouse>& Shared() {
    static std::map<StoreBackend, SharedWarehouse> shared;
    return shared;
  }
  static SharedWarehouse& SharedDemo(StoreBackend backend) { return Shared()[backend]; }
};

TEST_P(DemoData, EveryTableHasTheRowCountOfTheSchema) {
  std::map<std::string, int64_t> expected = {
      {"lu_year", 3},    {"lu_quarter", 12},         {"lu_month", 36},
      {"lu_day", 1096},  {"lu_region", 8},           {"lu_country", 30},
      {"lu_city", 300},  {"lu_category", 4},         {"lu_subcategory", 40},
      {"lu_item", 5000}, {"lu_customer_segment", 5}, {"lu_customer", 10000},
      {"lu_channel", 3}, {"sales_fact", kRows}};
  auto& warehouse = Demo();

  ASSERT_EQ(engine::demo::DemoTableNames().size(), expected.size());
  for (const std::string& table : engine::demo::DemoTableNames()) {
    ASSERT_TRUE(expected.contains(table)) << table;
    EXPECT_EQ(QueryInt(warehouse, "SELECT count(*) FROM " + table), expected[table]) << table;
  }
}

TEST_P(DemoData, SegmentsAndChannelsAreExactlyTheBenchmarkValues) {
  auto& warehouse = Demo();

  EXPECT_EQ(TextColumn(warehouse,
                       "SELECT customer_segment_name FROM lu_customer_segment "
                       "ORDER BY customer_segment_id"),
            (std::vector<std::string>{"Consumer", "Small Business", "Corporate", "Government",
                                      "Education"}));
  EXPECT_EQ(TextColumn(warehouse, "SELECT channel_name FROM lu_channel ORDER BY channel_id"),
            (std::vector<std::string>{"Online", "Retail Store", "Partner"}));
}

TEST_P(DemoData, GeographyAndProductNamesHaveTheRequiredValuesAndAreUnique) {
  auto& warehouse = Demo();

  EXPECT_EQ(QueryInt(warehouse,
                     "SELECT count(*) FROM lu_region WHERE region_name = "
                     "'Western Europe'"),
            1);
  EXPECT_EQ(QueryInt(warehouse, "SELECT count(DISTINCT region_name) FROM lu_region"), 8);
  EXPECT_EQ(QueryInt(warehouse, "SELECT count(DISTINCT country_name) FROM lu_country"), 30);
  EXPECT_EQ(QueryInt(warehouse, "SELECT count(DISTINCT city_name) FROM lu_city"), 300);
  EXPECT_EQ(QueryInt(warehouse,
                     "SELECT count(*) FROM lu_category WHERE category_name IN "
                     "('Electronics', 'Apparel')"),
            2);
  EXPECT_EQ(QueryInt(warehouse, "SELECT count(DISTINCT subcategory_name) FROM lu_subcategory"), 40);
  EXPECT_EQ(QueryInt(warehouse, "SELECT count(DISTINCT item_name) FROM lu_item"), 5000);
  EXPECT_EQ(QueryInt(warehouse, "SELECT count(DISTINCT customer_name) FROM lu_customer"), 10000);
}

TEST_P(DemoData, TheCalendarCoversThreeYearsWithNamedMonthsAndQuarters) {
  auto& warehouse = Demo();

  auto bounds = QueryRows(warehouse, "SELECT min(day_id), max(day_id) FROM lu_day");
  EXPECT_EQ(bounds[0],
            (std::vector<SqlValue>{std::string("2022-01-01"), std::string("2024-12-31")}));
  EXPECT_EQ(
      QueryRows(warehouse,
                "SELECT month_name, quarter_id FROM lu_month "
                "WHERE month_id = '2024-02'"),
      (std::vector<std::vector<SqlValue>>{{std::string("February 2024"), std::string("2024-Q1")}}));
  EXPECT_EQ(QueryInt(warehouse, "SELECT count(*) FROM lu_day WHERE month_id = '2024-02'"), 29);
  EXPECT_EQ(QueryInt(warehouse, "SELECT count(*) FROM lu_quarter WHERE year_id = 2023"), 4);
}

TEST_P(DemoData, EveryForeignKeyFindsItsLookupRow) {
  auto& warehouse = Demo();
  struct Reference {
    const char* table;
    const char* column;
    const char* lookup;
  };
  const Reference references[] = {
      {"sales_fact", "day_id", "lu_day"},
      {"sales_fact", "city_id", "lu_city"},
      {"sales_fact", "item_id", "lu_item"},
      {"sales_fact", "customer_id", "lu_customer"},
      {"sales_fact", "channel_id", "lu_channel"},
      {"lu_day", "month_id", "lu_month"},
      {"lu_month", "quarter_id", "lu_quarter"},
      {"lu_quarter", "year_id", "lu_year"},
      {"lu_city", "country_id", "lu_country"},
      {"lu_country", "region_id", "lu_region"},
      {"lu_item", "subcategory_id", "lu_subcategory"},
      {"lu_subcategory", "category_id", "lu_category"},
      {"lu_customer", "customer_segment_id", "lu_customer_segment"},
  };

  for (const Reference& reference : references) {
    std::string sql = std::string("SELECT count(*) FROM ") + reference.table +
                      " t WHERE NOT EXISTS "
                      "(SELECT 1 FROM " +
                      reference.lookup + " l WHERE l." + reference.column + " = t." +
                      reference.column + ")";
    EXPECT_EQ(QueryInt(warehouse, sql), 0) << reference.table << "." << reference.column;
  }
}

TEST_P(DemoData, FactValuesAreInRangeWithTwoDecimalsAndAFewNullDiscounts) {
  auto& warehouse = Demo();

  EXPECT_EQ(QueryInt(warehouse, "SELECT count(*) FROM sales_fact WHERE units < 1 OR units > 20"),
            0);
  EXPECT_EQ(QueryInt(warehouse,
                     "SELECT count(*) FROM sales_fact WHERE "
                     "abs(revenue * 100 - round(revenue * 100)) > 0.000001 OR "
                     "abs(cost * 100 - round(cost * 100)) > 0.000001 OR "
                     "abs(discount * 100 - round(discount * 100)) > 0.000001"),
            0);
  EXPECT_EQ(QueryInt(warehouse, "SELECT min(order_line_id) FROM sales_fact"), 1);
  EXPECT_EQ(QueryInt(warehouse, "SELECT max(order_line_id) FROM sales_fact"), kRows);
  int64_t null_discounts =
      QueryInt(warehouse, "SELECT count(*) FROM sales_fact WHERE discount IS NULL");
  EXPECT_GT(null_discounts, kRows / 200);
  EXPECT_LT(null_discounts, kRows / 50);
  EXPECT_EQ(QueryInt(warehouse,
                     "SELECT count(*) FROM sales_fact WHERE "
                     "cost < revenue * 0.40 OR cost > revenue * 0.90"),
            0);
}

TEST_P(DemoData, DistributionsAreSkewedBySeasonYearAndPopularity) {
  auto& warehouse = Demo();
  auto rows_between = [&](const std::string& first_day, const std::string& next_first_day) {
    return QueryInt(warehouse, "SELECT count(*) FROM sales_fact WHERE day_id >= '" + first_day +
                                   "' AND day_id < '" + next_first_day + "'");
  };

  EXPECT_GT(rows_between("2024-12-01", "2025-01-01"),
            rows_between("2024-02-01", "2024-03-01") * 3 / 2);
  EXPECT_GT(
      QueryInt(warehouse, "SELECT count(*) FROM sales_fact WHERE day_id >= '2024-01-01'"),
      QueryInt(warehouse, "SELECT count(*) FROM sales_fact WHERE day_id < '2023-01-01'") * 13 / 10);
  auto top_city = QueryInt(warehouse,
                           "SELECT count(*) AS n FROM sales_fact GROUP BY city_id "
                           "ORDER BY n DESC LIMIT 1");
  EXPECT_GT(top_city, kRows / 300 * 5);
}

TEST_P(DemoData, TheSameSeedGivesTheSameRowsAndAnotherSeedDifferentOnes) {
  auto& first = Demo();
  TestDatabase second_database(GetParam());
  auto second = OpenWarehouseAt(second_database);
  TestDatabase other_database(GetParam());
  auto other = OpenWarehouseAt(other_database);

  engine::demo::GenerateDemoData(*second, {.rows = kRows, .seed = 42});
  engine::demo::GenerateDemoData(*other, {.rows = kRows, .seed = 7});

  Fingerprint expected = FingerprintOf(first);
  EXPECT_EQ(expected.rows, kRows);
  EXPECT_EQ(FingerprintOf(*second), expected);
  Fingerprint different = FingerprintOf(*other);
  EXPECT_EQ(different.rows, kRows);
  EXPECT_NE(different.hash, expected.hash);
  EXPECT_NE(different.revenue, expected.revenue);
}

TEST_P(DemoData, ProgressIsReportedForEveryTable) {
  auto warehouse = OpenWarehouse();
  std::vector<std::string> reported;

  engine::demo::GenerateDemoData(*warehouse, {.rows = 10, .seed = 1},
                                 [&](const engine::demo::DemoProgress& progress) {
                                   if (progress.rows_loaded == progress.rows_total) {
                                     reported.emplace_back(progress.table);
                                   }
                                 });

  EXPECT_EQ(reported.size(), 14u);
  EXPECT_EQ(QueryInt(*warehouse, "SELECT count(*) FROM sales_fact"), 10);
}

TEST_P(DemoData, ANegativeRowCountIsInvalidInput) {
  auto warehouse = OpenWarehouse();

  auto error = ErrorFrom([&] { engine::demo::GenerateDemoData(*warehouse, {.rows = -1}); });

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::kInvalidInput);
}

INSTANTIATE_TEST_SUITE_P(Backends, DemoData, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

TEST(DemoTables, AreTheFourteenOfTheSchemaInLoadOrder) {
  EXPECT_EQ(
      engine::demo::DemoTableNames(),
      (std::vector<std::string>{"lu_year", "lu_quarter", "lu_month", "lu_day", "lu_region",
                                "lu_country", "lu_city", "lu_category", "lu_subcategory", "lu_item",
                                "lu_customer_segment", "lu_customer", "lu_channel", "sales_fact"}));
}

}  // namespace
}  // namespace tessera::testing
