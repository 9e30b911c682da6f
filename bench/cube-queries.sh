#!/usr/bin/env bash
# Cube query benchmark: the twelve queries of bench/queries.json on a Tessera dataset
# published from the demo warehouse, against DuckDB (in memory, loaded as VARCHAR and as ENUM),
# SQLite and PostgreSQL loaded with the same rows. Every peer's answers are compared row by row
# with Tessera's; a difference is printed and makes the script exit 1 at the end. Prints a table
# and writes it as JSON to WORK/cube-queries-ROWS.json. Asserts no time.
#
#   bench/cube-queries.sh ROWS [--runs K] [--threads T] [--build-dir DIR] [--work DIR]
#
#   ROWS         fact rows of the demo warehouse, e.g. 1000000 or 10000000
#   --runs       timed runs per query and engine after one warm-up (default 5); medians are shown
#   --threads    Tessera's compute threads and DuckDB's threads (default 2)
#   --build-dir  release build directory (default build/release)
#   --work       where the warehouse, the CSV, the peers' files and the results go (default
#                bench/work/; generated data is reused across runs with the same ROWS)
#
# The query set is bench/queries.json, or the file TESSERA_BENCH_QUERIES names.
#
# PostgreSQL: TESSERA_TEST_PG names a server to create the database tessera_bench_cube on; when it
# is unset the script runs itself under scripts/with-test-postgres.sh (a private cluster). Needs
# cmake, sqlite3, python3, node and npm (the DuckDB peer, @duckdb/node-api, is installed into
# bench/node_modules; it is never a dependency of Tessera itself) and psql.
set -euo pipefail
script=$(realpath "$0")

usage() {
  sed -n '2,/^set -euo/p' "$script" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

[[ $# -ge 1 && $1 =~ ^[0-9]+$ && $1 -gt 0 ]] || usage
rows=$1
shift
runs=5
threads=2
build_dir=
work=
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=${2:?}; shift 2 ;;
    --threads) threads=${2:?}; shift 2 ;;
    --build-dir) build_dir=$(realpath -m "${2:?}"); shift 2 ;;
    --work) work=$(realpath -m "${2:?}"); shift 2 ;;
    *) usage ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ && $threads =~ ^[1-9][0-9]*$ ]] || usage
cd "$(dirname "$script")/.."
build_dir=${build_dir:-$PWD/build/release}
work=${work:-$PWD/bench/work}

if [[ -z "${TESSERA_TEST_PG:-}" && -z "${TESSERA_CUBE_BENCH_PG_TRIED:-}" ]]; then
  export TESSERA_CUBE_BENCH_PG_TRIED=1
  exec scripts/with-test-postgres.sh "$script" "$rows" --runs "$runs" --threads "$threads" \
    --build-dir "$build_dir" --work "$work"
fi

for tool in cmake sqlite3 python3 node npm; do
  command -v "$tool" >/dev/null || { echo "cube-queries: $tool is required" >&2; exit 2; }
done
queries=${TESSERA_BENCH_QUERIES:-bench/queries.json}
[[ -f $queries ]] || { echo "cube-queries: $queries not found (set TESSERA_BENCH_QUERIES)" >&2; exit 2; }
queries=$(realpath "$queries")
mkdir -p "$work"
step() { printf '== %s\n' "$*" >&2; }

# 1. The release binary and the driver.
step "building tessera and bench_cube_queries in $build_dir"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j2 --target tessera bench_cube_queries >/dev/null

# 2. The demo warehouse, generated once per row count.
data_dir=$work/demo-$rows
warehouse=$data_dir/warehouse.db
if [[ ! -f $data_dir/complete ]]; then
  step "generating the demo warehouse with $rows rows"
  rm -rf "$data_dir"
  mkdir -p "$data_dir"
  cat > "$data_dir/tessera.toml" <<TOML
data_dir = "$data_dir"

[warehouses.demo]
url = "sqlite://$warehouse"
TOML
  "$build_dir/tessera" demo --rows "$rows" --config "$data_dir/tessera.toml" --log-level warn >/dev/null
  touch "$data_dir/complete"
fi

# 3. The flattened table `sales` (bench/sales_flat.sql): SQLite's copy, then its CSV for the
# other peers, rows in order_line_id order.
peer_db=$work/sales-$rows.sqlite
csv=$work/sales-$rows.csv
if [[ ! -f $csv || $csv -ot $data_dir/complete ]]; then
  step "flattening sales_fact into $peer_db and $csv"
  rm -f "$peer_db" "$csv"
  sqlite3 "$peer_db" <<SQL
ATTACH '$warehouse' AS w;
CREATE TABLE sales (day TEXT, month TEXT, quarter TEXT, year INTEGER, region TEXT, country TEXT,
  city TEXT, category TEXT, subcategory TEXT, item TEXT, customer_segment TEXT, channel TEXT,
  units INTEGER, revenue REAL, cost REAL);
INSERT INTO sales
$(sed '/^--/d' bench/sales_flat.sql)
ORDER BY f.order_line_id;
SQL
  loaded=$(sqlite3 "$peer_db" 'SELECT count(*) FROM sales')
  [[ $loaded -eq $rows ]] || { echo "cube-queries: flattened $loaded rows, expected $rows" >&2; exit 1; }
  sqlite3 -csv -header "$peer_db" 'SELECT * FROM sales' > "$csv.tmp"
  mv "$csv.tmp" "$csv"
fi

# 4. Tessera, then each peer, one at a time so none competes for the two cores or for memory.
step "Tessera: publishing and running the queries"
"$build_dir/bench_cube_queries" --warehouse "sqlite://$warehouse" --queries "$queries" \
  --runs "$runs" --threads "$threads" --out "$work/tessera-$rows.json"

peers=()
if [[ ! bench/node_modules/.package-lock.json -nt bench/package.json ]]; then
  step "installing @duckdb/node-api into bench/node_modules"
  npm ci --prefix bench --no-audit --no-fund --loglevel error >/dev/null
fi
step "DuckDB: loading the CSV (VARCHAR, then ENUM) and running the queries"
node bench/cube_duckdb.mjs --csv "$csv" --queries "$queries" --runs "$runs" --threads "$threads" \
  --out-varchar "$work/duckdb-varchar-$rows.json" --out-enum "$work/duckdb-enum-$rows.json"
peers+=(--peer "duckdb-varchar=$work/duckdb-varchar-$rows.json"
  --peer "duckdb-enum=$work/duckdb-enum-$rows.json")

step "SQLite: running the queries"
python3 bench/cube_peers.py sqlite --db "$peer_db" --queries "$queries" --runs "$runs" \
  --out "$work/sqlite-$rows.json"
peers+=(--peer "sqlite=$work/sqlite-$rows.json")

if [[ -n "${TESSERA_TEST_PG:-}" ]] && command -v psql >/dev/null; then
  step "PostgreSQL: loading the CSV and running the queries"
  python3 bench/cube_peers.py postgres --url "$TESSERA_TEST_PG" --csv "$csv" --queries "$queries" \
    --runs "$runs" --out "$work/postgres-$rows.json"
  peers+=(--peer "postgres=$work/postgres-$rows.json")
else
  echo "cube-queries: no PostgreSQL server (TESSERA_TEST_PG unset, or no psql); skipping it" >&2
fi

# 5. Answers compared with Tessera's, the table, and its JSON.
python3 bench/cube_peers.py report --rows "$rows" --queries "$queries" --runs "$runs" \
  --tessera "$work/tessera-$rows.json" "${peers[@]}" --out "$work/cube-queries-$rows.json"
