// app/cube_publishing.h
//
// Publishing the cubes of a data directory from the command line (`tessera cube publish`,
// `tessera demo`) and describing their state (`tessera cube status`).
//
// Contract:
//   - PublishCubes publishes the cubes one after another on the project's warehouse (its
//     connection from `config`), each with a progress bar on stderr, and prints one line per cube
//     on stdout: "cube 'Sales Cube': 1234 rows in 56 ms". It runs the publish job as a server
//     would (service::cube::CubeService with its own job runner), so a publish this command leaves
//     behind when killed is failed by the next server on the data directory. The first failure
//     throws std::runtime_error "cube 'X' (ID) failed to publish: <why>"; the cube keeps serving
//     its previous dataset.
//   - A server running on the same data directory sees the new status at once, but keeps serving
//     the dataset it has loaded until it restarts or publishes the cube itself.
//   - DescribeCubeStatus gives one line, e.g.
//     "cube 'Sales Cube' (ID) in project 'Tutorial': ready, 1234 rows, published
//      2026-11-26T18:00:00.000+0000 in 56 ms"; "... not published"; "... failed: <why>".
#pragma once

#include <string>
#include <vector>

#include "app/cli_lookup.h"
#include "app/config.h"
#include "storage/metadata_store.h"

namespace tessera::app {

void PublishCubes(const Config& config, storage::MetadataStore& store,
                  const std::vector<FoundReport>& cubes);

std::string DescribeCubeStatus(const Config& config, storage::MetadataStore& store,
                               const FoundReport& cube);

}  // namespace tessera::app
