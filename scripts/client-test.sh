#!/usr/bin/env bash
# Runs the client compatibility suite (tests/client) with the official Python client, mstrio-py,
# against servers it starts from build/release/tessera (or TESSERA_BIN).
#
#   scripts/client-test.sh [PYTEST ARGS...]
#   scripts/client-test.sh --check     exits 0 when a client is available, 1 otherwise
#
# The client is looked for, in this order:
#   1. MSTRIO_PY_DIR (a tree holding mstrio/) or a git mirror of mstrio-py's public repository
#      (MSTRIO_PY_MIRROR, or .mirror/MicroStrategy+mstrio-py/repo beside the checkout), run
#      through ../shared/client/run-mstrio.sh when the checkout sits beside shared/; that runner
#      takes MSTRIO_PY_REF, the client's commit (default: its pinned release);
#   2. MSTRIO_PY_DIR alone, put on PYTHONPATH;
#   3. an installed mstrio-py (pip install mstrio-py).
# Without any of them it prints "skipped: mstrio-py not available" and exits 0.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
parent=$(dirname "$repo")
runner="$parent/shared/client/run-mstrio.sh"
mirror=${MSTRIO_PY_MIRROR:-$parent/.mirror/MicroStrategy+mstrio-py/repo}
# Prints how the client will run (runner, dir or installed), or nothing when there is none.
find_client() {
  if [ -x "$runner" ] && { [ -n "${MSTRIO_PY_DIR:-}" ] || [ -d "$mirror" ]; }; then
    echo runner
  elif [ -n "${MSTRIO_PY_DIR:-}" ]; then
    echo dir
  elif python3 -c 'import mstrio' 2>/dev/null; then
    echo installed
  fi
}

client=$(find_client)
if [ "${1:-}" = "--check" ]; then
  [ -n "$client" ]
  exit
fi
suite=(-m pytest "$repo/tests/client" "$@")
cd "$repo"
case "$client" in
  runner)
    [ -d "$mirror" ] && export MSTRIO_PY_MIRROR="$mirror"
    # The Debian packages the runner needs (pandas, requests, ...); it installs only what is missing.
    "$(dirname "$runner")/setup.sh" >/dev/null
    echo "client-test: mstrio-py ${MSTRIO_PY_DIR:-from $mirror${MSTRIO_PY_REF:+ at $MSTRIO_PY_REF}}"
    exec "$runner" "${suite[@]}" ;;
  dir)
    echo "client-test: mstrio-py from $MSTRIO_PY_DIR"
    PYTHONPATH="$MSTRIO_PY_DIR${PYTHONPATH:+:$PYTHONPATH}" exec python3 "${suite[@]}" ;;
  installed)
    echo "client-test: installed mstrio-py $(python3 -c 'import mstrio; print(mstrio.__version__)')"
    exec python3 "${suite[@]}" ;;
esac
echo "skipped: mstrio-py not available"
exit 0
