'use strict';
// The JS API of crawlgate: parsing, decisions, records, diagnostics, fromResponse's status
// rules and edge refusals, page directives, and both entry points (CommonJS and ESM).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const crawlgate = require('..');
const { Robots, pageDirectives, robotsTxtUrl } = crawlgate;
const { REPO } = require('./helpers.js');

const BODY = [
  'User-agent: *', // 1
  'Disallow: /private/', // 2
  'Allow: /private/open', // 3
  'Crawl-delay: 2', // 4
  'Request-rate: 3/1m', // 5
  'Content-Usage: train-ai=n', // 6
  'Content-Signal: search=yes, ai-train=no', // 7
  '', // 8
  'User-agent: ExampleBot', // 9
  'Disallow: /', // 10
  '', // 11
  'Sitemap: https://example.com/sitemap.xml', // 12
  'License: https://example.com/license.xml', // 13
  'Host: example.com', // 14
  'Dissallow: /typo', // 15
].join('\n');

test('parse, isAllowed and check with line, rule and reason', () => {
  const robots = Robots.parse(BODY);
  assert.equal(robots.mode, 'rfc');
  assert.equal(robots.verdict, 'rules');
  assert.equal(robots.isAllowed('https://example.com/private/x', 'MyBot'), false);
  assert.equal(robots.isAllowed('https://example.com/private/open', 'MyBot/1.0 (+https://x)'), true);
  assert.equal(robots.isAllowed('/public', 'ExampleBot'), false);
  // Many URLs in one call: the same answers, in order.
  const urls = ['https://example.com/private/x', '/private/open', '/public', 'https://example.com/'];
  assert.deepEqual(robots.isAllowedMany(urls, 'MyBot'), urls.map((u) => robots.isAllowed(u, 'MyBot')));
  assert.deepEqual(robots.isAllowedMany(urls, 'MyBot'), [false, true, true, true]);
  assert.deepEqual(robots.isAllowedMany([], 'MyBot'), []);
  const d = robots.check('https://example.com/private/x', 'MyBot');
  assert.deepEqual(d, {
    allowed: false,
    group: 'star',
    reason: 'rule',
    line: 2,
    rule: { kind: 'disallow', line: 2, text: 'Disallow: /private/', pattern: '/private/', indexHtml: false },
  });
  const none = robots.check('/public', 'MyBot');
  assert.equal(none.allowed, true);
  assert.equal(none.reason, 'no-matching-rule');
  assert.equal(none.line, undefined);
  assert.equal(robots.check('/x', 'ExampleBot').group, 'token');
  assert.equal(robots.ruleCount, 4);
  assert.equal(robots.bytesUsed, Buffer.byteLength(BODY));
});

test('crawl-delay, request rate, sitemaps, host and other records', () => {
  const robots = Robots.parse(BODY);
  assert.equal(robots.crawlDelay('MyBot'), 2);
  assert.equal(robots.crawlDelay('ExampleBot'), null);
  assert.deepEqual(robots.requestRate('MyBot'), { requests: 3, seconds: 60, delay: 20 });
  assert.equal(robots.requestRate('ExampleBot'), null);
  assert.deepEqual(robots.sitemaps, ['https://example.com/sitemap.xml']);
  assert.equal(robots.host, 'example.com');
  const keys = robots.records.map((r) => `${r.key}@${r.line}`);
  assert.deepEqual(keys, ['crawl-delay@4', 'request-rate@5', 'host@14']);
  assert.equal(robots.records[0].value, '2');
});

test('Content-Usage, Content-Signal and License records', () => {
  const robots = Robots.parse(BODY);
  const [usage] = robots.contentUsage;
  assert.equal(usage.line, 6);
  assert.equal(usage.trainAi, 'disallowed');
  assert.equal(usage.search, 'unknown');
  const [signal] = robots.contentSignals;
  assert.equal(signal.line, 7);
  assert.equal(signal.search, 'allowed');
  assert.equal(signal.aiTrain, 'disallowed');
  assert.equal(signal.aiInput, 'unknown');
  assert.deepEqual(robots.licenses, [{ url: 'https://example.com/license.xml', line: 13 }]);
  const u = robots.usage('https://example.com/page', 'MyBot');
  assert.deepEqual(u, { allowed: true, trainAi: 'disallowed', search: 'unknown', lines: [6] });
  // Not crawlable: no preferences.
  assert.equal(robots.usage('/private/x', 'MyBot').trainAi, 'unknown');
});

