//! Terraform module folders across the run: which folders are roots, and
//! where findings inside module code are reported.

use crate::walk::Candidate;
use fplint_core::frontend::terraform::{local_calls, normalize};
use fplint_core::model::Project;
use fplint_core::{Diagnostic, FileId};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

/// The module folders of the run that another folder of the run calls as a
/// local module, and that are reached from a root: they are evaluated
/// through their calls, not alone with their variables' defaults. Folders
/// that only call each other stay roots.
pub fn called_folders(
    modules: &BTreeMap<PathBuf, Vec<&Candidate>>,
    max_file_size: u64,
) -> HashSet<PathBuf> {
    called_folders_with(modules, &|dir, files| {
        let paths: Vec<PathBuf> = files.iter().map(|c| c.path.clone()).collect();
        local_calls(dir, &paths, max_file_size)
    })
}

/// [`called_folders`], with the local modules a folder calls given by
/// `calls` (a workspace keeps them between checks).
pub(crate) fn called_folders_with(
    modules: &BTreeMap<PathBuf, Vec<&Candidate>>,
    calls: &(dyn Fn(&PathBuf, &[&Candidate]) -> Vec<PathBuf> + Sync),
) -> HashSet<PathBuf> {
    let norm: BTreeMap<PathBuf, &PathBuf> = modules.keys().map(|d| (normalize(d), d)).collect();
    let edges: Vec<(PathBuf, Vec<PathBuf>)> = modules
        .par_iter()
        .map(|(dir, files)| {
            let calls = calls(dir, files);
            let own = normalize(dir);
            let calls = calls
                .into_iter()
                .filter(|c| *c != own && norm.contains_key(c))
                .collect();
            (own, calls)
        })
        .collect();
    let called: HashSet<&PathBuf> = edges.iter().flat_map(|(_, c)| c).collect();
    let graph: HashMap<&PathBuf, &Vec<PathBuf>> = edges.iter().map(|(d, c)| (d, c)).collect();
    // Reached from a folder nothing calls.
    let mut reached: HashSet<PathBuf> = HashSet::new();
    let mut stack: Vec<&PathBuf> = edges
        .iter()
        .map(|(d, _)| d)
        .filter(|d| !called.contains(d))
        .collect();
    while let Some(d) = stack.pop() {
        for c in graph.get(d).into_iter().flat_map(|c| c.iter()) {
            if reached.insert(c.clone()) {
                stack.push(c);
            }
        }
    }
    norm.into_iter()
        .filter(|(n, _)| reached.contains(n))
        .map(|(_, d)| d.clone())
        .collect()
}

/// Findings inside module code: in a file the user named they stay where
/// they are, with the call related; in a file read only as the code of a
/// call (a module outside the run, a downloaded one) they move to the call
/// in the user's code, with the module's line related. Others in
/// context-only files are dropped.
pub fn place(
    diagnostics: &mut Vec<Diagnostic>,
    project: &Project,
    context_only: &HashSet<&FileId>,
) {
    let mut calls: HashMap<FileId, Vec<&fplint_core::model::ModuleCall>> = HashMap::new();
    for m in &project.module_calls {
        calls.entry(m.file).or_default().push(m);
    }
    for d in diagnostics.iter_mut() {
        let mut hops = 0;
        while context_only.contains(&d.span.file) && hops < 16 {
            hops += 1;
            let Some(m) = calls.get(&d.span.file).and_then(|c| c.first()) else {
                break;
            };
            let inner = d.span;
            d.span = m.call;
            d.label = Some(format!("in `{}`", m.address));
            d.related
                .insert(0, related(inner, format!("inside `{}`", m.address)));
        }
        if hops == 0 {
            if let Some(ms) = calls.get(&d.span.file) {
                for m in ms.iter().take(4) {
                    let r = related(m.call, format!("`{}` is called here", m.address));
                    if !d.related.iter().any(|x| x.span == r.span) {
                        d.related.push(r);
                    }
                }
            }
        }
    }
    diagnostics.retain(|d| !context_only.contains(&d.span.file));
}

fn related(span: fplint_core::Span, message: String) -> fplint_core::diagnostic::Related {
    fplint_core::diagnostic::Related { span, message }
}
