"""Server A of the client suite as a scale-out deployment: two Tessera nodes on one PostgreSQL
storage service behind a real nginx (round robin, no affinity), so that every call the client
makes may reach either node (docs/deployment.md).

Contract:
  - Looks like one TesseraServer to the suite: `url` is the balancer's, `warehouse_path` the demo
    warehouse both nodes read, `start()` / `wait_ready()` / `stop()` / `log_tail()`.
  - Shared by both nodes: a fresh PostgreSQL database as the storage service (on the server
    TESSERA_TEST_PG names), the demo warehouse (SQLite, in the first node's data directory), the
    package location and the cube snapshot directory; each node's public URL is the balancer's.
  - The first node loads the demo as a single server would; the second starts once the first
    answers, with the demo switched off. `stop()` ends nginx and both nodes and drops the database
    whatever state they are in.
"""

import os
import shutil
import sys
from pathlib import Path

from tessera_server import TesseraServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scaleout"))
from nginx_balancer import NginxBalancer  # noqa: E402
from postgres_databases import PostgresDatabases, find_psql  # noqa: E402


def find_nginx():
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")


def missing_requirement():
    """Why a balanced server cannot run here, or None."""
    if not os.environ.get("TESSERA_TEST_PG"):
        return "TESSERA_TEST_PG (a PostgreSQL server URL) is not set"
    if not find_psql():
        return "psql is missing"
    if not find_nginx():
        return "nginx is missing"
    return None


class BalancedServer:
    def __init__(self, binary, name, work_dir, packages_dir, extra_args=()):
        self.name = name
        self.work_dir = Path(work_dir)
        self.databases = PostgresDatabases(os.environ["TESSERA_TEST_PG"], find_psql(),
                                           f"tessera_client_{os.getpid()}")
        self.balancer = NginxBalancer(find_nginx(), str(self.work_dir))
        self.cubes_dir = self.work_dir / f"{name}-cubes"
        self.binary = binary
        self.packages_dir = packages_dir
        self.extra_args = list(extra_args)
        self.nodes = []

    @property
    def url(self):
        return self.balancer.url

    @property
    def warehouse_path(self):
        return self.nodes[0].warehouse_path

    def start(self):
        storage_url = self.databases.create("storage")
        self.cubes_dir.mkdir()
        self.balancer.start()
        shared = ["--storage-url", storage_url, "--cubes-dir", str(self.cubes_dir),
                  "--public-url", self.balancer.url + "/", "--trusted-proxies", "127.0.0.1"]
        first = TesseraServer(self.binary, f"{self.name}-1", self.work_dir, self.packages_dir,
                              self.extra_args + shared)
        self.nodes.append(first)
        first.start()
        first.wait_ready()
        config = self.work_dir / f"{self.name}-2.toml"
        config.write_text(f'[warehouses.demo]\nurl = "sqlite://{first.warehouse_path}"\n')
        second = TesseraServer(self.binary, f"{self.name}-2", self.work_dir, self.packages_dir,
                               shared + ["--config", str(config), "--demo-on-first-start", "false"])
        self.nodes.append(second)
        second.start()

    def wait_ready(self):
        for node in self.nodes:
            node.wait_ready()
        self.balancer.route_to([f"127.0.0.1:{node.port}" for node in self.nodes])

    def stop(self):
        self.balancer.stop()
        for node in self.nodes:
            node.stop()
        self.databases.drop_all()

    def log_tail(self, lines=40):
        return "\n".join(f"--- {node.name} ---\n{node.log_tail(lines)}" for node in self.nodes)
