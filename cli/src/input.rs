//! Reading the inputs named on the command line: a file path, or `-` for standard input.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes read from one input: far past any robots.txt limit, but a bound, so that
/// `/dev/zero` or an endless pipe is an error rather than a hang.
pub const MAX_INPUT: u64 = 64 << 20;

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

    /// A robots.txt: its first `DEFAULT_MAX_BYTES + 1` bytes, what the parser reads (the one
    /// byte past the limit makes it report `content-after-limit`), so that a file too long is
    /// the same finding whether it was fetched or read here, never a read error.
    pub fn read_robots(&self) -> anyhow::Result<Vec<u8>> {
        let limit = crawlgate::DEFAULT_MAX_BYTES as u64 + 1;
        self.read_at_most(limit)
    }

    /// All the bytes, up to [`MAX_INPUT`]. The error reads `cannot read NAME: <why>`, in words
    /// ("it is a directory", "no such file"), not an OS error number.
    pub fn read(&self) -> anyhow::Result<Vec<u8>> {
        let buf = self.read_at_most(MAX_INPUT + 1)?;
        if buf.len() as u64 > MAX_INPUT {
            anyhow::bail!(
                "cannot read {}: it is larger than {} MiB",
                self.name(),
                MAX_INPUT >> 20
            );
        }
        Ok(buf)
    }

    /// At most `limit` bytes, the error in words.
    fn read_at_most(&self, limit: u64) -> anyhow::Result<Vec<u8>> {
        let mut buf = Vec::new();
        let read = match self {
            Source::Stdin => std::io::stdin().lock().take(limit).read_to_end(&mut buf),
            Source::File(p) => {
                if p.is_dir() {
                    anyhow::bail!("cannot read {}: it is a directory", self.name());
                }
                std::fs::File::open(p).and_then(|f| f.take(limit).read_to_end(&mut buf))
            }
        };
        if let Err(e) = read {
            let name = self.name();
            let why = match e.kind() {
                std::io::ErrorKind::NotFound if name.contains("://") => format!(
                    "no such file ({name} is a URL: this command reads files and `-`; \
                     `curl -s URL | crawlgate … -` reads a live one)"
                ),
                std::io::ErrorKind::NotFound => "no such file".to_owned(),
                std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
                _ => e.to_string(),
            };
            anyhow::bail!("cannot read {name}: {why}");
        }
        Ok(buf)
    }
}
