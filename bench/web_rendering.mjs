// The driver of bench/web_rendering.sh: in chromium, the time from clicking the Sales Overview in
// the Library to its first and to its last visualization drawn (the app's performance marks), with
// enableParallelRendering true and false in the instance creation, and the bytes of script the app
// loads. Prints medians; asserts nothing.
//   node bench/web_rendering.mjs ROWS DATA_DIR RUNS
import {
  Api, launchBrowser, logIn, newPage, startServer,
} from '../tests/web/support.mjs';

const [rows, dataDir, runs] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4] || 7)];
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const began = Date.now();
const server = await startServer({ rows, dataDir });
const browser = await launchBrowser();
try {
  const api = await new Api(server.url).login();
  const publishBegan = Date.now();
  await api.publishCubes(['Sales Cube', 'Item Sales Cube']);  // the Sales Overview's datasets
  console.log(`rows ${rows}: server up after ${((publishBegan - began) / 1000).toFixed(1)} s, cubes published after ${((Date.now() - publishBegan) / 1000).toFixed(1)} s more`);
  const dashboard = await api.find('Sales Overview', 55);
  const page = await newPage(browser);
  page.setDefaultTimeout(600000);
  await logIn(page, server.url);
  await page.waitForSelector('[data-dashboard-id]');

  // Bytes of script: a load of the dashboard with the browser cache off.
  await page.setCacheEnabled(false);
  await page.goto(`${server.url}/app/${api.project}/${dashboard.id}`);
  await page.waitForSelector('[data-visualization-key]');
  const scripts = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((entry) => entry.name.endsWith('.js'))
    .map((entry) => ({ name: new URL(entry.name).pathname, bytes: entry.decodedBodySize, transferred: entry.transferSize })));
  const inline = await page.evaluate(() => [...document.scripts].filter((s) => !s.src).reduce((sum, s) => sum + s.text.length, 0));
  await page.setCacheEnabled(true);

  // The instance creation is rewritten to ask for parallel rendering or not.
  let parallel = true;
  const cdp = await page.createCDPSession();
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*/api/dossiers/*/instances', requestStage: 'Request' }] });
  cdp.on('Fetch.requestPaused', ({ requestId, request }) => {
    const body = { ...JSON.parse(request.postData || '{}'), enableParallelRendering: parallel };
    cdp.send('Fetch.continueRequest', { requestId, postData: Buffer.from(JSON.stringify(body)).toString('base64') }).catch(() => {});
  });

  const openOnce = async () => {
    await page.goto(`${server.url}/app`);
    await page.waitForSelector(`[data-dashboard-id="${dashboard.id}"]`);
    const start = await page.evaluate((id) => {
      performance.clearMarks('tessera:visualization-ready');
      const t0 = performance.now();
      document.querySelector(`[data-dashboard-id="${id}"]`).click();
      return t0;
    }, dashboard.id);
    await page.waitForFunction(() => {
      const all = [...document.querySelectorAll('[data-visualization-key]')];
      return all.length > 0 && all.every((e) => e.dataset.state !== 'loading');
    }, { polling: 'mutation' });
    const marks = await page.evaluate(() => performance.getEntriesByName('tessera:visualization-ready').map((m) => m.startTime));
    return { first: Math.min(...marks) - start, last: Math.max(...marks) - start, count: marks.length };
  };

  for (const mode of [true, false]) {
    parallel = mode;
    await openOnce();  // warm-up
    const results = [];
    for (let i = 0; i < runs; i += 1) results.push(await openOnce());
    console.log(`rows ${rows}: enableParallelRendering=${String(mode).padEnd(5)} first visualization ${median(results.map((r) => r.first)).toFixed(0).padStart(6)} ms, last ${median(results.map((r) => r.last)).toFixed(0).padStart(6)} ms (median of ${runs}, ${results[0].count} visualizations)`);
  }
  const total = scripts.reduce((sum, s) => sum + s.bytes, 0);
  const chart = scripts.filter((s) => s.name.includes('/vendor/')).reduce((sum, s) => sum + s.bytes, 0);
  console.log(`script loaded: ${total + inline} bytes (chart library ${chart}, app modules ${total - chart} in ${scripts.length - 1} files, inline ${inline})`);
  if (page.errors.length) console.log(`page errors: ${page.errors.join('; ')}`);
} finally {
  await browser.close();
  await server.stop();
}
