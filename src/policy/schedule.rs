//! The gate's arithmetic, pure: how far apart an origin's requests go ([`spacing`]), how long
//! an overloaded origin is left alone ([`backoff_delay`]), and one origin's schedule
//! ([`GateState`]: reserve a slot, back off, recover). Times are milliseconds since the Unix
//! epoch, so that every store (and the Redis script, which mirrors [`GateState`]) computes the
//! same thing.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[cfg(feature = "fetch")]
use super::key::KeyKind;
use super::unix_ms::ms;
use crate::robots::RequestRate;

/// How the gate spaces and backs off requests (the engine's `RobotsCache::acquire`).
///
/// Start from `GateOptions::default()` and set the fields you need (`let mut options = GateOptions::default();`
/// then `options.max_delay = …`): the type is `#[non_exhaustive]`, so a new option is not a
/// breaking change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GateOptions {
    /// The spacing when robots.txt asks for none, or for less (default 1 s). Zero lets an
    /// origin without `Crawl-delay` or `Request-rate` be fetched as fast as the concurrency
    /// limit allows.
    pub default_delay: Duration,
    /// The longest spacing honoured (default 60 s): a larger `Crawl-delay` (or a slower
    /// `Request-rate`) is honoured as this cap, so that one site cannot park a crawler's
    /// workers for a day. [`Spacing::capped`] tells when it applied.
    pub max_delay: Duration,
    /// Requests of one politeness key ([`GateOptions::key`]) in flight at once (default 1, at
    /// least 1): in this process, and, on a shared store (Redis), across every process on it,
    /// each permit holding a lease that ends when it is recorded or dropped, or after
    /// [`GateOptions::in_flight_expiry`] if its process died.
    pub max_concurrency: usize,
    /// How long a fleet-wide in-flight lease lasts if its permit is never recorded nor dropped
    /// (its process was killed): default 60 s. It is taken when the permit is handed out
    /// (after the wait for its slot) and never renewed, so it must outlast the longest fetch
    /// made under a permit: keep it above the crawler's request timeout. Only a shared store
    /// (Redis) uses it; in one process a permit's slot is freed when the permit goes.
    #[cfg(feature = "fetch")]
    pub in_flight_expiry: Duration,
    /// What requests share one schedule, backoff and in-flight limit: the origin (default),
    /// the host, the registrable domain or the server's address ([`KeyKind`]). robots.txt
    /// state stays per origin.
    #[cfg(feature = "fetch")]
    pub key: KeyKind,
    /// The first backoff after a 429 or 503 without `Retry-After` (default 5 s); it doubles
    /// with each such answer in a row…
    pub backoff_base: Duration,
    /// …up to this (default 10 minutes).
    pub backoff_max: Duration,
    /// `Retry-After` is honoured up to this (default 1 hour).
    pub max_retry_after: Duration,
    /// How often a permit's outcome is written as a site-availability report when it says the
    /// same as the last one (default 10 minutes): the 30-day rule needs a recent report, not
    /// one per page, and each is a store write.
    pub availability_interval: Duration,
}

impl Default for GateOptions {
    fn default() -> GateOptions {
        GateOptions {
            default_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(60),
            max_concurrency: 1,
            #[cfg(feature = "fetch")]
            in_flight_expiry: Duration::from_secs(60),
            #[cfg(feature = "fetch")]
            key: KeyKind::Origin,
            backoff_base: Duration::from_secs(5),
            backoff_max: Duration::from_secs(600),
            max_retry_after: Duration::from_secs(3600),
            availability_interval: Duration::from_secs(600),
        }
    }
}

/// The backoff rules a store applies: [`GateOptions`]' backoff fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackoffRules {
    /// The first backoff without `Retry-After`.
    pub base: Duration,
    /// The longest backoff without `Retry-After`.
    pub max: Duration,
    /// The longest `Retry-After` honoured.
    pub max_retry_after: Duration,
}

impl GateOptions {
    /// The backoff part.
    pub fn backoff(&self) -> BackoffRules {
        BackoffRules {
            base: self.backoff_base,
            max: self.backoff_max,
            max_retry_after: self.max_retry_after,
        }
    }
}

