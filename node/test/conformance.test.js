'use strict';
// Google's 145 robots_test.cc cases (testdata/conformance) through the JS API, in both modes,
// as tests/it/conformance.rs runs them through the Rust API. In "google" mode each case's agent
// is passed as the plain string the case gives, as google/robotstxt's API takes it.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Robots } = require('..');
const { REPO } = require('./helpers.js');

const cases = JSON.parse(
  fs.readFileSync(path.join(REPO, 'testdata', 'conformance', 'google-robotstxt-unit.json'), 'utf8'),
).cases;

// `beyond_rfc` cases where mode "rfc" legitimately answers differently (tests/it/conformance.rs).
const RFC_DIVERGENCES = new Set([
  'ID_Encoding/03',
  'ID_Encoding/05',
  'ID_Encoding/06',
  'GoogleOnly_IndexHTMLisDirectory/01',
  'GoogleOnly_LineTooLong/02',
  'GoogleOnly_LineTooLong/05',
]);
// Agents with no product token: mode "rfc" refuses them (an empty agent is no crawler).
const NO_TOKEN = new Set(['', 'Foo Bar']);

function answer(c, mode) {
  const robots = Robots.parse(c.robots, { mode });
  const allowed = robots.isAllowed(c.url, c.agent);
  const d = robots.check(c.url, c.agent);
  assert.equal(d.allowed, allowed, `${c.name}: check and isAllowed agree`);
  // The bytes of the body give the same answer as the string.
  assert.equal(Robots.parse(Buffer.from(c.robots, 'utf8'), { mode }).isAllowed(c.url, c.agent), allowed);
  if (d.reason === 'rule') assert.equal(d.line, d.rule.line);
  else assert.equal(d.rule, undefined);
  return allowed;
}

test('there are 145 cases', () => {
  assert.equal(cases.length, 145);
});

test('google mode passes all 145 cases', () => {
  const failures = cases.filter((c) => answer(c, 'google') !== c.allowed).map((c) => c.name);
  assert.deepEqual(failures, []);
});

test('rfc mode passes the rfc cases and lists each divergence', () => {
  const unexpected = [];
  const diverged = new Set();
  let answered = 0;
  for (const c of cases) {
    if (NO_TOKEN.has(c.agent)) continue;
    answered++;
    if (answer(c, 'rfc') !== c.allowed) {
      diverged.add(c.name);
      if (!(c.beyond_rfc && RFC_DIVERGENCES.has(c.name))) unexpected.push(c.name);
    }
  }
  assert.equal(answered, 142);
  assert.deepEqual(unexpected, []);
  assert.deepEqual([...diverged].sort(), [...RFC_DIVERGENCES].sort(), 'stale or missing RFC_DIVERGENCES entries');
});

test('rfc mode refuses an agent with no product token', () => {
  const odd = cases.filter((c) => NO_TOKEN.has(c.agent));
  assert.equal(odd.length, 3);
  for (const c of odd) {
    const robots = Robots.parse(c.robots, { mode: 'rfc' });
    assert.throws(() => robots.isAllowed(c.url, c.agent), { code: 'InvalidArg' });
  }
});
