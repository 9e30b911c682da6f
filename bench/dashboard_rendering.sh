#!/usr/bin/env bash
# Dashboard rendering figures over HTTP on the demo project: for the Sales Overview (whose
# parallelRendering property is set), the time from instance creation to the first and to the last
# visualization of its first page read back, with enableParallelRendering true and false. Each
# run creates a new instance and reads the six visualizations of the page on six connections at
# once, as a browser does. The two modes take turns run by run (which goes first alternating too),
# so a drift of the machine reaches both alike; the median of RUNS (40) runs of each after one
# warm-up is printed, with each visualization's median and the median over the runs of the
# parallel run's first and last time minus its sequential neighbour's. Prints figures; asserts
# nothing.
#
#   bench/dashboard_rendering.sh [ROWS] [BINARY]      (default 10000000, build/release/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
binary=$(realpath "${2:-build/release/tessera}")
runs=${RUNS:-40}

source bench/demo_server.sh
start_demo_server "$rows" "$binary"

python3 - "$port" "$runs" <<'PY'
import concurrent.futures, json, statistics, sys, time

sys.path.insert(0, "bench")
from demo_client import DemoClient

port, runs = sys.argv[1], int(sys.argv[2])
client = DemoClient(port)
call, auth, search = client.call, client.auth, client.search
for cube_name in ("Sales Cube", "Item Sales Cube"):
    print(f"{cube_name} publish: {client.publish(search(cube_name, 776)):.1f} s")

dashboard = search("Sales Overview", 14081)
definition = json.loads(call("GET", f"/api/v2/dossiers/{dashboard}/definition", headers=auth)[2])
chapter = definition["chapters"][0]
keys = [v["key"] for v in chapter["pages"][0]["visualizations"]]
token_only = {"X-MSTR-AuthToken": auth["X-MSTR-AuthToken"]}
fields = "fields=-data.metricValues.extras,-data.metricValues.formatted&limit=-1"

def one_run(parallel, pool):
    began = time.perf_counter()
    _, _, body = call("POST", f"/api/dossiers/{dashboard}/instances",
                      {"enableParallelRendering": parallel}, headers=auth)
    mid = json.loads(body)["mid"]
    def read(key):
        call("GET", f"/api/v2/dossiers/{dashboard}/instances/{mid}/chapters/{chapter['key']}"
             f"/visualizations/{key}?{fields}", headers=token_only)
        return key, (time.perf_counter() - began) * 1000
    done = dict(pool.map(read, keys))
    call("DELETE", f"/api/dossiers/{dashboard}/instances/{mid}", headers=token_only)
    return done

def report(parallel, results):
    first = statistics.median(min(r.values()) for r in results)
    last = statistics.median(max(r.values()) for r in results)
    per_key = "  ".join(f"{k} {statistics.median(r[k] for r in results):.0f}" for k in keys)
    print(f"enableParallelRendering={str(parallel).lower():5}  first {first:7.1f} ms  "
          f"all {last:7.1f} ms   ({per_key})")

with concurrent.futures.ThreadPoolExecutor(len(keys)) as pool:
    one_run(True, pool)  # warm-up
    one_run(False, pool)
    results = {True: [], False: []}
    for run in range(runs):
        for parallel in ((True, False) if run % 2 == 0 else (False, True)):
            results[parallel].append(one_run(parallel, pool))
    for parallel in (True, False):
        report(parallel, results[parallel])
    pairs = list(zip(results[True], results[False]))
    first_gap = statistics.median(min(p.values()) - min(s.values()) for p, s in pairs)
    last_gap = statistics.median(max(p.values()) - max(s.values()) for p, s in pairs)
    print(f"parallel minus sequential, run by run: first {first_gap:+5.1f} ms  all {last_gap:+5.1f} ms")
PY
