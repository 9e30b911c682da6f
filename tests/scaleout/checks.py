"""The checks of the scale-out suite, each a function of a Deployment that returns a line of
figures (or None) when it passes, raises CheckFailed saying what was wrong, or SkipCheck saying
why it cannot run here.

Requests go through the balancer unless a check must name the node: one that compares two nodes
or stops one.
"""

import base64
import json
import time
import urllib.parse
from dataclasses import dataclass, field

from api_client import ApiClient
from postgres_databases import query_value

TYPE_METRIC = 4
TYPE_ATTRIBUTE = 12
TYPE_CUBE = 776
TYPE_DASHBOARD = 55
CUBE_LOADED_AND_READY = 32 | 64  # X-MSTR-CubeStatus bits
CUBE_PROCESSING = 1
REVOKED_AT_ONCE_MS = 1000  # well under the two seconds a node may cache a validated session
REVOCATION_WATCH_MS = 5000
WAIT_SECONDS = 60


class CheckFailed(Exception):
    pass


class SkipCheck(Exception):
    pass


@dataclass
class DemoIds:
    """Ids of the demo's objects, read once through node A directly."""
    project: str = ""
    sales_cube: str = ""
    revenue_metric: str = ""
    year_attribute: str = ""
    region_attribute: str = ""
    sales_overview: str = ""


@dataclass
class Deployment:
    cluster: object  # cluster.ScaleOutCluster
    demo: DemoIds = field(default_factory=DemoIds)

    @property
    def balancer(self):
        return self.cluster.balancer.client()

    @property
    def node_a(self):
        return self.cluster.node_a

    @property
    def node_b(self):
        return self.cluster.node_b


def require(condition, message):
    if not condition:
        raise CheckFailed(message)


def require_status(answer, expected, what):
    require(answer.status == expected, f"{what}: expected HTTP {expected}, got {answer.describe()}")


def login(client, what):
    token, answer = client.login()
    require(token, f"{what}: the administrator's login was refused: {answer.describe()}")
    return token


def wait_for(condition, timeout_seconds=WAIT_SECONDS, every_seconds=0.05):
    """Polls `condition` (a function returning a value) until it is truthy; the last value."""
    deadline = time.monotonic() + timeout_seconds
    value = condition()
    while not value and time.monotonic() < deadline:
        time.sleep(every_seconds)
        value = condition()
    return value


def nodes_seen(answers):
    return {answer.final_upstream for answer in answers}


def require_both_nodes(deployment, answers, what):
    expected = {deployment.node_a.address, deployment.node_b.address}
    seen = nodes_seen(answers)
    require(seen == expected,
            f"{what}: expected answers from both nodes {sorted(expected)}, got {sorted(seen)}")


# ---- the demo's ids ----

def quick_search(client, token, project, name, object_type):
    query = urllib.parse.urlencode({"name": name, "type": object_type, "pattern": 2})
    return client.send("GET", f"/api/searches/results?{query}", token=token, project=project)


def id_in_search(answer, name):
    body = answer.json() or {}
    hits = body.get("result", []) if isinstance(body, dict) else body
    return next((hit["id"] for hit in hits if hit.get("name") == name), None)


def find_demo_ids(node):
    """The Tutorial project and the objects the checks use, through `node` directly."""
    client = node.client()
    token = login(client, f"node {node.name}")
    projects = client.send("GET", "/api/projects", token=token)
    require_status(projects, 200, "GET /api/projects")
    project = next((p["id"] for p in projects.json() if p["name"] == "Tutorial"), None)
    require(project, f"the demo project Tutorial is missing: {projects.describe()}")
    ids = DemoIds(project=project)
    for attribute, name, object_type in (("sales_cube", "Sales Cube", TYPE_CUBE),
                                         ("revenue_metric", "Revenue", TYPE_METRIC),
                                         ("year_attribute", "Year", TYPE_ATTRIBUTE),
                                         ("region_attribute", "Region", TYPE_ATTRIBUTE),
                                         ("sales_overview", "Sales Overview", TYPE_DASHBOARD)):
        found = id_in_search(quick_search(client, token, project, name, object_type), name)
        require(found, f"the demo object '{name}' (type {object_type}) is not found")
        setattr(ids, attribute, found)
    client.logout(token)
    return ids


# ---- login, projects, search ----

