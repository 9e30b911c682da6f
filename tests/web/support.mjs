// What the browser tests share: a Tessera server of their own (a fresh data directory, the demo
// loaded on first start, its cubes published), Debian's chromium driven headless by
// puppeteer-core, a REST client that reads the API independently of the app, and the check that
// a page had no script error.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repository = path.resolve(here, '..', '..');

// The server binary: TESSERA_BINARY, else the release build, else the test build.
export function serverBinary() {
  const candidates = [
    process.env.TESSERA_BINARY,
    path.join(repository, 'build', 'release', 'tessera'),
    path.join(repository, 'build', 'asan', 'tessera'),
  ].filter(Boolean);
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`no tessera binary: build it or set TESSERA_BINARY (tried ${candidates.join(', ')})`);
  return found;
}

function scratchDirectory(prefix) {
  return fs.mkdtempSync(path.join(process.env.TESSERA_WEB_TEST_TMP || os.tmpdir(), prefix));
}

// Starts `tessera serve` on an ephemeral loopback port with a fresh data directory (removed by
// stop()), or with `dataDir` (kept); resolves once it listens. `extra` flags are added (e.g.
// ['--context-path', '/MicroStrategyLibrary']).
export async function startServer({ extra = [], rows = 100000, dataDir: keptDataDir } = {}) {
  const dataDir = keptDataDir || scratchDirectory('tessera-web-data-');
  const child = spawn(serverBinary(), ['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir,
    '--demo-rows', String(rows), '--access-log', 'false', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${log}`)), 120000);
    const read = (chunk) => {
      log += chunk;
      const match = log.match(/Tessera listening on [^\s]+:(\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}):\n${log}`));
    });
  });
  const contextPath = extra.includes('--context-path') ? extra[extra.indexOf('--context-path') + 1] : '';
  const server = {
    port,
    url: `http://127.0.0.1:${port}${contextPath}`,
    async stop() {
      child.removeAllListeners('exit');
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      if (!keptDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

// A REST client of its own: what the test expects is read from the API, never from the app.
export class Api {
  constructor(baseUrl) {
    this.baseUrl = baseUrl;
  }

  async login(username = 'administrator', password = '') {
    const response = await fetch(`${this.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password, loginMode: 1 }),
    });
    if (response.status !== 204 && response.status !== 200) throw new Error(`login: ${response.status}`);
    this.token = response.headers.get('x-mstr-authtoken');
    const projects = await this.json('GET', '/api/projects');
    this.project = projects.find((project) => project.name === 'Tutorial').id;
    return this;
  }

  async call(method, pathAndQuery, { body, project = true, headers = {} } = {}) {
    const sent = { 'X-MSTR-AuthToken': this.token, ...headers };
    if (project && this.project) sent['X-MSTR-ProjectID'] = this.project;
    if (body !== undefined) sent['Content-Type'] = 'application/json';
    return fetch(`${this.baseUrl}${pathAndQuery}`, {
      method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async json(method, pathAndQuery, options) {
    const response = await this.call(method, pathAndQuery, options);
    if (!response.ok) throw new Error(`${method} ${pathAndQuery}: ${response.status} ${await response.text()}`);
    const text = await response.text();
    return text ? JSON.parse(text) : null;
  }

  // The object of `type` (55 dashboards, 3 reports and cubes) named exactly `name`.
  async find(name, type) {
    const found = await this.json('GET', `/api/searches/results?type=${type}&pattern=2&name=${encodeURIComponent(name)}`);
    const item = found.result.find((one) => one.name === name);
    if (!item) throw new Error(`no object '${name}' of type ${type}`);
    return item;
  }

  // Publishes every cube of the project (or those named in `names`) that is not published yet
  // and waits until all are: a server that already publishes the demo's cubes on first start
  // makes this a no-op.
  async publishCubes(names = null) {
    const found = await this.json('GET', '/api/searches/results?type=3&limit=1000');
    const cubes = found.result.filter((item) => item.subtype === 776 && (!names || names.includes(item.name)));
    const status = async (cube) => Number((await this.call('HEAD', `/api/cubes/${cube.id}`)).headers.get('x-mstr-cubestatus'));
    for (const cube of cubes) {
      if ((await status(cube)) === 0) await this.json('POST', `/api/v2/cubes/${cube.id}`);
    }
    const deadline = Date.now() + 600000;
    for (const cube of cubes) {
      for (;;) {
        const value = await status(cube);
        if (value !== 0 && (value & 1) === 0) break;
        if (Date.now() > deadline) throw new Error(`cube ${cube.name} was not published in time`);
        await new Promise((resolve) => { setTimeout(resolve, 200); });
      }
    }
  }

  // An instance of a dashboard of the test's own, with `filters` applied (PUT filters).
  async dashboardInstance(dashboardId, filters = []) {
    const created = await this.json('POST', `/api/dossiers/${dashboardId}/instances`, { body: { enableParallelRendering: false } });
    if (filters.length) {
      const response = await this.call('PUT', `/api/dossiers/${dashboardId}/instances/${created.mid}/filters`, { body: filters });
      if (response.status !== 204) throw new Error(`PUT filters: ${response.status} ${await response.text()}`);
    }
    return created.mid;
  }

  async visualization(dashboardId, mid, chapterKey, key, limit = 5000) {
    return this.json('GET', `/api/v2/dossiers/${dashboardId}/instances/${mid}/chapters/${chapterKey}/visualizations/${key}?limit=${limit}`, { project: false });
  }
}

export async function launchBrowser() {
  const profile = scratchDirectory('tessera-web-chromium-');
  const browser = await puppeteer.launch({
    executablePath: process.env.TESSERA_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${profile}`],
  });
  const close = browser.close.bind(browser);
  browser.close = async () => {
    await close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return browser;
}

// A new page that records every script error and console error; `errors` lists them.
export async function newPage(browser) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  // Generous: under the sanitizer build the server is several times slower.
  page.setDefaultTimeout(90000);
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') page.errors.push(`console: ${message.text()}`);
  });
  return page;
}

