//! `crawlgate serve`'s answers as a real process: per-URL errors in a batch, a record that
//! never stands in for a robots.txt fetch, bounded growth, readiness and error bodies.
