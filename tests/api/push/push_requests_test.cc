// The bodies of the push API read into the push service's requests: upload sessions, chunks, the
// single-request dataset and its table updates, and the refusals that name the member before
// any dataset is looked at.
#include "api/push/push_requests.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base64.h"
#include "core/error.h"

namespace tessera::api {
namespace {

// The error `call` throws (nullopt when it throws none).
template <class Call>
std::optional<Error> ErrorOf(Call call) {
  try {
    call();
  } catch (const Error& error) {
    return error;
  }
  return std::nullopt;
}

template <class Call>
void ExpectRefused(ErrorCode code, const std::string& message, Call call) {
  const std::optional<Error> error = ErrorOf(call);
  ASSERT_TRUE(error) << message << ": accepted";
  EXPECT_EQ(error->code(), code) << error->message();
  EXPECT_EQ(error->message(), message);
}

Json Chunk(const Json& index, const std::string& rows) {
  return {{"tableName", "sales"}, {"index", index}, {"data", EncodeBase64(rows)}};
}

TEST(PushRequests, AnUploadSessionListsItsTablesWithPolicyHeadersAndOrientation) {
  const service::push::OpenSessionRequest request =
      push::ParseOpenSessionRequest(Json::parse(R"({"tables": [
      {"name": "sales", "updatePolicy": "Upsert", "columnHeaders": ["a", {"name": "b"}],
       "orientation": "column"},
      {"name": "stores", "updatePolicy": "add", "columnHeaders": null}]})"));
  ASSERT_EQ(request.tables.size(), 2u);
  EXPECT_EQ(request.tables[0].name, "sales");
  EXPECT_EQ(request.tables[0].policy, engine::push::UpdatePolicy::kUpsert);
  EXPECT_EQ(request.tables[0].column_headers, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(request.tables[0].column_orientation);
  EXPECT_EQ(request.tables[1].policy, engine::push::UpdatePolicy::kAdd);
  EXPECT_TRUE(request.tables[1].column_headers.empty());
  EXPECT_FALSE(request.tables[1].column_orientation);
}

TEST(PushRequests, AnUploadSessionOfNoTableOrOfATableTwiceIsRefused) {
  ExpectRefused(ErrorCode::kMissingField, "body.tables: required field is missing",
                [] { push::ParseOpenSessionRequest(Json::object()); });
  ExpectRefused(ErrorCode::kInvalidInput, "body.tables: name at least one table to upload",
                [] { push::ParseOpenSessionRequest(Json::parse(R"({"tables": []})")); });
  ExpectRefused(ErrorCode::kInvalidInput, "body.tables[1].name: table 'sales' is listed twice", [] {
    push::ParseOpenSessionRequest(
        Json::parse(R"({"tables": [{"name": "sales", "updatePolicy": "add"},
                                                       {"name": "sales", "updatePolicy": "add"}]})"));
  });
  ExpectRefused(ErrorCode::kInvalidInput, "body.tables[0].orientation: expected ROW or COLUMN", [] {
    push::ParseOpenSessionRequest(Json::parse(
        R"({"tables": [{"name": "sales", "updatePolicy": "add", "orientation": "diagonal"}]})"));
  });
  const std::optional<Error> policy = ErrorOf([] {
    push::ParseOpenSessionRequest(
        Json::parse(R"({"tables": [{"name": "sales", "updatePolicy": "merge"}]})"));
  });
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->code(), ErrorCode::kInvalidInput);
}

TEST(PushRequests, AChunkIndexIsANumberOrItsTextAndItsDataIsDecoded) {
  const service::push::ChunkRequest numbered = push::ParseChunkRequest(Chunk(2, "[[1]]"));
  EXPECT_EQ(numbered.table_name, "sales");
  EXPECT_EQ(numbered.index, 2);
  EXPECT_EQ(numbered.rows_json, "[[1]]");
  EXPECT_EQ(push::ParseChunkRequest(Chunk("3", "[]")).index, 3);
}

TEST(PushRequests, AChunkWithoutAnIndexOfOneOrMoreOrWithoutBase64DataIsRefused) {
  const std::string index_message =
      "body.index: expected an integer of 1 or more (chunks count from 1)";
  ExpectRefused(ErrorCode::kInvalidInput, index_message,
                [] { push::ParseChunkRequest(Chunk(0, "[]")); });
  ExpectRefused(ErrorCode::kInvalidInput, index_message,
                [] { push::ParseChunkRequest(Chunk("1x", "[]")); });
  ExpectRefused(ErrorCode::kInvalidInput, "body.data: not valid base64", [] {
    push::ParseChunkRequest({{"tableName", "sales"}, {"index", 1}, {"data", "@@not base64@@"}});
  });
  ExpectRefused(ErrorCode::kMissingField, "body.data: required field is missing", [] {
    push::ParseChunkRequest({{"tableName", "sales"}, {"index", 1}});
  });
  ExpectRefused(ErrorCode::kMissingField, "body.tableName: required field is missing", [] {
    push::ParseChunkRequest({{"index", 1}, {"data", ""}});
  });
}

TEST(PushRequests, APlainChunkBodyReadsAsTheFullReaderReadsIt) {
  const std::string bodies[] = {
      Chunk(2, R"([[1,"Oslo",12.5]])").dump(),
      Chunk("3", "[]").dump(),
      " {\n \"data\" : \"" + EncodeBase64("[[1]]") + "\" ,\"index\":1,\"tableName\":\"s\\u00e9\"," +
          "\"extra\": 7} ",
  };
  for (const std::string& body : bodies) {
    const std::optional<service::push::ChunkRequest> plain = push::ReadPlainChunkRequest(body);
    ASSERT_TRUE(plain) << body;
    const service::push::ChunkRequest full = push::ParseChunkRequest(ParseJson(body));
    EXPECT_EQ(plain->table_name, full.table_name) << body;
    EXPECT_EQ(plain->index, full.index) << body;
    EXPECT_EQ(plain->rows_json, full.rows_json) << body;
  }
  EXPECT_EQ(push::ReadPlainChunkRequest(bodies[2])->table_name, "s\xC3\xA9");
}

