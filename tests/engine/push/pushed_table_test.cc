// Chunks of a pushed table read into typed cells in the table's column order, every wrong value
// refused naming table, column, row and value; and the four update policies, each with duplicate
// keys among the incoming rows.
#include "engine/push/pushed_table.h"

#include <gtest/gtest.h>

#include "core/base64.h"
#include "core/error.h"

namespace tessera::engine::push {
namespace {

using model::DataType;
using Row = std::vector<Cell>;

const Cell kNull;

push::PushTable Stores() {
  return push::PushTable{"Stores",
                         {{"store_id", DataType::kInteger, "INTEGER"},
                          {"city", DataType::kText, "STRING"},
                          {"sales", DataType::kReal, "DOUBLE"}}};
}

// A one-column table of the given type, for value tests.
push::PushTable OneColumn(DataType type, const std::string& type_name) {
  return push::PushTable{"T", {{"v", type, type_name}}};
}

// The cell one JSON value becomes in a one-column table.
Cell ValueOf(DataType type, const std::string& type_name, const std::string& json_value) {
  push::PushedRows rows =
      push::ParseChunk(OneColumn(type, type_name), {"v"}, false, "[[" + json_value + "]]");
  EXPECT_EQ(rows.size(), 1u);
  return rows.at(0).at(0);
}

// The message of the Error(kInvalidInput) that `action` throws, or "" (and a failure) if none.
template <typename Action>
std::string Refusal(Action action) {
  try {
    action();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput) << error.what();
    return std::string(error.message());
  }
  ADD_FAILURE() << "no error";
  return "";
}

std::string ValueRefusal(DataType type, const std::string& type_name,
                         const std::string& json_value) {
  return Refusal([&] { ValueOf(type, type_name, json_value); });
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PushedTableChunk, ReadsRowsInHeaderOrderIntoTableOrder) {
  const push::PushedRows rows = push::ParseChunk(Stores(), {"city", "sales", "store_id"}, false,
                                                 R"([["Oslo", 12.5, 1], ["Bergen", 7, 2]])");
  EXPECT_EQ(rows, (push::PushedRows{{int64_t{1}, std::string("Oslo"), 12.5},
                                    {int64_t{2}, std::string("Bergen"), 7.0}}));
}

TEST(PushedTableChunk, ReadsTheSpecSampleAfterBase64) {
  const auto json = DecodeBase64("W1sxLCJPc2xvIiwxMi41XSxbMiwiQmVyZ2VuIiw3LjBdXQ==");
  ASSERT_TRUE(json);
  const push::PushedRows rows =
      push::ParseChunk(Stores(), {"store_id", "city", "sales"}, false, *json);
  EXPECT_EQ(rows, (push::PushedRows{{int64_t{1}, std::string("Oslo"), 12.5},
                                    {int64_t{2}, std::string("Bergen"), 7.0}}));
}

TEST(PushedTableChunk, ReadsColumnOrientation) {
  const push::PushedRows rows =
      push::ParseChunk(Stores(), {"sales", "store_id", "city"}, true,
                       R"([[12.5, 7.0, null], [1, 2, 3], ["Oslo", "Bergen", "Bodø"]])");
  EXPECT_EQ(rows, (push::PushedRows{{int64_t{1}, std::string("Oslo"), 12.5},
                                    {int64_t{2}, std::string("Bergen"), 7.0},
                                    {int64_t{3}, std::string("Bodø"), kNull}}));
}

TEST(PushedTableChunk, TakesTheTableOrderWithoutHeaders) {
  const push::PushedRows rows = push::ParseChunk(Stores(), {}, false, R"([[1, "Oslo", 12.5]])");
  EXPECT_EQ(rows, (push::PushedRows{{int64_t{1}, std::string("Oslo"), 12.5}}));
}

TEST(PushedTableChunk, LeavesColumnsTheHeadersOmitNull) {
  const push::PushedRows rows =
      push::ParseChunk(Stores(), {"sales", "store_id"}, false, "[[1.5, 4]]");
  EXPECT_EQ(rows, (push::PushedRows{{int64_t{4}, kNull, 1.5}}));
  const push::PushedRows columns =
      push::ParseChunk(Stores(), {"city"}, true, R"([["Oslo", "Bergen"]])");
  EXPECT_EQ(columns, (push::PushedRows{{kNull, std::string("Oslo"), kNull},
                                       {kNull, std::string("Bergen"), kNull}}));
}

TEST(PushedTableChunk, ReadsAnEmptyChunkAsNoRows) {
  EXPECT_TRUE(push::ParseChunk(Stores(), {}, false, "[]").empty());
  EXPECT_TRUE(push::ParseChunk(Stores(), {}, true, "[]").empty());
  EXPECT_TRUE(push::ParseChunk(Stores(), {}, true, "[[], [], []]").empty());
}

TEST(PushedTableChunk, RefusesUnknownAndRepeatedHeaders) {
  EXPECT_EQ(Refusal([] {
              push::ParseChunk(Stores(), {"store_id", "town"}, false, "[]");
            }),
            "columnHeaders: table 'Stores' has no column 'town'; its columns are 'store_id', "
            "'city', 'sales'");
  EXPECT_TRUE(Contains(Refusal([] {
                         push::ParseChunk(Stores(), {"city", "city"}, false, "[]");
                       }),
                       "column 'city' of table 'Stores' is named twice"));
}

TEST(PushedTableChunk, NamesTableColumnRowAndValueOfAWrongValue) {
  EXPECT_EQ(Refusal([] {
              push::ParseChunk(Stores(), {"store_id", "city", "sales"}, false,
                               R"([[1, "Oslo", 1.5], [2, "Bergen", 2.5], [3.5, "Bodø", 1]])");
            }),
            "table 'Stores', column 'store_id', row 3: 3.5 is not an integer between "
            "-9223372036854775808 and 9223372036854775807 (INTEGER)");
  EXPECT_EQ(
      Refusal([] {
        push::ParseChunk(Stores(), {"sales", "city"}, true, R"([[1.5, "x"], ["Oslo", "Bergen"]])");
      }),
      "table 'Stores', column 'sales', row 2: \"x\" is not a number (DOUBLE)");
}

TEST(PushedTableChunk, ReadsIntegers) {
  EXPECT_EQ(ValueOf(DataType::kInteger, "INTEGER", "12"), Cell(int64_t{12}));
  EXPECT_EQ(ValueOf(DataType::kInteger, "BIGINTEGER", "-9223372036854775808"), Cell(INT64_MIN));
  EXPECT_EQ(ValueOf(DataType::kInteger, "INTEGER", "9223372036854775807"), Cell(INT64_MAX));
  EXPECT_EQ(ValueOf(DataType::kInteger, "INTEGER", "12.0"), Cell(int64_t{12}));
  EXPECT_EQ(ValueOf(DataType::kInteger, "INTEGER", "1e3"), Cell(int64_t{1000}));
  EXPECT_EQ(ValueOf(DataType::kInteger, "INTEGER", "\"-7\""), Cell(int64_t{-7}));
  EXPECT_EQ(ValueOf(DataType::kInteger, "INTEGER", "null"), kNull);
}

TEST(PushedTableChunk, RefusesIntegersOutOfRangeOrOfAnotherType) {
  for (const char* bad :
       {"9223372036854775808", "-9223372036854775809", "1e19", "12.5", "\"12x\"", "\"\"", "true"}) {
    EXPECT_TRUE(
        Contains(ValueRefusal(DataType::kInteger, "BIGINTEGER", bad), "is not an integer between"))
        << bad;
  }
  EXPECT_TRUE(Contains(ValueRefusal(DataType::kInteger, "INTEGER", "9223372036854775808"),
                       "row 1: 9223372036854775808 is not"));
}

TEST(PushedTableChunk, ReadsReals) {
  EXPECT_EQ(ValueOf(DataType::kReal, "DOUBLE", "2.5"), Cell(2.5));
  EXPECT_EQ(ValueOf(DataType::kReal, "DOUBLE", "3"), Cell(3.0));
  EXPECT_EQ(ValueOf(DataType::kReal, "BIGDECIMAL", "18446744073709551615"),
            Cell(18446744073709551615.0));
  EXPECT_EQ(ValueOf(DataType::kReal, "DOUBLE", "\"1e3\""), Cell(1000.0));
  for (const char* bad : {"true", "\"abc\"", "\"inf\"", "\"\""}) {
    EXPECT_TRUE(Contains(ValueRefusal(DataType::kReal, "DOUBLE", bad), "is not a number")) << bad;
  }
}

TEST(PushedTableChunk, ReadsBooleansAsZeroAndOne) {
  EXPECT_EQ(ValueOf(DataType::kBoolean, "BOOLEAN", "true"), Cell(int64_t{1}));
  EXPECT_EQ(ValueOf(DataType::kBoolean, "BOOL", "false"), Cell(int64_t{0}));
  EXPECT_EQ(ValueOf(DataType::kBoolean, "BOOL", "1"), Cell(int64_t{1}));
  EXPECT_EQ(ValueOf(DataType::kBoolean, "BOOL", "\"False\""), Cell(int64_t{0}));
  for (const char* bad : {"2", "0.5", "\"yes\"", "-1"}) {
    EXPECT_TRUE(Contains(ValueRefusal(DataType::kBoolean, "BOOL", bad), "is not true or false"))
        << bad;
  }
}

TEST(PushedTableChunk, ReadsStringsAndKeepsNumbersAsTheirText) {
  EXPECT_EQ(ValueOf(DataType::kText, "STRING", "\"Oslo\""), Cell(std::string("Oslo")));
  EXPECT_EQ(ValueOf(DataType::kText, "STRING", "12"), Cell(std::string("12")));
  EXPECT_EQ(ValueOf(DataType::kText, "STRING", "12.50"), Cell(std::string("12.50")));
  EXPECT_EQ(ValueOf(DataType::kText, "STRING", "true"), Cell(std::string("true")));
  EXPECT_EQ(ValueOf(DataType::kText, "STRING", "\"\""), Cell(std::string("")));
}

TEST(PushedTableChunk, ReadsDatesAndDropsTheTimePandasAdds) {
  EXPECT_EQ(ValueOf(DataType::kDate, "DATE", "\"2024-05-01\""), Cell(std::string("2024-05-01")));
  EXPECT_EQ(ValueOf(DataType::kDate, "DATE", "\"2024-05-01T00:00:00.000\""),
            Cell(std::string("2024-05-01")));
  EXPECT_EQ(ValueOf(DataType::kDate, "DATE", "\"2024-02-29\""), Cell(std::string("2024-02-29")));
  for (const char* bad : {"\"2023-02-29\"", "\"2024-13-01\"", "\"2024-04-31\"", "\"05/01/2024\"",
                          "\"2024-5-1\"", "20240501", "\"2024-05-01T25:00:00\""}) {
    EXPECT_TRUE(Contains(ValueRefusal(DataType::kDate, "DATE", bad), "is not a date")) << bad;
  }
}

TEST(PushedTableChunk, ReadsDatetimesIntoOneSortableText) {
  EXPECT_EQ(ValueOf(DataType::kDateTime, "DATETIME", "\"2024-05-01T13:45:00.000\""),
            Cell(std::string("2024-05-01 13:45:00")));
  EXPECT_EQ(ValueOf(DataType::kDateTime, "DATETIME", "\"2024-05-01 13:45:00.5\""),
            Cell(std::string("2024-05-01 13:45:00.500")));
  EXPECT_EQ(ValueOf(DataType::kDateTime, "DATETIME", "\"2024-05-01T13:45:07.123456Z\""),
            Cell(std::string("2024-05-01 13:45:07.123")));
  EXPECT_EQ(ValueOf(DataType::kDateTime, "DATETIME", "\"2024-05-01\""),
            Cell(std::string("2024-05-01 00:00:00")));
  for (const char* bad :
       {"\"2024-05-01T13:45\"", "\"2024-05-01T24:00:00\"", "\"2024-05-01T13:60:00\"",
        "\"2024-05-01T13:45:00+02:00\"", "\"2024-05-01T13:45:00.\"", "1714571100000"}) {
    EXPECT_TRUE(Contains(ValueRefusal(DataType::kDateTime, "DATETIME", bad), "is not a datetime"))
        << bad;
  }
}

TEST(PushedTableChunk, ReadsTimesAsText) {
  EXPECT_EQ(ValueOf(DataType::kText, "TIME", "\"13:45:00\""), Cell(std::string("13:45:00")));
  EXPECT_EQ(ValueOf(DataType::kText, "TIME", "\"13:45:00.250\""),
            Cell(std::string("13:45:00.250")));
  for (const char* bad : {"\"25:00:00\"", "\"13:45\"", "\"1:45:00\"", "\"13:45:00 PM\"", "5"}) {
    EXPECT_TRUE(Contains(ValueRefusal(DataType::kText, "TIME", bad), "is not a time")) << bad;
  }
}

TEST(PushedTableChunk, RefusesRowsOfTheWrongLength) {
  EXPECT_EQ(Refusal([] {
              push::ParseChunk(Stores(), {}, false, R"([[1, "Oslo", 1.5], [2, "Bergen"]])");
            }),
            "table 'Stores', row 2: 2 values; 3 are expected");
  EXPECT_EQ(Refusal([] { push::ParseChunk(Stores(), {}, false, R"([[1, "Oslo", 1.5, 9]])"); }),
            "table 'Stores', row 1: more than 3 values");
}

TEST(PushedTableChunk, RefusesColumnsOfUnequalLengthOrNumber) {
  EXPECT_TRUE(
      Contains(Refusal([] { push::ParseChunk(Stores(), {}, true, R"([[1, 2], ["a"], [1, 2]])"); }),
               "column 'city': 1 values; the first column has 2"));
  EXPECT_TRUE(
      Contains(Refusal([] { push::ParseChunk(Stores(), {}, true, R"([[1], ["a"], [1], [2]])"); }),
               "the chunk has more than 3 columns"));
  EXPECT_TRUE(Contains(Refusal([] { push::ParseChunk(Stores(), {}, true, R"([[1], ["a"]])"); }),
                       "the chunk has 2 columns; 3 are expected"));
}

TEST(PushedTableChunk, RefusesMalformedJsonAndOtherShapes) {
  EXPECT_TRUE(
      Contains(Refusal([] { push::ParseChunk(Stores(), {}, false, R"([[1, "Oslo", 1.5])"); }),
               "table 'Stores': the chunk is not valid JSON"));
  EXPECT_TRUE(
      Contains(Refusal([] { push::ParseChunk(Stores(), {}, false, ""); }), "not valid JSON"));
  EXPECT_TRUE(
      Contains(Refusal([] { push::ParseChunk(Stores(), {}, false, "[] []"); }), "not valid JSON"));
  EXPECT_TRUE(Contains(Refusal([] { push::ParseChunk(Stores(), {}, false, R"({"rows": []})"); }),
                       "the chunk must be a JSON array of rows"));
  EXPECT_TRUE(Contains(Refusal([] {
                         push::ParseChunk(Stores(), {}, false,
                                          R"([{"store_id": 1, "city": "Oslo"}])");
                       }),
                       "row 1: expected an array of values; got an object"));
  EXPECT_TRUE(Contains(Refusal([] { push::ParseChunk(Stores(), {}, false, "[1, 2]"); }),
                       "row 1: expected an array of values; got the value 1"));
  EXPECT_TRUE(
      Contains(Refusal([] { push::ParseChunk(Stores(), {}, false, R"([[[1], "Oslo", 1.5]])"); }),
               "column 'store_id', row 1: expected a value; got an array"));
}

TEST(PushedTableChunk, ReadsEscapesUnicodeAndWhiteSpaceAnywhere) {
  const std::string chunk =
      " [\n [ 1 ,\t\"say \\\"hi\\\"\\/\\n\" , 2.5 ] ,\r\n"
      "[2,\"caf\\u00e9 \\ud83d\\ude00\",-0.25],"
      "[3,\"Z\xC3\xBCrich\",null] ] ";
  push::PushedRows rows = push::ParseChunk(Stores(), {}, false, chunk);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (Row{int64_t{1}, std::string("say \"hi\"/\n"), 2.5}));
  EXPECT_EQ(rows[1], (Row{int64_t{2}, std::string("caf\xC3\xA9 \xF0\x9F\x98\x80"), -0.25}));
  EXPECT_EQ(rows[2], (Row{int64_t{3}, std::string("Z\xC3\xBCrich"), kNull}));
}

