#include "api/push/push_requests.h"

#include <charconv>
#include <set>

#include "core/base64.h"
#include "core/error.h"
#include "core/json_scanner.h"
#include "core/strings.h"
#include "engine/push/pushed_table.h"

namespace tessera::api::push {

namespace {

const Json& RequiredMember(const Json& object, std::string_view key, std::string_view path) {
  if (!object.is_object()) FailAt(path, "expected a JSON object");
  const Json* found = FindMember(object, key);
  if (!found) FailMissingAt(MemberPath(path, key));
  return *found;
}

const Json& RequiredArray(const Json& object, std::string_view key, std::string_view path) {
  const Json& value = RequiredMember(object, key, path);
  if (!value.is_array()) FailAt(MemberPath(path, key), "expected an array");
  return value;
}

std::vector<std::string> ColumnHeaders(const Json& table_json, std::string_view path) {
  std::vector<std::string> headers;
  auto found = table_json.find("columnHeaders");
  if (found == table_json.end() || found->is_null()) return headers;
  if (!found->is_array())
    ThrowInvalidInput(std::string(path) + ".columnHeaders: expected an array");
  for (const auto& header : *found) {
    if (header.is_string()) {
      headers.push_back(header.get<std::string>());
    } else if (header.is_object() && header.contains("name") && header["name"].is_string()) {
      headers.push_back(header["name"].get<std::string>());
    } else {
      ThrowInvalidInput(std::string(path) + ".columnHeaders: expected column names");
    }
  }
  return headers;
}

bool ColumnOrientation(const Json& table_json, std::string_view path) {
  auto found = table_json.find("orientation");
  if (found == table_json.end() || found->is_null()) return false;
  if (found->is_string()) {
    const std::string orientation = ToUpper(found->get<std::string>());
    if (orientation == "ROW") return false;
    if (orientation == "COLUMN") return true;
  }
  ThrowInvalidInput(std::string(path) + ".orientation: expected ROW or COLUMN");
}

// A chunk's index as a number or as text: 1 or more.
int64_t ChunkIndex(const Json& body) {
  const Json& index = RequiredMember(body, "index", "body");
  int64_t value = 0;
  if (index.is_number_integer()) {
    value = index.get<int64_t>();
  } else if (index.is_string()) {
    const std::string text = index.get<std::string>();
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) value = 0;
  }
  if (value < 1)
    ThrowInvalidInput("body.index: expected an integer of 1 or more (chunks count from 1)");
  return value;
}

std::string DecodedData(const Json& body) {
  const Json& data = RequiredMember(body, "data", "body");
  if (!data.is_string()) ThrowInvalidInput("body.data: expected a base64 string");
  auto decoded = DecodeBase64(data.get<std::string>());
  if (!decoded) ThrowInvalidInput("body.data: not valid base64");
  return std::move(*decoded);
}

// The decoded `data` of the single-request API: a JSON array of records, each an object keyed by
// column name or an array of cells.
Json Records(const std::string& json_text) {
  Json records = ParseJson(json_text);
  if (!records.is_array()) ThrowInvalidInput("data: expected a JSON array of records");
  for (size_t r = 0; r < records.size(); ++r) {
    if (!records[r].is_array() && !records[r].is_object()) {
      ThrowInvalidInput("data: record " + std::to_string(r + 1) + " is not a JSON object");
    }
  }
  return records;
}

// "TABLE.COLUMN" of the single-request API, split where the prefix names one of `tables`.
Json ExpressionOf(const Json& tables, const Json& expression, const std::string& path) {
  const Json& formula = RequiredMember(expression, "formula", path);
  if (!formula.is_string()) ThrowInvalidInput(path + ".formula: expected \"TABLE.COLUMN\"");
  const std::string text = formula.get<std::string>();
  for (const auto& table : tables) {
    const std::string name = table.value("name", "");
    if (!name.empty() && text.size() > name.size() + 1 && text.compare(0, name.size(), name) == 0 &&
        text[name.size()] == '.') {
      return {{"tableName", name}, {"columnName", text.substr(name.size() + 1)}};
    }
  }
  ThrowInvalidInput(path + ".formula: '" + text + "' does not name a column as TABLE.COLUMN");
}

Json Expressions(const Json& tables, const Json& owner, const std::string& path) {
  Json expressions = Json::array();
  const Json& given = RequiredArray(owner, "expressions", path);
  for (size_t i = 0; i < given.size(); ++i) {
    expressions.push_back(
        ExpressionOf(tables, given[i], path + ".expressions[" + std::to_string(i) + "]"));
  }
  return expressions;
}

// The body of POST /api/datasets as the model of POST /api/datasets/models.
Json SingleRequestModel(const Json& body) {
  const Json& tables = RequiredArray(body, "tables", "body");
  if (tables.size() != 1)
    ThrowInvalidInput("body.tables: the single-request API takes exactly one table");
  Json model = {{"name", RequiredMember(body, "name", "body")},
                {"description", body.value("description", "")},
                {"folderId", ""},
                {"tables", Json::array()},
                {"attributes", Json::array()},
                {"metrics", Json::array()}};
  for (const auto& table : tables) {
    if (!table.is_object()) ThrowInvalidInput("body.tables[0]: expected an object");
    model["tables"].push_back(
        {{"name", RequiredMember(table, "name", "body.tables[0]")},
         {"columnHeaders", RequiredArray(table, "columnHeaders", "body.tables[0]")}});
  }
  auto attributes = body.find("attributes");
  if (attributes != body.end() && attributes->is_array()) {
    for (size_t a = 0; a < attributes->size(); ++a) {
      const Json& attribute = (*attributes)[a];
      const std::string path = "body.attributes[" + std::to_string(a) + "]";
      Json forms = Json::array();
      const Json& given = RequiredArray(attribute, "attributeForms", path);
      for (size_t f = 0; f < given.size(); ++f) {
        const std::string form_path = path + ".attributeForms[" + std::to_string(f) + "]";
        forms.push_back({{"category", RequiredMember(given[f], "category", form_path)},
                         {"expressions", Expressions(tables, given[f], form_path)}});
      }
      model["attributes"].push_back(
          {{"name", RequiredMember(attribute, "name", path)}, {"attributeForms", forms}});
    }
  }
  auto metrics = body.find("metrics");
  if (metrics != body.end() && metrics->is_array()) {
    for (size_t m = 0; m < metrics->size(); ++m) {
      const std::string path = "body.metrics[" + std::to_string(m) + "]";
      model["metrics"].push_back({{"name", RequiredMember((*metrics)[m], "name", path)},
                                  {"expressions", Expressions(tables, (*metrics)[m], path)}});
    }
  }
  return model;
}

service::push::UploadTableRequest UploadTableOf(const Json& table, const std::string& path) {
  service::push::UploadTableRequest upload;
  upload.name = RequiredString(table, "name", path);
  upload.policy = engine::push::ParseUpdatePolicy(RequiredString(table, "updatePolicy", path));
  upload.column_headers = ColumnHeaders(table, path);
  upload.column_orientation = ColumnOrientation(table, path);
  return upload;
}

// ChunkIndex's value for the text of a string or of an unsigned number, or nullopt where
// ChunkIndex refuses it.
std::optional<int64_t> PlainChunkIndex(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) return std::nullopt;
  return value;
}

}  // namespace

