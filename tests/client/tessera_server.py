"""One Tessera server process for the client suite.

A server runs the release binary on a loopback port with its own fresh data directory, is ready
once GET /api/status answers 200, and is stopped (SIGTERM, then SIGKILL) by `stop()`. Its log
goes to `<data dir>/../<name>.log`, which the suite prints when a server fails to start.
"""

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

READY_TIMEOUT_SECONDS = 180


_handed_out = set()


def free_port():
    """A loopback port nobody listens on: from TESSERA_CLIENT_TEST_PORT_BASE upwards when set
    (for machines that give each user a range of ports), else one the kernel picks. A port is
    handed out once per run, so two servers never race for the same one."""
    base = os.environ.get("TESSERA_CLIENT_TEST_PORT_BASE")
    candidates = range(int(base), int(base) + 100) if base else [0] * 20
    for port in candidates:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            chosen = s.getsockname()[1]
        if chosen not in _handed_out:
            _handed_out.add(chosen)
            return chosen
    raise RuntimeError("no free loopback port" + (f" from {base}" if base else ""))


class TesseraServer:
    def __init__(self, binary, name, work_dir, packages_dir, extra_args=()):
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = Path(work_dir) / name
        self.log_path = Path(work_dir) / f"{name}.log"
        self.data_dir.mkdir(parents=True)
        self.args = [
            str(binary), "serve",
            "--listen", f"127.0.0.1:{self.port}",
            "--data-dir", str(self.data_dir),
            "--packages-dir", str(packages_dir),
            *extra_args,
        ]
        self.process = None

    @property
    def warehouse_path(self):
        return self.data_dir / "warehouse.db"

    def start(self):
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        log.close()

    def wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server {self.name} exited with {self.process.returncode}:\n"
                                   + self.log_tail())
            try:
                with urllib.request.urlopen(self.url + "/api/status", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"server {self.name} not ready after {READY_TIMEOUT_SECONDS} s:\n"
                           + self.log_tail())

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def log_tail(self, lines=40):
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"
