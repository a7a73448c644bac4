//! Field rules: one row per child element of an extension (a video, a news item, an image, a
//! Media RSS video) saying whether it is required, what a second one does, how many characters
//! it may have and which check its value gets; and the one driver that applies a row when its
//! element opens and when its value ends. Each extension's file holds its table and its builder.

use quick_xml::events::BytesStart;

use super::{date_message, quote, url_value, Position, Sink, Text};
use crate::sitemap::{field_values, Code};

/// Whether the parent is used without this child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Required {
    /// Optional.
    No,
    /// The parent is not used without it.
    Yes,
    /// The parent needs at least one of the rows of this group.
    OneOf(u8),
}

/// What a second occurrence of a child does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Repeat {
    /// Reported (`duplicate-tag`) and not used.
    Duplicate,
    /// Checked, but the first value kept is not replaced.
    FirstChecked,
    /// Ignored, unchecked, once a value is kept.
    First,
    /// Each one is used.
    Many,
}

/// What a too-long message counts for a value longer than the text kept of it (16 KiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CutCount {
    /// The kept characters and one, written `n+`.
    AtLeast,
    /// The kept characters.
    Kept,
    /// The kept and the dropped characters.
    All,
}

/// How many characters a value may have.
#[derive(Debug, Clone, Copy)]
pub(super) struct MaxChars {
    /// The limit.
    pub(super) chars: usize,
    /// The limit as messages write it.
    pub(super) shown: &'static str,
    /// What the message counts when the value was too long to keep.
    pub(super) cut: CutCount,
}

/// The check a value gets, with where a valid one is stored.
pub(super) enum Check<B> {
    /// No text value: the element is read from its attributes when it opens.
    Attributes,
    /// Any text; an empty one counts as missing.
    Text(fn(&mut B, String)),
    /// Any text, an empty one included.
    MaybeEmpty(fn(&mut B, String)),
    /// An absolute http or https URL.
    Url(fn(&mut B, String)),
    /// A W3C Datetime.
    Date(fn(&mut B, String)),
    /// A language code (BCP 47 shape).
    Language(fn(&mut B, String)),
    /// Whole seconds from 1 to 28,800.
    Duration(fn(&mut B, u32)),
    /// A number from 0.0 to 5.0.
    Rating(fn(&mut B, f32)),
    /// A whole number.
    Count(fn(&mut B, u64)),
    /// `yes` or `no`.
    YesNo(fn(&mut B, bool)),
    /// A check of the extension's own, which stores the value itself; false when the value is
    /// not usable (reported).
    Own(fn(&mut B, &mut Sink, &Value<'_>) -> bool),
}

/// Start-tag work of a row (its attributes): `Some(true)` when it gave the row's value,
/// `Some(false)` when that value is unusable (reported), `None` when it gave none.
pub(super) type Open<B> = fn(&mut B, &mut Sink, Position, &BytesStart<'_>) -> Option<bool>;

/// One child element of an extension.
pub(super) struct Field<B> {
    /// The element, prefixed as messages write it (`video:title`).
    pub(super) name: &'static str,
    /// The attribute that holds the value, for elements read from their attributes.
    pub(super) attribute: Option<&'static str>,
    pub(super) required: Required,
    pub(super) repeat: Repeat,
    pub(super) max_chars: Option<MaxChars>,
    /// Retired by Google in 2022: reported when it opens; its syntax is still checked.
    pub(super) retired: bool,
    pub(super) open: Option<Open<B>>,
    pub(super) check: Check<B>,
}

impl<B> Field<B> {
    /// An optional child that may appear once.
    pub(super) const fn new(name: &'static str, check: Check<B>) -> Self {
        Field {
            name,
            attribute: None,
            required: Required::No,
            repeat: Repeat::Duplicate,
            max_chars: None,
            retired: false,
            open: None,
            check,
        }
    }

    pub(super) const fn required(mut self) -> Self {
        self.required = Required::Yes;
        self
    }

    pub(super) const fn one_of(mut self, group: u8) -> Self {
        self.required = Required::OneOf(group);
        self
    }

    pub(super) const fn repeat(mut self, repeat: Repeat) -> Self {
        self.repeat = repeat;
        self
    }

    pub(super) const fn max(mut self, max: MaxChars) -> Self {
        self.max_chars = Some(max);
        self
    }

    pub(super) const fn retired(mut self) -> Self {
        self.retired = true;
        self
    }

    pub(super) const fn open(mut self, open: Open<B>) -> Self {
        self.open = Some(open);
        self
    }

    /// Read from `attribute` when it opens.
    pub(super) const fn attribute(mut self, attribute: &'static str, open: Open<B>) -> Self {
        self.attribute = Some(attribute);
        self.open = Some(open);
        self
    }

    /// Whether the element's text is its value.
    pub(super) fn has_value(&self) -> bool {
        !matches!(self.check, Check::Attributes)
    }

    /// Whether this row is `prefix:local`.
    fn is(&self, prefix: &[u8], local: &[u8]) -> bool {
        let name = self.name.as_bytes();
        name.len() == prefix.len() + 1 + local.len()
            && name.ends_with(local)
            && name.starts_with(prefix)
            && name.get(prefix.len()) == Some(&b':')
    }

    /// How the parent's missing-tag message names this child.
    fn label(&self) -> String {
        match self.attribute {
            Some(a) => format!("<{} {a}>", self.name),
            None => format!("<{}>", self.name),
        }
    }
}

/// A builder driven by a table of [`Field`]s.
pub(super) trait Fields: Sized + 'static {
    /// One row per child element; a row's index is its bit in [`Seen`] (at most 32 rows).
    const FIELDS: &'static [Field<Self>];

    /// What the driver records of the rows met.
    fn seen(&mut self) -> &mut Seen;
}

/// Rows met and kept, by bit.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Seen {
    met: u32,
    kept: u32,
    /// A required child was there but not usable (already reported).
    pub(super) required_bad: bool,
}

impl Seen {
    fn kept(self, row: usize) -> bool {
        self.kept & bit(row) != 0
    }
}

/// A row's bit; tables have at most 32 rows (a unit test checks).
fn bit(row: usize) -> u32 {
    u32::try_from(row)
        .ok()
        .and_then(|r| 1u32.checked_shl(r))
        .unwrap_or(0)
}

/// A value that ended, as a check sees it.
pub(super) struct Value<'a> {
    /// Where its element starts.
    pub(super) at: Position,
    /// Its element (`video:price`).
    pub(super) name: &'static str,
    /// The trimmed text (as much as was kept).
    pub(super) text: &'a str,
    /// Part of the text was too long to keep.
    pub(super) cut: bool,
}

