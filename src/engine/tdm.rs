//! TDMRep's `/.well-known/tdmrep.json` in the engine: fetched per origin on request, one fetch
//! at a time per origin, kept in memory (LRU, `max_origins`) with robots.txt's freshness and
//! failure ladder, and evaluated for a URL ([`RobotsCache::tdm`](super::RobotsCache::tdm)).
//!
//! The ladder is [`OriginState`]'s own, fed with the file's fetches: a file is a good version,
//! a 4xx is "no file" (nothing reserved), a failure stops for 12 hours (the reservation is
//! unknown) and then the last good file applies for 30 days. Each origin's file is also kept in
//! the engine's [`Store`](crate::store::Store) as a record of its own
//! ([`TdmRecord`]: the ladder's state and the last good body), read back when the origin is not
//! in memory, so that a restart on a durable store answers without fetching the file again.
//! A store that fails is not an answer's failure: the file is then fetched as if none were kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use moka::future::Cache;
use moka::policy::EvictionPolicy;

use super::options::CacheOptions;
use crate::diagnostic::Severity;
use crate::http::{Fetcher, LocalError, TdmFetch, TdmFetchOutcome};
use crate::policy::RobotsFile;
use crate::policy::{Change, Content, Digest, FetchRecord, OriginState, Verdict, VerdictReason};
use crate::store::{Store, TdmRecord};
use crate::tdmrep::{self, Rule};
use crate::Origin;

/// What TDMRep says about a URL, and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TdmReservation {
    /// TDM rights are reserved (`tdm-reservation: 1`).
    Reserved,
    /// TDM rights are not reserved (`tdm-reservation: 0`).
    NotReserved,
    /// Nothing is said: no file, or no rule of the file matches (§4.1: "unset").
    Unset,
    /// The file could not be read (unreachable for less than 12 hours, a 402, or for over 30
    /// days): a careful agent treats the content as reserved.
    Unknown,
}

impl TdmReservation {
    /// `reserved`, `not-reserved`, `unset` or `unknown`.
    pub fn as_str(&self) -> &'static str {
        match self {
            TdmReservation::Reserved => "reserved",
            TdmReservation::NotReserved => "not-reserved",
            TdmReservation::Unset => "unset",
            TdmReservation::Unknown => "unknown",
        }
    }
}

/// The engine's TDMRep answer for one URL.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TdmAnswer {
    /// The URL's origin.
    pub origin: Origin,
    /// The reservation in force.
    pub reservation: TdmReservation,
    /// The TDM policy's URL, when reserved and the rule gives one.
    pub policy: Option<String>,
    /// The rule that decided, if a file's rule did.
    pub rule: Option<Rule>,
    /// Where the answer comes from: the ladder's reason over `tdmrep.json`'s fetches
    /// (`Fetched`: the file; `NoRobotsTxt`: no file; `Unreachable`, `LastGoodVersion`, … as
    /// for robots.txt; the reason's text says "robots.txt", the ladder being the same).
    pub reason: VerdictReason,
    /// The URL of the file.
    pub file_url: String,
}

/// Why [`RobotsCache::tdm`](super::RobotsCache::tdm) could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TdmError {
    /// The URL has no origin.
    #[error(transparent)]
    Origin(#[from] crate::origin::OriginError),
    /// The fetch failed on this side (file descriptors, memory…): nothing was learned.
    #[error(transparent)]
    Local(#[from] LocalError),
}

/// One origin's file: its state (the ladder) and the last good file, parsed.
#[derive(Debug)]
struct Slot {
    state: OriginState,
    good: Option<Arc<tdmrep::Parsed>>,
    /// The good file's body, as stored.
    body: Option<Arc<[u8]>>,
}

impl Slot {
    /// A slot from a stored record (its body parsed again).
    fn from_record(record: TdmRecord) -> Slot {
        let body: Option<Arc<[u8]>> = record.body.map(Arc::from);
        Slot {
            good: body
                .as_deref()
                .filter(|_| record.state.good_file().is_some())
                .map(|b| Arc::new(tdmrep::TdmRep::parse(b))),
            body,
            state: record.state,
        }
    }

    fn record(&self) -> TdmRecord {
        TdmRecord::new(self.state.clone(), self.body.as_deref().map(<[u8]>::to_vec))
    }
}

/// The engine's `tdmrep.json` files.
pub(crate) struct TdmCache {
    slots: Cache<Origin, Arc<Slot>>,
    /// One lock per origin being fetched: single flight.
    flights: Mutex<HashMap<Origin, Arc<tokio::sync::Mutex<()>>>>,
}

impl std::fmt::Debug for TdmCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TdmCache")
            .field("origins", &self.slots.entry_count())
            .finish()
    }
}

impl TdmCache {
    pub(crate) fn new(max_origins: u64) -> TdmCache {
        TdmCache {
            slots: Cache::builder()
                .max_capacity(max_origins)
                .eviction_policy(EvictionPolicy::lru())
                .build(),
            flights: Mutex::new(HashMap::new()),
        }
    }

