// `crawlgate/robots-parser` as an ES module.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const robotsParser = require('./robots-parser.js');

export const { RobotsParser } = robotsParser;
export { robotsParser };
export default robotsParser;
