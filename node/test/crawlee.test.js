'use strict';
// A real Crawlee crawl (HttpCrawler from npm) against a local test site, gated by
// `crawlgate/crawlee`: robots.txt 503 → no page fetched (where Crawlee's own robots handling
// fetches them); Crawl-delay: 1 → arrivals at least 1 s apart; two Crawlee processes on one
// redis-server keep one spacing between them.
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { HttpCrawler, Configuration, log, LogLevel } = require('@crawlee/http');
const { crawlgateHooks } = require('../crawlee.js');
const { startSite, startRedis, gaps } = require('./helpers.js');

const PAGES = ['/a', '/b', '/c', '/d'];
// The gate keeps slots exactly Crawl-delay apart; the request then goes through got, whose
// time from permit to socket varies (by up to a quarter of a second on a busy 2-core
// machine), so arrivals may come this much closer. A third of the spacing still tells one
// shared schedule from two of their own: two processes each spacing their own requests 1 s
// apart always put two requests at most 0.5 s apart somewhere (python/tests/test_scrapy_gate.py
// reasons the same way).
const JITTER = 1 / 3;

log.setLevel(LogLevel.WARNING);

function config() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlee-'));
  return new Configuration({ persistStorage: false, storageClientOptions: { localDataDirectory: dir } });
}

async function crawl(site, options) {
  const handled = [];
  const failed = [];
  const crawler = new HttpCrawler({
    maxRequestRetries: 0,
    maxConcurrency: 4,
    requestHandler: async ({ request }) => { handled.push(new URL(request.url).pathname); },
    failedRequestHandler: async ({ request }, error) => { failed.push([new URL(request.url).pathname, error.name]); },
    ...options,
  }, config());
  await crawler.run(PAGES.map((p) => `${site.url}${p}`));
  return { handled, failed };
}

function worker(site, state, paths) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'crawl-worker.js'), site.url, state, ...paths], { timeout: 60000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))));
  });
}

test('robots.txt 503: crawlgate requests no page; Crawlee\'s own robots handling requests them all', async (t) => {
  const ours = await startSite({ robots: { status: 503 } });
  const theirs = await startSite({ robots: { status: 503 } });
  t.after(async () => { await ours.close(); await theirs.close(); });

  const gate = await crawlgateHooks({ agent: 'CrawleeBot/1.0', defaultDelay: 0 });
  const gated = await crawl(ours, gate.crawlerOptions);
  assert.deepEqual(ours.pages(), [], 'no page requested while robots.txt answers 503');
  assert.deepEqual(gated.handled, []);
  assert.deepEqual(gated.failed.map((f) => f[1]).sort(), ['Disallowed', 'Disallowed', 'Disallowed', 'Disallowed']);

  const plain = await crawl(theirs, { respectRobotsTxtFile: true });
  assert.deepEqual(theirs.pages().map((a) => a.path).sort(), PAGES, 'Crawlee fetched every page');
  assert.deepEqual(plain.handled.sort(), PAGES);
});

test('Crawl-delay: 1 → arrivals at the site at least 1 s apart', async (t) => {
  const site = await startSite({ robots: { status: 200, body: 'User-agent: *\nCrawl-delay: 1\n' } });
  t.after(site.close);
  const gate = await crawlgateHooks({ agent: 'CrawleeBot/1.0' });
  const run = await crawl(site, gate.crawlerOptions);
  assert.deepEqual(run.handled.sort(), PAGES);
  const pages = site.pages();
  assert.equal(pages.length, PAGES.length);
  for (const g of gaps(pages)) assert.ok(g >= 1.0 - JITTER, `arrivals ${gaps(pages).map((x) => x.toFixed(3))}`);
});

test('two Crawlee processes on one redis-server keep one spacing', async (t) => {
  const site = await startSite({ robots: { status: 200, body: 'User-agent: *\nCrawl-delay: 1\n' } });
  const redis = await startRedis();
  t.after(async () => { await site.close(); await redis.stop(); });
  const [one, two] = await Promise.all([
    worker(site, redis.url, ['/1', '/2', '/3']),
    worker(site, redis.url, ['/4', '/5', '/6']),
  ]);
  assert.equal(one.handled.length + two.handled.length, 6, JSON.stringify([one, two]));
  const pages = site.pages();
  assert.equal(pages.length, 6);
  for (const g of gaps(pages)) assert.ok(g >= 1.0 - JITTER, `arrivals ${gaps(pages).map((x) => x.toFixed(3))}`);
  // One robots.txt fetch for the fleet.
  assert.equal(site.arrivals.filter((a) => a.path === '/robots.txt').length, 1);
});
