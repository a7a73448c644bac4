//! Reading the inputs named on the command line: a file path, or `-` for standard input.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// A file named on the command line, or standard input (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
}

impl Source {
    pub fn new(arg: &Path) -> Source {
        if arg.as_os_str() == OsStr::new("-") {
            Source::Stdin
        } else {
            Source::File(arg.to_owned())
        }
    }

    pub fn is_stdin(&self) -> bool {
        *self == Source::Stdin
    }

    /// The name to show: the path as given, or `<stdin>`.
    pub fn name(&self) -> Cow<'_, str> {
        match self {
            Source::Stdin => Cow::Borrowed("<stdin>"),
            Source::File(p) => p.to_string_lossy(),
        }
    }

    /// All the bytes. The error reads `cannot read NAME: <why>`.
    pub fn read(&self) -> anyhow::Result<Vec<u8>> {
        let bytes = match self {
            Source::Stdin => {
                let mut buf = Vec::new();
                std::io::stdin().lock().read_to_end(&mut buf).map(|_| buf)
            }
            Source::File(p) => std::fs::read(p),
        };
        bytes.with_context(|| format!("cannot read {}", self.name()))
    }

    /// The text, which must be UTF-8.
    pub fn read_text(&self) -> anyhow::Result<String> {
        let bytes = self.read()?;
        String::from_utf8(bytes).map_err(|e| {
            anyhow::anyhow!(
                "cannot read {}: it is not UTF-8 (invalid byte at offset {})",
                self.name(),
                e.utf8_error().valid_up_to()
            )
        })
    }
}
