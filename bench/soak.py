"""Soak: CONNECTIONS clients run a mixed workload against a demo server for SECONDS seconds --
logins, searches, report and cube instances with their pages, attribute elements, dashboards
with selector changes, pushed data, and now and then a migration package -- and every answer's
status is counted. The server's resident memory is sampled every five seconds; instances'
results are cached up to the server's instances.result_budget_mb, so RSS grows to a plateau.

usage: soak.py PORT PID SECONDS CONNECTIONS
Prints the requests by status, the 5xx and transport failures, and RSS at start, middle and end;
exits 1 when any answer was a 5xx or a connection failed."""
import base64
import collections
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.by_status = collections.Counter()
        self.failures = collections.Counter()
        self.examples = {}
        self.client_errors = collections.Counter()
        self.client_error_examples = {}

    def add(self, status, what, body=b""):
        with self.lock:
            self.by_status[status] += 1
            if status >= 500 and what not in self.examples:
                self.examples[what] = body[:300]
            if 400 <= status < 500:
                self.client_errors[(what, status)] += 1
                self.client_error_examples.setdefault((what, status), body[:200])

    def fail(self, what, error):
        with self.lock:
            self.failures[f"{what}: {type(error).__name__}"] += 1


class Client:
    """One keep-alive connection, logged in as the administrator."""

    def __init__(self, port, tally):
        self.port, self.tally = port, tally
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.token = ""
        self.project = None
        self.token = self.login()

    def call(self, method, path, body=None, what=None, headers=None, form=None):
        sent = dict(headers or {})
        if self.token:
            sent.setdefault("X-MSTR-AuthToken", self.token)
        if self.project:
            sent.setdefault("X-MSTR-ProjectID", self.project)
        data = None
        if form is not None:
            data = form.encode()
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        what = what or f"{method} {path.split('?')[0]}"
        for attempt in range(2):
            try:
                self.connection.request(method, path, body=data, headers=sent)
                response = self.connection.getresponse()
                payload = response.read()
                self.tally.add(response.status, what, payload)
                return response.status, response.headers, payload
            except (http.client.HTTPException, OSError) as error:
                self.connection.close()
                if attempt == 1:
                    self.tally.fail(what, error)
                    return 0, {}, b""

    def login(self):
        _, headers, _ = self.call("POST", "/api/auth/login",
                                  form="username=administrator&password=&loginMode=1")
        return headers.get("X-MSTR-AuthToken", "")


def discover(client):
    projects = json.loads(client.call("GET", "/api/projects")[2])
    client.project = next(p["id"] for p in projects if p["name"] == "Tutorial")

    def search(type_):
        status, _, body = client.call("GET", f"/api/searches/results?type={type_}&limit=100")
        return json.loads(body)["result"]

    reports = [r for r in search(3) if r["subtype"] == 768]
    cubes = [c for c in search(776)]
    dashboards = search(55)
    for cube in cubes:
        definition = json.loads(client.call("GET", f"/api/v2/cubes/{cube['id']}")[2])
        cube["attributes"] = definition["definition"]["availableObjects"]["attributes"]
    return {"reports": reports, "cubes": cubes, "dashboards": dashboards}


def report_flow(client, demo):
    report = random.choice(demo["reports"])["id"]
    status, _, body = client.call("POST", f"/api/v2/reports/{report}/instances?limit=50")
    if status == 200:
        instance = json.loads(body)["instanceId"]
        client.call("GET", f"/api/v2/reports/{report}/instances/{instance}?offset=50&limit=50")


def cube_flow(client, demo):
    chosen = random.choice(demo["cubes"])
    cube, attribute = chosen["id"], random.choice(chosen["attributes"])
    status, _, body = client.call("POST", f"/api/v2/cubes/{cube}/instances?limit=100",
                                  {"requestedObjects": {"attributes": [{"id": attribute["id"]}]}})
    if status == 200:
        instance = json.loads(body)["instanceId"]
        client.call("GET", f"/api/v2/cubes/{cube}/instances/{instance}?offset=100&limit=100")
    client.call("GET", f"/api/cubes/{cube}/attributes/{attribute['id']}/elements?limit=20")


def dashboard_flow(client, demo):
    dashboard = random.choice(demo["dashboards"])["id"]
    status, _, body = client.call("POST", f"/api/dossiers/{dashboard}/instances", {})
    if status not in (200, 201):
        return
    mid = json.loads(body)["mid"]
    status, _, body = client.call("GET", f"/api/v2/dossiers/{dashboard}/instances/{mid}/definition")
    if status == 200:
        chapter = json.loads(body)["chapters"][0]
        for page in chapter["pages"][:1]:
            for visualization in page["visualizations"]:
                client.call("GET", f"/api/v2/dossiers/{dashboard}/instances/{mid}/chapters/"
                            f"{chapter['key']}/visualizations/{visualization['key']}?limit=50",
                            what="GET visualization")
        element_lists = [f for f in chapter.get("filters", []) + chapter["pages"][0].get(
            "selectors", []) if f.get("selectorType") == "attribute_element_list"]
        for selector in random.sample(element_lists, min(1, len(element_lists))):
            status, _, elements = client.call(
                "GET", f"/api/dossiers/{dashboard}/instances/{mid}/elements?"
                f"filterKey={selector['key']}&limit=2", what="GET dashboard elements")
            if status == 200 and json.loads(elements):
                chosen = json.loads(elements)
                chosen = chosen.get("elements", chosen) if isinstance(chosen, dict) else chosen
                client.call("PUT", f"/api/dossiers/{dashboard}/instances/{mid}/filters",
                            [{"key": selector["key"],
                              "selections": [{"id": e["id"]} for e in chosen[:1]]}],
                            what="PUT filters")
    client.call("DELETE", f"/api/dossiers/{dashboard}/instances/{mid}")


