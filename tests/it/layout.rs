//! The library's floors, read from its own source: a module imports only the floors below
//! it (DESIGN.md names them), so that no import points up and none goes round in a circle.
//!
//! | floor | modules |
//! |---|---|
//! | 0 | `diagnostic`, `plain_url` |
//! | 1 | `origin` |
//! | 2 | `robots`, `tdmrep` |
//! | 3 | `sitemap`, `audit`, `page` |
//! | 4 | `policy` (pure, clock-free) |
//! | 5 | `store`, `http`, `batch` |
//! | 6 | `engine` |
//!
//! `lib.rs` stands above them all (it declares them and keeps the former paths as aliases).
//! What counts as an import is every `crate::MODULE` outside a comment; a name the crate root
//! re-exports (`crate::Robots`) counts as an import of the module it comes from.

use std::collections::BTreeMap;
use std::path::Path;

const FLOORS: &[(&str, u8)] = &[
    ("diagnostic", 0),
    ("plain_url", 0),
    ("origin", 1),
    ("robots", 2),
    ("tdmrep", 2),
    ("sitemap", 3),
    ("audit", 3),
    ("page", 3),
    ("policy", 4),
    ("store", 5),
    ("http", 5),
    ("batch", 5),
    ("engine", 6),
];

fn floor(module: &str) -> Option<u8> {
    FLOORS.iter().find(|(m, _)| *m == module).map(|&(_, f)| f)
}

/// The crate root's re-exports: name → the module it comes from (`Robots` → `robots`).
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let mut rest = lib;
    while let Some(at) = rest.find("\npub use ") {
        let after = &rest[at + 9..];
        let end = after.find(';').unwrap_or(after.len());
        let stmt = &after[..end];
        let module = stmt
            .split("::")
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned();
        let list = stmt.split_once('{').map_or_else(
            || stmt.rsplit("::").next().unwrap_or_default(),
            |(_, l)| l.trim_end_matches('}'),
        );
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            names.insert(name.to_owned(), module.clone());
        }
        rest = &after[end..];
    }
    names
}

/// Every `crate::NAME` of `source` outside comments, with its line.
fn crate_paths(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let name: String = rest[at + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // `$crate::` (a macro's) and `pub(crate)` are not paths into the crate's modules.
            if !rest[..at].ends_with('$') && !name.is_empty() {
                found.push((n + 1, name));
            }
            rest = &rest[at + 7..];
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let entries = std::fs::read_dir(dir).expect("read src");
    for entry in entries {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_a_floor_above_or_beside_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let roots = root_names(&lib);
    assert!(
        roots.get("Robots").is_some_and(|m| m == "robots"),
        "{roots:?}"
    );
    assert!(
        roots.get("Diagnostic").is_some_and(|m| m == "diagnostic"),
        "{roots:?}"
    );
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "{} files", files.len());
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let top = rel
            .iter()
            .next()
            .and_then(|c| c.to_str())
            .unwrap_or_default()
            .trim_end_matches(".rs");
        if top == "lib" {
            continue;
        }
        let own = floor(top).unwrap_or_else(|| panic!("{top} has no floor: add it to FLOORS"));
        let source = std::fs::read_to_string(file).expect("source");
        for (line, name) in crate_paths(&source) {
            let module = roots.get(&name).cloned().unwrap_or(name);
            if module == top {
                continue;
            }
            let Some(target) = floor(&module) else {
                wrong.push(format!(
                    "{}:{line}: crate::{module} is no module",
                    rel.display()
                ));
                continue;
            };
            seen += 1;
            if target >= own {
                wrong.push(format!(
                    "{}:{line}: {top} (floor {own}) imports {module} (floor {target})",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        seen > 50,
        "only {seen} imports read: is the reading broken?"
    );
    assert!(
        wrong.is_empty(),
        "imports against the floors:\n{}",
        wrong.join("\n")
    );
}

/// The reading itself: a path in a comment, a macro's `$crate` and `pub(crate)` are not
/// imports; a path in code is.
#[test]
fn the_reading_of_imports() {
    let source = "use crate::policy::Fetch; // crate::engine\n/// [`crate::engine::X`]\npub(crate) fn f() { $crate::x(); crate::Robots::parse(b\"\"); }\n";
    let found: Vec<String> = crate_paths(source).into_iter().map(|(_, n)| n).collect();
    assert_eq!(found, ["policy", "Robots"]);
}

/// DESIGN.md's Modules table names every file of `src/` (but `lib.rs`), and only files that
/// exist.
#[test]
fn the_modules_table_is_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = std::fs::read_to_string(root.join("DESIGN.md")).expect("DESIGN.md");
    let table = design
        .split("\n## Modules")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("a Modules section");
    let mut named = std::collections::BTreeSet::new();
    for row in table.lines().filter(|l| l.starts_with("| `src/")) {
        let first = row.split(" | ").next().unwrap_or_default();
        for path in first.split('`').filter(|p| p.starts_with("src/")) {
            named.insert(path.to_owned());
        }
    }
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let on_disk: std::collections::BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.strip_prefix(root).ok())
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .filter(|p| p != "src/lib.rs")
        .collect();
    let missing: Vec<_> = on_disk.difference(&named).collect();
    let stale: Vec<_> = named.difference(&on_disk).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "DESIGN.md's Modules table lacks {missing:?} and names files that do not exist: {stale:?}"
    );
}

/// Inside the engine too, imports point one way: no module of `src/engine/` reaches itself
/// through the others (`super::MODULE` paths, and `crate::engine::NAME` of a name that
/// `engine/mod.rs` re-exports from MODULE).
#[test]
fn the_engine_modules_import_in_one_direction() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let names = root_names(&std::fs::read_to_string(dir.join("mod.rs")).expect("mod.rs"));
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("src/engine") {
        let path = entry.expect("entry").path();
        let name = path
            .file_stem()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if name != "mod" && path.extension().is_some_and(|e| e == "rs") {
            modules.insert(name, std::fs::read_to_string(&path).expect("read"));
        }
    }
    assert!(modules.len() >= 10, "{} engine modules", modules.len());
    let mut edges: BTreeMap<&str, std::collections::BTreeSet<String>> = BTreeMap::new();
    for (module, source) in &modules {
        let to = edges.entry(module.as_str()).or_default();
        for line in source.lines() {
            let code = line.split("//").next().unwrap_or_default();
            // `use super::{a, b}` of items of mod.rs, and `super::module::Item`.
            for (marker, via_names) in [("super::", false), ("crate::engine::", true)] {
                let mut rest = code;
                while let Some(at) = rest.find(marker) {
                    let after = &rest[at + marker.len()..];
                    let list = after
                        .strip_prefix('{')
                        .and_then(|l| l.split('}').next())
                        .unwrap_or(after);
                    for item in list.split(',') {
                        let word: String = item
                            .trim()
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        let target = if modules.contains_key(&word) {
                            Some(word)
                        } else if via_names || marker == "super::" {
                            names.get(&word).cloned()
                        } else {
                            None
                        };
                        if let Some(t) = target.filter(|t| t != module) {
                            to.insert(t);
                        }
                        if !after.starts_with('{') {
                            break;
                        }
                    }
                    rest = after;
                }
            }
        }
    }
    assert_no_circle("engine", &edges);
    assert!(
        edges["gate"].contains("cache"),
        "the reading finds imports: {edges:?}"
    );
    assert!(edges["cache"].contains("options"), "{edges:?}");
}

