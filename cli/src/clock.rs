//! The time the commands take as now: the system's clock, or the fixed time in `CRAWLGATE_NOW`
//! (RFC 3339, `2026-11-22T10:00:00Z`), so that tests and reproducible reports can run the
//! failure rules' 12 hours and 30 days without waiting for them.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use crawlgate::fetch::{Clock, ManualClock, SystemClock};

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
