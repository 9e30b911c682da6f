// Every selector type changes what it targets, and only that: the change goes to the server as
// PUT filters, and the redrawn visualizations show what the API answers for the same filter on an
// instance of the test's own; visualizations the selector does not target are not read again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Api, assertShowsResult, launchBrowser, logIn, newPage, redrawnBy, shownVisualization,
  startServer, visualizationsReady,
} from './support.mjs';

let server;
let api;
let browser;
let sales;
let regional;

before(async () => {
  server = await startServer();
  api = await new Api(server.url).login();
  await api.publishCubes();
  browser = await launchBrowser();
  sales = await api.find('Sales Overview', 55);
  regional = await api.find('Regional Performance', 55);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function openDashboard(dashboard, chapterAndPage = '') {
  const page = await newPage(browser);
  await logIn(page, server.url, `/app/${api.project}/${dashboard.id}${chapterAndPage}`);
  await page.waitForSelector('[data-visualization-key]');
  await visualizationsReady(page);
  page.visualizationReads = [];
  page.on('request', (request) => {
    const match = request.url().match(/\/visualizations\/(W\w+)\?/);
    if (match) page.visualizationReads.push(match[1]);
  });
  return page;
}

// Clicks what selector `key` offers as `id`, once the selector shows it (element lists read
// their elements on their own request).
async function clickOffered(page, key, id) {
  const selector = `[data-selector-key="${key}"] [data-element-id="${id}"]`;
  await page.waitForSelector(selector, { visible: true });
  await page.click(selector);
}

// Waits until selector `key` offers exactly the elements `ids`, in that order.
async function offersExactly(page, key, ids) {
  await page.waitForFunction((selectorKey, wanted) => {
    const offered = [...document.querySelectorAll(`[data-selector-key="${selectorKey}"] li [data-element-id]`)];
    return JSON.stringify(offered.map((e) => e.dataset.elementId)) === JSON.stringify(wanted);
  }, {}, key, ids);
}

async function assertMatchesApi(page, dashboard, filters, keys, chapterKey = 'K1') {
  const mid = await api.dashboardInstance(dashboard.id, filters);
  for (const key of keys) {
    await assertShowsResult(assert, page, key, await api.visualization(dashboard.id, mid, chapterKey, key));
  }
}

async function elementsOf(dashboard, filterKey, query = '') {
  const mid = await api.dashboardInstance(dashboard.id);
  return api.json('GET', `/api/dossiers/${dashboard.id}/instances/${mid}/elements?filterKey=${filterKey}${query}`, { project: false });
}

const pageOne = ['W1', 'W2', 'W3', 'W4', 'W5', 'W6'];

test('an element list in the filter panel (Region) redraws every visualization of its chapter', async () => {
  const page = await openDashboard(sales);
  const westernEurope = (await elementsOf(sales, 'W10')).find((e) => e.name === 'Western Europe');
  const before = await shownVisualization(page, 'W1');
  await redrawnBy(page, pageOne, () => clickOffered(page, 'W10', westernEurope.id));
  await assertMatchesApi(page, sales, [{ key: 'W10', currentSelection: { selectionStatus: 'included', elements: [{ id: westernEurope.id }] } }], pageOne);
  assert.notDeepEqual(await shownVisualization(page, 'W1'), before);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an element list offers its elements a page at a time and searches them with the elements call', async () => {
  const page = await openDashboard(sales);
  const offered = () => page.$$eval('[data-selector-key="W10"] li [data-element-id]', (all) => all.map((e) => e.dataset.elementId));
  const firstPage = (await elementsOf(sales, 'W10', '&offset=0&limit=6')).map((e) => e.id);
  await page.waitForFunction(() => document.querySelectorAll('[data-selector-key="W10"] li [data-element-id]').length > 0);
  assert.deepEqual(await offered(), firstPage);
  await page.click('[data-selector-key="W10"] [data-action="more-elements"]');
  const all = (await elementsOf(sales, 'W10')).map((e) => e.id);
  await page.waitForFunction((count) => document.querySelectorAll('[data-selector-key="W10"] li [data-element-id]').length === count, {}, all.length);
  assert.deepEqual(await offered(), all);
  const asia = (await elementsOf(sales, 'W10', '&searchPattern=asia')).map((e) => e.id);
  assert.ok(asia.length > 0 && asia.length < all.length);
  await page.type('[data-selector-key="W10"] input[name=elementSearch]', 'asia');
  await offersExactly(page, 'W10', asia);
  assert.deepEqual(await offered(), asia);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an element search answered late never replaces the answer to a newer search', async () => {
  const page = await openDashboard(sales);
  const isOlderSearch = (url) => /[?&]searchPattern=as(&|$)/.test(url);
  const older = (await elementsOf(sales, 'W10', '&searchPattern=as&offset=0&limit=6')).map((e) => e.id);
  const newer = (await elementsOf(sales, 'W10', '&searchPattern=asia&offset=0&limit=6')).map((e) => e.id);
  assert.notDeepEqual(older, newer, 'the two searches must answer differently for this test to tell them apart');
  await page.waitForFunction(() => document.querySelectorAll('[data-selector-key="W10"] li [data-element-id]').length > 0);
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (isOlderSearch(request.url())) released.then(() => request.continue());
    else request.continue();
  });
  const olderSent = page.waitForRequest((request) => isOlderSearch(request.url()));
  await page.type('[data-selector-key="W10"] input[name=elementSearch]', 'as');
  await olderSent;
  await page.type('[data-selector-key="W10"] input[name=elementSearch]', 'ia');
  await offersExactly(page, 'W10', newer);
  const olderAnswered = page.waitForResponse((response) => isOlderSearch(response.url()));
  release();
  await olderAnswered;
  // The app reads the late answer's body on its next turns; give it a few before looking.
  await page.evaluate(() => new Promise((resolve) => { setTimeout(resolve, 300); }));
  assert.deepEqual(await page.$$eval('[data-selector-key="W10"] li [data-element-id]', (all) => all.map((e) => e.dataset.elementId)), newer);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a drop-down element list on the canvas (Channel) redraws only its target', async () => {
  const page = await openDashboard(sales);
  const online = (await elementsOf(sales, 'W14')).find((e) => e.name === 'Online');
  const pie = await shownVisualization(page, 'W4');
  await page.click('[data-selector-key="W14"] summary');
  await redrawnBy(page, ['W6'], () => clickOffered(page, 'W14', online.id));
  await assertMatchesApi(page, sales, [{ key: 'W14', currentSelection: { selectionStatus: 'included', elements: [{ id: online.id }] } }], ['W6']);
  assert.deepEqual(page.visualizationReads, ['W6']);
  assert.deepEqual(await shownVisualization(page, 'W4'), pie);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an attribute qualification (Recent Years) applies its operator and value', async () => {
  const page = await openDashboard(sales);
  const definition = await api.json('GET', `/api/v2/dossiers/${sales.id}/definition`);
  const yearForm = definition.chapters[0].filters.find((f) => f.key === 'W11').currentSelection.expression.operands[0];
  await page.select('[data-selector-key="W11"] select[name=operator]', 'Equals');
  const value = await page.$('[data-selector-key="W11"] input[name=value]');
  await value.click({ clickCount: 3 });
  await value.type('2024');
  await redrawnBy(page, pageOne, () => page.click('[data-selector-key="W11"] [data-action="apply"]'));
  await assertMatchesApi(page, sales, [{ key: 'W11', currentSelection: { selectionStatus: 'included', expression: { operator: 'Equals', operands: [yearForm, { type: 'constant', dataType: 'Real', value: '2024' }] } } }], pageOne);
  assert.deepEqual((await shownVisualization(page, 'W2')).labels, ['2024']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a metric qualification (Revenue) keeps the rows its rank condition selects', async () => {
  const page = await openDashboard(sales);
  const definition = await api.json('GET', `/api/v2/dossiers/${sales.id}/definition`);
  const revenue = definition.chapters[0].filters.find((f) => f.key === 'W12').source;
  await page.select('[data-selector-key="W12"] select[name=operator]', 'Rank.Top');
  await page.type('[data-selector-key="W12"] input[name=value]', '3');
  await redrawnBy(page, pageOne, () => page.click('[data-selector-key="W12"] [data-action="apply"]'));
  await assertMatchesApi(page, sales, [{ key: 'W12', currentSelection: { selectionStatus: 'included', expression: { operator: 'Rank.Top', operands: [{ type: 'metric', id: revenue.id }, { type: 'constant', dataType: 'Real', value: '3' }] } } }], pageOne);
  assert.equal((await shownVisualization(page, 'W5')).rows.length, 3);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an object replacement (Measure) swaps the metric of its target only', async () => {
  const page = await openDashboard(sales);
  const definition = await api.json('GET', `/api/v2/dossiers/${sales.id}/definition`);
  const profit = definition.chapters[0].pages[0].selectors.find((s) => s.key === 'W13').availableObjectItems.find((i) => i.name === 'Profit');
  await redrawnBy(page, ['W4'], () => clickOffered(page, 'W13', profit.id));
  await assertMatchesApi(page, sales, [{ key: 'W13', currentSelection: { selectionStatus: 'included', objectItems: [{ id: profit.id }] } }], ['W4', 'W2']);
  assert.deepEqual(page.visualizationReads, ['W4']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The point of a bar, in page coordinates, from the chart's own layout.
async function barPosition(page, key, label) {
  return page.$eval(`[data-visualization-key="${key}"] canvas`, (canvas, wanted) => {
    const chart = window.Chart.getChart(canvas);
    const index = chart.data.labels.indexOf(wanted);
    const bar = chart.getDatasetMeta(0).data[index];
    const box = canvas.getBoundingClientRect();
    return { x: box.left + bar.x, y: box.top + (bar.y + bar.base) / 2 };
  }, label);
}

test('clicking a bar of a visualization used as a filter filters its targets, and clicking it again clears', async () => {
  const page = await openDashboard(sales);
  const definition = await api.json('GET', `/api/v2/dossiers/${sales.id}/definition`);
  const year = definition.datasets[0].availableObjects.find((o) => o.name === 'Year');
  const unfiltered = await shownVisualization(page, 'W3');
  let bar = await barPosition(page, 'W2', '2024');
  await redrawnBy(page, ['W3', 'W6'], () => page.mouse.click(bar.x, bar.y));
  await assertMatchesApi(page, sales, [{ visualizationKey: 'W2', currentSelection: { selectionStatus: 'included', expression: { operator: 'In', operands: [{ type: 'attribute', id: year.id }, { type: 'elements', elements: [{ id: `h2024;${year.id}` }] }] } } }], ['W3', 'W6', 'W5']);
  assert.ok((await shownVisualization(page, 'W3')).labels.every((label) => label.endsWith('2024')));
  assert.deepEqual([...page.visualizationReads].sort(), ['W3', 'W6']);
  bar = await barPosition(page, 'W2', '2024');
  await redrawnBy(page, ['W3', 'W6'], () => page.mouse.click(bar.x, bar.y));
  assert.deepEqual((await shownVisualization(page, 'W3')).labels, unfiltered.labels);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('parameters: an element-list parameter, an object parameter and a value parameter', async () => {
  const page = await openDashboard(regional);
  const northAmerica = (await elementsOf(regional, 'W10')).find((e) => e.name === 'North America');
  const definition = await api.json('GET', `/api/v2/dossiers/${regional.id}/definition`);
  const chapter = definition.chapters[0];
  const regions = chapter.filters.find((f) => f.key === 'W10').currentSelection.elements;
  const margin = chapter.filters.find((f) => f.key === 'W11').availableObjectItems.find((i) => i.name === 'Profit Margin');

  await redrawnBy(page, ['W1', 'W2'], () => clickOffered(page, 'W10', northAmerica.id));
  const regionFilter = { key: 'W10', currentSelection: { selectionStatus: 'included', elements: regions.filter((e) => e.id !== northAmerica.id).map(({ id }) => ({ id })) } };
  await assertMatchesApi(page, regional, [regionFilter], ['W1', 'W2']);
  assert.ok(!(await shownVisualization(page, 'W1')).labels.includes('North America'));

  await redrawnBy(page, ['W1'], () => clickOffered(page, 'W11', margin.id));
  const measureFilter = { key: 'W11', currentSelection: { selectionStatus: 'included', objectItems: [{ id: margin.id }] } };
  await assertMatchesApi(page, regional, [regionFilter, measureFilter], ['W1', 'W2']);

  await page.click('a[data-page-key="K3"]');
  await page.waitForSelector('[data-visualization-key="W3"]');
  await visualizationsReady(page);
  const before = await shownVisualization(page, 'W3');
  const value = await page.$('[data-selector-key="W12"] input[name=value]');
  await value.click({ clickCount: 3 });
  await value.type('0.32');
  await redrawnBy(page, ['W3'], () => page.click('[data-selector-key="W12"] [data-action="apply"]'));
  const marginFilter = { key: 'W12', currentSelection: { selectionStatus: 'included', values: ['0.32'] } };
  await assertMatchesApi(page, regional, [regionFilter, measureFilter, marginFilter], ['W3']);
  assert.ok((await shownVisualization(page, 'W3')).rows.length < before.rows.length);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an excluding element list on the canvas (Customer Segment) can be turned into an including one', async () => {
  const page = await openDashboard(regional);
  const education = (await elementsOf(regional, 'W13')).find((e) => e.name === 'Education');
  assert.equal(await page.$eval('[data-selector-key="W13"] input[name=exclude]', (input) => input.checked), true);
  await redrawnBy(page, ['W2'], () => page.click('[data-selector-key="W13"] input[name=exclude]'));
  await assertMatchesApi(page, regional, [{ key: 'W13', currentSelection: { selectionStatus: 'included', elements: [{ id: education.id }] } }], ['W2']);
  assert.deepEqual(page.visualizationReads, ['W2']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a refused filter shows the API message on the selector and changes nothing', async () => {
  const page = await openDashboard(sales);
  const before = await shownVisualization(page, 'W5');
  await page.type('[data-selector-key="W12"] input[name=value]', 'lots');
  await page.click('[data-selector-key="W12"] [data-action="apply"]');
  await page.waitForFunction(() => document.querySelector('[data-selector-key="W12"] .selector-message').textContent.length > 0);
  assert.deepEqual(page.visualizationReads, []);
  assert.deepEqual(await shownVisualization(page, 'W5'), before);
  // The refused PUT is a 400 the browser reports on its console; nothing else may be there.
  assert.deepEqual(page.errors.filter((e) => !e.includes('status of 400')), []);
  await page.close();
});
