//! `SystemTime` as whole milliseconds since the Unix epoch: the unit of stored states (compact,
//! and readable in a JSON dump) and of the gate's schedule (which the Redis script computes on
//! the server's clock too). Times before 1970 are 0 (no fetch happens then).

use std::time::Duration;
#[cfg(any(feature = "serde", feature = "fetch"))]
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the epoch (0 before it), saturating.
#[cfg(any(feature = "serde", feature = "fetch"))]
pub(crate) fn unix_ms(t: SystemTime) -> u64 {
    ms(t.duration_since(UNIX_EPOCH).unwrap_or_default())
}

/// Whole milliseconds, saturating.
pub(crate) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The time `ms` milliseconds after the epoch (the epoch itself on overflow).
#[cfg(feature = "serde")]
fn from_ms(ms: u64) -> SystemTime {
    UNIX_EPOCH
        .checked_add(Duration::from_millis(ms))
        .unwrap_or(UNIX_EPOCH)
}

/// `#[serde(with = "unix_ms")]` for a `SystemTime`.
#[cfg(feature = "serde")]
pub(crate) mod serde {
    use std::time::SystemTime;

    use serde::{Deserialize, Deserializer, Serializer};

    use super::{from_ms, unix_ms};

    pub fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(unix_ms(*t))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
        u64::deserialize(d).map(from_ms)
    }

    /// The same for `Option<SystemTime>` (`null` for `None`).
    pub mod option {
        use super::*;

        pub fn serialize<S: Serializer>(t: &Option<SystemTime>, s: S) -> Result<S::Ok, S::Error> {
            match t {
                Some(t) => s.serialize_some(&unix_ms(*t)),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<SystemTime>, D::Error> {
            Option::<u64>::deserialize(d).map(|o| o.map(from_ms))
        }
    }
}
