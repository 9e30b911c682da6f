// The model of a pushed dataset: the body the Python client builds is read as written, entries it
// emits once per table are merged, and every malformed part is refused with ERR006 naming it.
#include "engine/push/push_model.h"
#include "engine/push/push_samples.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace tessera::engine::push {
namespace {

using model::DataType;

// A one-table model body.
const char* kStoreSales = R"({
  "name": "Store sales", "description": "", "folderId": "",
  "tables": [{"name": "Stores", "columnHeaders": [{"name": "store_id", "dataType": "INTEGER"},
                                                  {"name": "city", "dataType": "STRING"},
                                                  {"name": "sales", "dataType": "DOUBLE"}]}],
  "metrics": [{"name": "sales", "expressions": [{"tableName": "Stores", "columnName": "sales"}]}],
  "attributes": [
    {"name": "store_id", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "Stores", "columnName": "store_id"}]}]},
    {"name": "city", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "Stores", "columnName": "city"}]}]}]})";

const char* const kTwoTables = tessera::testing::kSalesAndStoresModel;

Json Body(const char* text) { return Json::parse(text); }

// Expects ParsePushModel to refuse `body` with ERR006 and a message containing `part`.
void ExpectRefused(const Json& body, const std::string& part) {
  try {
    push::ParsePushModel(body);
    ADD_FAILURE() << "accepted; expected a refusal mentioning " << part;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput) << error.what();
    EXPECT_NE(std::string(error.message()).find(part), std::string::npos)
        << "message: " << error.message() << "\nexpected to contain: " << part;
  }
}

TEST(PushModel, ReadsTheBodyThePythonClientBuilds) {
  const push::PushModel model = push::ParsePushModel(Body(kStoreSales));

  EXPECT_EQ(model.name, "Store sales");
  EXPECT_EQ(model.folder_id, "");
  ASSERT_EQ(model.tables.size(), 1u);
  EXPECT_EQ(model.tables[0].name, "Stores");
  EXPECT_EQ(model.tables[0].columns,
            (std::vector<push::PushColumn>{{"store_id", DataType::kInteger, "INTEGER"},
                                           {"city", DataType::kText, "STRING"},
                                           {"sales", DataType::kReal, "DOUBLE"}}));
  ASSERT_EQ(model.attributes.size(), 2u);
  EXPECT_EQ(model.attributes[0],
            (push::PushAttribute{"store_id", {push::PushForm{"ID", {{"Stores", "store_id"}}}}}));
  EXPECT_EQ(model.attributes[1].name, "city");
  ASSERT_EQ(model.metrics.size(), 1u);
  EXPECT_EQ(model.metrics[0], (push::PushMetric{"sales", {{"Stores", "sales"}}}));
}

TEST(PushModel, MapsEveryDataTypeCaseInsensitively) {
  EXPECT_EQ(push::PushDataType("STRING"), DataType::kText);
  EXPECT_EQ(push::PushDataType("Integer"), DataType::kInteger);
  EXPECT_EQ(push::PushDataType("bigInteger"), DataType::kInteger);
  EXPECT_EQ(push::PushDataType("bool"), DataType::kBoolean);
  EXPECT_EQ(push::PushDataType("BOOLEAN"), DataType::kBoolean);  // what the Python client writes
  EXPECT_EQ(push::PushDataType("double"), DataType::kReal);
  EXPECT_EQ(push::PushDataType("BigDecimal"), DataType::kReal);
  EXPECT_EQ(push::PushDataType("date"), DataType::kDate);
  EXPECT_EQ(push::PushDataType("Time"), DataType::kText);
  EXPECT_EQ(push::PushDataType("DateTime"), DataType::kDateTime);
  EXPECT_EQ(push::PushDataType("FLOAT"), std::nullopt);
  EXPECT_EQ(push::PushDataType(""), std::nullopt);
}

TEST(PushModel, KeepsTypeNamesUpperCased) {
  Json body = Body(kStoreSales);
  body["tables"][0]["columnHeaders"][0]["dataType"] = "Integer";
  body["tables"][0]["columnHeaders"][1]["dataType"] = "string";
  const push::PushModel model = push::ParsePushModel(body);
  EXPECT_EQ(model.tables[0].columns[0].type_name, "INTEGER");
  EXPECT_EQ(model.tables[0].columns[1].type_name, "STRING");
}

TEST(PushModel, RefusesAnUnknownOrMissingDataType) {
  Json body = Body(kStoreSales);
  body["tables"][0]["columnHeaders"][2]["dataType"] = "Float";
  ExpectRefused(body, "body.tables[0].columnHeaders[2].dataType: 'Float' is not a data type");
  body["tables"][0]["columnHeaders"][2]["dataType"] = nullptr;  // pandas dtype the client can't map
  ExpectRefused(body, "body.tables[0].columnHeaders[2].dataType: required field is missing");
}

