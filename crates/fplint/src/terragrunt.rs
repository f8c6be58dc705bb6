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

/// Units read as context for a module another unit of the run shares, or
/// for one only the project search brought in, at most: beyond a few,
/// modelling them all on every commit costs more than it tells.
const CONTEXT_CALLERS: usize = 4;

/// The project's units that run a module folder of this run and are not
/// in it, to be read as context: a module folder named alone is run
/// through its units, with their inputs, as the whole tree runs it, not as
/// a root with its variables' defaults. A few units that share a named
/// unit's module come too (they tell a finding the module gives every
/// unit from one unit's own), and, for a run of documents alone, the
/// units of the module folders the project search brought in. Only
/// projects a marker bounds (a config file or `.git`), and only those the
/// walk did not cover, are searched. Returns the units and the roots
/// searched, as reached from the working folder.
pub(crate) fn callers(
    paths: &[PathBuf],
    files: &[Candidate],
    context: &[Candidate],
    exclude: Option<(&globset::GlobSet, &Path)>,
    sources: &Sources,
    limits: Limits,
) -> (Vec<Candidate>, Vec<PathBuf>) {
    let folder = |c: &Candidate| -> Option<PathBuf> {
        if !crate::pipeline::inputs::is_terraform(&c.path) {
            return None;
        }
        let dir = c.path.parent()?;
        Some(key(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        }))
    };
    let run_by_units: HashSet<PathBuf> = files
        .iter()
        .filter(|c| is_unit(&c.path))
        .flat_map(|c| calls(&c.path, sources, limits))
        .map(|d| key(&d))
        .collect();
    // The modules the run's units name: other units that run them tell
    // whether a finding in that code is the module's or one unit's.
    let shared: HashSet<PathBuf> = files
        .iter()
        .filter(|c| is_unit(&c.path))
        .flat_map(|c| terragrunt::local_sources(&c.path, sources, limits))
        .map(|d| key(&d))
        .collect();
    let named: HashSet<PathBuf> = files
        .iter()
        .filter_map(folder)
        .filter(|d| !run_by_units.contains(d))
        .collect();
    // Only for runs of documents alone (a named manifest): a named unit
    // or module has its own cluster, and pre-commit runs on every commit.
    let documents_only = files
        .iter()
        .all(|c| !is_unit(&c.path) && !crate::pipeline::inputs::is_terraform(&c.path));
    let searched: HashSet<PathBuf> = context
        .iter()
        .filter_map(folder)
        .filter(|d| documents_only && !run_by_units.contains(d) && !named.contains(d))
        .collect();
    if named.is_empty() && searched.is_empty() && shared.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let walked: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut roots: Vec<PathBuf> = named
        .iter()
        .chain(&searched)
        .chain(&shared)
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
        .chain(context)
        .filter(|c| is_unit(&c.path))
        .map(|c| key(&c.path))
        .collect();
    // The search reads only the units it finds, inside the roots.
    let reader = Sources::new(shown.clone());
    let found = crate::walk::walk_keeping(&shown, exclude, None, &is_unit).files;
    let (mut out, mut for_searched, mut sharing) = (Vec::new(), Vec::new(), Vec::new());
    for mut c in found {
        if have.contains(&key(&c.path)) {
            continue;
        }
        c.explicit = false;
        // The module it names first: all a named unit's module needs.
        let direct: Vec<PathBuf> = terragrunt::local_sources(&c.path, &reader, limits)
            .iter()
            .map(|d| key(d))
            .collect();
        if direct.iter().any(|d| shared.contains(d)) {
            sharing.push(c);
            // Many share it, and nothing else is searched for: done.
            if sharing.len() > CONTEXT_CALLERS && named.is_empty() && searched.is_empty() {
                break;
            }
            continue;
        }
        if named.is_empty() && searched.is_empty() {
            continue;
        }
        let runs: Vec<PathBuf> = calls(&c.path, &reader, limits)
            .iter()
            .map(|d| key(d))
            .collect();
        if runs.iter().any(|d| named.contains(d)) {
            out.push(c);
        } else if runs.iter().any(|d| searched.contains(d)) {
            for_searched.push(c);
        }
    }
    // A few units sharing a named unit's module are modelled with it, as
    // the whole tree models them; many are not (pre-commit names a unit
    // on every commit).
    for few in [&mut for_searched, &mut sharing] {
        if few.len() <= CONTEXT_CALLERS {
            out.append(few);
        }
    }
    out.sort();
    (out, shown)
}
