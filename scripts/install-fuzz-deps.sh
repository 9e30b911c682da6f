#!/usr/bin/env bash
# Installs what `make fuzz` needs beyond scripts/install-deps.sh:
# Debian's clang with libFuzzer (libclang-rt-14-dev) for `make fuzz`, and llvm for
# llvm-symbolizer, which turns sanitizer reports into stacks with file and line.
# Idempotent: a package already installed is left alone; `apt-get update` runs once, and only
# when a package is missing.
set -euo pipefail

packages=(
  clang libclang-rt-14-dev llvm
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
