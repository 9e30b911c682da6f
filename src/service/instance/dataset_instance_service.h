// service/instance/dataset_instance_service.h
//
// Report and cube instances: an instance is created from a request
// (service/instance/instance_request.h), computes its grid once on the engine, and serves pages of
// that frozen result until it expires.
//
// An instance of a cube (or of a report on a cube) reads the version of the cube's rows served
// when it was made, whatever is published later, on every node (CubeService::GetAt()).
//
// Evaluation: the rows of the report or cube (a cube's published dataset; a warehouse report's
// template objects at their own level, queried when the result is computed) -> the view filter
// on those rows (and, for a report reading a cube, the report's filter) -> aggregation to the
// grid's attributes -> metric limits -> sort. No attributes gives one total row (none when no
// row passes); no attributes and no metrics give no rows.
//
// Contract:
//   - Create() checks the caller's rights and the request against the definition before any data
//     is read; every bad request is Error(kInvalidInput) and creates nothing. With `async_after`,
//     the result is computed on the compute pool and Create() waits at most that long: a result
//     not ready by then leaves `result` null (the caller answers 202 and clients poll); without
//     it (or without a pool) the result is computed before Create() returns. A computation that
//     fails removes the instance and throws its error to the synchronous caller; an asynchronous
//     failure is kept and thrown by every later Open().
//   - Open() finds the caller's instance of that object (otherwise Error(kNotFound) "Report or
//     cube instance '<id>' was not found or has expired.", for reports and cubes alike) and returns
//     its result, recomputing it when the memory budget dropped it; `wait` false returns a null
//     result while an asynchronous computation still runs.
//   - Resort() gives the instance a new sorting (a sort item naming what the grid does not show
//     is Error(kInvalidInput) and leaves it unchanged) and returns the re-sorted result.
//   - Every instance is recorded in the storage service (service/instance/shared_instances.h):
//   Open(),
//     Check() and Resort() of an instance this node does not hold rebuild it from its record --
//     the same request on the same rows, re-sorted as it was -- so any node answers for it, and
//     a rebuilt result has the same rows in the same order (the engine's answers do not depend
//     on timing). A record written before requests were typed is not rebuilt: its instance is
//     not found.
//   - Thread-safe; many Open() calls on one instance may run at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/thread_pool.h"
#include "service/instance/dataset_definition_service.h"
#include "service/instance/instance_request.h"
#include "service/instance/instance_store.h"
#include "service/instance/shared_instances.h"
#include "service/parsed.h"

namespace tessera::service::instance {

struct InstanceCaller {
  const session::Principal& principal;
  std::string session_id;
  std::string project_id;
};

// What an instance keeps: its request, the grid it shows and where its rows come from.
class DatasetInstance : public InstanceDefinition {
 public:
  // `version`: for a cube's rows, the version the instance reads (empty for a warehouse report).
  DatasetInstance(std::string project_id, DatasetFilter kind, ResolvedDataset source,
                  cube::CubeService::Version version, InstanceRequest request, InstanceGrid grid);

  const std::string& project_id() const { return project_id_; }
  DatasetFilter kind() const { return kind_; }  // what the path named: report, cube or either
  const ResolvedDataset& source() const { return source_; }
  const cube::CubeService::Version& version() const { return version_; }
  const InstanceRequest& request() const { return request_; }
  std::shared_ptr<const InstanceGrid> grid() const;
  void set_grid(InstanceGrid grid) const;

  // The asynchronous computation, when there is one.
  bool IsRunning() const;
  void RethrowFailure() const;  // the error of a failed asynchronous computation, if any
  void MarkRunning() const;
  void MarkDone(std::exception_ptr failure) const;
  bool WaitUntilDone(std::chrono::milliseconds timeout) const;

 private:
  const std::string project_id_;
  const DatasetFilter kind_;
  const ResolvedDataset source_;
  const cube::CubeService::Version version_;
  const InstanceRequest request_;
  mutable std::mutex mutex_;
  mutable std::condition_variable done_;
  mutable std::shared_ptr<const InstanceGrid> grid_;
  mutable bool running_ = false;
  mutable std::exception_ptr failure_;
};

struct InstanceHandle {
  std::shared_ptr<Instance> instance;
  const DatasetInstance* definition = nullptr;  // lives as long as `instance`
  std::shared_ptr<const InstanceGrid> grid;
  ResultPtr result;  // null while an asynchronous computation runs
};

class DatasetInstanceService {
 public:
  DatasetInstanceService(DatasetDefinitionService& definitions, InstanceStore& store,
                         SharedInstances& shared, ThreadPool* pool);

  // A fault of `request` is refused once the report or cube is found and readable.
  InstanceHandle Create(const InstanceCaller& caller, const std::string& object_id,
                        DatasetFilter kind, Parsed<InstanceRequest> request,
                        std::optional<std::chrono::milliseconds> async_after = std::nullopt);
  InstanceHandle Open(const InstanceCaller& caller, const std::string& object_id,
                      const std::string& instance_id, bool wait = true);
  // The caller's instance, without its result (checks that cost nothing).
  const DatasetInstance& Check(const InstanceCaller& caller, const std::string& object_id,
                               const std::string& instance_id,
                               std::shared_ptr<Instance>* keep_alive);
  // nullopt: the default order. A fault of `sorting` is refused once the instance is found.
  InstanceHandle Resort(const InstanceCaller& caller, const std::string& object_id,
                        const std::string& instance_id,
                        const Parsed<std::optional<Sorting>>& sorting);

  void set_pool(ThreadPool* pool) { pool_ = pool; }
  // The time one computation on data may take before it stops with Error(kTimeout).
  void set_query_budget(std::chrono::milliseconds budget) { query_budget_ = budget; }

 private:
  ResultPtr Compute(const DatasetInstance& definition);
  ResultPtr ResultOf(Instance& instance, const DatasetInstance& definition);
  InstanceHandle Handle(std::shared_ptr<Instance> instance, ResultPtr result) const;
  std::shared_ptr<Instance> Find(const InstanceCaller& caller, const std::string& object_id,
                                 const std::string& instance_id);
  std::shared_ptr<Instance> Rebuild(const InstanceCaller& caller, const InstanceOwner& owner,
                                    const std::string& instance_id);
  // What the instance's record keeps; `resorting`: the sorting of the last Resort(), nullopt
  // before any (and after one to the default order).
  static Json RecordOf(const DatasetInstance& definition, const std::optional<Sorting>& resorting);

  DatasetDefinitionService& definitions_;
  InstanceStore& store_;
  SharedInstances& shared_;
  std::chrono::milliseconds query_budget_{std::chrono::minutes(5)};
  ThreadPool* pool_;
};

}  // namespace tessera::service::instance
