#include "core/sql_placeholders.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(PostgresPlaceholders, QuestionMarksBecomeNumberedParameters) {
  EXPECT_EQ(NumberPostgresPlaceholders("SELECT a FROM t WHERE b = ? AND c IN (?, ?)"),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)");
}

TEST(PostgresPlaceholders, QuestionMarksInsideLiteralsAndIdentifiersStay) {
  EXPECT_EQ(NumberPostgresPlaceholders(R"(SELECT '?', 'it''s ?', "col?" FROM t WHERE x = ?)"),
            R"(SELECT '?', 'it''s ?', "col?" FROM t WHERE x = $1)");
}

TEST(PostgresPlaceholders, AreNumberedOutsideQuotesOnly) {
  EXPECT_EQ(NumberPostgresPlaceholders("SELECT ? , '?', \"a?\" WHERE x = ? AND y = 'it''s?'"),
            "SELECT $1 , '?', \"a?\" WHERE x = $2 AND y = 'it''s?'");
}

}  // namespace
}  // namespace tessera
