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

    /// The input's real size, when it is known: a regular file's length. Standard input's (a
    /// pipe) is not.
    pub fn size(&self) -> Option<u64> {
        match self {
            Source::Stdin => None,
            Source::File(p) => std::fs::metadata(p)
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len()),
        }
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

/// The size of a robots.txt cut at the parser's limit, in words: `the file is N bytes` when its
/// real size is known ([`Source::size`]), else `the file is more than LIMIT bytes` (standard
/// input, a fetch: only the limit and one more byte were read).
pub fn cut_size(size: Option<u64>) -> String {
    match size {
        Some(n) if n > crawlgate::DEFAULT_MAX_BYTES as u64 => format!("the file is {n} bytes"),
        _ => format!(
            "the file is more than {} bytes",
            crawlgate::DEFAULT_MAX_BYTES
        ),
    }
}

/// Why the answers from a robots.txt may not be what its author meant, though the file was read:
/// it was cut at the parser's limit, it is not text, it is an HTML page, or it is empty.
pub struct ReadWarning {
    /// The parser's diagnostic code (`content-after-limit`, `nul-byte`, `invalid-utf8`,
    /// `html-body`: the codes `lint` reports), or `empty`.
    pub code: &'static str,
    /// The line the parser's diagnostic is on; `None` for an empty file.
    pub line: Option<u32>,
    /// A sentence, nothing from the file in it.
    pub message: String,
}

/// The warnings of a robots.txt read with [`Source::read_robots`] (`body`, of real size
/// `size` when known) and parsed: what the parser's diagnostics already say of a cut file
/// (`content-after-limit`), of one that is not text (`nul-byte`, `invalid-utf8`: the first
/// such) and of an HTML page (`html-body`: a soft 404 or an error page saved as robots.txt,
/// whose few valid lines, usually none, are all that is read), and an empty file.
pub fn read_warnings(
    body: &[u8],
    size: Option<u64>,
    diagnostics: &[crawlgate::Diagnostic],
) -> Vec<ReadWarning> {
    use crawlgate::Code;
    if body.is_empty() {
        return vec![ReadWarning {
            code: "empty",
            line: None,
            message: "the file is empty: everything is allowed".to_owned(),
        }];
    }
    let mut warnings = Vec::new();
    if let Some(d) = diagnostics
        .iter()
        .find(|d| d.code == Code::ContentAfterLimit)
    {
        warnings.push(ReadWarning {
            code: d.code.as_str(),
            line: Some(d.line),
            message: format!(
                "cut at the {}-byte limit: {}, and what follows the limit is ignored",
                crawlgate::DEFAULT_MAX_BYTES,
                cut_size(size)
            ),
        });
    }
    if let Some(d) = diagnostics
        .iter()
        .find(|d| matches!(d.code, Code::NulByte | Code::InvalidUtf8))
    {
        let what = if d.code == Code::NulByte {
            "a NUL byte"
        } else {
            "bytes that are not UTF-8"
        };
        warnings.push(ReadWarning {
            code: d.code.as_str(),
            line: Some(d.line),
            message: format!("not a text file: {what} on line {}", d.line),
        });
    }
    if let Some(d) = diagnostics.iter().find(|d| d.code == Code::HtmlBody) {
        // Not a silent allow-all: an HTML page has no rules, so nearly everything is allowed.
        warnings.push(ReadWarning {
            code: d.code.as_str(),
            line: Some(d.line),
            message: format!(
                "an HTML page, not a robots.txt (from line {}): only its valid lines are read, \
                 so nearly everything is allowed",
                d.line
            ),
        });
    }
    warnings
}
