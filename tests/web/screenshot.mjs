// Takes the README's screenshot of a demo dashboard with the browser tests' set-up:
//   node tests/web/screenshot.mjs [docs/library-sales-overview.png]
// Starts its own server (fresh demo of 100,000 rows), logs in, opens the Sales Overview and
// waits for every visualization before taking the picture.
import path from 'node:path';
import {
  Api, launchBrowser, logIn, newPage, repository, startServer, visualizationsReady,
} from './support.mjs';

const output = path.resolve(process.argv[2] || path.join(repository, 'docs', 'library-sales-overview.png'));
const server = await startServer();
const browser = await launchBrowser();
try {
  const api = await new Api(server.url).login();
  await api.publishCubes();
  const dashboard = await api.find('Sales Overview', 55);
  const page = await newPage(browser);
  await page.setViewport({ width: 1360, height: 900 });
  await logIn(page, server.url, `/app/${api.project}/${dashboard.id}`);
  await page.waitForSelector('[data-visualization-key]');
  await visualizationsReady(page);
  await page.screenshot({ path: output });
  if (page.errors.length) throw new Error(page.errors.join('\n'));
  console.log(`wrote ${output}`);
} finally {
  await browser.close();
  await server.stop();
}
