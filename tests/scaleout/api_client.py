"""A small client of Tessera's REST API for the scale-out suite.

Contract:
  - `send` makes one request on a new connection (so a balancer picks a node for every call) and
    returns a Response; an HTTP error status is an answer, not an exception. Only a connection
    that cannot be made or breaks raises OSError.
  - Proxy variables of the environment are ignored: every address the suite calls is on loopback.
  - `Response.upstream` is the node nginx sent the request to, from the X-Tessera-Upstream header
    that the suite's nginx adds: "127.0.0.1:PORT", or "A, B" when nginx tried A and then passed
    the request to B; "" for a call made to a node directly.
"""

import json
import urllib.error
import urllib.request
from dataclasses import dataclass

ADMINISTRATOR_LOGIN = {"username": "administrator", "password": "", "loginMode": 1}

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass
class Response:
    status: int
    headers: object  # http.client.HTTPMessage: case-insensitive get()
    body: bytes

    def json(self):
        return json.loads(self.body) if self.body else None

    @property
    def upstream(self):
        return self.headers.get("X-Tessera-Upstream", "") if self.headers else ""

    @property
    def final_upstream(self):
        """The node that answered, when nginx tried more than one."""
        return self.upstream.split(",")[-1].strip()

    def describe(self):
        text = self.body[:400].decode(errors="replace")
        via = f" via {self.upstream}" if self.upstream else ""
        return f"HTTP {self.status}{via}: {text}"


class ApiClient:
    """Calls one base URL: a node's or the balancer's."""

    def __init__(self, base_url, timeout_seconds=60):
        self.base_url = base_url.rstrip("/")
        self.timeout_seconds = timeout_seconds

    def send(self, method, path, token=None, project=None, json_body=None, headers=None):
        data = None if json_body is None else json.dumps(json_body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        if json_body is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("X-MSTR-AuthToken", token)
        if project:
            request.add_header("X-MSTR-ProjectID", project)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with _opener.open(request, timeout=self.timeout_seconds) as answer:
                return Response(answer.status, answer.headers, answer.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, error.headers, error.read())

    def login(self):
        """Logs in as the administrator; (token, the login's Response). The token is None when
        the login was refused."""
        answer = self.send("POST", "/api/auth/login", json_body=ADMINISTRATOR_LOGIN)
        token = answer.headers.get("X-MSTR-AuthToken") if answer.status == 204 else None
        return token, answer

    def logout(self, token):
        return self.send("POST", "/api/auth/logout", token=token)
