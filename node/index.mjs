// crawlgate for Node (ES module entry point): the CommonJS module's exports, by name.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const crawlgate = require('./index.js');

export const {
  Robots,
  RobotsCache,
  Permit,
  Disallowed,
  pageDirectives,
  robotsTxtUrl,
  nativeVersion,
  DEFAULT_MAX_BYTES,
} = crawlgate;
export default crawlgate;
