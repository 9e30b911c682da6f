#!/usr/bin/env python3
"""SQLite and PostgreSQL peers of bench/cube-queries.sh, and its report.

  cube_peers.py sqlite   --db sales.db --queries Q.json --runs K --out sqlite.json
  cube_peers.py postgres --url URL --csv sales.csv --queries Q.json --runs K --out postgres.json
  cube_peers.py report   --rows N --queries Q.json --tessera tessera.json
                         --peer NAME=FILE ... --out cube-queries-N.json

A peer runs every query's SQL once to warm up, then K times, and writes
{engine, version, load_ms, queries: [{id, median_ms, runs_ms, result: {columns, rows}}]}.
The report compares every peer's answers row by row with Tessera's (text equal, integers equal,
doubles to a relative 1e-9; rows whose order rests on doubles equal to 1e-9 may come in either
order, since sums added in another order can swap them), prints the table and writes it as JSON.
Exit status 1 when any answer differs.
"""
import argparse
import csv
import json
import math
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

RELATIVE_TOLERANCE = 1e-9
TINY = 1e-12


def load_queries(path):
    with open(path) as file:
        return json.load(file)["queries"]


def write_json(path, document):
    with open(path, "w") as file:
        json.dump(document, file, indent=1)


def log(text):
    print(text, file=sys.stderr, flush=True)


# --- SQLite -------------------------------------------------------------------------------------


def run_sqlite(args):
    db = sqlite3.connect(args.db)
    db.execute("PRAGMA cache_size = -4000000")  # up to 4 GB of page cache: the table stays hot
    results = []
    for query in load_queries(args.queries):
        cursor = db.execute(query["sql"])
        rows = cursor.fetchall()
        columns = [description[0] for description in cursor.description]
        runs_ms = []
        for _ in range(args.runs):
            start = time.perf_counter()
            db.execute(query["sql"]).fetchall()
            runs_ms.append((time.perf_counter() - start) * 1000)
        results.append({"id": query["id"], "median_ms": statistics.median(runs_ms),
                        "runs_ms": runs_ms, "result": {"columns": columns,
                                                       "rows": [list(row) for row in rows]}})
        log(f"sqlite {query['id']} {statistics.median(runs_ms):.1f} ms")
    write_json(args.out, {"engine": "sqlite", "version": sqlite3.sqlite_version, "load_ms": None,
                          "queries": results})


# --- PostgreSQL ---------------------------------------------------------------------------------

PG_TABLE = """
CREATE UNLOGGED TABLE sales (
  day date, month text COLLATE "C", quarter text COLLATE "C", year integer,
  region text COLLATE "C", country text COLLATE "C", city text COLLATE "C",
  category text COLLATE "C", subcategory text COLLATE "C", item text COLLATE "C",
  customer_segment text COLLATE "C", channel text COLLATE "C",
  units integer, revenue double precision, cost double precision)
"""
PG_DATABASE = "tessera_bench_cube"


class PsqlError(Exception):
    pass


def psql(url, *arguments, stdin=None):
    done = subprocess.run(["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1", *arguments],
                          input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise PsqlError(done.stderr.strip())
    return done.stdout


def with_database(url, database):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + database))


def load_postgres(url, csv_path):
    psql(url, "-c", f"DROP DATABASE IF EXISTS {PG_DATABASE}", "-c",
         f"CREATE DATABASE {PG_DATABASE} TEMPLATE template0 ENCODING 'UTF8'")
    bench_url = with_database(url, PG_DATABASE)
    psql(bench_url, "-c", f"ALTER DATABASE {PG_DATABASE} SET max_parallel_workers_per_gather = 2")
    start = time.perf_counter()
    psql(bench_url, "-c", PG_TABLE, "-c", f"\\copy sales FROM '{csv_path}' WITH (FORMAT csv, HEADER)",
         "-c", "VACUUM ANALYZE sales")
    load_ms = (time.perf_counter() - start) * 1000
    try:
        psql(bench_url, "-c", "CREATE EXTENSION IF NOT EXISTS pg_prewarm", "-c",
             "SELECT pg_prewarm('sales')")
        prewarm = "pg_prewarm"
    except PsqlError:
        psql(bench_url, "-c", "SELECT count(*), sum(revenue) FROM sales")
        prewarm = "full scan"
    log(f"postgres: loaded in {load_ms:.0f} ms, prewarmed by {prewarm}")
    return bench_url, load_ms


