#!/usr/bin/env bash
# GET /api/projects latency on an idle release server and while two requests with maximal view
# filters compute (bench/metadata_latency.py), on a demo of ROWS fact rows (default 100,000).
#   bench/metadata_latency.sh [ROWS]      SAMPLES=N calls per phase (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
binary=build/release/tessera
[ -x "$binary" ] || make build >/dev/null
source bench/demo_server.sh
start_demo_server "$rows" "$binary"
python3 bench/metadata_latency.py "$port" "${SAMPLES:-200}"
