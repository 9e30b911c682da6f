#!/usr/bin/env bash
# Migration figures between two servers, each with its own SQLite storage service and
# one shared package location: a source project of the demo bundle plus OBJECTS generated metrics
# (1,000 per folder) and a target loaded from the demo bundle alone. Every generated metric is
# migrated in the Python client's order (create with tocView.content, import request and approval
# on the source, PUT on the target with the showContent=all record and replicated: true,
# generateUndo=true, undo request and approval on the target), RUNS times per size. Prints for
# each run, and as medians per size,
#   - creation: POST /api/migrations until packageInfo.status is created,
#   - download: GET /api/migrations/packages/{id}/binary on the source,
#   - upload:   POST .../sharedFileStore/files and the multipart PUT of the package on the target,
#   - import:   PUT /api/migrations/{id} until importInfo.status is imported,
#   - undo:     PATCH undoRequestStatus requested, approved until importInfo.status is undo_success,
# as seconds, objects/s and MB/s (package file size over the phase's time), and the server's
# VmHWM before and after each phase: every phase runs in a freshly started server process, so
# the growth is the phase's own peak. Servers run with MALLOC_ARENA_MAX (default 2). Generated
# bundles, storage services and packages live in a temporary folder removed on exit. Asserts
# nothing. PURPOSE=project_merge migrates the whole source project instead, with no content list.
#
#   bench/migration.sh [BINARY]      (default build/release/tessera)
#   OBJECTS="10000 100000" RUNS=3 POLL_SECONDS=0.2 TIMEOUT_SECONDS=300 MALLOC_ARENA_MAX=2 \
#     bench/migration.sh
# A phase still running after TIMEOUT_SECONDS stops the benchmark with an error.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-build/release/tessera}")
sizes=${OBJECTS:-10000 100000}
runs=${RUNS:-3}
poll=${POLL_SECONDS:-0.2}
timeout=${TIMEOUT_SECONDS:-300}
purpose=${PURPOSE:-object_migration}
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/packages"

for objects in $sizes; do
  python3 bench/migration_bench.py bundle demo/tutorial "$work/bundle-$objects" "$objects"
  started=$(date +%s.%N)
  "$binary" project import "$work/bundle-$objects" --data-dir "$work/source-$objects" \
    --log-level warn >/dev/null
  loaded=$(date +%s.%N)
  "$binary" project import demo/tutorial --data-dir "$work/target-$objects" --log-level warn \
    >/dev/null
  awk -v n="$objects" -v s="$started" -v e="$loaded" \
    'BEGIN { printf "source project with %d generated metrics loaded in %.1f s\n", n, e - s }'
done

echo "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX, $runs run(s) per size, status polled every $poll s"
# shellcheck disable=SC2086
python3 bench/migration_bench.py run "$binary" "$work" $sizes --runs "$runs" --poll "$poll" \
  --timeout "$timeout" --purpose "$purpose"