def parse_csv_cell(text):
    if text == "":
        return None  # psql's CSV writes null as an empty unquoted field; no answer has ''
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def run_postgres(args):
    url, load_ms = load_postgres(args.url, os.path.abspath(args.csv))
    version = psql(url, "-A", "-t", "-c", "SHOW server_version").strip()
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for query in load_queries(args.queries):
            answer = os.path.join(scratch, query["id"] + ".csv")
            script = ["\\timing on", "\\pset format csv", f"\\o {answer}", query["sql"] + ";",
                      "\\o /dev/null"] + [query["sql"] + ";"] * args.runs
            output = psql(url, stdin="\n".join(script) + "\n")
            times = [float(ms) for ms in re.findall(r"^Time: ([0-9.]+) ms", output, re.M)]
            if len(times) != args.runs + 1:
                raise SystemExit(f"postgres {query['id']}: expected {args.runs + 1} timings, "
                                 f"got {output!r}")
            runs_ms = times[1:]
            with open(answer, newline="") as file:
                reader = csv.reader(file)
                columns = next(reader)
                rows = [[parse_csv_cell(text) for text in row] for row in reader]
            results.append({"id": query["id"], "median_ms": statistics.median(runs_ms),
                            "runs_ms": runs_ms, "result": {"columns": columns, "rows": rows}})
            log(f"postgres {query['id']} {statistics.median(runs_ms):.1f} ms")
    write_json(args.out, {"engine": "postgres", "version": version, "load_ms": load_ms,
                          "queries": results})


# --- Comparison and report ----------------------------------------------------------------------


INTEGER_ATTRIBUTES = {"year"}
INTEGER_FACTS = {"units"}


def column_kinds(cube):
    """'text', 'integer' or 'double' for each result column of a cube description."""
    kinds = ["integer" if name in INTEGER_ATTRIBUTES else "text" for name in cube["group_by"]]
    for measure in cube["measures"]:
        agg = measure.get("agg")
        if agg in ("count", "count_distinct") or (
                agg in ("sum", "min", "max") and measure.get("of") in INTEGER_FACTS):
            kinds.append("integer")
        else:
            kinds.append("double")
    return kinds


def close(a, b):
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if abs(a) <= TINY and abs(b) <= TINY:
        return True
    return abs(a - b) <= RELATIVE_TOLERANCE * max(abs(a), abs(b))


def cells_equal(expected, actual, kind):
    """`expected` is Tessera's cell, `actual` a peer's: text equal, integers equal, doubles to a
    relative 1e-9."""
    if expected is None or actual is None:
        return expected is None and actual is None
    if kind == "text" or isinstance(expected, str) or isinstance(actual, str):
        return str(expected) == str(actual)
    if kind == "integer":
        return float(expected).is_integer() and float(expected) == float(actual)
    return close(expected, actual)


def rows_equal(want, got, kinds):
    return len(want) == len(got) and all(
        cells_equal(w, g, kind) for w, g, kind in zip(want, got, kinds))


def tied(first, second, order_keys, kinds):
    """Whether two of Tessera's rows are in their order only by a floating-point hair: the first
    order key whose values differ is a double, and they are equal to a relative 1e-9. Sums added
    in another order may put such rows the other way round; the peers' order is then as right."""
    for index in order_keys:
        if first[index] == second[index]:
            continue
        return kinds[index] == "double" and first[index] is not None and \
            second[index] is not None and close(first[index], second[index])
    return True


def tie_blocks(rows, order_keys, kinds):
    """[start, end) runs of consecutive rows tied in their order."""
    start = 0
    for index in range(1, len(rows) + 1):
        if index == len(rows) or not tied(rows[index - 1], rows[index], order_keys, kinds):
            yield start, index
            start = index