def check_login_token_works_on_both_nodes(deployment):
    balancer = deployment.balancer
    token = login(balancer, "login through the balancer")
    sessions = [balancer.send("GET", "/api/sessions", token=token) for _ in range(6)]
    for answer in sessions:
        require_status(answer, 200, "GET /api/sessions with the token of one login")
    require_both_nodes(deployment, sessions, "GET /api/sessions")
    balancer.logout(token)
    return f"6 calls with one token answered 200 by {len(nodes_seen(sessions))} nodes"


def check_projects_and_search_on_both_nodes(deployment):
    balancer, demo = deployment.balancer, deployment.demo
    token = login(balancer, "login through the balancer")
    answers = []
    for _ in range(4):
        projects = balancer.send("GET", "/api/projects", token=token)
        require_status(projects, 200, "GET /api/projects")
        names = [project["name"] for project in projects.json()]
        require("Tutorial" in names, f"GET /api/projects via {projects.upstream}: no Tutorial in "
                                     f"{names}")
        search = quick_search(balancer, token, demo.project, "Sales Cube", TYPE_CUBE)
        require_status(search, 200, "GET /api/searches/results")
        require(id_in_search(search, "Sales Cube") == demo.sales_cube,
                f"the quick search via {search.upstream} did not find Sales Cube "
                f"{demo.sales_cube}: {search.describe()}")
        answers += [projects, search]
    require_both_nodes(deployment, answers, "projects and search")
    balancer.logout(token)
    return "projects and quick search answered alike by both nodes"


def check_stored_search_is_fetched_on_either_node(deployment):
    """A metadata search stores its hits in the storage service, so its results page can be
    fetched from any node: made on node A, read on node B (both addressed directly, to be sure
    each side is the node named)."""
    demo = deployment.demo
    token = login(deployment.balancer, "login through the balancer")
    query = urllib.parse.urlencode({"name": "Cube", "pattern": 4, "type": TYPE_CUBE})
    started = deployment.node_a.client().send("POST", f"/api/metadataSearches/results?{query}",
                                              token=token, project=demo.project)
    require_status(started, 200, "POST /api/metadataSearches/results on node A")
    search_id, expected_total = started.json()["id"], started.json()["totalItems"]
    require(expected_total == 3, f"the demo has 3 cubes, the search found {started.describe()}")
    fetched = deployment.node_b.client().send(
        "GET", f"/api/metadataSearches/results?searchId={search_id}", token=token,
        project=demo.project)
    require_status(fetched, 200, "GET /api/metadataSearches/results on node B")
    names = sorted(hit["name"] for hit in fetched.json())
    require(names == ["Item Sales Cube", "Order Lines Cube", "Sales Cube"],
            f"node B's page of node A's search lists {names}")
    deployment.balancer.logout(token)
    return "a search stored through node A was read on node B"


# ---- a cube published on one node, served by the other ----

def publish_and_wait(node, token, demo):
    client = node.client()
    published = client.send("POST", f"/api/v2/cubes/{demo.sales_cube}", token=token,
                            project=demo.project)
    require_status(published, 202, f"publish Sales Cube on node {node.name}")
    monitor_id = published.json()["id"]  # the job monitor's key; "jobId" is the stored job's

    def ended():
        answer = client.send("GET", f"/api/v2/monitors/jobs/{monitor_id}", token=token,
                             project=demo.project)
        require_status(answer, 200, f"the job monitor on node {node.name}")
        return answer.json() if answer.json().get("status") != "executing" else None

    job = wait_for(ended)
    require(job, f"the publish {monitor_id} on node {node.name} did not end in {WAIT_SECONDS} s")
    require(job["status"] == "completed", f"the publish on node {node.name} ended {job}")


def cube_status(client, token, demo):
    answer = client.send("HEAD", f"/api/cubes/{demo.sales_cube}", token=token,
                         project=demo.project)
    require_status(answer, 200, "HEAD /api/cubes/{id}")
    return int(answer.headers.get("X-MSTR-CubeStatus", "0"))


def is_served(status):
    return status & CUBE_LOADED_AND_READY == CUBE_LOADED_AND_READY and not status & CUBE_PROCESSING


def revenue_by_year(node, token, demo):
    """A cube instance of Revenue by Year, made and read on `node` addressed directly:
    (total rows, [(year, revenue)])."""
    client = node.client()
    body = {"requestedObjects": {"attributes": [{"id": demo.year_attribute}],
                                 "metrics": [{"id": demo.revenue_metric}]}}
    created = client.send("POST", f"/api/v2/cubes/{demo.sales_cube}/instances", token=token,
                          project=demo.project, json_body=body)
    require_status(created, 200, f"cube instance on node {node.name}")
    instance = created.json()["instanceId"]
    page = client.send("GET", f"/api/v2/cubes/{demo.sales_cube}/instances/{instance}"
                              "?offset=0&limit=1000", token=token, project=demo.project)
    require_status(page, 200, f"the instance's page on node {node.name}")
    return grid_rows(page.json())


