//! `<xhtml:link rel="alternate" hreflang="…" href="…"/>`: a page's language alternates
//! ([Google's localized versions](https://developers.google.com/search/docs/specialty/international/localized-versions#sitemap)).

use quick_xml::events::BytesStart;

use super::{attr, quote, Position, Sink};
use crate::sitemap::{field_values, Alternate, Code};

/// The alternate of an `<xhtml:link>`, when all three attributes are there and valid (each
/// problem reported).
pub(super) fn alternate(sink: &mut Sink, at: Position, e: &BytesStart<'_>) -> Option<Alternate> {
    let rel = attr(sink, at, e, b"rel");
    let hreflang = attr(sink, at, e, b"hreflang");
    let href = attr(sink, at, e, b"href");
    let mut ok = true;
    match rel.as_deref() {
        Some("alternate") => {}
        Some(other) => {
            ok = false;
            sink.report(
                Code::InvalidAttributeValue,
                at,
                format!("<xhtml:link rel={}>: must be \"alternate\"", quote(other)),
            );
        }
        None => {
            ok = false;
            sink.missing_attribute(at, b"rel", "<xhtml:link> without rel=\"alternate\"");
        }
    }
    match hreflang.as_deref() {
        Some(l) if field_values::is_language_tag(l) => {}
        Some(l) => {
            ok = false;
            sink.report(
                Code::InvalidAttributeValue,
                at,
                format!("hreflang={}: not a language code or x-default", quote(l)),
            );
        }
        None => {
            ok = false;
            sink.missing_attribute(at, b"hreflang", "<xhtml:link> without hreflang");
        }
    }
    match href.as_deref() {
        Some(h) => ok &= sink.check_url(h, at),
        None => {
            ok = false;
            sink.missing_attribute(at, b"href", "<xhtml:link> without href");
        }
    }
    match (ok, hreflang, href) {
        (true, Some(hreflang), Some(href)) => Some(Alternate { hreflang, href }),
        _ => None,
    }
}
