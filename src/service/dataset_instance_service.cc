#include "service/dataset_instance_service.h"

#include "core/error.h"
#include "core/ids.h"
#include "engine/cube_executor.h"

namespace tessera::service {

namespace {

// spec 02 §5: one message for reports and cubes, v1 and v2.
constexpr std::string_view kInstanceNoun = "Report or cube";

std::string CanonicalObject(const std::string& id) {
  auto canonical = CanonicalObjectId(id);
  return canonical ? *canonical : id;
}

// The grid of a result with neither attributes nor metrics: no rows (spec 02 §3.2 rule 8).
ResultPtr EmptyResult(std::shared_ptr<const engine::Dataset> dataset, bool owns_dataset) {
  auto result = std::make_shared<engine::ResultSet>();
  result->dataset = std::move(dataset);
  result->owns_dataset = owns_dataset;
  return result;
}

}  // namespace

DatasetInstance::DatasetInstance(std::string project_id, ResolvedDataset source,
                                 InstanceRequest request, InstanceGrid grid)
    : project_id_(std::move(project_id)),
      source_(std::move(source)),
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
                                               InstanceStore& store, ThreadPool* pool)
    : definitions_(definitions), store_(store), pool_(pool) {}

ResultPtr DatasetInstanceService::Compute(const DatasetInstance& definition) {
  const ResolvedDataset& source = definition.source();
  const bool owns_dataset = !source.source_cube_id.has_value();
  std::shared_ptr<const engine::Dataset> dataset =
      definitions_.BaseData(definition.project_id(), source);
  const std::shared_ptr<const InstanceGrid> grid = definition.grid();
  engine::CubeQuery query =
      QueryOfGrid(*grid, definition.request(), *dataset, source.model.get(), source.report_filter);
  if (grid->attributes.empty() && grid->metrics.empty()) return EmptyResult(dataset, owns_dataset);
  query.deadline = std::chrono::steady_clock::now() + query_budget_;
  auto result =
      std::make_shared<engine::ResultSet>(engine::ExecuteCubeQuery(dataset, query, pool_));
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
    InstanceRequest request, std::optional<std::chrono::milliseconds> async_after) {
  ResolvedDataset source =
      definitions_.Resolve(caller.principal, caller.project_id, object_id, kind);
  InstanceGrid grid = ResolveGrid(source.definition, source.model.get(), request);
  const std::string id = source.definition.id;
  auto definition = std::make_shared<const DatasetInstance>(caller.project_id, std::move(source),
                                                            std::move(request), std::move(grid));
  std::shared_ptr<Instance> instance = store_.Create({caller.session_id, id}, definition);

  if (!async_after || !pool_) {
    try {
      return Handle(instance, ResultOf(*instance, *definition));
    } catch (...) {
      store_.Remove(*instance);
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
  std::shared_ptr<Instance> instance =
      store_.Find({caller.session_id, CanonicalObject(object_id)}, instance_id, kInstanceNoun);
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
  *keep_alive =
      store_.Find({caller.session_id, CanonicalObject(object_id)}, instance_id, kInstanceNoun);
  return static_cast<const DatasetInstance&>((*keep_alive)->definition());
}

InstanceHandle DatasetInstanceService::Resort(const InstanceCaller& caller,
                                              const std::string& object_id,
                                              const std::string& instance_id, const Json& sorting) {
  InstanceHandle handle = Open(caller, object_id, instance_id);
  InstanceGrid grid = ResortGrid(handle.definition->source().definition, *handle.grid, sorting);
  handle.definition->set_grid(std::move(grid));
  store_.Drop(*handle.instance, "");
  return Handle(handle.instance, ResultOf(*handle.instance, *handle.definition));
}

}  // namespace tessera::service
