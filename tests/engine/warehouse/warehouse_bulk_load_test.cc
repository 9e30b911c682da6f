#include <gtest/gtest.h>

#include "engine/warehouse/warehouse.h"
#include "engine/warehouse_fixture.h"

namespace tessera::testing {
namespace {

using engine::warehouse::SqlValue;
using engine::warehouse::TableSchema;
using model::DataType;

TableSchema NotesSchema() {
  return {.name = "notes",
          .columns = {{"id", DataType::kInteger},
                      {"body", DataType::kText},
                      {"amount", DataType::kReal},
                      {"day", DataType::kDate}},
          .primary_key = {"id"}};
}

class WarehouseBulkLoad : public WarehouseBackendTest {};

TEST_P(WarehouseBulkLoad, RowsRoundTripWithNullsQuotesTabsNewlinesAndBackslashes) {
  auto warehouse = OpenWarehouse();
  std::vector<std::vector<SqlValue>> rows = {
      {int64_t{1}, std::string("plain"), 1.25, std::string("2024-01-31")},
      {int64_t{2}, std::string("it's \"quoted\""), std::monostate{}, std::monostate{}},
      {int64_t{3}, std::string("tab\there\nnew line\r\\N back\\slash"), -0.5,
       std::string("2022-12-31")},
      {int64_t{4}, std::monostate{}, 0.0, std::string("2023-06-15")},
      {int64_t{5}, std::string(""), 1e15, std::string("2024-02-29")},
  };

  warehouse->BulkLoad(NotesSchema(), RowsFrom(rows));

  EXPECT_EQ(QueryRows(*warehouse, "SELECT id, body, amount, day FROM notes ORDER BY id"), rows);
}

TEST_P(WarehouseBulkLoad, LoadingAgainReplacesTheTable) {
  auto warehouse = OpenWarehouse();
  warehouse->BulkLoad(NotesSchema(),
                      RowsFrom({{int64_t{1}, std::string("old"), 1.0, std::string("2024-01-01")}}));

  TableSchema replacement{
      .name = "notes", .columns = {{"label", DataType::kText}}, .primary_key = {}};
  warehouse->BulkLoad(replacement, RowsFrom({{std::string("new")}, {std::string("newer")}}));

  EXPECT_EQ(QueryRows(*warehouse, "SELECT label FROM notes ORDER BY label"),
            (std::vector<std::vector<SqlValue>>{{std::string("new")}, {std::string("newer")}}));
}

TEST_P(WarehouseBulkLoad, ARowSourceThatFailsLeavesThePreviousTableAndNoTransaction) {
  auto warehouse = OpenWarehouse(/*max_connections=*/1);
  warehouse->BulkLoad(
      NotesSchema(), RowsFrom({{int64_t{1}, std::string("kept"), 1.0, std::string("2024-01-01")}}));
  int calls = 0;
  engine::warehouse::RowSource failing = [&](std::vector<SqlValue>& row) -> bool {
    if (++calls > 3) throw std::runtime_error("source broke");
    row = {int64_t{calls + 10}, std::string("partial"), 2.0, std::string("2024-01-02")};
    return true;
  };

  EXPECT_THROW(warehouse->BulkLoad(NotesSchema(), failing), std::runtime_error);

  EXPECT_EQ(QueryRows(*warehouse, "SELECT id, body FROM notes"),
            (std::vector<std::vector<SqlValue>>{{int64_t{1}, std::string("kept")}}));
  EXPECT_EQ(QueryInt(*warehouse, "SELECT 9"), 9);
}

TEST_P(WarehouseBulkLoad, ManyRowsLoadAndIndexesAreCreated) {
  auto warehouse = OpenWarehouse();
  TableSchema schema{.name = "numbers",
                     .columns = {{"n", DataType::kInteger}, {"bucket", DataType::kText}},
                     .primary_key = {"n"}};
  int64_t next = 0;
  engine::warehouse::RowSource source = [&](std::vector<SqlValue>& row) {
    if (next == 50000) return false;
    ++next;
    row[0] = next;
    row[1] = "b" + std::to_string(next % 7);
    return true;
  };

  warehouse->BulkLoad(schema, source, {"bucket"});

  EXPECT_EQ(QueryInt(*warehouse, "SELECT count(*) FROM numbers"), 50000);
  EXPECT_EQ(QueryInt(*warehouse, "SELECT count(*) FROM numbers WHERE bucket = 'b3'"), 7143);
  std::string index_count =
      is_postgres() ? "SELECT count(*) FROM pg_indexes WHERE indexname = 'numbers_bucket_idx'"
                    : "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = "
                      "'numbers_bucket_idx'";
  EXPECT_EQ(QueryInt(*warehouse, index_count), 1);
}

TEST_P(WarehouseBulkLoad, AnIndexOnAMissingColumnIsInvalidInput) {
  auto warehouse = OpenWarehouse();

  auto error = ErrorFrom([&] { warehouse->BulkLoad(NotesSchema(), RowsFrom({}), {"nope"}); });

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), ErrorCode::kInvalidInput);
}

INSTANTIATE_TEST_SUITE_P(Backends, WarehouseBulkLoad, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
