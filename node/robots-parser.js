'use strict';
// `crawlgate/robots-parser`: the API of the `robots-parser` npm package on crawlgate's RFC 9309
// parser. Moving is one import line. Where the answers differ, docs/node.md lists each
// difference and its cause.
const { Robots } = require('./index.js');

// URLs with default ports compare equal to the same URL without one.
const DEFAULT_PORTS = { 'http:': '80', 'https:': '443', 'ftp:': '21' };

function parseUrl(u) {
  try {
    const url = new URL(u);
    url.port = url.port || DEFAULT_PORTS[url.protocol] || '';
    return url;
  } catch {
    return null;
  }
}

/** robots-parser's agent: the crawler's token; an absent one is refused, not read as `*`. */
function agentOf(ua) {
  if (ua === undefined || ua === null || ua === '') {
    throw new TypeError(
      'crawlgate/robots-parser: pass the crawler\'s user agent (robots-parser reads a missing one as "*")',
    );
  }
  if (typeof ua !== 'string') throw new TypeError(`user agent must be a string, not ${typeof ua}`);
  return ua;
}

// '*' asks as a crawler with no group of its own: a token no group names.
const STAR = 'crawlgate-robots-parser-star';

function tokenOf(ua) {
  const agent = agentOf(ua);
  return agent === '*' ? STAR : agent;
}

class RobotsParser {
  constructor(url, contents) {
    this._url = parseUrl(url) || {};
    const body = contents === undefined || contents === null ? '' : contents;
    this._robots = Robots.parse(typeof body === 'string' ? body : String(body));
  }

  // The path and query of a URL of this robots.txt's origin; undefined for any other URL.
  _target(url) {
    const parsed = parseUrl(url);
    if (
      !parsed ||
      parsed.protocol !== this._url.protocol ||
      parsed.hostname !== this._url.hostname ||
      parsed.port !== this._url.port
    ) {
      return undefined;
    }
    return parsed.pathname + parsed.search;
  }

  /** true/false for a URL of this origin; undefined for any other. */
  isAllowed(url, ua) {
    const token = tokenOf(ua);
    const target = this._target(url);
    return target === undefined ? undefined : this._robots.isAllowed(target, token);
  }

  /** The opposite of isAllowed (undefined for other origins). */
  isDisallowed(url, ua) {
    const allowed = this.isAllowed(url, ua);
    return allowed === undefined ? undefined : !allowed;
  }

  /** The deciding rule's line; -1 when no rule decided; undefined for other origins. */
  getMatchingLineNumber(url, ua) {
    const token = tokenOf(ua);
    const target = this._target(url);
    if (target === undefined) return undefined;
    return this._robots.check(target, token).line ?? -1;
  }

  /** The crawl-delay of the agent's groups, in seconds, or undefined. */
  getCrawlDelay(ua) {
    const delay = this._robots.crawlDelay(tokenOf(ua));
    return delay ?? undefined;
  }

  /** The Sitemap URLs, in file order. */
  getSitemaps() {
    return this._robots.sitemaps;
  }

  /** The Host record's value, or null. */
  getPreferredHost() {
    return this._robots.host ?? null;
  }
}

/** `robotsParser(url, contents)`: as robots-parser's default export. */
function robotsParser(url, contents) {
  return new RobotsParser(url, contents);
}

module.exports = robotsParser;
module.exports.default = robotsParser;
module.exports.robotsParser = robotsParser;
module.exports.RobotsParser = RobotsParser;
