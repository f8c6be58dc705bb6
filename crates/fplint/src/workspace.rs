//! A project kept loaded between checks, for editors and servers: after one
//! file changes, only the units that read it are modelled again.
//!
//! A unit is what the batch run models in one piece: a YAML/JSON file, or
//! a folder of `.tf` files (one Terraform module). The workspace keeps each
//! unit's model as its frontend made it, before cluster assignment, and
//! builds the project from them for every check, in the batch run's order,
//! so a check gives the same report as [`Linter::check_paths`] over the same
//! files.

use crate::lint::{self, Loaded, Report};
use crate::walk::{self, Candidate};
use crate::Linter;
use fplint_core::frontend::{self, UnitOutput};
use fplint_core::model::Project;
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use fplint_core::FileId;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A linted project kept in memory: its files, overlays (unsaved editor
/// text) and one model per unit, re-checked after each change.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let dir = tempfile::tempdir()?;
/// let cluster = dir.path().join("cluster.yaml");
/// std::fs::write(&cluster, "\
/// apiVersion: eksctl.io/v1alpha5
/// kind: ClusterConfig
/// metadata: { name: demo, region: eu-west-1 }
/// fargateProfiles:
///   - name: system
///     selectors:
///       - namespace: kube-system
/// ")?;
/// let mut ws = fplint::Linter::default().open(&[dir.path()]);
/// assert!(ws.check().diagnostics().is_empty());
///
/// // An editor's unsaved text: only this file's unit is modelled again.
/// let edited = std::fs::read_to_string(&cluster)? + "        labels: { k8s-app: kube-dns }\n";
/// assert!(ws.set_overlay(&cluster, edited));
/// let codes: Vec<&str> = ws.check().diagnostics().iter().map(|d| d.code).collect();
/// assert_eq!(codes, ["FP001"]);
///
/// // Closed without saving: the file on disk counts again.
/// ws.remove_overlay(&cluster);
/// assert!(ws.check().diagnostics().is_empty());
/// # Ok(())
/// # }
/// ```
pub struct Workspace {
    linter: Linter,
    /// The paths given to [`Linter::open`], as given.
    paths: Vec<PathBuf>,
    /// The same, canonical, with whether each is a file.
    roots: Vec<(PathBuf, PathBuf, bool)>,
    limits: Limits,
    base: Option<PathBuf>,
    sources: Arc<Sources>,
    /// Every file of the project, sorted, as the walk finds them.
    files: Vec<Candidate>,
    walk_errors: Vec<String>,
    /// Paths (as in `files`) with an overlay.
    overlays: HashSet<PathBuf>,
    /// One per unit, in the order the batch run absorbs them.
    units: Vec<(String, Unit)>,
}

/// One unit's model and what it was built from.
struct Unit {
    /// The files the unit is made of.
    paths: Vec<PathBuf>,
    /// Every file it read, context included: a change to any of them
    /// models the unit again.
    reads: Vec<FileId>,
    output: UnitOutput,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("paths", &self.paths)
            .field("files", &self.files.len())
            .field("units", &self.units.len())
            .field("overlays", &self.overlays)
            .finish_non_exhaustive()
    }
}

impl Workspace {
    /// Walk `paths` and model every unit; see [`Linter::open`].
    pub(crate) fn open(linter: Linter, paths: Vec<PathBuf>) -> Workspace {
        let (limits, max_file_size) = linter.options.effective_limits(&linter.config);
        let base = linter.config.base_dir();
        let mut sources = Sources::new(lint::roots_of(&paths));
        sources.max_file_size = max_file_size;
        let roots = paths
            .iter()
            .map(|p| {
                let canonical = p.canonicalize().unwrap_or_else(|_| p.clone());
                (p.clone(), canonical, p.is_file())
            })
            .collect();
        let mut ws = Workspace {
            linter,
            paths,
            roots,
            limits,
            base,
            sources: Arc::new(sources),
            files: Vec::new(),
            walk_errors: Vec::new(),
            overlays: HashSet::new(),
            units: Vec::new(),
        };
        ws.rescan();
        ws
    }

    /// The linter whose configuration and options this workspace checks with.
    pub fn linter(&self) -> &Linter {
        &self.linter
    }

