//! Robots directives as written in a header field or a `<meta content>`: the structured-field
//! `Robots-Tag` (draft-illyes-repext §3.1.1, an RFC 8941 List) and the legacy comma lists of
//! `X-Robots-Tag` and of `<meta>` (Google's syntax, with an optional `agent:` prefix).

/// `bytes` as text with the same byte offsets: each byte of a sequence that is not UTF-8 reads
/// as `?` (`from_utf8_lossy`'s U+FFFD is three bytes, which would move every offset after it).
pub(crate) fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n('?', chunk.invalid().len()));
    }
    std::borrow::Cow::Owned(out)
}

/// One directive as written, before it is understood.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    /// The agent it is scoped to (lowercase), `None` for every agent.
    pub agent: Option<String>,
    /// The directive's name, lowercase (`noindex`, `max-snippet`).
    pub name: String,
    /// Its value (`20` for `max-snippet:20`), trimmed, when it has one.
    pub value: Option<String>,
    /// The text as written.
    pub raw: String,
    /// Byte offset of the text in the field value.
    pub offset: usize,
}

/// The directives that take a value in the legacy syntax (`name: value`): a `name:` prefix
/// that is not one of these names an agent.
pub(crate) fn takes_value(name: &str) -> bool {
    matches!(
        name,
        "max-snippet"
            | "max-image-preview"
            | "max-video-preview"
            | "unavailable_after"
            | "unavailable-after"
    )
}

fn is_agent_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'*'))
}

/// Splits a legacy list on commas, keeping a date's comma inside `unavailable_after`
/// (`unavailable_after: Wed, 25 Jun 2010 …`, RFC 822 and RFC 850 dates): a piece that follows
/// such a directive and starts with a digit belongs to it. Yields (offset, piece) with the
/// piece trimmed.
fn split_list(text: &str) -> Vec<(usize, &str)> {
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for (i, part) in text.split(',').enumerate() {
        let end = start + part.len();
        let joins = i > 0
            && part.trim_start().starts_with(|c: char| c.is_ascii_digit())
            && pieces.last().is_some_and(|&(s, e)| {
                let prev = text[s..e].to_ascii_lowercase();
                prev.contains("unavailable_after") || prev.contains("unavailable-after")
            });
        match pieces.last_mut() {
            Some(last) if joins => last.1 = end,
            _ => pieces.push((start, end)),
        }
        start = end + 1;
    }
    pieces
        .into_iter()
        .filter_map(|(s, e)| {
            let piece = &text[s..e];
            let lead = piece.len() - piece.trim_start().len();
            let trimmed = piece.trim();
            (!trimmed.is_empty()).then_some((s + lead, trimmed))
        })
        .collect()
}

/// Reads a legacy list. With `agents`, a `token:` prefix that is not a directive taking a
/// value scopes the rest of the field to that agent (`X-Robots-Tag: otherbot: noindex,
/// nofollow`: both for `otherbot`, Google's documented example); `<meta content>` has no such
/// prefix (its agent is the `name`).
pub(crate) fn legacy(text: &str, agents: bool) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut agent: Option<String> = None;
    for (offset, piece) in split_list(text) {
        let mut rest = piece;
        let mut at = offset;
        if agents {
            if let Some((head, tail)) = rest.split_once(':') {
                let head = head.trim().to_ascii_lowercase();
                if !takes_value(&head) && is_agent_token(&head) {
                    agent = Some(head);
                    let after = &rest[rest.len() - tail.len()..];
                    at += rest.len() - tail.len() + (after.len() - after.trim_start().len());
                    rest = tail.trim();
                }
            }
        }
        if rest.is_empty() {
            continue;
        }
        let (name, value) = match rest.split_once(':') {
            Some((n, v)) => (n.trim().to_ascii_lowercase(), Some(v.trim().to_owned())),
            None => (rest.to_ascii_lowercase(), None),
        };
        out.push(Piece {
            agent: agent.clone(),
            name,
            value,
            raw: rest.to_owned(),
            offset: at,
        });
    }
    out
}

/// One member of a structured-field List: the product token and its parameters.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    /// The Item: a Token or a String (the product token or `*`).
    pub item: Option<String>,
    /// The parameters: key, value as text (`None` for Boolean true), offsets.
    pub params: Vec<(String, Option<String>, usize, usize)>,
}

/// Where a structured field stopped parsing, and why.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SfError {
    pub at: usize,
    pub what: &'static str,
}

struct Sf<'a> {
    s: &'a [u8],
    i: usize,
}

