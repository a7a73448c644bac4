//! The failure ladder and the stored state over simulated time (RFC 9309 §2.3.1, Google's
//! documented behaviour): no waiting, explicit `now`.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crawlgate::policy::{
    Applied, Change, Content, Digest, Fetch, FetchOutcome, FetchRecord, OriginState, PolicyOptions,
    Unavailable, Unreachable, Verdict, VerdictReason, MAX_VERSIONS,
};
use crawlgate::{ProductToken, Robots};

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);

fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn fetch(status: Option<u16>, outcome: FetchOutcome) -> Fetch {
    Fetch::new("https://example.com/robots.txt", status, outcome)
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

/// Every body the tests fetch: the verdict `Rules` means "the last good file", found by digest.
const BODIES: [&str; 4] = [
    RULES,
    "User-agent: *\nDisallow: /other\n",
    "User-agent: *\nDisallow:\n",
    "User-agent: *\nDisallow: /x\n",
];

/// Allowed to fetch `/private` as `bot` at `at`?
fn verdict(s: &OriginState, at: SystemTime) -> (bool, VerdictReason) {
    let j = s.verdict_at(at, &PolicyOptions::default());
    let allowed = match j.verdict {
        Verdict::Rules => {
            let file = s.good_file().expect("rules mean a good file");
            let body = BODIES
                .iter()
                .find(|b| Digest::of(b.as_bytes()) == file.digest)
                .expect("a known body");
            Robots::parse(body.as_bytes())
                .robots
                .is_allowed(&ProductToken::new("bot").expect("token"), "/private")
        }
        Verdict::AllowAll => true,
        Verdict::DisallowAll => false,
    };
    (allowed, j.reason)
}

const RULES: &str = "User-agent: *\nDisallow: /private\n";

#[test]
fn fetched_rules_and_404_allow_all() {
    let mut s = OriginState::new();
    assert_eq!(verdict(&s, t0()).1, VerdictReason::NotFetched);
    s.record(t0(), &ok(RULES));
    assert_eq!(verdict(&s, t0()), (false, VerdictReason::Fetched));
    s.record(t0() + HOUR, &not_found());
    assert_eq!(
        verdict(&s, t0() + HOUR),
        (true, VerdictReason::NoRobotsTxt(Unavailable::Status(404)))
    );
}

#[test]
fn ladder_with_a_last_good_version() {
    let mut s = OriginState::new();
    s.record(t0(), &ok("User-agent: *\nDisallow: /other\n"));
    let fail = t0() + DAY;
    s.record(fail, &down());
    // Hours 0 to 12 of the run: stop, whatever the last version said.
    for h in [0, 1, 6, 11] {
        let (allowed, reason) = verdict(&s, fail + HOUR * h);
        assert!(!allowed, "hour {h}");
        assert!(matches!(reason, VerdictReason::Unreachable { since, .. } if since == fail));
    }
    // Retries keep failing: the run's start does not move.
    s.record(fail + HOUR * 5, &down());
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
                fetched_at: t0(),
                until: fail + DAY * 30,
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
    s.record_site_availability(day31, true);
    assert_eq!(
        verdict(&s, day31),
        (true, VerdictReason::LongUnreachableSiteUp { since: fail })
    );
    s.record_site_availability(day31, false);
    assert!(!verdict(&s, day31).0);
}

#[test]
fn ladder_without_a_good_version_and_strict_mode() {
    let mut s = OriginState::new();
    s.record(t0(), &down());
    assert!(!verdict(&s, t0() + HOUR).0);
    let day2 = t0() + DAY * 2;
    assert_eq!(
        verdict(&s, day2),
        (true, VerdictReason::NoGoodVersion { since: t0() })
    );
    let mut strict = PolicyOptions::default();
    strict.strict = true;
    assert!(matches!(
        s.verdict_at(day2, &strict).verdict,
        Verdict::DisallowAll
    ));
}

#[test]
fn a_404_is_a_good_version_too() {
    let mut s = OriginState::new();
    s.record(t0(), &not_found());
    s.record(t0() + HOUR, &down());
    assert!(!verdict(&s, t0() + HOUR * 2).0);
    let (allowed, reason) = verdict(&s, t0() + DAY * 3);
    assert!(allowed);
    assert!(matches!(reason, VerdictReason::LastGoodVersion { .. }));
}

#[test]
fn recovery_ends_the_run() {
    let mut s = OriginState::new();
    s.record(t0(), &ok(RULES));
    s.record(t0() + HOUR, &down());
    assert!(s.failing_since().is_some());
    s.record(t0() + HOUR * 2, &ok("User-agent: *\nDisallow:\n"));
    assert_eq!(s.failing_since(), None);
    assert_eq!(verdict(&s, t0() + HOUR * 2), (true, VerdictReason::Fetched));
    // A new failure starts a new run: stop again for 12 hours.
    s.record(t0() + DAY * 2, &down());
    assert_eq!(s.failing_since(), Some(t0() + DAY * 2));
    assert!(!verdict(&s, t0() + DAY * 2 + HOUR).0);
}

#[test]
fn history_keeps_changed_versions_for_30_days() {
    let mut s = OriginState::new();
    assert!(s.record(t0(), &ok(RULES)));
    assert!(
        !s.record(t0() + HOUR, &ok(RULES)),
        "same body: not a new version"
    );
    assert!(s.record(t0() + HOUR * 2, &down()));
    assert!(!s.record(t0() + HOUR * 3, &down()));
    assert!(s.record(t0() + HOUR * 4, &ok(RULES)));
    assert_eq!(s.history().count(), 3);
    assert_eq!(s.last_fetch().map(|e| e.last_at), Some(t0() + HOUR * 4));
    // 40 days later, a new version: the old ones age out, the newest stays.
    assert!(s.record(t0() + DAY * 40, &ok("User-agent: *\nDisallow: /x\n")));
    let kept: Vec<_> = s.history().map(|e| e.first_at).collect();
    assert_eq!(kept, [t0() + DAY * 40]);
    assert!(matches!(
        s.history().last().map(|e| &e.content),
        Some(Content::Rules(f)) if f.size == 27
    ));
}

#[test]
fn a_clock_that_goes_backwards_is_not_a_panic() {
    let mut s = OriginState::new();
    s.record(t0(), &down());
    assert!(!verdict(&s, t0() - DAY).0);
}

/// A fetch record that started at `started` in `epoch`, completed at `at`.
fn record_in(epoch: u64, at: SystemTime, fetch: &Fetch, s: &OriginState) -> Change {
    let mut r = FetchRecord::new(fetch, s, at, at, at + HOUR);
    r.epoch = epoch;
    Change::Fetched(r)
}

#[test]
fn identical_results_coalesce_with_first_last_and_count() {
    let mut s = OriginState::new();
    for h in 0..10 {
        s.record(t0() + HOUR * h, &ok(RULES));
    }
    for h in 10..15 {
        s.record(t0() + HOUR * h, &down());
    }
    let runs: Vec<_> = s
        .history()
        .map(|v| (v.first_at, v.last_at, v.count, v.content.as_str()))
        .collect();
    assert_eq!(
        runs,
        [
            (t0(), t0() + HOUR * 9, 10, "fetched"),
            (t0() + HOUR * 10, t0() + HOUR * 14, 5, "unreachable"),
        ]
    );
    // A different failure is a different entry.
    s.record(
        t0() + HOUR * 15,
        &fetch(
            Some(502),
            FetchOutcome::Unreachable(Unreachable::Status(502)),
        ),
    );
    assert_eq!(s.history().len(), 3);
}

#[test]
fn a_flapping_site_stays_within_the_cap_and_keeps_its_files() {
    let mut s = OriginState::new();
    s.record(t0(), &ok(RULES));
    s.record(t0() + HOUR, &ok(BODIES[1]));
    // 502, 503, 502, … every minute for a day: every fetch a new entry.
    for m in 0..1440u32 {
        let status = if m % 2 == 0 { 502 } else { 503 };
        let at = t0() + HOUR * 2 + Duration::from_secs(60 * u64::from(m));
        s.record(
            at,
            &fetch(
                Some(status),
                FetchOutcome::Unreachable(Unreachable::Status(status)),
            ),
        );
    }
    assert_eq!(s.history().len(), MAX_VERSIONS);
    // Failures went first: both files are still in the history.
    let files = s.history().filter(|v| v.content.digest().is_some()).count();
    assert_eq!(files, 2);
    assert_eq!(s.failing_since(), Some(t0() + HOUR * 2));
    assert_eq!(s.digests().len(), 2);
}

#[test]
fn a_fetch_older_than_a_recrawl_request_is_dropped() {
    let mut s = OriginState::new();
    s.record(t0(), &ok(RULES));
    // A refresh starts in epoch 0; meanwhile a recrawl is requested and its fetch lands first.
    let refresh_epoch = s.epoch();
    s.apply(&Change::RecrawlRequested { at: t0() + HOUR });
    assert_eq!(s.epoch(), refresh_epoch + 1);
    assert!(s.is_due(t0() + HOUR), "a recrawl makes the origin due");
    let fixed = ok(BODIES[2]);
    let applied = s.apply(&record_in(s.epoch(), t0() + HOUR, &fixed, &s.clone()));
    assert_eq!(applied, Applied::Recorded { new_version: true });
    // The old refresh lands after it, with the old rules: dropped.
    let old = ok(RULES);
    let applied = s.apply(&record_in(refresh_epoch, t0() + HOUR * 2, &old, &s.clone()));
    assert_eq!(applied, Applied::Stale);
    assert_eq!(verdict(&s, t0() + HOUR * 2), (true, VerdictReason::Fetched));
}

#[test]
fn a_304_re_confirms_the_file_its_validators_belong_to() {
    let mut s = OriginState::new();
    let mut first = ok(RULES);
    first.etag = Some("\"v1\"".into());
    first.last_modified = Some("Sun, 06 Nov 1994 08:49:37 GMT".into());
    s.record(t0(), &first);
    let v = s.validators().expect("validators of the good file");
    assert_eq!(v.etag.as_deref(), Some("\"v1\""));
    assert_eq!(v.digest, Digest::of(RULES.as_bytes()));
    s.record(t0() + HOUR, &down());
    assert!(s.failing_since().is_some());
    let not_modified = fetch(Some(304), FetchOutcome::NotModified { digest: v.digest });
    s.record(t0() + DAY, &not_modified);
    assert_eq!(s.failing_since(), None, "a 304 is a successful fetch");
    assert_eq!(s.last_good().map(|(at, _)| at), Some(t0() + DAY));
    assert_eq!(verdict(&s, t0() + DAY), (false, VerdictReason::Fetched));
    // History: the file, the failure, the file again (re-confirmed, not a new body).
    let kinds: Vec<_> = s
        .history()
        .map(|v| (v.content.as_str(), v.status))
        .collect();
    assert_eq!(
        kinds,
        [
            ("fetched", Some(200)),
            ("unreachable", Some(503)),
            ("fetched", Some(304))
        ]
    );
    // A 304 for a file the state does not know tells nothing: unreachable.
    let unknown = fetch(
        Some(304),
        FetchOutcome::NotModified {
            digest: Digest::of(b"something else"),
        },
    );
    let mut fresh = OriginState::new();
    fresh.record(t0(), &unknown);
    assert!(matches!(
        verdict(&fresh, t0()).1,
        VerdictReason::Unreachable { .. }
    ));
}

#[test]
fn an_old_site_up_report_no_longer_counts() {
    let mut s = OriginState::new();
    s.record(t0(), &down());
    let day31 = t0() + DAY * 31;
    s.record_site_availability(t0() + DAY, true);
    // The report is 30 days old on day 31: still counts; a day later it does not.
    assert!(verdict(&s, day31).0);
    let day32 = t0() + DAY * 32;
    assert_eq!(
        verdict(&s, day32),
        (
            false,
            VerdictReason::LongUnreachableSiteDown { since: t0() }
        )
    );
    // Reports landing out of order: the newest wins.
    s.record_site_availability(day32, true);
    s.record_site_availability(t0() + DAY * 2, false);
    assert_eq!(s.site_report().map(|r| (r.at, r.up)), Some((day32, true)));
    let mut window = PolicyOptions::default();
    window.availability_window = HOUR;
    assert!(matches!(
        s.verdict_at(day32 + HOUR * 2, &window).verdict,
        Verdict::DisallowAll
    ));
}

#[test]
fn an_origin_404_for_30_days_is_dormant_until_it_answers_otherwise() {
    let mut s = OriginState::new();
    s.record(t0(), &not_found());
    for d in 1..30 {
        s.record(t0() + DAY * d, &not_found());
        assert!(!s.is_dormant(t0() + DAY * d), "day {d}");
    }
    s.record(t0() + DAY * 30, &not_found());
    assert!(s.is_dormant(t0() + DAY * 30));
    assert_eq!(s.history().len(), 1, "one run of 404s");
    s.record(t0() + DAY * 31, &ok(RULES));
    assert!(!s.is_dormant(t0() + DAY * 31));
}

/// Records `fetch`, completed at `at` and due again at `next_due`, as the engine does.
fn fetched(s: &mut OriginState, at: SystemTime, fetch: &Fetch, next_due: SystemTime) {
    let record = FetchRecord::new(fetch, s, at, at, next_due);
    s.apply(&Change::Fetched(record));
}

/// The reason texts, one per reason: the cause once, and the times that matter (when the stop
/// ends and when robots.txt is tried again; which version is used, until when).
#[test]
fn reason_texts_name_the_cause_once_with_their_times() {
    let text = |s: &OriginState, at: SystemTime| verdict(s, at).1.to_string();
    let t = |at: SystemTime| crawlgate::policy::Rfc3339(at).to_string();
    assert_eq!(t(t0()), "2027-01-15T08:00:00Z");

    let mut s = OriginState::new();
    assert_eq!(text(&s, t0()), "robots.txt not fetched yet");
    fetched(&mut s, t0(), &ok(RULES), t0() + DAY);
    assert_eq!(text(&s, t0()), "robots.txt fetched");

    // A 503 a day later, tried again in 5 minutes: the stop lasts 12 hours, the next attempt
    // is in 5 minutes, and the cause is said once.
    let fail = t0() + DAY;
    fetched(&mut s, fail, &down(), fail + Duration::from_secs(300));
    let unreachable = text(&s, fail + HOUR);
    assert_eq!(
        unreachable,
        "robots.txt unreachable (HTTP 503): not crawling until 2027-01-16T20:00:00Z, \
         next attempt 2027-01-16T08:05:00Z"
    );
    assert_eq!(unreachable.matches("503").count(), 1);
    assert!(!unreachable.contains("stopped"), "{unreachable}");
    // Recorded as due again at once: the next attempt is the failure's own time.
    let mut due = OriginState::new();
    due.record(fail, &down());
    assert!(text(&due, fail).ends_with("next attempt 2027-01-16T08:00:00Z"));

    assert_eq!(
        text(&s, fail + DAY),
        "robots.txt unreachable since 2027-01-16T08:00:00Z: using the version fetched \
         2027-01-15T08:00:00Z until 2027-02-15T08:00:00Z"
    );
    assert_eq!(
        text(&s, fail + DAY * 31),
        "robots.txt unreachable for over 30 days and the site is down: crawling stopped"
    );
    s.record_site_availability(fail + DAY * 31, true);
    assert_eq!(
        text(&s, fail + DAY * 31),
        "robots.txt unreachable for over 30 days while the site is up: everything allowed"
    );

    let mut never = OriginState::new();
    never.record(fail, &down());
    assert_eq!(
        text(&never, fail + DAY),
        "robots.txt unreachable and never fetched: no known restrictions"
    );
    let mut gone = OriginState::new();
    gone.record(fail, &not_found());
    assert_eq!(
        text(&gone, fail),
        "no robots.txt (HTTP 404): everything allowed"
    );
}