/// What set an origin's spacing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelaySource {
    /// [`GateOptions::default_delay`].
    Default,
    /// The agent's `Crawl-delay`.
    CrawlDelay,
    /// The agent's `Request-rate` (`per / requests`).
    RequestRate,
}

/// The spacing between two requests to one origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Spacing {
    /// The time between two permits' slots, whole milliseconds.
    pub delay: Duration,
    /// What asked for it.
    pub source: DelaySource,
    /// The source asked for more than [`GateOptions::max_delay`]; `delay` is the cap.
    pub capped: bool,
}

/// The spacing for an origin at `now`: the largest of the agent's `Crawl-delay`, its
/// `Request-rate` interval (only inside the rate's UTC window, if it has one) and the default
/// delay, capped at [`GateOptions::max_delay`], rounded up to a whole millisecond.
pub fn spacing(
    crawl_delay: Option<Duration>,
    request_rate: Option<&RequestRate>,
    now: SystemTime,
    options: &GateOptions,
) -> Spacing {
    let mut best = (options.default_delay, DelaySource::Default);
    if let Some(d) = crawl_delay.filter(|d| *d > best.0) {
        best = (d, DelaySource::CrawlDelay);
    }
    let unix = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    if let Some(rate) = request_rate.filter(|r| r.applies_at(unix)) {
        let interval = rate.interval();
        if interval > best.0 {
            best = (interval, DelaySource::RequestRate);
        }
    }
    let capped = best.0 > options.max_delay;
    Spacing {
        delay: ceil_ms(best.0.min(options.max_delay)),
        source: best.1,
        capped,
    }
}

/// How long to leave an origin alone after a 429 or 503: its `Retry-After` up to
/// [`BackoffRules::max_retry_after`], else `base × 2^strikes` up to [`BackoffRules::max`],
/// where `strikes` counts such answers in a row before this one.
pub fn backoff_delay(
    strikes: u32,
    retry_after: Option<Duration>,
    rules: &BackoffRules,
) -> Duration {
    match retry_after {
        Some(d) => d.min(rules.max_retry_after),
        None => rules
            .base
            .checked_mul(1u32 << strikes.min(30))
            .unwrap_or(Duration::MAX)
            .min(rules.max),
    }
}

/// One origin's schedule. Every store keeps one per origin and changes it only through these
/// methods (the Redis store through a script that does the same).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateState {
    /// The earliest time the next slot may have (ms since the epoch).
    pub next_free: u64,
    /// No slot before this (ms since the epoch): the end of a backoff.
    pub backoff_until: u64,
    /// 429s and 503s in a row.
    pub strikes: u32,
}

impl GateState {
    /// Takes the next slot at `now` (ms): `max(now, next_free, backoff_until)`, and moves
    /// `next_free` to the slot plus `spacing_ms`. Returns how long to wait for it (ms). Taking
    /// slots in arrival order hands them out in arrival order.
    pub fn reserve(&mut self, now: u64, spacing_ms: u64) -> u64 {
        let slot = now.max(self.next_free).max(self.backoff_until);
        self.next_free = slot.saturating_add(spacing_ms);
        slot - now
    }

    /// Records a 429 or 503 at `now` (ms): no slot before `now + backoff_delay(..)` (an earlier
    /// backoff that ends later stands), one more strike. Returns the wait from `now` (ms).
    pub fn back_off(
        &mut self,
        now: u64,
        retry_after: Option<Duration>,
        rules: &BackoffRules,
    ) -> u64 {
        let delay = ms(backoff_delay(self.strikes, retry_after, rules));
        self.backoff_until = self.backoff_until.max(now.saturating_add(delay));
        self.strikes = self.strikes.saturating_add(1);
        self.backoff_until.saturating_sub(now)
    }

    /// Records an answer that was not a 429 or 503: the exponential backoff starts over.
    pub fn recovered(&mut self) {
        self.strikes = 0;
    }

    /// Whether the schedule says nothing any more at `now` (ms): it may be forgotten.
    pub fn is_idle(&self, now: u64) -> bool {
        self.strikes == 0 && self.next_free <= now && self.backoff_until <= now
    }
}

