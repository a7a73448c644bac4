'use strict';
// Bad input: wrong types, a 10 MB body, bytes that are not UTF-8, lone surrogates, NUL. Each
// gives a clear JS error or a right answer; the process never crashes.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Robots, RobotsCache, pageDirectives } = require('..');

test('wrong types are thrown as errors, not crashes', () => {
  for (const body of [42, {}, [1, 2], true, Symbol('x'), () => 1]) {
    assert.throws(() => Robots.parse(body), Error, String(typeof body));
  }
  assert.throws(() => Robots.parse(), Error);
  assert.throws(() => Robots.parse(null), Error);
  const robots = Robots.parse('User-agent: *\nDisallow: /a\n');
  assert.throws(() => robots.isAllowed(42, 'bot'), Error);
  assert.throws(() => robots.isAllowed('/a', 42), Error);
  assert.throws(() => robots.isAllowed('/a'), Error);
  assert.throws(() => robots.check({}, 'bot'), Error);
  assert.throws(() => robots.isAllowedMany('/a', 'bot'), Error);
  assert.throws(() => robots.isAllowedMany(['/a', 42], 'bot'), Error);
  assert.throws(() => Robots.parse('', { mode: 7 }), Error);
  assert.throws(() => Robots.parse('', { maxBytes: -1 }), Error);
  assert.throws(() => Robots.fromResponse({ status: 'ok' }), Error);
  assert.throws(() => Robots.fromResponse({ status: 200, headers: 5 }), Error);
  assert.throws(() => Robots.fromResponse(null), Error);
  assert.throws(() => pageDirectives(5, null, 'bot'), Error);
  // After all that, the module still answers.
  assert.equal(robots.isAllowed('/a', 'bot'), false);
});

test('RobotsCache.open rejects bad options with clear errors', async () => {
  await assert.rejects(() => RobotsCache.open(), TypeError);
  await assert.rejects(() => RobotsCache.open({}), Error);
  await assert.rejects(() => RobotsCache.open({ agent: '' }), { code: 'InvalidArg' });
  await assert.rejects(() => RobotsCache.open({ agent: 'bot', defaultDelay: -1 }), { message: /defaultDelay/ });
  await assert.rejects(() => RobotsCache.open({ agent: 'bot', maxConcurrency: 0 }), { message: /maxConcurrency/ });
  await assert.rejects(() => RobotsCache.open({ agent: 'bot', key: 'planet' }), { code: 'InvalidArg' });
  await assert.rejects(() => RobotsCache.open({ agent: 'bot', state: '' }), { code: 'InvalidArg' });
  const cache = await RobotsCache.open({ agent: 'bot' });
  await assert.rejects(() => cache.check('not a url'), { code: 'InvalidArg' });
  await assert.rejects(() => cache.acquire('mailto:a@b'), { code: 'InvalidArg' });
});

test('a 10 MB body is cut at the limit and reported', () => {
  const line = 'Disallow: /secret\n';
  const body = 'User-agent: *\n' + line.repeat(Math.ceil((10 * 1024 * 1024) / line.length));
  assert.ok(body.length >= 10 * 1024 * 1024);
  for (const input of [body, Buffer.from(body)]) {
    const robots = Robots.parse(input);
    assert.ok(robots.bytesUsed <= 512000, String(robots.bytesUsed));
    assert.ok(robots.diagnostics.some((d) => d.code === 'content-after-limit'));
    assert.equal(robots.isAllowed('/secret', 'bot'), false);
  }
  const big = Robots.fromResponse({ status: 200, body });
  assert.equal(big.isAllowed('/secret', 'bot'), false);
  assert.ok(big.bytesUsed <= 512000);
});

test('bytes that are not UTF-8 are reported and the rest of the file is read', () => {
  const body = Buffer.concat([
    Buffer.from('User-agent: *\nDisallow: /caf'),
    Buffer.from([0xe9, 0xff, 0xfe]),
    Buffer.from('\nDisallow: /after\n'),
  ]);
  const robots = Robots.parse(body);
  assert.ok(robots.diagnostics.some((d) => d.code === 'invalid-utf8'), JSON.stringify(robots.diagnostics));
  assert.equal(robots.isAllowed('/after', 'bot'), false);
  assert.equal(robots.isAllowed('/other', 'bot'), true);
  // A Uint8Array that is not a Buffer works the same way.
  assert.equal(Robots.parse(new Uint8Array(body)).isAllowed('/after', 'bot'), false);
});

test('lone surrogates become U+FFFD and never crash', () => {
  const robots = Robots.parse('User-agent: *\nDisallow: /a\uD800b\nDisallow: /c\n');
  assert.equal(robots.isAllowed('/c', 'bot'), false);
  // The surrogate is read as U+FFFD (percent-encoded as EF BF BD in the path).
  assert.equal(robots.isAllowed('/a\uFFFDb', 'bot'), false);
  assert.equal(typeof robots.isAllowed('/x\uDC00y', 'bot'), 'boolean');
  assert.throws(() => robots.isAllowed('/x', '\uD800'), { code: 'InvalidArg' });
});

test('NUL bytes in the body, the URL and the agent', () => {
  const robots = Robots.parse('User-agent: *\nDisallow: /a\0b\nDisallow: /c\n');
  assert.equal(robots.isAllowed('/c', 'bot'), false);
  assert.equal(typeof robots.isAllowed('/a\0b', 'bot'), 'boolean');
  assert.throws(() => robots.isAllowed('/x', '\0'), { code: 'InvalidArg' });
  const google = Robots.parse('User-agent: *\nDisallow: /c\n', { mode: 'google' });
  assert.equal(google.isAllowed('/c', 'a\0b'), false);
  const page = pageDirectives([['x-robots-tag', 'noindex\0']], '<meta name="robots" content="\0">', 'bot');
  assert.equal(typeof page.index, 'boolean');
});