def grid_rows(grid):
    """(paging total, [(element form values..., raw metric values...)]) of a v2 grid body."""
    elements = [row["elements"] for row in grid["definition"]["grid"]["rows"]]
    data = grid["data"]
    rows = []
    for indices, values in zip(data["headers"]["rows"], data["metricValues"]["raw"]):
        names = tuple("/".join(elements[j][i]["formValues"]) for j, i in enumerate(indices))
        rows.append(names + tuple(values))
    return data["paging"]["total"], rows


def check_cube_published_on_a_is_served_by_b(deployment):
    demo, node_a, node_b = deployment.demo, deployment.node_a, deployment.node_b
    token = login(node_a.client(), "login on node A")
    publish_and_wait(node_a, token, demo)
    status_on_b = cube_status(node_b.client(), token, demo)
    require(is_served(status_on_b),
            f"node B reports Sales Cube status {status_on_b} after node A published it: "
            f"expected loaded and ready (bits {CUBE_LOADED_AND_READY}), not processing")
    statuses = [deployment.balancer.send("HEAD", f"/api/cubes/{demo.sales_cube}", token=token,
                                         project=demo.project) for _ in range(4)]
    require_both_nodes(deployment, statuses, "HEAD /api/cubes/{id}")
    total_a, rows_a = revenue_by_year(node_a, token, demo)
    total_b, rows_b = revenue_by_year(node_b, token, demo)
    require(total_a == total_b and rows_a == rows_b,
            f"Revenue by Year differs: node A {total_a} rows {rows_a}, node B {total_b} rows "
            f"{rows_b}")
    served = total_revenue(rows_b)
    expected = warehouse_revenue(deployment.cluster)
    require(close(served, expected),
            f"node B serves Revenue {served} in all, the warehouse holds {expected}")
    republished_ms = republish_and_wait_for_node_b(deployment, token)
    node_a.client().logout(token)
    return (f"status {status_on_b} on B; {total_b} years, Revenue {served:.2f} on both nodes; "
            f"B served A's republish {republished_ms:.0f} ms after it completed")


def total_revenue(rows):
    return sum(row[-1] for row in rows)


def close(value, expected):
    return abs(value - expected) <= 1e-6 * abs(expected)


def warehouse_revenue(cluster):
    return float(query_value(cluster.psql, cluster.warehouse_url,
                             "SELECT sum(revenue) FROM sales_fact"))


def republish_and_wait_for_node_b(deployment, token):
    """Changes every Revenue in the warehouse, republishes through node A and waits until node B
    serves the new version; the milliseconds B took after the publish completed."""
    cluster, demo = deployment.cluster, deployment.demo
    query_value(cluster.psql, cluster.warehouse_url,
                "UPDATE sales_fact SET revenue = revenue + 1 RETURNING 1")
    expected = warehouse_revenue(cluster)
    publish_and_wait(deployment.node_a, token, demo)
    completed = time.monotonic()
    served = wait_for(lambda: close(total_revenue(revenue_by_year(deployment.node_b, token,
                                                                  demo)[1]), expected),
                      timeout_seconds=10)
    require(served, f"node B still serves the previous version of Sales Cube 10 s after node A "
                    f"republished it (expected Revenue {expected})")
    return (time.monotonic() - completed) * 1000


# ---- pushed data through the balancer ----

PUSH_MODEL = {
    "name": "Scale-out pushed sales",
    "description": "pushed through the balancer",
    "folderId": "",
    "tables": [{"name": "sales",
                "columnHeaders": [{"name": "store", "dataType": "INTEGER"},
                                  {"name": "amount", "dataType": "DOUBLE"}]}],
    "attributes": [{"name": "store",
                    "attributeForms": [{"category": "ID", "expressions": [
                        {"tableName": "sales", "columnName": "store"}]}]}],
    "metrics": [{"name": "amount", "expressions": [{"tableName": "sales", "columnName": "amount"}]}],
}
PUSH_CHUNKS = 6  # round robin spreads them over both nodes
PUSH_ROWS_PER_CHUNK = 50