impl Value<'_> {
    /// Reports `invalid-tag-value`: the value must be `expected`.
    pub(super) fn invalid(&self, sink: &mut Sink, expected: &str) {
        sink.report(
            Code::InvalidTagValue,
            self.at,
            format!("<{}>{}: must be {expected}", self.name, quote(self.text)),
        );
    }
}

/// What a child element of an extension is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Child {
    /// A row of the extension's table.
    Row(u8),
    /// Retired by Google (reported): ignored.
    Retired,
    /// Not defined here.
    Unknown,
}

/// The row of `prefix:local` in `fields`.
pub(super) fn find<B>(fields: &[Field<B>], prefix: &[u8], local: &[u8]) -> Option<u8> {
    let row = fields.iter().position(|f| f.is(prefix, local))?;
    u8::try_from(row).ok()
}

/// A row's element opened: the retired notice, then its attributes.
pub(super) fn open<B: Fields>(
    b: &mut B,
    sink: &mut Sink,
    at: Position,
    row: u8,
    e: &BytesStart<'_>,
) {
    let i = usize::from(row);
    let Some(field) = B::FIELDS.get(i) else {
        return;
    };
    if field.retired {
        sink.report(
            Code::RetiredTag,
            at,
            format!(
                "<{}> was retired by Google in 2022: its syntax is checked, and it is ignored",
                field.name
            ),
        );
    }
    let Some(open) = field.open else { return };
    match open(b, sink, at, e) {
        Some(true) => b.seen().kept |= bit(i),
        Some(false) => b.seen().required_bad |= field.required != Required::No,
        None => {}
    }
}

