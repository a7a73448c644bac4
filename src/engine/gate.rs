//! `RobotsCache::acquire`: the URL checked, then the origin's next slot waited for; [`Permit`]s
//! record how each fetch went (see the [engine's docs](super) for the schedule).

use std::fmt;

use std::time::{Duration, SystemTime};

use super::answer::Answer;
use super::cache::{CheckError, RobotsCache};
use super::keys::Place;
use super::slots::Held;
use crate::origin::Origin;
use crate::policy::{ms, spacing, unix_ms, window_wait, Ask, Caller, Outcome, PoliteKey, Spacing};
use crate::robots::ProductToken;
use crate::store::{random_u128, Reservation, StoreError};

/// The `tracing` target of the gate's events (backoffs, capped spacing).
const TARGET: &str = "crawlgate::gate";

/// Why [`RobotsCache::acquire`] gave no permit.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Refused {
    /// robots.txt does not allow the URL (or the origin's robots.txt cannot be read yet and the
    /// rules say to wait): the answer says why and which rule decided. Shown as
    /// `robots.txt disallows URL (line N: RULE; REASON)` when a rule decided, and as
    /// `not fetching URL: REASON` when the failure rules did (`answer.rule` is `None`: the
    /// robots.txt could not be read, so the site did not disallow anything).
    #[error("{}", disallowed(.url, .answer))]
    Disallowed {
        /// The URL asked for.
        url: String,
        /// The check's answer: reason, deciding rule, crawl-delay, sitemaps.
        answer: Box<Answer>,
    },
    /// The URL could not be checked (it has no robots.txt origin).
    #[error(transparent)]
    Check(#[from] CheckError),
}

fn disallowed(url: &str, answer: &Answer) -> String {
    match &answer.rule {
        Some(rule) => format!(
            "robots.txt disallows {url} (line {}: {}; {})",
            rule.line, rule.text, answer.reason
        ),
        // No rule decided: the failure rules did (robots.txt unreachable, no good version),
        // which is not the site disallowing the URL.
        None => format!("not fetching {url}: {}", answer.reason),
    }
}

