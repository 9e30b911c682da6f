"""One `tessera serve` process of the scale-out suite.

Contract:
  - A node listens on 127.0.0.1:0: the kernel picks its port, and `start` reads it from the
    node's log line "Tessera listening on HOST:PORT" (as tests/support/listening_port.cc does),
    so no port is ever chosen in advance. `start` returns once GET /api/status answers 200 and
    raises RuntimeError, with the end of the log, when the node exits or is not ready in time.
  - Settings come as flags only: the node's environment is this process's less every TESSERA_*
    variable, so nothing of the caller's shell changes what the node does.
  - `kill` is SIGKILL and reaps the process (its sockets are closed when it returns); `stop` is
    SIGTERM, then SIGKILL after 20 s. Both do nothing to a node that is not running.
  - The log (stdout and stderr) stays in `log_path` for the report of a failed run.
"""

import os
import re
import signal
import subprocess
import time

from api_client import ApiClient

LISTENING_LINE = re.compile(rb"Tessera listening on [^ ]*:([0-9]+) ")
START_TIMEOUT_SECONDS = 90


def node_environment():
    return {name: value for name, value in os.environ.items() if not name.startswith("TESSERA_")}


class TesseraNode:
    def __init__(self, name, binary, work_dir, flags):
        """`flags`: what `tessera serve` gets besides --listen and --data-dir."""
        self.name = name
        self.binary = binary
        self.data_dir = os.path.join(work_dir, f"node-{name}")
        self.log_path = os.path.join(work_dir, f"node-{name}.log")
        self.flags = list(flags)
        self.process = None
        self.port = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self):
        """How nginx names this node in $upstream_addr."""
        return f"127.0.0.1:{self.port}"

    def client(self):
        return ApiClient(self.url)

    def is_running(self):
        return self.process is not None and self.process.poll() is None

    def start(self):
        os.makedirs(self.data_dir, exist_ok=True)
        command = [self.binary, "serve", "--listen", "127.0.0.1:0", "--data-dir", self.data_dir,
                   *self.flags]
        with open(self.log_path, "ab") as log:
            log_offset = log.tell()
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, env=node_environment())
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        self.port = self._wait_for_listening_port(log_offset, deadline)
        self._wait_for_status(deadline)

    def kill(self):
        if self.is_running():
            self.process.send_signal(signal.SIGKILL)
        if self.process is not None:
            self.process.wait()

    def stop(self):
        if not self.is_running():
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, "rb") as log:
                text = log.read().decode(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def _wait_for_listening_port(self, log_offset, deadline):
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as log:
                log.seek(log_offset)
                found = LISTENING_LINE.search(log.read())
            if found:
                return int(found.group(1))
            self._fail_if_exited()
            time.sleep(0.05)
        raise RuntimeError(f"node {self.name} did not log its port within "
                           f"{START_TIMEOUT_SECONDS} s:\n{self.log_tail()}")

    def _wait_for_status(self, deadline):
        client = self.client()
        while time.monotonic() < deadline:
            self._fail_if_exited()
            try:
                if client.send("GET", "/api/status").status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"node {self.name} did not answer GET /api/status:\n{self.log_tail()}")

    def _fail_if_exited(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"node {self.name} exited with {self.process.returncode}:\n"
                               f"{self.log_tail()}")