/// A row's value ended: repeats, length, check, store.
pub(super) fn value<B: Fields>(b: &mut B, sink: &mut Sink, at: Position, row: u8, text: &Text) {
    let i = usize::from(row);
    let Some(field) = B::FIELDS.get(i) else {
        return;
    };
    let required = field.required != Required::No;
    let seen = b.seen();
    if text.bad {
        // A bad reference or bytes, already reported.
        seen.met |= bit(i);
        seen.required_bad |= required;
        return;
    }
    match field.repeat {
        Repeat::Duplicate if seen.met & bit(i) != 0 => {
            sink.report(
                Code::DuplicateTag,
                at,
                format!("a second <{}>: only the first is used", field.name),
            );
            return;
        }
        Repeat::First if seen.kept(i) => return,
        _ => {}
    }
    seen.met |= bit(i);
    let keep = !(field.repeat == Repeat::FirstChecked && seen.kept(i));
    let (text_value, cut) = text.value();
    if let Some(max) = field.max_chars {
        if let Some(n) = too_long(text_value, cut, text.dropped, max) {
            seen.required_bad |= required;
            sink.report(
                Code::ValueTooLong,
                at,
                format!(
                    "<{}> has {n} characters; at most {} are allowed",
                    field.name, max.shown
                ),
            );
            return;
        }
    }
    let v = Value {
        at,
        name: field.name,
        text: text_value,
        cut,
    };
    let kept = match check(field, b, sink, &v, keep) {
        Some(kept) => kept,
        None => {
            b.seen().required_bad |= required;
            return;
        }
    };
    if kept && keep {
        b.seen().kept |= bit(i);
    }
}

/// Applies a row's check: `None` when the value is not usable (reported), else whether it
/// counts as there (stored when `store`).
fn check<B>(
    field: &Field<B>,
    b: &mut B,
    sink: &mut Sink,
    v: &Value<'_>,
    store: bool,
) -> Option<bool> {
    fn keep<B, T>(b: &mut B, set: fn(&mut B, T), x: T, store: bool) -> Option<bool> {
        if store {
            set(b, x);
        }
        Some(true)
    }
    let t = v.text;
    match field.check {
        Check::Attributes => Some(false),
        Check::Text(set) => {
            if store {
                set(b, t.to_owned());
            }
            Some(!t.is_empty())
        }
        Check::MaybeEmpty(set) => keep(b, set, t.to_owned(), store),
        Check::Url(set) => {
            let u = url_value(sink, v.at, t, v.cut)?;
            keep(b, set, u, store)
        }
        Check::Date(set) => {
            if !field_values::is_w3c_datetime(t) {
                sink.report(Code::InvalidDate, v.at, date_message(t));
                return None;
            }
            keep(b, set, t.to_owned(), store)
        }
        Check::Language(set) => {
            if !field_values::is_language_tag(t) {
                sink.report(
                    Code::InvalidTagValue,
                    v.at,
                    format!("<{}>{}: not an ISO 639 language code", v.name, quote(t)),
                );
                return None;
            }
            keep(b, set, t.to_owned(), store)
        }
        Check::Duration(set) => parsed(
            sink,
            v,
            field_values::parse_duration(t),
            "whole seconds from 1 to 28,800",
        )
        .and_then(|d| keep(b, set, d, store)),
        Check::Rating(set) => parsed(
            sink,
            v,
            field_values::parse_rating(t),
            "a number from 0.0 to 5.0",
        )
        .and_then(|r| keep(b, set, r, store)),
        Check::Count(set) => parsed(sink, v, field_values::parse_count(t), "a whole number")
            .and_then(|n| keep(b, set, n, store)),
        Check::YesNo(set) => parsed(sink, v, field_values::parse_yes_no(t), "yes or no")
            .and_then(|y| keep(b, set, y, store)),
        Check::Own(own) => own(b, sink, v).then_some(true),
    }
}

/// A parsed value, or `None` after reporting what it must be.
fn parsed<T>(sink: &mut Sink, v: &Value<'_>, x: Option<T>, expected: &str) -> Option<T> {
    if x.is_none() {
        v.invalid(sink, expected);
    }
    x
}

/// The character count to report when `v` is longer than `max`.
fn too_long(v: &str, cut: bool, dropped: usize, max: MaxChars) -> Option<String> {
    if !cut {
        return field_values::chars_over(v, max.chars).map(|n| n.to_string());
    }
    let kept = v.chars().count();
    Some(match max.cut {
        CutCount::AtLeast => format!("{}+", kept + 1),
        CutCount::Kept => kept.to_string(),
        CutCount::All => (kept + dropped).to_string(),
    })
}

