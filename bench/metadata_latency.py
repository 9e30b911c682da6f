"""Latency of a cheap metadata call (GET /api/projects) while heavy filters compute.

usage: metadata_latency.py PORT [SAMPLES]
Measures GET /api/projects SAMPLES times on an idle server, then again while two clients keep
posting report instances with the largest view filter the server accepts (1,000 operators, nested
as deep as the JSON limit allows, each In listing many elements). Prints the medians, the 95th
percentiles and their ratio, and how long one heavy request took."""
import json
import statistics
import sys
import threading
import time
import urllib.error

sys.path.insert(0, "bench")
from demo_client import DemoClient  # noqa: E402

OPERATORS = 1000  # the server's limit on conditions and operators in one filter
NESTING = 120     # And inside And: 2 JSON levels each, under the 256-level limit
ELEMENTS = 60     # elements per In; keeps the body under the 4 MiB request limit


def maximal_filter(attribute, element_ids):
    """An And chain NESTING deep whose levels share OPERATORS - NESTING In conditions."""
    leaves = OPERATORS - NESTING
    per_level = [leaves // NESTING + (1 if i < leaves % NESTING else 0) for i in range(NESTING)]
    condition = {"operator": "In", "operands": [
        {"type": "attribute", "id": attribute},
        {"type": "elements", "elements": [{"id": e} for e in element_ids]}]}
    node = None
    for count in reversed(per_level):
        operands = [condition] * count + ([node] if node else [])
        node = {"operator": "And", "operands": operands}
    return node


def timed(call):
    began = time.perf_counter()
    call()
    return (time.perf_counter() - began) * 1000


def sample_projects(client, samples):
    return [timed(lambda: client.call("GET", "/api/projects", headers=client.auth))
            for _ in range(samples)]


def describe(label, values):
    values = sorted(values)
    p95 = values[int(0.95 * (len(values) - 1))]
    print(f"{label:<40} median {statistics.median(values):8.2f} ms   p95 {p95:8.2f} ms"
          f"   ({len(values)} calls)")
    return statistics.median(values), p95


def main():
    port = int(sys.argv[1])
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    client = DemoClient(port)
    report = client.search("Revenue by Year", 3)
    year = client.search("Year", 12)
    element_ids = [f"h{2000 + i};{year}" for i in range(ELEMENTS)]
    body = {"viewFilter": maximal_filter(year, element_ids)}
    print(f"maximal filter: {OPERATORS} operators, And nested {NESTING} deep, "
          f"{len(element_ids)} elements per In, {len(json.dumps(body)) / 1e6:.1f} MB")

    idle = sample_projects(client, samples)
    stop = threading.Event()
    heavy_ms, heavy_status = [], {}

    def heavy():
        own = DemoClient(port)
        while not stop.is_set():
            began = time.perf_counter()
            try:
                status = own.call("POST", f"/api/v2/reports/{report}/instances?limit=10",
                                  body=body, headers=own.auth)[0]
            except urllib.error.HTTPError as error:
                status = error.code
            heavy_ms.append((time.perf_counter() - began) * 1000)
            heavy_status[status] = heavy_status.get(status, 0) + 1

    workers = [threading.Thread(target=heavy) for _ in range(2)]
    for worker in workers:
        worker.start()
    time.sleep(1.0)  # both heavy requests in flight
    loaded = sample_projects(client, samples)
    stop.set()
    for worker in workers:
        worker.join()

    idle_median, idle_p95 = describe("GET /api/projects, idle", idle)
    load_median, load_p95 = describe("GET /api/projects, two maximal filters", loaded)
    print(f"ratio under load / idle: median {load_median / idle_median:.2f}x, "
          f"p95 {load_p95 / idle_p95:.2f}x")
    print(f"maximal filter requests: {len(heavy_ms)} by status {heavy_status}, "
          f"median {statistics.median(heavy_ms):.0f} ms each")


if __name__ == "__main__":
    main()
