// service/dashboard/dashboard_service.h
//
// Dashboards and their instances: the saved definition, instance creation (of a saved dashboard
// or of an in-memory one over reports and cubes; resolved only or executed, with filters, at a
// target page), filters, suggested elements for a selector, visualization results, and the
// instance calls (status, refresh, prompts, delete).
//
// Contract:
//   - A dashboard is a type-55 object marked as a dashboard, read with browse and read rights;
//     anything else is Error(kNotFound). Its datasets are resolved when it is opened; a dataset
//     the caller may not read fails the call (Error(kAccessDenied)).
//   - Instance calls find the caller's instance of that dashboard (Error(kNotFound) for an
//     unknown, foreign or expired id); when the caller names a project it must be the instance's.
//   - Creation and filters validate every entry before any change (filter_entries.h); a failed
//     call creates or changes nothing.
//   - Rendering: an executed state renders the visualizations of its current chapter, current page
//     first, each page's in their order on the page, as one RenderRun (visualization_render.h):
//     when the state's parallel flag is set, started in that order and at most as many at once
//     as the node has pre-render slots (shared by every instance), else strictly in order.
//     Visualization() waits for its own result only (claim-or-wait). The flag is set at creation
//     (enableParallelRendering, or parallelRenderingAfterManipulation when creation applies
//     filters) and by a manipulation that asks for it, always ANDed with the dashboard's
//     parallelRendering property; every other manipulation clears it. Results are cached per state
//     generation in the InstanceStore.
//   - A visualization that cannot be computed (an unpublished cube) fails alone.
//   - Thread-safe.
#pragma once

#include <chrono>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/thread_pool.h"
#include "service/dashboard/dashboard_instance.h"
#include "service/dashboard/filter_entries.h"
#include "service/dashboard/visualization_query.h"
#include "service/dashboard/visualization_render.h"
#include "service/instance/dataset_definition_service.h"
#include "service/instance/dataset_instance_service.h"
#include "service/instance/instance_store.h"
#include "service/instance/shared_instances.h"
#include "service/object/object_service.h"

namespace tessera::service::dashboard {

inline constexpr const char* kInMemoryDashboardId = "00000000000000000000000000000000";

struct DashboardCreateOptions {
  bool persist_view_state = false;
  bool resolve_only = false;
  bool ignore_missing_filter = false;
  bool enable_parallel_rendering = true;
  bool apply_filter_resolve_only = false;
  bool parallel_rendering_after_manipulation = false;
  // nullopt = none. Refused, when the body's filters could not be read, after the dashboard, the
  // bookmark and the target page.
  Parsed<std::optional<std::vector<FilterEntry>>> filters;
  std::optional<std::string> target_page_key;
  std::optional<std::string> bookmark_id;
};

struct DashboardFilterOptions {
  bool ignore_missing_filter = false;
  bool execute = false;  // executionMode=DATA
  bool parallel_rendering_after_manipulation = false;
};

// A dashboard as the definition reads show it.
struct DashboardView {
  std::shared_ptr<const DashboardModel> model;
  std::shared_ptr<const DashboardState> state;
  std::shared_ptr<instance::Instance> keep_alive;  // the instance, for an instance's definition
};

struct VisualizationAnswer {
  std::shared_ptr<instance::Instance> keep_alive;
  std::shared_ptr<const DashboardModel> model;
  const model::Visualization* visualization = nullptr;  // lives as long as `model`
  VisualizationPlan plan;
  instance::ResultPtr result;
};

struct ElementsQuery {
  std::string filter_key;
  std::string target_id;
  std::string pattern;
  std::vector<std::string> form_ids;  // empty = the display forms
  bool prefix = false;
  int64_t offset = 0;
  int64_t limit = -1;
};

struct SuggestedElement {
  std::string id;  // "h" form
  std::string name;
};

struct ElementsAnswer {
  std::vector<SuggestedElement> elements;
  int64_t total = 0;
};

struct DashboardInstanceStatus {
  std::string dashboard_id;
  std::string instance_id;
  bool resolve_only = false;
  bool parallel_rendering = false;
};

class DashboardService {
 public:
  DashboardService(object::ObjectService& objects, instance::DatasetDefinitionService& definitions,
                   instance::InstanceStore& store, instance::SharedInstances& shared);

  DashboardView Definition(const session::Principal& principal, const std::string& project_id,
                           const std::string& id);
  DashboardView InstanceDefinition(const instance::InstanceCaller& caller, const std::string& id,
                                   const std::string& instance_id);

  std::string Create(const instance::InstanceCaller& caller, const std::string& id,
                     const DashboardCreateOptions& options);
  // An in-memory dashboard: one chapter, one page, one grid per report or cube.
  std::string CreateInMemory(const instance::InstanceCaller& caller,
                             const std::vector<std::string>& object_ids,
                             const DashboardCreateOptions& options);

