// The server's side of the web app over real HTTP: which paths give the app, how its files are
// answered (types, validators, 304), and that nothing outside the web folder can be reached.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { startServer } from './support.mjs';

let server;

before(async () => {
  server = await startServer({ rows: 1000 });
});

after(async () => {
  await server?.stop();
});

// fetch() normalises "..", so requests that must keep it are written by hand.
function rawGet(path) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk) => { text += chunk; });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

test('/, /app and every path under /app answer the app page', async () => {
  for (const path of ['/', '/app', '/app/', '/app/login', '/app/0123/4567/K1/K2']) {
    const response = await fetch(`${server.url}${path}`);
    assert.equal(response.status, 200, path);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(await response.text(), /<div id="app"/);
  }
});

test('assets come with their content type, an ETag and no-cache, and 304 while unchanged', async () => {
  const script = await fetch(`${server.url}/app/assets/js/main.js`);
  assert.equal(script.status, 200);
  assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(script.headers.get('cache-control'), 'no-cache');
  const etag = script.headers.get('etag');
  assert.ok(etag);
  const again = await fetch(`${server.url}/app/assets/js/main.js`, { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  const style = await fetch(`${server.url}/app/assets/app.css`);
  assert.equal(style.headers.get('content-type'), 'text/css; charset=utf-8');
});

test('the chart library is served by Tessera itself', async () => {
  const response = await fetch(`${server.url}/app/assets/vendor/chart.min.js`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.match(await response.text(), /Chart/);
});

test('a missing asset is a 404 in the API error shape', async () => {
  const response = await fetch(`${server.url}/app/assets/js/nothing.js`);
  assert.equal(response.status, 404);
  const body = await response.json();
  assert.equal(body.code, 'ERR004');
  assert.ok(body.message.length > 0);
  assert.ok(body.ticketId);
});

test('paths that try to leave the web folder are refused', async () => {
  for (const path of ['/app/assets/../index.html', '/app/assets/..%2F..%2FREADME.md',
    '/app/assets/%2e%2e/%2e%2e/README.md', '/app/assets/js/..%5C..%5Cindex.html']) {
    const answer = await rawGet(path);
    assert.match(answer, /^HTTP\/1\.1 404/, path);
    assert.match(answer, /"code":"ERR004"/, path);
  }
});

test('other methods than GET and HEAD on the app are refused like any known path', async () => {
  const response = await fetch(`${server.url}/app`, { method: 'POST' });
  assert.equal(response.status, 405);
  assert.equal((await response.json()).code, 'ERR001');
  const head = await fetch(`${server.url}/app/assets/app.css`, { method: 'HEAD' });
  assert.equal(head.status, 200);
});

test('the REST API keeps answering beside the app', async () => {
  const response = await fetch(`${server.url}/api/status`);
  assert.equal(response.status, 200);
  const unknown = await fetch(`${server.url}/apps`);
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).code, 'ERR004');
});
