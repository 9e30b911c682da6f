#!/usr/bin/env python3
"""Scale-out figures (docs/deployment.md): two nodes on one PostgreSQL storage service behind
nginx, as tests/scaleout deploys them, with the release binary.

  1. From a publish on node A to node B serving the new version: node A republishes the Sales
     Cube after every Revenue changed; the time from the publish seen completed on A to B's first
     answer with the new total, over PUBLISHES runs (median and max).
  2. A page of an instance read on the node that did not compute it, against the node that did:
     INSTANCES instances of the Sales Cube made on node A (Year x Region x Revenue, and the
     cube's whole grid), each then paged (offset 0, PAGE_ROWS rows) on A, where its result is
     cached; on B, which rebuilds it from its record (the first page) and then has it cached;
     medians, with the creation on A (its first computation) beside them.
  3. Requests per second of a read mix (GET /api/projects, GET /api/sessions, a quick search) at
     CONNECTIONS connections for SECONDS each, sent by wrk to node A alone and to the balancer in
     front of both nodes, in the same run; their ratio.
The demo has DEMO_ROWS sales. Prints the figures; asserts nothing.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "scaleout"))

import checks  # noqa: E402
from cluster import ScaleOutCluster  # noqa: E402
from postgres_databases import find_psql  # noqa: E402
from run import find_nginx  # noqa: E402

PUBLISHES = int(os.environ.get("PUBLISHES", "5"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "32"))
SECONDS = int(os.environ.get("SECONDS", "10"))
DEMO_ROWS = int(os.environ.get("DEMO_ROWS", "200000"))
INSTANCES = int(os.environ.get("INSTANCES", "7"))
PAGE_ROWS = 1000

READ_MIX_LUA = """
local paths = {"/api/projects", "/api/sessions", "%(search)s"}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n %% #paths) + 1])
end
wrk.headers["X-MSTR-AuthToken"] = "%(token)s"
wrk.headers["X-MSTR-ProjectID"] = "%(project)s"
done = function(summary, latency, requests)
  io.write(string.format("RESULT %%.1f %%.3f %%d\\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(99) / 1000, summary.errors.status + summary.errors.connect))
end
"""


def requests_per_second(url, script_path):
    out = subprocess.run(["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{SECONDS}s", "-s", script_path,
                          url], capture_output=True, text=True, check=True).stdout
    line = next(line for line in out.splitlines() if line.startswith("RESULT"))
    rps, p99, errors = line.split()[1:]
    return float(rps), float(p99), int(errors)


def timed(call):
    started = time.perf_counter()
    answer = call()
    return answer, (time.perf_counter() - started) * 1000


def instance_page_figures(cluster, token, demo, what, body):
    """Medians (ms) of an instance's creation on A, a page on A, the first page on B (a rebuild)
    and a later page on B."""
    base = f"/api/v2/cubes/{demo.sales_cube}/instances"
    page = f"?offset=0&limit={PAGE_ROWS}"
    created, pages_a, firsts_b, pages_b = [], [], [], []
    for _ in range(INSTANCES):
        answer, ms = timed(lambda: cluster.node_a.client().send(
            "POST", base + page, token=token, project=demo.project, json_body=body))
        checks.require_status(answer, 200, f"{what} on A")
        created.append(ms)
        instance = answer.json()["instanceId"]
        rows = answer.json()["data"]
        for node, times in ((cluster.node_a, pages_a), (cluster.node_b, firsts_b),
                            (cluster.node_b, pages_b)):
            answer, ms = timed(lambda: node.client().send(
                "GET", f"{base}/{instance}{page}", token=token, project=demo.project))
            checks.require_status(answer, 200, f"a page of {what} on {node.name}")
            checks.require(answer.json()["data"] == rows, f"{what}: node {node.name} differs")
            times.append(ms)
    total = answer.json()["data"]["paging"]["total"]
    median = statistics.median
    print(f"  {what} ({total} rows, pages of {PAGE_ROWS}): made on A {median(created):.1f} ms; "
          f"page on A {median(pages_a):.1f} ms; first page on B {median(firsts_b):.1f} ms "
          f"({median(firsts_b) / median(pages_a):.1f}x A's page, "
          f"{median(firsts_b) / median(created):.2f}x the creation); later pages on B "
          f"{median(pages_b):.1f} ms ({median(pages_b) / median(pages_a):.2f}x)")


def main():
    binary = os.environ.get("TESSERA_BINARY", "build/release/tessera")
    postgres_url = os.environ.get("TESSERA_TEST_PG")
    if not postgres_url:
        sys.exit("run under scripts/with-test-postgres.sh (TESSERA_TEST_PG is not set)")
    work_dir = tempfile.mkdtemp(prefix="tessera-bench-scaleout-")
    cluster = ScaleOutCluster(os.path.abspath(binary), find_nginx(), postgres_url, find_psql(),
                              work_dir, demo_rows=DEMO_ROWS)
    try:
        cluster.start()
        deployment = checks.Deployment(cluster)
        deployment.demo = checks.find_demo_ids(cluster.node_a)
        token = checks.login(cluster.balancer.client(), "login")
        checks.publish_and_wait(cluster.node_a, token, deployment.demo)
        checks.revenue_by_year(cluster.node_b, token, deployment.demo)  # B has it loaded
        delays = [checks.republish_and_wait_for_node_b(deployment, token)
                  for _ in range(PUBLISHES)]
        print(f"publish on A -> B serves the new version: median {statistics.median(delays):.0f} ms,"
              f" max {max(delays):.0f} ms over {PUBLISHES} publishes")

        demo = deployment.demo
        print(f"instance pages, medians of {INSTANCES} instances ({DEMO_ROWS} sales):")
        instance_page_figures(cluster, token, demo, "Year x Region x Revenue", {
            "requestedObjects": {"attributes": [{"id": demo.year_attribute},
                                                {"id": demo.region_attribute}],
                                 "metrics": [{"id": demo.revenue_metric}]}})
        instance_page_figures(cluster, token, demo, "the Sales Cube's whole grid", {})

        search = "/api/searches/results?name=Revenue&type=4&pattern=2&limit=10"
        script_path = os.path.join(work_dir, "read_mix.lua")
        with open(script_path, "w") as script:
            script.write(READ_MIX_LUA % {"token": token, "project": deployment.demo.project,
                                         "search": search})
        one = requests_per_second(cluster.node_a.url, script_path)
        two = requests_per_second(cluster.balancer.url, script_path)
        print(f"read mix, {CONNECTIONS} connections, {SECONDS} s each:")
        print(f"  node A alone:           {one[0]:9.0f} req/s  p99 {one[1]:6.1f} ms  errors {one[2]}")
        print(f"  nginx over both nodes:  {two[0]:9.0f} req/s  p99 {two[1]:6.1f} ms  errors {two[2]}")
        print(f"  ratio (two behind nginx / one): {two[0] / one[0]:.2f}")
    finally:
        cluster.stop()
        subprocess.run(["rm", "-rf", work_dir], check=False)


if __name__ == "__main__":
    main()