def compare(query, engine, expected, actual, limit=5):
    """Returns (differences, notes): lines describing where the answers differ, and where rows
    tied to a floating-point hair in their order came in another order (not a difference)."""
    query_id, cube = query["id"], query["cube"]
    kinds = column_kinds(cube)
    names = cube["group_by"] + [measure["name"] for measure in cube["measures"]]
    order_keys = [names.index(key["key"]) for key in cube["order_by"]]
    expected_rows, actual_rows = expected["rows"], actual["rows"]
    problems, notes = [], []
    if len(expected_rows) != len(actual_rows):
        problems.append(f"{query_id} {engine}: {len(actual_rows)} rows, Tessera "
                        f"{len(expected_rows)}")
    blocks = tie_blocks(expected_rows, order_keys, kinds) if len(expected_rows) == len(
        actual_rows) else ((i, i + 1) for i in range(min(len(expected_rows), len(actual_rows))))
    for start, end in blocks:
        if all(rows_equal(expected_rows[i], actual_rows[i], kinds) for i in range(start, end)):
            continue
        unmatched = list(actual_rows[start:end])
        for want in expected_rows[start:end]:
            match = next((got for got in unmatched if rows_equal(want, got, kinds)), None)
            if match is None:
                break
            unmatched.remove(match)
        if not unmatched:
            notes.append(f"{query_id} {engine}: rows {start}..{end - 1} tie to 1e-9 in their "
                         f"order keys and come in another order")
            continue
        for index in range(start, end):
            if not rows_equal(expected_rows[index], actual_rows[index], kinds):
                problems.append(f"{query_id} {engine}: row {index}: {engine} {actual_rows[index]}"
                                f" != Tessera {expected_rows[index]}")
        if len(problems) >= limit:
            problems.append(f"{query_id} {engine}: (further differences not shown)")
            break
    return problems, notes


def ratio(peer_ms, tessera_ms):
    if peer_ms is None or not tessera_ms:
        return None
    return peer_ms / tessera_ms


def format_number(value, digits=1, width=8):
    if value is None:
        return " " * (width - 1) + "-"
    return f"{value:{width}.{digits}f}"


def run_report(args):
    queries = load_queries(args.queries)
    with open(args.tessera) as file:
        tessera = json.load(file)
    peers = {}
    for item in args.peer:
        name, path = item.split("=", 1)
        if os.path.exists(path):
            with open(path) as file:
                peers[name] = {query["id"]: query for query in json.load(file)["queries"]}
        else:
            log(f"report: no answers from {name} ({path} is missing)")
    tessera_by_id = {query["id"]: query for query in tessera["queries"]}

    problems, notes = [], []
    table = []
    for query in queries:
        ours = tessera_by_id[query["id"]]
        row = {"id": query["id"], "title": query["title"], "tessera_ms": ours["median_ms"],
               "rows_per_second": args.rows / (ours["median_ms"] / 1000)
               if ours["median_ms"] else None,
               "peak_rss_mib": ours.get("peak_rss_mib"),
               "peak_above_baseline_mib": ours.get("peak_above_baseline_mib"),
               "result_rows": len(ours["result"]["rows"]), "peers": {}}
        for name, answers in peers.items():
            theirs = answers.get(query["id"])
            if theirs is None:
                continue
            differences, ties = compare(query, name, ours["result"], theirs["result"])
            problems += differences
            notes += ties
            row["peers"][name] = {"median_ms": theirs["median_ms"],
                                  "ratio": ratio(theirs["median_ms"], ours["median_ms"])}
        table.append(row)

    print_table(args.rows, tessera, table)
    document = {"rows": args.rows, "runs": args.runs, "tessera": {
        key: tessera.get(key) for key in ("publish_ms", "scan_ms", "aggregate_scan_ms",
                                           "memory_bytes", "raw_bytes", "floor_ms",
                                           "floor_1thread_ms", "threads", "baseline_rss_mib")},
        "queries": table, "mismatches": problems, "tie_notes": notes}
    slowest = slowest_ratio(table, "duckdb-varchar")
    slowest_enum = slowest_ratio(table, "duckdb-enum")
    if slowest:
        document["slowest_ratio_vs_duckdb"] = slowest
    if slowest_enum:
        document["slowest_ratio_vs_duckdb_enum"] = slowest_enum
    write_json(args.out, document)
    if notes:
        print("\nNot differences:")
        for line in notes:
            print("  " + line)
    if problems:
        print(f"\n{len(problems)} answer difference(s):")
        for line in problems:
            print("  " + line)
    if slowest_enum:
        print(f"slowest ratio vs DuckDB with ENUM attribute columns: {slowest_enum['ratio']:.2f} "
              f"({slowest_enum['id']})")
    if slowest:
        print(f"slowest ratio vs DuckDB: {slowest['ratio']:.2f} ({slowest['id']})")
    return 1 if problems else 0


