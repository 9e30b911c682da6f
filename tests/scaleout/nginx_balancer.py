"""A real nginx (Debian's package) balancing the suite's nodes, in a temporary prefix.

Contract:
  - `start()` runs nginx in the foreground (`daemon off;`, with its master process) on a free
    loopback port. nginx cannot listen on port 0, so a free port is picked and, when another
    process takes it first (bind: "Address already in use"), another is tried. Until `route_to`
    the upstream has no live node (every request is a 502): the balancer's URL must exist before
    the nodes start, since each node gets it as its server.public_url.
  - `route_to(addresses)` points the upstream at the nodes ("127.0.0.1:PORT", round robin, no
    affinity), reloads nginx (SIGHUP) and returns once the workers of the old configuration have
    exited and each node has answered GET /api/status through the new ones.
  - Every path nginx writes (pid, error and access logs, temporary bodies) is inside the prefix.
    Run as root (CI is), the workers would switch to the user `nobody`, who cannot enter the
    private temporary prefix: the configuration then says `user root;`. As another user the
    directive is left out (nginx would only warn that it is ignored).
  - `stop()` ends nginx and its workers whatever state they are in (SIGTERM, then SIGKILL to its
    process group, which is its own).
  - Responses carry X-Tessera-Upstream: the node(s) nginx tried ($upstream_addr), so checks can
    tell which node answered.
"""

import os
import signal
import socket
import subprocess
import time

from api_client import ApiClient

BIND_ATTEMPTS = 5
READY_TIMEOUT_SECONDS = 30

# The upstream before the nodes exist: one server marked down, so requests fail fast.
NO_NODE_YET = ["127.0.0.1:9 down"]


def free_loopback_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def render_config(prefix, listen_port, upstream_servers, runs_as_root):
    servers = "\n".join(f"    server {server};" for server in upstream_servers)
    user = "user root;\n" if runs_as_root else ""
    return f"""# Written by tests/scaleout/nginx_balancer.py for one run of the scale-out suite.
daemon off;
master_process on;
worker_processes 1;
{user}pid {prefix}/nginx.pid;
error_log {prefix}/error.log notice;

events {{
  worker_connections 512;
}}

http {{
  log_format balancer '$remote_addr "$request" $status upstream=$upstream_addr '
                      'upstream_status=$upstream_status seconds=$request_time';
  access_log {prefix}/access.log balancer;
  client_body_temp_path {prefix}/client_body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;

  # Round robin over the nodes, no affinity. A node that refuses a connection or fails a request
  # is left out for fail_timeout (nginx's passive health check).
  upstream tessera {{
{servers}
  }}

  server {{
    listen 127.0.0.1:{listen_port};
    client_max_body_size 64m;

    location / {{
      proxy_pass http://tessera;
      # nginx's default, written out: pass a request to the next node when the connection fails
      # or times out. A POST, PATCH or LOCK already sent to a node is never sent again (the node
      # may have acted on it); `non_idempotent` is deliberately absent.
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
      proxy_read_timeout 310s;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      add_header X-Tessera-Upstream $upstream_addr always;
    }}
  }}
}}
"""


class NginxBalancer:
    def __init__(self, nginx_binary, work_dir):
        self.nginx_binary = nginx_binary
        self.prefix = os.path.join(work_dir, "nginx")
        self.config_path = os.path.join(self.prefix, "nginx.conf")
        self.error_log = os.path.join(self.prefix, "error.log")
        self.access_log = os.path.join(self.prefix, "access.log")
        self.process = None
        self.port = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def client(self):
        return ApiClient(self.url)

    def start(self):
        os.makedirs(self.prefix, exist_ok=True)
        for _ in range(BIND_ATTEMPTS):
            self.port = free_loopback_port()
            self._write_config(NO_NODE_YET)
            if self._launch():
                return
        raise RuntimeError(f"nginx found no free port in {BIND_ATTEMPTS} attempts:\n"
                           + self.error_log_tail())

    def route_to(self, addresses):
        old_workers = self._workers()
        self._write_config(addresses)
        self.process.send_signal(signal.SIGHUP)
        # Until they exit, the old workers still accept connections with the old upstream.
        self._wait_until_gone(old_workers)
        self._wait_until_each_node_answers(set(addresses))

    def _workers(self):
        """The pids of the master's worker processes now."""
        workers = set()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == self.process.pid:
                workers.add(int(entry))
        return workers

    def _wait_until_gone(self, pids):
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while pids & self._workers():
            if time.monotonic() > deadline:
                raise RuntimeError(f"nginx's old workers {sorted(pids)} did not exit after the "
                                   "reload:\n" + self.error_log_tail())
            time.sleep(0.02)

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def error_log_tail(self, lines=20):
        try:
            with open(self.error_log, errors="replace") as log:
                return "\n".join(log.read().splitlines()[-lines:])
        except OSError:
            return "(no nginx error log)"

    def _write_config(self, upstream_servers):
        with open(self.config_path, "w") as config:
            config.write(render_config(self.prefix, self.port, upstream_servers,
                                       os.geteuid() == 0))

    def _launch(self):
        """Starts nginx; False when its port was taken, raises for any other failure."""
        log_offset = os.path.getsize(self.error_log) if os.path.exists(self.error_log) else 0
        self.process = subprocess.Popen(
            [self.nginx_binary, "-e", self.error_log, "-c", self.config_path, "-p", self.prefix],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "Address already in use" in self._error_log_since(log_offset):
                    return False
                raise RuntimeError(f"nginx exited with {self.process.returncode}:\n"
                                   + self.error_log_tail())
            if self._accepts_connections():
                return True
            time.sleep(0.05)
        raise RuntimeError("nginx did not listen within "
                           f"{READY_TIMEOUT_SECONDS} s:\n" + self.error_log_tail())

    def _accepts_connections(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def _error_log_since(self, offset):
        with open(self.error_log, errors="replace") as log:
            log.seek(offset)
            return log.read()

    def _wait_until_each_node_answers(self, addresses):
        client = self.client()
        unseen = set(addresses)
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while unseen and time.monotonic() < deadline:
            try:
                answer = client.send("GET", "/api/status")
                if answer.status == 200:
                    unseen.discard(answer.final_upstream)
            except OSError:
                pass
            time.sleep(0.02)
        if unseen:
            raise RuntimeError(f"nginx did not reach {sorted(unseen)} within "
                               f"{READY_TIMEOUT_SECONDS} s:\n" + self.error_log_tail())
