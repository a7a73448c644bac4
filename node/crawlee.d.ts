import type { RobotsCache, Disallowed, CacheConfig } from './index'

/** What `crawlgateHooks` returns: spread `crawlerOptions` into a Crawlee crawler's options. */
export interface CrawlgateHooks {
  cache: RobotsCache
  preNavigationHooks: Array<(ctx: any) => Promise<void>>
  postNavigationHooks: Array<(ctx: any) => Promise<void>>
  errorHandler: (ctx: any, error: Error) => Promise<void>
  crawlerOptions: {
    preNavigationHooks: Array<(ctx: any) => Promise<void>>
    postNavigationHooks: Array<(ctx: any) => Promise<void>>
    errorHandler: (ctx: any, error: Error) => Promise<void>
    respectRobotsTxtFile: false
  }
}

/** Opens a RobotsCache (or uses `{cache}`) and returns the hooks that gate every request. */
export declare function crawlgateHooks(options: CacheConfig | { cache: RobotsCache }): Promise<CrawlgateHooks>
export { RobotsCache, Disallowed }
