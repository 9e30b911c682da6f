#!/usr/bin/env bash
# Web app rendering figures, measured in Debian's chromium (headless, puppeteer-core from
# tests/web): for the demo's Sales Overview, the median time from clicking it in the Library to its
# first and to its last visualization drawn, with parallel rendering on and off, and the bytes of
# script the app loads. The demo of ROWS fact rows is generated once into bench/work/web-ROWS and
# reused by later runs. Prints figures; asserts nothing.
#
#   bench/web_rendering.sh [ROWS ...]      (default 100000; RUNS=7; BINARY=build/release/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-test-deps.sh
export TESSERA_BINARY=$(realpath "${BINARY:-build/release/tessera}")
for rows in "${@:-100000}"; do
  mkdir -p "bench/work/web-$rows"
  node bench/web_rendering.mjs "$rows" "$(realpath "bench/work/web-$rows")" "${RUNS:-7}"
done
