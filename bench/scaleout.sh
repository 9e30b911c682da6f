#!/usr/bin/env bash
# Scale-out figures: publish-to-other-node latency, instance pages on the node that did not compute
# them, and a read mix through one node and through nginx over two (bench/scaleout.py says what
# and how). Needs nginx, wrk and PostgreSQL's server
# (scripts/install-test-deps.sh); builds the release binary when it is missing.
#   bench/scaleout.sh        (PUBLISHES, CONNECTIONS, SECONDS, DEMO_ROWS, INSTANCES: see
#                            bench/scaleout.py)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/release/tessera ] || make build >/dev/null
exec scripts/with-test-postgres.sh env TESSERA_BINARY="$PWD/build/release/tessera" \
  python3 bench/scaleout.py
