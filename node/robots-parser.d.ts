/** `crawlgate/robots-parser`: robots-parser's API on crawlgate's RFC 9309 parser. */
export declare class RobotsParser {
  constructor(url: string, contents: string)
  /** true/false for a URL of this robots.txt's origin, undefined for any other. Throws without `ua`. */
  isAllowed(url: string, ua: string): boolean | undefined
  isDisallowed(url: string, ua: string): boolean | undefined
  /** The deciding rule's line; -1 when no rule decided; undefined for other origins. */
  getMatchingLineNumber(url: string, ua: string): number | undefined
  getCrawlDelay(ua: string): number | undefined
  getSitemaps(): string[]
  getPreferredHost(): string | null
}
declare function robotsParser(url: string, contents: string): RobotsParser
export { robotsParser }
export default robotsParser
