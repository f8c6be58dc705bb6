//! End to end: `fplint check` on a synthetic monorepo (every format, known
//! findings), against bare parsing of the same files, so the cost of the
//! model and the rules over parsing stays visible.
//!
//! `cargo bench --bench pipeline` (`-- incremental` for the workspace alone,
//! `-- named_files` for named files against their folder,
//! `-- terragrunt` for the Terragrunt tree, `-- gitops` for 500 Argo CD
//! Applications; `FPLINT_BENCH_100MB=1 cargo bench --bench pipeline --
//! monorepo_100mb` for the 100 MB tree)

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fplint::lint::{self, ConfigChoice, Options};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use xtask::parse;

// Measure what the binary runs, with its allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: fplint::allocator::Global = fplint::allocator::GLOBAL;

/// Read and parse every file on fplint's worker threads, without model or
/// rules: the floor `fplint check` is measured against (end to end within
/// 1.5x of it).
fn parse_parallel(paths: &[PathBuf]) -> usize {
    lint::in_pool(|| paths.par_iter().map(|p| parse::parse_file(p)).sum())
}

/// fplint's own walk of `root`, then [`parse_parallel`] of what it found:
/// the floor with the finding of files counted, which `parse_parallel`
/// is given for free.
fn walk_parse_parallel(root: &Path) -> usize {
    lint::in_pool(|| {
        let walked = fplint::walk::walk(&[root.to_path_buf()], None);
        walked
            .files
            .par_iter()
            .map(|c| parse::parse_file(&c.path))
            .sum()
    })
}

/// One generated monorepo of `mb` MB: bare parsing on one thread and on
/// the worker threads, against the whole run.
fn monorepo(c: &mut Criterion, group: &str, mb: u64) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let stats = match xtask::generate(dir.path(), mb * 1024 * 1024) {
        Ok(s) => s,
        Err(e) => panic!("generate: {e}"),
    };
    let paths = parse::files(dir.path());
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
    drop(check);

    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(stats.bytes));
    g.sample_size(10);
    g.bench_function("parse_only", |b| b.iter(|| parse::parse_only(&paths)));
    g.bench_function("parse_parallel", |b| b.iter(|| parse_parallel(&paths)));
    g.bench_function("walk_parse_parallel", |b| {
        b.iter(|| walk_parse_parallel(dir.path()))
    });
    g.bench_function("fplint_check", |b| {
        b.iter(|| match lint::run(&root, &opts) {
            Ok(o) => o.diagnostics.len(),
            Err(_) => 0,
        })
    });
    g.finish();
}

fn pipeline(c: &mut Criterion) {
    monorepo(c, "monorepo_2mb", 2);
    monorepo(c, "monorepo_10mb", 10);
    // A few minutes on two cores: asked for by name.
    if std::env::var_os("FPLINT_BENCH_100MB").is_some() {
        monorepo(c, "monorepo_100mb", 100);
    }
    let opts = Options {
        config: ConfigChoice::Disabled,
        ..Options::default()
    };
    let examples = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples")];
    c.bench_function("examples_folder", |b| {
        b.iter(|| match lint::run(&examples, &opts) {
            Ok(o) => o.diagnostics.len(),
            Err(_) => 0,
        })
    });
}

/// A generated tree with a `.git` (the project's root, as a checkout has
/// it), its expected findings, and options as the CLI sets them.
fn generated(
    make: fn(&Path, u64) -> std::io::Result<xtask::Stats>,
    n: u64,
) -> (tempfile::TempDir, u64, Options) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let stats = match make(dir.path(), n) {
        Ok(s) => s,
        Err(e) => panic!("generate: {e}"),
    };
    if let Err(e) = std::fs::create_dir(dir.path().join(".git")) {
        panic!(".git: {e}");
    }
    let opts = Options {
        config: ConfigChoice::Disabled,
        project_context: true,
        ..Options::default()
    };
    (dir, stats.findings, opts)
}

