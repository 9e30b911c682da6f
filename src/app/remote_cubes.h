// app/remote_cubes.h
//
// `tessera cube publish|status --server URL`: publishing the cubes of a running server and
// showing their state through its REST API, as any client does, so that the server serves the
// new dataset at once.
//
// Contract:
//   - FindRemoteCube finds a cube by id, or by name ignoring case (an exact spelling wins among
//     names differing only by case), in `project` (id or name) or, when it is empty, in every
//     project of the server. It throws std::invalid_argument naming what is missing and where:
//     "no cube 'X' in project 'P' on http://h:1/; its cubes are: 'A', 'B'", or listing the cubes
//     a name matches in several projects.
//   - PublishRemoteCubes publishes the cubes one after another: it starts a publish (POST
//     /api/cubes/{id}), follows its job (GET /api/v2/monitors/jobs/{id}) every 200 ms with a
//     progress bar on stderr, and prints one line per cube on stdout:
//     "cube 'Sales Cube': published in 56 ms". A failed publish throws std::runtime_error
//     "cube 'X' (ID) failed to publish: <the server's message>" (the cube keeps serving its
//     previous dataset); a publish still running after 30 minutes, "gave up waiting ...".
//   - DescribeRemoteCubeStatus gives one line from the server's cube info:
//     "cube 'Sales Cube' (ID) in project 'Tutorial': ready, 12345 bytes in memory, last updated
//      11/26/2026 18:00:00 UTC"; "...: publishing"; "...: not published".
#pragma once

#include <string>

#include "app/migration_client.h"
#include "app/remote_server.h"

namespace tessera::app {

struct RemoteCube {
  RemoteProject project;
  std::string id;
  std::string name;
};

RemoteCube FindRemoteCube(RemoteServer& server, const std::string& id_or_name,
                          const std::string& project);

void PublishRemoteCubes(RemoteServer& server, const std::vector<RemoteCube>& cubes);

std::string DescribeRemoteCubeStatus(RemoteServer& server, const RemoteCube& cube);

}  // namespace tessera::app
