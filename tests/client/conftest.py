"""Fixtures of the client compatibility suite: real Tessera servers driven by the real mstrio-py.

Two servers run for the whole session, each on a free loopback port with a fresh data directory,
sharing one package location (--packages-dir) as environments that migrate between each other do:

- A, the source: loads the demo project on first start, exactly as `make serve` does. Its cubes
  publish in the background; the suite never publishes them itself, so every data test also
  proves that the out-of-the-box demo answers.
- B, the migration target: loads the same demo bundle (so Tutorial has the same ids and schema,
  and the same warehouse rows), minus the report "High Revenue Items" and the metric and filter
  only it uses. Migrating that report from A with its dependents therefore creates objects on B
  that a test can see appear and, after undo, disappear.

Environment:
  TESSERA_BIN                     the server binary (default build/release/tessera of the repo)
  TESSERA_CLIENT_TEST_DIR         where the temporary data directories go (default: system temp)
  TESSERA_CLIENT_TEST_KEEP        set to keep them (and the server logs) after the run
  TESSERA_CLIENT_TEST_PORT_BASE   take ports from this one upwards instead of kernel-chosen ones
  TESSERA_CLIENT_TEST_BALANCED    set to make A two nodes on PostgreSQL behind nginx
                                  (balanced_server.py; needs TESSERA_TEST_PG, psql and nginx)
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml

mstrio = pytest.importorskip("mstrio", reason="mstrio-py not available")

import balanced_server  # noqa: E402
import http_log  # noqa: E402
from demo import MIGRATED_FILTER, MIGRATED_METRIC, MIGRATED_REPORT, PROJECT  # noqa: E402
from tessera_server import TesseraServer  # noqa: E402
from warehouse import Warehouse  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

http_log.install()
DEMO_BUNDLE = REPO / "demo" / "tutorial"


def client_version():
    """mstrio-py's version as a tuple, e.g. (11, 6, 7, 101) for release 26.07."""
    return tuple(int(part) for part in mstrio.__version__.split(".")[:4])


def _server_binary():
    binary = Path(os.environ.get("TESSERA_BIN", REPO / "build" / "release" / "tessera"))
    if not binary.is_file():
        pytest.exit(f"no Tessera binary at {binary}: build it (make build) or set TESSERA_BIN",
                    returncode=2)
    return binary


def _bundle_without_migrated_report(target_dir):
    """A copy of the demo bundle without MIGRATED_REPORT, MIGRATED_METRIC and MIGRATED_FILTER."""
    shutil.copytree(DEMO_BUNDLE, target_dir)
    for path in (target_dir / "reports").glob("*.yaml"):
        if yaml.safe_load(path.read_text())["name"] == MIGRATED_REPORT:
            path.unlink()
    for file_name, key, name in [("metrics.yaml", "metrics", MIGRATED_METRIC),
                                 ("filters.yaml", "filters", MIGRATED_FILTER)]:
        path = target_dir / file_name
        document = yaml.safe_load(path.read_text())
        document[key] = [entry for entry in document[key] if entry["name"] != name]
        path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
    return target_dir


class Servers:
    def __init__(self):
        binary = _server_binary()
        self.work_dir = Path(tempfile.mkdtemp(prefix="tessera-client-",
                                              dir=os.environ.get("TESSERA_CLIENT_TEST_DIR")))
        self.packages_dir = self.work_dir / "packages"
        self.packages_dir.mkdir()
        bundle_b = _bundle_without_migrated_report(self.work_dir / "bundle-b")
        server_a = TesseraServer
        if os.environ.get("TESSERA_CLIENT_TEST_BALANCED"):
            missing = balanced_server.missing_requirement()
            if missing:
                pytest.exit(f"TESSERA_CLIENT_TEST_BALANCED: {missing}", returncode=2)
            server_a = balanced_server.BalancedServer
        self.a = server_a(binary, "server-a", self.work_dir, self.packages_dir,
                          ["--demo-bundle-dir", str(DEMO_BUNDLE)])
        self.b = TesseraServer(binary, "server-b", self.work_dir, self.packages_dir,
                               ["--demo-bundle-dir", str(bundle_b)])

    def start(self):
        for server in (self.a, self.b):
            server.start()
        for server in (self.a, self.b):
            server.wait_ready()

    def stop(self):
        for server in (self.a, self.b):
            server.stop()
        if os.environ.get("TESSERA_CLIENT_TEST_KEEP"):
            print(f"\nserver data and logs kept in {self.work_dir}")
        else:
            shutil.rmtree(self.work_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def servers():
    running = Servers()
    try:
        running.start()
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def server_a(servers):
    return servers.a


@pytest.fixture(scope="session")
def server_b(servers):
    return servers.b


def connect(server, **kwargs):
    """A Connection as users open one: standard login as the demo's administrator."""
    from mstrio.connection import Connection

    kwargs.setdefault("project_name", PROJECT)
    return Connection(server.url, "administrator", "", **kwargs)


@pytest.fixture(scope="session")
def conn(server_a):
    """The session's connection to A with Tutorial selected. Tests must not close it."""
    connection = connect(server_a)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def conn_b(server_b):
    connection = connect(server_b)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def warehouse(server_a):
    """A's demo warehouse, read-only."""
    db = Warehouse(server_a.warehouse_path)
    yield db
    db.close()


@pytest.fixture(scope="session")
def warehouse_b(server_b):
    db = Warehouse(server_b.warehouse_path)
    yield db
    db.close()


@pytest.fixture(autouse=True)
def _refused_calls_of_this_test():
    http_log.clear()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test's report lists the HTTP calls the server refused during it."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and http_log.refused_calls():
        report.sections.append(("HTTP answers >= 400", "\n".join(http_log.refused_calls())))