def search_flow(client, demo):
    status, _, body = client.call(
        "POST", "/api/v2/metadataSearches/results?pattern=4&type=3&name=Sales", {})
    if status == 200:
        client.call("GET", f"/api/metadataSearches/results?searchId={json.loads(body)['id']}")
    client.call("GET", "/api/searches/results?name=Revenue&pattern=4&limit=10")


def session_flow(client, demo):
    other = Client(client.port, client.tally)
    other.call("GET", "/api/sessions")
    other.call("POST", "/api/auth/logout")
    other.connection.close()


def push_flow(client, demo, state):
    if "dataset" not in state:
        status, _, body = client.call("POST", "/api/datasets/models", {
            "name": f"Soak {threading.get_ident()}", "folderId": "",
            "tables": [{"name": "t", "columnHeaders": [{"name": "k", "dataType": "STRING"},
                                                       {"name": "v", "dataType": "DOUBLE"}]}],
            "attributes": [{"name": "k", "attributeForms": [
                {"category": "ID", "expressions": [{"tableName": "t", "columnName": "k"}]}]}],
            "metrics": [{"name": "v", "expressions": [{"tableName": "t", "columnName": "v"}]}]})
        if status not in (200, 201):
            return
        state["dataset"] = json.loads(body)["id"]
    dataset = state["dataset"]
    status, _, body = client.call("POST", f"/api/datasets/{dataset}/uploadSessions", {
        "tables": [{"name": "t", "updatePolicy": "REPLACE", "columnHeaders": ["k", "v"]}]})
    if status not in (200, 201):
        return
    session = json.loads(body)["uploadSessionId"]
    rows = [[f"k{i}", i * 1.5] for i in range(200)]
    data = base64.b64encode(json.dumps(rows).encode()).decode()
    base = f"/api/datasets/{dataset}/uploadSessions/{session}"
    client.call("PUT", base, {"tableName": "t", "index": 1, "data": data}, what="PUT chunk")
    client.call("POST", base + "/publish", what="POST publish")
    for _ in range(100):
        status, _, body = client.call("GET", base + "/publishStatus", what="GET publishStatus")
        if status != 200 or json.loads(body).get("status") == 1:
            break
        time.sleep(0.1)


def migration_flow(client, demo):
    report = random.choice(demo["reports"])
    status, _, body = client.call("POST", "/api/migrations", {
        "packageInfo": {"name": f"soak {time.time()}", "type": "project",
                        "tocView": {"content": [{"id": report["id"], "type": 3,
                                                 "action": "use_existing",
                                                 "includeDependents": False}]}},
        "importInfo": {}})
    if status != 201:
        return
    migration = json.loads(body)["id"]
    for _ in range(300):
        status, _, body = client.call("GET", f"/api/migrations/{migration}", what="GET migration")
        if status != 200:
            return
        package = json.loads(body)["packageInfo"]
        if package.get("status") != "creating":
            break
        time.sleep(0.1)
    client.call("DELETE", f"/api/migrations?packageId={package['id']}", what="DELETE migration")


FLOWS = [(report_flow, 30), (cube_flow, 30), (dashboard_flow, 15), (search_flow, 10),
         (session_flow, 5), (push_flow, 5)]


def worker(port, demo, tally, deadline, index):
    client = Client(port, tally)
    client.project = demo["project"]
    state = {}
    names, weights = zip(*FLOWS)
    iteration = 0
    while time.time() < deadline:
        flow = random.choices(names, weights)[0]
        try:
            if flow is push_flow:
                flow(client, demo, state)
            else:
                flow(client, demo)
            if index == 0 and iteration % 50 == 49:
                migration_flow(client, demo)
        except (ValueError, KeyError) as error:  # an answer that was not what was expected
            tally.fail(flow.__name__, error)
        iteration += 1


def main():
    port, pid, seconds, connections = (int(arg) for arg in sys.argv[1:5])
    tally = Tally()
    first = Client(port, tally)
    demo = discover(first)
    demo["project"] = first.project
    deadline = time.time() + seconds
    samples = [(0.0, rss_kib(pid))]
    threads = [threading.Thread(target=worker, args=(port, demo, tally, deadline, i), daemon=True)
               for i in range(connections)]
    started = time.time()
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        time.sleep(5)
        samples.append((time.time() - started, rss_kib(pid)))
    for thread in threads:
        thread.join()
    total = sum(tally.by_status.values())
    server_errors = sum(count for status, count in tally.by_status.items() if status >= 500)
    print(f"requests: {total} in {time.time() - started:.0f} s with {connections} connections "
          f"({total / max(1, time.time() - started):.0f}/s)")
    print("by status: " + ", ".join(f"{s}: {c}" for s, c in sorted(tally.by_status.items())))
    print(f"5xx: {server_errors}; transport or shape failures: {sum(tally.failures.values())}")
    for what, count in tally.failures.most_common(10):
        print(f"  failure {what}: {count}")
    for (what, status), count in tally.client_errors.most_common(10):
        print(f"  {status} {what}: {count}, e.g. {tally.client_error_examples[(what, status)]!r}")
    for what, body in tally.examples.items():
        print(f"  5xx example {what}: {body!r}")
    middle = samples[len(samples) // 2]
    print(f"RSS KiB: start {samples[0][1]}, middle {middle[1]} (at {middle[0]:.0f} s), "
          f"end {samples[-1][1]}")
    every_minute = [sample for sample in samples if sample[0] == 0 or int(sample[0]) % 60 < 5]
    print("RSS MiB by minute: " + ", ".join(f"{rss / 1024:.0f}" for _, rss in every_minute))
    sys.exit(1 if server_errors or tally.failures else 0)


if __name__ == "__main__":
    main()
