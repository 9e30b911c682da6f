"""Pushed data speed: a million sales rows uploaded to Tessera through an upload session and
published, against PostgreSQL's COPY of the same rows, in rows per second (median of RUNS).

Run by bench/push_load.sh, which starts both servers:
  push_load.py TESSERA_PORT POSTGRES_URL PSQL
Environment: ROWS (default 1000000), CHUNK_ROWS (default 100000), RUNS (default 5).

The rows are generated once, deterministically (a fixed seed), then written as CSV for COPY and
as the bodies of the Python client's chunk PUTs (JSON arrays of row values, base64 in "data") for
Tessera, so neither side is timed making its input. The runs alternate, a copy then a push, so a drift of the
machine's speed reaches both. Tessera is timed from the dataset's creation to the first
publishStatus that says published (polled every 20 ms), split into the upload (create, session,
chunks) and the publish (publish call to published). COPY is timed around one psql running
COPY ... FROM STDIN into a table created just before. The copies' aftermath is kept out of
Tessera's runs, which share the machine's two cores: the tables are created without autovacuum
(which would analyse and vacuum each million rows in the background) and a CHECKPOINT follows
each copy, untimed; neither changes what a copy is timed on. Likewise each push is followed by a
second's pause, untimed, for the server's work after it (the store's checkpoint). With SERVER_PID
(the server's process id, as bench/push_load.sh passes it) the server's CPU seconds per push are
printed too, from the push's start to the pause's end: on a machine whose cores a push keeps busy,
that figure says what a change saved more steadily than the times, which move with the machine.
Prints a table; asserts nothing."""
import base64
import datetime
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

COLUMNS = [  # name, Tessera data type, PostgreSQL type, attribute (else metric)
    ("order_id", "INTEGER", "bigint", True),
    ("order_date", "DATE", "date", True),
    ("region", "STRING", "text", True),
    ("store", "STRING", "text", True),
    ("category", "STRING", "text", True),
    ("product", "STRING", "text", True),
    ("customer", "STRING", "text", True),
    ("quantity", "INTEGER", "bigint", False),
    ("unit_price", "DOUBLE", "double precision", False),
    ("amount", "DOUBLE", "double precision", False),
]
REGIONS = ["North", "South", "East", "West", "Central"]
CATEGORIES = ["Books", "Music", "Movies", "Electronics", "Toys", "Garden", "Kitchen", "Sports",
              "Clothing", "Shoes", "Beauty", "Health", "Office", "Pets", "Tools", "Auto",
              "Grocery", "Baby", "Jewelry", "Outdoors"]


def generate_rows(count):
    rng = random.Random(20261127)
    first_day = datetime.date(2022, 1, 1)
    days = [(first_day + datetime.timedelta(days=d)).isoformat() for d in range(1096)]
    stores = [f"Store {n:03d} {REGIONS[n % 5]}" for n in range(200)]
    products = [f"Product {n:04d}" for n in range(1000)]
    customers = [f"Customer {n:05d}" for n in range(50000)]
    rows = []
    for order_id in range(1, count + 1):
        store = rng.randrange(200)
        product = rng.randrange(1000)
        quantity = rng.randint(1, 20)
        unit_price = round(1 + (product * 7.31) % 499, 2)
        rows.append([order_id, days[rng.randrange(1096)], REGIONS[store % 5], stores[store],
                     CATEGORIES[product % 20], products[product],
                     customers[rng.randrange(50000)], quantity, unit_price,
                     round(quantity * unit_price * (1 - rng.randrange(4) * 0.05), 2)])
    return rows


def write_csv(rows, path):
    with open(path, "w") as out:
        for row in rows:
            out.write(",".join(repr(v) if isinstance(v, float) else str(v) for v in row))
            out.write("\n")


def encode_chunks(rows, chunk_rows):
    """The bodies of the chunks' PUTs, ready to send: the client's work, like the CSV for COPY."""
    bodies = []
    for index, begin in enumerate(range(0, len(rows), chunk_rows), start=1):
        data = base64.b64encode(json.dumps(rows[begin:begin + chunk_rows],
                                           separators=(",", ":")).encode()).decode()
        bodies.append(json.dumps({"tableName": "sales", "index": index, "data": data}).encode())
    return bodies


def copy_into_postgres(url, psql, csv_path, run):
    table = f"sales_{run}"
    columns = ", ".join(f"{name} {pg_type}" for name, _, pg_type, _ in COLUMNS)
    subprocess.run([psql, url, "-q", "-v", "ON_ERROR_STOP=1", "-c",
                    f"SET client_min_messages = warning; DROP TABLE IF EXISTS {table}; "
                    f"CREATE TABLE {table} ({columns}) WITH (autovacuum_enabled = false)"],
                   check=True)
    with open(csv_path, "rb") as data:
        began = time.perf_counter()
        subprocess.run([psql, url, "-q", "-v", "ON_ERROR_STOP=1", "-c",
                        f"COPY {table} FROM STDIN WITH (FORMAT csv)"], stdin=data, check=True)
        return time.perf_counter() - began


