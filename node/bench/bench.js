'use strict';
// crawlgate beside robots-parser, in one run, on the bench corpus (robots-bench: 1,225 sites
// with a robots.txt and a list of their URLs). Two workloads, each counting the call overhead
// across napi (every parse and check is a call from JavaScript):
//   - parse + first verdict: per site, parse its robots.txt and decide its first URL;
//   - checks: per site, parse once (not timed), then decide every URL (googlebot).
// The corpus is read at run time from $CRAWLGATE_BENCH_CORPUS, else ../shared/corpus/robots-bench
// beside the repository; without it the benchmark says so and exits.
//
//   node node/bench/bench.js            (after the addon is built: scripts/node-test.sh)
const fs = require('node:fs');
const path = require('node:path');
const robotsParser = require('robots-parser');
const { Robots } = require('..');

const corpus = process.env.CRAWLGATE_BENCH_CORPUS || path.resolve(__dirname, '..', '..', '..', 'shared', 'corpus', 'robots-bench');
if (!fs.existsSync(path.join(corpus, 'robotfiles'))) {
  console.log(`bench corpus not found at ${corpus} (set CRAWLGATE_BENCH_CORPUS): nothing measured`);
  process.exit(0);
}

const sites = [];
for (const name of fs.readdirSync(path.join(corpus, 'robotfiles')).sort()) {
  const links = path.join(corpus, 'links', name);
  if (!fs.existsSync(links)) continue;
  const urls = fs.readFileSync(links, 'utf8').split('\n').map((u) => u.trim()).filter(Boolean);
  if (urls.length === 0) continue;
  const bytes = fs.readFileSync(path.join(corpus, 'robotfiles', name));
  let robotsUrl;
  try { robotsUrl = new URL('/robots.txt', urls[0]).href; } catch { continue; }
  sites.push({ name, bytes, text: bytes.toString('utf8'), urls, robotsUrl });
}
const totalUrls = sites.reduce((n, s) => n + s.urls.length, 0);
const AGENT = 'googlebot';

function time(fn) {
  const t = process.hrtime.bigint();
  const n = fn();
  return { seconds: Number(process.hrtime.bigint() - t) / 1e9, n };
}

const runs = {
  'crawlgate parse+first': () => { let n = 0; for (const s of sites) { if (Robots.parse(s.bytes).isAllowed(s.urls[0], AGENT)) n++; } return n; },
  'crawlgate parse+first (no lint)': () => { let n = 0; for (const s of sites) { if (Robots.parse(s.bytes, { diagnostics: false }).isAllowed(s.urls[0], AGENT)) n++; } return n; },
  'robots-parser parse+first': () => { let n = 0; for (const s of sites) { if (robotsParser(s.robotsUrl, s.text).isAllowed(s.urls[0], AGENT)) n++; } return n; },
};
const parsedOurs = sites.map((s) => Robots.parse(s.bytes));
const parsedTheirs = sites.map((s) => robotsParser(s.robotsUrl, s.text));
runs['crawlgate checks'] = () => { let n = 0; sites.forEach((s, i) => { const r = parsedOurs[i]; for (const u of s.urls) if (r.isAllowed(u, AGENT)) n++; }); return n; };
runs['crawlgate checks (isAllowedMany)'] = () => { let n = 0; sites.forEach((s, i) => { for (const a of parsedOurs[i].isAllowedMany(s.urls, AGENT)) if (a) n++; }); return n; };
runs['robots-parser checks'] = () => { let n = 0; sites.forEach((s, i) => { const r = parsedTheirs[i]; for (const u of s.urls) if (r.isAllowed(u, AGENT)) n++; }); return n; };

const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const best = {};
const counts = {};
for (let round = 0; round <= ROUNDS; round++) {
  for (const [name, fn] of Object.entries(runs)) {
    const { seconds, n } = time(fn);
    counts[name] = n;
    // Round 0 warms up the JIT and the caches.
    if (round > 0) best[name] = Math.min(best[name] ?? Infinity, seconds);
  }
}

// One call per URL and one per site decide alike.
if (counts['crawlgate checks'] !== counts['crawlgate checks (isAllowedMany)']) {
  throw new Error(`isAllowedMany allowed ${counts['crawlgate checks (isAllowedMany)']} URLs, isAllowed ${counts['crawlgate checks']}`);
}
const per = (name, count) => count / best[name];
const parseOurs = per('crawlgate parse+first', sites.length);
const parseQuiet = per('crawlgate parse+first (no lint)', sites.length);
const parseTheirs = per('robots-parser parse+first', sites.length);
const checkOurs = per('crawlgate checks', totalUrls);
const checkTheirs = per('robots-parser checks', totalUrls);
const checkMany = per('crawlgate checks (isAllowedMany)', totalUrls);
console.log(`corpus: ${corpus}: ${sites.length} sites, ${totalUrls} URLs; best of ${ROUNDS} rounds; node ${process.version}`);
console.log('| workload | crawlgate (napi) | robots-parser | ratio | goal |');
console.log('|---|---|---|---|---|');
console.log(`| parse + first verdict, sites/s | ${Math.round(parseOurs).toLocaleString('en')} | ${Math.round(parseTheirs).toLocaleString('en')} | ${(parseOurs / parseTheirs).toFixed(1)}× | ≥ 5× |`);
console.log(`| parse (diagnostics: false) + first verdict, sites/s | ${Math.round(parseQuiet).toLocaleString('en')} | ${Math.round(parseTheirs).toLocaleString('en')} | ${(parseQuiet / parseTheirs).toFixed(1)}× | ≥ 5× |`);
console.log(`| checks/s (parsed once) | ${Math.round(checkOurs).toLocaleString('en')} | ${Math.round(checkTheirs).toLocaleString('en')} | ${(checkOurs / checkTheirs).toFixed(1)}× | ≥ 10× |`);
console.log(`| checks/s (parsed once), a site's URLs in one isAllowedMany call | ${Math.round(checkMany).toLocaleString('en')} | ${Math.round(checkTheirs).toLocaleString('en')} | ${(checkMany / checkTheirs).toFixed(1)}× | ≥ 10× |`);
