// service/cube/cube_info.h
//
// What clients see of a cube's life: its owner, its place in the folder tree, the size of its
// dataset and its status as the reference server's bit vector, and publishing it as a job clients
// can name.
//
// Status bits: never published (or only failed publishes) = 0; a dataset served = Active |
// Persisted | Loaded | Ready = 102; a publish running adds Processing (1).
//
// Contract:
//   - A malformed cube id is Error(kInvalidInput). FindCubeInfo() answers nullopt for an id that
//     names no cube (GET /api/cubes leaves unknown ids out); StartCubePublish() and
//     CubeStatusOf() throw Error(kNotFound) for one, WrongDatasetKind when it names a report.
//   - Reading needs browse and read on the cube (Error(kAccessDenied)); publishing needs the
//     Publish cubes privilege on the project (Error(kInsufficientPrivileges)) and execute on the
//     cube.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/time.h"
#include "service/cube/cube_service.h"
#include "service/object/object_service.h"
#include "service/session/principal.h"

namespace tessera::service::cube {

inline constexpr int kCubeStatusProcessing = 1;
inline constexpr int kCubeStatusPublished = 2 | 4 | 32 | 64;  // Active|Persisted|Loaded|Ready

int CubeStatusBits(const CubeStatus& status);

struct CubeInfo {
  std::string id;
  std::string name;
  std::string owner_id;
  std::string path;  // "\<project root>\<folder>\...\<cube name>"
  Timestamp modified;
  Timestamp last_update;  // the latest publish; the modification time before the first one
  int64_t size_bytes = 0;
  int status = 0;
};

std::optional<CubeInfo> FindCubeInfo(object::ObjectService& objects, CubeService& cubes,
                                     const session::Principal& principal,
                                     const std::string& project_id, const std::string& cube_id);

// The status bits of one cube.
int CubeStatusOf(object::ObjectService& objects, CubeService& cubes,
                 const session::Principal& principal, const std::string& project_id,
                 const std::string& cube_id);

struct PublishJob {
  int64_t job_id = 0;
  std::string id;  // "<job id>:<cube id><project id>", so any node can answer for the job
};

// Starts (or joins) a publish of the cube (CubeService::Publish) and names it.
PublishJob StartCubePublish(object::ObjectService& objects, CubeService& cubes,
                            const session::Principal& principal, const std::string& project_id,
                            const std::string& cube_id);

// What the job monitor shows of a publish named by PublishJob::id: the cube's latest publish.
struct PublishJobView {
  std::string id;
  std::string cube_id;
  std::string cube_name;
  std::string project_id;
  std::string project_name;
  CubeState state = CubeState::kNotPublished;
  std::string error_message;
  int64_t elapsed_ms = 0;
};

// Error(kNotFound) for an id no publish job was given; reading needs read on the cube.
PublishJobView FindPublishJob(object::ObjectService& objects, CubeService& cubes,
                              const session::Principal& principal, const std::string& job_id);

}  // namespace tessera::service::cube
