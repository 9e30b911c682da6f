#include "service/instance/dataset_instance_service.h"

#include "core/error.h"
#include "core/ids.h"
#include "engine/cube_executor.h"
#include "engine/rollup_set.h"

namespace tessera::service::instance {

namespace {

// One message for reports and cubes, v1 and v2.
constexpr std::string_view kInstanceNoun = "Report or cube";

std::string CanonicalObject(const std::string& id) {
  auto canonical = CanonicalObjectId(id);
  return canonical ? *canonical : id;
}

// The grid of a result with neither attributes nor metrics: no rows.
ResultPtr EmptyResult(std::shared_ptr<const engine::Dataset> dataset, bool owns_dataset) {
  auto result = std::make_shared<engine::ResultSet>();
  result->dataset = std::move(dataset);
  result->owns_dataset = owns_dataset;
  return result;
}

constexpr std::string_view kRecordKind = "dataset";

// A record keeps the request in the shape of a request body (the objects and sorting as the
// parser would read them back), which nodes of every version read. kRequestVersion marks the
// records written since requests are typed: an older record does not read back, and its instance
// is taken as expired.
constexpr const char* kRequestVersionKey = "requestVersion";
constexpr int kRequestVersion = 2;

Json RequestedObjectsToJson(const std::optional<RequestedObjects>& objects) {
  if (!objects) return Json();
  Json attributes = Json::array();
  for (const auto& attribute : objects->attributes) {
    Json forms = Json::array();
    for (const auto& form : attribute.forms) forms.push_back({{"id", form}});
    attributes.push_back({{"id", attribute.id}, {"forms", std::move(forms)}});
  }
  Json metrics = Json::array();
  for (const auto& id : objects->metric_ids) metrics.push_back({{"id", id}});
  return {{"attributes", std::move(attributes)}, {"metrics", std::move(metrics)}};
}

RequestedObjects RequestedObjectsFromJson(const Json& json) {
  RequestedObjects objects;
  for (const auto& attribute : json.at("attributes")) {
    RequestedAttribute requested{attribute.at("id").get<std::string>(), {}};
    for (const auto& form : attribute.at("forms")) {
      requested.forms.push_back(form.at("id").get<std::string>());
    }
    objects.attributes.push_back(std::move(requested));
  }
  for (const auto& metric : json.at("metrics")) {
    objects.metric_ids.push_back(metric.at("id").get<std::string>());
  }
  return objects;
}

Json SortItemToJson(const SortItem& item) {
  switch (item.kind) {
    case SortItem::Kind::kForm:
      return {{"type", "form"},
              {"attribute", {{"id", item.attribute_id}}},
              {"form", {{"id", item.form}}},
              {"order", SortOrderName(item.descending)}};
    case SortItem::Kind::kAttribute:
      return {{"type", "attribute"}, {"attribute", {{"id", item.attribute_id}}}};
    case SortItem::Kind::kMetric:
      return {{"type", "metric"},
              {"metric", {{"id", item.metric_id}}},
              {"order", SortOrderName(item.descending)}};
    case SortItem::Kind::kSubtotalsPosition:
      break;
  }
  return {{"type", "subtotalsPosition"},
          {"subtotalsPosition", item.subtotals_position ? Json(*item.subtotals_position) : Json()}};
}

SortItem SortItemFromJson(const Json& json) {
  const std::string type = json.at("type").get<std::string>();
  SortItem item;
  if (type == "form" || type == "attribute") {
    item.kind = type == "form" ? SortItem::Kind::kForm : SortItem::Kind::kAttribute;
    item.attribute_id = json.at("attribute").at("id").get<std::string>();
    if (type == "form") item.form = json.at("form").at("id").get<std::string>();
  } else if (type == "metric") {
    item.kind = SortItem::Kind::kMetric;
    item.metric_id = json.at("metric").at("id").get<std::string>();
  } else {
    item.kind = SortItem::Kind::kSubtotalsPosition;
    const Json& position = json.at("subtotalsPosition");
    if (!position.is_null()) item.subtotals_position = position.get<std::string>();
  }
  item.descending = json.value("order", "") == SortOrderName(true);
  return item;
}

Json SortingToJson(const std::optional<Sorting>& sorting) {
  if (!sorting) return Json();
  Json rows = Json::array();
  for (const auto& item : sorting->rows) rows.push_back(SortItemToJson(item));
  return {{"rows", std::move(rows)}, {"columns", sorting->columns}, {"pageBy", Json::array()}};
}

std::optional<Sorting> SortingFromJson(const Json& json) {
  if (json.is_null()) return std::nullopt;
  Sorting sorting;
  for (const auto& item : json.at("rows")) sorting.rows.push_back(SortItemFromJson(item));
  sorting.columns = json.at("columns");
  return sorting;
}

Json RequestToJson(const InstanceRequest& request) {
  return {{"allObjects", !request.requested_objects},
          {"requestedObjects", RequestedObjectsToJson(request.requested_objects)},
          {"viewFilter", request.view_filter},
          {"metricLimits", request.metric_limits},
          {"sorting", SortingToJson(request.sorting)},
          {"subtotals", request.subtotals_visible},
          {kRequestVersionKey, kRequestVersion}};
}

std::optional<InstanceRequest> RequestFromJson(const Json& data) {
  if (data.value(kRequestVersionKey, 0) != kRequestVersion) return std::nullopt;
  InstanceRequest request;
  if (!data.at("allObjects").get<bool>()) {
    request.requested_objects = RequestedObjectsFromJson(data.at("requestedObjects"));
  }
  request.view_filter = data.at("viewFilter");
  request.metric_limits = data.at("metricLimits");
  request.sorting = SortingFromJson(data.at("sorting"));
  request.subtotals_visible = data.at("subtotals").get<bool>();
  return request;
}

}  // namespace

DatasetInstance::DatasetInstance(std::string project_id, DatasetFilter kind, ResolvedDataset source,
                                 cube::CubeService::Version version, InstanceRequest request,
                                 InstanceGrid grid)
    : project_id_(std::move(project_id)),
      kind_(kind),
      source_(std::move(source)),
      version_(std::move(version)),
      request_(std::move(request)),
      grid_(std::make_shared<const InstanceGrid>(std::move(grid))) {}

std::shared_ptr<const InstanceGrid> DatasetInstance::grid() const {
  std::lock_guard lock(mutex_);
  return grid_;
}

void DatasetInstance::set_grid(InstanceGrid grid) const {
  auto replacement = std::make_shared<const InstanceGrid>(std::move(grid));
  std::lock_guard lock(mutex_);
  grid_ = std::move(replacement);
}

bool DatasetInstance::IsRunning() const {
  std::lock_guard lock(mutex_);
  return running_;
}

void DatasetInstance::RethrowFailure() const {
  std::exception_ptr failure;
  {
    std::lock_guard lock(mutex_);
    failure = failure_;
  }
  if (failure) std::rethrow_exception(failure);
}

void DatasetInstance::MarkRunning() const {
  std::lock_guard lock(mutex_);
  running_ = true;
}

void DatasetInstance::MarkDone(std::exception_ptr failure) const {
  {
    std::lock_guard lock(mutex_);
    running_ = false;
    failure_ = std::move(failure);
  }
  done_.notify_all();
}

bool DatasetInstance::WaitUntilDone(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return done_.wait_for(lock, timeout, [this] { return !running_; });
}

DatasetInstanceService::DatasetInstanceService(DatasetDefinitionService& definitions,
                                               InstanceStore& store, SharedInstances& shared,
                                               ThreadPool* pool)
    : definitions_(definitions), store_(store), shared_(shared), pool_(pool) {}

ResultPtr DatasetInstanceService::Compute(const DatasetInstance& definition) {
  const ResolvedDataset& source = definition.source();
  const bool owns_dataset = !source.source_cube_id.has_value();
  std::shared_ptr<const engine::Dataset> dataset =
      definition.version().dataset ? definition.version().dataset
                                   : definitions_.BaseData(definition.project_id(), source);
  const std::shared_ptr<const InstanceGrid> grid = definition.grid();
  engine::CubeQuery query =
      QueryOfGrid(*grid, definition.request(), *dataset, source.model.get(), source.report_filter);
  if (grid->attributes.empty() && grid->metrics.empty()) return EmptyResult(dataset, owns_dataset);
  query.deadline = std::chrono::steady_clock::now() + query_budget_;
  const std::shared_ptr<const engine::RollupSet> rollups = definitions_.RollupsOf(*dataset);
  auto result = std::make_shared<engine::ResultSet>(
      engine::ExecuteCubeQuery(dataset, rollups.get(), query, pool_));
  result->owns_dataset = owns_dataset;
  return result;
}

ResultPtr DatasetInstanceService::ResultOf(Instance& instance, const DatasetInstance& definition) {
  return store_.Result(instance, "", [&] { return Compute(definition); });
}

InstanceHandle DatasetInstanceService::Handle(std::shared_ptr<Instance> instance,
                                              ResultPtr result) const {
  InstanceHandle handle;
  handle.definition = &static_cast<const DatasetInstance&>(instance->definition());
  handle.grid = handle.definition->grid();
  handle.instance = std::move(instance);
  handle.result = std::move(result);
  return handle;
}

InstanceHandle DatasetInstanceService::Create(
    const InstanceCaller& caller, const std::string& object_id, DatasetFilter kind,
    Parsed<InstanceRequest> parsed, std::optional<std::chrono::milliseconds> async_after) {
  ResolvedDataset source =
      definitions_.Resolve(caller.principal, caller.project_id, object_id, kind);
  InstanceRequest& request = parsed.value();
  InstanceGrid grid = ResolveGrid(source.definition, source.model.get(), request);
  const std::string id = source.definition.id;
  cube::CubeService::Version version;
  if (source.source_cube_id) version = definitions_.CubeVersion(caller.project_id, source, "");
  auto definition = std::make_shared<const DatasetInstance>(caller.project_id, kind,
                                                            std::move(source), std::move(version),
                                                            std::move(request), std::move(grid));
  std::shared_ptr<Instance> instance = store_.Create({caller.session_id, id}, definition);
  try {
    shared_.Create(*instance, caller.project_id, kRecordKind, RecordOf(*definition, std::nullopt));
  } catch (...) {
    store_.Remove(*instance);
    throw;
  }

  if (!async_after || !pool_) {
    try {
      return Handle(instance, ResultOf(*instance, *definition));
    } catch (...) {
      store_.Remove(*instance);
      shared_.Remove(instance->id());
      throw;
    }
  }
  definition->MarkRunning();
  pool_->Post([this, instance, definition] {
    std::exception_ptr failure;
    try {
      ResultOf(*instance, *definition);
    } catch (...) {
      failure = std::current_exception();
    }
    definition->MarkDone(failure);
  });
  if (!definition->WaitUntilDone(*async_after)) return Handle(instance, nullptr);
  definition->RethrowFailure();
  return Handle(instance, ResultOf(*instance, *definition));
}

InstanceHandle DatasetInstanceService::Open(const InstanceCaller& caller,
                                            const std::string& object_id,
                                            const std::string& instance_id, bool wait) {
  std::shared_ptr<Instance> instance = Find(caller, object_id, instance_id);
  const auto& definition = static_cast<const DatasetInstance&>(instance->definition());
  if (definition.IsRunning()) {
    if (!wait) return Handle(instance, nullptr);
    while (!definition.WaitUntilDone(std::chrono::seconds(1))) {
    }
  }
  definition.RethrowFailure();
  return Handle(instance, ResultOf(*instance, definition));
}

const DatasetInstance& DatasetInstanceService::Check(const InstanceCaller& caller,
                                                     const std::string& object_id,
                                                     const std::string& instance_id,
                                                     std::shared_ptr<Instance>* keep_alive) {
  *keep_alive = Find(caller, object_id, instance_id);
  return static_cast<const DatasetInstance&>((*keep_alive)->definition());
}

InstanceHandle DatasetInstanceService::Resort(const InstanceCaller& caller,
                                              const std::string& object_id,
                                              const std::string& instance_id,
                                              const Parsed<std::optional<Sorting>>& parsed) {
  InstanceHandle handle = Open(caller, object_id, instance_id);
  const std::optional<Sorting>& sorting = parsed.value();
  InstanceGrid grid = ResortGrid(handle.definition->source().definition, *handle.grid, sorting);
  shared_.Revise(*handle.instance, RecordOf(*handle.definition, sorting));
  handle.definition->set_grid(std::move(grid));
  store_.Drop(*handle.instance, "");
  return Handle(handle.instance, ResultOf(*handle.instance, *handle.definition));
}

std::shared_ptr<Instance> DatasetInstanceService::Find(const InstanceCaller& caller,
                                                       const std::string& object_id,
                                                       const std::string& instance_id) {
  const InstanceOwner owner{caller.session_id, CanonicalObject(object_id)};
  std::shared_ptr<Instance> instance;
  try {
    instance = store_.Find(owner, instance_id, kInstanceNoun);
    if (shared_.IsCurrent(*instance)) return instance;
    store_.Remove(*instance);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kNotFound) throw;
  }
  instance = Rebuild(caller, owner, instance_id);
  if (!instance) {
    throw Error(ErrorCode::kNotFound, std::string(kInstanceNoun) + " instance '" + instance_id +
                                          "' was not found or has expired.");
  }
  return instance;
}