def slowest_ratio(table, peer):
    """The query where `peer` is closest to Tessera: {ratio, id}, or None without that peer."""
    measured = [row for row in table if row["peers"].get(peer, {}).get("ratio")]
    if not measured:
        return None
    slowest = min(measured, key=lambda row: row["peers"][peer]["ratio"])
    return {"ratio": slowest["peers"][peer]["ratio"], "id": slowest["id"]}


def print_table(rows, tessera, table):
    mib = 1024 * 1024
    publish, scan = tessera.get("publish_ms"), tessera.get("scan_ms")
    print(f"\nTessera cube over {rows} rows ({tessera.get('threads')} threads)")
    if publish and scan:
        print(f"  publish (warehouse -> dataset): {publish:.0f} ms; SQLite scan of the same SELECT: "
              f"{scan:.0f} ms (publish / scan = {publish / scan:.2f}); count(*), sum(revenue) over "
              f"the same join: {tessera.get('aggregate_scan_ms'):.0f} ms")
    else:
        print("  publish: not measured (dataset read from a snapshot)")
    print(f"  dataset: MemoryBytes {tessera['memory_bytes'] / mib:.1f} MiB, RawBytes "
          f"{tessera['raw_bytes'] / mib:.1f} MiB ({tessera['memory_bytes'] / tessera['raw_bytes']:.2f}x)")
    print(f"  floor loop (sum of one double by one uint8 code, all rows): "
          f"{tessera['floor_ms']:.2f} ms on {tessera.get('threads')} threads, "
          f"{tessera['floor_1thread_ms']:.2f} ms on 1")
    print()
    header = (f"{'query':5} {'title':44} {'tessera':>8} {'Mrows/s':>8} {'peakMiB':>8} {'+MiB':>6} "
              f"{'duckdb':>8} {'ratio':>6} {'enum':>8} {'ratio':>6} {'sqlite':>8} {'ratio':>6} "
              f"{'postgres':>8} {'ratio':>6}")
    print(header)
    print("-" * len(header))
    for row in table:
        peers = row["peers"]

        def ms(name):
            return format_number(peers.get(name, {}).get("median_ms"))

        def times(name):
            return format_number(peers.get(name, {}).get("ratio"), 2, 6)

        title = row["title"] if len(row["title"]) <= 44 else row["title"][:41] + "..."
        rate = row["rows_per_second"] / 1e6 if row["rows_per_second"] else None
        print(f"{row['id']:5} {title:44} {format_number(row['tessera_ms'])} "
              f"{format_number(rate)} {format_number(row['peak_rss_mib'])} "
              f"{format_number(row['peak_above_baseline_mib'], 1, 6)} "
              f"{ms('duckdb-varchar')} {times('duckdb-varchar')} {ms('duckdb-enum')} "
              f"{times('duckdb-enum')} {ms('sqlite')} {times('sqlite')} {ms('postgres')} "
              f"{times('postgres')}")
    print("(times: median ms; ratio = peer time / Tessera time; duckdb = DuckDB on the table as "
          "loaded from the CSV,\n text attribute columns; enum = DuckDB with the attribute columns "
          "converted to ENUM;\n peakMiB = Tessera's peak RSS while running the query, +MiB = above "
          "its RSS before)")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    sqlite_command = commands.add_parser("sqlite")
    sqlite_command.add_argument("--db", required=True)
    postgres_command = commands.add_parser("postgres")
    postgres_command.add_argument("--url", required=True)
    postgres_command.add_argument("--csv", required=True)
    report_command = commands.add_parser("report")
    report_command.add_argument("--rows", type=int, required=True)
    report_command.add_argument("--tessera", required=True)
    report_command.add_argument("--peer", action="append", default=[], help="NAME=FILE")
    for command in (sqlite_command, postgres_command, report_command):
        command.add_argument("--queries", required=True)
        command.add_argument("--runs", type=int, default=5)
        command.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.command == "sqlite":
        run_sqlite(args)
    elif args.command == "postgres":
        run_postgres(args)
    else:
        sys.exit(run_report(args))


if __name__ == "__main__":
    main()
