// Login, the Library home and its search, reports and cubes as paged grids, logout, and the end
// of a session: back to the login page, then back to where the user was.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Api, launchBrowser, logIn, newPage, startServer, visualizationsReady,
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

const linkIds = (page, attribute) => page.$$eval(`[${attribute}]`, (links, name) =>
  links.map((link) => link.getAttribute(name)).sort(), attribute);

test('the app asks for a login, refuses a wrong password and shows the Library after a right one', async () => {
  const page = await newPage(browser);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('input[name=username]');
  assert.equal(new URL(page.url()).pathname, '/app/login');
  await page.type('input[name=username]', 'administrator');
  await page.type('input[name=password]', 'wrong');
  await page.click('form button[type=submit]');
  await page.waitForFunction(() => document.querySelector('form .error').textContent.length > 0);
  assert.match(await page.$eval('form .error', (e) => e.textContent), /Wrong username or password/);
  await page.$eval('input[name=password]', (input) => { input.value = ''; });
  await page.click('form button[type=submit]');
  await page.waitForSelector('[data-dashboard-id]');
  assert.equal(new URL(page.url()).pathname, '/app');
  // The failed login is a 401 the browser reports on its console; nothing else may be there.
  assert.deepEqual(page.errors.filter((e) => !e.includes('status of 401')), []);
  await page.close();
});

