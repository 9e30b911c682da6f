#!/usr/bin/env bash
# Runs the browser tests of the web app (node's test runner, one file at a time). Each file starts
# its own server from TESSERA_BINARY (default: build/release/tessera, else build/asan/tessera) and
# drives Debian's chromium headless. scripts/install-test-deps.sh installs what they need.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/puppeteer-core ]; then
  echo "tests/web: node packages missing; run scripts/install-test-deps.sh" >&2
  exit 1
fi
if [ ! -x "${TESSERA_CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "tests/web: no chromium at ${TESSERA_CHROMIUM:-/usr/bin/chromium}; run scripts/install-test-deps.sh" >&2
  exit 1
fi
exec node --test --test-concurrency=1 ./*.test.mjs