TEST(PushModel, RefusesAMissingEmptyOrMalformedName) {
  Json body = Body(kStoreSales);
  body.erase("name");
  ExpectRefused(body, "body.name: required field is missing");
  body["name"] = "";
  ExpectRefused(body, "body.name: must not be empty");
  body["name"] = 12;
  ExpectRefused(body, "body.name: expected a string");
  for (const char* bad : {"a\\b", "a\"b", "a[b", "a]b"}) {
    body["name"] = bad;
    ExpectRefused(body, "which are not allowed");
  }
  body["name"] = std::string(251, 'n');
  ExpectRefused(body, "body.name: at most 250 characters");
}

TEST(PushModel, LimitsTheDescriptionTo250Characters) {
  Json body = Body(kStoreSales);
  std::string description;
  for (int i = 0; i < 250; ++i) description += "\xC3\xA9";  // 250 characters, 500 bytes
  body["description"] = description;
  EXPECT_EQ(push::ParsePushModel(body).description, description);
  body["description"] = description + "x";
  ExpectRefused(body, "body.description: at most 250 characters");
}

TEST(PushModel, CanonicalisesTheFolderIdAndRefusesNonIds) {
  Json body = Body(kStoreSales);
  body["folderId"] = "d3c7d461f69c4610aa6baa5ef8b2d0a0";
  EXPECT_EQ(push::ParsePushModel(body).folder_id, "D3C7D461F69C4610AA6BAA5EF8B2D0A0");
  body["folderId"] = "My Reports";
  ExpectRefused(body, "body.folderId: 'My Reports' is not an object id");
}

TEST(PushModel, RefusesAModelWithoutTables) {
  Json body = Body(kStoreSales);
  body["tables"] = Json::array();
  ExpectRefused(body, "body.tables: the model needs at least one table");
  body.erase("tables");
  ExpectRefused(body, "body.tables: the model needs at least one table");
  body["tables"] = "Stores";
  ExpectRefused(body, "body.tables: expected an array");
}

TEST(PushModel, RefusesDuplicateTablesAndColumns) {
  Json body = Body(kStoreSales);
  body["tables"].push_back(body["tables"][0]);
  ExpectRefused(body, "body.tables[1].name: two tables are named 'Stores'");

  body = Body(kStoreSales);
  body["tables"][0]["columnHeaders"][2]["name"] = "city";
  ExpectRefused(body, "table 'Stores' has two columns named 'city'");

  body = Body(kStoreSales);
  body["tables"][0]["columnHeaders"] = Json::array();
  ExpectRefused(body, "table 'Stores' needs at least one column");
}

TEST(PushModel, RefusesExpressionsNamingUnknownTablesOrColumns) {
  Json body = Body(kStoreSales);
  body["metrics"][0]["expressions"][0]["tableName"] = "Shops";
  ExpectRefused(body, "body.metrics[0].expressions[0].tableName: there is no table 'Shops'");

  body = Body(kStoreSales);
  body["attributes"][1]["attributeForms"][0]["expressions"][0]["columnName"] = "town";
  ExpectRefused(body,
                "body.attributes[1].attributeForms[0].expressions[0].columnName: table "
                "'Stores' has no column 'town'");
}

TEST(PushModel, RefusesAttributesAndMetricsWithoutExpressions) {
  Json body = Body(kStoreSales);
  body["metrics"][0]["expressions"] = Json::array();
  ExpectRefused(body, "body.metrics[0].expressions: at least one expression is needed");

  body = Body(kStoreSales);
  body["attributes"][0]["attributeForms"][0].erase("expressions");
  ExpectRefused(body, "body.attributes[0].attributeForms[0].expressions: at least one");

  body = Body(kStoreSales);
  body["attributes"][0]["attributeForms"] = Json::array();
  ExpectRefused(body, "attribute 'store_id' needs at least one form");
}

TEST(PushModel, MergesEntriesThePythonClientEmitsOncePerTable) {
  const push::PushModel model = push::ParsePushModel(Body(kTwoTables));

  ASSERT_EQ(model.attributes.size(), 3u);
  EXPECT_EQ(
      model.attributes[0],
      (push::PushAttribute{
          "store_id", {push::PushForm{"ID", {{"Sales", "store_id"}, {"Stores", "store_id"}}}}}));
  EXPECT_EQ(model.attributes[1].name, "day");
  EXPECT_EQ(model.attributes[2].name, "region");
  ASSERT_EQ(model.metrics.size(), 2u);
  EXPECT_EQ(model.metrics[1],
            (push::PushMetric{"units", {{"Sales", "units"}, {"Stores", "units"}}}));
}

TEST(PushModel, PutsTheIdFormFirstAndUpperCasesCategories) {
  Json body = Body(kStoreSales);
  body["attributes"][0]["attributeForms"] = Json::parse(R"([
    {"category": "desc", "expressions": [{"tableName": "Stores", "columnName": "city"}]},
    {"category": "id", "expressions": [{"tableName": "Stores", "columnName": "store_id"}]}])");
  body["attributes"].erase(1);
  const push::PushModel model = push::ParsePushModel(body);
  ASSERT_EQ(model.attributes[0].forms.size(), 2u);
  EXPECT_EQ(model.attributes[0].forms[0].category, "ID");
  EXPECT_EQ(model.attributes[0].forms[1].category, "DESC");
  EXPECT_EQ(push::FormType(model, model.attributes[0].forms[0]), DataType::kInteger);
  EXPECT_EQ(push::FormType(model, model.attributes[0].forms[1]), DataType::kText);
}