    /// The answer for `url` on `origin` at `now`, fetching the file first when it is not known
    /// or due (one fetch per origin however many ask).
    pub(crate) async fn answer(
        &self,
        fetcher: &Fetcher,
        store: &dyn Store,
        options: &CacheOptions,
        now: impl Fn() -> SystemTime,
        origin: &Origin,
        url: &str,
    ) -> Result<TdmAnswer, LocalError> {
        let slot = match self.fresh(origin, now()).await {
            Some(slot) => slot,
            None => {
                let lock = {
                    let mut flights = self.flights.lock().unwrap_or_else(|e| e.into_inner());
                    flights.entry(origin.clone()).or_default().clone()
                };
                let result = async {
                    let _turn = lock.lock().await;
                    // Another caller may have fetched while this one waited.
                    if let Some(slot) = self.fresh(origin, now()).await {
                        return Ok(slot);
                    }
                    let mut before = self.slots.get(origin).await;
                    if before.is_none() {
                        // Not in memory: the store's record, if it keeps one.
                        if let Ok(Some(record)) = store.load_tdm(origin).await {
                            let slot = Arc::new(Slot::from_record(record));
                            self.slots.insert(origin.clone(), slot.clone()).await;
                            if !slot.state.is_due(now()) {
                                return Ok(slot);
                            }
                            before = Some(slot);
                        }
                    }
                    let fetch = fetcher.fetch_tdmrep(origin).await?;
                    let slot = Arc::new(apply(before.as_deref(), &fetch, now(), options));
                    self.slots.insert(origin.clone(), slot.clone()).await;
                    // Kept for the next process; a store that fails costs a fetch then.
                    let _ = store.save_tdm(origin, &slot.record()).await;
                    Ok(slot)
                }
                .await;
                {
                    let mut flights = self.flights.lock().unwrap_or_else(|e| e.into_inner());
                    // The map's and this one: nobody else waits.
                    if Arc::strong_count(&lock) <= 2 {
                        flights.remove(origin);
                    }
                }
                result?
            }
        };
        Ok(judge(&slot, origin, url, now(), options))
    }

    /// The origin's slot if it is known and not due.
    async fn fresh(&self, origin: &Origin, now: SystemTime) -> Option<Arc<Slot>> {
        self.slots
            .get(origin)
            .await
            .filter(|slot| !slot.state.is_due(now))
    }
}

/// `before` with `fetch`, completed at `at`, recorded.
fn apply(before: Option<&Slot>, fetch: &TdmFetch, at: SystemTime, options: &CacheOptions) -> Slot {
    let mut state = before.map(|s| s.state.clone()).unwrap_or_default();
    let mut good = before.and_then(|s| s.good.clone());
    let mut good_body = before.and_then(|s| s.body.clone());
    let (content, body, wait) = match &fetch.outcome {
        TdmFetchOutcome::File { body, parsed } => {
            let errors = parsed
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            let file = RobotsFile {
                digest: Digest::of(body),
                size: body.len() as u64,
                declared_size: None,
                cut: body.len() > tdmrep::MAX_BYTES,
                errors: u32::try_from(errors).unwrap_or(u32::MAX),
                warnings: u32::try_from(parsed.diagnostics.len() - errors).unwrap_or(u32::MAX),
                etag: None,
                last_modified: None,
                html: false,
            };
            good = Some(parsed.clone());
            good_body = Some(body.clone());
            let wait = fetch.max_age.map_or(options.default_ttl, |a| {
                a.clamp(options.min_ttl, options.max_ttl)
            });
            (Content::Rules(file), Some(body.clone()), wait)
        }
        TdmFetchOutcome::Unavailable(why) => {
            (Content::NoRobotsTxt(*why), None, options.default_ttl)
        }
        TdmFetchOutcome::Unreachable(why) => (
            Content::Unreachable(why.clone()),
            None,
            retry(fetch, options),
        ),
        TdmFetchOutcome::PaymentRequired(p) => (
            Content::PaymentRequired(p.clone()),
            None,
            retry(fetch, options),
        ),
    };
    let record = FetchRecord {
        started_at: at,
        at,
        epoch: state.epoch(),
        status: fetch.status,
        final_url: fetch.final_url.clone(),
        redirects: 0,
        content,
        body,
        next_due: at.checked_add(wait).unwrap_or(at),
    };
    state.apply(&Change::Fetched(record));
    if state.good_file().is_none() {
        // No file is good now (a 4xx since): nothing to evaluate.
        good = None;
        good_body = None;
    }
    Slot {
        state,
        good,
        body: good_body,
    }
}

/// How long until a failed or refused fetch is tried again.
fn retry(fetch: &TdmFetch, options: &CacheOptions) -> Duration {
    fetch
        .retry_after
        .unwrap_or(options.retry_interval)
        .min(options.max_retry_after)
        .max(options.min_retry_interval)
}

/// The answer the slot gives for `url` at `now`.
fn judge(
    slot: &Slot,
    origin: &Origin,
    url: &str,
    now: SystemTime,
    options: &CacheOptions,
) -> TdmAnswer {
    let judgement = slot.state.verdict_at(now, &options.policy);
    let mut answer = TdmAnswer {
        origin: origin.clone(),
        reservation: TdmReservation::Unset,
        policy: None,
        rule: None,
        reason: judgement.reason,
        file_url: format!("{origin}{}", tdmrep::WELL_KNOWN_PATH),
    };
    match judgement.verdict {
        Verdict::Rules => {
            if let Some(m) = slot.good.as_ref().and_then(|p| p.tdmrep.evaluate_url(url)) {
                answer.reservation = if m.reserved {
                    TdmReservation::Reserved
                } else {
                    TdmReservation::NotReserved
                };
                answer.policy = m.policy.map(str::to_owned);
                answer.rule = Some(m.rule.clone());
            }
        }
        Verdict::AllowAll => {}
        Verdict::DisallowAll => answer.reservation = TdmReservation::Unknown,
    }
    answer
}
