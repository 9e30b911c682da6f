#!/usr/bin/env bash
# Installs the Debian packages Tessera builds and tests with (ARCHITECTURE §9), and the chart
# library the web app is served with (libjs-chart.js).
# Idempotent: a package already installed is left alone; apt runs only when one is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang-format
  libboost-dev nlohmann-json3-dev libsqlite3-dev sqlite3
  libpq-dev postgresql
  libargon2-dev libssl-dev libarchive-dev zlib1g-dev
  libcli11-dev libtomlplusplus-dev libspdlog-dev libfmt-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  curl wrk python3 python3-pytest python3-yaml
  libjs-chart.js
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
echo "installing: ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