std::shared_ptr<Instance> DatasetInstanceService::Rebuild(const InstanceCaller& caller,
                                                          const InstanceOwner& owner,
                                                          const std::string& instance_id) {
  std::optional<storage::InstanceRecord> record = shared_.Find(owner, instance_id, kRecordKind);
  if (!record || (!caller.project_id.empty() && caller.project_id != record->project_id)) {
    return nullptr;
  }
  std::optional<InstanceRequest> request = RequestFromJson(record->data);
  if (!request) return nullptr;
  const auto kind = static_cast<DatasetFilter>(record->data.at("filter").get<int>());
  ResolvedDataset source =
      definitions_.Resolve(caller.principal, record->project_id, owner.object_id, kind);
  InstanceGrid grid = ResolveGrid(source.definition, source.model.get(), *request);
  const Json& resorting = record->data.at("resorting");
  if (!resorting.is_null()) {
    grid = ResortGrid(source.definition, std::move(grid), SortingFromJson(resorting));
  }
  cube::CubeService::Version version;
  if (source.source_cube_id) {
    version = definitions_.CubeVersion(record->project_id, source,
                                       record->data.at("cubeVersion").get<std::string>());
  }
  auto definition = std::make_shared<const DatasetInstance>(record->project_id, kind,
                                                            std::move(source), std::move(version),
                                                            std::move(*request), std::move(grid));
  const DatasetInstance& held = *definition;
  std::shared_ptr<Instance> instance = store_.Adopt(record->id, owner, std::move(definition));
  if (&instance->definition() == &held) shared_.Adopted(*instance, *record);
  return instance;
}

Json DatasetInstanceService::RecordOf(const DatasetInstance& definition,
                                      const std::optional<Sorting>& resorting) {
  Json data = RequestToJson(definition.request());
  data["filter"] = static_cast<int>(definition.kind());
  data["resorting"] = SortingToJson(resorting);
  data["cubeVersion"] = definition.version().snapshot_file;
  return data;
}

}  // namespace tessera::service::instance
