//! The time the commands take as now: the system's clock, or the fixed time in `CRAWLGATE_NOW`
//! (RFC 3339, `2026-11-22T10:00:00Z`), so that tests and reproducible reports can run the
//! failure rules' 12 hours and 30 days without waiting for them; and how times are written
//! (RFC 3339, UTC).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use crawlgate::engine::{Clock, ManualClock, SystemClock};

/// The variable that fixes the time.
pub const NOW_VAR: &str = "CRAWLGATE_NOW";

/// The clock the engine uses: fixed when `CRAWLGATE_NOW` is set.
pub fn clock() -> anyhow::Result<Arc<dyn Clock>> {
    Ok(match fixed()? {
        Some(t) => Arc::new(ManualClock::new(t)),
        None => Arc::new(SystemClock),
    })
}

/// Now, by [`clock`].
pub fn now() -> anyhow::Result<SystemTime> {
    Ok(fixed()?.unwrap_or_else(SystemTime::now))
}

fn fixed() -> anyhow::Result<Option<SystemTime>> {
    let Some(value) = std::env::var_os(NOW_VAR) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .with_context(|| format!("{NOW_VAR} is not UTF-8"))?;
    let at: jiff::Timestamp = text.parse().with_context(|| {
        format!("{NOW_VAR}={text:?} is not an RFC 3339 time such as 2026-11-22T10:00:00Z")
    })?;
    let ms = at.as_millisecond();
    let t = u64::try_from(ms)
        .ok()
        .map(|ms| UNIX_EPOCH + Duration::from_millis(ms))
        .with_context(|| format!("{NOW_VAR}={text:?} is before 1970"))?;
    Ok(Some(t))
}

/// `2026-11-22T18:45:00Z`: UTC, whole seconds (times before 1970 count back from it); the
/// library's form, so that the reason texts and the rest of the output agree.
pub fn rfc3339(t: SystemTime) -> String {
    crawlgate::policy::Rfc3339(t).to_string()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(at(1_795_373_100)), "2026-11-22T18:45:00Z");
        // A leap day, and the last second of a century year that is not a leap year.
        assert_eq!(rfc3339(at(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(at(4_107_542_399)), "2100-02-28T23:59:59Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH - Duration::from_millis(500)),
            "1969-12-31T23:59:59Z"
        );
        assert_eq!(
            rfc3339(at(1_795_373_100) + Duration::from_millis(999)),
            "2026-11-22T18:45:00Z"
        );
    }
}
