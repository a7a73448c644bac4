//! Restrictions: `relationship="allow|deny"` and the space-separated country codes or
//! platforms of `<video:restriction>`, `<video:platform>` and `<media:restriction>`.

use quick_xml::events::BytesStart;

use super::rules::Value;
use super::{attr, quote, Position, Sink};
use crate::sitemap::{field_values, Code, Relationship, Restriction};

/// The `relationship` of a restriction being read.
#[derive(Debug, Default)]
pub(super) struct PendingRestriction {
    relationship: Option<Relationship>,
    /// The attributes were missing or wrong (already reported).
    bad: bool,
}

impl PendingRestriction {
    /// Marks the restriction unusable (an attribute reported).
    pub(super) fn set_bad(&mut self) {
        self.bad = true;
    }
}

/// `relationship="allow|deny"` of a restriction, reported when missing or wrong.
pub(super) fn relationship(
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
    name: &str,
) -> PendingRestriction {
    let relationship = match attr(sink, at, e, b"relationship").as_deref() {
        Some("allow") => Relationship::Allow,
        Some("deny") => Relationship::Deny,
        Some(other) => {
            sink.report(
                Code::InvalidAttributeValue,
                at,
                format!(
                    "<{name} relationship={}>: must be allow or deny",
                    quote(other)
                ),
            );
            return PendingRestriction {
                relationship: None,
                bad: true,
            };
        }
        None => {
            sink.missing_attribute(
                at,
                b"relationship",
                format!("<{name}> without relationship=\"allow\" or \"deny\""),
            );
            return PendingRestriction {
                relationship: None,
                bad: true,
            };
        }
    };
    PendingRestriction {
        relationship: Some(relationship),
        bad: false,
    }
}

/// The values of a restriction (country codes, or platforms), all valid, or `None` (reported).
pub(super) fn values(
    sink: &mut Sink,
    v: &Value<'_>,
    pending: PendingRestriction,
    countries: bool,
) -> Option<Restriction> {
    let values: Vec<String> = v.text.split_ascii_whitespace().map(str::to_owned).collect();
    let bad: Vec<&str> = values
        .iter()
        .map(String::as_str)
        .filter(|c| {
            if countries {
                !field_values::is_country_code(c)
            } else {
                !field_values::is_platform(c)
            }
        })
        .collect();
    if !bad.is_empty() {
        let expected = if countries {
            "ISO 3166 country codes separated by spaces"
        } else {
            "web, mobile or tv, separated by spaces"
        };
        sink.report(
            Code::InvalidTagValue,
            v.at,
            format!("<{}> {}: must be {expected}", v.name, quote(&bad.join(" "))),
        );
        return None;
    }
    if pending.bad {
        return None;
    }
    Some(Restriction {
        relationship: pending.relationship?,
        values,
    })
}
