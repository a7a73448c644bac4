//! Survey of a folder of robots.txt files with the semantic lint and the usage-preference
//! checks: for every diagnostic code, how often it fires and in how many files, in
//! `Mode::Rfc` and `Mode::Google`, and how fast the files parse.
//!
//! ```sh
//! cargo run --release --example lint_survey -- ../shared/corpus/robots-bench/robotfiles
//! ```
//!
//! The argument is a folder of robots.txt files (every regular file in it is read, as bytes);
//! `--all` lists every code, not only the semantic lint's and the usage checks'.

use std::collections::BTreeMap;
use std::time::Instant;

use crawlgate::{Code, Mode, Options, Robots};

/// The codes issue 16 added.
const NEW: &[Code] = &[
    Code::DuplicateGroup,
    Code::DuplicateRule,
    Code::ConflictingRules,
    Code::EmptyGroup,
    Code::ShadowedRule,
    Code::MalformedPreference,
    Code::UnknownUsageLabel,
    Code::InvalidUsagePath,
    Code::InvalidPolicyUrl,
];

fn main() {
    let mut args = std::env::args().skip(1);
    let mut all = false;
    let mut dir = None;
    for a in args.by_ref() {
        if a == "--all" {
            all = true;
        } else {
            dir = Some(a);
        }
    }
    let Some(dir) = dir else {
        eprintln!("usage: lint_survey [--all] DIR (a folder of robots.txt files)");
        std::process::exit(2);
    };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{dir}: {e}");
            std::process::exit(2);
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() {
            if let Ok(bytes) = std::fs::read(&path) {
                files.push((entry.file_name().to_string_lossy().into_owned(), bytes));
            }
        }
    }
    files.sort();
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    println!("{} files, {bytes} bytes, from {dir}", files.len());

    for mode in [Mode::Rfc, Mode::Google] {
        let options = Options::mode(mode);
        // code → (occurrences, files, example)
        let mut by_code: BTreeMap<&str, (usize, usize, String)> = BTreeMap::new();
        for (name, body) in &files {
            let parsed = Robots::parse_with(body, &options);
            let mut seen: Vec<Code> = Vec::new();
            for d in &parsed.diagnostics {
                if !all && !NEW.contains(&d.code) {
                    continue;
                }
                let e = by_code.entry(d.code.as_str()).or_default();
                e.0 += 1;
                if !seen.contains(&d.code) {
                    seen.push(d.code);
                    e.1 += 1;
                }
                if e.2.is_empty() {
                    e.2 = format!("{name}:{}: {}", d.line, d.message);
                }
            }
        }
        // Parse speed: best of five rounds over every file.
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let start = Instant::now();
            for (_, body) in &files {
                std::hint::black_box(Robots::parse_with(body, &options));
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "\n== Mode::{mode:?}: parse {:.1} MB/s (best of 5) ==",
            bytes as f64 / best / 1e6
        );
        println!(
            "{:<22} {:>11} {:>6}  first example",
            "code", "occurrences", "files"
        );
        let codes: Vec<&str> = if all {
            Code::ALL.iter().map(|c| c.as_str()).collect()
        } else {
            NEW.iter().map(|c| c.as_str()).collect()
        };
        for code in codes {
            let (n, f, ex) = by_code.get(code).cloned().unwrap_or_default();
            let ex: String = ex.chars().take(110).collect();
            println!("{code:<22} {n:>11} {f:>6}  {ex}");
        }
    }
}
