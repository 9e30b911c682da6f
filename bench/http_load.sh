#!/usr/bin/env bash
# Load benchmark for the HTTP layer and session path: requests per second and p50/p99 latency of
# GET /api/projects with a valid token at 1, 16 and 64 connections (wrk on loopback), beside nginx
# serving the same answer's bytes as a static file in the same run (its ratio is the figure to
# read: both share the machine and wrk the same way), then the server's resident memory before
# and after a million more requests. Prints a table; asserts nothing.
#
#   bench/http_load.sh [BINARY]      (default build/release/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/release/tessera}
duration=${DURATION:-10s}
total_requests=${TOTAL_REQUESTS:-1000000}
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)"; exit 2; }
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "nginx is required (apt-get install nginx)"; exit 2; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

work=$(mktemp -d)
chmod 755 "$work"  # nginx's workers may run as another user
data="$work/data"
port=$(free_port)
nginx_port=$(free_port)
"$binary" serve --listen "127.0.0.1:$port" --data-dir "$data" --access-log false --log-level warn --demo-on-first-start false &
server=$!
nginx_started=false
stop() {
  kill $server 2>/dev/null; wait $server 2>/dev/null
  $nginx_started && "$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -s stop 2>/dev/null
  rm -rf "$work"
}
trap stop EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/status" >/dev/null && break; sleep 0.1; done
"$binary" project create "Bench" --data-dir "$data" >/dev/null 2>&1 || true
token=$(curl -si -X POST "http://127.0.0.1:$port/api/auth/login" -d 'username=administrator&password=' \
  | awk 'tolower($1)=="x-mstr-authtoken:" {print $2}' | tr -d '\r')

# nginx serves the bytes Tessera answers, from a file, with the same content type.
mkdir -p "$work/nginx/logs" "$work/nginx/html/api"
curl -sf -H "X-MSTR-AuthToken: $token" "http://127.0.0.1:$port/api/projects" \
  > "$work/nginx/html/api/projects"
chmod -R a+rX "$work/nginx/html"
cat > "$work/nginx/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx/client_body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$nginx_port;
    root $work/nginx/html;
    location /api/ { default_type application/json; }
  }
}
NGINX
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf"
nginx_started=true
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$nginx_port/api/projects" >/dev/null && break; sleep 0.1; done
echo "answer: $(wc -c < "$work/nginx/html/api/projects") bytes, the same from both servers"

script="$work/wrk.lua"
cat > "$script" <<LUA
wrk.headers["X-MSTR-AuthToken"] = "$token"
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %.1f %.3f %.3f %d\n", summary.requests,
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, summary.errors.status))
end
LUA

# Prints "requests/s p50_ms p99_ms" of one wrk run against $1 with $2 connections; non-2xx
# answers make the run fail.
measure() {
  local url=$1 connections=$2 threads line
  threads=$(( connections < 2 ? 1 : 2 ))
  line=$(wrk -t"$threads" -c"$connections" -d"$duration" -s "$script" "$url" | grep '^RESULT')
  read -r _ _ rps p50 p99 errors <<<"$line"
  [ "$errors" = 0 ] || { echo "$url answered $errors non-2xx responses" >&2; exit 1; }
  echo "$rps $p50 $p99"
}

printf '%-12s %14s %9s %9s %14s %9s %9s %8s\n' connections tessera_req/s p50_ms p99_ms \
  nginx_req/s p50_ms p99_ms ratio
for connections in 1 16 64; do
  read -r rps p50 p99 <<<"$(measure "http://127.0.0.1:$port/api/projects" "$connections")"
  read -r nrps np50 np99 <<<"$(measure "http://127.0.0.1:$nginx_port/api/projects" "$connections")"
  ratio=$(python3 -c "print(f'{$rps / $nrps:.2f}')")
  printf '%-12s %14s %9s %9s %14s %9s %9s %8s\n' "$connections" "$rps" "$p50" "$p99" \
    "$nrps" "$np50" "$np99" "$ratio"
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
