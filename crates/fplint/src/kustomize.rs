//! Which folders of a run are kustomize build roots, and which files their
//! builds read (those are not linted alone). The build itself is in
//! [`fplint_core::frontend::kustomize`].

use crate::walk::Candidate;
use fplint_core::frontend::kustomize::{self, Plan};
use fplint_core::sources::Sources;
use fplint_core::tree::{self, Limits, Node};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The builds among the walked files: every folder holding a kustomization
/// (`kustomization.yaml`, `.yml`, or `Kustomization`, which has no
/// extension and is looked for next to the files walked).
pub fn plan(files: &[Candidate], sources: &Sources, limits: Limits) -> Plan {
    let mut dirs = BTreeSet::new();
    let mut parents = BTreeSet::new();
    for c in files {
        let parent = c
            .path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        if kustomize::is_kustomization_name(&c.path) {
            dirs.insert(parent);
        } else {
            parents.insert(parent);
        }
    }
    for p in parents {
        if !dirs.contains(&p) && p.join("Kustomization").is_file() {
            dirs.insert(p);
        }
    }
    if dirs.is_empty() {
        return Plan::default();
    }
    Plan::new(dirs, |dir| read(dir, sources, limits))
}

fn read(dir: &Path, sources: &Sources, limits: Limits) -> Option<Node> {
    let file = kustomize::kustomization_in(dir)?;
    let f = sources.load(&kustomize::normalise(&file)).ok()?;
    tree::yaml::parse(&f.text, f.id, limits)
        .documents
        .into_iter()
        .next()
}

/// The build roots under `project_root` whose builds read `file`: for a
/// run on one changed file (a pre-commit hook), the overlays to build
/// instead of linting a base manifest alone.
pub fn roots_including(file: &Path, project_root: &Path) -> Vec<PathBuf> {
    let mut dirs = BTreeSet::new();
    for entry in ignore::WalkBuilder::new(project_root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .build()
        .flatten()
    {
        if entry.file_type().is_some_and(|t| t.is_file())
            && kustomize::is_kustomization_name(entry.path())
        {
            if let Some(parent) = entry.path().parent() {
                dirs.insert(parent.to_path_buf());
            }
        }
    }
    let sources = Sources::new(vec![project_root.to_path_buf()]);
    let plan = Plan::new(dirs, |dir| read(dir, &sources, Limits::default()));
    plan.roots_including(file)
}