test('diagnostics carry their codes, lines and byte spans', () => {
  const robots = Robots.parse(BODY);
  const typo = robots.diagnostics.find((d) => d.code === 'misspelled-key');
  assert.ok(typo, JSON.stringify(robots.diagnostics));
  assert.equal(typo.line, 15);
  assert.equal(typo.severity, 'warning');
  assert.equal(Buffer.from(BODY).subarray(typo.start, typo.end).toString().length > 0, true);
  assert.equal(Robots.parse(BODY, { diagnostics: false }).diagnostics.length, 0);
});

test('every diagnostics fixture gives exactly the codes and lines it expects', () => {
  const dir = path.join(REPO, 'testdata', 'diagnostics');
  let files = 0;
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.txt'))) {
    const bytes = fs.readFileSync(path.join(dir, name));
    const text = bytes.toString('latin1');
    // Fixtures of the audit's lint need the crawler catalogue, which the JS API does not run.
    if (text.startsWith('# catalogue: builtin\n')) continue;
    const mode = /^# mode: google$/m.test(text) ? 'google' : 'rfc';
    const want = [...text.matchAll(/^# expect: (\S+) (\d+)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    const got = [...new Set(Robots.parse(bytes, { mode }).diagnostics.map((d) => `${d.code} ${d.line}`))].sort();
    assert.deepEqual(got, [...new Set(want)].sort(), name);
    files++;
  }
  assert.ok(files >= 30, `only ${files} fixtures`);
});

test('google mode takes any agent string; rfc mode refuses one with no token', () => {
  const robots = Robots.parse('User-agent: foo bar\nDisallow: /\n', { mode: 'google' });
  assert.equal(robots.mode, 'google');
  assert.equal(typeof robots.isAllowed('/x', 'Foo Bar'), 'boolean');
  assert.throws(() => Robots.parse('').isAllowed('/x', ''), { code: 'InvalidArg' });
  assert.throws(() => Robots.parse('', { mode: 'yandex' }), { code: 'InvalidArg', message: /yandex/ });
});

test('toRobotsTxt writes the rules back', () => {
  const again = Robots.parse(Robots.parse(BODY).toRobotsTxt());
  assert.equal(again.isAllowed('/private/x', 'MyBot'), false);
  assert.equal(again.isAllowed('/private/open', 'MyBot'), true);
});

test('fromResponse applies the status rules and edge refusals', () => {
  const from = (status, headers, body) => Robots.fromResponse({ status, headers, body });
  const ok = from(200, [['content-type', 'text/plain']], 'User-agent: *\nDisallow: /a\n');
  assert.equal(ok.verdict, 'rules');
  assert.equal(ok.reason, 'fetched');
  assert.equal(ok.isAllowed('/a', 'MyBot'), false);
  assert.equal(ok.isAllowed('/b', 'MyBot'), true);

  for (const status of [404, 410, 403, 301]) {
    const r = from(status, {}, 'User-agent: *\nDisallow: /\n');
    assert.equal(r.verdict, 'allow-all', String(status));
    assert.equal(r.reason, 'no-robots-txt');
    assert.equal(r.isAllowed('/a', 'MyBot'), true);
    assert.deepEqual(r.check('/a', 'MyBot'), { allowed: true, group: 'none', reason: 'allow-all' });
  }
  for (const status of [429, 500, 503, 599]) {
    const r = from(status, {}, '');
    assert.equal(r.verdict, 'disallow-all', String(status));
    assert.equal(r.reason, 'unreachable');
    assert.equal(r.isAllowed('/a', 'MyBot'), false);
    assert.equal(r.check('/a', 'MyBot').reason, 'disallow-all');
  }
  // A challenge, whatever its status, is no "no robots.txt" and no rules.
  for (const status of [200, 403]) {
    const r = from(status, { 'cf-mitigated': 'challenge' }, 'User-agent: *\nAllow: /\n');
    assert.equal(r.verdict, 'disallow-all', `challenge at ${status}`);
    assert.match(r.message, /challenge/);
  }
  const pay = from(402, { 'crawler-price': 'USD 0.01' }, '');
  assert.equal(pay.verdict, 'disallow-all');
  assert.equal(pay.reason, 'payment-required');
  // An HTML page at 200: parsed, as RFC 9309 says (and flagged), or unreachable on request.
  const html = '<!doctype html><html><body>Are you a robot?</body></html>';
  const parsed = from(200, { 'content-type': 'text/html' }, html);
  assert.equal(parsed.verdict, 'rules');
  assert.equal(parsed.html, true);
  const wall = Robots.fromResponse({ status: 200, headers: { 'content-type': 'text/html' }, body: html }, { html: 'unreachable' });
  assert.equal(wall.verdict, 'disallow-all');
  assert.equal(wall.html, true);
  // A missing body at 200 is an empty file.
  assert.equal(Robots.fromResponse({ status: 200 }).isAllowed('/x', 'MyBot'), true);
  assert.throws(() => Robots.fromResponse({ status: 42 }), { code: 'InvalidArg' });
  assert.throws(() => Robots.fromResponse({ status: 200, headers: [['a']] }), { code: 'InvalidArg' });
});

test('page directives from X-Robots-Tag and meta robots', () => {
  const page = pageDirectives(
    [['X-Robots-Tag', 'mybot: noindex'], ['x-robots-tag', 'otherbot: nofollow']],
    '<html><head><meta name="robots" content="noarchive"></head></html>',
    'MyBot/1.0',
  );
  assert.equal(page.index, false);
  assert.equal(page.follow, true);
  assert.equal(page.archive, false);
  assert.deepEqual(page.sources.map((s) => [s.kind, s.agent, s.raw]), [['header', 'mybot', 'noindex'], ['meta', undefined, 'noarchive']]);
  const plain = pageDirectives({}, null, 'MyBot');
  assert.equal(plain.index, true);
  assert.equal(plain.follow, true);
});

test('robotsTxtUrl', () => {
  assert.equal(robotsTxtUrl('https://user:pw@Example.com:443/a?b#c'), 'https://example.com/robots.txt');
  assert.throws(() => robotsTxtUrl('ftp://example.com/'), { code: 'InvalidArg' });
});

test('the ES module entry point exports the same API', async () => {
  const esm = await import('../index.mjs');
  assert.equal(esm.Robots, Robots);
  assert.equal(esm.default.Robots, Robots);
  assert.equal(typeof esm.RobotsCache.open, 'function');
  const rp = await import('../robots-parser.mjs');
  assert.equal(typeof rp.default, 'function');
  assert.equal(rp.default('https://a.example/robots.txt', 'User-agent: *\nDisallow: /x').isAllowed('https://a.example/x', 'bot'), false);
});

test('the package exports resolve by name', () => {
  const pkg = require('../package.json');
  for (const entry of ['.', './robots-parser', './crawlee']) {
    const target = pkg.exports[entry];
    for (const kind of ['types', 'import', 'require']) {
      assert.ok(fs.existsSync(path.join(__dirname, '..', target[kind])), `${entry} ${kind}: ${target[kind]}`);
    }
  }
});

test('isAllowed answers alike on the first call and the later ones (the handle path)', () => {
  const objects = [
    Robots.parse(BODY),
    Robots.parse(BODY, { mode: 'google' }),
    Robots.fromResponse({ status: 503 }),
    Robots.fromResponse({ status: 404 }),
    Robots.allowAll(),
  ];
  const urls = ['https://example.com/private/x', '/private/open', '/public', '/x', '/'];
  for (const robots of objects) {
    for (const agent of ['MyBot', 'ExampleBot', 'MyBot']) {
      const expected = urls.map((u) => robots.check(u, agent).allowed);
      for (let round = 0; round < 3; round++) {
        assert.deepEqual(urls.map((u) => robots.isAllowed(u, agent)), expected, `${robots.verdict} ${agent} round ${round}`);
        assert.deepEqual(robots.isAllowedMany(urls, agent), expected);
      }
    }
    // A bad agent throws on either path.
    if (robots.mode === 'rfc') {
      assert.throws(() => robots.isAllowed('/x', ''), { code: 'InvalidArg' });
      assert.throws(() => robots.isAllowedMany(['/x'], ''), { code: 'InvalidArg' });
    }
  }
  assert.deepEqual(objects[2].isAllowedMany(urls, 'MyBot'), urls.map(() => false));
  // Not a Robots: a clear error, not a crash.
  assert.throws(() => Robots.prototype.isAllowed.call({}, '/x', 'MyBot'), Error);
});