def pushed_rows(chunk):
    """The rows of chunk `chunk` (from 1): stores 1..10, amounts in quarters (exact sums)."""
    first = (chunk - 1) * PUSH_ROWS_PER_CHUNK
    return [[(row % 10) + 1, row * 0.25] for row in range(first, first + PUSH_ROWS_PER_CHUNK)]


def expected_store_sums():
    sums = {}
    for chunk in range(1, PUSH_CHUNKS + 1):
        for store, amount in pushed_rows(chunk):
            sums[store] = sums.get(store, 0.0) + amount
    return sums


def check_upload_session_through_balancer(deployment):
    balancer, demo = deployment.balancer, deployment.demo
    token = login(balancer, "login through the balancer")
    call = lambda method, path, body=None: balancer.send(  # noqa: E731
        method, path, token=token, project=demo.project, json_body=body)
    created = call("POST", "/api/datasets/models", PUSH_MODEL)
    require_status(created, 200, "POST /api/datasets/models")
    dataset = created.json()["id"]
    opened = call("POST", f"/api/datasets/{dataset}/uploadSessions",
                  {"tables": [{"name": "sales", "updatePolicy": "replace",
                               "columnHeaders": ["store", "amount"]}]})
    require_status(opened, 200, "opening an upload session")
    session_path = f"/api/datasets/{dataset}/uploadSessions/{opened.json()['uploadSessionId']}"
    answers = []
    for chunk in range(1, PUSH_CHUNKS + 1):
        data = base64.b64encode(json.dumps(pushed_rows(chunk)).encode()).decode()
        answer = call("PUT", session_path, {"tableName": "sales", "index": chunk, "data": data})
        require_status(answer, 200, f"chunk {chunk}")
        answers.append(answer)
    require_both_nodes(deployment, answers, "the chunks of one upload session")
    require_status(call("POST", session_path + "/publish"), 200, "publishing the session")

    def published():
        answer = call("GET", session_path + "/publishStatus")
        require_status(answer, 200, "publishStatus")
        return answer if answer.json()["status"] == 1 else None

    require(wait_for(published), f"the publish did not end in {WAIT_SECONDS} s")
    expected = expected_store_sums()
    for node in (deployment.node_a, deployment.node_b):
        served = pushed_sums(node, token, demo, dataset)
        require(served.keys() == expected.keys() and
                all(close(served[store], expected[store]) for store in expected),
                f"node {node.name} serves {served}, expected {expected}")
    return (f"{PUSH_CHUNKS} chunks over {len(nodes_seen(answers))} nodes; both nodes serve the "
            f"{len(expected)} stores' sums")


def pushed_sums(node, token, demo, dataset):
    """{store: amount} of the pushed dataset, from an instance on `node` addressed directly."""
    client = node.client()
    created = client.send("POST", f"/api/v2/cubes/{dataset}/instances", token=token,
                          project=demo.project, json_body={})
    require_status(created, 200, f"an instance of the pushed dataset on node {node.name}")
    _, rows = grid_rows(created.json())
    return {int(row[0]): row[1] for row in rows}


# ---- instances through the balancer ----

PAGE_ROWS = 20


def cube_instance_pages(deployment, token, instance, offsets):
    """The pages at `offsets` of a Sales Cube instance, each fetched through the balancer."""
    demo = deployment.demo
    pages = []
    for offset in offsets:
        page = deployment.balancer.send(
            "GET", f"/api/v2/cubes/{demo.sales_cube}/instances/{instance}"
                   f"?offset={offset}&limit={PAGE_ROWS}", token=token, project=demo.project)
        require_status(page, 200, f"page at {offset} of instance {instance}")
        pages.append(page)
    return pages


def check_cube_instance_pages_through_balancer(deployment):
    """A cube instance made through the balancer answers on either node, page for page."""
    demo = deployment.demo
    token = login(deployment.balancer, "login through the balancer")
    created = deployment.balancer.send(
        "POST", f"/api/v2/cubes/{demo.sales_cube}/instances?limit={PAGE_ROWS}", token=token,
        project=demo.project, json_body={})
    require_status(created, 200, "a Sales Cube instance through the balancer")
    instance = created.json()["instanceId"]
    total = created.json()["data"]["paging"]["total"]
    offsets = [0, PAGE_ROWS, 2 * PAGE_ROWS, total - PAGE_ROWS]
    require(total > 3 * PAGE_ROWS, f"the instance has {total} rows: too few for the check")
    first_round = cube_instance_pages(deployment, token, instance, offsets)
    second_round = cube_instance_pages(deployment, token, instance, offsets)
    require_both_nodes(deployment, first_round + second_round, "the instance's pages")
    for offset, first, second in zip(offsets, first_round, second_round):
        require(first.json()["data"] == second.json()["data"],
                f"the page at {offset} differs between {first.upstream} and {second.upstream}")
    require(first_round[0].json()["data"] == created.json()["data"],
            "the first page differs from the one the creation answered")
    deployment.balancer.logout(token)
    return f"{len(offsets)} pages of a {total}-row instance alike on both nodes"


