#!/usr/bin/env python3
"""Scale-out figures (docs/deployment.md): two nodes on one PostgreSQL storage service behind
nginx, as tests/scaleout deploys them, with the release binary.

  1. From a publish on node A to node B serving the new version: node A republishes the Sales
     Cube after every Revenue changed; the time from the publish seen completed on A to B's first
     answer with the new total, over PUBLISHES runs (median and max).
  2. Requests per second of a read mix (GET /api/projects, GET /api/sessions, a quick search) at
     CONNECTIONS connections for SECONDS each, sent by wrk to node A alone and to the balancer in
     front of both nodes, in the same run; their ratio.
A page of an instance read on the node that did not compute it is not measured: instances are
not shared between nodes yet. Prints the figures; asserts nothing.
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


def main():
    binary = os.environ.get("TESSERA_BINARY", "build/release/tessera")
    postgres_url = os.environ.get("TESSERA_TEST_PG")
    if not postgres_url:
        sys.exit("run under scripts/with-test-postgres.sh (TESSERA_TEST_PG is not set)")
    work_dir = tempfile.mkdtemp(prefix="tessera-bench-scaleout-")
    cluster = ScaleOutCluster(os.path.abspath(binary), find_nginx(), postgres_url, find_psql(),
                              work_dir)
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
