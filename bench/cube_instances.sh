#!/usr/bin/env bash
# Cube instance figures over HTTP on the demo project: the Sales Cube's publish time, the creation
# latency of a few instance shapes (median of 7), the throughput of reading the cube's largest grid
# in 100,000-row pages (rows/s and MB/s of JSON, as the Python client asks for them), and the
# requests/s of creating a small instance at 16 connections (wrk), and the memory of the Sales Cube
# and of the roll-ups of the cubes in memory (/metrics). Prints figures; asserts nothing.
#
#   bench/cube_instances.sh [ROWS] [BINARY]      (default 10000000, build/release/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
binary=$(realpath "${2:-build/release/tessera}")
duration=${DURATION:-10s}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 2; }

source bench/demo_server.sh
start_demo_server "$rows" "$binary"

python3 - "$port" "$duration" <<'PY'
import json, statistics, subprocess, sys, time, urllib.parse

sys.path.insert(0, "bench")
from demo_client import DemoClient

port, duration = sys.argv[1], sys.argv[2]
client = DemoClient(port)
base, call, auth, search = client.base, client.call, client.auth, client.search
cube = search("Sales Cube", 776)
definition = json.loads(call("GET", f"/api/v2/cubes/{cube}", headers=auth)[2])
objects = definition["definition"]["availableObjects"]
attribute = {a["name"]: a["id"] for a in objects["attributes"]}
metric = {m["name"]: m["id"] for m in objects["metrics"]}
print(f"Sales Cube publish: {client.publish(cube):.1f} s")

def memory():
    """The Sales Cube's size (GET /api/cubes?id=), and /metrics' bytes of every cube in memory
    and of their roll-ups (None from a server without roll-ups)."""
    info = json.loads(call("GET", f"/api/cubes?id={cube}", headers=auth)[2])
    sales = next(c["size"] for c in info["cubesInfos"] if c["cubeId"] == cube)
    samples = {}
    for line in call("GET", "/metrics")[2].decode().splitlines():
        name, _, value = line.partition(" ")
        if name in ("tessera_cube_bytes", "tessera_cube_rollup_bytes"):
            samples[name] = float(value)
    return sales, samples.get("tessera_cube_bytes"), samples.get("tessera_cube_rollup_bytes")

sales_bytes, cube_bytes, rollup_bytes = memory()
print(f"Sales Cube memory: {sales_bytes / 1e6:.1f} MB; cubes in memory: {cube_bytes / 1e6:.1f} MB",
      end="")
if rollup_bytes is None:
    print(", no roll-ups")
else:
    print(f", their roll-ups: {rollup_bytes / 1e6:.1f} MB "
          f"(with roll-ups {(cube_bytes + rollup_bytes) / cube_bytes:.3f}x)")

def requested(attributes, metrics):
    return {"requestedObjects": {"attributes": [{"id": attribute[a]} for a in attributes],
                                 "metrics": [{"id": metric[m]} for m in metrics]}}

lean = "fields=-data.metricValues.extras,-data.metricValues.formatted"
shapes = {
    "grand total, 6 metrics": requested([], list(metric)),
    "Region x Revenue": requested(["Region"], ["Revenue"]),
    "Year x Category, 3 metrics": requested(["Year", "Category"], ["Revenue", "Cost", "Profit"]),
    "Month x Country x Channel": requested(["Month", "Country", "Channel"], ["Revenue", "Units Sold"]),
    "every attribute, every metric": requested(list(attribute), list(metric)),
}
print(f"\n{'instance':34} {'rows':>9} {'median ms':>10} {'min ms':>8}")
for label, body in shapes.items():
    times, total = [], 0
    for _ in range(7):
        began = time.perf_counter()
        _, _, text = call("POST", f"/api/v2/cubes/{cube}/instances?offset=0&limit=1000&{lean}",
                          body, auth)
        times.append((time.perf_counter() - began) * 1000)
        total = json.loads(text)["data"]["paging"]["total"]
    print(f"{label:34} {total:9d} {statistics.median(times):10.1f} {min(times):8.1f}")

_, _, text = call("POST", f"/api/v2/cubes/{cube}/instances?offset=0&limit=1&{lean}",
                  shapes["every attribute, every metric"], auth)
created = json.loads(text)
instance, total = created["instanceId"], created["data"]["paging"]["total"]
runs = []
for _ in range(3):
    fetched_rows, fetched_bytes, began = 0, 0, time.perf_counter()
    for offset in range(0, total, 100000):
        _, _, page = call("GET", f"/api/v2/cubes/{cube}/instances/{instance}"
                          f"?offset={offset}&limit=100000&{lean}", headers=auth)
        fetched_bytes += len(page)
        fetched_rows += min(100000, total - offset)
    runs.append((time.perf_counter() - began, fetched_rows, fetched_bytes))
seconds, fetched_rows, fetched_bytes = sorted(runs)[1]
print(f"\nfetch of {fetched_rows} rows in 100k-row pages (median of 3): {seconds:.2f} s, "
      f"{fetched_rows / seconds:,.0f} rows/s, {fetched_bytes / seconds / 1e6:.1f} MB/s of JSON "
      f"({fetched_bytes / fetched_rows:.0f} bytes/row)")

small = json.dumps(shapes["Region x Revenue"])
script = f"""
wrk.method = "POST"
wrk.body = '{small}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-MSTR-AuthToken"] = "{auth['X-MSTR-AuthToken']}"
wrk.headers["X-MSTR-ProjectID"] = "{auth['X-MSTR-ProjectID']}"
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %.1f %.3f %.3f %d\\n", summary.requests,
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, summary.errors.status))
end
"""
with open("/tmp/cube_instances.lua", "w") as f:
    f.write(script)
# Each creation makes an instance of the session; the per-session cap retires the oldest.
out = subprocess.run(["wrk", "-t2", "-c16", f"-d{duration}", "-s", "/tmp/cube_instances.lua",
                      f"{base}/api/v2/cubes/{cube}/instances?offset=0&limit=1000&{lean}"],
                     capture_output=True, text=True).stdout
result = next(l for l in out.splitlines() if l.startswith("RESULT")).split()
print(f"\nsmall instance creation (Region x Revenue), 16 connections: {result[2]} requests/s, "
      f"p50 {result[3]} ms, p99 {result[4]} ms, non-2xx {result[5]}")
PY
