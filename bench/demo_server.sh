# Sourced by the HTTP benchmarks: start_demo_server ROWS BINARY starts BINARY serving a fresh demo
# of ROWS fact rows on a free loopback port, sets $port and $data (its data directory), stops it
# and removes $data on exit, and returns once it answers.
start_demo_server() {
  local rows=$1 binary=$2 started
  data=$(mktemp -d)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  started=$(date +%s)
  "$binary" serve --listen "127.0.0.1:$port" --data-dir "$data" --access-log false \
    --log-level warn --demo-on-first-start true --demo-rows "$rows" &
  server=$!
  trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
  until curl -sf "http://127.0.0.1:$port/api/status" >/dev/null; do
    kill -0 $server 2>/dev/null || { echo "the server stopped"; exit 1; }
    sleep 0.5
  done
  echo "demo of $rows fact rows generated and served after $(( $(date +%s) - started )) s"
}
