#!/usr/bin/env bash
# The query set of bench/queries.json over HTTP: each query becomes one instance of the
# demo's Order Lines Cube (its requested attributes and metrics, view filter, metric limits and
# sorting; a top-N is the first page of that size), created 7 times for the median latency. Every
# answer is checked against SQLite running the query's own SQL on the same warehouse. Prints
# figures and mismatches; exits non-zero on a wrong answer.
#
#   bench/cube_queries_http.sh [ROWS] [BINARY]      (default 10000000, build/release/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
binary=$(realpath "${2:-build/release/tessera}")
queries=$(realpath bench/queries.json)

source bench/demo_server.sh
start_demo_server "$rows" "$binary"

python3 bench/cube_queries_http.py "$port" "$queries" "$data/warehouse.db"
