// The API reference page at /api-docs in a real browser: it lists every operation of the OpenAPI
// document the server serves, its filter narrows the list, and an operation opens to show its
// parameters and responses.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, startServer } from './support.mjs';

const methods = ['get', 'head', 'post', 'put', 'patch', 'delete'];

let server;
let browser;
let documented;

before(async () => {
  server = await startServer({ rows: 1000 });
  browser = await launchBrowser();
  const response = await fetch(`${server.url}/api-docs/openapi.json`);
  assert.equal(response.status, 200);
  const spec = await response.json();
  documented = Object.entries(spec.paths).flatMap(([path, item]) => methods
    .filter((method) => item[method])
    .map((method) => ({ key: `${method.toUpperCase()} ${path}`, operation: item[method] })));
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const shownOperations = (page) => page.$$eval('details.op[data-text]:not([hidden])', (views) =>
  views.map((view) => `${view.querySelector('.method').textContent} ${view.querySelector('.path').textContent}`));

async function openReference() {
  const page = await newPage(browser);
  await page.goto(`${server.url}/api-docs`);
  await page.waitForFunction((count) => document.querySelectorAll('details.op[data-text]').length === count,
    {}, documented.length);
  return page;
}

test('/api-docs lists every operation of the document, once', async () => {
  assert.ok(documented.length > 100, `only ${documented.length} operations documented`);
  const page = await openReference();
  const shown = await shownOperations(page);
  assert.deepEqual([...shown].sort(), documented.map((op) => op.key).sort());
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the filter keeps the operations whose method, path or summary has the text', async () => {
  const page = await openReference();
  await page.type('#filter', 'Cubes/{cubeId}');
  const wanted = documented
    .filter((op) => `${op.key} ${op.operation.summary || ''}`.toLowerCase().includes('cubes/{cubeid}'))
    .map((op) => op.key).sort();
  assert.ok(wanted.length >= 4);
  await page.waitForFunction((count) =>
    document.querySelectorAll('details.op[data-text]:not([hidden])').length === count, {}, wanted.length);
  assert.deepEqual((await shownOperations(page)).sort(), wanted);
  await page.$eval('#filter', (input) => { input.value = ''; input.dispatchEvent(new Event('input')); });
  assert.equal((await shownOperations(page)).length, documented.length);
  await page.close();
});

test('an operation opens to its parameters and responses', async () => {
  const page = await openReference();
  const publish = documented.find((op) => op.key === 'POST /api/cubes/{cubeId}');
  assert.ok(publish, 'the cube publish is documented');
  const view = await page.evaluateHandle(() => [...document.querySelectorAll('details.op[data-text]')]
    .find((v) => v.dataset.text.startsWith('post /api/cubes/{cubeid} ')));
  await view.asElement().$eval('summary', (summary) => summary.click());
  const opened = await view.asElement().evaluate((v) => ({
    open: v.open,
    parameters: [...v.querySelectorAll('table tr td:first-child')].map((cell) => cell.textContent),
    statuses: [...v.querySelectorAll('.body > div > strong')].map((s) => s.textContent.trim()),
  }));
  assert.equal(opened.open, true);
  assert.ok(opened.parameters.includes('cubeId'), opened.parameters.join(', '));
  assert.deepEqual(opened.statuses, Object.keys(publish.operation.responses));
  assert.deepEqual(page.errors, []);
  await page.close();
});
