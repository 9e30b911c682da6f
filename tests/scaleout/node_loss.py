"""Losing a node in the middle of a workload through the balancer (kill -9 of node B).

What is allowed to fail, and why:
  - Every request that starts after node B's process is reaped (its sockets closed) must
    succeed: nginx finds B's port refused before anything is sent, passes the request to node A
    and leaves B out for fail_timeout. This holds for every method, POST included, since nothing
    reached B.
  - An idempotent request (GET, HEAD; nginx also counts PUT, DELETE, OPTIONS) that is in flight on
    B when it dies must succeed too: `proxy_next_upstream error timeout` makes nginx send it again
    to node A.
  - A non-idempotent request (POST, PATCH, LOCK) in flight on B when it dies may fail, with 502
    and nothing else: nginx has already sent it to B, which may have acted on it (a login may have
    stored a session), so it does not send it twice. "In flight" is precise here: it started
    before B was reaped and ended after the SIGKILL was sent.
  - Requests that end before the SIGKILL must all succeed.

The workload: WORKERS threads, each looping over calls that need no node-local state (a token
from one login works on every node): GET /api/sessions,
GET /api/projects, a quick search, and POST /api/auth/login as the non-idempotent call. The kill
comes once both nodes have answered MIN_CALLS_BEFORE_KILL calls; the workload goes on for
SECONDS_AFTER_KILL after B is reaped.
"""

import threading
import time
import urllib.parse
from dataclasses import dataclass

from api_client import ADMINISTRATOR_LOGIN
from checks import CheckFailed, login, require, require_status

WORKERS = 3
MIN_CALLS_BEFORE_KILL = 20
SECONDS_AFTER_KILL = 3.0
MIN_CALLS_AFTER_KILL = 30
NON_IDEMPOTENT = {"POST", "PATCH", "LOCK"}


@dataclass
class Call:
    method: str
    path: str
    started: float
    ended: float
    status: int  # 0: no HTTP answer at all
    upstream: str
    error: str = ""

    def succeeded(self):
        return 200 <= self.status < 300

    def describe(self):
        answer = f"HTTP {self.status}" if self.status else f"no answer ({self.error})"
        return f"{self.method} {self.path}: {answer} via '{self.upstream}'"


@dataclass
class Kill:
    signalled: float = 0.0
    reaped: float = 0.0

    def happened(self):
        return self.reaped > 0


def workload_calls(token, project):
    search = urllib.parse.urlencode({"name": "Sales Cube", "type": 776, "pattern": 2})
    return [
        ("GET", "/api/sessions", {"token": token}),
        ("GET", "/api/projects", {"token": token}),
        ("GET", f"/api/searches/results?{search}", {"token": token, "project": project}),
        ("POST", "/api/auth/login", {"json_body": ADMINISTRATOR_LOGIN}),
    ]


class Workload:
    """Worker threads calling the balancer until `stop()`; every call is recorded."""

    def __init__(self, client, calls):
        self.client = client
        self.calls = calls
        self.records = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(n,), daemon=True)
                        for n in range(WORKERS)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=120)

    def snapshot(self):
        with self.lock:
            return list(self.records)

    def _run(self, worker):
        turn = worker
        while not self.stopping.is_set():
            method, path, options = self.calls[turn % len(self.calls)]
            turn += 1
            record = self._call(method, path, options)
            with self.lock:
                self.records.append(record)

    def _call(self, method, path, options):
        started = time.monotonic()
        try:
            answer = self.client.send(method, path, **options)
            return Call(method, path, started, time.monotonic(), answer.status, answer.upstream)
        except OSError as error:
            return Call(method, path, started, time.monotonic(), 0, "", str(error))


def is_allowed_failure(call, kill):
    in_flight = call.started < kill.reaped and call.ended > kill.signalled
    return in_flight and call.method in NON_IDEMPOTENT and call.status == 502


def classify(records, kill):
    """(failures that break the rule, allowed failures, calls started after the reap)."""
    broken = [c for c in records if not c.succeeded() and not is_allowed_failure(c, kill)]
    allowed = [c for c in records if not c.succeeded() and is_allowed_failure(c, kill)]
    after = [c for c in records if c.started >= kill.reaped]
    return broken, allowed, after


def wait_until(condition, timeout_seconds):
    deadline = time.monotonic() + timeout_seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def instance_on(node, token, demo):
    """A Sales Cube instance made on `node` directly: (its id, its first page's data)."""
    created = node.client().send("POST", f"/api/v2/cubes/{demo.sales_cube}/instances?limit=50",
                                 token=token, project=demo.project, json_body={})
    require_status(created, 200, f"a cube instance on node {node.name}")
    return created.json()["instanceId"], created.json()["data"]


def check_balancer_survives_losing_a_node(deployment):
    node_a, node_b, demo = deployment.node_a, deployment.node_b, deployment.demo
    token = login(deployment.balancer, "login through the balancer")
    instance, first_page = instance_on(node_b, token, demo)
    workload = Workload(deployment.balancer, workload_calls(token, deployment.demo.project))
    kill = Kill()
    workload.start()
    try:
        def both_nodes_busy():
            answered = [c.upstream for c in workload.snapshot() if c.succeeded()]
            return all(answered.count(node.address) >= MIN_CALLS_BEFORE_KILL // 2
                       for node in (node_a, node_b))

        require(wait_until(both_nodes_busy, 60),
                "the workload did not reach both nodes before the kill")
        kill.signalled = time.monotonic()
        node_b.kill()
        kill.reaped = time.monotonic()
        wait_until(lambda: time.monotonic() - kill.reaped >= SECONDS_AFTER_KILL and
                   len([c for c in workload.snapshot() if c.started >= kill.reaped])
                   >= MIN_CALLS_AFTER_KILL, 60)
    finally:
        workload.stop()
    verdict = judge(workload.snapshot(), kill, node_a)
    page = deployment.balancer.send(
        "GET", f"/api/v2/cubes/{demo.sales_cube}/instances/{instance}?offset=0&limit=50",
        token=token, project=demo.project)
    require_status(page, 200, "node B's instance after node B died")
    require(page.json()["data"] == first_page,
            "node B's instance answers other rows on node A after node B died")
    return verdict + "; an instance made on B answered by A after the kill"


def judge(records, kill, survivor):
    broken, allowed, after = classify(records, kill)
    require(not broken, f"{len(broken)} of {len(records)} calls failed against the rule, e.g. "
                        + "; ".join(c.describe() for c in broken[:5]))
    require(len(after) >= MIN_CALLS_AFTER_KILL,
            f"only {len(after)} calls after the kill; the workload stalled")
    elsewhere = [c for c in after if c.upstream.split(",")[-1].strip() != survivor.address]
    if elsewhere:
        raise CheckFailed(f"{len(elsewhere)} calls after the kill were answered by another node "
                          f"than {survivor.address}, e.g. {elsewhere[0].describe()}")
    passed_over = [c for c in records if "," in c.upstream]
    return (f"{len(records)} calls, {len(after)} after the kill, all answered; "
            f"{len(passed_over)} passed from B to A by nginx; "
            f"{len(allowed)} POSTs in flight on B failed with 502 (allowed)")