impl Sf<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn err<T>(&self, what: &'static str) -> Result<T, SfError> {
        Err(SfError { at: self.i, what })
    }

    fn text(&self, from: usize) -> String {
        String::from_utf8_lossy(&self.s[from..self.i]).into_owned()
    }

    /// A bare item as text (`None` for Boolean true; `Some("?0")` for false).
    fn bare_item(&mut self) -> Result<(Option<String>, bool), SfError> {
        let start = self.i;
        match self.peek() {
            Some(b'"') => {
                self.i += 1;
                let mut out = Vec::new();
                loop {
                    match self.peek() {
                        None => return self.err("an unterminated string"),
                        Some(b'"') => {
                            self.i += 1;
                            return Ok((Some(String::from_utf8_lossy(&out).into_owned()), true));
                        }
                        Some(b'\\') => {
                            self.i += 1;
                            match self.peek() {
                                Some(c @ (b'"' | b'\\')) => {
                                    out.push(c);
                                    self.i += 1;
                                }
                                _ => return self.err("`\\\"` or `\\\\` after a backslash"),
                            }
                        }
                        Some(c @ 0x20..=0x7e) => {
                            out.push(c);
                            self.i += 1;
                        }
                        Some(_) => return self.err("a visible ASCII character in a string"),
                    }
                }
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'*' => {
                self.i += 1;
                while let Some(c) = self.peek() {
                    if c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~:/".contains(&c) {
                        self.i += 1;
                    } else {
                        break;
                    }
                }
                Ok((Some(self.text(start)), true))
            }
            Some(c) if c.is_ascii_digit() || c == b'-' => {
                self.i += 1;
                let mut dot = false;
                while let Some(c) = self.peek() {
                    if c.is_ascii_digit() || (c == b'.' && !dot) {
                        dot |= c == b'.';
                        self.i += 1;
                    } else {
                        break;
                    }
                }
                if self.i - start > 20 || self.s[self.i - 1] == b'-' || self.s[self.i - 1] == b'.' {
                    return self.err("a number of at most 15 digits");
                }
                Ok((Some(self.text(start)), true))
            }
            Some(b'?') => {
                self.i += 1;
                match self.peek() {
                    Some(b'1') => {
                        self.i += 1;
                        Ok((None, true))
                    }
                    Some(b'0') => {
                        self.i += 1;
                        Ok((None, false))
                    }
                    _ => self.err("`?0` or `?1`"),
                }
            }
            Some(b':') => {
                self.i += 1;
                while let Some(c) = self.peek() {
                    if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=') {
                        self.i += 1;
                    } else {
                        break;
                    }
                }
                if self.peek() != Some(b':') {
                    return self.err("`:` at the end of a byte sequence");
                }
                self.i += 1;
                Ok((Some(self.text(start)), true))
            }
            Some(b'(') => self.err("an item (inner lists are not robots rules)"),
            _ => self.err("an item"),
        }
    }

    fn key(&mut self) -> Result<String, SfError> {
        let start = self.i;
        match self.peek() {
            Some(c) if c.is_ascii_lowercase() || c == b'*' => self.i += 1,
            _ => return self.err("a lowercase key"),
        }
        while let Some(c) = self.peek() {
            if c.is_ascii_lowercase()
                || c.is_ascii_digit()
                || matches!(c, b'_' | b'-' | b'.' | b'*')
            {
                self.i += 1;
            } else {
                break;
            }
        }
        Ok(self.text(start))
    }

    fn member(&mut self) -> Result<Member, SfError> {
        let (item, _) = self.bare_item()?;
        let mut params = Vec::new();
        while self.peek() == Some(b';') {
            self.i += 1;
            while self.peek() == Some(b' ') {
                self.i += 1;
            }
            let at = self.i;
            let key = self.key()?;
            let (value, on) = if self.peek() == Some(b'=') {
                self.i += 1;
                self.bare_item()?
            } else {
                (None, true)
            };
            if on {
                params.push((key, value, at, self.i));
            }
        }
        Ok(Member { item, params })
    }
}

/// Parses an RFC 8941 List of Items with Parameters. On an error, the members complete before
/// it come with it (a field cut at the parsing limit keeps them, draft-illyes-repext §3.1.1).
pub(crate) fn sf_list(s: &[u8]) -> Result<Vec<Member>, (Vec<Member>, SfError)> {
    let mut p = Sf { s, i: 0 };
    let mut out = Vec::new();
    while p.peek() == Some(b' ') {
        p.i += 1;
    }
    if p.i == s.len() {
        return Ok(out);
    }
    loop {
        match p.member() {
            Ok(m) => out.push(m),
            Err(e) => return Err((out, e)),
        }
        while matches!(p.peek(), Some(b' ' | b'\t')) {
            p.i += 1;
        }
        match p.peek() {
            None => return Ok(out),
            Some(b',') => {
                p.i += 1;
                while matches!(p.peek(), Some(b' ' | b'\t')) {
                    p.i += 1;
                }
                if p.peek().is_none() {
                    let what = "a member after `,`";
                    return Err((out, SfError { at: p.i, what }));
                }
            }
            Some(_) => {
                let what = "`,` between members";
                return Err((out, SfError { at: p.i, what }));
            }
        }
    }
}

/// A structured `Robots-Tag` List as pieces: each parameter of each member is one directive
/// for that member's product token (`*` is every agent).
pub(crate) fn structured(members: &[Member]) -> Vec<Piece> {
    let mut out = Vec::new();
    for m in members {
        let Some(item) = &m.item else { continue };
        let agent = (item != "*").then(|| item.to_ascii_lowercase());
        for (key, value, at, _) in &m.params {
            let raw = match value {
                Some(v) => format!("{key}={v}"),
                None => key.clone(),
            };
            out.push(Piece {
                agent: agent.clone(),
                name: key.clone(),
                value: value.clone(),
                raw,
                offset: *at,
            });
        }
    }
    out
}
