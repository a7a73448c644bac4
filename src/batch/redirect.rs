//! Redirects among captures: a `/robots.txt` that redirects is judged by the capture of its
//! target when the input holds one, as a fetcher that followed it would judge it.
//!
//! The redirect captures of a run are held back (their bodies are dropped: a redirect's body is
//! not the file), so memory grows with the number of redirects, not of captures. Their targets
//! are found in a second reading of the inputs ([`Redirects::wanted`]), then each held capture
//! is resolved through the chain ([`Redirects::resolve`]).

use std::collections::{HashMap, HashSet};

use url::Url;

use super::{judge, Capture, StatusClass};
use crate::policy::Unavailable;

/// The most redirects followed, as the fetcher's default and Google: a sixth is "no
/// robots.txt".
pub const MAX_REDIRECTS: usize = 5;

/// What a held redirect came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution<'a> {
    /// The capture of the chain's end, and its URL.
    Target(&'a Capture),
    /// The chain came back to a URL it had visited, or ran past [`MAX_REDIRECTS`]: no
    /// robots.txt.
    Unavailable(Unavailable),
    /// A URL of the chain is not in the input (or its `Location` is not a URL).
    Missing,
}

/// The redirect captures of a run, held until their targets are found.
#[derive(Debug, Default)]
pub struct Redirects {
    held: Vec<Capture>,
    /// Every held capture's URL → its target, normalised.
    next: HashMap<String, String>,
}

/// A URL as the map keys it (parsed and serialised: `HTTP://Example.com` is
/// `http://example.com/`).
pub(crate) fn normal(url: &str) -> Option<String> {
    Url::parse(url).ok().map(String::from)
}

impl Redirects {
    /// None held.
    pub fn new() -> Redirects {
        Redirects::default()
    }

    /// Holds `capture` back if it is a redirect to follow (its body dropped); gives it back
    /// otherwise.
    pub fn hold(&mut self, mut capture: Capture, max_bytes: usize) -> Option<Capture> {
        if judge(&capture, max_bytes).class != StatusClass::RedirectUnresolved {
            return Some(capture);
        }
        let target = Url::parse(&capture.url)
            .ok()
            .zip(capture.location.as_deref())
            .and_then(|(base, loc)| base.join(loc.trim()).ok());
        if let (Some(from), Some(to)) = (normal(&capture.url), target) {
            self.next.entry(from).or_insert_with(|| to.into());
        }
        capture.body = Vec::new();
        self.held.push(capture);
        None
    }

    /// How many are held.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The URLs (normalised) whose captures end the held chains: what a second reading of the
    /// inputs keeps ([`Redirects::wants`]).
    pub fn wanted(&self) -> HashSet<String> {
        self.held
            .iter()
            .filter_map(|c| self.chain_end(&c.url).ok())
            .collect()
    }

    /// Whether `wanted` wants the capture of `url`.
    pub fn wants(wanted: &HashSet<String>, url: &str) -> bool {
        normal(url).is_some_and(|u| wanted.contains(&u))
    }

    /// The first URL of `url`'s chain that is not a held redirect, or why there is none.
    fn chain_end(&self, url: &str) -> Result<String, Option<Unavailable>> {
        let mut at = normal(url).ok_or(None)?;
        let mut seen = HashSet::from([at.clone()]);
        for _ in 0..=MAX_REDIRECTS {
            let Some(next) = self.next.get(&at) else {
                return Ok(at);
            };
            if !seen.insert(next.clone()) {
                return Err(Some(Unavailable::RedirectLoop));
            }
            at = next.clone();
        }
        Err(Some(Unavailable::TooManyRedirects))
    }

    /// Each held capture with what it came to, in the order held; `targets` holds the captures
    /// of the wanted URLs found (keyed by normalised URL).
    pub fn resolve<'a>(
        &'a self,
        targets: &'a HashMap<String, Capture>,
    ) -> impl Iterator<Item = (&'a Capture, Resolution<'a>)> + 'a {
        self.held.iter().map(move |c| {
            let r = match self.chain_end(&c.url) {
                Ok(end) => targets
                    .get(&end)
                    .map_or(Resolution::Missing, Resolution::Target),
                Err(Some(why)) => Resolution::Unavailable(why),
                Err(None) => Resolution::Missing,
            };
            (c, r)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redirect(from: &str, to: &str) -> Capture {
        let mut c = Capture::new(from, Some(301), b"moved".to_vec());
        c.location = Some(to.to_owned());
        c
    }

    #[test]
    fn chains_loops_and_missing_targets() {
        let mut r = Redirects::new();
        assert!(r
            .hold(
                Capture::new("https://a.example/robots.txt", Some(200), vec![]),
                500
            )
            .is_some());
        for c in [
            redirect(
                "http://a.example/robots.txt",
                "https://a.example/robots.txt",
            ),
            redirect("http://b.example/robots.txt", "/other"),
            redirect("http://b.example/other", "http://c.example/robots.txt"),
            redirect(
                "http://loop.example/robots.txt",
                "http://loop2.example/robots.txt",
            ),
            redirect(
                "http://loop2.example/robots.txt",
                "http://loop.example/robots.txt",
            ),
            redirect(
                "http://gone.example/robots.txt",
                "http://nowhere.example/robots.txt",
            ),
        ] {
            assert!(r.hold(c, 500).is_none());
        }
        assert_eq!(r.len(), 6);
        let wanted = r.wanted();
        assert!(Redirects::wants(&wanted, "https://A.example/robots.txt"));
        assert!(Redirects::wants(&wanted, "http://c.example/robots.txt"));
        let targets: HashMap<String, Capture> = [
            Capture::new("https://a.example/robots.txt", Some(200), b"x".to_vec()),
            Capture::new("http://c.example/robots.txt", Some(404), vec![]),
        ]
        .into_iter()
        .map(|c| (normal(&c.url).unwrap(), c))
        .collect();
        let got: Vec<String> = r
            .resolve(&targets)
            .map(|(c, res)| match res {
                Resolution::Target(t) => format!("{} -> {}", c.url, t.url),
                Resolution::Unavailable(u) => format!("{}: {u}", c.url),
                Resolution::Missing => format!("{}: missing", c.url),
            })
            .collect();
        assert_eq!(
            got,
            [
                "http://a.example/robots.txt -> https://a.example/robots.txt",
                "http://b.example/robots.txt -> http://c.example/robots.txt",
                "http://b.example/other -> http://c.example/robots.txt",
                "http://loop.example/robots.txt: redirect loop",
                "http://loop2.example/robots.txt: redirect loop",
                "http://gone.example/robots.txt: missing",
            ]
        );
    }
}
