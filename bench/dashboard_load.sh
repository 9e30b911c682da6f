#!/usr/bin/env bash
# Dashboard rendering under load over HTTP on the demo project: USERS users (16) at once, each
# logged in with a session of its own, repeatedly open the first page of the Sales Overview (whose
# parallelRendering property is set) for DURATION seconds (30): create an instance, read the six
# visualizations of the page on six connections at once as a browser does, delete the instance.
# Run with enableParallelRendering true and false in turns of DURATION/SEGMENTS seconds (3 turns
# each, in the order true false false true true false, so a drift of the machine reaches both
# alike), each turn after one page per user of warm-up. Prints, per mode over its turns, pages/s
# and the p50 and p99 of the time from instance creation to the first and to the last
# visualization read back; asserts nothing. The client shares the machine with the server.
#
#   bench/dashboard_load.sh [ROWS] [BINARY]      (default 10000000, build/release/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
binary=$(realpath "${2:-build/release/tessera}")
users=${USERS:-16}
duration=${DURATION:-30}
segments=${SEGMENTS:-3}

source bench/demo_server.sh
start_demo_server "$rows" "$binary"

python3 - "$port" "$users" "$duration" "$segments" <<'PY'
import concurrent.futures, json, sys, threading, time

sys.path.insert(0, "bench")
from demo_client import DemoClient

port, users, duration, segments = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
turn = duration / segments
admin = DemoClient(port)
for cube_name in ("Sales Cube", "Item Sales Cube"):
    print(f"{cube_name} publish: {admin.publish(admin.search(cube_name, 776)):.1f} s")

dashboard = admin.search("Sales Overview", 14081)
definition = json.loads(
    admin.call("GET", f"/api/v2/dossiers/{dashboard}/definition", headers=admin.auth)[2])
chapter = definition["chapters"][0]
keys = [v["key"] for v in chapter["pages"][0]["visualizations"]]
fields = "fields=-data.metricValues.extras,-data.metricValues.formatted&limit=-1"


class User:
    """One browser: a session of its own and one connection per visualization of the page."""

    def __init__(self):
        self.client = DemoClient(port)
        self.token_only = {"X-MSTR-AuthToken": self.client.auth["X-MSTR-AuthToken"]}
        self.connections = concurrent.futures.ThreadPoolExecutor(len(keys))

    def open_page(self, parallel):
        """The milliseconds from instance creation to the first and to the last visualization."""
        call = self.client.call
        began = time.perf_counter()
        _, _, body = call("POST", f"/api/dossiers/{dashboard}/instances",
                          {"enableParallelRendering": parallel}, headers=self.client.auth)
        mid = json.loads(body)["mid"]

        def read(key):
            call("GET", f"/api/v2/dossiers/{dashboard}/instances/{mid}/chapters/{chapter['key']}"
                 f"/visualizations/{key}?{fields}", headers=self.token_only)
            return (time.perf_counter() - began) * 1000

        arrivals = list(self.connections.map(read, keys))
        call("DELETE", f"/api/dossiers/{dashboard}/instances/{mid}", headers=self.token_only)
        return min(arrivals), max(arrivals)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def load(everyone, parallel):
    """One turn of `turn` seconds; returns its pages and its elapsed seconds."""
    pages, lock = [], threading.Lock()
    stop_at = []
    # The barrier's action runs before any thread passes it, so every user sees the same end.
    start = threading.Barrier(len(everyone) + 1,
                              action=lambda: stop_at.append(time.perf_counter() + turn))

    def browse(user):
        user.open_page(parallel)  # warm-up
        start.wait()
        while time.perf_counter() < stop_at[0]:
            page = user.open_page(parallel)
            with lock:
                pages.append(page)

    threads = [threading.Thread(target=browse, args=(user,)) for user in everyone]
    for thread in threads:
        thread.start()
    start.wait()
    began = stop_at[0] - turn
    for thread in threads:
        thread.join()
    return pages, time.perf_counter() - began


def report(parallel, pages, elapsed):
    first = [p[0] for p in pages]
    last = [p[1] for p in pages]
    print(f"enableParallelRendering={str(parallel).lower():5}  {len(pages) / elapsed:6.2f} pages/s"
          f"  first p50 {percentile(first, 0.5):7.1f} ms  p99 {percentile(first, 0.99):7.1f} ms"
          f"  all p50 {percentile(last, 0.5):7.1f} ms  p99 {percentile(last, 0.99):7.1f} ms"
          f"  ({len(pages)} pages in {elapsed:.1f} s)")


everyone = [User() for _ in range(users)]
print(f"{users} users, {duration:.0f} s each way in {segments} turns")
totals = {True: ([], 0.0), False: ([], 0.0)}
for index in range(2 * segments):
    parallel = (index % 4) in (0, 3)
    pages, elapsed = load(everyone, parallel)
    totals[parallel] = (totals[parallel][0] + pages, totals[parallel][1] + elapsed)
for parallel in (True, False):
    report(parallel, *totals[parallel])
for user in everyone:
    user.connections.shutdown()
PY
