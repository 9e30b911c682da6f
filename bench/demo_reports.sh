#!/usr/bin/env bash
# Demo warehouse figures: generation time and peak memory of `tessera demo --rows ROWS` into
# SQLite and into PostgreSQL, then the time of each demo warehouse report's generated SQL on each
# (median of 3 runs). Needs TESSERA_TEST_PG (run it under scripts/with-test-postgres.sh).
# Prints figures; asserts nothing.
#
#   scripts/with-test-postgres.sh bench/demo_reports.sh ROWS [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
binary=$(realpath "${2:-build/release/tessera}")
: "${TESSERA_TEST_PG:?run under scripts/with-test-postgres.sh}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/tessera.toml" <<TOML
[warehouses.pg]
url = "$TESSERA_TEST_PG"
TOML

generate() {  # label, extra flags
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$binary" demo --rows "$rows" --config "$work/tessera.toml" \
    --log-level warn "$@" >/dev/null
  read -r seconds kib < "$work/time"
  printf '%-10s generate %s rows: %6.1f s, peak RSS %5d MiB\n' "$label" "$rows" "$seconds" $((kib / 1024))
}

generate sqlite --data-dir "$work/sqlite"
generate postgres --data-dir "$work/pg" --warehouse pg

reports=$(grep -L 'source: cube' demo/tutorial/reports/*.yaml | xargs -n1 sed -n 's/^name: //p')
python3 - "$binary" "$work" "$TESSERA_TEST_PG" <<PY
import re, sqlite3, statistics, subprocess, sys, time
binary, work, pg_url = sys.argv[1:4]
names = """$reports""".strip().splitlines()

def inline(output):
    lines = output.splitlines()
    sql = "\n".join(l for l in lines if not l.startswith("--")).rstrip().rstrip(";")
    params = [re.sub(r"^-- parameter \d+: ", "", l) for l in lines if l.startswith("-- parameter")]
    parts = sql.split("?")
    return parts[0] + "".join(p + rest for p, rest in zip(params, parts[1:]))

def sql_of(name, data_dir):
    return inline(subprocess.run([binary, "sql", name, "--data-dir", data_dir, "--config",
                                  work + "/tessera.toml", "--log-level", "warn"],
                                 check=True, capture_output=True, text=True).stdout)

def sqlite_ms(sql):
    db = sqlite3.connect(work + "/sqlite/warehouse.db")
    times = []
    for _ in range(3):
        start = time.perf_counter(); rows = db.execute(sql).fetchall(); times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), len(rows)

def pg_ms(sql):
    times = []
    for _ in range(3):
        out = subprocess.run(["psql", pg_url, "-X", "-q", "-c", "\\\\timing on", "-c", sql, "-o", "/dev/null"],
                             check=True, capture_output=True, text=True).stdout
        times.append(float(re.findall(r"Time: ([0-9.]+) ms", out)[-1]))
    return statistics.median(times)

print(f"{'report':40} {'rows':>6} {'sqlite ms':>10} {'postgres ms':>12}")
for name in names:
    lite, count = sqlite_ms(sql_of(name, work + "/sqlite"))
    pg = pg_ms(sql_of(name, work + "/pg"))
    print(f"{name:40} {count:6d} {lite:10.1f} {pg:12.1f}")
PY