// A chunk whose text opens with a byte order mark is read by the JSON library rather than the
// scanner that reads plain chunks; the rows must not depend on which one reads them.
TEST(PushedTableChunk, ReadsTheSameRowsWhicheverReaderTakesTheChunk) {
  const push::PushTable table{"T",
                              {{"id", DataType::kInteger, "INTEGER"},
                               {"name", DataType::kText, "STRING"},
                               {"day", DataType::kDate, "DATE"},
                               {"price", DataType::kReal, "DOUBLE"},
                               {"flag", DataType::kBoolean, "BOOL"}}};
  const std::string chunk =
      R"([[1,"a name longer than the short string buffer","2024-02-29",2.5,true],)"
      R"([9223372036854775807,"café","2024-05-01T00:00:00",3,"false"],)"
      R"([-7,12.50,"1999-12-31",-0.1e-3,0],)"
      R"([null,"",null,"1e3",null]])";
  const push::PushedRows scanned = push::ParseChunk(table, {}, false, chunk);
  const push::PushedRows by_library = push::ParseChunk(table, {}, false, "\xEF\xBB\xBF" + chunk);
  EXPECT_EQ(scanned, by_library);
  ASSERT_EQ(scanned.size(), 4u);
  EXPECT_EQ(scanned[0][1], Cell(std::string("a name longer than the short string buffer")));
  EXPECT_EQ(scanned[1][2], Cell(std::string("2024-05-01")));
  EXPECT_EQ(scanned[2][1], Cell(std::string("12.50")));
  EXPECT_EQ(scanned[2][3], Cell(-0.0001));
}

