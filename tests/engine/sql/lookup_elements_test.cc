// Attribute elements read from lookup tables, against SQL written by hand on the demo warehouse, on
// SQLite and PostgreSQL.
#include "engine/sql/lookup_elements.h"

#include <gtest/gtest.h>

#include "engine/demo_fixture.h"
#include "engine/warehouse_fixture.h"
#include "model/object_types.h"

namespace tessera::testing {
namespace {

using Rows = std::vector<std::vector<std::string>>;

class LookupElements : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    if (!IsBackendConfigured(GetParam())) {
      GTEST_SKIP() << "TESSERA_TEST_PG is not set (scripts/with-test-postgres.sh sets it)";
    }
    model_ = std::make_unique<model::SemanticModel>(DemoModel());
  }

  engine::warehouse::Warehouse& warehouse() { return *SharedDemoWarehouse(GetParam()).warehouse; }

  const model::Attribute& Attribute(const std::string& name) {
    return model_->attribute(*model_->FindByName(model::kTypeAttribute, name));
  }

  engine::sql::LookupElements List(const std::string& name,
                                   const engine::sql::ElementRange& range) {
    return engine::sql::ListLookupElements(warehouse(), *model_, Attribute(name), range);
  }

  Rows Texts(const std::vector<std::vector<engine::warehouse::SqlValue>>& rows) {
    Rows texts;
    for (const auto& row : rows) {
      std::vector<std::string> cells;
      for (const auto& cell : row) cells.push_back(CellText(cell));
      texts.push_back(std::move(cells));
    }
    return texts;
  }

  Rows Query(const std::string& sql) { return Texts(QueryRows(warehouse(), sql)); }

 private:
  std::unique_ptr<model::SemanticModel> model_;
};

TEST_P(LookupElements, ListsEveryFormOfEveryElementInIdOrder) {
  engine::sql::LookupElements cities = List("City", {});
  EXPECT_EQ(Texts(cities.rows), Query("SELECT city_id, city_name FROM lu_city ORDER BY city_id"));
  EXPECT_EQ(cities.total, static_cast<int64_t>(cities.rows.size()));
}

TEST_P(LookupElements, DatesComeAsTextInDateOrder) {
  Rows expected = Query("SELECT day_id FROM lu_day ORDER BY day_id");
  engine::sql::LookupElements days = List("Day", {});
  EXPECT_EQ(Texts(days.rows), expected);
  EXPECT_EQ(expected.front().front().size(), 10u);  // yyyy-MM-dd
}

TEST_P(LookupElements, PagesCutTheOrderedListAndKeepTheTotal) {
  Rows all = Query("SELECT month_id, month_name FROM lu_month ORDER BY month_id");
  const int64_t count = static_cast<int64_t>(all.size());
  engine::sql::LookupElements middle = List("Month", {5, 7});
  EXPECT_EQ(Texts(middle.rows), Rows(all.begin() + 5, all.begin() + 12));
  EXPECT_EQ(middle.total, count);
  engine::sql::LookupElements tail = List("Month", {count - 3, std::nullopt});  // offset only
  EXPECT_EQ(Texts(tail.rows), Rows(all.end() - 3, all.end()));
  EXPECT_TRUE(List("Month", {count + 1, 10}).rows.empty());
  EXPECT_TRUE(List("Month", {0, 0}).rows.empty());
}

TEST_P(LookupElements, TheStatementBindsThePageAndQuotesIdentifiers) {
  engine::warehouse::SqlStatement statement = engine::sql::LookupElementsSql(
      DemoModel(), Attribute("Region"), engine::warehouse::Dialect::kSqlite, {2, 3});
  EXPECT_NE(statement.text.find("\"lu_region\""), std::string::npos);
  ASSERT_EQ(statement.parameters.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(statement.parameters[0]), 3);
  EXPECT_EQ(std::get<int64_t>(statement.parameters[1]), 2);
}

INSTANTIATE_TEST_SUITE_P(Backends, LookupElements, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
