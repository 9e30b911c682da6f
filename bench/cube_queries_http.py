"""The HTTP side of bench/cube_queries_http.sh.

Maps each query of queries.json onto an instance of the demo's Order Lines Cube (one row per
order line, every attribute, a metric for every aggregate the queries use), creates it over HTTP
7 times, and checks the answer against SQLite running the query's SQL on a view `sales` of the
demo warehouse (bench/sales_flat.sql).

    python3 bench/cube_queries_http.py PORT QUERIES_JSON WAREHOUSE_DB
"""
import json
import math
import os
import sqlite3
import statistics
import sys
import time
import urllib.parse
import urllib.request

ID_FORM = "45C11FA478E745FEA08D781CEA190FE5"
DESC_FORM = "CCFBE2A5EADB4F50941FB879CCF1721C"
RUNS = 7

ATTRIBUTES = {
    "year": "Year", "quarter": "Quarter", "month": "Month", "day": "Day", "region": "Region",
    "country": "Country", "city": "City", "category": "Category", "subcategory": "Subcategory",
    "item": "Item", "customer_segment": "Customer Segment", "channel": "Channel",
}
# The bench table holds the ID of the time attributes and the name of the others.
ID_VALUED = {"year", "quarter", "month", "day"}
AGGREGATES = {
    ("sum", "revenue"): "Revenue", ("sum", "cost"): "Cost", ("sum", "units"): "Units Sold",
    ("count", None): "Order Lines", ("avg", "revenue"): "Avg Revenue",
    ("avg", "units"): "Avg Units", ("min", "revenue"): "Min Revenue",
    ("max", "revenue"): "Max Revenue", ("count_distinct", "item"): "Item Count",
    ("count_distinct", "city"): "City Count",
    ("count_distinct", "customer_segment"): "Customer Segment Count",
}
CALCULATIONS = {"revenue - cost": "Profit", "(revenue - cost) / revenue": "Profit Margin"}
COMPARISONS = {">": "Greater", ">=": "GreaterEqual", "<": "Less", "<=": "LessEqual",
               "=": "Equals", "!=": "NotEquals"}



class Server:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        _, headers, _ = self.call("POST", "/api/auth/login",
                                  form="username=administrator&password=&loginMode=1")
        self.auth = {"X-MSTR-AuthToken": headers["X-MSTR-AuthToken"]}
        projects = json.loads(self.call("GET", "/api/projects")[2])
        self.auth["X-MSTR-ProjectID"] = next(p["id"] for p in projects if p["name"] == "Tutorial")

    def call(self, method, path, body=None, form=None):
        data = form.encode() if form else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.base + path, data=data, method=method)
        for key, value in getattr(self, "auth", {}).items():
            request.add_header(key, value)
        if body is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=3600) as response:
            return response.status, dict(response.headers), response.read()

    def find_cube(self, name):
        query = urllib.parse.urlencode({"name": name, "type": 776, "pattern": 2})
        hits = json.loads(self.call("GET", f"/api/searches/results?{query}")[2])
        hits = hits.get("result", hits) if isinstance(hits, dict) else hits
        return next(h["id"] for h in hits if h["name"] == name)

    def publish(self, cube):
        self.call("POST", f"/api/v2/cubes/{cube}")
        while True:
            status = int(self.call("HEAD", f"/api/cubes/{cube}")[1]["X-MSTR-CubeStatus"])
            if status & 64 and not status & 1:
                return
            time.sleep(0.1)


def form_of(column):
    return ID_FORM if column in ID_VALUED else DESC_FORM


def form_operand(attribute_ids, column):
    return {"type": "form", "attribute": {"id": attribute_ids[ATTRIBUTES[column]]},
            "form": {"id": form_of(column)}}


def constant(value, data_type=None):
    data_type = data_type or ("Real" if isinstance(value, (int, float)) else "Char")
    return {"type": "constant", "dataType": data_type, "value": str(value)}


def filter_node(query_filter, attribute_ids, metric_ids):
    if query_filter["op"] == "in":
        values = query_filter["values"]
        data_type = "Real" if isinstance(values[0], (int, float)) else "Char"
        return {"operator": "In", "operands": [
            form_operand(attribute_ids, query_filter["attribute"]),
            {"type": "constants", "dataType": data_type, "values": [str(v) for v in values]}]}
    column = query_filter["column"]
    if column in ATTRIBUTES:
        operand = form_operand(attribute_ids, column)
        data_type = "Date" if column == "day" else None
    else:
        operand = {"type": "metric", "id": metric_ids[AGGREGATES[("sum", column)]]}
        data_type = "Real"
    bounds = []
    if "min" in query_filter:
        operator = "GreaterEqual" if query_filter.get("min_inclusive", True) else "Greater"
        bounds.append({"operator": operator,
                       "operands": [operand, constant(query_filter["min"], data_type)]})
    if "max" in query_filter:
        operator = "LessEqual" if query_filter.get("max_inclusive", True) else "Less"
        bounds.append({"operator": operator,
                       "operands": [operand, constant(query_filter["max"], data_type)]})
    return bounds[0] if len(bounds) == 1 else {"operator": "And", "operands": bounds}


def metric_name(measure):
    if "calc" in measure:
        return CALCULATIONS[measure["calc"]]
    return AGGREGATES[(measure["agg"], measure.get("of"))]


