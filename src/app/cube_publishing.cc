#include "app/cube_publishing.h"

#include <iostream>
#include <map>
#include <stdexcept>

#include "app/progress_bar.h"
#include "core/time.h"
#include "service/cube/cube_service.h"
#include "service/job_runner.h"
#include "service/project/project_model.h"
#include "service/project/warehouse_registry.h"

namespace tessera::app {

namespace {

// The warehouses of the cubes' projects, with their connections from the configuration.
service::project::WarehouseRegistry WarehousesOf(const Config& config,
                                                 storage::MetadataStore& store,
                                                 const std::vector<FoundReport>& cubes) {
  std::map<std::string, std::string> urls;
  for (const auto& cube : cubes) {
    const std::string name = service::project::LoadWarehouseName(store, cube.project.id);
    urls.emplace(name, config.WarehouseUrl(name));
  }
  return service::project::WarehouseRegistry(std::move(urls));
}

service::cube::CubeServiceOptions CubeOptions(const Config& config) {
  service::cube::CubeServiceOptions options;
  options.data_dir = std::filesystem::absolute(config.data_dir);
  options.cubes_dir = config.ResolvedCubesDir();
  return options;
}

std::string Label(const FoundReport& cube) { return "cube '" + cube.object.name + "'"; }

// Publishes one cube, ticking `bar` while the publish runs.
service::cube::CubeStatus PublishOne(service::cube::CubeService& cubes, const FoundReport& cube,
                                     ProgressBar& bar) {
  TickWhile(bar, [&] {
    cubes.Publish(cube.project.id, cube.object.id);
    cubes.WaitForPublish(cube.project.id, cube.object.id);
  });
  return cubes.Status(cube.project.id, cube.object.id);
}

}  // namespace

void PublishCubes(const Config& config, storage::MetadataStore& store,
                  const std::vector<FoundReport>& cubes) {
  service::project::WarehouseRegistry warehouses = WarehousesOf(config, store, cubes);
  // Its own runner: a publish this command leaves behind when killed is failed by a server once
  // the lease has expired.
  service::JobRunner jobs(store, {});
  service::cube::CubeService cube_service(store, warehouses, jobs, CubeOptions(config));
  cube_service.RegisterJobs();
  for (size_t i = 0; i < cubes.size(); ++i) {
    const FoundReport& cube = cubes[i];
    std::string label = "publishing " + Label(cube);
    if (cubes.size() > 1) {
      label += " (" + std::to_string(i + 1) + "/" + std::to_string(cubes.size()) + ")";
    }
    ProgressBar bar(label);
    const service::cube::CubeStatus status = PublishOne(cube_service, cube, bar);
    if (status.state != service::cube::CubeState::kReady) {
      bar.Finish("failed");
      throw std::runtime_error(Label(cube) + " (" + cube.object.id +
                               ") failed to publish: " + status.error_message);
    }
    bar.Finish("done");
    std::cout << Label(cube) << ": " << status.rows << " rows in "
              << status.last_publish_duration_ms << " ms\n"
              << std::flush;
  }
}

std::string DescribeCubeStatus(const Config& config, storage::MetadataStore& store,
                               const FoundReport& cube) {
  service::project::WarehouseRegistry warehouses = WarehousesOf(config, store, {cube});
  service::JobRunner jobs(store, {});
  service::cube::CubeService cube_service(store, warehouses, jobs, CubeOptions(config));
  const service::cube::CubeStatus status = cube_service.Status(cube.project.id, cube.object.id);
  std::string text =
      Label(cube) + " (" + cube.object.id + ") in project '" + cube.project.name + "': ";
  const std::string served = std::to_string(status.rows) + " rows, published " +
                             FormatTimestamp(FromUnixMillis(status.published_ms));
  switch (status.state) {
    case service::cube::CubeState::kNotPublished:
      return text + "not published";
    case service::cube::CubeState::kPublishing:
      return text + "publishing" + (status.published_ms > 0 ? "; serving " + served : "");
    case service::cube::CubeState::kReady:
      return text + "ready, " + served + " in " + std::to_string(status.last_publish_duration_ms) +
             " ms";
    case service::cube::CubeState::kFailed:
      return text + "failed: " + status.error_message +
             (status.published_ms > 0 ? "; serving " + served : "");
  }
  return text;
}

}  // namespace tessera::app