/// `d` rounded up to a whole millisecond, so that spacing is never less than asked.
fn ceil_ms(d: Duration) -> Duration {
    let whole = Duration::from_millis(ms(d));
    if whole < d {
        whole + Duration::from_millis(1)
    } else {
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn options() -> GateOptions {
        GateOptions::default()
    }

    /// 2026-11-23 07:00:00 UTC.
    fn seven_utc() -> SystemTime {
        UNIX_EPOCH + secs(1_795_132_800 + 7 * 3600)
    }

    #[test]
    fn spacing_takes_the_largest_and_caps() {
        let o = options();
        let now = seven_utc();
        let s = spacing(None, None, now, &o);
        assert_eq!(
            (s.delay, s.source, s.capped),
            (secs(1), DelaySource::Default, false)
        );
        let s = spacing(Some(secs(2)), None, now, &o);
        assert_eq!((s.delay, s.source), (secs(2), DelaySource::CrawlDelay));
        // A crawl-delay below the default does not speed things up.
        let s = spacing(Some(Duration::from_millis(10)), None, now, &o);
        assert_eq!((s.delay, s.source), (secs(1), DelaySource::Default));
        let rate = RequestRate::parse("3/10s");
        let s = spacing(Some(secs(2)), rate.as_ref(), now, &o);
        assert_eq!(
            (s.delay, s.source),
            (Duration::from_millis(3334), DelaySource::RequestRate)
        );
        let s = spacing(Some(secs(86_400)), rate.as_ref(), now, &o);
        assert_eq!(
            (s.delay, s.source, s.capped),
            (secs(60), DelaySource::CrawlDelay, true)
        );
        let s = spacing(Some(Duration::from_micros(1_500_001)), None, now, &o);
        assert_eq!(s.delay, Duration::from_millis(1501));
    }

    #[test]
    fn request_rate_applies_only_inside_its_window() {
        let o = options();
        let inside = RequestRate::parse("1/30s 0600-0800");
        let outside = RequestRate::parse("1/30s 2200-0500");
        assert_eq!(
            spacing(None, inside.as_ref(), seven_utc(), &o).delay,
            secs(30)
        );
        assert_eq!(
            spacing(None, outside.as_ref(), seven_utc(), &o).delay,
            secs(1)
        );
    }

    #[test]
    fn backoff_honours_retry_after_else_doubles_to_a_cap() {
        let r = options().backoff();
        assert_eq!(backoff_delay(0, Some(secs(120)), &r), secs(120));
        assert_eq!(backoff_delay(5, Some(secs(86_400)), &r), secs(3600));
        assert_eq!(backoff_delay(0, None, &r), secs(5));
        assert_eq!(backoff_delay(1, None, &r), secs(10));
        assert_eq!(backoff_delay(3, None, &r), secs(40));
        assert_eq!(backoff_delay(10, None, &r), secs(600));
        assert_eq!(backoff_delay(u32::MAX, None, &r), secs(600));
    }

    #[test]
    fn slots_are_spaced_and_wait_for_backoff() {
        let r = options().backoff();
        let mut g = GateState::default();
        assert_eq!(g.reserve(1000, 2000), 0);
        assert_eq!(g.reserve(1000, 2000), 2000);
        assert_eq!(g.reserve(1500, 2000), 3500);
        // Idle for long: the next slot is now.
        assert_eq!(g.reserve(100_000, 2000), 0);
        assert_eq!(g.back_off(100_500, Some(secs(120)), &r), 120_000);
        assert_eq!(g.reserve(100_500, 2000), 120_000);
        // A shorter backoff does not shorten a longer one; strikes count.
        assert_eq!(g.back_off(100_500, None, &r), 120_000);
        assert_eq!(g.strikes, 2);
        assert_eq!(g.back_off(300_000, None, &r), 20_000);
        g.recovered();
        assert_eq!(g.back_off(400_000, None, &r), 5_000);
        assert!(!g.is_idle(400_000));
        g.recovered();
        assert!(g.is_idle(405_000));
    }
}