impl RobotsCache {
    /// Checks `url` for `token` and, if allowed, waits for the next slot of its politeness key
    /// (its origin by default, see [`GateOptions::key`](crate::policy::GateOptions::key) and
    /// [the engine's docs](crate::engine)): refused at once when robots.txt disallows it, else
    /// a [`Permit`] once the slot has come and one of the key's in-flight places is free
    /// ([`GateOptions::max_concurrency`](crate::policy::GateOptions::max_concurrency): in the
    /// process, and across the fleet on a shared store). Record the fetch's outcome on the
    /// permit ([`Permit::record`]) so that a 429 or 503 backs the key off.
    ///
    /// Waiters on one key are served in arrival order; keys are independent. The wait
    /// is not bounded here (at most about the spacing times the waiters ahead, or a backoff):
    /// wrap the call in a timeout to bound it. Dropping the future gives up the place in line
    /// and gives back a slot it reserved, unless another was reserved after it. A waiter whose
    /// slot comes while the origin is backed off (a backoff status recorded after it reserved)
    /// waits for the backoff's end and takes a new slot; outside the site's `Visit-time`
    /// window it waits for the window. A fleet-wide in-flight place whose request to the store
    /// was under way when the future was dropped is freed in the background.
    pub async fn acquire(&self, token: &ProductToken, url: &str) -> Result<Permit, Refused> {
        let answer = self.allowed(token, url).await?;
        let gate = self.gate();
        let key = self.politeness_key(&answer.origin).await;
        let semaphore = gate.semaphore(&key);
        // Fair (first come, first served): the arrival order of waiters on one key.
        let mut held = match semaphore.clone().acquire_owned().await {
            Ok(permit) => Some(Held { semaphore, permit }),
            // Never closed; if it were, gate on spacing alone.
            Err(_) => None,
        };
        // The sleeps, not the clock's difference: no sleep is no wait.
        let mut waited = Duration::ZERO;
        let mut strikes;
        let mut spacing;
        let place = loop {
            let now = self.clock().now();
            // Outside the site's Visit-time window: wait for it before taking a slot.
            let closed = self.visit_wait(&answer, now);
            if !closed.is_zero() {
                self.clock().sleep(closed).await;
                waited += closed;
                continue;
            }
            spacing = self.spacing_of(&answer, now);
            let reservation = self.reserve(&key, now, spacing.delay).await;
            strikes = reservation.strikes;
            if !reservation.wait.is_zero() {
                // Dropped while asleep, the slot goes back (and the concurrency slot after it).
                let mut unused = Unused {
                    cache: self.clone(),
                    key: key.clone(),
                    reservation,
                    spacing: spacing.delay,
                    held: held.take(),
                    armed: true,
                };
                self.clock().sleep(reservation.wait).await;
                waited += reservation.wait;
                held = unused.held.take();
                unused.disarm();
                // A backoff that began after the slot was reserved reaches it: wait for its
                // end, then take a new slot.
                let left = self.backed_off(&key).await;
                if !left.is_zero() {
                    self.clock().sleep(left).await;
                    waited += left;
                    continue;
                }
                if !self.visit_wait(&answer, self.clock().now()).is_zero() {
                    continue;
                }
            }
            // The fleet's in-flight place is taken once the slot has come, so that it is held
            // for the fetch only (its expiry need only outlast a request); waiting for it can
            // only make the spacing longer.
            let Some(place) = self.take_place(&key).await else {
                break None;
            };
            // The place may have been waited for while another process's permit held it, and
            // that permit's outcome may have been a backoff status (recorded before its place
            // was freed): then wait for the backoff's end and take a new slot, as above.
            let left = self.backed_off(&key).await;
            if left.is_zero() {
                break Some(place);
            }
            place.release().await;
            self.clock().sleep(left).await;
            waited += left;
        };
        Ok(Permit {
            cache: self.clone(),
            answer,
            key,
            spacing,
            waited,
            strikes,
            held,
            place,
        })
    }

    /// The check's answer for `url`, or the refusal when robots.txt does not allow it: what
    /// every way to a slot starts with.
    async fn allowed(&self, token: &ProductToken, url: &str) -> Result<Answer, Refused> {
        let answer = self.check(token, url).await?;
        if !answer.allowed {
            return Err(Refused::Disallowed {
                url: url.to_owned(),
                answer: Box::new(answer),
            });
        }
        Ok(answer)
    }

    /// How long until `answer`'s `Visit-time` window opens at `now` (zero: open, or none, or
    /// not honoured).
    fn visit_wait(&self, answer: &Answer, now: SystemTime) -> Duration {
        match &answer.visit_time {
            Some(v) if self.gate().options.visit_time => {
                Duration::from_millis(window_wait(&v.window, unix_ms(now)))
            }
            _ => Duration::ZERO,
        }
    }

    /// How long the key is still backed off: the store's word, else the process's.
    async fn backed_off(&self, key: &PoliteKey) -> Duration {
        let now = self.clock().now();
        let store = self.store();
        if store.keeps_schedule() {
            match store.backed_off(key, now).await {
                Ok(d) => {
                    self.store_ok();
                    return d;
                }
                Err(e) => self.store_failed(&e),
            }
        }
        self.gate().local.backed_off(key, now)
    }

