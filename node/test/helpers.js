'use strict';
// Test helpers: a local test site (real HTTP on 127.0.0.1, random port) that logs every
// request's arrival time, and a real redis-server on a random port in a temporary directory.
const http = require('node:http');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const { spawn, execFileSync } = require('node:child_process');

/**
 * Starts a site. `robots` is `{status, body, headers}` for /robots.txt; every other path
 * answers 200 with a small HTML page linking to `links(path)` (default none).
 */
async function startSite({ robots, links = () => [], pageStatus = () => 200 } = {}) {
  const arrivals = [];
  const server = http.createServer((req, res) => {
    arrivals.push({ path: req.url, at: performance.now(), agent: req.headers['user-agent'] });
    if (req.url === '/robots.txt') {
      res.writeHead(robots.status, { 'content-type': 'text/plain', ...(robots.headers || {}) });
      res.end(robots.body || '');
      return;
    }
    const status = pageStatus(req.url);
    const hrefs = links(req.url).map((l) => `<a href="${l}">${l}</a>`).join('\n');
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><title>${req.url}</title></head><body>${hrefs}</body></html>`);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    pages: () => arrivals.filter((a) => a.path !== '/robots.txt'),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts redis-server on a random port (fails when it is not installed). */
async function startRedis() {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('redis-server not found: install it (apt-get install redis-server); scripts/node-test.sh does');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlgate-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const deadline = Date.now() + 10000;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      c.once('connect', () => { c.end(); resolve(true); });
      c.once('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) { child.kill(); throw new Error('redis-server did not start'); }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => {
      child.once('exit', () => { fs.rmSync(dir, { recursive: true, force: true }); resolve(); });
      child.kill();
    }),
  };
}

/** Gaps in seconds between consecutive arrival times (ms). */
function gaps(arrivals) {
  const out = [];
  for (let i = 1; i < arrivals.length; i++) out.push((arrivals[i].at - arrivals[i - 1].at) / 1000);
  return out;
}

const REPO = path.resolve(__dirname, '..', '..');

module.exports = { startSite, startRedis, freePort, gaps, REPO };