TEST(PushedTableChunk, KeepsEveryNumberOfATextColumnAsWritten) {
  push::PushedRows rows = push::ParseChunk(OneColumn(DataType::kText, "STRING"), {}, false,
                                           "[[12.50],[1e3],[-7],[7],[-0],[true]]");
  ASSERT_EQ(rows.size(), 6u);
  const char* expected[] = {"12.50", "1e3", "-7", "7", "0", "true"};
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], (Row{std::string(expected[i])}));
}

TEST(PushedTableChunk, NamesTheFirstFaultWhetherAValueOrTheJson) {
  // A wrong value before malformed JSON is the fault named, and the other way round.
  EXPECT_EQ(Refusal([] {
              push::ParseChunk(Stores(), {}, false, R"([[1,"Oslo",1.5],[2,"Oslo","x"],[3,)");
            }),
            "table 'Stores', column 'sales', row 2: \"x\" is not a number (DOUBLE)");
  EXPECT_TRUE(Contains(Refusal([] {
                         push::ParseChunk(Stores(), {}, false,
                                          R"([[1,"Oslo",1.5],[2,"Oslo",01],[3,"Oslo","x"]])");
                       }),
                       "table 'Stores': the chunk is not valid JSON"));
  EXPECT_TRUE(Contains(Refusal([] { push::ParseChunk(Stores(), {}, false, "[[1,\"\xC3\",1.5]]"); }),
                       "table 'Stores': the chunk is not valid JSON"));
  EXPECT_TRUE(
      Contains(Refusal([] { push::ParseChunk(Stores(), {}, false, R"([[1,"Oslo",1e999]])"); }),
               "table 'Stores': the chunk is not valid JSON"));
}

