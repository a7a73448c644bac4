'use strict';
// What a call into the addon costs, apart from the work it does: a free function, a getter of
// the `Robots` class that returns a constant, and a check, each a million times after a warm-up.
//
//   node node/bench/calls.js            (after the addon is built: npm run build in node/)
const binding = require('../binding.js');
const { Robots } = require('..');

const N = 1e6;
function time(name, fn) {
  for (let i = 0; i < 1e5; i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn();
  console.log(`| ${name} | ${(Number(process.hrtime.bigint() - start) / N).toFixed(0)} |`);
}

const robots = Robots.parse('User-agent: *\nDisallow: /private/\nAllow: /private/open\n');
const url = 'https://www.example.com/some/long/path/to/a/page.html?query=1&x=2';
const urls = Array(100).fill(url);
console.log(`node ${process.version}`);
console.log('| call | ns per call |');
console.log('|---|---|');
time('a free function (`nativeVersion()`)', () => binding.nativeVersion());
time('a getter returning a constant (`robots.mode`)', () => robots.mode);
time('`robots.isAllowed(url, agent)`', () => robots.isAllowed(url, 'googlebot'));
const start = process.hrtime.bigint();
for (let i = 0; i < N / urls.length; i++) robots.isAllowedMany(urls, 'googlebot');
console.log(`| \`robots.isAllowedMany(urls, agent)\`, per URL | ${(Number(process.hrtime.bigint() - start) / N).toFixed(0)} |`);
