// service/dashboard/dashboard_instance.h
//
// What a dashboard instance keeps: the dashboard it was made from with its datasets
// resolved, the project, and its current state with the render run of that state.
//
// The state is a snapshot: readers take it with its run and work on them without a lock; a
// manipulation publishes the next state and run together. `manipulation` serialises the
// manipulations of one instance (PUT filters, refresh, prompt answers) so none is lost.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "model/dashboard.h"
#include "service/dashboard/dashboard_state.h"
#include "service/dashboard/visualization_render.h"
#include "service/instance/dataset_definition_service.h"
#include "service/instance/instance_store.h"

namespace tessera::service::dashboard {

// A dashboard with each of its datasets (reports and cubes) resolved.
struct DashboardModel {
  std::string project_id;
  model::Dashboard dashboard;
  std::map<std::string, instance::ResolvedDataset, std::less<>> datasets;  // by dataset id
};

class DashboardInstance : public instance::InstanceDefinition {
 public:
  struct Snapshot {
    std::shared_ptr<const DashboardState> state;
    std::shared_ptr<RenderRun> run;  // null until the state is executed
  };

  DashboardInstance(std::shared_ptr<const DashboardModel> model, bool persist_view_state)
      : model_(std::move(model)), persist_view_state_(persist_view_state) {}

  const DashboardModel& model() const { return *model_; }
  const std::string& project_id() const { return model_->project_id; }
  bool persist_view_state() const { return persist_view_state_; }

  Snapshot Current() const;
  void Publish(Snapshot snapshot) const;

  std::mutex& manipulation() const { return manipulation_; }

 private:
  const std::shared_ptr<const DashboardModel> model_;
  const bool persist_view_state_;
  mutable std::mutex mutex_;
  mutable Snapshot current_;
  mutable std::mutex manipulation_;
};

}  // namespace tessera::service::dashboard
