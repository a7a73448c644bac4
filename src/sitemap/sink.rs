//! What every sitemap format shares ([`Sink`]): the limits, the counts, duplicate detection and
//! the queue of items and diagnostics a [`Reader`](super::Reader) yields, whichever format
//! produced them; and [`quote`], how a message shows a value.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault};

use super::{field_values, Code, Diagnostic, Entry, Format, Item, Options, Position};

/// What every format shares: limits, counts, duplicate detection, and the queue of items.
pub(crate) struct Sink {
    pub(super) options: Options,
    pub(super) format: Option<Format>,
    /// Entry elements seen, valid or not, within the limit or not.
    pub(super) entries: usize,
    /// Entries yielded.
    pub(super) yielded: usize,
    /// Line of each URL yielded, by hash: duplicates are found in 8 + 4 bytes per URL.
    seen: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
    hasher: std::collections::hash_map::RandomState,
    pub(super) out: VecDeque<Item>,
    pub(super) errors: usize,
    pub(super) warnings: usize,
    /// Tags whose `ignored-tag` was reported (once per file and tag).
    reported_ignored: Vec<&'static str>,
    /// Reading ended on a fatal problem (malformed, truncated, not a sitemap).
    pub(super) broken: bool,
    /// The last attribute whose value could not be used (already reported), by element offset.
    unusable_attribute: Option<(u64, &'static [u8])>,
}

impl Sink {
    pub(crate) fn new(options: Options) -> Sink {
        Sink {
            options,
            format: None,
            entries: 0,
            yielded: 0,
            seen: HashMap::default(),
            hasher: std::collections::hash_map::RandomState::new(),
            out: VecDeque::new(),
            errors: 0,
            warnings: 0,
            reported_ignored: Vec::new(),
            broken: false,
            unusable_attribute: None,
        }
    }

    /// The items queued so far, taken.
    #[cfg(test)]
    pub(crate) fn take_items(&mut self) -> Vec<Item> {
        self.out.drain(..).collect()
    }

    /// The format, once the root element (or the first bytes) told it.
    pub(crate) fn format(&self) -> Option<Format> {
        self.format
    }

    /// Sets the format the root element tells.
    pub(crate) fn set_format(&mut self, format: Format) {
        self.format = Some(format);
    }

    /// Reading ends on a fatal problem (reported): no `empty-sitemap` then.
    pub(crate) fn set_broken(&mut self) {
        self.broken = true;
    }

    /// Reports `ignored-tag` for `<name>`, once per file.
    pub(crate) fn report_ignored(&mut self, at: Position, name: &'static str) {
        if !self.reported_ignored.contains(&name) {
            self.reported_ignored.push(name);
            self.report(
                Code::IgnoredTag,
                at,
                format!("Google ignores <{name}> (reported once per file)"),
            );
        }
    }

    /// The attribute `name` of the element at `at` was reported as unusable: not again as
    /// missing.
    pub(crate) fn set_unusable_attribute(&mut self, at: Position, name: &'static [u8]) {
        self.unusable_attribute = Some((at.offset, name));
    }

    /// Queues a diagnostic.
    pub(crate) fn report(
        &mut self,
        code: Code,
        position: Position,
        message: impl Into<Cow<'static, str>>,
    ) {
        let d = Diagnostic::new(code, position, message);
        match d.severity {
            crate::Severity::Error => self.errors += 1,
            crate::Severity::Warning => self.warnings += 1,
        }
        self.out.push_back(Item::Diagnostic(d));
    }

    /// Reports `missing-attribute` for `name`, unless it was there but unusable (reported as
    /// such already).
    pub(crate) fn missing_attribute(
        &mut self,
        at: Position,
        name: &'static [u8],
        message: impl Into<Cow<'static, str>>,
    ) {
        if self.unusable_attribute != Some((at.offset, name)) {
            self.report(Code::MissingAttribute, at, message);
        }
    }

    /// Counts an entry element starting at `position`; false (after reporting `too-many-urls`
    /// once) when it is past the limit and must not be read.
    pub(crate) fn start_entry(&mut self, position: Position) -> bool {
        self.entries += 1;
        if self.entries <= self.options.max_entries {
            return true;
        }
        if self.entries == self.options.max_entries + 1 {
            let what = if self.format == Some(Format::Index) {
                "sitemaps"
            } else {
                "URLs"
            };
            self.report(
                Code::TooManyUrls,
                position,
                format!(
                    "more than {} {what}: this entry and those after it are not used",
                    self.options.max_entries
                ),
            );
        }
        false
    }

    /// Queues a complete entry, warning if its URL was listed before.
    pub(crate) fn finish_entry(&mut self, entry: Entry) {
        let hash = self.hasher.hash_one(entry.loc.as_str());
        if let Some(&line) = self.seen.get(&hash) {
            self.report(
                Code::DuplicateUrl,
                entry.position,
                format!(
                    "{} is listed twice (first at line {line})",
                    quote(&entry.loc)
                ),
            );
        } else {
            self.seen.insert(hash, entry.position.line);
        }
        self.yielded += 1;
        self.out.push_back(Item::Entry(entry));
    }

    /// Checks a URL value, reporting its problems at `position`; true when it is usable.
    pub(crate) fn check_url(&mut self, url: &str, position: Position) -> bool {
        field_values::check_url(url, &mut |code, message| {
            self.report(code, position, message)
        })
    }
}

/// The hash is already a hash.
#[derive(Default)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A value for a message: quoted, and cut if long.
pub(crate) fn quote(s: &str) -> String {
    const MAX: usize = 80;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("\"{}…\"", &s[..i]),
        None => format!("\"{s}\""),
    }
}
