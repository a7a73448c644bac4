//! `Request-rate` and `Visit-time` values, typed. Neither is in RFC 9309 and Google ignores
//! both; they come from the 1996 "extended standard" drafts, and crawlers that want to be
//! gentler than the rules require may use them. Times of day are UTC, as the drafts say.
//!
//! - `Request-rate: n/m[unit] [HHMM-HHMM]`: at most `n` documents per `m` seconds (unit `s`,
//!   the default), minutes (`m`) or hours (`h`), only inside the window when one is given.
//! - `Visit-time: HHMM-HHMM`: crawl only inside this window.
//!
//! A malformed value parses to `None`; nothing here panics.

use std::time::Duration;

/// A time-of-day window in UTC, minute precision, both ends included. A window whose end is
/// before its start wraps past midnight (`2300-0300`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeWindow {
    /// Minutes after midnight UTC at which the window opens (0..1440).
    pub start: u16,
    /// Minutes after midnight UTC of the last minute inside the window (0..1440).
    pub end: u16,
}

impl TimeWindow {
    /// Parses `HHMM-HHMM` (or `HH:MM-HH:MM`).
    pub fn parse(s: &str) -> Option<TimeWindow> {
        let (a, b) = s.trim().split_once('-')?;
        Some(TimeWindow {
            start: hhmm(a)?,
            end: hhmm(b)?,
        })
    }

    /// Whether `minute` (minutes after midnight UTC) is inside the window.
    pub fn contains(&self, minute: u16) -> bool {
        if self.start <= self.end {
            (self.start..=self.end).contains(&minute)
        } else {
            minute >= self.start || minute <= self.end
        }
    }

    /// Whether the window contains the moment `unix_secs` seconds after the Unix epoch.
    pub fn contains_unix(&self, unix_secs: u64) -> bool {
        // Both fit: the remainder is below 1440.
        self.contains(((unix_secs / 60) % 1440) as u16)
    }
}

/// `HHMM` or `HH:MM` → minutes after midnight.
fn hhmm(s: &str) -> Option<u16> {
    let s = s.trim();
    let digits: String = s.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if s.contains(':') && s.find(':') != Some(2) {
        return None;
    }
    let h: u16 = digits[..2].parse().ok()?;
    let m: u16 = digits[2..].parse().ok()?;
    (h < 24 && m < 60).then_some(h * 60 + m)
}

/// A `Request-rate` value: at most [`RequestRate::requests`] documents per
/// [`RequestRate::per`], inside [`RequestRate::window`] if there is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestRate {
    /// How many documents (at least 1).
    pub requests: u32,
    /// Per how long (at least one second).
    pub per: Duration,
    /// When the rate applies (UTC); always, when `None`.
    pub window: Option<TimeWindow>,
}

impl RequestRate {
    /// Parses `n/m[s|m|h] [HHMM-HHMM]` (`1/5`, `3/10s`, `100/1h 0600-0845`). Zero, negative,
    /// fractional or overflowing numbers, unknown units and bad windows give `None`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use crawlgate::robots::RequestRate;
    /// let r = RequestRate::parse("3/10s").unwrap();
    /// assert_eq!((r.requests, r.per), (3, Duration::from_secs(10)));
    /// assert_eq!(r.interval(), Duration::from_millis(3334));
    /// assert!(RequestRate::parse("3/0").is_none());
    /// ```
    pub fn parse(s: &str) -> Option<RequestRate> {
        let mut parts = s.split_whitespace();
        let rate = parts.next()?;
        let window = match parts.next() {
            Some(w) => Some(TimeWindow::parse(w)?),
            None => None,
        };
        if parts.next().is_some() {
            return None;
        }
        let (n, m) = rate.split_once('/')?;
        let requests: u32 = digits(n)?.try_into().ok()?;
        let m = m.trim();
        let (number, unit) = match m.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
            Some((i, _)) => m.split_at(i),
            None => (m, ""),
        };
        let scale: u64 = match unit.to_ascii_lowercase().as_str() {
            "" | "s" => 1,
            "m" => 60,
            "h" => 3600,
            _ => return None,
        };
        let secs = digits(number)?.checked_mul(scale)?;
        if requests == 0 || secs == 0 {
            return None;
        }
        Some(RequestRate {
            requests,
            per: Duration::from_secs(secs),
            window,
        })
    }

    /// The even spacing that keeps to the rate: `per / requests`, rounded up to a whole
    /// millisecond (so that `n` requests never fit in less than `per`).
    pub fn interval(&self) -> Duration {
        let per_ms = self.per.as_millis();
        let n = u128::from(self.requests.max(1));
        let ms = per_ms.div_ceil(n);
        Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX))
    }

    /// Whether the rate applies at `unix_secs` (always, without a window).
    pub fn applies_at(&self, unix_secs: u64) -> bool {
        self.window.is_none_or(|w| w.contains_unix(unix_secs))
    }
}