    /// The files of the project, as a check reports them.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|c| c.path.as_path())
    }

    /// Run the rules over the project as it is now: the files on disk as
    /// last read, with overlays in their place.
    pub fn check(&self) -> Report {
        let (linter, sources) = (&self.linter, &self.sources);
        lint::in_pool(|| {
            let mut project = Project::default();
            let mut diagnostics = Vec::new();
            let mut suppressions = Vec::new();
            // The unit models stay as their frontends made them: the
            // project-wide steps below change the copies.
            for (_, unit) in &self.units {
                let mut out = unit.output.clone();
                suppressions.append(&mut out.suppressions);
                diagnostics.extend(frontend::absorb(&mut project, out));
            }
            diagnostics.extend(lint::finish_project(
                &mut project,
                &linter.config,
                sources,
                self.base.as_deref(),
                self.limits,
            ));
            let loaded = Loaded {
                project,
                sources: sources.clone(),
                diagnostics,
                suppressions,
                files_scanned: self.files.len(),
                errors: self.walk_errors.clone(),
                base: self.base.clone(),
            };
            lint::check_loaded(loaded, &linter.options, &linter.config)
        })
    }

    /// Read `path` from `text` instead of the disk, as an editor's unsaved
    /// buffer; the path need not exist yet, but its folder must. Models the
    /// units that read it again. `false` if the path is not in the project
    /// (outside its paths, excluded, or not a name fplint reads).
    pub fn set_overlay(&mut self, path: &Path, text: impl Into<Arc<str>>) -> bool {
        let Some(local) = self.local_path(path) else {
            return false;
        };
        if !self.wanted(&local) {
            return false;
        }
        match self.sources.set_overlay(&local, Some(text.into())) {
            Ok(old) => {
                self.overlays.insert(local.clone());
                self.changed(local, old);
                true
            }
            Err(_) => false,
        }
    }

    /// Drop the overlay of `path`: the file on disk (if any) counts again.
    pub fn remove_overlay(&mut self, path: &Path) {
        let Some(local) = self.local_path(path) else {
            return;
        };
        if self.overlays.remove(&local) {
            let old = self.sources.set_overlay(&local, None).ok().flatten();
            self.changed(local, old);
        }
    }

    /// `path` changed on disk (edited, created or deleted): read it again
    /// and model the units that read it. A created file joins the project
    /// if its name and the configuration's `exclude` allow (`.gitignore`
    /// files are not consulted here; [`Workspace::rescan`] does). `false` if
    /// the path is not in the project.
    pub fn file_changed(&mut self, path: &Path) -> bool {
        let Some(local) = self.local_path(path) else {
            return false;
        };
        let old = self.sources.forget(&local);
        let known = self.files.binary_search_by(|c| c.path.cmp(&local)).is_ok();
        if !known && old.is_none() && !self.wanted(&local) {
            return false;
        }
        self.changed(local, old);
        true
    }

    /// Walk the project's paths again: files added or removed since join
    /// or leave it, and the units they belong to are modelled again. Files
    /// edited in place are not detected; see [`Workspace::file_changed`].
    pub fn rescan(&mut self) {
        let cfg = &self.linter.config;
        let exclude = match (&cfg.exclude, &self.base) {
            (Some(set), Some(dir)) => Some((set, dir.as_path())),
            _ => None,
        };
        let walked = lint::in_pool(|| walk::walk(&self.paths, exclude));
        let mut files = walked.files;
        // Overlays of files not yet on disk stay in the project.
        for p in &self.overlays {
            if files.binary_search_by(|c| c.path.cmp(p)).is_err() {
                files.push(overlay_candidate(p));
            }
        }
        files.sort();
        self.files = files;
        self.walk_errors = walked.errors;
        self.refresh(&HashSet::new(), None);
    }

    /// Bring `local`'s entry in the file list up to date, then model again
    /// every unit that is made of it or read it (`old`).
    fn changed(&mut self, local: PathBuf, old: Option<FileId>) {
        let present = self.overlays.contains(&local) || local.is_file();
        match self.files.binary_search_by(|c| c.path.cmp(&local)) {
            Ok(i) if !present => {
                self.files.remove(i);
            }
            Err(i) if present && self.wanted(&local) => {
                let mut c = overlay_candidate(&local);
                c.explicit = self.roots.iter().any(|(given, _, f)| *f && *given == local);
                self.files.insert(i, c);
            }
            _ => {}
        }
        let stale: HashSet<FileId> = old.into_iter().collect();
        self.refresh(&stale, Some(&local));
        for id in stale {
            self.sources.retire(id);
        }
    }

    /// Plan the units again and model those that are new, changed in their
    /// files, or read a `stale` file or `path`; keep the others as they are.
    fn refresh(&mut self, stale: &HashSet<FileId>, path: Option<&Path>) {
        let before = self.sources.len();
        let plan = lint::plan_units(&self.files);
        // A `.tf` file added or removed changes its folder's listing, which
        // a module that calls that folder as a local module reads too.
        let folder = path
            .filter(|p| p.extension().is_some_and(|e| e == "tf"))
            .and_then(Path::parent)
            .map(fplint_core::sources::display_path);
        let reads_folder = |u: &Unit| {
            folder.as_ref().is_some_and(|dir| {
                u.reads.iter().any(|id| {
                    self.sources.peek(*id).is_some_and(|f| {
                        let rest = if dir == "." {
                            Some(f.path.as_str())
                        } else {
                            f.path
                                .strip_prefix(dir.as_str())
                                .and_then(|r| r.strip_prefix('/'))
                        };
                        rest.is_some_and(|r| !r.contains('/'))
                    })
                })
            })
        };
        let mut old: HashMap<String, VecDeque<Unit>> = HashMap::new();
        for (key, unit) in self.units.drain(..) {
            old.entry(key).or_default().push_back(unit);
        }
        let mut kept: Vec<Option<Unit>> = Vec::with_capacity(plan.len());
        for (key, job) in &plan {
            let unit = old.get_mut(key).and_then(VecDeque::pop_front);
            let paths = job.paths();
            kept.push(unit.filter(|u| {
                u.paths
                    .iter()
                    .map(PathBuf::as_path)
                    .eq(paths.iter().copied())
                    && !u.reads.iter().any(|id| stale.contains(id))
                    && !reads_folder(u)
                    && path.is_none_or(|p| !paths.contains(&p))
            }));
        }
        let (sources, limits) = (&self.sources, self.limits);
        let modelled: Vec<Option<Unit>> = lint::in_pool(|| {
            plan.par_iter()
                .zip(kept.par_iter())
                .map(|((_, job), kept)| {
                    if kept.is_some() {
                        return None;
                    }
                    let output = lint::model_unit(job, sources, limits);
                    let paths: Vec<PathBuf> =
                        job.paths().into_iter().map(Path::to_path_buf).collect();
                    let mut reads: Vec<FileId> = output
                        .given_files
                        .iter()
                        .chain(&output.context_files)
                        .copied()
                        .chain(paths.iter().filter_map(|p| sources.lookup(p)))
                        .collect();
                    reads.sort();
                    reads.dedup();
                    Some(Unit {
                        paths,
                        reads,
                        output,
                    })
                })
                .collect()
        });
        self.units = plan
            .iter()
            .zip(kept.into_iter().zip(modelled))
            .filter_map(|((key, _), (kept, new))| Some((key.clone(), kept.or(new)?)))
            .collect();
        // Modelled: the text is read again only for files that get findings.
        let sources = &self.sources;
        lint::in_pool(|| {
            (before..sources.len()).into_par_iter().for_each(|id| {
                let id = FileId(u32::try_from(id).unwrap_or(u32::MAX));
                sources.release_text(id, crate::suppress::may_have_directives);
            });
        });
    }

    /// `path` in the form the walk gives it, if it lies in the project.
    fn local_path(&self, path: &Path) -> Option<PathBuf> {
        let name = path.file_name()?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let canonical = parent.canonicalize().ok()?.join(name);
        self.roots.iter().find_map(|(given, root, is_file)| {
            if *is_file {
                return (canonical == *root).then(|| given.clone());
            }
            let rel = canonical.strip_prefix(root).ok()?;
            let joined = given.join(rel);
            Some(
                joined
                    .strip_prefix(".")
                    .map(Path::to_path_buf)
                    .unwrap_or(joined),
            )
        })
    }

    /// Whether a walk would pick `local` (bar `.gitignore`): a path named
    /// on its own, or a name fplint reads that `exclude` does not drop.
    fn wanted(&self, local: &Path) -> bool {
        if self
            .roots
            .iter()
            .any(|(given, _, is_file)| *is_file && given == local)
        {
            return true;
        }
        if !walk::is_lintable_name(local) {
            return false;
        }
        match (&self.linter.config.exclude, &self.base) {
            (Some(set), Some(base)) => {
                let abs = local.canonicalize().unwrap_or_else(|_| local.to_path_buf());
                let rel = abs.strip_prefix(base).unwrap_or(&abs);
                !(set.is_match(rel) || set.is_match(local))
            }
            _ => true,
        }
    }
}

/// A file found by a change rather than a walk.
fn overlay_candidate(path: &Path) -> Candidate {
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    Candidate {
        path: path.to_path_buf(),
        explicit: false,
        listed_file: !link,
    }
}