TEST(PushedTableChunk, CheckingAChunkRefusesWhatParsingRefusesWithTheSameMessage) {
  const std::string chunks[] = {R"([[1,"Oslo",1.5],[2,"Bergen","x"]])", R"([[1,"Oslo"]])",
                                R"([[1,"Oslo",1.5])", R"({"rows": []})"};
  for (const std::string& chunk : chunks) {
    EXPECT_EQ(Refusal([&] { push::CheckChunk(Stores(), {}, false, chunk); }),
              Refusal([&] { push::ParseChunk(Stores(), {}, false, chunk); }))
        << chunk;
  }
  EXPECT_EQ(Refusal([] { push::CheckChunk(Stores(), {"nowhere"}, false, "[]"); }),
            Refusal([] { push::ParseChunk(Stores(), {"nowhere"}, false, "[]"); }));
  EXPECT_EQ(Refusal([] { push::CheckChunk(Stores(), {}, true, R"([[1,2],["a"],[1.5,2.5]])"); }),
            "table 'Stores', column 'city': 1 values; the first column has 2");
  EXPECT_NO_THROW(push::CheckChunk(Stores(), {}, false, R"([[1,"Oslo",1.5],[2,null,7]])"));
  EXPECT_NO_THROW(push::CheckChunk(Stores(), {}, true, R"([[1,2],["a","b"],[1.5,2.5]])"));
}

