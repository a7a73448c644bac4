'use strict';
// RobotsCache from Node against a local site: check, acquire and record, the failure ladder
// (503 → nothing fetched), backoff, and the file and Redis stores.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { RobotsCache, Disallowed } = require('..');
const { startSite, startRedis } = require('./helpers.js');

const RULES = 'User-agent: *\nDisallow: /private/\nCrawl-delay: 0.1\nSitemap: https://example.com/s.xml\n';

test('check answers from robots.txt, fetched once per origin', async (t) => {
  const site = await startSite({ robots: { status: 200, body: RULES } });
  t.after(site.close);
  const cache = await RobotsCache.open({ agent: 'TestBot/1.0', defaultDelay: 0 });
  const no = await cache.check(`${site.url}/private/x`);
  assert.equal(no.allowed, false);
  assert.equal(no.line, 2);
  assert.equal(no.rule, 'Disallow: /private/');
  assert.equal(no.kind, 'disallow');
  assert.equal(no.reason, 'fetched');
  assert.equal(no.crawlDelay, 0.1);
  assert.deepEqual(no.sitemaps, ['https://example.com/s.xml']);
  const yes = await cache.check(`${site.url}/public`);
  assert.equal(yes.allowed, true);
  assert.equal(yes.origin, site.url);
  assert.equal(site.arrivals.filter((a) => a.path === '/robots.txt').length, 1);
  assert.equal(site.arrivals[0].agent, 'TestBot/1.0');
});

test('acquire gives permits, throws Disallowed, and record backs off on 503', async (t) => {
  const site = await startSite({ robots: { status: 200, body: RULES } });
  t.after(site.close);
  const cache = await RobotsCache.open({ agent: 'TestBot', defaultDelay: 0, backoffBase: 30 });
  const permit = await cache.acquire(`${site.url}/a`);
  assert.equal(permit.granted, true);
  assert.equal(permit.delaySource, 'crawl-delay');
  assert.equal(permit.delay, 0.1);
  assert.equal(permit.key, site.url);
  const recorded = await permit.record(503, '7');
  assert.deepEqual(recorded, { kind: 'backed-off', backoff: 7 });
  assert.equal(permit.active, false);
  await assert.rejects(() => permit.record(200), /already recorded/);
  await assert.rejects(() => cache.acquire(`${site.url}/private/x`), (e) => {
    assert.ok(e instanceof Disallowed);
    assert.equal(e.code, 'ERR_CRAWLGATE_DISALLOWED');
    assert.equal(e.answer.line, 2);
    return true;
  });
});

test('robots.txt answering 503: disallow all, and no page is fetched', async (t) => {
  const site = await startSite({ robots: { status: 503 } });
  t.after(site.close);
  const cache = await RobotsCache.open({ agent: 'TestBot', defaultDelay: 0 });
  const answer = await cache.check(`${site.url}/page`);
  assert.equal(answer.allowed, false);
  assert.equal(answer.reason, 'unreachable');
  await assert.rejects(() => cache.acquire(`${site.url}/page`), Disallowed);
  assert.deepEqual(site.pages(), []);
});

test('the file store keeps robots.txt across processes (one fetch)', async (t) => {
  const site = await startSite({ robots: { status: 200, body: RULES } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlgate-node-'));
  t.after(async () => { await site.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  const state = path.join(dir, 'state.redb');
  {
    const cache = await RobotsCache.open({ agent: 'TestBot', state });
    assert.equal((await cache.check(`${site.url}/private/x`)).allowed, false);
    await cache.flush();
    assert.equal(cache.location, state);
    await cache.close();
    await cache.close();
    await assert.rejects(() => cache.check(`${site.url}/x`), /closed/);
  }
  // Another process opens the file after.
  const script = `
    const { RobotsCache } = require(${JSON.stringify(path.resolve(__dirname, '..'))});
    (async () => {
      const cache = await RobotsCache.open({ agent: 'TestBot', state: ${JSON.stringify(state)} });
      const a = await cache.check(${JSON.stringify(`${site.url}/private/x`)});
      process.stdout.write(JSON.stringify(a));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const out = await new Promise((resolve, reject) => {
    const { execFile } = require('node:child_process');
    execFile(process.execPath, ['-e', script], { timeout: 30000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)));
  });
  assert.equal(JSON.parse(out).allowed, false);
  assert.equal(site.arrivals.filter((a) => a.path === '/robots.txt').length, 1);
});

test('two caches on one redis-server fetch robots.txt once and share one schedule', async (t) => {
  const site = await startSite({ robots: { status: 200, body: 'User-agent: *\nDisallow: /x\nCrawl-delay: 0.3\n' } });
  const redis = await startRedis();
  t.after(async () => { await site.close(); await redis.stop(); });
  const a = await RobotsCache.open({ agent: 'TestBot', state: redis.url, redisPrefix: 'cg-test' });
  const b = await RobotsCache.open({ agent: 'TestBot', state: redis.url, redisPrefix: 'cg-test' });
  assert.equal((await a.check(`${site.url}/x`)).allowed, false);
  assert.equal((await b.check(`${site.url}/x`)).allowed, false);
  assert.equal(site.arrivals.filter((r) => r.path === '/robots.txt').length, 1);
  const p1 = await a.acquire(`${site.url}/1`);
  await p1.record(200);
  const p2 = await b.acquire(`${site.url}/2`);
  await p2.record(200);
  // b waited for a's slot: the spacing is the fleet's.
  assert.ok(p1.waited + p2.waited >= 0.25, `waited ${p1.waited} + ${p2.waited}`);
});
