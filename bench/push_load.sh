#!/usr/bin/env bash
# Pushed data speed: a million sales rows uploaded through an upload session and published, in
# rows per second against PostgreSQL's COPY of the same rows (median of 5; bench/push_load.py
# says what is timed). PostgreSQL is a private cluster of scripts/with-test-postgres.sh; Tessera
# runs with its default embedded store in a temporary data directory.
#
#   bench/push_load.sh [BINARY]      (default build/release/tessera)
#   environment: ROWS, CHUNK_ROWS, RUNS (see bench/push_load.py); PERF_DATA=FILE records a
#   profile of the server (PERF_ARGS, default "-F 499 -g")
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/release/tessera}

if [[ -z "${TESSERA_TEST_PG:-}" ]]; then
  exec scripts/with-test-postgres.sh "$0" "$binary"
fi
[[ -n "${TESSERA_PG_BINDIR:-}" ]] || { echo "push_load: PostgreSQL is required"; exit 2; }

data=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
${PERF_DATA:+perf record ${PERF_ARGS:--F 499 -g} -o "$PERF_DATA" --} "$binary" serve --listen "127.0.0.1:$port" --data-dir "$data" --access-log false --log-level warn \
  --demo-on-first-start false &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/status" >/dev/null && break; sleep 0.1; done
"$binary" project create "Bench" --data-dir "$data" >/dev/null 2>&1 || true

psql="$TESSERA_PG_BINDIR/psql"
[[ -x "$psql" ]] || psql=$(command -v psql)
# The server's CPU time is read from /proc, so not when perf is its parent.
server_pid=$server
[[ -z "${PERF_DATA:-}" ]] || server_pid=
SERVER_PID=$server_pid python3 bench/push_load.py "$port" "$TESSERA_TEST_PG" "$psql"
