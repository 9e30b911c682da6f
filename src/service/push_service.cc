#include "service/push_service.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <future>

#include "core/base64.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"
#include "engine/pushed_dataset.h"
#include "engine/pushed_rows_file.h"
#include "model/object_types.h"
#include "model/rights.h"
#include "model/semantic.h"
#include "model/well_known.h"

namespace tessera::service {

namespace {

constexpr int kStatusNotPublished = 0;
constexpr int kStatusReady = 1;
constexpr int kStatusPublishing = 6;
constexpr char kMadeByModels[] = "models";
constexpr char kMadeBySingleRequest[] = "single";

[[noreturn]] void Invalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, message);
}

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

// A pushed dataset and its model, with the caller's right to read it, or to upload to it.
struct PushedDataset {
  model::ObjectRecord record;
  engine::PushModel model;
};

PushedDataset LoadPushed(ObjectService& objects, const Principal& principal,
                         const std::string& project_id, const std::string& raw_id, int rights) {
  const std::string id = RequireObjectId(raw_id, "datasetId");
  ObjectView view;
  try {
    view = objects.Get(principal, project_id, id, model::kTypeReportDefinition);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kNotFound) throw;
    throw Error(ErrorCode::kNotFound,
                "Dataset '" + id + "' was not found in project '" + project_id + "'");
  }
  if (!model::IsPushedDataset(view.record)) {
    throw Error(ErrorCode::kNotSupported, "'" + view.record.name + "' (" + id +
                                              ") is not a pushed dataset: only datasets created "
                                              "through the push API take uploads");
  }
  RequireRights(principal, view.record, rights);
  return {view.record, engine::PushModelFromJson(view.record.definition.at("pushModel"))};
}

const engine::PushTable& TableOf(const engine::PushModel& model, const std::string& name) {
  const engine::PushTable* table = model.FindTable(name);
  if (!table) Invalid("Table '" + name + "' is not a table of dataset '" + model.name + "'");
  return *table;
}

