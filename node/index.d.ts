// crawlgate for Node: the types of index.js. The native classes, functions and object shapes
// are declared in binding.d.ts, generated from the Rust by @napi-rs/cli.
import type { Answer, CacheConfig, Permit } from './binding'

export {
  Robots,
  Permit,
  pageDirectives,
  robotsTxtUrl,
  nativeVersion,
  DEFAULT_MAX_BYTES,
} from './binding'
export type {
  Answer,
  CacheConfig,
  ContentSignalLine,
  ContentUsageRule,
  Decision,
  Diagnostic,
  OtherRecord,
  PageDirectives,
  PageProblem,
  PageSource,
  ParseOptions,
  PolicyLink,
  Recorded,
  RequestRate,
  RobotsResponse,
  Rule,
  Usage,
} from './binding'

/** `RobotsCache.acquire` gave no permit: robots.txt, or the failure rules, say no. */
export declare class Disallowed extends Error {
  name: 'Disallowed'
  code: 'ERR_CRAWLGATE_DISALLOWED'
  /** The URL asked for. */
  url: string
  /** The engine's answer (`allowed` is false). */
  answer: Answer
}

/** The crawl-policy engine with its gate (robots.txt, spacing, backoff, failure ladder). */
export declare class RobotsCache {
  /** Opens an engine (connects to Redis or opens the state file). */
  static open(options: CacheConfig): Promise<RobotsCache>
  /** May the agent fetch `url`? */
  check(url: string): Promise<Answer>
  /** Waits for the URL's slot; rejects with `Disallowed` when robots.txt or the failure rules say no. */
  acquire(url: string): Promise<Permit>
  /** Writes what the store has not taken yet. */
  flush(): Promise<void>
  /** Writes what the store has not taken yet and lets go of it. */
  close(): Promise<void>
  /** The product token whose rules are obeyed. */
  readonly agent: string
  /** Where the state is kept. */
  readonly location: string
}