export async function logIn(page, baseUrl, path = '/app') {
  await page.goto(`${baseUrl}${path}`);
  await page.waitForSelector('input[name=username]');
  await page.type('input[name=username]', 'administrator');
  await page.click('form button[type=submit]');
}

// Resolves once every visualization of the page is drawn; fails if one shows an error.
export async function visualizationsReady(page, timeout = 60000) {
  await page.waitForFunction(() => {
    const all = [...document.querySelectorAll('[data-visualization-key]')];
    return all.length > 0 && all.every((element) => element.dataset.state !== 'loading');
  }, { timeout });
  const failed = await page.$$eval('[data-visualization-key][data-state=error]',
    (elements) => elements.map((element) => `${element.dataset.visualizationKey}: ${element.textContent}`));
  if (failed.length) throw new Error(`visualizations in error: ${failed.join('; ')}`);
}

// Waits for the app to read visualization `key` again and draw it, after `action` runs.
export async function redrawnBy(page, keys, action) {
  const answers = keys.map((key) => page.waitForResponse((response) =>
    response.url().includes(`/visualizations/${key}?`) && response.request().method() === 'GET', { timeout: 90000 }));
  await action();
  await Promise.all(answers);
  await page.waitForFunction((wanted) => wanted.every((key) =>
    document.querySelector(`[data-visualization-key="${key}"]`).dataset.state !== 'loading'), { timeout: 90000 }, keys);
}

// The name of a grid element as the Library shows it: its DESC form values when the attribute has
// a DESC form, else all its form values, joined by a space.
function elementName(attribute, element) {
  const descriptions = attribute.forms
    .map((form, index) => (form.baseFormCategory === 'DESC' ? element.formValues[index] : null))
    .filter((value) => value !== null);
  return (descriptions.length ? descriptions : element.formValues).join(' ');
}

// What visualization `key` shows on the page: a chart's labels and plotted values (read from the
// chart itself), a KPI's values, or a grid's rows of cell texts.
export async function shownVisualization(page, key) {
  return page.$eval(`[data-visualization-key="${key}"]`, (element) => {
    const canvas = element.querySelector('canvas');
    if (canvas) {
      const chart = window.Chart.getChart(canvas);
      return { kind: 'chart', type: chart.config.type, labels: chart.data.labels, series: chart.data.datasets.map((set) => set.data) };
    }
    const kpi = element.querySelector('table.kpi');
    if (kpi) return { kind: 'kpi', values: [...kpi.querySelectorAll('.kpi-value')].map((cell) => cell.textContent) };
    const table = element.querySelector('table');
    if (!table) return { kind: 'none' };
    return { kind: 'grid', rows: [...table.tBodies[0].rows].map((row) => [...row.cells].map((cell) => cell.textContent)) };
  });
}

// What the page should show for a v2 visualization `result` read from the API.
export function expectedVisualization(result, rowsShown = 100) {
  const grid = result.definition.grid;
  const { headers, metricValues } = result.data;
  const type = result.visualizationType;
  if (type === 'kpi') return { kind: 'kpi', values: metricValues.formatted[0] };
  if (type === 'grid') {
    return {
      kind: 'grid',
      rows: headers.rows.slice(0, rowsShown).map((indexes, row) => [
        ...grid.rows.map((attribute, level) => elementName(attribute, attribute.elements[indexes[level]])),
        ...metricValues.formatted[row],
      ]),
    };
  }
  const first = grid.rows[0];
  const labels = [...new Set(headers.rows.map((indexes) => elementName(first, first.elements[indexes[0]])))];
  const isRound = type === 'pie_chart';
  const values = metricValues.raw.flatMap((row) => (isRound ? [row[0]] : row));
  return { kind: 'chart', labels, values: values.sort((a, b) => a - b) };
}

// Asserts that the page shows `result` for visualization `key`.
export async function assertShowsResult(assert, page, key, result) {
  const shown = await shownVisualization(page, key);
  const expected = expectedVisualization(result);
  assert.equal(shown.kind, expected.kind, `${key}: drawn as ${shown.kind}`);
  if (expected.kind === 'chart') {
    assert.deepEqual(shown.labels, expected.labels, `${key}: chart labels`);
    const plotted = shown.series.flat().filter((value) => value !== null).sort((a, b) => a - b);
    assert.equal(plotted.length, expected.values.length, `${key}: number of plotted values`);
    // Sums of doubles may differ in their last bits between two computations of the same data.
    plotted.forEach((value, i) => {
      const want = expected.values[i];
      assert.ok(Math.abs(value - want) <= 1e-9 * Math.max(1, Math.abs(want)),
        `${key}: plotted value ${value}, the API says ${want}`);
    });
  } else if (expected.kind === 'kpi') {
    assert.deepEqual(shown.values, expected.values, `${key}: KPI values`);
  } else {
    assert.deepEqual(shown.rows, expected.rows, `${key}: grid rows`);
  }
  return shown;
}
