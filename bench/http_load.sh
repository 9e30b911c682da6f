#!/usr/bin/env bash
# Load benchmark for the HTTP layer and session path: requests per second and p99 latency of
# GET /api/projects with a valid token at 1, 16 and 64 connections (wrk on loopback), then the
# server's resident memory after a million requests. Prints a table; asserts nothing.
#
#   bench/http_load.sh [BINARY]      (default build/release/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/release/tessera}
duration=${DURATION:-10s}
total_requests=${TOTAL_REQUESTS:-1000000}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 2; }

data=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$binary" serve --listen "127.0.0.1:$port" --data-dir "$data" --access-log false --log-level warn --demo-on-first-start false &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/status" >/dev/null && break; sleep 0.1; done
"$binary" project create "Bench" --data-dir "$data" >/dev/null 2>&1 || true
token=$(curl -si -X POST "http://127.0.0.1:$port/api/auth/login" -d 'username=administrator&password=' \
  | awk 'tolower($1)=="x-mstr-authtoken:" {print $2}' | tr -d '\r')

script=$(mktemp)
cat > "$script" <<LUA
wrk.headers["X-MSTR-AuthToken"] = "$token"
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %.1f %.3f %.3f\n", summary.requests,
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000))
end
LUA

printf '%-12s %12s %10s %10s\n' connections requests/s p50_ms p99_ms
for connections in 1 16 64; do
  threads=$(( connections < 2 ? 1 : 2 ))
  line=$(wrk -t"$threads" -c"$connections" -d"$duration" -s "$script" \
    "http://127.0.0.1:$port/api/projects" | grep '^RESULT')
  read -r _ _ rps p50 p99 <<<"$line"
  printf '%-12s %12s %10s %10s\n' "$connections" "$rps" "$p50" "$p99"
done

rss_before=$(awk '/VmRSS/ {print $2}' /proc/$server/status)
sent=0
while [ "$sent" -lt "$total_requests" ]; do
  line=$(wrk -t2 -c16 -d10s -s "$script" "http://127.0.0.1:$port/api/projects" | grep '^RESULT')
  read -r _ count _ <<<"$line"
  sent=$(( sent + count ))
done
rss_after=$(awk '/VmRSS/ {print $2}' /proc/$server/status)
echo "requests sent in the memory run: $sent"
echo "RSS before: $(( rss_before / 1024 )) MiB, after: $(( rss_after / 1024 )) MiB"
rm -f "$script"
