//! One pass of the sitemap bench's workload (`benches/sitemap.rs`), for counting instructions
//! under callgrind, which repeat exactly where wall-clock figures on a shared machine do not:
//!
//! ```sh
//! cargo build --profile bench --example sitemap_workload --features sitemap
//! for w in generate reader bare ns; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/sitemap_workload $w 8
//! done
//! ```
//!
//! `generate` only writes the video sitemap (`benches/support/video_sitemap.rs`; subtract it
//! from the others); `reader` iterates crawlgate's `sitemap::Reader` over it; `bare` reads
//! quick-xml's events alone, `ns` through `NsReader` resolving each start tag, as the bench's
//! `quick-xml-tokens` and `quick-xml-ns-tokens` do. The second argument is the size in MiB
//! (default 8); divide the difference by it for instructions per MiB.

#[path = "../support/video_sitemap.rs"]
mod video_sitemap;

use std::hint::black_box;

use crawlgate::sitemap::{Item, Reader};
use quick_xml::events::Event;

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    let mib: usize = std::env::args()
        .nth(2)
        .and_then(|m| m.parse().ok())
        .unwrap_or(8);
    let bytes = video_sitemap::video_sitemap(mib * 1024 * 1024);
    let mut buf = Vec::with_capacity(4096);
    let mut n = 0usize;
    match what.as_str() {
        "generate" => {}
        "reader" => {
            for item in Reader::new(&bytes[..]) {
                if let Item::Entry(e) = black_box(item) {
                    n += e.videos.len();
                }
            }
        }
        "bare" => {
            let mut reader = quick_xml::Reader::from_reader(&bytes[..]);
            let config = reader.config_mut();
            config.check_end_names = true;
            config.trim_text(false);
            loop {
                match reader.read_event_into(&mut buf) {
                    Ok(Event::Eof) | Err(_) => break,
                    Ok(event) => {
                        black_box(event);
                    }
                }
                n += 1;
                buf.clear();
            }
        }
        "ns" => {
            let mut reader = quick_xml::NsReader::from_reader(&bytes[..]);
            let config = reader.config_mut();
            config.expand_empty_elements = false;
            config.check_end_names = true;
            config.trim_text(false);
            loop {
                match reader.read_event_into(&mut buf) {
                    Ok(Event::Eof) | Err(_) => break,
                    Ok(Event::Start(e) | Event::Empty(e)) => {
                        black_box(reader.resolver().resolve_element(e.name()));
                    }
                    Ok(event) => {
                        black_box(event);
                    }
                }
                n += 1;
                buf.clear();
            }
        }
        _ => {
            eprintln!("usage: sitemap_workload generate|reader|bare|ns [MiB]");
            std::process::exit(2);
        }
    }
    println!("{what}: {} bytes, {n}", bytes.len());
}
