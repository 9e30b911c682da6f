#include "db/postgres.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "db/connect_error.h"
#include "support/test_databases.h"

namespace tessera::db {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A connection to the server TESSERA_TEST_PG names; skipped without one.
class Postgres : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::optional<std::string> url = testing::TestPostgresUrl();
    if (!url) GTEST_SKIP() << "TESSERA_TEST_PG is not set (scripts/with-test-postgres.sh sets it)";
    conn_ = ConnectPostgres(*url, {"tessera-db-test", {}});
    IgnoreNotices(conn_);
  }
  void TearDown() override { PQfinish(conn_); }

  PostgresResult Run(const std::string& sql, const std::vector<Value>& values = {}) {
    const PostgresParameters parameters(values);
    return PostgresResult(PQexecParams(conn_, sql.c_str(), parameters.count(), parameters.types(),
                                       parameters.values(), nullptr, nullptr, 0));
  }

  // The cells of the first row of `result`, numeric columns read as `numeric` says.
  static std::vector<Value> FirstRow(const PGresult* result, NumericColumns numeric) {
    std::vector<Value> row(static_cast<size_t>(PQnfields(result)));
    for (int c = 0; c < PQnfields(result); ++c) {
      ReadPostgresCell(result, 0, c, ColumnKindOf(PQftype(result, c), numeric), row[c]);
    }
    return row;
  }

  PGconn* conn_ = nullptr;
};

TEST_F(Postgres, NumbersGoTypedAndTextGoesUntyped) {
  // Untyped text becomes whatever its use asks for: here a date.
  PostgresResult result =
      Run("SELECT $1 + 1, $2 * 2, $3::date + 1, $4::text IS NULL",
          {int64_t{9007199254740993}, 1.25, std::string("2024-02-28"), std::monostate{}});
  ASSERT_EQ(PQresultStatus(result.get()), PGRES_TUPLES_OK) << PQresultErrorMessage(result.get());
  EXPECT_EQ(
      FirstRow(result.get(), NumericColumns::kAsReal),
      (std::vector<Value>{int64_t{9007199254740994}, 2.5, std::string("2024-02-29"), int64_t{1}}));
}

TEST_F(Postgres, CellsReadByTheirColumnType) {
  PostgresResult result =
      Run("SELECT 7::int2, 8::int4, 9::int8, 0.5::float4, 0.25::float8, false, 'x'::varchar, "
          "NULL::int8");
  ASSERT_EQ(PQresultStatus(result.get()), PGRES_TUPLES_OK) << PQresultErrorMessage(result.get());
  EXPECT_EQ(FirstRow(result.get(), NumericColumns::kAsText),
            (std::vector<Value>{int64_t{7}, int64_t{8}, int64_t{9}, 0.5, 0.25, int64_t{0},
                                std::string("x"), std::monostate{}}));
}

TEST_F(Postgres, NumericColumnsReadAsRealsOrAsTextAsAsked) {
  PostgresResult result = Run("SELECT 12.50::numeric");
  ASSERT_EQ(PQresultStatus(result.get()), PGRES_TUPLES_OK) << PQresultErrorMessage(result.get());
  EXPECT_EQ(FirstRow(result.get(), NumericColumns::kAsReal), std::vector<Value>{12.5});
  EXPECT_EQ(FirstRow(result.get(), NumericColumns::kAsText),
            std::vector<Value>{std::string("12.50")});
}

TEST_F(Postgres, ARefusedStatementLeavesTheConnection) {
  PostgresResult result = Run("SELEKT 1");
  ASSERT_EQ(PQresultStatus(result.get()), PGRES_FATAL_ERROR);
  EXPECT_EQ(SqlStateOf(result.get()), "42601");
  EXPECT_FALSE(IsConnectionLost(conn_, SqlStateOf(result.get())));
}

TEST_F(Postgres, ConnectionExceptionsAndShutdownsLoseTheConnection) {
  for (const char* sqlstate : {"08006", "08003", "57P01", "57P02", "57P03", ""}) {
    EXPECT_TRUE(IsConnectionLost(conn_, sqlstate)) << sqlstate;
  }
  for (const char* sqlstate : {"23505", "40P01", "57014", "42P01"}) {
    EXPECT_FALSE(IsConnectionLost(conn_, sqlstate)) << sqlstate;
  }
}

TEST(PostgresConnect, AServerThatIsNotThereIsAConnectErrorOnOneLine) {
  try {
    PQfinish(ConnectPostgres("postgresql://nobody@127.0.0.1:1/none", {"tessera-db-test", {}}));
    FAIL() << "connected to port 1";
  } catch (const ConnectError& error) {
    const std::string message = error.what();
    EXPECT_THAT(message, HasSubstr("127.0.0.1"));
    EXPECT_THAT(message, Not(HasSubstr("\n")));
  }
}

TEST(PostgresParameters, NullsAreNullPointersAndNumbersTheirShortestText) {
  const PostgresParameters parameters({std::monostate{}, int64_t{-12}, 0.1, std::string("text")});
  ASSERT_EQ(parameters.count(), 4);
  EXPECT_EQ(parameters.values()[0], nullptr);
  EXPECT_STREQ(parameters.values()[1], "-12");
  EXPECT_STREQ(parameters.values()[2], "0.1");
  EXPECT_STREQ(parameters.values()[3], "text");
  EXPECT_EQ(parameters.types()[0], 0u);
  EXPECT_EQ(parameters.types()[1], kInt8Oid);
  EXPECT_EQ(parameters.types()[2], kFloat8Oid);
  EXPECT_EQ(parameters.types()[3], 0u);
}

TEST(OneLine, JoinsLinesAndDropsTheTrailingNewline) {
  EXPECT_EQ(OneLine("ERROR:  syntax error\nLINE 1: SELEKT\n"),
            "ERROR:  syntax error LINE 1: SELEKT");
  EXPECT_EQ(OneLine("a\tb"), "a b");
}

}  // namespace
}  // namespace tessera::db