/// A tree and one named file of it, each linted as a whole.
fn tree_and_named(
    c: &mut Criterion,
    group: &str,
    named_case: &str,
    gen: (tempfile::TempDir, u64, Options),
    named: &str,
) {
    let (dir, findings, opts) = gen;
    let root = vec![dir.path().to_path_buf()];
    let one = vec![dir.path().join(named)];
    let count = |paths: &[PathBuf]| match lint::run(paths, &opts) {
        Ok(o) => o.diagnostics.len(),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(count(&root) as u64, findings, "every expected finding");
    assert_eq!(count(&one), 1, "the named file's finding");
    let mut g = c.benchmark_group(group);
    g.sample_size(20);
    g.bench_function("whole_tree", |b| b.iter(|| count(&root)));
    g.bench_function(named_case, |b| b.iter(|| count(&one)));
    g.finish();
}

/// A Terragrunt repository of 200 units over local modules: the whole
/// tree, and one named unit as pre-commit runs it.
fn terragrunt(c: &mut Criterion) {
    tree_and_named(
        c,
        "terragrunt_200_units",
        "one_named_unit",
        generated(xtask::generate_terragrunt, 200),
        "live/account-0/eu-west-1/env-000/eks/terragrunt.hcl",
    );
}

/// A GitOps repository of 500 Argo CD Applications (remote charts,
/// directories of manifests, a local chart): the whole tree, and one named
/// Application as pre-commit runs it.
fn gitops(c: &mut Criterion) {
    tree_and_named(
        c,
        "gitops_500_applications",
        "one_named_application",
        generated(xtask::generate_gitops, 500),
        "apps/app-0009.yaml",
    );
}

/// A TypeScript CDK app of 500 source files: the whole app, and one named
/// module as pre-commit runs it (read with its app).
fn cdk_app(c: &mut Criterion) {
    tree_and_named(
        c,
        "cdk_app_500_files",
        "one_named_module",
        generated(xtask::generate_cdk_app, 500),
        "lib/team-9.ts",
    );
}

const NAMED_EKSCTL: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: shop\n  region: eu-west-1\nfargateProfiles:\n  - name: fp-system\n    selectors:\n      - namespace: kube-system\n      - namespace: apps\n";

fn named_manifest(i: usize) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\n  namespace: apps\nspec:\n  selector:\n    matchLabels: {{app: web-{i}}}\n  template:\n    metadata:\n      labels: {{app: web-{i}}}\n    spec:\n      containers:\n        - name: web\n          image: public.ecr.aws/nginx/nginx:1.27\n          resources:\n            requests: {{cpu: 250m, memory: 512Mi}}\n"
    )
}

/// Named files against their folder, as pre-commit runs fplint (issue 41:
/// at most 1.5x): a git repository of 2,000 files that define no cluster,
/// with a folder holding one eksctl config (`one`) and one holding an
/// eksctl config beside 199 manifests (`apps`).
fn named_files(c: &mut Criterion) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let root = dir.path();
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("{e}"));
    };
    std::fs::create_dir_all(root.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    let bodies = [
        ("py", "def f():\n    return 1\n"),
        ("md", "# notes\n"),
        ("yaml", "name: thing\nitems: [1, 2]\n"),
        ("json", "{\"a\": 1}\n"),
        ("txt", "text\n"),
    ];
    for i in 0..2000 {
        let (ext, body) = bodies[i % bodies.len()];
        write(&format!("other/pkg{:02}/f{i:04}.{ext}", i % 40), body);
    }
    write("one/cluster.yaml", NAMED_EKSCTL);
    write("apps/cluster.yaml", NAMED_EKSCTL);
    for i in 0..199 {
        write(&format!("apps/web-{i:03}.yaml"), &named_manifest(i));
    }
    let opts = Options {
        config: ConfigChoice::Disabled,
        ..Options::default()
    };
    let count = |paths: &[PathBuf]| match lint::run(paths, &opts) {
        Ok(o) => o.diagnostics.len(),
        Err(e) => panic!("{e}"),
    };
    let files = |folder: &str| -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(root.join(folder))
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        out.sort();
        out
    };
    let mut g = c.benchmark_group("named_files");
    g.sample_size(20);
    for folder in ["one", "apps"] {
        let whole = vec![root.join(folder)];
        let named = files(folder);
        assert_eq!(count(&whole), count(&named), "{folder}: the same findings");
        g.bench_function(format!("{folder}_folder"), |b| b.iter(|| count(&whole)));
        g.bench_function(format!("{folder}_named"), |b| b.iter(|| count(&named)));
    }
    g.finish();
}

/// One edit to one file of the 10 MB tree, re-checked by a [`fplint::Workspace`].
fn incremental(c: &mut Criterion) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    if let Err(e) = xtask::generate(dir.path(), 10 * 1024 * 1024) {
        panic!("generate: {e}");
    }
    let linter = fplint::Linter::default().with_options(Options {
        config: ConfigChoice::Disabled,
        ..Options::default()
    });
    let fresh = linter.check_paths(&[dir.path()]);
    let mut ws = linter.open(&[dir.path()]);
    // File ids follow the order of reading; the rendered report does not.
    let render = fplint::render::json::render;
    assert_eq!(render(&ws.check()), render(&fresh));
    let mut g = c.benchmark_group("incremental_10mb");
    g.sample_size(10);
    for (name, file) in [
        ("edit_eksctl", "team-00042/cluster.yaml"),
        ("edit_terraform", "team-00042/infra/variables.tf"),
    ] {
        let path = dir.path().join(file);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => panic!("{file}: {e}"),
        };
        // Two texts in turn, so that every iteration is a real change.
        let texts = [format!("{text}\n# edited\n"), text];
        let mut turn = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                turn ^= 1;
                assert!(ws.set_overlay(&path, texts[turn].as_str()));
                ws.check().diagnostics.len()
            })
        });
    }
    g.bench_function("check_unchanged", |b| {
        b.iter(|| ws.check().diagnostics.len())
    });
    g.finish();
}

criterion_group!(
    benches,
    pipeline,
    terragrunt,
    gitops,
    cdk_app,
    named_files,
    incremental
);
criterion_main!(benches);
