//! `RobotsCache::politeness`: a politeness key's pace as the gate would apply it now (the
//! spacing in force and why, the backoff, the next slot, the requests in flight), read without
//! reserving anything.

use std::time::SystemTime;

use super::answer::Answer;
use super::cache::{CheckError, RobotsCache};
use crate::policy::{GateState, Pacing, PoliteKey};
use crate::robots::ProductToken;

/// A URL's politeness key and its pace now ([`RobotsCache::politeness`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Politeness {
    /// The check's answer for the URL (origin, verdict, crawl-delay, request-rate).
    pub answer: Answer,
    /// The politeness key the URL's requests are scheduled under.
    pub key: PoliteKey,
    /// When it was read (the engine's clock).
    pub at: SystemTime,
    /// The spacing in force and why, the backoff remembered, the next slot.
    pub pacing: Pacing,
    /// Where the schedule was read.
    pub schedule: ScheduleSource,
    /// The key's permits held in this process now.
    pub in_flight: usize,
    /// [`GateOptions::max_concurrency`](crate::policy::GateOptions::max_concurrency).
    pub max_concurrency: usize,
}

/// Where [`RobotsCache::politeness`] read a key's schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScheduleSource {
    /// The store's, shared by every process on it.
    Store,
    /// This process's own: the store keeps none, failed, or had none while a shared store's
    /// outage left one here.
    Process,
    /// Nothing is recorded for the key anywhere.
    None,
}

impl ScheduleSource {
    /// `store`, `process` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            ScheduleSource::Store => "store",
            ScheduleSource::Process => "process",
            ScheduleSource::None => "none",
        }
    }
}

impl RobotsCache {
    /// How the gate paces `url`'s politeness key for `token` now: the spacing in force and
    /// what set it (crawl-delay, request-rate, the configured default, the floor or the cap),
    /// the run of backoff statuses the schedule remembers (its step, when it ends, when it is
    /// forgiven), the slot a permit asked for now would get, and the permits in flight in this
    /// process. Nothing is reserved and the schedule is not changed; the URL is checked as
    /// [`RobotsCache::check`] does (which reads, or fetches, the origin's robots.txt), and an
    /// answer is given whether or not robots.txt allows the URL.
    ///
    /// The schedule is the store's when it keeps one ([`Store::schedule`]; on Redis its times
    /// are the server's clock), else the process's.
    ///
    /// [`Store::schedule`]: crate::store::Store::schedule
    pub async fn politeness(
        &self,
        token: &ProductToken,
        url: &str,
    ) -> Result<Politeness, CheckError> {
        let answer = self.check(token, url).await?;
        let key = self.politeness_key(&answer.origin).await;
        let gate = self.gate();
        let (state, schedule) = self.schedule_of(&key).await;
        let at = self.clock().now();
        let window = answer
            .visit_time
            .as_ref()
            .filter(|_| gate.options.visit_time)
            .map(|v| &v.window);
        let pacing = Pacing::at(
            answer.crawl_delay,
            answer.request_rate.as_ref(),
            state.as_ref(),
            window,
            at,
            &gate.options,
        );
        Ok(Politeness {
            in_flight: gate.in_flight(&key),
            max_concurrency: gate.options.max_concurrency.max(1),
            answer,
            key,
            at,
            pacing,
            schedule,
        })
    }

    /// The key's schedule and where it was read: the store's when it keeps one and answers,
    /// else the process's.
    async fn schedule_of(&self, key: &PoliteKey) -> (Option<GateState>, ScheduleSource) {
        let store = self.store();
        if store.keeps_schedule() {
            match store.schedule(key).await {
                Ok(Some(state)) => {
                    self.store_ok();
                    return (Some(state), ScheduleSource::Store);
                }
                Ok(None) => {
                    self.store_ok();
                    // A shared store that has nothing may still have a process's schedule
                    // beside it (kept while the store was down).
                    return match self.gate().local.get(key) {
                        Some(state) if store.is_shared() => (Some(state), ScheduleSource::Process),
                        _ => (None, ScheduleSource::None),
                    };
                }
                Err(e) => self.store_failed(&e),
            }
        }
        match self.gate().local.get(key) {
            Some(state) => (Some(state), ScheduleSource::Process),
            None => (None, ScheduleSource::None),
        }
    }
}
