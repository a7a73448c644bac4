//! `crawlgate serve` against hostile traffic, sent to loopback only and bounded in count and
//! time: slow bodies, idle and half-sent connections, cross-site pages, rebinding `Host`s.