std::vector<std::string> ColumnHeaders(const Json& table_json, std::string_view path) {
  std::vector<std::string> headers;
  auto found = table_json.find("columnHeaders");
  if (found == table_json.end() || found->is_null()) return headers;
  if (!found->is_array()) Invalid(std::string(path) + ".columnHeaders: expected an array");
  for (const auto& header : *found) {
    if (header.is_string()) {
      headers.push_back(header.get<std::string>());
    } else if (header.is_object() && header.contains("name") && header["name"].is_string()) {
      headers.push_back(header["name"].get<std::string>());
    } else {
      Invalid(std::string(path) + ".columnHeaders: expected column names");
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
  Invalid(std::string(path) + ".orientation: expected ROW or COLUMN");
}

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
  if (value < 1) Invalid("body.index: expected an integer of 1 or more (chunks count from 1)");
  return value;
}

std::string DecodedData(const Json& body) {
  const Json& data = RequiredMember(body, "data", "body");
  if (!data.is_string()) Invalid("body.data: expected a base64 string");
  auto decoded = DecodeBase64(data.get<std::string>());
  if (!decoded) Invalid("body.data: not valid base64");
  return std::move(*decoded);
}

// Rows given as JSON objects keyed by column name (the single-request API) as row arrays in
// `headers` order, for ParseChunk.
std::string RecordsAsRows(const std::string& json_text, const std::vector<std::string>& headers) {
  Json records = ParseJson(json_text);
  if (!records.is_array()) Invalid("data: expected a JSON array of records");
  Json rows = Json::array();
  for (size_t r = 0; r < records.size(); ++r) {
    const Json& record = records[r];
    if (record.is_array()) {
      rows.push_back(record);
      continue;
    }
    if (!record.is_object()) {
      Invalid("data: record " + std::to_string(r + 1) + " is not a JSON object");
    }
    Json row = Json::array();
    for (const auto& header : headers) {
      auto cell = record.find(header);
      row.push_back(cell == record.end() ? Json() : *cell);
    }
    rows.push_back(std::move(row));
  }
  return rows.dump();
}

engine::PushedRows Concatenated(std::map<int64_t, engine::PushedRows>& chunks) {
  engine::PushedRows rows;
  size_t total = 0;
  for (const auto& [index, chunk] : chunks) total += chunk.size();
  rows.reserve(total);
  for (auto& [index, chunk] : chunks) {
    std::move(chunk.begin(), chunk.end(), std::back_inserter(rows));
    engine::PushedRows().swap(chunk);
  }
  return rows;
}

// "TABLE.COLUMN" of the single-request API, split where the prefix names a table of `model`.
Json ExpressionOf(const Json& tables, const Json& expression, const std::string& path) {
  const Json& formula = RequiredMember(expression, "formula", path);
  if (!formula.is_string()) Invalid(path + ".formula: expected \"TABLE.COLUMN\"");
  const std::string text = formula.get<std::string>();
  for (const auto& table : tables) {
    const std::string name = table.value("name", "");
    if (!name.empty() && text.size() > name.size() + 1 && text.compare(0, name.size(), name) == 0 &&
        text[name.size()] == '.') {
      return {{"tableName", name}, {"columnName", text.substr(name.size() + 1)}};
    }
  }
  Invalid(path + ".formula: '" + text + "' does not name a column as TABLE.COLUMN");
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
  if (tables.size() != 1) Invalid("body.tables: the single-request API takes exactly one table");
  Json model = {{"name", RequiredMember(body, "name", "body")},
                {"description", body.value("description", "")},
                {"folderId", ""},
                {"tables", Json::array()},
                {"attributes", Json::array()},
                {"metrics", Json::array()}};
  for (const auto& table : tables) {
    if (!table.is_object()) Invalid("body.tables[0]: expected an object");
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

std::string FolderFor(ObjectService& objects, const Principal& principal,
                      const std::string& project_id, const engine::PushModel& model) {
  if (model.folder_id.empty()) {
    return objects.PredefinedFolderId(principal, project_id, model::kFolderTypeMyReports);
  }
  return RequireObjectId(model.folder_id, "folderId");
}

// The dataset object of `model`, new or replacing one of the same name (spec 02 §8.2).
SavedObject SaveDataset(ObjectService& objects, const Principal& principal,
                        const std::string& project_id, const engine::PushModel& model,
                        std::string_view made_by) {
  return objects.SaveInFolder(
      principal, project_id, FolderFor(objects, principal, project_id, model),
      {model::kTypeReportDefinition,
       model::kSubtypeSuperCube,
       model.name,
       model.description,
       {{"pushModel", engine::PushModelToJson(model)}, {"madeBy", std::string(made_by)}}});
}

}  // namespace

enum class SessionState { kOpen, kPublishing, kPublished, kFailed };

namespace {

// A publish hands the session's rows over when it starts, so a session whose publish failed
// holds none: publishing it again would merge nothing (and a replace would empty the table).
void RefuseIfFailed(SessionState state, const std::string& session_id) {
  if (state != SessionState::kFailed) return;
  Invalid("Upload session '" + session_id +
          "' failed to publish and no longer holds its rows; open a new upload session and "
          "send them again");
}

}  // namespace

struct PushService::Session {
  struct Table {
    engine::UpdatePolicy policy = engine::UpdatePolicy::kReplace;
    std::vector<std::string> headers;
    bool column_orientation = false;
    std::map<int64_t, engine::PushedRows> chunks;
  };

  std::string id;
  std::string project_id;
  std::string dataset_id;
  std::string user_id;
  std::map<std::string, Table> tables;
  SessionState state = SessionState::kOpen;
  std::string error;  // kFailed
  std::atomic<bool> is_cancelled{false};
  std::chrono::steady_clock::time_point last_used = std::chrono::steady_clock::now();
};

PushService::PushService(storage::MetadataStore& store, ObjectService& objects, CubeService& cubes,
                         PushServiceOptions options)
    : store_(store), objects_(objects), cubes_(cubes), options_(options) {}

PushService::~PushService() {
  // Running publishes report back to this object: let them end first.
  std::unique_lock lock(mutex_);
  publish_ended_.wait(lock, [&] { return running_publishes_ == 0; });
}

PushedDatasetRef PushService::CreateModel(const Principal& principal, const std::string& project_id,
                                          const Json& body) {
  engine::PushModel model = engine::ParsePushModel(body);
  SavedObject saved = SaveDataset(objects_, principal, project_id, model, kMadeByModels);
  // The new model starts without rows.
  if (saved.replaced) cubes_.DropPushedRows(project_id, saved.view.record.id);
  return {saved.view.record.id, saved.view.record.name, {}};
}

std::string PushService::OpenSession(const Principal& principal, const std::string& project_id,
                                     const std::string& dataset_id, const Json& body) {
  PushedDataset dataset =
      LoadPushed(objects_, principal, project_id, dataset_id, model::kRightWrite);
  auto session = std::make_shared<Session>();
  session->id = NewTicketId();
  session->project_id = project_id;
  session->dataset_id = dataset.record.id;
  session->user_id = principal.user_id;
  const Json& tables = RequiredArray(body, "tables", "body");
  if (tables.empty()) Invalid("body.tables: name at least one table to upload");
  for (size_t t = 0; t < tables.size(); ++t) {
    const std::string path = "body.tables[" + std::to_string(t) + "]";
    const std::string name = RequiredString(tables[t], "name", path);
    const engine::PushTable& table = TableOf(dataset.model, name);
    Session::Table upload;
    upload.policy = engine::ParseUpdatePolicy(RequiredString(tables[t], "updatePolicy", path));
    upload.headers = ColumnHeaders(tables[t], path);
    upload.column_orientation = ColumnOrientation(tables[t], path);
    engine::ParseChunk(table, upload.headers, upload.column_orientation, "[]");  // checks headers
    if (!session->tables.emplace(name, std::move(upload)).second) {
      Invalid(path + ".name: table '" + name + "' is listed twice");
    }
  }
  std::lock_guard lock(mutex_);
  ExpireSessions();
  std::erase_if(sessions_, [&](const auto& entry) {
    const Session& other = *entry.second;
    return other.project_id == project_id && other.dataset_id == session->dataset_id &&
           (other.state == SessionState::kOpen || other.state == SessionState::kFailed);
  });
  sessions_[session->id] = session;
  return session->id;
}

std::shared_ptr<PushService::Session> PushService::FindSession(const Principal& principal,
                                                               const std::string& project_id,
                                                               const std::string& dataset_id,
                                                               const std::string& session_id) {
  const std::string dataset = RequireObjectId(dataset_id, "datasetId");
  std::lock_guard lock(mutex_);
  ExpireSessions();
  auto found = sessions_.find(session_id);
  if (found == sessions_.end() || found->second->project_id != project_id ||
      found->second->dataset_id != dataset || found->second->user_id != principal.user_id) {
    throw Error(ErrorCode::kNotFound, "Upload session '" + session_id + "' of dataset '" + dataset +
                                          "' was not found; it may have expired or been closed");
  }
  found->second->last_used = std::chrono::steady_clock::now();
  return found->second;
}

void PushService::ExpireSessions() {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(sessions_, [&](const auto& entry) {
    const Session& session = *entry.second;
    return session.state != SessionState::kPublishing &&
           now - session.last_used > options_.session_ttl;
  });
}

void PushService::PutChunk(const Principal& principal, const std::string& project_id,
                           const std::string& dataset_id, const std::string& session_id,
                           const Json& body) {
  auto session = FindSession(principal, project_id, dataset_id, session_id);
  const std::string table_name = RequiredString(body, "tableName", "body");
  const int64_t index = ChunkIndex(body);
  const std::string data = DecodedData(body);
  PushedDataset dataset =
      LoadPushed(objects_, principal, project_id, dataset_id, model::kRightWrite);
  const engine::PushTable& table = TableOf(dataset.model, table_name);
  std::vector<std::string> headers;
  bool column_orientation = false;
  {
    std::lock_guard lock(mutex_);
    auto upload = session->tables.find(table_name);
    if (upload == session->tables.end()) {
      Invalid("body.tableName: table '" + table_name + "' is not part of this upload session");
    }
    headers = upload->second.headers;
    column_orientation = upload->second.column_orientation;
  }
  engine::PushedRows rows = engine::ParseChunk(table, headers, column_orientation, data);
  std::lock_guard lock(mutex_);
  if (session->state == SessionState::kPublishing || session->state == SessionState::kPublished) {
    Invalid("Upload session '" + session_id +
            "' is published or publishing; open a new session to upload more");
  }
  RefuseIfFailed(session->state, session->id);
  session->tables.at(table_name).chunks[index] = std::move(rows);
}

void PushService::Publish(const Principal& principal, const std::string& project_id,
                          const std::string& dataset_id, const std::string& session_id) {
  auto session = FindSession(principal, project_id, dataset_id, session_id);
  PushedDataset dataset =
      LoadPushed(objects_, principal, project_id, dataset_id, model::kRightWrite);
  Loads loads;
  {
    std::lock_guard lock(mutex_);
    if (session->state == SessionState::kPublishing || session->state == SessionState::kPublished) {
      Invalid("Upload session '" + session_id + "' is already published or publishing");
    }
    RefuseIfFailed(session->state, session->id);
    for (const auto& [name, table] : session->tables) {
      TableOf(dataset.model, name);  // the model may have been replaced since
      int64_t expected = 1;
      for (const auto& [index, chunk] : table.chunks) {
        if (index != expected) {
          Invalid("Table '" + name + "' has no chunk " + std::to_string(expected) +
                  " but has chunk " + std::to_string(index) +
                  ": chunks are numbered from 1 without gaps");
        }
        ++expected;
      }
    }
    for (auto& [name, table] : session->tables) {
      loads[name] = {table.policy, Concatenated(table.chunks)};
      table.chunks.clear();
    }
    session->state = SessionState::kPublishing;
    session->error.clear();
    session->is_cancelled = false;
  }
  try {
    StartPublish(project_id, dataset.record.id, dataset.model, std::move(loads), session);
  } catch (...) {
    std::lock_guard lock(mutex_);
    session->state = SessionState::kFailed;  // its chunks are gone: a new session is needed
    session->error = "the publish could not start; open a new upload session";
    throw;
  }
}

void PushService::StartPublish(const std::string& project_id, const std::string& dataset_id,
                               const engine::PushModel& model, Loads loads,
                               std::shared_ptr<Session> session,
                               std::function<void(const std::string&)> notify) {
  auto merged = std::make_shared<engine::PushedTables>();
  auto pending = std::make_shared<Loads>(std::move(loads));
  CustomPublish job;
  job.build = [model, dataset_id, merged, pending, session](const std::filesystem::path& rows) {
    *merged = engine::ReadPushedRows(model, rows);
    for (auto& [name, load] : *pending) {
      (*merged)[name] =
          engine::ApplyUpdatePolicy(load.policy, std::move((*merged)[name]), std::move(load.rows),
                                    engine::AttributeColumnsOf(model, name));
    }
    pending->clear();
    auto dataset = engine::BuildPushedDataset(dataset_id, model, *merged);
    if (session && session->is_cancelled) {
      throw Error(ErrorCode::kInvalidInput,
                  "the upload session was closed before its publish "
                  "ended");
    }
    return dataset;
  };
  job.commit = [model, merged](const std::filesystem::path& rows) {
    engine::WritePushedRows(model, *merged, rows);
    merged->clear();
  };
  job.finished = [this, session, notify](const std::string& error) {
    if (notify) notify(error);
    std::lock_guard lock(mutex_);
    if (session) {
      session->state = error.empty() ? SessionState::kPublished : SessionState::kFailed;
      session->error = error;
      session->last_used = std::chrono::steady_clock::now();
    }
    --running_publishes_;
    publish_ended_.notify_all();  // the last use of this object
  };
  {
    std::lock_guard lock(mutex_);
    ++running_publishes_;
  }
  try {
    // A refresh of the dataset may be running: this publish starts once it ends.
    while (!cubes_.PublishWith(project_id, dataset_id, job)) {
      cubes_.WaitForPublish(project_id, dataset_id);
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    --running_publishes_;
    publish_ended_.notify_all();
    throw;
  }
}

PublishProgress PushService::Progress(const Principal& principal, const std::string& project_id,
                                      const std::string& dataset_id,
                                      const std::string& session_id) {
  auto session = FindSession(principal, project_id, dataset_id, session_id);
  std::lock_guard lock(mutex_);
  switch (session->state) {
    case SessionState::kOpen:
      return {session->id, kStatusNotPublished, "not published"};
    case SessionState::kPublishing:
      return {session->id, kStatusPublishing, "publishing"};
    case SessionState::kPublished:
      return {session->id, kStatusReady, "result ready"};
    case SessionState::kFailed:
      break;
  }
  throw Error(ErrorCode::kInternal,
              "The publish of upload session '" + session->id +
                  "' failed; the previous data is still served: " + session->error);
}

void PushService::CloseSession(const Principal& principal, const std::string& project_id,
                               const std::string& dataset_id, const std::string& session_id) {
  auto session = FindSession(principal, project_id, dataset_id, session_id);
  session->is_cancelled = true;
  std::lock_guard lock(mutex_);
  sessions_.erase(session->id);
}

void PushService::PublishAndWait(const std::string& project_id, const std::string& dataset_id,
                                 const engine::PushModel& model, Loads loads) {
  auto outcome = std::make_shared<std::promise<std::string>>();
  std::future<std::string> error = outcome->get_future();
  StartPublish(project_id, dataset_id, model, std::move(loads), nullptr,
               [outcome](const std::string& message) { outcome->set_value(message); });
  const std::string message = error.get();
  if (!message.empty()) {
    throw Error(ErrorCode::kInternal,
                "The publish failed; the previous data is still served: " + message);
  }
}

PushedDatasetRef PushService::CreateSingle(const Principal& principal,
                                           const std::string& project_id, const Json& body) {
  engine::PushModel model = engine::ParsePushModel(SingleRequestModel(body));
  const engine::PushTable& table = model.tables.front();
  const Json& table_json = body["tables"][0];
  std::vector<std::string> headers;
  for (const auto& column : table.columns) headers.push_back(column.name);
  const std::string data = DecodedData(table_json);
  engine::PushedRows rows = engine::ParseChunk(table, headers, false, RecordsAsRows(data, headers));

  SavedObject saved = SaveDataset(objects_, principal, project_id, model, kMadeBySingleRequest);
  const std::string& id = saved.view.record.id;
  Loads loads;
  loads[table.name] = {engine::UpdatePolicy::kReplace, std::move(rows)};
  PublishAndWait(project_id, id, model, std::move(loads));
  return {id, saved.view.record.name, {{engine::PushedTableId(id, table.name), table.name}}};
}

void PushService::PatchTable(const Principal& principal, const std::string& project_id,
                             const std::string& dataset_id, const std::string& table_key,
                             const std::string& update_policy, const Json& body) {
  PushedDataset dataset =
      LoadPushed(objects_, principal, project_id, dataset_id, model::kRightWrite);
  if (dataset.record.definition.value("madeBy", "") != kMadeBySingleRequest) {
    throw Error(ErrorCode::kNotSupported,
                "Dataset '" + dataset.record.name +
                    "' was created through /api/datasets/models; update it through upload "
                    "sessions");
  }
  const engine::PushTable* table = nullptr;
  for (const auto& candidate : dataset.model.tables) {
    if (candidate.name == table_key ||
        engine::PushedTableId(dataset.record.id, candidate.name) == ToUpper(table_key)) {
      table = &candidate;
    }
  }
  if (!table) {
    throw Error(ErrorCode::kNotFound, "Table '" + table_key + "' is not a table of dataset '" +
                                          dataset.record.name + "'");
  }
  const engine::UpdatePolicy policy = engine::ParseUpdatePolicy(update_policy);
  std::vector<std::string> headers = ColumnHeaders(body, "body");
  if (headers.empty()) {
    for (const auto& column : table->columns) headers.push_back(column.name);
  }
  const std::string data = DecodedData(body);
  Loads loads;
  loads[table->name] = {policy,
                        engine::ParseChunk(*table, headers, false, RecordsAsRows(data, headers))};
  PublishAndWait(project_id, dataset.record.id, dataset.model, std::move(loads));
}

}  // namespace tessera::service
