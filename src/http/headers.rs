//! The response headers a fetch reads: `Cache-Control: max-age` and `Retry-After` (with the
//! three HTTP-date forms of [RFC 9110 §5.6.7]), the markers of a challenge at the edge
//! (the table is [`CHALLENGE_MARKERS`], in `policy`) and the price headers of a 402.
//!
//! [RFC 9110 §5.6.7]: https://www.rfc-editor.org/rfc/rfc9110.html#section-5.6.7

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::{HeaderMap, CACHE_CONTROL, RETRY_AFTER};

use crate::policy::challenge_marker;
pub use crate::policy::{ChallengeMarker, CHALLENGE_MARKERS};

/// The first challenge marker among `headers`, as `name: value` (the table's spelling).
pub(crate) fn challenge(headers: &HeaderMap) -> Option<String> {
    CHALLENGE_MARKERS.iter().find_map(|m| {
        headers
            .get_all(m.header)
            .iter()
            .any(|v| challenge_marker(m.header, v.as_bytes()) == Some(m))
            .then(|| format!("{}: {}", m.header, m.value))
    })
}

/// The price headers of a 402: every `crawler-*` header with a visible-ASCII value, in order
/// (bounded by [`Payment::new`]).
///
/// [`Payment::new`]: crate::policy::Payment::new
pub(crate) fn price_headers(headers: &HeaderMap) -> crate::policy::Payment {
    crate::policy::Payment::new(
        headers
            .iter()
            .filter(|(name, _)| name.as_str().starts_with("crawler-"))
            .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?))),
    )
}

/// The largest `max-age` or `Retry-After` kept, in seconds (RFC 9111 §1.2.2).
const MAX_DELTA_SECONDS: u64 = 1 << 31;

/// `Cache-Control: max-age=N` (the first one, over all `Cache-Control` headers).
pub(crate) fn max_age(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|directive| {
            let (name, value) = directive.split_once('=')?;
            if !name.trim().eq_ignore_ascii_case("max-age") {
                return None;
            }
            delta_seconds(value.trim().trim_matches('"'))
        })
}

/// `Retry-After`: delta-seconds, or an HTTP-date turned into the time left from `now` (zero
/// if it has passed).
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    retry_after_value(headers.get(RETRY_AFTER)?.to_str().ok()?, now)
}

/// One `Retry-After` value: delta-seconds, or an HTTP-date turned into the time left from
/// `now` (zero if it has passed).
pub(crate) fn retry_after_value(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Some(d) = delta_seconds(value) {
        return Some(d);
    }
    let at = parse_http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// `1*DIGIT` as seconds, capped at 2³¹.
fn delta_seconds(s: &str) -> Option<Duration> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs = s.parse::<u64>().unwrap_or(u64::MAX).min(MAX_DELTA_SECONDS);
    Some(Duration::from_secs(secs))
}

/// An HTTP-date (RFC 9110 §5.6.7) in any of its three forms:
/// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`.
fn parse_http_date(s: &str) -> Option<SystemTime> {
    let tokens: Vec<&str> = s.split_whitespace().collect();
    let (day, month, year, time) = match tokens.as_slice() {
        [_, day, mon, year, time, gmt] if gmt.eq_ignore_ascii_case("GMT") => {
            (num(day)?, month(mon)?, num(year)?, *time)
        }
        [_, dmy, time, gmt] if gmt.eq_ignore_ascii_case("GMT") => {
            let mut parts = dmy.split('-');
            let day = num(parts.next()?)?;
            let mon = month(parts.next()?)?;
            let yy = parts.next()?;
            if parts.next().is_some() {
                return None;
            }
            let year = match (yy.len(), num(yy)?) {
                (2, y) if y < 70 => 2000 + y,
                (2, y) => 1900 + y,
                (_, y) => y,
            };
            (day, mon, year, *time)
        }
        [_, mon, day, time, year] => (num(day)?, month(mon)?, num(year)?, *time),
        _ => return None,
    };
    let mut hms = time.split(':');
    let (h, m, sec) = (num(hms.next()?)?, num(hms.next()?)?, num(hms.next()?)?);
    if hms.next().is_some()
        || !(1..=31).contains(&day)
        || !(1970..=9999).contains(&year)
        || h > 23
        || m > 59
        || sec > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + h * 3600 + m * 60 + sec;
    Some(UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).ok()?))
}

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn month(s: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let i = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(s))?;
    i64::try_from(i + 1).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A header map of `pairs`, for the tests of this module and of `client.rs`.
#[cfg(test)]
pub(crate) fn header_map(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, reqwest::header::HeaderValue::from_static(value));
    }
    map
}

#[cfg(test)]
mod tests {
    use super::header_map as headers;
    use super::*;

    #[test]
    fn cache_control_max_age() {
        type Case = (&'static [(&'static str, &'static str)], Option<u64>);
        let cases: [Case; 8] = [
            (&[("cache-control", "max-age=3600")], Some(3600)),
            (
                &[("cache-control", "public, Max-Age = 60 , no-cache")],
                Some(60),
            ),
            (
                &[
                    ("cache-control", "no-store"),
                    ("cache-control", "max-age=5"),
                ],
                Some(5),
            ),
            (&[("cache-control", "max-age=\"7\"")], Some(7)),
            (&[("cache-control", "s-maxage=9")], None),
            (&[("cache-control", "max-age=-1")], None),
            (
                &[("cache-control", "max-age=99999999999999999999999")],
                Some(1 << 31),
            ),
            (&[], None),
        ];
        for (pairs, want) in cases {
            assert_eq!(
                max_age(&headers(pairs)),
                want.map(Duration::from_secs),
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn retry_after_forms() {
        // 1994-11-06T08:49:37Z
        let date = UNIX_EPOCH + Duration::from_secs(784_111_777);
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(parse_http_date(form), Some(date), "{form}");
        }
        let now = date - Duration::from_secs(90);
        let h = |v: &'static str| headers(&[("retry-after", v)]);
        assert_eq!(retry_after(&h("120"), now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after(&h("Sun, 06 Nov 1994 08:49:37 GMT"), now),
            Some(Duration::from_secs(90))
        );
        // A date in the past: retry now.
        assert_eq!(
            retry_after(
                &h("Sun, 06 Nov 1994 08:49:37 GMT"),
                date + Duration::from_secs(5)
            ),
            Some(Duration::ZERO)
        );
        for bad in [
            "soon",
            "-5",
            "1.5",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "",
        ] {
            assert_eq!(retry_after(&h(bad), now), None, "{bad:?}");
        }
        assert_eq!(
            parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"),
            Some(UNIX_EPOCH)
        );
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2000 12:00:00 GMT"),
            Some(UNIX_EPOCH + Duration::from_secs(951_825_600))
        );
    }
}
