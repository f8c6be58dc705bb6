//! `cargo run -p xtask -- gen-monorepo --out DIR --mb N`
//!
//! Writes a synthetic monorepo mixing every format fplint reads, with
//! realistic content and a known number of findings, for benchmarks.
//!
//! `cargo run -p xtask -- gen-terragrunt --out DIR [--units N]`
//!
//! Writes a synthetic Terragrunt repository of N units over local modules.
//!
//! `cargo run -p xtask -- gen-gitops --out DIR [--apps N]`
//!
//! Writes a synthetic GitOps repository of N Argo CD Applications.
//!
//! `cargo run -p xtask -- schema KIND SOURCE... [--check]`
//!
//! Regenerates (or, with `--check`, compares) a field table under
//! `crates/core/schemas/` from upstream schemas; see docs/schemas.md.
//!
//! `cargo run -p xtask -- readme [--check]`
//!
//! Regenerates (or checks) the README's rule table from the registry.
//!
//! `cargo run -p xtask -- charts [--corpus DIR] [--out FILE]`
//!
//! Learns what the charts of the chart corpus deploy and writes
//! `crates/rules/src/charts/known.json`; see CONTRIBUTING.md.
//!
//! `cargo run --release -p xtask -- parse-only DIR`
//!
//! Reads and parses every file of DIR on one thread and nothing more: the
//! baseline of docs/benchmarks.md, for instruction counts under callgrind.

use std::path::PathBuf;
use xtask::generate;

fn usage() -> ! {
    eprintln!("usage: cargo run -p xtask -- gen-monorepo --out DIR [--mb N]\n       cargo run -p xtask -- gen-terragrunt --out DIR [--units N]\n       cargo run -p xtask -- gen-gitops --out DIR [--apps N]\n       cargo run -p xtask -- gen-cdk --out DIR [--files N]\n       cargo run -p xtask -- schema KIND SOURCE... [--check]\n       cargo run -p xtask -- readme [--check]\n       cargo run -p xtask -- charts [--corpus DIR] [--out FILE]\n       cargo run -p xtask -- parse-only DIR");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("readme") {
        std::process::exit(xtask::readme::main(&args[1..]));
    }
    if args.first().map(String::as_str) == Some("charts") {
        std::process::exit(xtask::charts::main(&args[1..]));
    }
    if args.first().map(String::as_str) == Some("parse-only") {
        let [_, dir] = args.as_slice() else { usage() };
        let paths = xtask::parse::files(std::path::Path::new(dir));
        let items = xtask::parse::parse_only(&paths);
        println!("parsed {} files, {items} top-level items", paths.len());
        return;
    }
    if args.first().map(String::as_str) == Some("schema") {
        std::process::exit(xtask::schema_main(&args[1..]));
    }
    let terragrunt = args.first().map(String::as_str) == Some("gen-terragrunt");
    let gitops = args.first().map(String::as_str) == Some("gen-gitops");
    let cdk = args.first().map(String::as_str) == Some("gen-cdk");
    if !terragrunt && !gitops && !cdk && args.first().map(String::as_str) != Some("gen-monorepo") {
        usage();
    }
    let mut out: Option<PathBuf> = None;
    let mut mb: u64 = 10;
    let mut units: u64 = 200;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().map(PathBuf::from),
            "--mb" => {
                mb = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--units" if terragrunt => {
                units = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--files" if cdk => {
                units = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--apps" if gitops => {
                units = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            _ => usage(),
        }
    }
    let Some(out) = out else { usage() };
    let made = if cdk {
        xtask::generate_cdk_app(&out, units)
    } else if gitops {
        xtask::generate_gitops(&out, units)
    } else if terragrunt {
        xtask::generate_terragrunt(&out, units)
    } else {
        generate(&out, mb * 1024 * 1024)
    };
    match made {
        Ok(stats) => println!(
            "wrote {} files, {} bytes, {} expected findings to {}",
            stats.files,
            stats.bytes,
            stats.findings,
            out.display()
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    }
}
