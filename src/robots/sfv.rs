//! Structured-field Dictionaries ([RFC 9651 §4.2.2]), as far as usage preferences need them.
//!
//! draft-ietf-aipref-vocab §6.5 parses a statement of preference as a Dictionary and then reads
//! only Token values. This parser validates the whole grammar (integers, decimals, strings,
//! tokens, byte sequences, booleans, dates, display strings, inner lists, parameters), since a
//! statement that fails to parse states nothing, but keeps only what is needed: each member's
//! key, whether its value is a Token (and which), and where it starts. Zero-copy: keys and
//! tokens are sub-slices of the input; nothing is allocated except to check the UTF-8 of a
//! display string.
//!
//! [RFC 9651 §4.2.2]: https://www.rfc-editor.org/rfc/rfc9651.html#section-4.2.2

/// A member's value, reduced to what the vocabulary reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    /// A Token (`y`, `n`, `yes`, …).
    Token(&'a [u8]),
    /// A Boolean: a key with no `=value` is `true`.
    Boolean(bool),
    /// Anything else (number, string, byte sequence, date, display string, inner list).
    Other(&'static str),
}

/// One dictionary member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Member<'a> {
    /// The key (lowercase by the grammar).
    pub key: &'a [u8],
    /// Its value, parameters dropped.
    pub value: Value<'a>,
    /// Offset of the key in the input.
    pub at: usize,
    /// Offset just past the member (value and parameters) in the input.
    pub end: usize,
}

/// Where and why parsing failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Error {
    /// Offset in the input.
    pub at: usize,
    /// What was expected, for people.
    pub what: &'static str,
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

type Res<T> = Result<T, Error>;

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.i += usize::from(hit);
        hit
    }

    fn err<T>(&self, what: &'static str) -> Res<T> {
        Err(Error { at: self.i, what })
    }

    fn skip_sp(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    /// §4.2.3.3: `( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`.
    fn key(&mut self) -> Res<&'a [u8]> {
        let start = self.i;
        match self.peek() {
            Some(b'a'..=b'z' | b'*') => self.i += 1,
            Some(b'A'..=b'Z') => return self.err("a key (keys are lowercase)"),
            _ => return self.err("a key"),
        }
        while matches!(
            self.peek(),
            Some(b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' | b'*')
        ) {
            self.i += 1;
        }
        if matches!(self.peek(), Some(b'A'..=b'Z')) {
            return self.err("a key (keys are lowercase)");
        }
        Ok(&self.s[start..self.i])
    }

    /// §4.2.3.2.
    fn parameters(&mut self) -> Res<()> {
        while self.eat(b';') {
            self.skip_sp();
            self.key()?;
            if self.eat(b'=') {
                self.bare_item()?;
            }
        }
        Ok(())
    }

    /// §4.2.1.1: an Item or an Inner List, with parameters.
    fn item_or_list(&mut self) -> Res<Value<'a>> {
        if self.eat(b'(') {
            loop {
                self.skip_sp();
                if self.eat(b')') {
                    self.parameters()?;
                    return Ok(Value::Other("an inner list"));
                }
                if self.peek().is_none() {
                    return self.err("`)` closing the inner list");
                }
                self.bare_item()?;
                self.parameters()?;
                if !matches!(self.peek(), Some(b' ' | b')')) {
                    return self.err("a space or `)` in the inner list");
                }
            }
        }
        let value = self.bare_item()?;
        self.parameters()?;
        Ok(value)
    }

    /// §4.2.3.1.
    fn bare_item(&mut self) -> Res<Value<'a>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'"') => self.string(),
            Some(b'*' | b'a'..=b'z' | b'A'..=b'Z') => self.token(),
            Some(b':') => self.byte_sequence(),
            Some(b'?') => self.boolean(),
            Some(b'@') => {
                self.i += 1;
                match self.number()? {
                    Value::Other("an integer") => Ok(Value::Other("a date")),
                    _ => self.err("an integer date"),
                }
            }
            Some(b'%') => self.display_string(),
            _ => self.err("a value"),
        }
    }

    /// §4.2.4: Integer or Decimal.
    fn number(&mut self) -> Res<Value<'a>> {
        self.eat(b'-');
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return self.err("a digit");
        }
        let start = self.i;
        let mut dot = None;
        while let Some(b) = self.peek() {
            if b.is_ascii_digit() {
                self.i += 1;
            } else if b == b'.' && dot.is_none() {
                if self.i - start > 12 {
                    return self.err("at most 12 digits before a decimal point");
                }
                dot = Some(self.i);
                self.i += 1;
            } else {
                break;
            }
            let len = self.i - start;
            if (dot.is_none() && len > 15) || len > 16 {
                return self.err("a shorter number");
            }
        }
        match dot {
            None => Ok(Value::Other("an integer")),
            Some(d) if (1..=3).contains(&(self.i - d - 1)) => Ok(Value::Other("a decimal")),
            Some(_) => self.err("one to three digits after the decimal point"),
        }
    }

    /// §4.2.5.
    fn string(&mut self) -> Res<Value<'a>> {
        self.i += 1;
        loop {
            match self.peek() {
                None => return self.err("`\"` closing the string"),
                Some(b'\\') => {
                    self.i += 1;
                    if !matches!(self.peek(), Some(b'"' | b'\\')) {
                        return self.err("`\\\"` or `\\\\` after a backslash");
                    }
                    self.i += 1;
                }
                Some(b'"') => {
                    self.i += 1;
                    return Ok(Value::Other("a string"));
                }
                Some(0x20..=0x7E) => self.i += 1,
                Some(_) => return self.err("printable ASCII in the string"),
            }
        }
    }

    /// §4.2.6: `( ALPHA / "*" ) *( tchar / ":" / "/" )`.
    fn token(&mut self) -> Res<Value<'a>> {
        let start = self.i;
        self.i += 1;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b":/!#$%&'*+-.^_`|~".contains(&b))
        {
            self.i += 1;
        }
        Ok(Value::Token(&self.s[start..self.i]))
    }

    /// §4.2.7.
    fn byte_sequence(&mut self) -> Res<Value<'a>> {
        self.i += 1;
        loop {
            match self.peek() {
                None => return self.err("`:` closing the byte sequence"),
                Some(b':') => {
                    self.i += 1;
                    return Ok(Value::Other("a byte sequence"));
                }
                Some(b) if b.is_ascii_alphanumeric() || b"+/=".contains(&b) => self.i += 1,
                Some(_) => return self.err("base64 in the byte sequence"),
            }
        }
    }

    /// §4.2.8.
    fn boolean(&mut self) -> Res<Value<'a>> {
        self.i += 1;
        match self.peek() {
            Some(b'1') => {
                self.i += 1;
                Ok(Value::Boolean(true))
            }
            Some(b'0') => {
                self.i += 1;
                Ok(Value::Boolean(false))
            }
            _ => self.err("`?0` or `?1`"),
        }
    }

    /// §4.2.10.
    fn display_string(&mut self) -> Res<Value<'a>> {
        self.i += 1;
        if !self.eat(b'"') {
            return self.err("`\"` after `%`");
        }
        let mut bytes = Vec::new();
        loop {
            match self.peek() {
                None => return self.err("`\"` closing the display string"),
                Some(b'%') => {
                    let hex = |b: Option<&u8>| match b {
                        Some(&c @ b'0'..=b'9') => Some(c - b'0'),
                        Some(&c @ b'a'..=b'f') => Some(c - b'a' + 10),
                        _ => None,
                    };
                    match (hex(self.s.get(self.i + 1)), hex(self.s.get(self.i + 2))) {
                        (Some(h), Some(l)) => bytes.push(h << 4 | l),
                        _ => return self.err("two lowercase hex digits after `%`"),
                    }
                    self.i += 3;
                }
                Some(b'"') => {
                    if std::str::from_utf8(&bytes).is_err() {
                        return self.err("UTF-8 in the display string");
                    }
                    self.i += 1;
                    return Ok(Value::Other("a display string"));
                }
                Some(b @ 0x20..=0x7E) => {
                    bytes.push(b);
                    self.i += 1;
                }
                Some(_) => return self.err("printable ASCII in the display string"),
            }
        }
    }
}