test('the Library lists the dashboards, reports and cubes of the project and searches them by name', async () => {
  const page = await newPage(browser);
  await logIn(page, server.url);
  await page.waitForSelector('[data-dashboard-id]');
  const found = (await api.json('GET', '/api/searches/results?type=55&type=3&limit=1000')).result;
  const ids = (test) => found.filter(test).map((item) => item.id).sort();
  assert.deepEqual(await linkIds(page, 'data-dashboard-id'), ids((item) => item.type === 55));
  assert.deepEqual(await linkIds(page, 'data-report-id'), ids((item) => item.type === 3 && item.subtype !== 776));
  assert.deepEqual(await linkIds(page, 'data-cube-id'), ids((item) => item.subtype === 776));
  await page.type('input[name=search]', 'regional');
  const regional = await api.find('Regional Performance', 55);
  await page.waitForFunction(() => document.querySelectorAll('[data-dashboard-id]').length === 1);
  assert.deepEqual(await linkIds(page, 'data-dashboard-id'), [regional.id]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a cube opens as a paged grid whose next pages come from the same instance', async () => {
  const page = await newPage(browser);
  const cube = await api.find('Sales Cube', 3);
  await logIn(page, server.url);
  await page.waitForSelector(`[data-cube-id="${cube.id}"]`);
  await page.click(`[data-cube-id="${cube.id}"]`);
  await page.waitForSelector('[data-dataset-id][data-state=ready]');
  const rows = () => page.$$eval('[data-dataset-id] table tbody tr', (all) => all.map((row) => [...row.cells].map((c) => c.textContent)));
  const first = await rows();
  assert.equal(first.length, 200);
  const independent = await api.json('POST', `/api/v2/cubes/${cube.id}/instances?offset=0&limit=400`, { body: {} });
  const expectedRow = (result, i) => {
    const grid = result.definition.grid;
    return [
      ...grid.rows.map((attribute, level) => {
        const element = attribute.elements[result.data.headers.rows[i][level]];
        const descriptions = attribute.forms.map((form, f) => (form.baseFormCategory === 'DESC' ? element.formValues[f] : null)).filter((v) => v !== null);
        return (descriptions.length ? descriptions : element.formValues).join(' ');
      }),
      ...result.data.metricValues.formatted[i],
    ];
  };
  assert.deepEqual(first[0], expectedRow(independent, 0));
  assert.match(await page.$eval('.rows-status', (e) => e.textContent), new RegExp(`^200 of ${independent.data.paging.total} rows`));
  const nextPage = page.waitForResponse((response) => /\/instances\/[0-9A-F]{32}\?offset=200/.test(response.url()));
  // A click in the page itself: puppeteer's click would first scroll the button into view, which
  // lets the grid's own observer fetch the page and replace the button before the click lands.
  await page.$eval('[data-dataset-id] [data-action="more-rows"]', (button) => button.click());
  await nextPage;
  await page.waitForFunction(() => document.querySelectorAll('[data-dataset-id] table tbody tr').length >= 400);
  const more = await rows();
  assert.deepEqual(more[399], expectedRow(independent, 399));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a report opens as a grid with every row the API returns', async () => {
  const page = await newPage(browser);
  const report = await api.find('Quarterly Sales by Channel', 3);
  await logIn(page, server.url, `/app/${api.project}/reports/${report.id}`);
  await page.waitForSelector('[data-dataset-id][data-state=ready]');
  const independent = await api.json('POST', `/api/v2/reports/${report.id}/instances?limit=1000`, { body: {} });
  const cells = await page.$$eval('[data-dataset-id] table tbody tr', (all) => all.map((row) => [...row.querySelectorAll('td')].map((c) => c.textContent)));
  assert.deepEqual(cells, independent.data.metricValues.formatted);
  assert.equal(await page.$eval('h2', (e) => e.textContent), 'Quarterly Sales by Channel');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('logging out ends the session and leads to the login page', async () => {
  const page = await newPage(browser);
  await logIn(page, server.url);
  await page.waitForSelector('[data-dashboard-id]');
  const token = await page.evaluate(() => sessionStorage.getItem('tessera.authToken'));
  await page.click('[data-action="logout"]');
  await page.waitForSelector('input[name=username]');
  const response = await fetch(`${server.url}/api/sessions`, { headers: { 'X-MSTR-AuthToken': token } });
  assert.equal(response.status, 401);
  await page.goto(`${server.url}/app`);
  await page.waitForSelector('input[name=username]');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('when the session ends, the app asks for a login and then returns to the dashboard page the user was on', async () => {
  const page = await newPage(browser);
  const dashboard = await api.find('Sales Overview', 55);
  await logIn(page, server.url, `/app/${api.project}/${dashboard.id}/K1/K3`);
  await page.waitForSelector('[data-visualization-key="W7"]');
  await visualizationsReady(page);
  // The server ends the session, as an idle timeout does: every later call answers 401 ERR009.
  const token = await page.evaluate(() => sessionStorage.getItem('tessera.authToken'));
  await fetch(`${server.url}/api/auth/logout`, { method: 'POST', headers: { 'X-MSTR-AuthToken': token } });
  await page.click('a[data-page-key="K2"]');
  await page.waitForSelector('input[name=username]');
  const url = new URL(page.url());
  assert.equal(url.pathname, '/app/login');
  assert.equal(url.searchParams.get('next'), `/app/${api.project}/${dashboard.id}/K1/K2`);
  assert.ok(await page.$('.notice'));
  await page.type('input[name=username]', 'administrator');
  await page.click('form button[type=submit]');
  await page.waitForSelector('[data-visualization-key="W1"]');
  await visualizationsReady(page);
  assert.equal(new URL(page.url()).pathname, `/app/${api.project}/${dashboard.id}/K1/K2`);
  // The calls refused with the ended session are 401s the browser reports on its console.
  assert.deepEqual(page.errors.filter((e) => !e.includes('status of 401')), []);
  await page.close();
});

test('the session idle timeout of the server sends the user to the login page too', async () => {
  // Long enough that a slow sanitizer build on a busy machine never idles while the Library loads.
  const idleSeconds = 4;
  const short = await startServer({ rows: 2000, extra: ['--session-idle-timeout', String(idleSeconds)] });
  try {
    const page = await newPage(browser);
    let lastCall = Date.now();
    page.on('requestfinished', () => { lastCall = Date.now(); });
    await logIn(page, short.url);
    await page.waitForSelector('[data-dashboard-id]');
    await page.waitForNetworkIdle();
    // The condition is the idle time itself: no call from the page for longer than the timeout.
    while (Date.now() - lastCall <= idleSeconds * 1000 + 500) {
      await new Promise((resolve) => { setTimeout(resolve, 100); });
    }
    await page.type('input[name=search]', 'sales');
    await page.waitForSelector('input[name=username]');
    assert.equal(new URL(page.url()).searchParams.get('next'), '/app');
    assert.ok(await page.$('.notice'));
    assert.deepEqual(page.errors.filter((e) => !e.includes('status of 401')), []);
    await page.close();
  } finally {
    await short.stop();
  }
});
