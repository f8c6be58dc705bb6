//! Terragrunt in the pipeline: a folder holding `terragrunt.hcl` (or
//! `terragrunt.stack.hcl`) is one unit, modelled by the core's Terragrunt
//! frontend. The `.tf` files of the unit's folder, and of the local module
//! its `terraform { source }` names, are linted through the unit.

use crate::walk::Candidate;
use fplint_core::frontend::terragrunt;
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Whether the file is a Terragrunt unit or stack.
pub(crate) fn is_unit(path: &Path) -> bool {
    terragrunt::is_unit_file(path)
}

/// The folders a unit file's module code is in: its own folder, and the
/// local source it names.
pub(crate) fn calls(unit_file: &Path, sources: &Sources, limits: Limits) -> Vec<PathBuf> {
    terragrunt::local_sources(unit_file, sources, limits)
}

/// The module folders among `dirs` that the run's units call (`calls`
/// gives the folders one unit file calls).
pub(crate) fn called(
    files: &[Candidate],
    dirs: &[&PathBuf],
    calls: &(dyn Fn(&PathBuf, &[&Candidate]) -> Vec<PathBuf> + Sync),
) -> HashSet<PathBuf> {
    let key = |p: &Path| {
        let a = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        fplint_core::frontend::terraform::normalize(&a)
    };
    let mut wanted = HashSet::new();
    for c in files.iter().filter(|c| is_unit(&c.path)) {
        let dir = c
            .path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        wanted.insert(key(&dir));
        for d in calls(&dir, &[c]) {
            wanted.insert(key(&d));
        }
    }
    if wanted.is_empty() {
        return HashSet::new();
    }
    dirs.iter()
        .filter(|d| wanted.contains(&key(d)))
        .map(|d| (*d).clone())
        .collect()
}

/// The project roots of the run's unit files: Terragrunt reads included
/// files in the folders above a unit. Where no marker says where a unit's
/// project ends (a tarball, a CI workspace without history), what the unit
/// reads is followed wherever it is, as Terragrunt does: those files and
/// its module's folder, nothing else around them.
pub(crate) fn roots(files: &[Candidate], limits: Limits) -> Vec<PathBuf> {
    let mut marked = crate::context::Marked::default();
    let mut out: Vec<PathBuf> = files
        .iter()
        .filter(|c| is_unit(&c.path))
        .flat_map(|c| {
            let mut r = vec![crate::context::root_of(&c.path)];
            if !marked.root_of(&c.path) {
                r.extend(terragrunt::reached(&c.path, limits));
            }
            r
        })
        .collect();
    out.sort();
    out.dedup();
    out
}
