//! Prices: the attributes of `<video:price>` (retired by Google in 2022) and `<media:price>`,
//! checked by one function with each format's list of allowed values, and the amount.

use quick_xml::events::BytesStart;

use super::{attr, quote, Position, Sink};
use crate::sitemap::{field_values, Code, Price};

/// What one format allows in a price's attributes.
pub(super) struct PriceRules {
    /// The values `type` may take.
    pub(super) kinds: &'static [&'static str],
    /// The values `resolution` may take, when the format has the attribute.
    pub(super) resolutions: Option<&'static [&'static str]>,
    /// The `missing-attribute` message when `currency` is required.
    pub(super) currency_required: Option<&'static str>,
}

/// A price's attributes, checked (problems reported), with an empty amount.
pub(super) fn attributes(
    sink: &mut Sink,
    at: Position,
    e: &BytesStart<'_>,
    rules: &PriceRules,
) -> Price {
    let currency = attr(sink, at, e, b"currency");
    match (&currency, rules.currency_required) {
        (None, Some(message)) => sink.missing_attribute(at, b"currency", message),
        (Some(c), _) if !field_values::is_currency_code(c) => sink.report(
            Code::InvalidAttributeValue,
            at,
            format!("currency={}: not an ISO 4217 code", quote(c)),
        ),
        _ => {}
    }
    let kind = attr(sink, at, e, b"type");
    one_of(sink, at, "type", kind.as_deref(), rules.kinds);
    let resolution = match rules.resolutions {
        Some(allowed) => {
            let resolution = attr(sink, at, e, b"resolution");
            one_of(sink, at, "resolution", resolution.as_deref(), allowed);
            resolution
        }
        None => None,
    };
    Price {
        amount: String::new(),
        currency,
        kind,
        resolution,
    }
}

/// Reports an attribute value not in `allowed`.
fn one_of(sink: &mut Sink, at: Position, name: &str, v: Option<&str>, allowed: &[&str]) {
    let Some(v) = v else { return };
    if allowed.contains(&v) {
        return;
    }
    let expected = match allowed.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    sink.report(
        Code::InvalidAttributeValue,
        at,
        format!("{name}={}: must be {expected}", quote(v)),
    );
}

/// A price: digits with an optional decimal part.
pub(super) fn is_amount(v: &str) -> bool {
    let (int, frac) = v.split_once('.').unwrap_or((v, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}