    /// Checks `url` for `token` and, if allowed, asks the slot ledger of its politeness key
    /// ([`Ledger`](crate::policy::Ledger), kept by the store beside the schedule and shared by
    /// every process on it; else the process's own), for a caller that waits elsewhere: a
    /// service answering "come back at `not_before`", a queue that re-schedules the URL.
    ///
    /// The caller is the pair (`token`, `url`) and holds at most one pending slot: the first
    /// ask books one, asking again repeats it, and once it has come the ask is the permit
    /// ([`Outcome::Permit`]: fetch now, then record the response with
    /// [`RobotsCache::record_fetch`]), given once. A permit is never closer than the spacing to
    /// the last permit given on the key; a slot a backoff reaches, or asked about more than a
    /// spacing after its time, is void and replaced. Booking ahead is bounded
    /// ([`GateOptions::book_ahead`](crate::policy::GateOptions::book_ahead),
    /// [`GateOptions::max_pending_per_agent`](crate::policy::GateOptions::max_pending_per_agent)):
    /// past it nothing is booked ([`Outcome::Later`]). `url` is checked each time (refused if
    /// robots.txt disallows it now). No concurrency slot is held ([`Permit`]'s
    /// `max_concurrency` is the in-process one's).
    pub async fn ask_slot(&self, token: &ProductToken, url: &str) -> Result<Slot, Refused> {
        let answer = self.allowed(token, url).await?;
        let key = self.politeness_key(&answer.origin).await;
        let now = self.clock().now();
        // Outside the site's Visit-time window, the slot is booked at its opening.
        let closed = self.visit_wait(&answer, now);
        let spacing = self.spacing_of(&answer, now + closed);
        let mut ask = Ask {
            caller: Caller::of(token.as_str(), url),
            now: unix_ms(now),
            spacing_ms: ms(spacing.delay),
            closed_ms: ms(closed),
            fresh: random_u128(),
        };
        let bounds = self.gate().options.ledger_bounds();
        let store = self.store();
        let mut asked = None;
        if store.keeps_schedule() {
            match store.ask_slot(&key, ask, bounds).await {
                Ok(a) => {
                    self.store_ok();
                    asked = Some(a);
                }
                Err(StoreError::Unsupported(_)) => {}
                Err(e) => {
                    self.store_failed(&e);
                    if store.is_shared() {
                        // Alone while the shared store fails: the fleet's share of the rate.
                        let alone = spacing
                            .delay
                            .saturating_mul(self.gate().options.fleet_size.max(1));
                        ask.spacing_ms = ms(alone);
                    }
                }
            }
        }
        let asked = match asked {
            Some(a) => {
                if store.is_shared() {
                    if let Outcome::Permit { .. } | Outcome::Wait { .. } = a.outcome {
                        // Followed in the process, so that the spacing alone (should the
                        // store fail) counts from the last shared slot.
                        let alone = spacing
                            .delay
                            .saturating_mul(self.gate().options.fleet_size.max(1));
                        self.gate().local.follow(&key, now + a.wait(), alone);
                    }
                }
                a
            }
            None => self.gate().local.ask(&key, &ask, &bounds),
        };
        Ok(Slot {
            answer,
            key,
            spacing,
            at: now,
            wait: asked.wait(),
            outcome: asked.outcome,
        })
    }

    /// How long `key` is still backed off after a 429 or 503 (zero: not): the store's word,
    /// shared by every process on it, else the process's own.
    pub async fn backoff_left(&self, key: &PoliteKey) -> Duration {
        self.backed_off(key).await
    }

    /// `Retry-After` as a response sends it (delta-seconds or an HTTP-date, measured on the
    /// engine's clock), for a caller that records a fetch made elsewhere
    /// ([`RobotsCache::record_fetch`]). Read as [`Permit::record_response`] reads the header:
    /// a value that is neither, or that asks for no wait (`0`, a date already past), is
    /// [`RetryAfterIgnored`], and the backoff it came with takes the default
    /// (exponential) delay: a 429 or 503 always backs off.
    pub fn retry_after(&self, value: &str) -> Result<Duration, RetryAfterIgnored> {
        read_retry_after(value, self.clock().now())
    }

    /// Records how a fetch from `origin` went, for a slot from [`RobotsCache::ask_slot`]
    /// (a [`Permit`] records through [`Permit::record`]; the rules are the same): a 429 or 503
    /// backs the origin's politeness key off (`Retry-After` honoured up to the cap, else
    /// exponential), another answer ends a run of them, and the site-availability report is
    /// fed.
    pub async fn record_fetch(
        &self,
        origin: &Origin,
        status: u16,
        retry_after: Option<Duration>,
    ) -> Recorded {
        let key = self.politeness_key(origin).await;
        self.record_outcome(origin, &key, status, retry_after, None)
            .await
    }

