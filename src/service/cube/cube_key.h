// service/cube/cube_key.h
//
// A cube of a project, named by canonical (upper-case) object ids: a key is safe in a file name,
// and the two spellings of one id name one cube. CubeKeyOf() makes a key of ids as a caller gave
// them, or throws Error(kInvalidInput) naming the malformed one ("projectId", then "cubeId").
#pragma once

#include <string>

#include "core/ids.h"

namespace tessera::service::cube {

struct CubeKey {
  std::string project_id;
  std::string cube_id;
  // "<project id>:<cube id>": how this node files the cube, and the payload of its notices.
  std::string text() const { return project_id + ":" + cube_id; }
};

inline CubeKey CubeKeyOf(const std::string& project_id, const std::string& cube_id) {
  return {RequireObjectId(project_id, "projectId"), RequireObjectId(cube_id, "cubeId")};
}

}  // namespace tessera::service::cube
