//! `policy`: the failure ladder under arbitrary sequences of fetch outcomes, availability
//! reports and clock moves (forwards and backwards). No panic, and the ladder's promises hold:
//! right after a 2xx the verdict is those rules, after a 4xx everything is allowed, within 12
//! hours of a failure run's start nothing is (a challenge at the edge included), right after a
//! 402 nothing is, and there is a history exactly when there is a last fetch.
#![no_main]

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crawlgate::policy::{
    Fetch, FetchOutcome, OriginState, Payment, PolicyOptions, Unavailable, Unreachable, Verdict,
};
use crawlgate::Robots;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Event {
    Ok(Vec<u8>),
    NotFound(u16),
    Down(u16),
    /// A challenge at the edge on this status.
    Challenged(u16),
    /// A 402 with these price header values.
    PaymentRequired(Vec<String>),
    SiteUp(bool),
    /// Seconds forward (or, when negative, backward: a clock that jumps).
    Tick(i32),
}

#[derive(Debug, Arbitrary)]
struct Input {
    strict: bool,
    events: Vec<Event>,
}

fn fetch(status: u16, outcome: FetchOutcome) -> Fetch {
    Fetch::new("https://example.com/robots.txt", Some(status), outcome)
}

fuzz_target!(|input: Input| {
    let mut options = PolicyOptions::default();
    options.strict = input.strict;
    let mut state = OriginState::new();
    let mut now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    for event in input.events.into_iter().take(256) {
        match event {
            Event::Ok(body) => {
                let body = &body[..body.len().min(4096)];
                let parsed = Arc::new(Robots::parse(body));
                state.record(now, &fetch(200, FetchOutcome::Rules { body: body.into(), parsed }));
                assert!(matches!(state.verdict_at(now, &options).verdict, Verdict::Rules));
            }
            Event::NotFound(s) => {
                let s = 400 + s % 100;
                state.record(now, &fetch(s, FetchOutcome::Unavailable(Unavailable::Status(s))));
                assert!(matches!(state.verdict_at(now, &options).verdict, Verdict::AllowAll));
            }
            Event::Down(s) => {
                let s = 500 + s % 100;
                state.record(now, &fetch(s, FetchOutcome::Unreachable(Unreachable::Status(s))));
                let since = state.failing_since().expect("a failure run");
                if now.duration_since(since).is_ok_and(|d| d < options.stop_period) {
                    assert!(matches!(
                        state.verdict_at(now, &options).verdict,
                        Verdict::DisallowAll
                    ));
                }
            }
            Event::Challenged(s) => {
                let outcome = FetchOutcome::Unreachable(Unreachable::Challenge {
                    status: s,
                    marker: "cf-mitigated: challenge".into(),
                });
                state.record(now, &fetch(s, outcome));
                let since = state.failing_since().expect("a failure run");
                if now.duration_since(since).is_ok_and(|d| d < options.stop_period) {
                    assert!(matches!(
                        state.verdict_at(now, &options).verdict,
                        Verdict::DisallowAll
                    ));
                }
            }
            Event::PaymentRequired(values) => {
                let payment = Payment::new(values.iter().map(|v| ("crawler-price", v.as_str())));
                state.record(now, &fetch(402, FetchOutcome::PaymentRequired(payment)));
                assert_eq!(state.failing_since(), None);
                assert!(matches!(state.verdict_at(now, &options).verdict, Verdict::DisallowAll));
            }
            Event::SiteUp(up) => state.record_site_availability(now, up),
            Event::Tick(secs) => {
                let d = Duration::from_secs(u64::from(secs.unsigned_abs()));
                let moved = if secs >= 0 { now.checked_add(d) } else { now.checked_sub(d) };
                now = moved.unwrap_or(now);
            }
        }
        let _ = state.verdict_at(now, &options);
        assert_eq!(
            state.history().next().is_none(),
            state.last_fetch().is_none(),
            "history and last fetch disagree"
        );
    }
});
