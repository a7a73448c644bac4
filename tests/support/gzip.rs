//! Gzip for test bodies: sitemaps, compressed replies, compression bombs.

use std::io::Write;

use flate2::write::GzEncoder;
pub use flate2::Compression;

/// `parts`, one after another, as one gzip member at `level`.
pub fn gzip_parts<'a>(level: Compression, parts: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), level);
    for part in parts {
        enc.write_all(part).expect("gzip");
    }
    enc.finish().expect("gzip")
}

/// `data` as one gzip member at `level`.
pub fn gzip_at(level: Compression, data: &[u8]) -> Vec<u8> {
    gzip_parts(level, [data])
}

/// `data` as one gzip member at the best level.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    gzip_at(Compression::best(), data)
}
