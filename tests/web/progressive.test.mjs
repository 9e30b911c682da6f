// Progressive rendering: each visualization is read on its own request and drawn as soon as its
// answer arrives, so a slow one never holds the others back; with parallel rendering on, the
// instance is created asking for it and the server renders in parallel. Also: the app served
// under a context path calls the API under the same prefix.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Api, launchBrowser, logIn, newPage, startServer, visualizationsReady } from './support.mjs';

let server;
let api;
let browser;

before(async () => {
  server = await startServer();
  api = await new Api(server.url).login();
  await api.publishCubes();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Opens `dashboard` with the answer of visualization `slowKey` held back until `release()`;
// records when each visualization became ready, in the page's own clock.
async function openHoldingBack(dashboard, slowKey) {
  const page = await newPage(browser);
  await logIn(page, server.url);
  await page.waitForSelector('[data-dashboard-id]');
  await page.evaluate(() => {
    window.readyAt = {};
    new MutationObserver((records) => {
      for (const record of records) {
        const element = record.target;
        if (element.dataset && element.dataset.state === 'ready' && !(element.dataset.visualizationKey in window.readyAt)) {
          window.readyAt[element.dataset.visualizationKey] = performance.now();
        }
      }
    }).observe(document.body, { attributes: true, attributeFilter: ['data-state'], subtree: true });
  });
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  const creations = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (request.method() === 'POST' && /\/api\/dossiers\/[0-9A-F]{32}\/instances$/.test(request.url())) {
      creations.push(JSON.parse(request.postData()));
    }
    if (request.url().includes(`/visualizations/${slowKey}?`)) {
      released.then(() => request.continue());
    } else {
      request.continue();
    }
  });
  await page.click(`[data-dashboard-id="${dashboard.id}"]`);
  return { page, release, creations };
}

test('with parallel rendering, every visualization appears as its data arrives, before a slower one', async () => {
  const dashboard = await api.find('Sales Overview', 55);
  const { page, release, creations } = await openHoldingBack(dashboard, 'W1');
  // Everything but the held-back W1 is drawn while W1 still waits for its data.
  await page.waitForFunction(() => {
    const all = [...document.querySelectorAll('[data-visualization-key]')];
    return all.length === 6 && all.every((e) => (e.dataset.visualizationKey === 'W1'
      ? e.dataset.state === 'loading' : e.dataset.state === 'ready'));
  }, { timeout: 90000 });
  release();
  await visualizationsReady(page);
  const readyAt = await page.evaluate(() => window.readyAt);
  assert.ok(Object.keys(readyAt).filter((key) => key !== 'W1').every((key) => readyAt[key] < readyAt.W1));
  assert.equal(creations.length, 1);
  assert.equal(creations[0].enableParallelRendering, true);
  // The server granted parallel rendering to this instance (the dashboard allows it).
  const mid = await page.evaluate(() => performance.getEntriesByType('resource')
    .map((entry) => entry.name.match(/instances\/([0-9A-F]{32})\/chapters/)).find(Boolean)[1]);
  const status = await fetch(`${server.url}/api/dossiers/${dashboard.id}/instances/${mid}/status`, {
    headers: { 'X-MSTR-AuthToken': await page.evaluate(() => sessionStorage.getItem('tessera.authToken')) },
  }).then((response) => response.json());
  assert.equal(status.parallelRendering, true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('without parallel rendering (Regional Performance), the page still draws each visualization on its own', async () => {
  const dashboard = await api.find('Regional Performance', 55);
  const { page, release } = await openHoldingBack(dashboard, 'W2');
  await page.waitForFunction(() => {
    const states = Object.fromEntries([...document.querySelectorAll('[data-visualization-key]')]
      .map((e) => [e.dataset.visualizationKey, e.dataset.state]));
    return states.W1 === 'ready' && states.W2 === 'loading';
  }, { timeout: 90000 });
  release();
  await visualizationsReady(page);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('under a context path the app, its files and its API calls share the prefix', async () => {
  const prefixed = await startServer({ rows: 2000, extra: ['--context-path', '/MicroStrategyLibrary'] });
  try {
    const prefixedApi = await new Api(prefixed.url).login();
    await prefixedApi.publishCubes();
    const dashboard = await prefixedApi.find('Sales Overview', 55);
    const page = await newPage(browser);
    const outside = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol.startsWith('http') && !url.pathname.startsWith('/MicroStrategyLibrary/')) outside.push(url.pathname);
    });
    await logIn(page, prefixed.url);
    await page.waitForSelector(`[data-dashboard-id="${dashboard.id}"]`);
    const href = await page.$eval(`[data-dashboard-id="${dashboard.id}"]`, (a) => new URL(a.href).pathname);
    assert.equal(href, `/MicroStrategyLibrary/app/${prefixedApi.project}/${dashboard.id}`);
    await page.click(`[data-dashboard-id="${dashboard.id}"]`);
    await page.waitForSelector('[data-visualization-key]');
    await visualizationsReady(page);
    assert.deepEqual(outside, []);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await prefixed.stop();
  }
});