/// The Python binding's modules (`python/src`) form floors too: no module reaches, through
/// `crate::…` paths, a module that reaches it back (token → input → spacing → answer, robots,
/// gate → crawl: each below the next).
#[test]
fn the_python_modules_import_in_one_direction() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/src");
    let mut edges: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    let mut sources = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("python/src") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path
                .file_stem()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            sources.insert(name, std::fs::read_to_string(&path).expect("read"));
        }
    }
    assert!(sources.len() >= 10, "{} python modules", sources.len());
    for (module, source) in &sources {
        let to = edges.entry(module.clone()).or_default();
        for line in source.lines() {
            let mut rest = line.split("//").next().unwrap_or_default();
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if sources.contains_key(&word) && &word != module {
                    to.insert(word);
                }
            }
        }
    }
    assert_no_circle("python", &edges);
    assert!(
        edges["gate"].contains("crawl"),
        "the reading finds imports: {edges:?}"
    );
    assert!(edges["input"].contains("token"), "{edges:?}");
}

/// Panics on an import circle among `edges` (module → the modules it imports), naming it.
fn assert_no_circle<K: AsRef<str> + Ord>(
    what: &str,
    edges: &BTreeMap<K, std::collections::BTreeSet<String>>,
) {
    type Edges<'a> = BTreeMap<&'a str, &'a std::collections::BTreeSet<String>>;
    // Depth-first: a module met again on the path is a circle.
    fn visit<'a>(
        what: &str,
        m: &'a str,
        edges: &Edges<'a>,
        path: &mut Vec<&'a str>,
        done: &mut std::collections::BTreeSet<&'a str>,
    ) {
        if let Some(i) = path.iter().position(|p| *p == m) {
            panic!("{what} import circle: {} → {m}", path[i..].join(" → "));
        }
        if !done.insert(m) {
            return;
        }
        path.push(m);
        for next in edges.get(m).into_iter().copied().flatten() {
            visit(what, next, edges, path, done);
        }
        path.pop();
    }
    let edges: Edges<'_> = edges.iter().map(|(k, v)| (k.as_ref(), v)).collect();
    let mut done = std::collections::BTreeSet::new();
    for m in edges.keys() {
        visit(what, m, &edges, &mut Vec::new(), &mut done);
    }
}
