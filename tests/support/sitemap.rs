//! Sitemaps for the scripted server: `<urlset>` and `<sitemapindex>` files laid out line by
//! line, and the replies that serve them.

use super::{Reply, Request};

pub const NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// `http://HOST` of the request, from its `Host` header: sitemaps name absolute URLs, and the
/// port is known only once the server runs.
pub fn base(req: &Request) -> String {
    format!("http://{}", req.header("host").unwrap_or("127.0.0.1"))
}

/// A `<urlset>`: the XML declaration on line 1, `<urlset>` on line 2, then one `<url>` per line
/// from line 3, each at column 3.
pub fn urlset(locs: &[String]) -> Vec<u8> {
    let mut out = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"{NS}\">\n");
    for loc in locs {
        out.push_str(&format!("  <url><loc>{loc}</loc></url>\n"));
    }
    out.push_str("</urlset>\n");
    out.into_bytes()
}

/// A `<sitemapindex>` laid out like [`urlset`]: one `<sitemap>` per line from line 3, column 3.
pub fn index(locs: &[String]) -> Vec<u8> {
    let mut out =
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"{NS}\">\n");
    for loc in locs {
        out.push_str(&format!("  <sitemap><loc>{loc}</loc></sitemap>\n"));
    }
    out.push_str("</sitemapindex>\n");
    out.into_bytes()
}

/// `body` served as `application/xml`.
pub fn xml(body: Vec<u8>) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("content-type".into(), "application/xml".into())],
        body,
    }
}

/// A `.gz` file served as it is: `application/x-gzip`, no `Content-Encoding`.
pub fn gz_file(body: Vec<u8>) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("content-type".into(), "application/x-gzip".into())],
        body,
    }
}
