//! Terraform module folders across the run: which folders are roots, and
//! where findings inside module code are reported.

use crate::walk::Candidate;
use fplint_core::frontend::terraform::{local_calls, normalize};
use fplint_core::model::{ModuleCall, Project};
use fplint_core::tree::Limits;
use fplint_core::{Diagnostic, FileId, Span};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

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

/// Lists the folders with `.tf` files under some roots as the run's walk
/// finds them (ignore files respected, hidden folders left out), for the
/// search of a project for the root that writes a remote state.
pub(crate) fn tf_folders() -> fplint_core::sources::TfFolders {
    fplint_core::sources::TfFolders(std::sync::Arc::new(|roots: &[PathBuf]| {
        let is_tf = |p: &Path| p.extension().is_some_and(|x| x == "tf");
        let walked = crate::walk::walk_keeping(roots, None, None, &is_tf);
        let mut dirs: Vec<PathBuf> = walked
            .files
            .iter()
            .filter(|c| is_tf(&c.path))
            .filter_map(|c| c.path.parent().map(Path::to_path_buf))
            .collect();
        dirs.sort();
        dirs.dedup();
        dirs
    }))
}

/// The project roots (the nearest `fplint.toml` or `.git`) of the paths
/// given, when the run has Terraform: a local module's `source` may lie
/// outside the folder linted (`../../modules/eks`), and `terraform init`
/// reads it wherever it is. Reads stay inside the project; where no marker
/// says where the project ends (a tarball, a CI workspace without history),
/// the local sources are followed wherever they point ([`followed`]).
pub(crate) fn roots(
    paths: &[PathBuf],
    files: &[Candidate],
    limits: Limits,
    max_file_size: u64,
) -> Vec<PathBuf> {
    if !files
        .iter()
        .any(|c| crate::pipeline::inputs::is_terraform(&c.path))
    {
        return Vec::new();
    }
    let mut out: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            if p.is_dir() {
                // `root_of` starts at a file's folder: name one inside.
                let dir = p.canonicalize().unwrap_or_else(|_| p.clone());
                crate::context::root_of(&dir.join(".fplint-root"))
            } else {
                crate::context::root_of(p)
            }
        })
        .collect();
    out.extend(followed(files, limits, max_file_size));
    out.sort();
    out.dedup();
    out
}

/// The folders the local module sources of the run's unmarked Terraform
/// folders lead to, and theirs in turn, as `terraform init` follows them:
/// each folder once (a module that calls itself through a parent ends
/// there), at most `terraform-module-depth` calls deep.
fn followed(files: &[Candidate], limits: Limits, max_file_size: u64) -> Vec<PathBuf> {
    let mut start: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for c in files
        .iter()
        .filter(|c| crate::pipeline::inputs::is_terraform(&c.path))
    {
        let dir = c
            .path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        start.entry(dir).or_default().push(c.path.clone());
    }
    let mut marked = crate::context::Marked::default();
    start.retain(|_, fs| fs.first().is_some_and(|f| !marked.root_of(f)));
    let abs = |p: &Path| normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
    let mut seen: HashSet<PathBuf> = start.keys().map(|d| abs(d)).collect();
    let mut frontier: Vec<(PathBuf, Vec<PathBuf>, usize)> =
        start.into_iter().map(|(d, fs)| (d, fs, 0)).collect();
    let mut out = Vec::new();
    while let Some((dir, fs, depth)) = frontier.pop() {
        if depth >= limits.max_module_depth {
            continue;
        }
        for called in local_calls(&dir, &fs, max_file_size) {
            let called = abs(&called);
            if !called.is_dir() || !seen.insert(called.clone()) {
                continue;
            }
            let tf = terraform_files(&called);
            out.push(called.clone());
            frontier.push((called, tf, depth + 1));
        }
    }
    out
}

/// The Terraform files of a folder, in name order.
fn terraform_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && crate::pipeline::inputs::is_terraform(p))
        .collect();
    out.sort();
    out
}

/// A call of module code: the root's call it is reached through
/// ([`ModuleCall::outer`]), and its address without instance keys (the
/// instances of one call are one call).
type CallId = (Span, String);