    /// The spacing `answer`'s crawl-delay or request-rate asks for at `now`, capped.
    fn spacing_of(&self, answer: &Answer, now: SystemTime) -> Spacing {
        let spacing = spacing(
            answer.crawl_delay,
            answer.request_rate.as_ref(),
            now,
            &self.gate().options,
        );
        if spacing.capped {
            tracing::debug!(target: TARGET, origin = %answer.origin, delay_ms = spacing.delay.as_millis() as u64, source = ?spacing.source, "spacing capped at max_delay");
        }
        spacing
    }

    /// What [`Permit::record`] and [`RobotsCache::record_fetch`] do. `strikes`: the backoff run
    /// the slot was reserved in, when known (0: none, so nothing to end).
    async fn record_outcome(
        &self,
        origin: &Origin,
        key: &PoliteKey,
        status: u16,
        retry_after: Option<Duration>,
        strikes: Option<u32>,
    ) -> Recorded {
        let options = &self.gate().options;
        let now = self.clock().now();
        // A wait of zero would record no backoff at all: the default delay stands in.
        let retry_after = retry_after.filter(|d| !d.is_zero());
        match status {
            s if options.backs_off(s) => {
                let rules = options.backoff(self.gate().draw());
                let store = self.store();
                let mut wait = None;
                if store.keeps_schedule() {
                    match store.back_off(key, now, retry_after, rules).await {
                        Ok(w) => {
                            self.store_ok();
                            wait = Some(w);
                        }
                        Err(e) => self.store_failed(&e),
                    }
                }
                let wait = match wait {
                    Some(w) => w,
                    None => self.gate().local.back_off(key, now, retry_after, &rules).0,
                };
                tracing::info!(target: TARGET, origin = %origin, key = %key, status, retry_after_s = retry_after.map(|d| d.as_secs()), backoff_ms = wait.as_millis() as u64, "origin backed off");
                if status == 503 {
                    self.report_site(origin, false, now).await;
                }
                Recorded::BackedOff(wait)
            }
            500..=599 => {
                self.report_site(origin, false, now).await;
                Recorded::Failed
            }
            _ => {
                if strikes != Some(0) {
                    let store = self.store();
                    if store.keeps_schedule() {
                        match store.recovered(key).await {
                            Ok(()) => self.store_ok(),
                            Err(e) => self.store_failed(&e),
                        }
                    }
                    self.gate().local.recovered(key);
                }
                self.report_site(origin, true, now).await;
                Recorded::Served
            }
        }
    }

    /// A site-availability report, unless the last one said the same recently.
    async fn report_site(&self, origin: &Origin, up: bool, now: SystemTime) {
        let interval = self.gate().options.availability_interval;
        if let Some(last) = self.last_site_report(origin).await {
            let recent = now.duration_since(last.at).is_ok_and(|age| age < interval);
            if last.up == up && recent {
                return;
            }
        } else if self.state(origin).await.is_none() {
            // Nothing held of the origin (never checked, or evicted from a store that keeps
            // nothing): the 30-day rule counts from a robots.txt fetch, and a report would
            // make a state that stands for none.
            return;
        }
        self.record_page_fetch(origin, up).await;
    }

    /// A slot from the store, or from the process's own schedule when the store keeps none or
    /// fails. While a shared store fails, the process spaces by the spacing times
    /// [`GateOptions::fleet_size`](crate::policy::GateOptions::fleet_size).
    async fn reserve(&self, key: &PoliteKey, now: SystemTime, spacing: Duration) -> Reservation {
        let store = self.store();
        let mut spacing = spacing;
        if store.keeps_schedule() {
            let shared = store.is_shared();
            let alone = spacing.saturating_mul(self.gate().options.fleet_size.max(1));
            match store.reserve(key, now, spacing).await {
                Ok(r) => {
                    self.store_ok();
                    if shared {
                        // Followed in the process, so that the spacing alone (should the store
                        // fail) counts from the last shared slot.
                        self.gate().local.follow(key, now + r.wait, alone);
                    }
                    return r;
                }
                Err(e) => {
                    self.store_failed(&e);
                    if shared {
                        spacing = alone;
                    }
                }
            }
        }
        self.gate().local.reserve(key, now, spacing)
    }
}

