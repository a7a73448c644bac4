//! The reason texts: what each [`VerdictReason`] says, in one table, and the one way times are
//! written in them ([`Rfc3339`]). The engine's refusals, the command line (its plain lines,
//! `fetch`, `report`) and the Python package print these texts and no others.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use super::VerdictReason;

/// The table: one text per reason, naming the cause once and the times that matter.
///
/// | reason | text |
/// |---|---|
/// | `fetched` | `robots.txt fetched` |
/// | `no-robots-txt` | `no robots.txt (HTTP 404): everything allowed` |
/// | `not-fetched` | `robots.txt not fetched yet` |
/// | `unreachable` | `robots.txt unreachable (HTTP 503): not crawling until TIME, next attempt TIME` |
/// | `last-good-version` | `robots.txt unreachable since TIME: using the version fetched TIME until TIME` |
/// | `no-good-version` | `robots.txt unreachable and never fetched: no known restrictions` |
/// | `long-unreachable-site-up` | `robots.txt unreachable for over 30 days while the site is up: everything allowed` |
/// | `long-unreachable-site-down` | `robots.txt unreachable for over 30 days and the site is down: crawling stopped` |
/// | `payment-required` | `robots.txt answered payment required (crawler-price: USD 0.01): crawling stopped` |
impl fmt::Display for VerdictReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerdictReason::Fetched => f.write_str("robots.txt fetched"),
            VerdictReason::NoRobotsTxt(why) => {
                write!(f, "no robots.txt ({why}): everything allowed")
            }
            VerdictReason::NotFetched => f.write_str("robots.txt not fetched yet"),
            VerdictReason::Unreachable {
                cause,
                until,
                next_attempt,
                ..
            } => {
                write!(
                    f,
                    "robots.txt unreachable ({cause}): not crawling until {}, next attempt ",
                    Rfc3339(*until)
                )?;
                match next_attempt {
                    Some(at) => write!(f, "{}", Rfc3339(*at)),
                    None => f.write_str("now"),
                }
            }
            VerdictReason::LastGoodVersion {
                since,
                fetched_at,
                until,
            } => write!(
                f,
                "robots.txt unreachable since {}: using the version fetched {} until {}",
                Rfc3339(*since),
                Rfc3339(*fetched_at),
                Rfc3339(*until)
            ),
            VerdictReason::NoGoodVersion { .. } => {
                f.write_str("robots.txt unreachable and never fetched: no known restrictions")
            }
            VerdictReason::LongUnreachableSiteUp { .. } => f.write_str(
                "robots.txt unreachable for over 30 days while the site is up: everything allowed",
            ),
            VerdictReason::LongUnreachableSiteDown { .. } => f.write_str(
                "robots.txt unreachable for over 30 days and the site is down: crawling stopped",
            ),
            VerdictReason::PaymentRequired(p) => {
                write!(f, "robots.txt answered {p}: crawling stopped")
            }
        }
    }
}

/// A time written as RFC 3339 in UTC, whole seconds: `2026-11-22T18:45:00Z` (a time before
/// 1970 counts back from it). The form of every time in the reason texts.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use crawlgate::policy::Rfc3339;
/// let t = UNIX_EPOCH + Duration::from_secs(1_795_373_100);
/// assert_eq!(Rfc3339(t).to_string(), "2026-11-22T18:45:00Z");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rfc3339(pub SystemTime);

impl fmt::Display for Rfc3339 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs: i64 = match self.0.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            // Floor: 0.5 s before the epoch is 1969-12-31T23:59:59Z.
            Err(e) => {
                let d = e.duration();
                let whole = d.as_secs() + u64::from(d.subsec_nanos() > 0);
                -i64::try_from(whole).unwrap_or(i64::MAX)
            }
        };
        let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
        let s = secs.rem_euclid(86_400);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            s / 3600,
            s % 3600 / 60,
            s % 60
        )
    }
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to (year, month, day) in the
/// proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