def instance_body(cube, attribute_ids, metric_ids):
    names = {m["name"]: metric_name(m) for m in cube["measures"]}
    body = {"requestedObjects": {
        "attributes": [{"id": attribute_ids[ATTRIBUTES[a]]} for a in cube["group_by"]],
        "metrics": [{"id": metric_ids[names[m["name"]]]} for m in cube["measures"]]}}
    nodes = [filter_node(f, attribute_ids, metric_ids) for f in cube["filters"]]
    if nodes:
        body["viewFilter"] = nodes[0] if len(nodes) == 1 else {"operator": "And", "operands": nodes}
    if cube["having"]:
        limits = {}
        for having in cube["having"]:
            metric = metric_ids[names[having["measure"]]]
            limits[metric] = {"operator": COMPARISONS[having["op"]], "operands": [
                {"type": "metric", "id": metric}, constant(float(having["value"]), "Real")]}
        body["metricLimits"] = limits
    rows = []
    for key in cube["order_by"]:
        order = "descending" if key["dir"] == "desc" else "ascending"
        if key["key"] in ATTRIBUTES:
            rows.append({"type": "form", "attribute": {"id": attribute_ids[ATTRIBUTES[key["key"]]]},
                         "form": {"id": form_of(key["key"])}, "order": order})
        else:
            rows.append({"type": "metric", "metric": {"id": metric_ids[names[key["key"]]]},
                         "order": order})
    if rows:
        body["sorting"] = {"rows": rows}
    return body


def answer_of(body, group_by, attribute_ids, measure_ids):
    """The rows of a v2 body as the bench table's values: the query's columns in its order (the
    grid lists attributes and metrics in the cube's order)."""
    grid = body["definition"]["grid"]
    grid_attributes = [a["id"] for a in grid["rows"]]
    grid_metrics = [m["id"] for m in grid["columns"][0]["elements"]] if grid["columns"] else []
    rows = []
    for r, header in enumerate(body["data"]["headers"]["rows"]):
        row = []
        for column in group_by:
            j = grid_attributes.index(attribute_ids[ATTRIBUTES[column]])
            forms = [f["id"] for f in grid["rows"][j]["forms"]]
            values = grid["rows"][j]["elements"][header[j]]["formValues"]
            row.append(values[forms.index(form_of(column))])
        raw = body["data"]["metricValues"]["raw"][r]
        row.extend(raw[grid_metrics.index(m)] for m in measure_ids)
        rows.append(row)
    return rows


def same_value(actual, expected):
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(expected, (int, float)):
        return math.isclose(float(actual), float(expected), rel_tol=1e-9, abs_tol=1e-6)
    return str(actual) == str(expected)


def main():
    port, queries_path, warehouse = sys.argv[1:4]
    server = Server(port)
    cube = server.find_cube("Order Lines Cube")
    began = time.perf_counter()
    server.publish(cube)
    print(f"Order Lines Cube publish: {time.perf_counter() - began:.1f} s")
    objects = json.loads(server.call("GET", f"/api/v2/cubes/{cube}")[2])["definition"]
    attribute_ids = {a["name"]: a["id"] for a in objects["availableObjects"]["attributes"]}
    metric_ids = {m["name"]: m["id"] for m in objects["availableObjects"]["metrics"]}

    sqlite = sqlite3.connect(":memory:")
    sqlite.execute(f"ATTACH '{warehouse}' AS w")
    with open(os.path.join(os.path.dirname(__file__), "sales_flat.sql")) as flat:
        sqlite.execute("CREATE TEMP VIEW sales AS " + flat.read())

    lean = "fields=-data.metricValues.extras,-data.metricValues.formatted"
    wrong = 0
    print(f"\n{'query':6} {'rows':>7} {'median ms':>10} {'min ms':>8} {'SQLite ms':>10}  answer")
    for query in json.load(open(queries_path))["queries"]:
        cube_query = query["cube"]
        body = instance_body(cube_query, attribute_ids, metric_ids)
        limit = cube_query["limit"] or 1000000
        times, answer = [], None
        for _ in range(RUNS):
            began = time.perf_counter()
            _, _, text = server.call(
                "POST", f"/api/v2/cubes/{cube}/instances?offset=0&limit={limit}&{lean}", body)
            times.append((time.perf_counter() - began) * 1000)
            answer = json.loads(text)
        began = time.perf_counter()
        expected = sqlite.execute(query["sql"]).fetchall()
        sqlite_ms = (time.perf_counter() - began) * 1000
        measure_ids = [metric_ids[metric_name(m)] for m in cube_query["measures"]]
        actual = answer_of(answer, cube_query["group_by"], attribute_ids, measure_ids)
        matches = len(actual) == len(expected) and all(
            len(a) == len(e) and all(same_value(x, y) for x, y in zip(a, e))
            for a, e in zip(actual, expected))
        if not matches:
            wrong += 1
            first = next((i for i, (a, e) in enumerate(zip(actual, expected)) if
                          not all(same_value(x, y) for x, y in zip(a, e))), min(len(actual),
                                                                               len(expected)))
            print(f"  {query['id']}: {len(actual)} rows, SQLite {len(expected)}; first difference "
                  f"at row {first}: {actual[first:first + 1]} against {expected[first:first + 1]}")
        print(f"{query['id']:6} {len(actual):7d} {statistics.median(times):10.1f} "
              f"{min(times):8.1f} {sqlite_ms:10.0f}  {'equal' if matches else 'DIFFERENT'}")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
