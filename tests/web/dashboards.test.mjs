// Each demo dashboard in the browser: every page reached through the page navigation, every
// visualization drawn with the numbers the API returns (read independently by the test).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Api, assertShowsResult, launchBrowser, logIn, newPage, startServer, visualizationsReady,
} from './support.mjs';

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

async function checkDashboard(page, name) {
  const dashboard = await api.find(name, 55);
  const definition = await api.json('GET', `/api/v2/dossiers/${dashboard.id}/definition`);
  const mid = await api.dashboardInstance(dashboard.id);
  await page.goto(`${server.url}/app`);
  await page.waitForSelector(`[data-dashboard-id="${dashboard.id}"]`);
  await page.click(`[data-dashboard-id="${dashboard.id}"]`);
  await page.waitForSelector('[data-visualization-key]');
  for (const chapter of definition.chapters) {
    for (const [index, dashboardPage] of chapter.pages.entries()) {
      if (index > 0 || chapter !== definition.chapters[0]) {
        await page.click(`a[data-chapter-key="${chapter.key}"][data-page-key="${dashboardPage.key}"]`);
        await page.waitForFunction((key) => document.querySelector(`[data-visualization-key="${key}"]`),
          {}, dashboardPage.visualizations[0].key);
        assert.equal(new URL(page.url()).pathname,
          `/app/${api.project}/${dashboard.id}/${chapter.key}/${dashboardPage.key}`);
      }
      await visualizationsReady(page);
      const keys = await page.$$eval('[data-visualization-key]', (all) => all.map((e) => e.dataset.visualizationKey));
      assert.deepEqual(keys, dashboardPage.visualizations.map((v) => v.key), `${name} ${dashboardPage.name}`);
      for (const key of keys) {
        const holds = await page.$eval(`[data-visualization-key="${key}"]`, (e) => e.dataset.state === 'ready'
          && Boolean(e.querySelector('svg, canvas, table')));
        assert.ok(holds, `${name}: ${key} is ready and holds a chart or table`);
        await assertShowsResult(assert, page, key, await api.visualization(dashboard.id, mid, chapter.key, key));
      }
    }
  }
}

test('Sales Overview: every visualization of both pages shows what the API returns', async () => {
  const page = await newPage(browser);
  await logIn(page, server.url);
  await page.waitForSelector('[data-dashboard-id]');
  await checkDashboard(page, 'Sales Overview');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Regional Performance: every visualization of both pages shows what the API returns', async () => {
  const page = await newPage(browser);
  await logIn(page, server.url);
  await page.waitForSelector('[data-dashboard-id]');
  await checkDashboard(page, 'Regional Performance');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a dashboard URL with a chapter and page opens on that page, and Back returns to the previous one', async () => {
  const page = await newPage(browser);
  const dashboard = await api.find('Sales Overview', 55);
  await logIn(page, server.url, `/app/${api.project}/${dashboard.id}/K1/K3`);
  await page.waitForSelector('[data-visualization-key="W7"]');
  await visualizationsReady(page);
  assert.equal(await page.$eval('nav.pages a.active', (a) => a.dataset.pageKey), 'K3');
  await page.click('a[data-page-key="K2"]');
  await page.waitForSelector('[data-visualization-key="W1"]');
  await visualizationsReady(page);
  await page.goBack();
  await page.waitForSelector('[data-visualization-key="W7"]');
  assert.equal(new URL(page.url()).pathname, `/app/${api.project}/${dashboard.id}/K1/K3`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a dashboard URL naming no page of the dashboard opens its first page', async () => {
  const page = await newPage(browser);
  const dashboard = await api.find('Sales Overview', 55);
  await logIn(page, server.url, `/app/${api.project}/${dashboard.id}/K9/K99`);
  await page.waitForSelector('[data-visualization-key]');
  await visualizationsReady(page);
  assert.equal(await page.$eval('nav.pages a.active', (a) => a.dataset.pageKey), 'K2');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an unknown dashboard says it cannot be opened', async () => {
  const page = await newPage(browser);
  await logIn(page, server.url, `/app/${api.project}/0123456789ABCDEF0123456789ABCDEF`);
  await page.waitForSelector('.dashboard .error');
  assert.match(await page.$eval('.dashboard .error', (e) => e.textContent), /cannot be opened/);
  assert.deepEqual(page.errors.filter((e) => !e.includes('status of 404')), []);
  await page.close();
});

