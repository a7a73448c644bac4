// `crawlgate/crawlee` as an ES module.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const crawlee = require('./crawlee.js');

export const { crawlgateHooks, Disallowed, RobotsCache } = crawlee;
export default crawlee;
