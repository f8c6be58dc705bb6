//! Helpers shared by the integration tests.
#![allow(dead_code)]

use fplint::lint::{self, ConfigChoice, Options, Report};
use std::path::{Path, PathBuf};

/// Lint paths the way `fplint check --no-config` does.
pub fn lint(paths: &[PathBuf]) -> Report {
    let opts = Options {
        config: ConfigChoice::Disabled,
        ..Options::default()
    };
    match lint::run(paths, &opts) {
        Ok(o) => o,
        Err(e) => panic!("config error in a test without config: {e}"),
    }
}

pub fn concise(o: &Report) -> String {
    fplint::render::concise::render(o)
}

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Cases of `tests/fixtures/<CODE>/`: files or module folders named
/// `fire_*` (must produce the code) or `quiet_*` (must not).
pub fn fixture_cases(code: &str) -> Vec<PathBuf> {
    let dir = repo().join("tests/fixtures").join(code);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    cases.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("fire_") || n.starts_with("quiet_"))
    });
    cases.sort();
    cases
}

/// A command's standard output, as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh temporary folder.
pub fn tmp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

/// Write `text` to `dir/name`, creating folders on the way.
pub fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&p, text) {
        panic!("write {}: {e}", p.display());
    }
}
