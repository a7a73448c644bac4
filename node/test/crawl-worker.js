'use strict';
// One Crawlee crawl (HttpCrawler) gated by crawlgate, run as its own process by
// crawlee.test.js: `node crawl-worker.js SITE STATE PATH...`. Prints a JSON summary.
const os = require('node:os');
const fs = require('node:fs');
const path = require('node:path');
const { HttpCrawler, Configuration, log, LogLevel } = require('@crawlee/http');
const { crawlgateHooks } = require('../crawlee.js');

async function main() {
  log.setLevel(LogLevel.OFF);
  const [site, state, ...paths] = process.argv.slice(2);
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlee-'));
  const config = new Configuration({ persistStorage: false, storageClientOptions: { localDataDirectory: storage } });
  const gate = await crawlgateHooks({ agent: 'CrawleeBot/1.0', state: state === '-' ? undefined : state, defaultDelay: 0 });
  const handled = [];
  const failed = [];
  const crawler = new HttpCrawler({
    ...gate.crawlerOptions,
    maxConcurrency: 4,
    maxRequestRetries: 0,
    requestHandler: async ({ request }) => { handled.push(new URL(request.url).pathname); },
    failedRequestHandler: async ({ request }, error) => { failed.push([new URL(request.url).pathname, error.name]); },
  }, config);
  await crawler.run(paths.map((p) => `${site}${p}`));
  fs.rmSync(storage, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ handled, failed }));
}
main().catch((e) => { console.error(e); process.exit(1); });
