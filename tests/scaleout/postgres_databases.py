"""Fresh PostgreSQL databases for one run of the suite, on the server TESSERA_TEST_PG names.

Contract:
  - `create(role)` makes an empty database named after this run and the role ("storage",
    "warehouse") and returns its postgresql:// URL; a refusal raises RuntimeError with psql's
    message.
  - `drop_all()` drops every database this object created, ending the sessions still connected
    to them (a killed node leaves some behind); it never raises, so it is safe in clean-up.
  - Uses the psql client (on PATH, or in TESSERA_PG_BINDIR as scripts/with-test-postgres.sh
    exports it): the suite needs nothing beyond Python's standard library.
"""

import os
import shutil
import subprocess
import urllib.parse


def find_psql():
    """The psql executable, or None."""
    bindir = os.environ.get("TESSERA_PG_BINDIR", "")
    beside_server = os.path.join(bindir, "psql") if bindir else ""
    if beside_server and os.access(beside_server, os.X_OK):
        return beside_server
    return shutil.which("psql")


def url_of_database(server_url, database):
    parts = urllib.parse.urlsplit(server_url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + database))


class PostgresDatabases:
    def __init__(self, server_url, psql, run_name):
        self.server_url = server_url
        self.psql = psql
        self.run_name = run_name
        self.created = []

    def create(self, role):
        database = f"{self.run_name}_{role}"
        self._run_sql(f'CREATE DATABASE "{database}"')
        self.created.append(database)
        return url_of_database(self.server_url, database)

    def drop_all(self):
        for database in reversed(self.created):
            try:
                self._run_sql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            except RuntimeError as error:
                print(f"scaleout: could not drop database {database}: {error}")
        self.created.clear()

    def _run_sql(self, statement):
        finished = subprocess.run(
            [self.psql, "--no-psqlrc", "--quiet", "-v", "ON_ERROR_STOP=1", "-d", self.server_url,
             "-c", statement],
            capture_output=True, text=True, timeout=60)
        if finished.returncode != 0:
            raise RuntimeError(f"{statement}: {finished.stderr.strip()}")


def query_value(psql, database_url, statement):
    """The first column of the first row `statement` returns, as text (an independent read of a
    database the nodes also use)."""
    finished = subprocess.run(
        [psql, "--no-psqlrc", "--quiet", "--tuples-only", "--no-align", "-v", "ON_ERROR_STOP=1",
         "-d", database_url, "-c", statement],
        capture_output=True, text=True, timeout=60)
    if finished.returncode != 0:
        raise RuntimeError(f"{statement}: {finished.stderr.strip()}")
    return finished.stdout.strip().splitlines()[0] if finished.stdout.strip() else ""