class Tessera:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
        status, headers, _ = self.call("POST", "/api/auth/login",
                                       "username=administrator&password=&loginMode=1",
                                       {"Content-Type": "application/x-www-form-urlencoded"})
        self.auth = {"X-MSTR-AuthToken": headers["X-MSTR-AuthToken"]}
        projects = json.loads(self.call("GET", "/api/projects")[2])
        self.auth["X-MSTR-ProjectID"] = projects[0]["id"]

    def call(self, method, path, body=None, headers=None):
        all_headers = dict(getattr(self, "auth", {}))
        all_headers.update(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            all_headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=body, headers=all_headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:500]!r}")
        return response.status, dict(response.getheaders()), data

    def push(self, name, chunks):
        """Creates a dataset and publishes `chunks` into it; (upload, publish) seconds."""
        began = time.perf_counter()
        model = {"name": name, "description": "push_load", "folderId": "",
                 "tables": [{"name": "sales", "columnHeaders": [
                     {"name": n, "dataType": t} for n, t, _, _ in COLUMNS]}],
                 "attributes": [{"name": n, "attributeForms": [{"category": "ID", "expressions": [
                     {"tableName": "sales", "columnName": n}]}]}
                     for n, _, _, is_attribute in COLUMNS if is_attribute],
                 "metrics": [{"name": n, "expressions": [{"tableName": "sales", "columnName": n}]}
                             for n, _, _, is_attribute in COLUMNS if not is_attribute]}
        dataset = json.loads(self.call("POST", "/api/datasets/models", model)[2])["id"]
        path = f"/api/datasets/{dataset}/uploadSessions"
        session = json.loads(self.call("POST", path, {"tables": [
            {"name": "sales", "updatePolicy": "REPLACE",
             "columnHeaders": [n for n, _, _, _ in COLUMNS]}]})[2])["uploadSessionId"]
        path += "/" + session
        for body in chunks:
            self.call("PUT", path, body, {"Content-Type": "application/json"})
        uploaded = time.perf_counter()
        self.call("POST", path + "/publish")
        while json.loads(self.call("GET", path + "/publishStatus")[2])["status"] != 1:
            time.sleep(0.02)
        return uploaded - began, time.perf_counter() - uploaded


def cpu_seconds(pid):
    """The CPU time (user and system, every thread) process `pid` has used so far."""
    if not pid:
        return 0.0
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    port, pg_url, psql = sys.argv[1], sys.argv[2], sys.argv[3]
    row_count = int(os.environ.get("ROWS", 1000000))
    chunk_rows = int(os.environ.get("CHUNK_ROWS", 100000))
    runs = int(os.environ.get("RUNS", 5))
    server_pid = os.environ.get("SERVER_PID", "")
    rows = generate_rows(row_count)
    chunks = encode_chunks(rows, chunk_rows)
    tessera = Tessera(port)
    copy_seconds, pushes, server_cpu = [], [], []
    with tempfile.TemporaryDirectory() as work:
        csv_path = os.path.join(work, "sales.csv")
        write_csv(rows, csv_path)
        del rows
        for run in range(runs):
            copy_seconds.append(copy_into_postgres(pg_url, psql, csv_path, run))
            subprocess.run([psql, pg_url, "-q", "-c", "CHECKPOINT"], check=True)
            cpu_before = cpu_seconds(server_pid)
            pushes.append(tessera.push(f"push_load {run}", chunks))
            time.sleep(1)
            server_cpu.append(cpu_seconds(server_pid) - cpu_before)

    copy = statistics.median(copy_seconds)
    upload = statistics.median(p[0] for p in pushes)
    publish = statistics.median(p[1] for p in pushes)
    total = statistics.median(p[0] + p[1] for p in pushes)
    print(f"rows {row_count}, chunks of {chunk_rows} rows ({len(chunks)} chunks, "
          f"{sum(len(c) for c in chunks) / 1e6:.1f} MB of request bodies), median of {runs}")
    print(f"{'':28s} {'seconds':>9s} {'rows/s':>12s}   runs (s)")
    for label, seconds, samples in [
            ("PostgreSQL COPY", copy, copy_seconds),
            ("Tessera upload+publish", total, [p[0] + p[1] for p in pushes]),
            ("  upload (create+chunks)", upload, [p[0] for p in pushes]),
            ("  publish (to published)", publish, [p[1] for p in pushes])]:
        print(f"{label:28s} {seconds:9.3f} {row_count / seconds:12.0f}   "
              + " ".join(f"{s:.3f}" for s in samples))
    print(f"ratio Tessera/COPY (rows/s): {copy / total:.2f}x   runs: "
          + " ".join(f"{c / (p[0] + p[1]):.2f}x" for c, p in zip(copy_seconds, pushes)))
    if server_pid:
        print(f"Tessera server CPU per push: {statistics.median(server_cpu):.2f} s "
              f"({statistics.median(server_cpu) * 1e6 / row_count:.2f} us a row)   runs: "
              + " ".join(f"{s:.2f}" for s in server_cpu))
        with open(f"/proc/{server_pid}/status") as status:
            memory = dict(line.split(":", 1) for line in status if line.startswith("Vm"))
        print(f"Tessera server memory after the pushes: resident {memory['VmRSS'].strip()}, "
              f"peak {memory['VmHWM'].strip()}")


if __name__ == "__main__":
    main()
