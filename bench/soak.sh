#!/usr/bin/env bash
# Soak test: 64 connections (SOAK_CONNECTIONS) run a mixed workload for 10 minutes
# (SOAK_SECONDS) against a fresh release server with a demo of 100,000 fact rows (ROWS, the first
# argument): logins, searches, report and cube instances and pages, elements, dashboards with
# selector changes, pushed data, and a migration package now and then. Prints the requests by
# status, the 5xx and failed requests, and the server's RSS at start, middle and end; exits 1 on
# any 5xx or failed request.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
seconds=${SOAK_SECONDS:-600}
connections=${SOAK_CONNECTIONS:-64}
binary=build/release/tessera
[ -x "$binary" ] || make build >/dev/null
source bench/demo_server.sh
start_demo_server "$rows" "$binary"
# The demo's cubes publish in the background after the first start: wait for them.
python3 - "$port" <<'PY'
import sys, json, time, urllib.request
sys.path.insert(0, "bench")
from demo_client import DemoClient
client = DemoClient(int(sys.argv[1]))
for name in ("Sales Cube", "Item Sales Cube", "Order Lines Cube"):
    cube = client.search(name, 776)
    while True:
        _, headers, _ = client.call("HEAD", f"/api/cubes/{cube}", headers=client.auth)
        if int(headers["X-MSTR-CubeStatus"]) & 64 and not int(headers["X-MSTR-CubeStatus"]) & 1:
            break
        time.sleep(0.2)
PY
python3 bench/soak.py "$port" "$server" "$seconds" "$connections"
