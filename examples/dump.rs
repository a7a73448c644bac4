//! Prints the diagnostics of a file (development aid).
fn main() {
    let path = std::env::args().nth(1).expect("path");
    let bytes = std::fs::read(&path).expect("read");
    let p = crawlgate::Robots::parse(&bytes);
    for d in &p.diagnostics {
        println!("{d}");
    }
}
