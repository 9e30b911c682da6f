#!/usr/bin/env bash
# Installs what only the tests, the benchmarks and formatting need, beside
# scripts/install-deps.sh (which is enough to build and serve):
#   - the test build and `make test`: gtest and gmock, a PostgreSQL server for the tests that run
#     on PostgreSQL (scripts/with-test-postgres.sh), python3 (a free port for that cluster);
#   - the web app's browser tests: Debian's chromium, node and npm, and tests/web's node packages
#     (puppeteer-core, which drives the installed chromium and never downloads a browser);
#   - the client compatibility suite (`make client-test`): pytest and PyYAML;
#   - the check of the API's answers against its OpenAPI document: python3-jsonschema;
#   - the scale-out suite (tests/scaleout): nginx, a real load balancer in front of two nodes;
#   - the benchmarks (bench/): google benchmark, wrk, curl, the sqlite3 shell, GNU time;
#   - `make format`: clang-format.
# Idempotent: apt runs only when a package is missing (`apt-get update` once), npm only when
# tests/web's lock file is newer than what is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  libgtest-dev libgmock-dev postgresql python3 nginx
  chromium fonts-dejavu-core
  python3-pytest python3-yaml python3-prometheus-client python3-jsonschema
  wrk curl sqlite3 time
  clang-format
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
# node and npm may come from another source than Debian's packages: any working one will do.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

installed=tests/web/node_modules/.package-lock.json
if [ ! -f "$installed" ] || [ tests/web/package-lock.json -nt "$installed" ]; then
  (cd tests/web && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund)
fi