/// The rules' findings, each with the cluster it was found for: a finding
/// inside module code that several calls of the run share is placed at the
/// call whose inputs make it, with its place in the module related, unless
/// every call of the module gives it (same code, same span), which makes
/// it the module's own: it then stays in the module for [`place`]. In a
/// module read only as context, it always goes to its own call. Done
/// before suppressions, which apply where a finding is reported.
pub(crate) fn at_calls(
    found: Vec<(Option<usize>, Diagnostic)>,
    project: &Project,
    context_only: &HashSet<&FileId>,
) -> Vec<Diagnostic> {
    let mut by_file: HashMap<FileId, Vec<&ModuleCall>> = HashMap::new();
    for m in &project.module_calls {
        by_file.entry(m.file).or_default().push(m);
    }
    // Every call of each module file.
    let universe: HashMap<FileId, BTreeSet<CallId>> = by_file
        .iter()
        .map(|(f, ms)| (*f, ms.iter().map(|m| id_of(m)).collect()))
        .collect();
    if universe.is_empty() {
        return found.into_iter().map(|(_, d)| d).collect();
    }
    let ids: Vec<Option<CallId>> = found
        .iter()
        .map(|(i, d)| match universe.get(&d.span.file) {
            Some(u) if u.len() == 1 => u.first().cloned(),
            Some(_) => call_of(d, project.clusters.get((*i)?)?, &by_file),
            None => None,
        })
        .collect();
    let mut groups: HashMap<(&str, Span), BTreeSet<&CallId>> = HashMap::new();
    for ((_, d), id) in found.iter().zip(&ids) {
        if let Some(id) = id {
            groups.entry((d.code, d.span)).or_default().insert(id);
        }
    }
    // Calls whose findings move: not every call gives them, or the module
    // is not linted itself.
    let moves: Vec<bool> = found
        .iter()
        .zip(&ids)
        .map(|((_, d), id)| {
            id.is_some()
                && (context_only.contains(&d.span.file)
                    || groups.get(&(d.code, d.span)).map(BTreeSet::len)
                        != universe.get(&d.span.file).map(BTreeSet::len))
        })
        .collect();
    found
        .into_iter()
        .zip(ids)
        .zip(moves)
        .map(|(((_, mut d), id), moves)| {
            if let (true, Some(id)) = (moves, id) {
                to_call(&mut d, &id, &by_file);
            }
            d
        })
        .collect()
}

fn id_of(m: &ModuleCall) -> CallId {
    (m.outer, without_keys(&m.address))
}

/// The call of shared module code a finding for `cluster` comes from: of
/// the calls of its root, the one whose address holds the finding's, else
/// the only one of the file.
fn call_of(
    d: &Diagnostic,
    cluster: &fplint_core::model::Cluster,
    by_file: &HashMap<FileId, Vec<&ModuleCall>>,
) -> Option<CallId> {
    let mine: BTreeSet<CallId> = by_file
        .get(&d.span.file)?
        .iter()
        .filter(|m| cluster.calls.contains(&m.outer))
        .map(|m| id_of(m))
        .collect();
    let path = d.path.as_deref().map(without_keys);
    let holding: Vec<&CallId> = mine
        .iter()
        .filter(|(_, a)| path.as_deref().is_some_and(|p| within(a, p)))
        .collect();
    match (holding.as_slice(), mine.len()) {
        ([one], _) => Some((*one).clone()),
        (_, 1) => mine.into_iter().next(),
        _ => None,
    }
}

/// Move a finding from module code to the call `id` in the root's files,
/// through the calls in between, each related as the context move does.
fn to_call(d: &mut Diagnostic, id: &CallId, by_file: &HashMap<FileId, Vec<&ModuleCall>>) {
    let (outer, address) = id;
    for _ in 0..16 {
        // The call of this file on the way to the root's: the longest
        // address that holds the finding's call.
        let Some(m) = by_file.get(&d.span.file).and_then(|ms| {
            ms.iter()
                .filter(|m| m.outer == *outer && within(&without_keys(&m.address), address))
                .max_by_key(|m| m.address.len())
        }) else {
            break;
        };
        let inner = d.span;
        d.span = m.call;
        d.label = Some(format!("in `{}`", m.address));
        d.related
            .insert(0, related(inner, format!("inside `{}`", m.address)));
        if m.call == m.outer {
            break;
        }
    }
    // A fix of the module's code would change every call of it.
    let shared = d
        .fix
        .as_ref()
        .is_some_and(|f| f.changes.iter().any(|c| by_file.contains_key(&c.file())));
    if shared {
        d.fix = None;
    }
}

/// Whether the address `outer` is `inner` or one of its parents.
fn within(outer: &str, inner: &str) -> bool {
    inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// `module.a["x"].module.b[0]` as `module.a.module.b`.
fn without_keys(address: &str) -> String {
    let mut out = String::with_capacity(address.len());
    let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
    for ch in address.chars() {
        if quoted {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => quoted = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '"' if depth > 0 => quoted = true,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out
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
            // A call in the files linted, before one read as context.
            let Some(m) = calls.get(&d.span.file).and_then(|c| {
                c.iter()
                    .find(|m| !context_only.contains(&m.call.file))
                    .or(c.first())
            }) else {
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
