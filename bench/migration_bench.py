#!/usr/bin/env python3
"""The bundle generator and HTTP driver of bench/migration.sh.

  migration_bench.py bundle DEMO_DIR OUT_DIR OBJECTS
      copies the demo bundle DEMO_DIR to OUT_DIR and adds OBJECTS metrics to it, 1,000 per folder,
      ten folders per group below "Public Objects/Bench" (the bundle import lists a folder's
      children for every object it places: short lists keep it quick).
  migration_bench.py run BINARY WORK OBJECTS... [--runs N] [--poll SECONDS] [--timeout SECONDS]
      for each OBJECTS, migrates every added metric from WORK/source-OBJECTS to
      WORK/target-OBJECTS (data directories loaded beforehand) through WORK/packages, N times:
      creation, import and undo, each phase in a freshly started server process, polling the
      status every --poll seconds and giving up after --timeout seconds; prints the figures.

Objects are counted in the package file (the added metrics plus the folders above them).
"""
import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile

PER_FOLDER = 1000
FOLDERS_PER_GROUP = 10
METRIC_TYPE = 4
PROJECT = "Tutorial"
DEFINITIONS = [
    ("function: sum", "fact: Revenue"),
    ("function: sum", "fact: Cost"),
    ("function: avg", "fact: Units"),
    ("expression: \"[Revenue] - [Cost]\"", None),
]


def metric_name(i):
    return f"Bench Metric {i:06d}"


def metric_id(i):
    return hashlib.sha256(f"migration-bench:{i}".encode()).hexdigest()[:32].upper()


def write_bundle(demo_dir, out_dir, objects):
    shutil.copytree(demo_dir, out_dir)
    with open(os.path.join(out_dir, "metrics.yaml"), "a") as out:
        for i in range(objects):
            first, second = DEFINITIONS[i % len(DEFINITIONS)]
            out.write(f"  - name: {metric_name(i)}\n    id: {metric_id(i)}\n    {first}\n")
            if second:
                out.write(f"    {second}\n")
            folder = i // PER_FOLDER
            out.write(f"    description: Metric {i} generated for the migration benchmark\n"
                      f"    folder: Public Objects/Bench/Group {folder // FOLDERS_PER_GROUP:02d}"
                      f"/Folder {folder:03d}\n"
                      f"    format: \"#,##0.00\"\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `tessera serve` process over a data directory; restartable on the same port."""

    def __init__(self, binary, data_dir, packages_dir):
        self.binary, self.data_dir, self.packages_dir = binary, data_dir, packages_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "serve", "--listen", f"127.0.0.1:{self.port}",
             "--data-dir", self.data_dir, "--packages-dir", self.packages_dir,
             "--public-url", self.url, "--access-log", "false", "--log-level", "warn",
             "--demo-on-first-start", "false"])
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server on {self.data_dir} stopped")
            try:
                urllib.request.urlopen(self.url + "api/status", timeout=5).read()
                break
            except OSError:
                time.sleep(0.05)
        _, headers, _ = self.call("POST", "/api/auth/login",
                                  form="username=administrator&password=&loginMode=1")
        self.auth = {"X-MSTR-AuthToken": headers["X-MSTR-AuthToken"]}
        projects = json.loads(self.call("GET", "/api/projects")[2])
        self.project = next(p["id"] for p in projects if p["name"] == PROJECT)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self):
        self.stop()
        self.start()

    def memory_kib(self, key):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        raise RuntimeError(f"no {key} for {self.process.pid}")

    def call(self, method, path, body=None, form=None, project=False, timeout=3600):
        data = form.encode() if form else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method)
        for key, value in getattr(self, "auth", {}).items():
            request.add_header(key, value)
        if project:
            request.add_header("X-MSTR-ProjectID", self.project)
        if body is not None:
            request.add_header("Content-Type", "application/json")
            request.add_header("Prefer", "respond-async")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"{method} {path}: {error.code} {error.read().decode()}") from None

    def send(self, method, path, data, content_type, timeout=3600):
        """A request with a raw body; the response's status and body."""
        request = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method)
        for key, value in getattr(self, "auth", {}).items():
            request.add_header(key, value)
        request.add_header("Content-Type", content_type)
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()

    def record(self, migration_id, show="default", timeout=3600):
        return json.loads(self.call("GET", f"/api/migrations/{migration_id}?showContent={show}",
                                    timeout=timeout)[2])

    def wait_while(self, migration_id, part, busy, poll, timeout):
        """Polls until part.status leaves `busy`; the record and the polls' median latency."""
        latencies = []
        deadline = time.perf_counter() + timeout
        progress = None
        while True:
            began = time.perf_counter()
            try:
                record = self.record(migration_id, timeout=max(deadline - began, 1))
            except (TimeoutError, urllib.error.URLError) as error:
                if time.perf_counter() < deadline:
                    raise
                raise TimeoutError(f"{part}.status still {busy} after {timeout:.0f} s (progress "
                                   f"{progress}; the last status read got no answer in "
                                   f"{time.perf_counter() - began:.0f} s; VmHWM "
                                   f"{mib(self.memory_kib('VmHWM')):.0f} MiB)") from error
            latencies.append(time.perf_counter() - began)
            if record[part]["status"] != busy:
                return record, statistics.median(latencies)
            progress = record[part].get("progress")
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{part}.status still {busy} after {timeout:.0f} s (progress "
                                   f"{progress}, the last status read took "
                                   f"{latencies[-1]:.1f} s; VmHWM "
                                   f"{mib(self.memory_kib('VmHWM')):.0f} MiB)")
            time.sleep(poll)


