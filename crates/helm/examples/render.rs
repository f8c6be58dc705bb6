//! `helm template` with this crate: what the oracle script compares.
//!
//! cargo run -p fplint-helm --example render -- CHART [-f VALUES]... [--set K=V]...
//!   [--set-string K=V]... [--release NAME] [--namespace NS] [--kube-version V]
//!   [--api-versions V]... [--include-crds]

use std::path::Path;
use std::process::ExitCode;

use fplint_helm::{
    render, to_helm_output, yaml_errors, Chart, Limits, Release, SetValue, ValuesLayer,
};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut chart = None;
    let mut release = Release {
        name: Some("release-name".into()),
        namespace: Some("default".into()),
        ..Release::default()
    };
    let mut crds = false;
    while let Some(a) = args.next() {
        let mut next = || args.next().unwrap_or_default();
        match a.as_str() {
            "-f" | "--values" => {
                let file = next();
                match std::fs::read_to_string(&file) {
                    Ok(text) => release.values.push(ValuesLayer::Yaml { file, text }),
                    Err(e) => {
                        eprintln!("Error: {file}: {e}");
                        return ExitCode::from(1);
                    }
                }
            }
            "--set" => release.set.push(SetValue {
                expr: next(),
                string: false,
            }),
            "--set-string" => release.set.push(SetValue {
                expr: next(),
                string: true,
            }),
            "--release" | "--name" => release.name = Some(next()),
            "--unknown-release" => {
                release.name = None;
                release.namespace = None;
            }
            "--namespace" | "-n" => release.namespace = Some(next()),
            "--kube-version" => release.kube_version = Some(next()),
            "--api-versions" | "-a" => release.api_versions.push(next()),
            "--include-crds" => crds = true,
            other => chart = Some(other.to_string()),
        }
    }
    let Some(chart) = chart else {
        eprintln!("usage: render CHART [-f VALUES]... [--set K=V]... [--release NAME] [--namespace NS] [--kube-version V]");
        return ExitCode::from(2);
    };
    let limits = Limits::default();
    let path = Path::new(&chart);
    let loaded = if path.is_dir() {
        Chart::load_dir(path, &limits)
    } else {
        match std::fs::read(path) {
            Ok(bytes) => Chart::load_archive(&bytes, &limits),
            Err(e) => {
                eprintln!("Error: {chart}: {e}");
                return ExitCode::from(1);
            }
        }
    };
    let chart = match loaded {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::from(1);
        }
    };
    if chart.is_library {
        eprintln!("Error: library charts are not installable");
        return ExitCode::from(1);
    }
    let mut out = render(&chart, &release, &limits);
    if !out.missing_dependencies.is_empty() {
        eprintln!(
            "Error: found in Chart.yaml, but missing in charts/ directory: {}",
            out.missing_dependencies.join(", ")
        );
        return ExitCode::from(1);
    }
    let invalid = yaml_errors(&out, &limits);
    out.errors.extend(invalid);
    let mut text = String::new();
    if crds {
        for c in &out.crds {
            text.push_str("---\n# Source: ");
            text.push_str(&c.path);
            text.push('\n');
            text.push_str(String::from_utf8_lossy(&c.data).trim_end());
            text.push('\n');
        }
    }
    text.push_str(&to_helm_output(&out));
    print!("{text}");
    for e in &out.errors {
        eprintln!(
            "Error: {}: {} (bytes {}..{})",
            e.template, e.message, e.span.start, e.span.end
        );
    }
    if out.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
