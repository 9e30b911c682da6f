// tests/engine/push_samples.h
//
// Pushed-dataset models shared by the push tests.
#pragma once

namespace tessera::testing {

// What the Python client emits for two data frames sharing the column "store_id", made an
// attribute in both (to_attribute), and sharing the metric column "units".
inline constexpr const char* kSalesAndStoresModel = R"({
  "name": "Sales and stores", "description": "two tables", "folderId": "",
  "tables": [
    {"name": "Sales", "columnHeaders": [{"name": "store_id", "dataType": "BIGINTEGER"},
                                        {"name": "day", "dataType": "DATE"},
                                        {"name": "revenue", "dataType": "DOUBLE"},
                                        {"name": "units", "dataType": "BIGINTEGER"}]},
    {"name": "Stores", "columnHeaders": [{"name": "store_id", "dataType": "BIGINTEGER"},
                                         {"name": "region", "dataType": "STRING"},
                                         {"name": "units", "dataType": "DOUBLE"}]}],
  "metrics": [
    {"name": "revenue", "expressions": [{"tableName": "Sales", "columnName": "revenue"}]},
    {"name": "units", "expressions": [{"tableName": "Sales", "columnName": "units"}]},
    {"name": "units", "expressions": [{"tableName": "Stores", "columnName": "units"}]}],
  "attributes": [
    {"name": "store_id", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "Sales", "columnName": "store_id"}]}]},
    {"name": "day", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "Sales", "columnName": "day"}]}]},
    {"name": "store_id", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "Stores", "columnName": "store_id"}]}]},
    {"name": "region", "attributeForms": [{"category": "ID", "expressions": [{"tableName": "Stores", "columnName": "region"}]}]}]})";

}  // namespace tessera::testing