  void SetFilters(const instance::InstanceCaller& caller, const std::string& id,
                  const std::string& instance_id, const Parsed<std::vector<FilterEntry>>& entries,
                  const DashboardFilterOptions& options);
  void Refresh(const instance::InstanceCaller& caller, const std::string& id,
               const std::string& instance_id);
  void AnswerPrompts(const instance::InstanceCaller& caller, const std::string& id,
                     const std::string& instance_id);
  void Delete(const instance::InstanceCaller& caller, const std::string& id,
              const std::string& instance_id);
  DashboardInstanceStatus Status(const instance::InstanceCaller& caller, const std::string& id,
                                 const std::string& instance_id);

  ElementsAnswer Elements(const instance::InstanceCaller& caller, const std::string& id,
                          const std::string& instance_id, const ElementsQuery& query);

  // Error(kNotFound) saying which chapter key to use when `chapter_key` does not hold the
  // visualization (service/dashboard/visualization_address.h).
  VisualizationAnswer Visualization(const instance::InstanceCaller& caller, const std::string& id,
                                    const std::string& instance_id, const std::string& chapter_key,
                                    const std::string& visualization_key);

  // The display name of an element "<attribute id>:<key>" of the dashboard's data ("" unknown).
  std::string ElementName(const DashboardModel& model, const std::string& element_id);

  // The compute pool, and the node's pre-render slots shared by every instance's render: at most
  // `render_slots` visualizations pre-rendered at once (0: as many as the pool has workers).
  void set_pool(ThreadPool* pool, size_t render_slots = 0);
  // The time one computation on data may take before it stops with Error(kTimeout).
  void set_query_budget(std::chrono::milliseconds budget) { query_budget_ = budget; }
  void set_hooks(RenderHooks hooks) { hooks_ = std::move(hooks); }

 private:
  struct Opened {
    std::shared_ptr<instance::Instance> instance;
    const DashboardInstance* definition = nullptr;
  };

  std::shared_ptr<const DashboardModel> Load(const session::Principal& principal,
                                             const std::string& project_id, const std::string& id);
  std::shared_ptr<const DashboardModel> ModelOf(const session::Principal& principal,
                                                const std::string& project_id,
                                                model::Dashboard dashboard);
  std::shared_ptr<const DashboardModel> InMemoryModel(const session::Principal& principal,
                                                      const std::string& project_id,
                                                      const std::vector<std::string>& object_ids);
  Opened Open(const instance::InstanceCaller& caller, const std::string& id,
              const std::string& instance_id);
  // The instance another node made, from its record; null when there is none for the caller.
  std::shared_ptr<instance::Instance> Rebuild(const instance::InstanceCaller& caller,
                                              const instance::InstanceOwner& owner,
                                              const std::string& instance_id);
  void Save(instance::Instance& instance, const DashboardInstance& definition,
            const DashboardState& state);
  std::string CreateFrom(const instance::InstanceCaller& caller,
                         std::shared_ptr<const DashboardModel> model,
                         const DashboardCreateOptions& options);

  DashboardState SavedStateOf(const DashboardModel& model);
  FilterContext ContextOf(const DashboardModel& model, const DashboardState& state);
  // Publishes `state` as the instance's next generation, with its render started when executed;
  // with `record`, records it for the other nodes first.
  void Publish(const std::shared_ptr<instance::Instance>& instance,
               const DashboardInstance& definition, DashboardState state, bool record = true);
  std::shared_ptr<RenderRun> StartRender(const std::shared_ptr<instance::Instance>& instance,
                                         const DashboardInstance& definition,
                                         std::shared_ptr<const DashboardState> state);
  instance::ResultPtr ComputeVisualization(instance::Instance& instance,
                                           const DashboardInstance& definition,
                                           const DashboardState& state, const std::string& key);
  std::shared_ptr<const engine::Dataset> RowsOf(instance::Instance* instance,
                                                const DashboardModel& model,
                                                const std::string& dataset_id);
  std::shared_ptr<const engine::Dataset> CubeRowsOf(const DashboardModel& model,
                                                    const std::string& dataset_id);

  object::ObjectService& objects_;
  instance::DatasetDefinitionService& definitions_;
  instance::InstanceStore& store_;
  instance::SharedInstances& shared_;
  std::chrono::milliseconds query_budget_{std::chrono::minutes(5)};
  ThreadPool* pool_ = nullptr;
  std::shared_ptr<RenderSlots> render_slots_;  // null without a pool
  RenderHooks hooks_;
};

}  // namespace tessera::service::dashboard
