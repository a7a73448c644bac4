//! A politeness key's pace as `report`, `explain`, `/v1/robots` and MCP's `robots_report`
//! show it: the library's [`Pacing`] (the delay in force and why, the backoff, the next slot)
//! as a record and one sentence.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use crawlgate::engine::RobotsCache;
use crawlgate::policy::{GateOptions, GateState, Pacing, SpacingReason};
use crawlgate::{Origin, ProductToken, Robots};

use crate::clock::rfc3339;
pub use crate::schema::report::{BackoffView, Politeness};

/// The pace of `token` on a key whose schedule is `schedule`, under `robots` (the file in
/// force; `None` when the verdict is not a set of rules), with the engine's default gate
/// options (the command line's): what `RobotsCache::politeness` works out, from the state.
pub fn pacing(
    robots: Option<&Robots>,
    token: &ProductToken,
    schedule: Option<&GateState>,
    now: SystemTime,
) -> Pacing {
    let options = GateOptions::default();
    let crawl_delay = robots
        .and_then(|r| r.crawl_delay(token))
        .map(|d| Duration::try_from_secs_f64(d).unwrap_or(Duration::MAX));
    let rate = robots.and_then(|r| r.request_rate(token));
    let visit = robots.and_then(|r| r.visit_time(token));
    Pacing::at(
        crawl_delay,
        rate.as_ref(),
        schedule,
        visit.as_ref().map(|v| &v.window),
        now,
        &options,
    )
}

/// The agent a report's pace is shown for when none is named: the product token of the
/// User-Agent header robots.txt is fetched with (a header with none stands whole).
pub fn default_agent(user_agent: &str) -> ProductToken {
    ProductToken::from_user_agent(user_agent).unwrap_or_else(|_| ProductToken::verbatim(user_agent))
}

/// The `politeness` object of `origin` for `token` (named `agent`) as a running engine paces
/// it now: the library's [`RobotsCache::politeness`] (the key the permits take, the store's
/// schedule or else this process's, the engine's gate options), as [`view`] writes it. A
/// service's report reads it here, where the permits are; `report`, with no engine running,
/// reads the stored schedule ([`pacing`]). `None` when the origin's URL cannot be checked.
pub async fn now(
    cache: &RobotsCache,
    origin: &Origin,
    agent: &str,
    token: &ProductToken,
) -> Option<Politeness> {
    let p = cache.politeness(token, &format!("{origin}/")).await.ok()?;
    Some(view(agent, p.key.to_string(), &p.pacing, p.at))
}

/// The record of `pacing` for `agent` on `key`, read at `now`.
pub fn view(agent: &str, key: String, pacing: &Pacing, now: SystemTime) -> Politeness {
    let backoff = pacing.backoff.map(|b| BackoffView {
        step: b.step,
        until: rfc3339(b.until),
        active: b.holds(now),
        last_failure: rfc3339(b.last_failure),
        forgiven_at: rfc3339(b.forgiven_at),
    });
    let next_slot = (pacing.next_slot > now).then(|| rfc3339(pacing.next_slot));
    let mut p = Politeness {
        agent: agent.to_owned(),
        key,
        delay: pacing.spacing.delay.as_secs_f64(),
        reason: pacing.reason.as_str(),
        asked: pacing.asked.map(|d| d.as_secs_f64()),
        backoff,
        next_slot,
        text: String::new(),
    };
    p.text = sentence(&p, pacing.reason);
    p
}

/// `3 s between requests (Crawl-delay: 3 s); backed off (step 2) until T, forgiven at T'`:
/// times in RFC 3339 (the renderers localize them); nothing from the site but numbers.
fn sentence(p: &Politeness, reason: SpacingReason) -> String {
    let asked = p.asked.map_or_else(String::new, seconds);
    let why = match reason {
        SpacingReason::CrawlDelay => format!("Crawl-delay: {asked}"),
        SpacingReason::RequestRate => format!("Request-rate: one request per {asked}"),
        SpacingReason::Default => "the default delay; the site asks for none".to_owned(),
        SpacingReason::Floor => {
            format!("the default delay, a floor: the site asks for {asked}")
        }
        SpacingReason::Cap => format!("the longest delay honoured: the site asks for {asked}"),
        _ => reason.as_str().to_owned(),
    };
    let mut s = format!("{} between requests ({why})", seconds(p.delay));
    if let Some(b) = &p.backoff {
        if b.active {
            let _ = write!(s, "; backed off (step {}) until {}", b.step, b.until);
        } else {
            let _ = write!(s, "; a backoff (step {}) ended {}", b.step, b.until);
        }
        if b.step > 0 {
            let _ = write!(s, ", forgiven at {}", b.forgiven_at);
        }
    }
    match &p.next_slot {
        Some(t) => {
            let _ = write!(s, "; next request at {t}");
        }
        None => s.push_str("; next request now"),
    }
    s
}

/// `2.5 s`, `1 s`, `86400 s`.
fn seconds(s: f64) -> String {
    format!("{s} s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn a_backoff_reads_as_one_sentence() {
        let t = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let robots = Robots::parse(b"User-agent: *\nCrawl-delay: 3\n").robots;
        let token = ProductToken::new("bot").expect("token");
        let state = GateState {
            next_free: 1_800_000_003_000,
            backoff_until: 1_800_000_120_000,
            strikes: 2,
            last_failure: 1_800_000_000_000,
        };
        let p = view(
            "bot",
            "http://a.test".to_owned(),
            &pacing(Some(&robots), &token, Some(&state), t),
            t,
        );
        assert_eq!(
            p.text,
            "3 s between requests (Crawl-delay: 3 s); backed off (step 2) until \
             2027-01-15T08:02:00Z, forgiven at 2027-01-15T08:32:00Z; next request at \
             2027-01-15T08:02:00Z"
        );
        let idle = view(
            "bot",
            "http://a.test".to_owned(),
            &pacing(None, &token, None, t),
            t,
        );
        assert_eq!(
            idle.text,
            "1 s between requests (the default delay; the site asks for none); next request now"
        );
    }
}