def phase(server, start, part, busy, done, options):
    """Runs one phase in `server`, freshly started; `start` sends its requests and returns the
    migration id. The id, the final record, and the phase's seconds, median status-read latency
    and VmHWM before and after."""
    server.restart()
    before = server.memory_kib("VmHWM")
    began = time.perf_counter()
    migration_id = start()
    record, latency = server.wait_while(migration_id, part, busy, options.poll, options.timeout)
    seconds = time.perf_counter() - began
    if record[part]["status"] != done:
        raise RuntimeError(f"{part}.status is {record[part]['status']}, not {done}: "
                           + json.dumps(record)[:2000])
    return migration_id, record, {"seconds": seconds, "poll_latency": latency,
                                  "hwm_before": before, "hwm_after": server.memory_kib("VmHWM")}


def transfer(server, action):
    """Runs `action` against `server`, freshly started: its result, seconds and VmHWM."""
    server.restart()
    before = server.memory_kib("VmHWM")
    began = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - began
    return result, {"seconds": seconds, "poll_latency": 0.0, "hwm_before": before,
                    "hwm_after": server.memory_kib("VmHWM")}


def download_and_upload(source, target, migration_id, run):
    """The package travels without the shared location: downloaded from the source, described
    and uploaded (multipart) to the target's shared file store."""
    path = f"/api/migrations/packages/{migration_id.split(':')[0]}/binary"
    package, run["download"] = transfer(source, lambda: source.call("GET", path)[2])
    show("download", run)

    def upload():
        described = json.loads(target.call("POST", FILES, {
            "name": "benchmark", "type": "migrations.packages", "extension": "mmp",
            "size": len(package), "sha256": hashlib.sha256(package).hexdigest(),
            "extraInfo": {"packageType": "project",
                          "packagePurpose": "migration_from_shared_file_store"}})[2])
        boundary = "tesserabenchmarkboundary"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"file\"\r\n\r\n").encode() + package + f"\r\n--{boundary}--\r\n".encode()
        target.send("PUT", f"{FILES}/{described['id']}/binary", body,
                    f"multipart/form-data; boundary={boundary}")
        target.call("DELETE", f"{FILES}/{described['id']}")

    _, run["upload"] = transfer(target, upload)
    show("upload", run)


def package_objects(path):
    with zipfile.ZipFile(path) as package:
        return sum(1 for name in package.namelist() if name.startswith("objects/"))


PHASES = ("create", "download", "upload", "import", "undo")
FILES = "/api/mstrServices/library/storage/sharedFileStore/files"
HEADER = (f"  {'phase':8} {'seconds':>9} {'objects/s':>10} {'MB/s':>7} {'status read ms':>14} "
          f"{'VmHWM before MiB':>17} {'VmHWM after MiB':>16} {'growth MiB':>11}")


def mib(kib):
    return kib / 1024


def row(name, seconds, objects, megabytes, poll, before, after):
    rates = (f"{objects / seconds:10.0f} {megabytes / seconds:7.2f}" if name != "undo"
             else f"{'':10} {'':7}")
    return (f"  {name:8} {seconds:9.2f} {rates} {poll * 1000:14.1f} {mib(before):17.1f} "
            f"{mib(after):16.1f} {mib(after - before):11.1f}")


def show(name, run):
    figures = run[name]
    print(row(name, figures["seconds"], run["objects"], run["bytes"] / 1e6,
              figures["poll_latency"], figures["hwm_before"], figures["hwm_after"]), flush=True)