/// The parent's missing required children, as its `missing-tag` message lists them, or `None`.
pub(super) fn missing<B: Fields>(seen: &Seen) -> Option<String> {
    let mut list: Vec<String> = Vec::new();
    for (i, field) in B::FIELDS.iter().enumerate() {
        match field.required {
            Required::No => {}
            Required::Yes if !seen.kept(i) => list.push(field.label()),
            Required::Yes => {}
            Required::OneOf(group) => {
                let members = || {
                    B::FIELDS
                        .iter()
                        .enumerate()
                        .filter(move |(_, f)| f.required == Required::OneOf(group))
                };
                // Listed once, where its first member is.
                let first = members().next().map(|(j, _)| j);
                if first == Some(i) && !members().any(|(j, _)| seen.kept(j)) {
                    let labels: Vec<String> = members().map(|(_, f)| f.label()).collect();
                    list.push(labels.join(" or "));
                }
            }
        }
    }
    (!list.is_empty()).then(|| list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::super::image::ImageBuilder;
    use super::super::media::Mrss;
    use super::super::news::NewsBuilder;
    use super::super::video::VideoBuilder;
    use super::*;

    /// Every table: at most 32 rows (one bit each), names `prefix:local` and unique, each row
    /// found by its own name, limits written as they are.
    fn check_table<B: Fields>() {
        let fields = B::FIELDS;
        assert!(fields.len() <= 32);
        for (i, f) in fields.iter().enumerate() {
            let (prefix, local) = f.name.split_once(':').expect("prefixed name");
            assert_eq!(
                find(fields, prefix.as_bytes(), local.as_bytes()),
                u8::try_from(i).ok(),
                "{}",
                f.name
            );
            if let Some(max) = f.max_chars {
                assert_eq!(
                    max.shown.replace(',', ""),
                    max.chars.to_string(),
                    "{}",
                    f.name
                );
            }
            // A value read from an attribute is read when the element opens.
            if f.attribute.is_some() {
                assert!(!f.has_value() && f.open.is_some(), "{}", f.name);
            }
        }
    }

    #[test]
    fn tables_are_well_formed() {
        check_table::<VideoBuilder>();
        check_table::<ImageBuilder>();
        check_table::<NewsBuilder>();
        check_table::<Mrss>();
    }

    #[test]
    fn missing_lists_required_rows_in_table_order() {
        let none = Seen::default();
        assert_eq!(
            missing::<VideoBuilder>(&none).as_deref(),
            Some(
                "<video:thumbnail_loc>, <video:title>, <video:description>, \
                 <video:content_loc> or <video:player_loc>"
            )
        );
        assert_eq!(
            missing::<NewsBuilder>(&none).as_deref(),
            Some("<news:name>, <news:language>, <news:publication_date>, <news:title>")
        );
        assert_eq!(
            missing::<ImageBuilder>(&none).as_deref(),
            Some("<image:loc>")
        );
        assert_eq!(
            missing::<Mrss>(&none).as_deref(),
            Some(
                "<media:content url> or <media:player url>, <media:title>, \
                 <media:description>, <media:thumbnail url>"
            )
        );
        // One member of a group is enough.
        let player = Seen {
            kept: 0b1_0111,
            ..Seen::default()
        };
        assert_eq!(missing::<VideoBuilder>(&player), None);
    }

    #[test]
    fn too_long_counts() {
        let max = MaxChars {
            chars: 3,
            shown: "3",
            cut: CutCount::AtLeast,
        };
        assert_eq!(too_long("abc", false, 0, max), None);
        assert_eq!(too_long("abcé", false, 0, max).as_deref(), Some("4"));
        assert_eq!(too_long("abcd", true, 5, max).as_deref(), Some("5+"));
        let kept = MaxChars {
            cut: CutCount::Kept,
            ..max
        };
        assert_eq!(too_long("abcd", true, 5, kept).as_deref(), Some("4"));
        let all = MaxChars {
            cut: CutCount::All,
            ..max
        };
        assert_eq!(too_long("abcd", true, 5, all).as_deref(), Some("9"));
    }
}