/// Parses `input` as a Dictionary (§4.2.2, with §4.2's leading and trailing spaces), calling
/// `member` for each member in order (a repeated key is reported again: the last one is the
/// one that counts). On failure, members already reported must be discarded.
pub(crate) fn dictionary<'a>(input: &'a [u8], mut member: impl FnMut(Member<'a>)) -> Res<()> {
    let mut p = Parser { s: input, i: 0 };
    p.skip_sp();
    if p.peek().is_none() {
        return Ok(());
    }
    loop {
        let at = p.i;
        let key = p.key()?;
        let value = if p.eat(b'=') {
            p.item_or_list()?
        } else {
            p.parameters()?;
            Value::Boolean(true)
        };
        member(Member {
            key,
            value,
            at,
            end: p.i,
        });
        p.skip_ows();
        if p.peek().is_none() {
            return Ok(());
        }
        if !p.eat(b',') {
            return p.err("`,` between members");
        }
        p.skip_ows();
        if p.peek().is_none() {
            return p.err("a member after `,`");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(s: &str) -> Result<Vec<(String, Value<'_>)>, Error> {
        let mut out = Vec::new();
        dictionary(s.as_bytes(), |m| {
            out.push((String::from_utf8_lossy(m.key).into_owned(), m.value))
        })?;
        Ok(out)
    }

    #[test]
    fn valid_dictionaries() {
        assert_eq!(
            members("train-ai=y, search=n").unwrap(),
            vec![
                ("train-ai".into(), Value::Token(b"y")),
                ("search".into(), Value::Token(b"n"))
            ]
        );
        assert_eq!(members("").unwrap(), vec![]);
        assert_eq!(
            members("a;x=1;y, b=?0;z=\"s\", c=(1 2.5 \"x\" tok);p, d=:aGk=:, e=@12, f=%\"%c3%a9\"")
                .unwrap()
                .len(),
            6
        );
        assert_eq!(
            members("a=1,\tb=-2.125").unwrap()[1].1,
            Value::Other("a decimal")
        );
        assert_eq!(
            members("*x=tok/en:1").unwrap()[0].1,
            Value::Token(b"tok/en:1")
        );
    }

    #[test]
    fn invalid_dictionaries() {
        for bad in [
            "Train-ai=y",
            "train-AI=y",
            "train-ai=y,",
            "train-ai=y search=n",
            "train-ai=",
            "a=\"open",
            "a=1.2345",
            "a=1234567890123456",
            "a=(1 2",
            "a=?2",
            "a=%\"%C3\"",
            "a=%\"%ff\"",
            "a=é",
            ",a",
            "a=:!:",
            "a=@1.5",
        ] {
            assert!(members(bad).is_err(), "{bad:?} parsed");
        }
    }
}
