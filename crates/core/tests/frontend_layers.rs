//! The frontends' shared module imports no frontend, and no frontend
//! imports another in a circle: adding a kind of input is one frontend file
//! and a registry row, never an edit to its neighbours.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const FRONTENDS: [&str; 15] = [
    "appset",
    "argocd",
    "chart",
    "cloudformation",
    "eksctl",
    "flux",
    "helmfile",
    "kubernetes",
    "kustomize",
    "near_miss",
    "program",
    "script",
    "shared",
    "terraform",
    "terragrunt",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/frontend")
}

/// The frontend a file belongs to: its folder, or its name at the top.
fn owner(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root()).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    FRONTENDS.contains(&name).then(|| name.to_string())
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("cannot list {}", dir.display());
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Whether `code` names frontend `to` in a path or a `use` list.
fn names(code: &str, to: &str) -> bool {
    ["super::", "super::super::", "crate::frontend::"]
        .iter()
        .any(|p| {
            code.contains(&format!("{p}{to}::"))
                || code.contains(&format!("{p}{to};"))
                || code.contains(&format!("{p}{{{to}"))
                || code.contains(&format!("{p}{{{to},"))
        })
        || code.contains(&format!(", {to}}}"))
        || code.contains(&format!(", {to},"))
}

/// Which other frontends each frontend's code (tests left out) names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut all = Vec::new();
    files(&root(), &mut all);
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in all {
        let Some(from) = owner(&path) else { continue };
        let Ok(text) = std::fs::read_to_string(&path) else {
            panic!("cannot read {}", path.display());
        };
        let code: String = text
            .split("#[cfg(test)]")
            .next()
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let deps = out.entry(from.clone()).or_default();
        for to in FRONTENDS {
            if to != from && names(&code, to) {
                deps.insert(to.to_string());
            }
        }
    }
    out
}

#[test]
fn the_detector_sees_the_ways_a_frontend_is_named() {
    assert!(names("use super::argocd;", "argocd"));
    assert!(names("use super::{kubernetes, UnitOutput};", "kubernetes"));
    assert!(names("use crate::frontend::{chart, shared};", "shared"));
    assert!(names("crate::frontend::chart::is_chart(&dir)", "chart"));
    assert!(names("use super::{load, shared, UnitOutput};", "shared"));
    assert!(!names("use super::UnitOutput;", "chart"));
}

#[test]
fn the_shared_module_imports_no_frontend() {
    let deps = imports();
    assert_eq!(deps.get("shared"), Some(&BTreeSet::new()), "{deps:#?}");
}

#[test]
fn frontends_import_each_other_in_no_circle() {
    fn reaches(
        deps: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        goal: &str,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        deps.get(at).into_iter().flatten().any(|next| {
            next == goal || (seen.insert(next.clone()) && reaches(deps, next, goal, seen))
        })
    }
    let deps = imports();
    for f in deps.keys() {
        assert!(
            !reaches(&deps, f, f, &mut BTreeSet::new()),
            "{f} imports itself through others: {deps:#?}"
        );
    }
    // What they share comes from the shared module, not from each other.
    for f in [
        "argocd",
        "flux",
        "helmfile",
        "chart",
        "kustomize",
        "kubernetes",
    ] {
        assert!(deps[f].contains("shared"), "{f}: {deps:#?}");
    }
}
