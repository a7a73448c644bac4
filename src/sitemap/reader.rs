//! The streaming reader (placeholder; being written).
use std::io::Read;

use super::{Format, Item, Options};

/// Reads a sitemap from any [`Read`] and yields [`Item`]s.
#[derive(Debug)]
pub struct Reader<R> {
    input: R,
    options: Options,
    format: Option<Format>,
}

impl<R: Read> Reader<R> {
    /// A reader with the protocol's limits.
    pub fn new(input: R) -> Self {
        Reader::with_options(input, Options::default())
    }

    /// A reader with other limits.
    pub fn with_options(input: R, options: Options) -> Self {
        Reader {
            input,
            options,
            format: None,
        }
    }

    /// The format, once the first bytes are read.
    pub fn format(&self) -> Option<Format> {
        self.format
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Item;
    fn next(&mut self) -> Option<Item> {
        let _ = (&mut self.input, &self.options);
        None
    }
}