/// What [`RobotsCache::ask_slot`] got: the URL's answer and the caller's slot.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Slot {
    /// The check's answer (origin, reason, crawl-delay, request-rate, sitemaps).
    pub answer: Answer,
    /// The politeness key the slot is on.
    pub key: PoliteKey,
    /// The key's spacing, and whether the cap applied.
    pub spacing: Spacing,
    /// When it was asked (the engine's clock).
    pub at: SystemTime,
    /// How long from `at` until the slot comes, or until asking again may book one (zero for
    /// a permit).
    pub wait: Duration,
    /// The ledger's answer: a permit, the caller's slot, or "later, nothing booked".
    pub outcome: Outcome,
}

/// Leave to fetch one URL now, from [`RobotsCache::acquire`]. Holds one of its politeness
/// key's in-flight places until recorded or dropped (on a shared store, a lease that also
/// ends after [`GateOptions::in_flight_expiry`](crate::policy::GateOptions::in_flight_expiry)).
///
/// Record how the fetch went with [`Permit::record`] (or [`Permit::record_response`],
/// [`Permit::record_unreachable`]): a 429 or 503 backs the origin off, other answers feed the
/// site-availability report. A permit dropped unrecorded frees its slot and records nothing:
/// the origin's spacing still applies, no backoff starts, a backoff in progress keeps
/// doubling on the next 429/503.
#[must_use = "fetch the URL, then record the outcome on the permit"]
pub struct Permit {
    cache: RobotsCache,
    answer: Answer,
    key: PoliteKey,
    spacing: Spacing,
    waited: Duration,
    strikes: u32,
    held: Option<Held>,
    /// The fleet-wide in-flight place, on a store that counts them.
    place: Option<Place>,
}

impl fmt::Debug for Permit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit")
            .field("origin", &self.answer.origin)
            .field("key", &self.key)
            .field("spacing", &self.spacing)
            .field("waited", &self.waited)
            .finish_non_exhaustive()
    }
}

/// Why a `Retry-After` was not taken as the backoff's delay. The backoff is recorded all the
/// same, with the default delay ([`GateOptions::backoff_base`](crate::policy::GateOptions),
/// doubled per backoff in a row): a site that answers 429 or 503 is left alone whatever its
/// header says. The message says so, for a caller to pass on as a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RetryAfterIgnored {
    /// Neither delay-seconds (`1*DIGIT`) nor an HTTP-date: `2.5`, `120s`, `-1`, empty.
    #[error("Retry-After is neither whole seconds nor an HTTP-date: the default backoff applies")]
    Unreadable,
    /// `0`, or an HTTP-date already past: taken at its word it would record no backoff.
    #[error(
        "Retry-After asks for no wait (0, or a date already past): the default backoff applies"
    )]
    NoWait,
}

/// The one reading of a `Retry-After` value for a backoff, at `now`: the wait it asks for, or
/// why the default delay stands in ([`RetryAfterIgnored`]).
pub(crate) fn read_retry_after(
    value: &str,
    now: SystemTime,
) -> Result<Duration, RetryAfterIgnored> {
    match crate::http::headers::retry_after_value(value, now) {
        None => Err(RetryAfterIgnored::Unreadable),
        Some(d) if d.is_zero() => Err(RetryAfterIgnored::NoWait),
        Some(d) => Ok(d),
    }
}

/// What a recorded outcome did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Recorded {
    /// A 429 or 503: no slot of the origin for this long from now.
    BackedOff(Duration),
    /// The site served the page (a 2xx–4xx other than 429).
    Served,
    /// A 5xx other than 503, or no response: the site is reported down.
    Failed,
}

impl Permit {
    /// The check's answer (origin, reason, crawl-delay, request-rate, sitemaps).
    pub fn answer(&self) -> &Answer {
        &self.answer
    }

