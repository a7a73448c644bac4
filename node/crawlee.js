'use strict';
// `crawlgate/crawlee`: a Crawlee crawl that asks crawlgate before every request (robots.txt
// with RFC 9309's failure rules, Crawl-delay and Request-rate spacing, backoff on 429/503),
// with the state in memory, a file, or on Redis (several processes, one schedule).
//
//   const gate = await crawlgateHooks({ agent: 'MyBot/1.0', state: 'redis://127.0.0.1:6379' });
//   const crawler = new HttpCrawler({ ...gate.crawlerOptions, requestHandler });
//
// A refused request is not retried and never sent: it goes to `failedRequestHandler` with a
// `Disallowed` error (`error.answer` says why).
const { RobotsCache, Disallowed } = require('./index.js');

const PERMIT = Symbol('crawlgate.permit');

/** The response's status and Retry-After, from got's (HttpCrawler) or fetch's response. */
function statusOf(response) {
  if (!response) return { status: undefined, retryAfter: null };
  const status = response.statusCode ?? response.status;
  let retryAfter = null;
  const h = response.headers;
  if (h) retryAfter = typeof h.get === 'function' ? h.get('retry-after') : h['retry-after'];
  if (Array.isArray(retryAfter)) retryAfter = retryAfter[0];
  return { status, retryAfter: retryAfter ?? null };
}

/**
 * Hooks for a Crawlee crawler (HttpCrawler, CheerioCrawler, …): `options` opens a
 * `RobotsCache` (or pass `{cache}` to use one already open). Returns `{cache,
 * preNavigationHooks, postNavigationHooks, crawlerOptions}`; `crawlerOptions` holds the
 * hooks and an `errorHandler` that frees a permit whose request failed. Spread it into the
 * crawler's options (combine by hand if you have hooks of your own).
 */
async function crawlgateHooks(options) {
  const cache = options && options.cache ? options.cache : await RobotsCache.open(options);
  const take = async (ctx) => {
    try {
      ctx[PERMIT] = await cache.acquire(ctx.request.url);
    } catch (e) {
      // Never sent, and asking again changes nothing until the verdict does.
      if (e instanceof Disallowed) ctx.request.noRetry = true;
      throw e;
    }
  };
  const pre = async (ctx, gotOptions) => {
    // Refuse early (a clear `Disallowed`, no retry) when robots.txt or the failure rules say no.
    const answer = await cache.check(ctx.request.url);
    if (!answer.allowed) {
      ctx.request.noRetry = true;
      throw new Disallowed(ctx.request.url, answer);
    }
    if (gotOptions && typeof gotOptions === 'object') {
      // HttpCrawler and its kin: wait for the slot in got's last hook before the request, so
      // that the time from slot to socket is short (Crawlee's own set-up before the request
      // takes seconds on the first ones).
      gotOptions.hooks = gotOptions.hooks || {};
      gotOptions.hooks.beforeRequest = [...(gotOptions.hooks.beforeRequest || []), () => take(ctx)];
    } else {
      await take(ctx);
    }
  };
  const post = async (ctx) => {
    const permit = ctx[PERMIT];
    if (!permit || !permit.active) return;
    ctx[PERMIT] = undefined;
    const { status, retryAfter } = statusOf(ctx.response);
    if (typeof status === 'number') await permit.record(status, retryAfter);
    else permit.release();
  };
  // A request that failed before its response (a network error): the site is reported down.
  const errorHandler = async (ctx) => {
    const permit = ctx[PERMIT];
    if (!permit || !permit.active) return;
    ctx[PERMIT] = undefined;
    await permit.recordUnreachable();
  };
  return {
    cache,
    preNavigationHooks: [pre],
    postNavigationHooks: [post],
    errorHandler,
    crawlerOptions: {
      preNavigationHooks: [pre],
      postNavigationHooks: [post],
      errorHandler,
      // robots.txt and spacing are crawlgate's; Crawlee's own robots handling stays off.
      respectRobotsTxtFile: false,
    },
  };
}

module.exports = { crawlgateHooks, Disallowed, RobotsCache };
