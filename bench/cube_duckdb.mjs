// DuckDB peer of bench/cube-queries.sh: loads the flattened `sales` CSV into an in-memory DuckDB
// twice — plain VARCHAR dimensions as in the CSV, then dimensions as ENUM (day as DATE) — and runs
// every query's SQL once to warm up and RUNS times on each load. Writes one JSON document per
// load: {engine, load_ms, queries: [{id, median_ms, runs_ms, result: {columns, rows}}]}.
//
//   node bench/cube_duckdb.mjs --csv sales.csv --queries queries.json --runs 5 --threads 2 \
//     --out-varchar duckdb-varchar.json --out-enum duckdb-enum.json
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';

const COLUMNS = [
  ['day', 'VARCHAR'], ['month', 'VARCHAR'], ['quarter', 'VARCHAR'], ['year', 'INTEGER'],
  ['region', 'VARCHAR'], ['country', 'VARCHAR'], ['city', 'VARCHAR'], ['category', 'VARCHAR'],
  ['subcategory', 'VARCHAR'], ['item', 'VARCHAR'], ['customer_segment', 'VARCHAR'],
  ['channel', 'VARCHAR'], ['units', 'INTEGER'], ['revenue', 'DOUBLE'], ['cost', 'DOUBLE'],
];
const ENUM_COLUMNS = ['month', 'quarter', 'region', 'country', 'city', 'category', 'subcategory',
  'item', 'customer_segment', 'channel'];

function parseArgs(argv) {
  const args = { runs: 5, threads: 2 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    args[key] = argv[i + 1];
  }
  for (const key of ['csv', 'queries', 'outVarchar', 'outEnum']) {
    if (!args[key]) throw new Error(`missing --${key}`);
  }
  args.runs = Number(args.runs);
  return args;
}

const quoteText = (text) => `'${String(text).replaceAll("'", "''")}'`;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

// JSON cells: numbers stay numbers (64/128-bit integers become numbers, exact below 2^53),
// dates and enums become their text.
function cell(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value);
}

async function timed(connection, sql) {
  const start = performance.now();
  const reader = await connection.runAndReadAll(sql);
  return { ms: performance.now() - start, reader };
}

async function runQueries(connection, queries, runs) {
  const results = [];
  for (const query of queries) {
    const warmUp = await timed(connection, query.sql);
    const runsMs = [];
    for (let run = 0; run < runs; run++) runsMs.push((await timed(connection, query.sql)).ms);
    const rows = warmUp.reader.getRowsJS().map((row) => row.map(cell));
    results.push({
      id: query.id,
      median_ms: median(runsMs),
      runs_ms: runsMs,
      result: { columns: warmUp.reader.columnNames(), rows },
    });
    process.stderr.write(`duckdb ${query.id} ${median(runsMs).toFixed(1)} ms\n`);
  }
  return results;
}

async function loadVarchar(connection, csv) {
  const columns = COLUMNS.map(([name, type]) => `'${name}': '${type}'`).join(', ');
  const start = performance.now();
  await connection.run(`CREATE TABLE sales AS SELECT * FROM read_csv(${quoteText(csv)}, ` +
    `header = true, delim = ',', quote = '"', columns = {${columns}})`);
  return performance.now() - start;
}

// Replaces the VARCHAR table by one whose dimensions are ENUMs declared in byte order, so
// ORDER BY on an enum orders as text does.
async function convertToEnum(connection) {
  const start = performance.now();
  const select = [];
  for (const [name] of COLUMNS) {
    if (ENUM_COLUMNS.includes(name)) {
      const reader = await connection.runAndReadAll(`SELECT DISTINCT ${name} FROM sales`);
      const values = reader.getRowsJS().map((row) => row[0]);
      values.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      await connection.run(`CREATE TYPE ${name}_enum AS ENUM (${values.map(quoteText).join(', ')})`);
      select.push(`CAST(${name} AS ${name}_enum) AS ${name}`);
    } else if (name === 'day') {
      select.push('CAST(day AS DATE) AS day');
    } else {
      select.push(name);
    }
  }
  await connection.run(`CREATE TABLE sales_enum AS SELECT ${select.join(', ')} FROM sales`);
  await connection.run('DROP TABLE sales');
  await connection.run('ALTER TABLE sales_enum RENAME TO sales');
  return performance.now() - start;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const queries = JSON.parse(readFileSync(args.queries, 'utf8')).queries;
  const instance = await DuckDBInstance.create(':memory:', { threads: String(args.threads) });
  const connection = await instance.connect();
  const version = (await connection.runAndReadAll('SELECT version()')).getRowsJS()[0][0];

  const varcharLoadMs = await loadVarchar(connection, args.csv);
  const varchar = await runQueries(connection, queries, args.runs);
  writeFileSync(args.outVarchar, JSON.stringify({
    engine: 'duckdb-varchar', version, load_ms: varcharLoadMs, queries: varchar,
  }));

  const enumLoadMs = varcharLoadMs + await convertToEnum(connection);
  const enums = await runQueries(connection, queries, args.runs);
  writeFileSync(args.outEnum, JSON.stringify({
    engine: 'duckdb-enum', version, load_ms: enumLoadMs, queries: enums,
  }));
  connection.closeSync();
}

main().catch((error) => {
  process.stderr.write(`cube_duckdb: ${error.stack || error}\n`);
  process.exit(1);
});
