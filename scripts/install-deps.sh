#!/usr/bin/env bash
# Installs the Debian packages Tessera needs to build and serve, and nothing more: the compiler,
# cmake, pkg-config, the -dev libraries the server links (CMakeLists.txt's find_package and
# pkg_check_modules calls outside the tests), and the chart library the web app is served with
# (libjs-chart.js). What only the tests, benchmarks and formatting need is in
# scripts/install-test-deps.sh.
# Idempotent: a package already installed is left alone; `apt-get update` runs once, and only
# when a package is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libboost-dev nlohmann-json3-dev libsqlite3-dev libpq-dev
  libargon2-dev libssl-dev libarchive-dev zlib1g-dev
  libcli11-dev libtomlplusplus-dev libspdlog-dev libfmt-dev libyaml-cpp-dev
  libgoogle-perftools-dev
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