def migrate_once(source, target, packages_dir, objects, options):
    merge = options.purpose == "project_merge"
    content = [] if merge else [
        {"id": metric_id(i), "name": metric_name(i), "type": METRIC_TYPE, "action": "replace",
         "includeDependents": False} for i in range(objects)]
    body = {"packageInfo": {
                "name": f"Migration benchmark, {objects} metrics",
                "purpose": options.purpose,
                "environment": {"id": source.url, "name": source.url},
                "tocView": {"settings": {"updateSchema": [],
                                         "aclOnReplacingObjects": "use_existing",
                                         "aclOnNewObjects": ["keep_acl_as_source_object"],
                                         "defaultAction": "use_existing"},
                            "content": content},
                "treeView": {}, "type": "project"},
            "importInfo": {}}
    run = {}
    migration_id, created, run["create"] = phase(
        source,
        lambda: json.loads(source.call("POST", "/api/migrations", body, project=True)[2])["id"],
        "packageInfo", "creating", "created", options)
    storage = created["packageInfo"]["storage"]
    run["bytes"] = storage["size"]
    run["objects"] = package_objects(os.path.join(packages_dir, storage["path"]))
    show("create", run)
    download_and_upload(source, target, migration_id, run)

    for status in ("requested", "approved"):
        source.call("PATCH", f"/api/migrations/{migration_id}?migrationId={migration_id}",
                    {"importInfo": {"environment": {"id": target.url, "name": target.url},
                                    "importRequestStatus": status,
                                    "project": {"id": source.project, "name": PROJECT}}})
    replicated = source.record(migration_id, "all")
    replicated["packageInfo"]["replicated"] = True

    def put():
        target.call("PUT", f"/api/migrations/{migration_id}?generateUndo=True", replicated,
                    project=True)
        return migration_id

    _, _, run["import"] = phase(target, put, "importInfo", "importing", "imported", options)
    show("import", run)

    def undo():
        for status in ("requested", "approved"):
            target.call("PATCH", f"/api/migrations/{migration_id}?migrationId={migration_id}",
                        {"importInfo": {"undoRequestStatus": status}}, project=True)
        return migration_id

    _, _, run["undo"] = phase(target, undo, "importInfo", "undoing", "undo_success", options)
    show("undo", run)
    return run


def report(runs):
    median = statistics.median
    print(f"  median of {len(runs)} runs:")
    for name in PHASES:
        print(row(name, median([r[name]["seconds"] for r in runs]), runs[0]["objects"],
                  median([r["bytes"] for r in runs]) / 1e6,
                  median([r[name]["poll_latency"] for r in runs]),
                  median([r[name]["hwm_before"] for r in runs]),
                  median([r[name]["hwm_after"] for r in runs])))


def run(args):
    packages_dir = os.path.join(args.work, "packages")
    servers = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        for objects in args.objects:
            source = Server(args.binary, os.path.join(args.work, f"source-{objects}"),
                            packages_dir)
            target = Server(args.binary, os.path.join(args.work, f"target-{objects}"),
                            packages_dir)
            servers += [source, target]
            print(f"\n{objects} generated metrics, {args.purpose}\n{HEADER}", flush=True)
            runs = []
            for i in range(args.runs):
                print(f"  run {i + 1}", flush=True)
                runs.append(migrate_once(source, target, packages_dir, objects, args))
            print(f"  {runs[0]['objects']} objects in the package, "
                  f"{statistics.median([r['bytes'] for r in runs]) / 1e6:.1f} MB")
            if len(runs) > 1:
                report(runs)
            source.stop()
            target.stop()
    finally:
        for server in servers:
            server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    bundle = commands.add_parser("bundle")
    bundle.add_argument("demo_dir")
    bundle.add_argument("out_dir")
    bundle.add_argument("objects", type=int)
    runner = commands.add_parser("run")
    runner.add_argument("binary")
    runner.add_argument("work")
    runner.add_argument("objects", type=int, nargs="+")
    runner.add_argument("--runs", type=int, default=3)
    runner.add_argument("--poll", type=float, default=0.2)
    runner.add_argument("--timeout", type=float, default=300)
    runner.add_argument("--purpose", choices=["object_migration", "project_merge"],
                        default="object_migration")
    args = parser.parse_args()
    if args.command == "bundle":
        write_bundle(args.demo_dir, args.out_dir, args.objects)
        return
    try:
        run(args)
    except (RuntimeError, TimeoutError) as error:
        sys.exit(f"migration_bench: {error}")


if __name__ == "__main__":
    main()
