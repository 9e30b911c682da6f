"""A minimal HTTP client of a Tessera demo server for the benchmark scripts: login as the
administrator into the Tutorial project, quick search by name, and cube publishing."""
import json
import time
import urllib.parse
import urllib.request


class DemoClient:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        _, headers, _ = self.call("POST", "/api/auth/login",
                                  form="username=administrator&password=&loginMode=1")
        self.auth = {"X-MSTR-AuthToken": headers["X-MSTR-AuthToken"]}
        projects = json.loads(self.call("GET", "/api/projects", headers=self.auth)[2])
        self.auth["X-MSTR-ProjectID"] = next(p["id"] for p in projects if p["name"] == "Tutorial")

    def call(self, method, path, body=None, headers=None, form=None):
        data = form.encode() if form else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.base + path, data=data, method=method)
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        if body is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=3600) as response:
            return response.status, dict(response.headers), response.read()

    def search(self, name, type_):
        _, _, body = self.call("GET", f"/api/searches/results?name={urllib.parse.quote(name)}"
                               f"&type={type_}&pattern=2", headers=self.auth)
        hits = json.loads(body)
        hits = hits.get("result", hits) if isinstance(hits, dict) else hits
        return next(h["id"] for h in hits if h["name"] == name)

    def publish(self, cube):
        """Publishes a cube and returns once it is loaded; the seconds it took."""
        began = time.perf_counter()
        self.call("POST", f"/api/v2/cubes/{cube}", headers=self.auth)
        while True:
            _, h, _ = self.call("HEAD", f"/api/cubes/{cube}", headers=self.auth)
            if int(h["X-MSTR-CubeStatus"]) & 64 and not int(h["X-MSTR-CubeStatus"]) & 1:
                return time.perf_counter() - began
            time.sleep(0.05)
