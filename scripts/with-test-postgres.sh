#!/usr/bin/env bash
# with-test-postgres.sh CMD [ARGS...]
#
# Runs CMD with TESSERA_TEST_PG naming a PostgreSQL server on which the tests may create databases
# (a fresh one per test, so the storage tests run on PostgreSQL as well as on SQLite). If
# TESSERA_TEST_PG is already set, CMD runs as is. Otherwise a private cluster is started in a
# temporary directory on a free loopback port, TESSERA_TEST_PG and TESSERA_PG_BINDIR are exported,
# CMD runs, and the cluster is stopped and removed whatever happens. Without PostgreSQL server
# binaries CMD runs without TESSERA_TEST_PG (a warning says so, and the PostgreSQL tests skip).
# Exits with CMD's status.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi

if [[ -n "${TESSERA_TEST_PG:-}" ]]; then
  exec "$@"
fi

find_bindir() {
  local candidate
  if [[ -n "${TESSERA_PG_BINDIR:-}" && -x "${TESSERA_PG_BINDIR}/initdb" ]]; then
    echo "${TESSERA_PG_BINDIR}"
    return 0
  fi
  if command -v pg_config >/dev/null 2>&1; then
    candidate="$(pg_config --bindir 2>/dev/null || true)"
    if [[ -n "$candidate" && -x "$candidate/initdb" ]]; then
      echo "$candidate"
      return 0
    fi
  fi
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x "$candidate/initdb" ]]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
    return 0
  fi
  local port
  for port in $(seq 55432 55532); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

if ! bindir="$(find_bindir)"; then
  echo "with-test-postgres: no PostgreSQL server binaries found; running without TESSERA_TEST_PG" >&2
  exec "$@"
fi

cluster_dir="$(mktemp -d "${TMPDIR:-/tmp}/tessera-pg-XXXXXX")"
data_dir="$cluster_dir/data"
as_server_user=()
if [[ "$(id -u)" -eq 0 ]]; then
  # PostgreSQL refuses to run as root.
  chown postgres: "$cluster_dir"
  as_server_user=(runuser -u postgres --)
fi

stop_cluster() {
  if [[ -f "$data_dir/postmaster.pid" ]]; then
    "${as_server_user[@]}" "$bindir/pg_ctl" -D "$data_dir" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$cluster_dir"
}
trap stop_cluster EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${as_server_user[@]}" "$bindir/initdb" -D "$data_dir" -A trust -U postgres >"$cluster_dir/initdb.log" 2>&1 || {
  cat "$cluster_dir/initdb.log" >&2
  echo "with-test-postgres: initdb failed" >&2
  exit 1
}

port="$(free_port)"
server_options="-k $cluster_dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off"
server_options+=" -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
"${as_server_user[@]}" "$bindir/pg_ctl" -D "$data_dir" -l "$cluster_dir/server.log" \
  -o "$server_options" -w -t 60 start >/dev/null || {
  cat "$cluster_dir/server.log" >&2 || true
  echo "with-test-postgres: the server did not start" >&2
  exit 1
}

export TESSERA_TEST_PG="postgresql://postgres@127.0.0.1:$port/postgres"
export TESSERA_PG_BINDIR="$bindir"
echo "with-test-postgres: $("$bindir/postgres" --version) at $TESSERA_TEST_PG" >&2

status=0
"$@" || status=$?
exit "$status"
