//! The failure ladder over simulated time (SPEC §4): no waiting, explicit `now`.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crawlgate::policy::{
    Fetch, FetchOutcome, OriginState, PolicyOptions, Unavailable, Unreachable, Verdict,
    VerdictReason,
};
use crawlgate::{ProductToken, Robots};

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);

fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn fetch(status: Option<u16>, outcome: FetchOutcome) -> Fetch {
    Fetch {
        url: "https://example.com/robots.txt".into(),
        final_url: "https://example.com/robots.txt".into(),
        redirects: 0,
        status,
        max_age: None,
        retry_after: None,
        outcome,
    }
}

fn ok(body: &str) -> Fetch {
    let parsed = Robots::parse(body.as_bytes());
    fetch(
        Some(200),
        FetchOutcome::Rules {
            body: body.as_bytes().into(),
            parsed: Arc::new(parsed),
        },
    )
}

fn not_found() -> Fetch {
    fetch(
        Some(404),
        FetchOutcome::Unavailable(Unavailable::Status(404)),
    )
}

fn down() -> Fetch {
    fetch(
        Some(503),
        FetchOutcome::Unreachable(Unreachable::Status(503)),
    )
}

/// Allowed to fetch `/private` as `bot` under this verdict?
fn may_fetch_private(v: &Verdict) -> bool {
    match v {
        Verdict::Rules(p) => p
            .robots
            .is_allowed(&ProductToken::new("bot").expect("token"), "/private"),
        Verdict::AllowAll => true,
        Verdict::DisallowAll => false,
    }
}

fn verdict(s: &OriginState, at: SystemTime) -> (bool, VerdictReason) {
    let j = s.verdict_at(at, &PolicyOptions::default());
    (may_fetch_private(&j.verdict), j.reason)
}

const RULES: &str = "User-agent: *\nDisallow: /private\n";

#[test]
fn fetched_rules_and_404_allow_all() {
    let mut s = OriginState::new();
    assert_eq!(verdict(&s, t0()).1, VerdictReason::NotFetched);
    s.record(t0(), ok(RULES));
    assert_eq!(verdict(&s, t0()), (false, VerdictReason::Fetched));
    s.record(t0() + HOUR, not_found());
    assert_eq!(
        verdict(&s, t0() + HOUR),
        (true, VerdictReason::NoRobotsTxt(Unavailable::Status(404)))
    );
}

#[test]
fn ladder_with_a_last_good_version() {
    let mut s = OriginState::new();
    s.record(t0(), ok("User-agent: *\nDisallow: /other\n"));
    let fail = t0() + DAY;
    s.record(fail, down());
    // Hours 0 to 12 of the run: stop, whatever the last version said.
    for h in [0, 1, 6, 11] {
        let (allowed, reason) = verdict(&s, fail + HOUR * h);
        assert!(!allowed, "hour {h}");
        assert!(matches!(reason, VerdictReason::Unreachable { since, .. } if since == fail));
    }
    // Retries keep failing: the run's start does not move.
    s.record(fail + HOUR * 5, down());
    assert_eq!(s.failing_since(), Some(fail));
    // From hour 12 to day 30: the last good version (which allows /private).
    for at in [
        fail + HOUR * 12,
        fail + DAY,
        fail + DAY * 15,
        fail + DAY * 30 - HOUR,
    ] {
        let (allowed, reason) = verdict(&s, at);
        assert!(allowed);
        assert_eq!(
            reason,
            VerdictReason::LastGoodVersion {
                since: fail,
                fetched_at: t0()
            }
        );
    }
    // After 30 days: depends on whether the site is up.
    let day31 = fail + DAY * 31;
    assert_eq!(
        verdict(&s, day31),
        (
            false,
            VerdictReason::LongUnreachableSiteDown { since: fail }
        )
    );
    s.record_site_availability(true);
    assert_eq!(
        verdict(&s, day31),
        (true, VerdictReason::LongUnreachableSiteUp { since: fail })
    );
    s.record_site_availability(false);
    assert!(!verdict(&s, day31).0);
}

#[test]
fn ladder_without_a_good_version_and_strict_mode() {
    let mut s = OriginState::new();
    s.record(t0(), down());
    assert!(!verdict(&s, t0() + HOUR).0);
    let day2 = t0() + DAY * 2;
    assert_eq!(
        verdict(&s, day2),
        (true, VerdictReason::NoGoodVersion { since: t0() })
    );
    let strict = PolicyOptions {
        strict: true,
        ..PolicyOptions::default()
    };
    assert!(matches!(
        s.verdict_at(day2, &strict).verdict,
        Verdict::DisallowAll
    ));
}

#[test]
fn a_404_is_a_good_version_too() {
    let mut s = OriginState::new();
    s.record(t0(), not_found());
    s.record(t0() + HOUR, down());
    assert!(!verdict(&s, t0() + HOUR * 2).0);
    let (allowed, reason) = verdict(&s, t0() + DAY * 3);
    assert!(allowed);
    assert!(matches!(reason, VerdictReason::LastGoodVersion { .. }));
}

#[test]
fn recovery_ends_the_run() {
    let mut s = OriginState::new();
    s.record(t0(), ok(RULES));
    s.record(t0() + HOUR, down());
    assert!(s.failing_since().is_some());
    s.record(t0() + HOUR * 2, ok("User-agent: *\nDisallow:\n"));
    assert_eq!(s.failing_since(), None);
    assert_eq!(verdict(&s, t0() + HOUR * 2), (true, VerdictReason::Fetched));
    // A new failure starts a new run: stop again for 12 hours.
    s.record(t0() + DAY * 2, down());
    assert_eq!(s.failing_since(), Some(t0() + DAY * 2));
    assert!(!verdict(&s, t0() + DAY * 2 + HOUR).0);
}

#[test]
fn history_keeps_changed_versions_for_30_days() {
    let mut s = OriginState::new();
    assert!(s.record(t0(), ok(RULES)));
    assert!(
        !s.record(t0() + HOUR, ok(RULES)),
        "same body: not a new version"
    );
    assert!(s.record(t0() + HOUR * 2, down()));
    assert!(!s.record(t0() + HOUR * 3, down()));
    assert!(s.record(t0() + HOUR * 4, ok(RULES)));
    assert_eq!(s.history().count(), 3);
    assert_eq!(s.last_fetch().map(|e| e.at), Some(t0() + HOUR * 4));
    // 40 days later, a new version: the old ones age out, the newest stays.
    assert!(s.record(t0() + DAY * 40, ok("User-agent: *\nDisallow: /x\n")));
    let kept: Vec<_> = s.history().map(|e| e.at).collect();
    assert_eq!(kept, [t0() + DAY * 40]);
    assert_eq!(s.history().last().map(|e| e.fetch.size()), Some(27));
}

#[test]
fn a_clock_that_goes_backwards_is_not_a_panic() {
    let mut s = OriginState::new();
    s.record(t0(), down());
    assert!(!verdict(&s, t0() - DAY).0);
}