    /// The URL's origin.
    pub fn origin(&self) -> &Origin {
        &self.answer.origin
    }

    /// The politeness key the permit was scheduled under (the origin by default).
    pub fn key(&self) -> &PoliteKey {
        &self.key
    }

    /// The spacing this permit was scheduled with, and whether the cap applied.
    pub fn spacing(&self) -> Spacing {
        self.spacing
    }

    /// How long [`RobotsCache::acquire`] waited for the slot (after any wait for a concurrency
    /// slot).
    pub fn waited(&self) -> Duration {
        self.waited
    }

    /// Records the fetch's HTTP status and `Retry-After`. 429 and 503 back the origin off
    /// (`Retry-After` honoured up to [`GateOptions::max_retry_after`](crate::policy::GateOptions::max_retry_after), else exponential); other
    /// answers end a run of them. Returns what it did.
    pub async fn record(mut self, status: u16, retry_after: Option<Duration>) -> Recorded {
        let recorded = self
            .cache
            .record_outcome(
                &self.answer.origin,
                &self.key,
                status,
                retry_after,
                Some(self.strikes),
            )
            .await;
        self.release_place().await;
        recorded
    }

    /// Frees the fleet-wide in-flight place now (after the outcome is recorded, so that a
    /// backoff is in the store before another process's request goes).
    async fn release_place(&mut self) {
        if let Some(place) = self.place.take() {
            place.release().await;
        }
    }

    /// [`Permit::record`] with the `Retry-After` read from the response's headers (seconds, or
    /// an HTTP date measured on the engine's clock).
    pub async fn record_response(
        self,
        status: u16,
        headers: &reqwest::header::HeaderMap,
    ) -> Recorded {
        let retry_after = match headers.get(reqwest::header::RETRY_AFTER) {
            None => None,
            Some(value) => {
                let read = value
                    .to_str()
                    .map_err(|_| RetryAfterIgnored::Unreadable)
                    .and_then(|v| read_retry_after(v, self.cache.clock().now()));
                if let Err(why) = read {
                    tracing::info!(target: TARGET, origin = %self.answer.origin, status, value = ?value, "{why}");
                }
                read.ok()
            }
        };
        self.record(status, retry_after).await
    }

    /// Records that the page could not be fetched at all (no response): the site is reported
    /// down; no backoff.
    pub async fn record_unreachable(mut self) -> Recorded {
        let now = self.cache.clock().now();
        self.cache
            .report_site(&self.answer.origin, false, now)
            .await;
        self.release_place().await;
        Recorded::Failed
    }
}

/// A slot reserved by a waiting `acquire`: given back if the future is dropped before it comes.
struct Unused {
    cache: RobotsCache,
    key: PoliteKey,
    reservation: Reservation,
    spacing: Duration,
    /// The waiter's concurrency slot, freed once the schedule's slot is back.
    held: Option<Held>,
    /// Whether the slot is still to be given back.
    armed: bool,
}

impl Unused {
    /// The slot came: nothing to give back.
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for Unused {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let gate = self.cache.gate();
        // Whichever schedule the slot came from; the other's next slot does not match it.
        gate.local
            .release(&self.key, &self.reservation, self.spacing);
        let held = self.held.take();
        let store = self.cache.store();
        if !store.keeps_schedule() {
            if let Some(held) = held {
                gate.release(&self.key, held);
            }
            return;
        }
        let (cache, key, reservation, spacing) = (
            self.cache.clone(),
            self.key.clone(),
            self.reservation,
            self.spacing,
        );
        // The store's slot back first, then the concurrency slot, so that the next waiter
        // reserves after the slot is back.
        let give_back = async move {
            let _ = cache.store().release(&key, reservation, spacing).await;
            if let Some(held) = held {
                cache.gate().release(&key, held);
            }
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(give_back);
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        // The fleet-wide place (if any) is released by its own drop, in the background;
        // without a runtime (the permit outlived it) it ends at its expiry.
        if let Some(held) = self.held.take() {
            self.cache.gate().release(&self.key, held);
        }
    }
}
