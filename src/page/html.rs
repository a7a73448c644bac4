//! The `<meta>` elements of an HTML document's head, read with html5gum.
//!
//! **Why html5gum.** Both candidates tokenize by the WHATWG algorithm. html5gum (MIT) is a
//! tokenizer only: no dependencies by default, a pull iterator over tokens, so the scan stops
//! at the end of the head without reading further, and attribute values come with character
//! references decoded, names lowercased and duplicate attributes dropped as the standard says.
//! lol_html (BSD-3-Clause) is a streaming *rewriter* built for CSS-selector handlers: it pulls
//! in cssparser, selectors, encoding_rs, hashbrown and more, buffers output we do not want, and
//! its push API makes "stop at `</head>`" an error path. For a read-only scan of the first
//! bytes, html5gum is the smaller, sufficient tool.
//!
//! **Which `<meta>` count.** Those in the document's head, as a browser's tree builder places
//! them: the head ends at `<body>`, or at the first start tag or text that cannot be in a head
//! (WHATWG "in head" insertion mode: anything but `base`, `basefont`, `bgsound`, `link`,
//! `meta`, `noscript`, `noframes`, `script`, `style`, `template`, `title`); a `<meta>` between
//! `</head>` and `<body>` is put back into the head ("after head" mode), so `</head>` alone
//! does not end the scan. A browser puts everything after the head in the body.
//! draft-illyes-repext §4 says to consider only
//! the head's `meta` elements, and Google reads a robots meta tag that an invalid element
//! pushed into the body as outside the head. A `<meta>` inside `<template>` is not in the
//! document; text in `<script>`, `<style>`, `<title>` and (scripting on, as crawlers that
//! render assume) `<noscript>` is not markup, nor are comments.

use html5gum::{DefaultEmitter, Token, Tokenizer};

/// One `<meta name content>` of the head.
#[derive(Debug, Clone)]
pub(crate) struct Meta {
    /// `name`, trimmed and lowercased.
    pub name: String,
    /// `content`, character references decoded, cut at the field limit.
    pub content: String,
    /// Whether `content` was cut.
    pub cut: bool,
    /// Named by `http-equiv`, not `name` (`<meta http-equiv="X-Robots-Tag">`).
    pub http_equiv: bool,
    /// Byte offset of the `<meta` in the document.
    pub offset: usize,
    /// 1-based line of the `<meta` in the document.
    pub line: usize,
}

/// What the scan found.
#[derive(Debug, Default)]
pub(crate) struct Head {
    pub metas: Vec<Meta>,
    /// The budget ran out before the head ended.
    pub budget_hit: bool,
    /// Bytes of the document the scan covered.
    pub scanned: usize,
}

const IN_HEAD: &[&[u8]] = &[
    b"base",
    b"basefont",
    b"bgsound",
    b"link",
    b"meta",
    b"noscript",
    b"noframes",
    b"script",
    b"style",
    b"template",
    b"title",
    b"html",
    b"head",
];

/// Cuts `s` to at most `limit` bytes on a character boundary.
pub(crate) fn cut(s: &str, limit: usize) -> (&str, bool) {
    if s.len() <= limit {
        return (s, false);
    }
    let mut end = limit;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], true)
}

/// Scans at most `budget` bytes of `html` for the head's `<meta>` elements whose `name` (trimmed,
/// lowercased) `wanted` accepts, and those with `http-equiv="X-Robots-Tag"` (any case) and no
/// `name`: the others are never copied.
pub(crate) fn scan(
    html: &[u8],
    budget: usize,
    field_limit: usize,
    wanted: impl Fn(&str) -> bool,
) -> Head {
    let input = &html[..html.len().min(budget)];
    let mut emitter = DefaultEmitter::<usize>::new_with_span();
    emitter.naively_switch_states(true);
    let tokens = Tokenizer::new_with_emitter(input, emitter);
    let mut head = Head::default();
    let mut template = 0usize;
    // The element whose text is not markup (`script`, `style`, `title`, `noscript`…).
    let mut raw: Option<Vec<u8>> = None;
    let (mut line, mut line_at) = (1usize, 0usize);
    let mut ended = false;
    for token in tokens {
        let Ok(token) = token;
        match token {
            Token::StartTag(tag) => {
                let name: &[u8] = &tag.name;
                if !IN_HEAD.contains(&name) {
                    head.scanned = tag.span.start;
                    ended = true;
                    break;
                }
                match name {
                    b"template" => template += 1,
                    b"meta" if template == 0 => {
                        let attr = |k: &[u8]| {
                            tag.attributes
                                .get(k)
                                .map(|v| String::from_utf8_lossy(&v.value).into_owned())
                        };
                        let Some(content) = attr(b"content") else {
                            continue;
                        };
                        let trimmed = |v: String| {
                            v.trim_matches(|c: char| c.is_ascii_whitespace())
                                .to_ascii_lowercase()
                        };
                        // `name` first: an element with both is a named one (WHATWG: a
                        // `meta` has one of `name`, `http-equiv`, `charset`, `itemprop`).
                        let (meta_name, http_equiv) = match attr(b"name") {
                            Some(n) => (trimmed(n), false),
                            None => match attr(b"http-equiv") {
                                Some(e) if trimmed(e.clone()) == "x-robots-tag" => {
                                    (trimmed(e), true)
                                }
                                _ => continue,
                            },
                        };
                        if !http_equiv && !wanted(&meta_name) {
                            continue;
                        }
                        let at = tag.span.start.min(input.len());
                        line += memchr::memchr_iter(b'\n', &input[line_at..at]).count();
                        line_at = at;
                        let (content, was_cut) = cut(&content, field_limit);
                        head.metas.push(Meta {
                            name: meta_name,
                            content: content.to_owned(),
                            cut: was_cut,
                            http_equiv,
                            offset: at,
                            line,
                        });
                    }
                    // `<script/>` opens script data all the same (the flag is ignored).
                    b"script" | b"style" | b"title" | b"noscript" | b"noframes" => {
                        raw = Some(name.to_vec());
                    }
                    _ => {}
                }
            }
            Token::EndTag(tag) => {
                let name: &[u8] = &tag.name;
                if raw.as_deref() == Some(name) {
                    raw = None;
                } else if name == b"template" {
                    template = template.saturating_sub(1);
                } else if raw.is_none() && matches!(name, b"body" | b"html" | b"br") {
                    head.scanned = tag.span.end;
                    ended = true;
                    break;
                }
            }
            Token::String(text) => {
                if raw.is_none()
                    && template == 0
                    && text.value.iter().any(|b| !b.is_ascii_whitespace())
                {
                    head.scanned = text.span.start;
                    ended = true;
                    break;
                }
            }
            Token::Comment(_) | Token::Doctype(_) | Token::Error(_) => {}
        }
    }
    if !ended {
        head.scanned = input.len();
        head.budget_hit = html.len() > budget;
    }
    head
}