def check_dashboard_selections_through_balancer(deployment):
    """A dashboard instance's selections, changed through the balancer, show on both nodes."""
    demo, balancer = deployment.demo, deployment.balancer
    token = login(balancer, "login through the balancer")
    base = f"/api/dossiers/{demo.sales_overview}/instances"
    created = balancer.send("POST", base, token=token, project=demo.project, json_body={})
    require_status(created, 201, "a Sales Overview instance through the balancer")
    instance = created.json()["mid"]
    visualization = (f"/api/v2/dossiers/{demo.sales_overview}/instances/{instance}"
                     "/chapters/K1/visualizations/W5")

    def both_views(what):
        views = [balancer.send("GET", visualization, token=token, project=demo.project)
                 for _ in range(2)]
        for view in views:
            require_status(view, 200, what)
        require_both_nodes(deployment, views, what)
        require(views[0].json()["data"] == views[1].json()["data"],
                f"{what}: {views[0].upstream} and {views[1].upstream} show different rows")
        return views[0].json()["data"]

    unfiltered = both_views("W5 unfiltered")
    selection = [{"key": "W10", "currentSelection": {
        "selectionStatus": "included",
        "elements": [{"id": f"h1;{demo.region_attribute}"}]}}]
    changed = balancer.send("PUT", f"{base}/{instance}/filters", token=token,
                            project=demo.project, json_body=selection)
    require_status(changed, 204, "PUT filters through the balancer")
    filtered = both_views("W5 filtered")
    require(filtered != unfiltered, "W5 shows the same rows after the region filter")
    deleted = balancer.send("DELETE", f"{base}/{instance}", token=token, project=demo.project)
    require_status(deleted, 204, "DELETE the instance through the balancer")
    gone = [balancer.send("GET", visualization, token=token, project=demo.project)
            for _ in range(2)]
    require(all(answer.status == 404 for answer in gone),
            f"the deleted instance answers {[answer.status for answer in gone]}")
    balancer.logout(token)
    return "selections set through one node shown by both; deleted on one, gone on both"


# ---- client addresses behind the balancer ----

LOCKED_OUT_CLIENT = "198.51.100.7"
OTHER_CLIENT = "198.51.100.8"
FAILED_LOGINS_PER_ADDRESS = 20  # the default auth.max_failed_logins_per_address, per node


def login_from(balancer, client_address, username, password):
    """A login through the balancer by a client at `client_address`; the Response. (The suite
    itself connects from loopback, which the nodes trust like nginx, so the address it names in
    X-Forwarded-For is the client's.)"""
    return balancer.send("POST", "/api/auth/login",
                         json_body={"username": username, "password": password, "loginMode": 1},
                         headers={"X-Forwarded-For": client_address})


def check_failed_logins_lock_out_their_client_only(deployment):
    balancer = deployment.balancer
    # Enough for both nodes, whichever way round robin sends them; each an unknown user, so
    # no user is locked out, only the address.
    refused = 0
    for attempt in range(2 * FAILED_LOGINS_PER_ADDRESS + 2):
        answer = login_from(balancer, LOCKED_OUT_CLIENT, f"nobody{attempt}", "wrong")
        require(answer.status in (401, 429), f"a failed login: {answer.describe()}")
        refused += answer.status == 429
    require(refused >= 1, "no failed login of the client was ever refused with 429")
    for _ in range(2):  # once on each node
        answer = login_from(balancer, LOCKED_OUT_CLIENT, "administrator", "")
        require_status(answer, 429, "the locked-out client's correct login")
        require("Retry-After" in answer.headers, f"429 without Retry-After: {answer.describe()}")
    answers = [login_from(balancer, OTHER_CLIENT, "administrator", "") for _ in range(2)]
    for answer in answers:  # back to back: round robin sends them to both nodes
        require_status(answer, 204, "another client's login through the same balancer")
        balancer.logout(answer.headers.get("X-MSTR-AuthToken"))
    answered_by = {answer.final_upstream for answer in answers}
    require(len(answered_by) == 2, f"the other client reached {sorted(answered_by)}, not both nodes")
    return f"{refused} of the client's logins answered 429; another client logged in on both nodes"


