"""The scale-out deployment under test: two Tessera nodes behind nginx, as docs/deployment.md
describes it, in one temporary directory.

Contract:
  - Shared by both nodes: the storage service (a fresh PostgreSQL database), the demo warehouse
    (a second fresh PostgreSQL database, named `demo` in a tessera.toml both nodes read), the
    package location (--packages-dir) and the cube snapshot directory (--cubes-dir). Each node
    has its own data directory.
  - Every node's server.public_url is the balancer's URL: it is the environment id migrations
    record, and it must not depend on which node made the package.
  - Node A starts first on the empty storage service and loads the demo (`demo_rows` rows, its
    cubes publishing in the background); node B starts once A is up, with the demo switched off,
    so the two never race to load it.
  - `start()` either returns with nginx routing to both nodes or raises RuntimeError; `stop()`
    ends nginx and the nodes and drops the databases whatever state they are in, and may be called
    after a failed `start()`.
"""

import os

from nginx_balancer import NginxBalancer
from postgres_databases import PostgresDatabases
from tessera_node import TesseraNode

DEMO_ROWS = 2000


class ScaleOutCluster:
    def __init__(self, binary, nginx_binary, postgres_url, psql, work_dir, demo_rows=DEMO_ROWS):
        self.binary = binary
        self.demo_rows = demo_rows
        self.work_dir = work_dir
        self.psql = psql
        self.databases = PostgresDatabases(postgres_url, psql, f"tessera_scaleout_{os.getpid()}")
        self.balancer = NginxBalancer(nginx_binary, work_dir)
        self.packages_dir = os.path.join(work_dir, "shared", "packages")
        self.cubes_dir = os.path.join(work_dir, "shared", "cubes")
        self.warehouse_url = None
        self.node_a = None
        self.node_b = None

    @property
    def nodes(self):
        return [node for node in (self.node_a, self.node_b) if node is not None]

    def start(self):
        storage_url = self.databases.create("storage")
        self.warehouse_url = self.databases.create("warehouse")
        config_path = self._write_shared_config()
        self.balancer.start()
        shared = self._shared_flags(storage_url, config_path)
        self.node_a = TesseraNode("a", self.binary, self.work_dir,
                                  shared + ["--demo-on-first-start", "true",
                                            "--demo-rows", str(self.demo_rows)])
        self.node_a.start()
        self.node_b = TesseraNode("b", self.binary, self.work_dir,
                                  shared + ["--demo-on-first-start", "false"])
        self.node_b.start()
        self.balancer.route_to([node.address for node in self.nodes])

    def stop(self):
        self.balancer.stop()
        for node in self.nodes:
            node.stop()
        self.databases.drop_all()

    def logs_for_report(self):
        parts = [f"--- {node.log_path} (end) ---\n{node.log_tail()}" for node in self.nodes]
        parts.append(f"--- {self.balancer.error_log} (end) ---\n{self.balancer.error_log_tail()}")
        return "\n".join(parts)

    def _write_shared_config(self):
        os.makedirs(self.packages_dir, exist_ok=True)
        os.makedirs(self.cubes_dir, exist_ok=True)
        path = os.path.join(self.work_dir, "shared", "tessera.toml")
        with open(path, "w") as config:
            config.write(f'[warehouses.demo]\nurl = "{self.warehouse_url}"\n')
        return path

    def _shared_flags(self, storage_url, config_path):
        flags = ["--config", config_path,
                 "--storage-url", storage_url,
                 "--packages-dir", self.packages_dir,
                 "--public-url", self.balancer.url + "/",
                 # nginx connects from loopback: it reports clients in X-Forwarded-For.
                 "--trusted-proxies", "127.0.0.1",
                 "--cubes-dir", self.cubes_dir,
                 "--log-level", "info"]
        return flags