engine::push::PushModel ParseModelRequest(const Json& body) {
  return engine::push::ParsePushModel(body);
}

service::push::OpenSessionRequest ParseOpenSessionRequest(const Json& body) {
  const Json& tables = RequiredArray(body, "tables", "body");
  if (tables.empty()) ThrowInvalidInput("body.tables: name at least one table to upload");
  service::push::OpenSessionRequest request;
  std::set<std::string> names;
  for (size_t t = 0; t < tables.size(); ++t) {
    const std::string path = "body.tables[" + std::to_string(t) + "]";
    service::push::UploadTableRequest upload = UploadTableOf(tables[t], path);
    if (!names.insert(upload.name).second) {
      ThrowInvalidInput(path + ".name: table '" + upload.name + "' is listed twice");
    }
    request.tables.push_back(std::move(upload));
  }
  return request;
}

service::push::ChunkRequest ParseChunkRequest(const Json& body) {
  service::push::ChunkRequest chunk;
  chunk.table_name = RequiredString(body, "tableName", "body");
  chunk.index = ChunkIndex(body);
  chunk.rows_json = DecodedData(body);
  return chunk;
}

std::optional<service::push::ChunkRequest> ReadPlainChunkRequest(std::string_view body_text) {
  JsonScanner scanner(body_text);
  if (!scanner.Consume('{')) return std::nullopt;
  std::optional<std::string> table_name, data;
  std::optional<int64_t> index;
  std::string key_storage, value_storage;
  do {
    std::string_view key, text;
    JsonNumber number;
    if (!scanner.ReadString(key, key_storage) || !scanner.Consume(':')) return std::nullopt;
    const bool is_string = scanner.PeekAfterSpace() == '"';
    if (is_string ? !scanner.ReadString(text, value_storage) : !scanner.ReadNumber(number)) {
      return std::nullopt;
    }
    if (key == "index") {
      if (index || (!is_string && number.kind != JsonNumber::Kind::kUnsigned)) return std::nullopt;
      index = PlainChunkIndex(is_string ? text : number.token);
      if (!index) return std::nullopt;
    } else if (key == "tableName") {
      if (table_name || !is_string) return std::nullopt;
      table_name.emplace(text);
    } else if (key == "data") {
      if (data || !is_string) return std::nullopt;
      data = DecodeBase64(text);
      if (!data) return std::nullopt;
    }
  } while (scanner.Consume(','));
  if (!scanner.Consume('}') || !scanner.AtEnd() || !table_name || !index || !data) {
    return std::nullopt;
  }
  return service::push::ChunkRequest{std::move(*table_name), *index, std::move(*data)};
}

service::push::SingleDatasetRequest ParseSingleDatasetRequest(const Json& body) {
  service::push::SingleDatasetRequest request;
  request.model = engine::push::ParsePushModel(SingleRequestModel(body));
  request.records = Records(DecodedData(body["tables"][0]));
  return request;
}

service::push::TableRowsRequest ParseTableRowsRequest(const Json& body) {
  service::push::TableRowsRequest request;
  request.column_headers = ColumnHeaders(body, "body");
  request.records = Records(DecodedData(body));
  return request;
}

}  // namespace tessera::api::push
