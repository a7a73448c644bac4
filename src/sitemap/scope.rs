//! Which URLs a sitemap may list, by where the sitemap lives (sitemaps.org, "Sitemap file
//! location"; Search Console's "URL not allowed").
//!
//! A sitemap at `https://example.com/blog/sitemap.xml` may list URLs under
//! `https://example.com/blog/` only. A sitemap announced in an origin's robots.txt may list any
//! URL of that origin (robots.txt "cross-submission"), wherever the sitemap itself is; when that
//! robots.txt was served after a redirect (`example.com` → `www.example.com`), of the origin that
//! served it too, since that host answered for it. Scheme, host and port must match exactly:
//! `http` and `https`, or `www.` and bare, are other sites.

use crate::origin::{Origin, OriginError};
use crate::robots::request_path;

use super::{Code, Diagnostic, Entry};

/// The URLs a sitemap may list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The origins whose URLs may be listed (one, or two after a robots.txt redirect).
    origins: Vec<Origin>,
    /// The path prefix every URL must have (`/` for a whole origin).
    directory: String,
}

impl Scope {
    /// Any URL of `origin`: a sitemap announced in `origin`'s robots.txt.
    pub fn site(origin: Origin) -> Scope {
        Scope {
            origins: vec![origin],
            directory: "/".to_owned(),
        }
    }

    /// Any URL of `origin` or of `served_by`: a sitemap announced in `origin`'s robots.txt,
    /// which a redirect had `served_by` serve. The same as [`Scope::site`] when they are equal.
    pub fn site_served_by(origin: Origin, served_by: Origin) -> Scope {
        let mut scope = Scope::site(origin);
        if !scope.origins.contains(&served_by) {
            scope.origins.push(served_by);
        }
        scope
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
        Ok(Scope {
            origins: vec![origin],
            directory,
        })
    }

    /// Whether `url` is inside the scope.
    pub fn allows(&self, url: &str) -> bool {
        match Origin::from_url(url) {
            Ok(o) if self.origins.contains(&o) => request_path(url).starts_with(&self.directory),
            _ => false,
        }
    }

    /// `url-not-allowed` for an entry whose `<loc>` is outside the scope (images and videos may
    /// be anywhere, as Google allows).
    pub fn check(&self, entry: &Entry) -> Option<Diagnostic> {
        if self.allows(&entry.loc) {
            return None;
        }
        let inside: Vec<String> = self
            .origins
            .iter()
            .map(|o| format!("{o}{}", self.directory))
            .collect();
        Some(Diagnostic::new(
            Code::UrlNotAllowed,
            entry.position,
            format!(
                "{} is outside {}: a sitemap lists URLs of its own site{}; this one is not used",
                entry.loc,
                inside.join(" and "),
                if self.directory == "/" {
                    ""
                } else {
                    " under its own directory (or of the whole site when robots.txt announces it)"
                }
            ),
        ))
    }
}