TEST(PushModel, RefusesAFormWhoseColumnsDifferInType) {
  Json body = Body(kTwoTables);
  body["tables"][1]["columnHeaders"][0]["dataType"] = "STRING";
  ExpectRefused(body,
                "attribute 'store_id', form ID mixes columns of different types: "
                "Sales.store_id (BIGINTEGER) and Stores.store_id (STRING)");
}

TEST(PushModel, LetsIntegerAndRealColumnsShareAFormAsReal) {
  Json body = Body(kTwoTables);
  body["tables"][1]["columnHeaders"][0]["dataType"] = "DOUBLE";
  const push::PushModel model = push::ParsePushModel(body);
  EXPECT_EQ(push::FormType(model, model.attributes[0].forms[0]), DataType::kReal);
}

TEST(PushModel, RefusesTwoColumnsOfOneTableInOneFormOrMetric) {
  Json body = Body(kStoreSales);
  body["metrics"][0]["expressions"].push_back(
      {{"tableName", "Stores"}, {"columnName", "store_id"}});
  ExpectRefused(body, "metric 'sales' names two columns of table 'Stores', 'sales' and 'store_id'");
}

TEST(PushModel, RefusesMetricsOnTextAndDateColumns) {
  Json body = Body(kStoreSales);
  body["metrics"][0]["expressions"][0]["columnName"] = "city";
  ExpectRefused(body, "metric 'sales' reads Stores.city (STRING); a metric needs a numeric column");
}

TEST(PushModel, TakesBooleanMetricsAsMaxAndRefusesMixingThemWithNumbers) {
  Json body = Body(kStoreSales);
  body["tables"][0]["columnHeaders"].push_back({{"name", "open"}, {"dataType", "BOOLEAN"}});
  body["metrics"].push_back(
      {{"name", "open"}, {"expressions", {{{"tableName", "Stores"}, {"columnName", "open"}}}}});
  const push::PushModel model = push::ParsePushModel(body);
  EXPECT_TRUE(push::IsBooleanMetric(model, model.metrics[1]));
  EXPECT_FALSE(push::IsBooleanMetric(model, model.metrics[0]));

  Json mixed = Body(kTwoTables);
  mixed["tables"][1]["columnHeaders"][2]["dataType"] = "BOOL";
  ExpectRefused(mixed, "metric 'units' mixes BOOL and numeric columns");
}

TEST(PushModel, RefusesANameUsedByAnAttributeAndAMetric) {
  Json body = Body(kStoreSales);
  body["metrics"][0]["name"] = "city";
  ExpectRefused(body, "'city' names both an attribute and a metric");
}

TEST(PushModel, RefusesAModelWithNoAttributeAndNoMetric) {
  Json body = Body(kStoreSales);
  body["metrics"] = Json::array();
  body["attributes"] = Json::array();
  ExpectRefused(body, "the model defines no attribute and no metric");
}

TEST(PushModel, LetsOneColumnServeAnAttributeAndAMetric) {
  Json body = Body(kStoreSales);
  body["metrics"].push_back(
      {{"name", "store count"},
       {"expressions", {{{"tableName", "Stores"}, {"columnName", "store_id"}}}}});
  const push::PushModel model = push::ParsePushModel(body);
  EXPECT_EQ(model.metrics.size(), 2u);
  EXPECT_EQ(push::AttributeColumnsOf(model, "Stores"), (std::vector<size_t>{0, 1}));
}

TEST(PushModel, ListsTheAttributeColumnsOfEachTable) {
  const push::PushModel model = push::ParsePushModel(Body(kTwoTables));
  EXPECT_EQ(push::AttributeColumnsOf(model, "Sales"), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(push::AttributeColumnsOf(model, "Stores"), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(push::AttributeColumnsOf(model, "Nowhere"), (std::vector<size_t>{}));
}

TEST(PushModel, RoundTripsThroughItsStoredForm) {
  Json body = Body(kTwoTables);
  body["folderId"] = "d3c7d461f69c4610aa6baa5ef8b2d0a0";
  body["attributes"][3]["attributeForms"].push_back(
      {{"category", "desc"},
       {"expressions", {{{"tableName", "Stores"}, {"columnName", "region"}}}}});
  body["tables"][0]["columnHeaders"][1]["dataType"] = "date";
  const push::PushModel model = push::ParsePushModel(body);

  const Json stored = push::PushModelToJson(model);
  const push::PushModel read_back = push::PushModelFromJson(Json::parse(stored.dump()));

  EXPECT_EQ(read_back, model);
  EXPECT_EQ(push::PushModelToJson(read_back), stored);
  EXPECT_EQ(stored["tables"][0]["columnHeaders"][1]["dataType"], "DATE");
  EXPECT_EQ(stored["attributes"].size(), 3u);
}

}  // namespace
}  // namespace tessera::engine::push