/// A `Visit-time` value: when the site would like to be crawled (UTC). Reported, not enforced
/// by the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VisitTime {
    /// The window.
    pub window: TimeWindow,
}

impl VisitTime {
    /// Parses `HHMM-HHMM` (`0600-0845`); anything else gives `None`.
    pub fn parse(s: &str) -> Option<VisitTime> {
        let s = s.trim();
        if s.split_whitespace().count() != 1 {
            return None;
        }
        Some(VisitTime {
            window: TimeWindow::parse(s)?,
        })
    }
}

/// A non-empty run of ASCII digits as a number (`None` on overflow).
fn digits(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_rates() {
        let r = RequestRate::parse("1/5").unwrap();
        assert_eq!(
            (r.requests, r.per, r.window),
            (1, Duration::from_secs(5), None)
        );
        let r = RequestRate::parse("3/10s").unwrap();
        assert_eq!(r.interval(), Duration::from_millis(3334));
        assert_eq!(
            RequestRate::parse("2/1m").unwrap().per,
            Duration::from_secs(60)
        );
        assert_eq!(
            RequestRate::parse("100/24H").unwrap().per,
            Duration::from_secs(86_400)
        );
        let r = RequestRate::parse(" 1/10s  0600-0845 ").unwrap();
        assert_eq!(
            r.window,
            Some(TimeWindow {
                start: 360,
                end: 525
            })
        );
        assert!(r.applies_at(7 * 3600));
        assert!(!r.applies_at(9 * 3600));
        assert!(!r.applies_at(86_400 + 5 * 3600));
    }

    #[test]
    fn malformed_request_rates_are_none() {
        for bad in [
            "",
            "/",
            "1/",
            "/5",
            "0/5",
            "1/0",
            "1/0s",
            "-1/5",
            "1/-5",
            "1.5/5",
            "1/2.5",
            "1/5d",
            "1/5ss",
            "a/b",
            "1/5 0600",
            "1/5 2500-0100",
            "1/5 0600-0860",
            "1/5 0600-0700 x",
            "99999999999/1",
            "1/99999999999999999999",
            "1/9999999999999999h",
            "1 / 5",
        ] {
            assert_eq!(RequestRate::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn windows_and_visit_times() {
        let v = VisitTime::parse("2300-0300").unwrap();
        assert!(v.window.contains(23 * 60 + 30));
        assert!(v.window.contains(60));
        assert!(v.window.contains(180));
        assert!(!v.window.contains(181));
        assert!(!v.window.contains(12 * 60));
        assert_eq!(
            VisitTime::parse("06:00-08:45").map(|v| v.window),
            TimeWindow::parse("0600-0845")
        );
        for bad in [
            "",
            "0600",
            "0600-",
            "600-0845",
            "0600-0845 x",
            "06:0-0845",
            "2400-0100",
        ] {
            assert_eq!(VisitTime::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn robots_gives_the_first_well_formed_value_of_the_agents_groups() {
        use crate::{ProductToken, Robots};
        let body =
            b"User-agent: a\nRequest-rate: 1/0\nRequest-rate: 2/1m\nVisit-time: 25:00-26:00\nDisallow: /x\n\
                     \nUser-agent: b\nRequest-rate: x\nVisit-time: 0100-0200\n";
        let parsed = Robots::parse(body);
        let a = ProductToken::new("a").unwrap();
        let b = ProductToken::new("b").unwrap();
        let c = ProductToken::new("c").unwrap();
        let rate = parsed.robots.request_rate(&a).unwrap();
        assert_eq!((rate.requests, rate.per), (2, Duration::from_secs(60)));
        assert_eq!(parsed.robots.visit_time(&a), None);
        assert_eq!(parsed.robots.request_rate(&b), None);
        assert_eq!(
            parsed.robots.visit_time(&b).map(|v| v.window),
            TimeWindow::parse("0100-0200")
        );
        assert_eq!(parsed.robots.request_rate(&c), None);
    }
}
