#!/usr/bin/env bash
# kill-test.sh [KILLS] [SEED]
#
# The long run of the kill -9 tests (tests/api/kill_recovery_api_test.cc): KILLS kills (default
# 50) of a package creation, an import, an undo and a cube publish each, at random moments, on
# SQLite and on a private PostgreSQL cluster (scripts/with-test-postgres.sh). SEED replays the
# moments of an earlier run; each test prints its seed and the outcomes it saw. Needs the test
# build (`make test-build`, or `cmake --build build/asan --target tessera api_tests`).
set -euo pipefail

cd "$(dirname "$0")/.."
build="${TESSERA_TEST_BUILD:-build/asan}"
export TESSERA_KILL_RUNS="${1:-50}"
if [[ $# -ge 2 ]]; then export TESSERA_KILL_SEED="$2"; fi
export TESSERA_BINARY="${TESSERA_BINARY:-$PWD/$build/tessera}"
exec scripts/with-test-postgres.sh "$build/api_tests" \
  --gtest_filter='*CubePublishKills*:*MigrationKills*'
