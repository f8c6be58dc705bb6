//! End to end: `fplint check` on a synthetic monorepo (every format, known
//! findings), against bare parsing of the same files, so the cost of the
//! model and the rules over parsing stays visible.
//!
//! `cargo bench --bench pipeline`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fplint_cli::lint::{self, ConfigChoice, Options};
use fplint_core::source::FileId;
use fplint_core::tree::{self, Limits};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Read and parse every file without building the model or running rules.
fn parse_only(paths: &[PathBuf]) -> usize {
    let mut nodes = 0;
    for p in paths {
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        let name = p.to_string_lossy();
        if name.ends_with(".tf") {
            if let Ok(body) = hcl_edit::parser::parse_body(&text) {
                nodes += body.len();
            }
        } else if name.ends_with(".json") {
            nodes += tree::json::parse(&text, FileId(0), Limits::default())
                .documents
                .len();
        } else {
            nodes += tree::yaml::parse(&text, FileId(0), Limits::default())
                .documents
                .len();
        }
    }
    nodes
}

fn pipeline(c: &mut Criterion) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let stats = match xtask::generate(dir.path(), 2 * 1024 * 1024) {
        Ok(s) => s,
        Err(e) => panic!("generate: {e}"),
    };
    let mut paths = Vec::new();
    files(dir.path(), &mut paths);
    paths.sort();
    let opts = Options {
        config: ConfigChoice::Disabled,
        ..Options::default()
    };
    let root = vec![dir.path().to_path_buf()];
    let check = match lint::run(&root, &opts) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        check.diagnostics.len() as u64,
        stats.findings,
        "the generator's findings are all found"
    );

    let mut g = c.benchmark_group("monorepo_2mb");
    g.throughput(Throughput::Bytes(stats.bytes));
    g.sample_size(10);
    g.bench_function("parse_only", |b| b.iter(|| parse_only(&paths)));
    g.bench_function("fplint_check", |b| {
        b.iter(|| match lint::run(&root, &opts) {
            Ok(o) => o.diagnostics.len(),
            Err(_) => 0,
        })
    });
    g.finish();

    let examples = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples")];
    c.bench_function("examples_folder", |b| {
        b.iter(|| match lint::run(&examples, &opts) {
            Ok(o) => o.diagnostics.len(),
            Err(_) => 0,
        })
    });
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