TEST(PushRequests, AChunkBodyThatIsNotPlainIsLeftToTheFullReader) {
  const std::string bodies[] = {
      "",
      "[]",
      Chunk(0, "[]").dump(),
      Chunk("1x", "[]").dump(),
      Chunk(1.0, "[]").dump(),
      Chunk(-1, "[]").dump(),
      Chunk("9223372036854775808", "[]").dump(),
      R"({"tableName":"sales","index":1,"data":"@@not base64@@"})",
      R"({"tableName":"sales","index":1})",
      R"({"tableName":7,"index":1,"data":""})",
      R"({"tableName":"sales","index":1,"data":"","extra":{"nested":true}})",
      R"({"tableName":"sales","index":1,"index":2,"data":""})",
      R"({"tableName":"sales","index":1,"data":""} trailing)",
      R"({"tableName":"sales","index":1,"data":"",})",
      "{\"tableName\":\"sales\",\"index\":1,\"data\":\"\" ",
  };
  for (const std::string& body : bodies) {
    EXPECT_EQ(push::ReadPlainChunkRequest(body).has_value(), false) << body;
  }
}

Json SingleBody(const std::string& records) {
  return {
      {"name", "Quick"},
      {"tables",
       {{{"name", "T"},
         {"columnHeaders",
          {{{"name", "city"}, {"dataType", "STRING"}},
           {{"name", "amount"}, {"dataType", "DOUBLE"}}}},
         {"data", EncodeBase64(records)}}}},
      {"attributes",
       {{{"name", "City"},
         {"attributeForms", {{{"category", "ID"}, {"expressions", {{{"formula", "T.city"}}}}}}}}}},
      {"metrics", {{{"name", "Amount"}, {"expressions", {{{"formula", "T.amount"}}}}}}}};
}

TEST(PushRequests, TheSingleRequestApiNamesColumnsAsTableDotColumn) {
  const service::push::SingleDatasetRequest request = push::ParseSingleDatasetRequest(
      SingleBody(R"([{"city": "Oslo", "amount": 1.5}, ["Bergen", 2]])"));
  EXPECT_EQ(request.model.name, "Quick");
  ASSERT_EQ(request.model.tables.size(), 1u);
  EXPECT_EQ(request.model.tables[0].name, "T");
  ASSERT_EQ(request.model.attributes.size(), 1u);
  ASSERT_EQ(request.model.attributes[0].forms.size(), 1u);
  EXPECT_EQ(request.model.attributes[0].forms[0].expressions,
            (std::vector<engine::push::PushExpression>{{"T", "city"}}));
  ASSERT_EQ(request.model.metrics.size(), 1u);
  EXPECT_EQ(request.model.metrics[0].expressions,
            (std::vector<engine::push::PushExpression>{{"T", "amount"}}));
  EXPECT_EQ(request.records, Json::parse(R"([{"city": "Oslo", "amount": 1.5}, ["Bergen", 2]])"));
}

TEST(PushRequests, ASingleRequestOfAFormulaOutsideItsTableOrOfBadRecordsIsRefused) {
  Json outside = SingleBody("[]");
  outside["metrics"][0]["expressions"][0]["formula"] = "U.amount";
  ExpectRefused(ErrorCode::kInvalidInput,
                "body.metrics[0].expressions[0].formula: 'U.amount' does not name a column as "
                "TABLE.COLUMN",
                [&] { push::ParseSingleDatasetRequest(outside); });
  Json two_tables = SingleBody("[]");
  two_tables["tables"].push_back(two_tables["tables"][0]);
  ExpectRefused(ErrorCode::kInvalidInput,
                "body.tables: the single-request API takes exactly one table",
                [&] { push::ParseSingleDatasetRequest(two_tables); });
  ExpectRefused(ErrorCode::kInvalidInput, "data: expected a JSON array of records",
                [] { push::ParseSingleDatasetRequest(SingleBody(R"({"city": "Oslo"})")); });
  ExpectRefused(ErrorCode::kInvalidInput, "data: record 2 is not a JSON object",
                [] { push::ParseSingleDatasetRequest(SingleBody(R"([{"city": "Oslo"}, 3])")); });
}

TEST(PushRequests, ATableUpdateTakesOptionalColumnHeadersAndRecords) {
  const service::push::TableRowsRequest named =
      push::ParseTableRowsRequest({{"columnHeaders", {"amount", {{"name", "city"}}}},
                                   {"data", EncodeBase64("[[1, \"Oslo\"]]")}});
  EXPECT_EQ(named.column_headers, (std::vector<std::string>{"amount", "city"}));
  EXPECT_EQ(named.records, Json::parse(R"([[1, "Oslo"]])"));
  EXPECT_TRUE(push::ParseTableRowsRequest({{"data", EncodeBase64("[]")}}).column_headers.empty());
  ExpectRefused(ErrorCode::kInvalidInput, "body.columnHeaders: expected column names", [] {
    push::ParseTableRowsRequest({{"columnHeaders", {1}}, {"data", EncodeBase64("[]")}});
  });
}

}  // namespace
}  // namespace tessera::api
