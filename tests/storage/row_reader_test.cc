// A RowReader fills each field from the next cell, converted by the field's type; a null reads as
// 0 or "", and a row with fewer cells than the mapping reads is an error, not a silent default.
#include "storage/row_reader.h"

#include <gtest/gtest.h>

namespace tessera::testing {
namespace {

using storage::RowReader;
using storage::SqlError;
using storage::SqlRow;

TEST(RowReader, FillsEachFieldFromTheNextCellByItsType) {
  SqlRow row = {std::string("abc"),     int64_t{7},
                int64_t{1} << 40,       int64_t{1},
                int64_t{1700000000000}, std::string(R"({"k": [1, 2]})")};
  RowReader cells(row);
  std::string text;
  int small = 0;
  int64_t large = 0;
  bool flag = false;
  Timestamp at{};
  cells.Read(text, small, large, flag, at);
  Json json = cells.JsonText("t.json");

  EXPECT_EQ(text, "abc");
  EXPECT_EQ(small, 7);
  EXPECT_EQ(large, int64_t{1099511627776});
  EXPECT_TRUE(flag);
  EXPECT_EQ(ToUnixMillis(at), 1700000000000);
  EXPECT_EQ(json, Json::parse(R"({"k": [1, 2]})"));
}

TEST(RowReader, ReadsANullAsZeroOrEmpty) {
  SqlRow row = {std::monostate{}, std::monostate{}, std::monostate{}};
  RowReader cells(row);
  std::string text = "before";
  int64_t number = 5;
  bool flag = true;
  cells.Read(text, number, flag);

  EXPECT_EQ(text, "");
  EXPECT_EQ(number, 0);
  EXPECT_FALSE(flag);
}

TEST(RowReader, RefusesToReadPastTheLastCell) {
  SqlRow row = {std::string("only")};
  RowReader cells(row);
  std::string first;
  std::string second;

  EXPECT_THROW(cells.Read(first, second), SqlError);
}

TEST(RowReader, NamesTheColumnOfInvalidJson) {
  SqlRow row = {std::string("{not json")};
  RowReader cells(row);

  try {
    cells.JsonText("jobs.data_json");
    FAIL() << "expected SqlError";
  } catch (const SqlError& error) {
    EXPECT_NE(std::string(error.what()).find("jobs.data_json"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera::testing