// Checking converts no value: for every column type it must still accept exactly the values
// parsing accepts, and refuse the others with the same message.
TEST(PushedTableChunk, CheckingAcceptsEveryValueParsingAcceptsForEveryType) {
  const std::pair<DataType, std::string> types[] = {
      {DataType::kInteger, "INTEGER"}, {DataType::kInteger, "BIGINTEGER"},
      {DataType::kReal, "DOUBLE"},     {DataType::kReal, "BIGDECIMAL"},
      {DataType::kBoolean, "BOOL"},    {DataType::kText, "STRING"},
      {DataType::kDate, "DATE"},       {DataType::kDateTime, "DATETIME"},
      {DataType::kText, "TIME"}};
  const std::string values[] = {"null",
                                "12",
                                "-3",
                                "18446744073709551615",
                                "12.0",
                                "12.5",
                                "1e3",
                                "true",
                                "false",
                                "0",
                                "1",
                                R"("12")",
                                R"("12.5")",
                                R"("x")",
                                R"("")",
                                R"("True")",
                                R"("2024-05-01")",
                                R"("2023-02-29")",
                                R"("2024-05-01T10:20:30.123Z")",
                                R"("2024-05-01 10:20:30")",
                                R"("2024-13-01")",
                                R"("10:20:30")",
                                R"("10:20:30.5")",
                                R"("25:00:00")",
                                R"("10:61:00")"};
  for (const auto& [type, type_name] : types) {
    const push::PushTable table = OneColumn(type, type_name);
    for (const std::string& value : values) {
      const std::string chunk = "[[" + value + "]]";
      std::string parsed_refusal;
      try {
        push::ParseChunk(table, {"v"}, false, chunk);
      } catch (const Error& error) {
        parsed_refusal = error.message();
      }
      std::string checked_refusal;
      try {
        push::CheckChunk(table, {"v"}, false, chunk);
      } catch (const Error& error) {
        checked_refusal = error.message();
      }
      EXPECT_EQ(checked_refusal, parsed_refusal) << type_name << " " << value;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Update policies. Rows are (key, name, amount); the key is column 0.

Row R(int64_t key, const std::string& name, double amount) { return Row{key, name, amount}; }

const std::vector<size_t> kKey = {0};

push::PushedRows Existing() { return {R(1, "a", 10), R(2, "b", 20)}; }

// Key 2 exists; key 3 is new; both appear twice, the first of each must win.
push::PushedRows Incoming() {
  return {R(2, "B", 21), R(3, "c", 30), R(3, "C", 31), R(2, "BB", 22)};
}

TEST(PushedTablePolicy, ReplaceKeepsExactlyTheIncomingRows) {
  EXPECT_EQ(push::ApplyUpdatePolicy(push::UpdatePolicy::kReplace, Existing(), Incoming(), kKey),
            Incoming());
}

TEST(PushedTablePolicy, AddAppendsOnlyTheFirstRowOfEachNewKey) {
  EXPECT_EQ(push::ApplyUpdatePolicy(push::UpdatePolicy::kAdd, Existing(), Incoming(), kKey),
            (push::PushedRows{R(1, "a", 10), R(2, "b", 20), R(3, "c", 30)}));
}

TEST(PushedTablePolicy, UpdateReplacesExistingKeysWithTheFirstIncomingRowAndIgnoresNewKeys) {
  EXPECT_EQ(push::ApplyUpdatePolicy(push::UpdatePolicy::kUpdate, Existing(), Incoming(), kKey),
            (push::PushedRows{R(1, "a", 10), R(2, "B", 21)}));
}

TEST(PushedTablePolicy, UpsertUpdatesThenAdds) {
  EXPECT_EQ(push::ApplyUpdatePolicy(push::UpdatePolicy::kUpsert, Existing(), Incoming(), kKey),
            (push::PushedRows{R(1, "a", 10), R(2, "B", 21), R(3, "c", 30)}));
}

TEST(PushedTablePolicy, UpdateChangesEveryExistingRowOfAKey) {
  const push::PushedRows existing = {R(2, "x", 1), R(1, "a", 10), R(2, "y", 2)};
  EXPECT_EQ(push::ApplyUpdatePolicy(push::UpdatePolicy::kUpdate, existing, {R(2, "z", 3)}, kKey),
            (push::PushedRows{R(2, "z", 3), R(1, "a", 10), R(2, "z", 3)}));
}

TEST(PushedTablePolicy, AddIntoAnEmptyTableDropsDuplicateKeys) {
  EXPECT_EQ(push::ApplyUpdatePolicy(push::UpdatePolicy::kAdd, {}, Incoming(), kKey),
            (push::PushedRows{R(2, "B", 21), R(3, "c", 30)}));
}

TEST(PushedTablePolicy, KeysOfSeveralColumnsCompareEveryColumnAndNullsAreEqual) {
  const push::PushedRows existing = {Row{int64_t{1}, kNull, 1.0},
                                     Row{int64_t{1}, std::string("x"), 2.0}};
  const push::PushedRows incoming = {Row{int64_t{1}, kNull, 5.0},
                                     Row{int64_t{1}, std::string("y"), 6.0}};
  EXPECT_EQ(push::ApplyUpdatePolicy(push::UpdatePolicy::kUpsert, existing, incoming, {0, 1}),
            (push::PushedRows{Row{int64_t{1}, kNull, 5.0}, Row{int64_t{1}, std::string("x"), 2.0},
                              Row{int64_t{1}, std::string("y"), 6.0}}));
}

TEST(PushedTablePolicy, WithoutKeyColumnsTheWholeRowIsTheKey) {
  const push::PushedRows incoming = {R(1, "a", 10), R(1, "a", 11), R(1, "a", 11)};
  EXPECT_EQ(push::ApplyUpdatePolicy(push::UpdatePolicy::kAdd, Existing(), incoming, {}),
            (push::PushedRows{R(1, "a", 10), R(2, "b", 20), R(1, "a", 11)}));
}

TEST(PushedTablePolicy, ParsesPolicyNamesCaseInsensitively) {
  EXPECT_EQ(push::ParseUpdatePolicy("replace"), push::UpdatePolicy::kReplace);
  EXPECT_EQ(push::ParseUpdatePolicy("Add"), push::UpdatePolicy::kAdd);
  EXPECT_EQ(push::ParseUpdatePolicy("UPDATE"), push::UpdatePolicy::kUpdate);
  EXPECT_EQ(push::ParseUpdatePolicy("upSert"), push::UpdatePolicy::kUpsert);
  EXPECT_EQ(push::UpdatePolicyName(push::UpdatePolicy::kUpsert), "upsert");
  EXPECT_EQ(Refusal([] { push::ParseUpdatePolicy("merge"); }),
            "updatePolicy: 'merge' is not an update policy; expected one of add, update, upsert, "
            "replace");
  EXPECT_TRUE(Contains(Refusal([] { push::ParseUpdatePolicy(""); }), "is not an update policy"));
}

}  // namespace
}  // namespace tessera::engine::push