# ---- session revocation ----

def check_logout_on_a_is_refused_on_b_at_once(deployment):
    node_a, node_b = deployment.node_a.client(), deployment.node_b.client()
    token = login(deployment.balancer, "login through the balancer")
    require_status(node_b.send("GET", "/api/sessions", token=token), 200,
                   "the token on node B before the logout")  # node B has validated it
    require_status(node_a.logout(token), 204, "logout on node A")
    logged_out = time.monotonic()
    refused_ms = None
    while (time.monotonic() - logged_out) * 1000 < REVOCATION_WATCH_MS:
        if node_b.send("GET", "/api/sessions", token=token).status == 401:
            refused_ms = (time.monotonic() - logged_out) * 1000
            break
        time.sleep(0.01)
    require(refused_ms is not None,
            f"node B still accepts the token {REVOCATION_WATCH_MS} ms after its logout on A")
    require(refused_ms < REVOKED_AT_ONCE_MS,
            f"node B accepted the token for {refused_ms:.0f} ms after its logout on node A "
            f"(at once means under {REVOKED_AT_ONCE_MS} ms): the logout is not announced to "
            "other nodes, node B waited for its session cache")
    through_balancer = [deployment.balancer.send("GET", "/api/sessions", token=token)
                        for _ in range(2)]
    for answer in through_balancer:
        require_status(answer, 401, "the logged-out token through the balancer")
    return f"node B refused the token {refused_ms:.0f} ms after the logout on node A"


# ---- a migration package ----

def object_migration_body(deployment):
    """The body mstrio-py's create_object_migration sends, for the metric Revenue."""
    environment = {"id": deployment.cluster.balancer.url + "/",
                   "name": deployment.cluster.balancer.url + "/"}
    return {"packageInfo": {
        "name": "Revenue through the balancer",
        "environment": environment,
        "tocView": {
            "settings": {"updateSchema": [], "aclOnReplacingObjects": "use_existing",
                         "aclOnNewObjects": ["keep_acl_as_source_object"],
                         "defaultAction": "use_existing"},
            "content": [{"id": deployment.demo.revenue_metric, "name": "Revenue",
                         "type": TYPE_METRIC, "action": "use_existing",
                         "includeDependents": False}]},
        "treeView": {},
        "type": "project"},
        "importInfo": {}}


def check_migration_package_through_balancer(deployment):
    balancer, demo = deployment.balancer, deployment.demo
    token = login(balancer, "login through the balancer")
    created = balancer.send("POST", "/api/migrations", token=token, project=demo.project,
                            json_body=object_migration_body(deployment),
                            headers={"Prefer": "respond-async"})
    require_status(created, 201, "POST /api/migrations")
    migration = created.json()["id"]
    polls = []

    def created_or_failed():
        answer = balancer.send("GET", f"/api/migrations/{migration}?showContent=default",
                               token=token)
        require_status(answer, 200, f"GET /api/migrations/{migration}")
        polls.append(answer)
        status = answer.json()["packageInfo"]["status"]
        return answer.json() if status != "creating" else None

    record = wait_for(created_or_failed)
    require(record, f"the package was still creating after {WAIT_SECONDS} s")
    package = record["packageInfo"]
    require(package["status"] == "created", f"the package ended {package['status']}: {record}")
    expected_environment = deployment.cluster.balancer.url + "/"
    require(package.get("environment", {}).get("id") == expected_environment,
            f"the package names environment {package.get('environment')}, expected the "
            f"balancer's URL {expected_environment}")
    download_path = f"/api/migrations/packages/{migration[:32]}/binary"
    files = [node.client().send("GET", download_path, token=token)
             for node in (deployment.node_a, deployment.node_b)]
    for node, answer in zip("AB", files):
        require_status(answer, 200, f"the package file from node {node}")
    require(files[0].body == files[1].body and files[0].body.startswith(b"PK"),
            f"the nodes serve different package files ({len(files[0].body)} and "
            f"{len(files[1].body)} bytes)")
    balancer.logout(token)
    return (f"package of {len(files[0].body)} bytes, status read by "
            f"{len(nodes_seen(polls))} nodes, the same file from both")
