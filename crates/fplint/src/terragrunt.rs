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

/// Local module folders a unit's code reaches at most (a bound on trees
/// whose modules call each other).
const MAX_MODULES: usize = 64;

/// The folders a unit file's module code is in: its own folder, or the
/// local source it names, and the local modules that code calls, at any
/// depth: all of it is run by the unit.
pub(crate) fn calls(unit_file: &Path, sources: &Sources, limits: Limits) -> Vec<PathBuf> {
    let mut out = terragrunt::local_sources(unit_file, sources, limits);
    let mut seen: HashSet<PathBuf> = out.iter().map(|d| key(d)).collect();
    let mut next = 0;
    while next < out.len() && out.len() < MAX_MODULES {
        let dir = out[next].clone();
        next += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut tf: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| crate::pipeline::inputs::is_terraform(p) && p.is_file())
            .collect();
        tf.sort();
        for d in fplint_core::frontend::terraform::local_calls(&dir, &tf, sources.max_file_size) {
            if seen.insert(key(&d)) {
                out.push(d);
            }
        }
    }
    out
}

/// A folder as one key however it is reached (`envs/../src/a`, `./src/a`).
fn key(p: &Path) -> PathBuf {
    let a = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    fplint_core::frontend::terraform::normalize(&a)
}

/// The module folders among `dirs` that the units among `files` call
/// (`calls` gives the folders one unit file calls).
pub(crate) fn called<'a>(
    files: impl IntoIterator<Item = &'a Candidate>,
    dirs: &[&PathBuf],
    calls: &(dyn Fn(&PathBuf, &[&Candidate]) -> Vec<PathBuf> + Sync),
) -> HashSet<PathBuf> {
    let mut wanted = HashSet::new();
    for c in files.into_iter().filter(|c| is_unit(&c.path)) {
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
/// files in the folders above a unit.
pub(crate) fn roots(files: &[Candidate]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = files
        .iter()
        .filter(|c| is_unit(&c.path))
        .map(|c| crate::context::root_of(&c.path))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A unit's module code on disk is the unit's own: Terragrunt runs the
/// unit as that code with its inputs. Its `.tf` files are linted with the
/// unit, as when the module's folder is in the run, so that naming the
/// unit, its folder or the whole tree reports the same findings in the
/// same places.
pub(crate) fn own_module_code(
    unit: &mut fplint_core::frontend::UnitOutput,
    unit_file: &Path,
    sources: &Sources,
    limits: Limits,
) {
    let dirs: HashSet<PathBuf> = calls(unit_file, sources, limits)
        .iter()
        .map(|d| key(d))
        .collect();
    if dirs.is_empty() {
        return;
    }
    let own: Vec<_> = unit
        .context_files
        .iter()
        .filter_map(|id| sources.peek(*id))
        .filter(|f| {
            let path = Path::new(&f.path);
            crate::pipeline::inputs::is_terraform(path)
                && path.parent().is_some_and(|d| dirs.contains(&key(d)))
        })
        .collect();
    // Checked for syntax as the module's folder is when it is in the run
    // (the same finding twice is reported once).
    unit.diagnostics
        .extend(fplint_core::frontend::terraform::syntax_errors(&own));
    unit.given_files.extend(own.iter().map(|f| f.id));
}

/// The project's units that run a module folder of this run (one of its
/// `.tf` folders, read or as context, or the local source of one of its
/// units) and are not in it, to be read as context: a module folder named alone is run through
/// its units, with their inputs, as the whole tree runs it, not as a root
/// with its variables' defaults. Only projects a marker bounds (a config
/// file or `.git`), and only those the walk did not cover, are searched.
/// Returns the units and the roots searched, as reached from the working
/// folder.
pub(crate) fn callers(
    paths: &[PathBuf],
    files: &[&Candidate],
    exclude: Option<(&globset::GlobSet, &Path)>,
    sources: &Sources,
    limits: Limits,
) -> (Vec<Candidate>, Vec<PathBuf>) {
    let mut modules: HashSet<PathBuf> = HashSet::new();
    for c in files {
        let Some(dir) = c.path.parent() else {
            continue;
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if crate::pipeline::inputs::is_terraform(&c.path) {
            modules.insert(key(dir));
        } else if is_unit(&c.path) {
            modules.extend(calls(&c.path, sources, limits).iter().map(|d| key(d)));
        }
    }
    if modules.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let walked: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut roots: Vec<PathBuf> = modules
        .iter()
        .filter_map(|d| crate::context::marked_root_of(&d.join(".fplint-root")))
        .filter(|r| !walked.iter().any(|w| r.starts_with(w)))
        .collect();
    roots.sort();
    roots.dedup();
    if roots.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let cwd = std::env::current_dir()
        .ok()
        .map(|d| d.canonicalize().unwrap_or(d));
    let shown: Vec<PathBuf> = roots
        .iter()
        .map(|r| crate::context::relative_to(cwd.as_deref(), r))
        .collect();
    let have: HashSet<PathBuf> = files
        .iter()
        .filter(|c| is_unit(&c.path))
        .map(|c| key(&c.path))
        .collect();
    // The search reads only the units it finds, inside the roots.
    let reader = Sources::new(shown.clone());
    let found = crate::walk::walk_keeping(&shown, exclude, None, &is_unit).files;
    let mut out: Vec<Candidate> = found
        .into_iter()
        .filter(|c| !have.contains(&key(&c.path)))
        .filter(|c| {
            calls(&c.path, &reader, limits)
                .iter()
                .any(|d| modules.contains(&key(d)))
        })
        .map(|mut c| {
            c.explicit = false;
            c
        })
        .collect();
    out.sort();
    (out, shown)
}
