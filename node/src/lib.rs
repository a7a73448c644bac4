//! Node.js bindings for `crawlgate` (napi-rs): the native part of the npm package `crawlgate`.
//!
//! Only the crate's public API is used. Every failure is a thrown JS `Error` with a `code`
//! (`InvalidArg` for bad values, napi's own for wrong types); nothing here unwraps or panics on
//! input. The JavaScript entry points (`index.js`, `index.mjs`, `robots-parser.js`,
//! `crawlee.js`) wrap this module.

// napi-derive's glue is unsafe code generated into this crate; the code written here has none.
#![deny(clippy::unwrap_used, clippy::expect_used)]
// Under a test harness (`clippy --all-targets`) napi-derive registers no exports, so the
// functions only Node calls look unused.
#![cfg_attr(test, allow(dead_code))]

mod engine;
mod input;
mod page;
mod robots;

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// The robots.txt URL of `url`'s origin (scheme, host and port; no userinfo, query or
/// fragment). Throws when `url` is not an absolute http(s) URL with a host.
#[napi]
pub fn robots_txt_url(url: String) -> Result<String> {
    crawlgate::robots_txt_url(&url).map_err(|e| input::invalid(e.to_string()))
}

/// The version of the native addon (the crate's).
#[napi]
pub fn native_version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The largest body parsed by default (bytes); more is cut and reported.
#[napi]
pub const DEFAULT_MAX_BYTES: u32 = crawlgate::DEFAULT_MAX_BYTES as u32;
