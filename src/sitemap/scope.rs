//! Which URLs a sitemap may list, by where the sitemap lives (sitemaps.org, "Sitemap file
//! location"; Search Console's "URL not allowed").
//!
//! A sitemap at `https://example.com/blog/sitemap.xml` may list URLs under
//! `https://example.com/blog/` only. A sitemap announced in an origin's robots.txt may list any
//! URL of that origin (robots.txt "cross-submission"), wherever the sitemap itself is. Scheme,
//! host and port must match exactly: `http` and `https`, or `www.` and bare, are other sites.

use crate::origin::{Origin, OriginError};
use crate::robots::request_path;

use super::{Code, Diagnostic, Entry};

/// The URLs a sitemap may list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    origin: Origin,
    /// The path prefix every URL must have (`/` for a whole origin).
    directory: String,
}

impl Scope {
    /// Any URL of `origin`: a sitemap announced in `origin`'s robots.txt.
    pub fn site(origin: Origin) -> Scope {
        Scope {
            origin,
            directory: "/".to_owned(),
        }
    }

    /// URLs under the directory of `sitemap_url`: a sitemap submitted by its own URL.
    pub fn location(sitemap_url: &str) -> Result<Scope, OriginError> {
        let origin = Origin::from_url(sitemap_url)?;
        let path = request_path(sitemap_url);
        // The query is not part of the directory.
        let path = path.split('?').next().unwrap_or("/");
        let directory = match path.rfind('/') {
            Some(i) => path[..=i].to_owned(),
            None => "/".to_owned(),
        };
        Ok(Scope { origin, directory })
    }

    /// Whether `url` is inside the scope.
    pub fn allows(&self, url: &str) -> bool {
        match Origin::from_url(url) {
            Ok(o) if o == self.origin => request_path(url).starts_with(&self.directory),
            _ => false,
        }
    }

    /// `url-not-allowed` for an entry whose `<loc>` is outside the scope (images and videos may
    /// be anywhere, as Google allows).
    pub fn check(&self, entry: &Entry) -> Option<Diagnostic> {
        if self.allows(&entry.loc) {
            return None;
        }
        Some(Diagnostic::new(
            Code::UrlNotAllowed,
            entry.position,
            format!(
                "{} is outside {}{}: a sitemap lists URLs of its own site{}; this one is not used",
                entry.loc,
                self.origin,
                self.directory,
                if self.directory == "/" {
                    ""
                } else {
                    " under its own directory (or of the whole site when robots.txt announces it)"
                }
            ),
        ))
    }
}
