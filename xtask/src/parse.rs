//! Bare parsing: read every file of a tree and parse it with the parser
//! fplint uses for its kind, building nothing else. This is the floor the
//! whole run is measured against (`cargo bench --bench pipeline`, and
//! `cargo run --release -p xtask -- parse-only DIR` for instruction counts).

use fplint_core::source::FileId;
use fplint_core::tree::{self, Limits};
use std::path::{Path, PathBuf};

/// Every file under `dir`, sorted, hidden ones (`.git`) left out.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// Read and parse one file, nothing more; the number of top-level items.
pub fn parse_file(p: &Path) -> usize {
    let Ok(text) = std::fs::read_to_string(p) else {
        return 0;
    };
    match p.extension().and_then(|e| e.to_str()) {
        Some("tf" | "hcl") => hcl_edit::parser::parse_body(&text).map_or(0, |b| b.len()),
        Some("json") => tree::json::parse(&text, FileId(0), Limits::default())
            .documents
            .len(),
        Some("yaml" | "yml") => tree::yaml::parse(&text, FileId(0), Limits::default())
            .documents
            .len(),
        _ => 0,
    }
}

/// Read and parse every file on the calling thread.
pub fn parse_only(paths: &[PathBuf]) -> usize {
    paths.iter().map(|p| parse_file(p)).sum()
}
