//! A project kept loaded between checks, for editors and servers: after one
//! file changes, only the units that read it are modelled again.
//!
//! A unit is what the batch run models in one piece: a YAML/JSON file, a
//! folder of `.tf` files (one Terraform module), or a kustomize build. The
//! workspace plans, models and finishes the project with the same steps as
//! [`Linter::check_paths`]; it keeps each unit's model as its frontend made
//! it, and the finished project (clusters joined, homes, assignment) with
//! the rules' findings per cluster. An edit of a file's text re-models its
//! units without planning again (unless it can change the plan), and the
//! finished project takes them in place when that cannot reach past their
//! own items (see `assembled.rs`); anything else is built again from
//! the units in the batch run's order, so a check gives the same report as
//! a fresh run over the same files.

use crate::assembled::{self, Assembled, Env};
use crate::lint::{self, Loaded, Modelled, Report};
use crate::walk::{self, Candidate};
use crate::Linter;
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use fplint_core::FileId;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
/// availabilityZones: [eu-west-1a, eu-west-1b]
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
    /// Folders given that hold nothing to lint.
    empty: Vec<PathBuf>,
    /// Files the walk skipped as hidden.
    hidden: usize,
    /// Files of Helm charts' `templates/`, counted and not linted.
    chart_templates: Vec<PathBuf>,
    /// Files of the named files' projects read for their clusters, and
    /// their project roots.
    context: crate::context::Context,
    /// Overlays by path (as in `files`).
    overlays: HashMap<PathBuf, Arc<str>>,
    /// The local modules each folder of `.tf` files calls.
    calls: Mutex<HashMap<PathBuf, Vec<PathBuf>>>,
    /// One per unit, in the order the batch run absorbs them.
    units: Vec<(String, Unit)>,
    /// The kustomize builds as last planned.
    builds: fplint_core::frontend::kustomize::Plan,
    /// The last check's report and the finished project, kept between checks.
    kept: Mutex<Kept>,
}

/// What a check leaves for the next one.
#[derive(Default)]
struct Kept {
    /// The last report, until something changes; it holds the project.
    report: Option<Arc<Report>>,
    /// The finished project (in `report` while there is one), until a
    /// change it cannot take in place.
    assembled: Option<Assembled>,
    /// How many times the project was assembled from all its units.
    builds: usize,
    /// The fixes of the last report, as byte edits.
    fixes: crate::fix::FixMemo,
}

/// One unit's model and what it was built from.
struct Unit {
    /// See [`lint::Job::kind`].
    kind: u8,
    /// The files the unit is made of.
    paths: Vec<PathBuf>,
    /// Every file it read, context included: a change to any of them
    /// models the unit again.
    reads: Vec<FileId>,
    modelled: Modelled,
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
        let (limits, _) = linter.options.effective_limits(&linter.config);
        let base = linter.config.base_dir();
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
            sources: Arc::new(Sources::default()),
            files: Vec::new(),
            walk_errors: Vec::new(),
            empty: Vec::new(),
            hidden: 0,
            chart_templates: Vec::new(),
            context: crate::context::Context::default(),
            overlays: HashMap::new(),
            calls: Mutex::new(HashMap::new()),
            units: Vec::new(),
            builds: fplint_core::frontend::kustomize::Plan::default(),
            kept: Mutex::new(Kept::default()),
        };
        ws.sources = Arc::new(ws.new_sources(&[]));
        ws.rescan();
        ws
    }

    fn new_sources(&self, context_roots: &[PathBuf]) -> Sources {
        let opts = &self.linter.options;
        let (_, max_file_size) = opts.effective_limits(&self.linter.config);
        let mut sources = Sources::new(lint::roots_of(&self.paths, context_roots, Path::is_file))
            .with_overlays(&opts.overlays)
            .with_tf_folders(crate::modules::tf_folders());
        sources.max_file_size = max_file_size;
        sources
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
    /// last read, with overlays in their place. With nothing changed since
    /// the last check, its report again.
    pub fn check(&self) -> Arc<Report> {
        let (linter, sources) = (&self.linter, &self.sources);
        let mut guard = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let kept = &mut *guard;
        if let Some(report) = kept.report.as_ref() {
            return report.clone();
        }
        let report = lint::in_pool(|| {
            let env = self.env();
            let units = || self.units.iter().map(|(_, u)| &u.modelled);
            let assembled = kept.assembled.get_or_insert_with(|| {
                kept.builds += 1;
                Assembled::build(units(), &env)
            });
            let selection = lint::selection(&linter.options, &linter.config);
            let settings = lint::settings(&linter.config);
            let mut found = assembled.findings(&selection, &settings);
            let (diagnostics, suppressions, unit_notices) = assembled::unit_extras(units());
            let project = std::mem::take(&mut assembled.project);
            let mut notices = lint::empty_notices(&self.empty);
            notices.extend(lint::hidden_notice(self.hidden));
            notices.extend(crate::notice::chart_templates(&self.chart_templates));
            notices.extend(unit_notices);
            crate::notice::gather_near_misses(&mut notices);
            notices.extend(
                assembled::unassigned(&project, sources).notice(&project, self.context.partial),
            );
            notices.sort();
            let files_scanned =
                self.files.len() + crate::pipeline::program_files(&project, sources);
            let mut loaded = Loaded {
                project,
                sources: sources.clone(),
                diagnostics,
                suppressions,
                files_scanned,
                errors: self.walk_errors.clone(),
                notices,
                base: self.base.clone(),
            };
            found.extend(lint::weigh_unassigned(&mut loaded, &selection, &settings));
            Arc::new(lint::report_with(
                loaded,
                found,
                &linter.options,
                &linter.config,
                Some(&mut kept.fixes),
            ))
        });
        kept.report = Some(report.clone());
        report
    }

    /// How many checks assembled the project from all its units rather
    /// than take a change in place (for tests).
    #[doc(hidden)]
    pub fn full_builds(&self) -> usize {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).builds
    }

    fn env(&self) -> Env<'_> {
        Env {
            cfg: &self.linter.config,
            sources: &self.sources,
            base: self.base.as_deref(),
            max_list_items: self.limits.max_list_items,
        }
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
        let text = text.into();
        match self.sources.set_overlay(&local, Some(text.clone())) {
            Ok(old) => {
                self.overlays.insert(local.clone(), text);
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
        if self.overlays.remove(&local).is_some() {
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
        // A chart's template is read by its chart's unit: the chart renders
        // again, as if its `Chart.yaml` had changed.
        if walk::is_chart_template(&local) {
            let Some(chart) = walk::chart_of_template(&local) else {
                return false;
            };
            let chart = chart.join("Chart.yaml");
            if self.files.binary_search_by(|c| c.path.cmp(&chart)).is_err() {
                return false;
            }
            let old = self.sources.forget(&local);
            let old_chart = self.sources.forget(&chart);
            // `changed` retires the id it is given; the other is retired here.
            match (old_chart, old) {
                (Some(c), Some(t)) => {
                    self.changed(chart, Some(c));
                    self.sources.retire(t);
                }
                (c, t) => self.changed(chart, c.or(t)),
            }
            return true;
        }
        let old = self.sources.forget(&local);
        let known =
            self.files.binary_search_by(|c| c.path.cmp(&local)).is_ok() || self.is_context(&local);
        if !known && old.is_none() && !self.wanted(&local) {
            return false;
        }
        self.changed(local, old);
        true
    }

    /// Walk the project's paths again: files added or removed since join
    /// or leave it, the named files' context is searched again, and the
    /// units they belong to are modelled again. Files edited in place are
    /// not detected; see [`Workspace::file_changed`].
    pub fn rescan(&mut self) {
        let cfg = &self.linter.config;
        let hidden = self.linter.options.hidden;
        let exclude = lint::exclude_of(cfg, &self.base);
        let walked = lint::in_pool(|| walk::walk_hidden(&self.paths, exclude, hidden));
        let mut context =
            lint::in_pool(|| lint::context_of(&walked, &self.linter.options, cfg, &self.base));
        // Terragrunt units read the files they include above them.
        context
            .roots
            .extend(crate::terragrunt::roots(&walked.files, self.limits));
        // Local modules are read wherever in the project they are.
        context.roots.extend(crate::modules::roots(
            &self.paths,
            &walked.files,
            self.limits,
            self.sources.max_file_size,
        ));
        // A chart brought in by a named template is read from its folder.
        context.roots.extend(
            walked
                .chart_templates
                .iter()
                .filter_map(|t| walk::chart_of_template(t)),
        );
        if context.roots != self.context.roots {
            // Reads are confined to other folders: start afresh.
            self.sources = Arc::new(self.new_sources(&context.roots));
            self.units.clear();
            for (p, t) in &self.overlays {
                let _ = self.sources.set_overlay(p, Some(t.clone()));
            }
        }
        self.context = context;
        let mut files = walked.files;
        // Overlays of files not yet on disk stay in the project.
        for p in self.overlays.keys() {
            if files.binary_search_by(|c| c.path.cmp(p)).is_err()
                && !self.is_context(p)
                && !walk::is_chart_template(p)
            {
                files.push(overlay_candidate(p));
            }
        }
        files.sort();
        self.files = files;
        self.walk_errors = walked.errors;
        self.empty = walked.empty;
        self.hidden = walked.hidden;
        self.chart_templates = walked.chart_templates;
        self.lock_calls().clear();
        self.refresh(&HashSet::new(), None);
    }

    /// Whether [`Workspace::file_changed`] alone, for each of `paths`
    /// (files just created or deleted), leaves the project as a new walk
    /// would, so that [`Workspace::rescan`] can be skipped. Only plain
    /// manifests qualify: YAML or JSON files that no ignore rule, hidden
    /// folder or `exclude` could drop, and that change no Terraform module,
    /// Terragrunt unit, chart or kustomization; a deleted one must have
    /// been in the project, and a folder never qualifies.
    pub fn walk_unneeded(&self, paths: &[PathBuf]) -> bool {
        // Named files bring context a walk searches again.
        if !self.context.files.is_empty() || self.roots.iter().any(|(_, _, f)| *f) {
            return false;
        }
        paths.iter().all(|p| self.plain_manifest(p))
    }

    fn plain_manifest(&self, path: &Path) -> bool {
        let Some(local) = self.local_path(path) else {
            return false;
        };
        let name = local.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let manifest = [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e))
            && walk::is_lintable_name(&local)
            && !crate::terragrunt::is_unit(&local)
            && !fplint_core::frontend::kustomize::is_kustomization_name(&local)
            && !name.starts_with("Chart.")
            && !walk::is_chart_template(&local);
        if !manifest || self.is_context(&local) {
            return false;
        }
        match std::fs::symlink_metadata(path) {
            // Deleted: it was one of the walked files, and not the last.
            Err(_) => {
                self.files.len() > 1 && self.files.binary_search_by(|c| c.path.cmp(&local)).is_ok()
            }
            Ok(m) => m.file_type().is_file() && self.wanted(&local) && !self.maybe_ignored(path),
        }
    }

    /// Whether a walk might skip `path` where a change does not: a hidden
    /// folder or file on its way from a root, or any ignore file with a
    /// rule in one of its folders or above (rules are not matched here).
    fn maybe_ignored(&self, path: &Path) -> bool {
        let Some(root) = self
            .roots
            .iter()
            .map(|(_, r, _)| r)
            .find(|r| path.starts_with(r))
        else {
            return true;
        };
        let hidden = path.strip_prefix(root).map_or(true, |rel| {
            rel.components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        });
        if hidden {
            return true;
        }
        let has_rules = |f: PathBuf| {
            std::fs::read_to_string(f).is_ok_and(|t| {
                t.lines()
                    .map(str::trim)
                    .any(|l| !l.is_empty() && !l.starts_with('#'))
            })
        };
        path.ancestors().skip(1).any(|dir| {
            has_rules(dir.join(".gitignore"))
                || has_rules(dir.join(".ignore"))
                || has_rules(dir.join(".git").join("info").join("exclude"))
        })
    }

    /// Check with `linter`'s configuration and options from now on (its
    /// configuration file changed): the project is walked and assembled
    /// again, and the units keep their models unless the limits they were
    /// modelled under changed (a model reads no other part of the
    /// configuration).
    pub fn reconfigure(&mut self, linter: Linter) {
        let (limits, max_file_size) = linter.options.effective_limits(&linter.config);
        let remodel = limits != self.limits
            || max_file_size != self.sources.max_file_size
            || linter.options.overlays != self.linter.options.overlays;
        self.linter = linter;
        self.limits = limits;
        self.base = self.linter.config.base_dir();
        if remodel {
            self.sources = Arc::new(self.new_sources(&self.context.roots));
            self.units.clear();
            for (p, t) in &self.overlays {
                let _ = self.sources.set_overlay(p, Some(t.clone()));
            }
        }
        let kept = self.kept.get_mut().unwrap_or_else(|e| e.into_inner());
        kept.report = None;
        kept.assembled = None;
        kept.fixes = Default::default();
        self.rescan();
    }

    fn lock_calls(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Vec<PathBuf>>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn is_context(&self, local: &Path) -> bool {
        self.context.files.iter().any(|c| c.path == local)
    }

    /// Bring `local`'s entry in the file list up to date, then model again
    /// every unit that is made of it or read it (`old`).
    fn changed(&mut self, local: PathBuf, old: Option<FileId>) {
        let present = self.overlays.contains_key(&local) || local.is_file();
        // Only the text changed: the file was and stays in the project.
        let mut edited = present && self.is_context(&local);
        if !self.is_context(&local) {
            match self.files.binary_search_by(|c| c.path.cmp(&local)) {
                Ok(i) if !present => {
                    self.files.remove(i);
                }
                Err(i) if present && self.wanted(&local) => {
                    let mut c = overlay_candidate(&local);
                    c.explicit = self.roots.iter().any(|(given, _, f)| *f && *given == local);
                    self.files.insert(i, c);
                }
                Ok(_) => edited = present,
                _ => {}
            }
        }
        let dir = local
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let calls = self.lock_calls().remove(&dir);
        let stale: HashSet<FileId> = old.into_iter().collect();
        if !(edited && self.same_plan(&local, &dir, calls) && self.refresh_in_place(&stale, &local))
        {
            self.refresh(&stale, Some(&local));
        }
        for id in stale {
            self.sources.retire(id);
        }
    }

    /// Plan the units again and model those that are new, changed in their
    /// files, or read a `stale` file or `path`; keep the others as they are.
    fn refresh(&mut self, stale: &HashSet<FileId>, path: Option<&Path>) {
        let before_plan: Vec<(String, u8)> = self
            .units
            .iter()
            .map(|(k, u)| (k.clone(), u.kind))
            .collect();
        let (sources, limits) = (&self.sources, self.limits);
        let candidates = [&self.files[..], &self.context.files];
        lint::choose_shown(sources, self.paths.len(), &candidates);
        let before = sources.len();
        let builds = lint::in_pool(|| {
            crate::kustomize::plan_with_roots(&self.files, &self.context.builds, sources, limits)
        });
        let max = sources.max_file_size;
        let calls = |dir: &PathBuf, files: &[&Candidate]| -> Vec<PathBuf> {
            if let [c] = files {
                if crate::terragrunt::is_unit(&c.path) {
                    return crate::terragrunt::calls(&c.path, sources, limits);
                }
            }
            if let Some(hit) = self.lock_calls().get(dir) {
                return hit.clone();
            }
            let paths: Vec<PathBuf> = files.iter().map(|c| c.path.clone()).collect();
            let found = fplint_core::frontend::terraform::local_calls(dir, &paths, max);
            self.lock_calls().insert(dir.clone(), found.clone());
            found
        };
        let plan =
            lint::in_pool(|| lint::plan_with(&self.files, &self.context.files, &builds, &calls));
        sources.set_module_folders(lint::module_folders(&plan));
        // The builds that read the changed file (a base, a patch, a
        // kustomization), before the change or after it.
        let rebuilt: HashSet<PathBuf> = path
            .map(|p| {
                let mut roots = builds.roots_including(p);
                roots.extend(self.builds.roots_including(p));
                roots.into_iter().collect()
            })
            .unwrap_or_default();
        // A `.tf` file added or removed changes its folder's listing, which
        // a module that calls that folder as a local module reads too.
        let folder = path
            .filter(|p| p.extension().is_some_and(|e| e == "tf"))
            .and_then(Path::parent)
            .map(fplint_core::sources::display_path);
        let reads_folder = |u: &Unit| {
            folder.as_ref().is_some_and(|dir| {
                u.reads
                    .iter()
                    .any(|id| sources.peek(*id).is_some_and(|f| directly_in(dir, &f.path)))
            })
        };
        let mut old: HashMap<String, VecDeque<Unit>> = HashMap::new();
        for (key, unit) in self.units.drain(..) {
            old.entry(key).or_default().push_back(unit);
        }
        let mut kept: Vec<Option<Unit>> = Vec::with_capacity(plan.len());
        let mut replaced: Vec<Option<Unit>> = Vec::with_capacity(plan.len());
        for (key, job) in &plan {
            let unit = old.get_mut(key).and_then(VecDeque::pop_front);
            let paths = job.paths();
            let build_read = job.planned_root().is_some_and(|dir| rebuilt.contains(dir));
            let keep = unit.as_ref().is_some_and(|u| {
                u.kind == job.kind()
                    && u.paths
                        .iter()
                        .map(PathBuf::as_path)
                        .eq(paths.iter().copied())
                    && !build_read
                    && !u.reads.iter().any(|id| stale.contains(id))
                    && !reads_folder(u)
                    && path.is_none_or(|p| !paths.contains(&p))
            });
            if keep {
                kept.push(unit);
                replaced.push(None);
            } else {
                kept.push(None);
                replaced.push(unit);
            }
        }
        let modelled: Vec<Option<Unit>> = lint::in_pool(|| {
            plan.par_iter()
                .zip(kept.par_iter())
                .map(|((_, job), kept)| {
                    if kept.is_some() {
                        return None;
                    }
                    Some(model_job(job, sources, limits))
                })
                .collect()
        });
        let same_plan = path.is_some()
            && plan
                .iter()
                .zip(&modelled)
                .map(|((k, _), m)| (k, m.as_ref().map(|u| u.kind)))
                .zip(&kept)
                .map(|((k, new), kept)| (k, new.or(kept.as_ref().map(|u| u.kind))))
                .eq(before_plan.iter().map(|(k, kind)| (k, Some(*kind))));
        let units: Vec<(String, Unit)> = plan
            .iter()
            .zip(kept.into_iter().zip(modelled))
            .filter_map(|((key, _), (kept, new))| Some((key.clone(), kept.or(new)?)))
            .collect();
        drop(plan);
        let replaced: Vec<(usize, Unit)> = replaced
            .into_iter()
            .enumerate()
            .filter_map(|(i, u)| Some((i, u?)))
            .collect();
        self.take_in(&replaced, &units, same_plan);
        self.units = units;
        self.builds = builds;
        // Modelled: the text is read again only for files that get findings.
        lint::in_pool(|| lint::release_texts(&self.sources, before));
    }

    /// Whether an edit of `local`'s text leaves the units as planned: it is
    /// no kustomization and no build reads it, and a `.tf` file's folder
    /// calls the same local modules as before (`calls`).
    fn same_plan(&self, local: &Path, dir: &Path, calls: Option<Vec<PathBuf>>) -> bool {
        let name = local.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if fplint_core::frontend::kustomize::is_kustomization_name(local)
            || name == "Kustomization"
            || !self.builds.roots_including(local).is_empty()
            || self.builds.includes(local)
        {
            return false;
        }
        let terraform = name.ends_with(".tf") || name.ends_with(".tf.json");
        if !terraform {
            return true;
        }
        let Some(before) = calls else {
            return false;
        };
        let module: Vec<PathBuf> = self
            .files
            .iter()
            .filter(|c| {
                c.path.parent().is_some_and(|p| p == dir)
                    || (dir == Path::new(".")
                        && c.path.parent().is_some_and(|p| p.as_os_str().is_empty()))
            })
            .filter(|c| {
                let n = c.path.to_string_lossy();
                n.ends_with(".tf") || n.ends_with(".tf.json")
            })
            .map(|c| c.path.clone())
            .collect();
        let now =
            fplint_core::frontend::terraform::local_calls(dir, &module, self.sources.max_file_size);
        let same = now == before;
        self.lock_calls().insert(dir.to_path_buf(), now);
        same
    }

    /// Model again, in place, the units made of `local` or that read it
    /// (`stale`), as [`Workspace::refresh`] would with the same plan;
    /// `false` (nothing done) when a unit cannot be remade without planning.
    fn refresh_in_place(&mut self, stale: &HashSet<FileId>, local: &Path) -> bool {
        let (sources, limits) = (&self.sources, self.limits);
        let before = sources.len();
        let folder = local
            .extension()
            .is_some_and(|e| e == "tf")
            .then(|| local.parent().map(fplint_core::sources::display_path))
            .flatten();
        let in_folder = |id: &FileId| {
            folder
                .as_ref()
                .is_some_and(|dir| sources.peek(*id).is_some_and(|f| directly_in(dir, &f.path)))
        };
        let redo: Vec<usize> = self
            .units
            .iter()
            .enumerate()
            .filter(|(_, (_, u))| {
                u.paths.iter().any(|p| p == local)
                    || u.reads.iter().any(|id| stale.contains(id) || in_folder(id))
            })
            .map(|(i, _)| i)
            .collect();
        let find = |p: &PathBuf, context: bool| {
            let list = if context {
                &self.context.files
            } else {
                &self.files
            };
            list.iter().find(|c| c.path == *p)
        };
        let mut jobs = Vec::with_capacity(redo.len());
        for &i in &redo {
            let u = &self.units[i].1;
            let context = lint::Job::kind_is_context(u.kind);
            let Some(cands) = u
                .paths
                .iter()
                .map(|p| find(p, context))
                .collect::<Option<Vec<&Candidate>>>()
            else {
                return false;
            };
            let Some(job) = lint::Job::again(u.kind, cands) else {
                return false;
            };
            jobs.push((i, job));
        }
        let made: Vec<(usize, Unit)> = lint::in_pool(|| {
            jobs.par_iter()
                .map(|(i, job)| (*i, model_job(job, sources, limits)))
                .collect()
        });
        drop(jobs);
        let mut replaced = Vec::with_capacity(made.len());
        for (i, unit) in made {
            if let Some(slot) = self.units.get_mut(i) {
                replaced.push((i, std::mem::replace(&mut slot.1, unit)));
            }
        }
        let units = std::mem::take(&mut self.units);
        self.take_in(&replaced, &units, true);
        self.units = units;
        lint::in_pool(|| lint::release_texts(&self.sources, before));
        true
    }

    /// Splice the units that were `replaced` (by index) into the finished
    /// project, or let it go to be built again at the next check.
    fn take_in(&mut self, replaced: &[(usize, Unit)], units: &[(String, Unit)], same_plan: bool) {
        let slot = self.kept.get_mut().unwrap_or_else(|e| e.into_inner());
        let mut kept = std::mem::take(slot);
        if let Some(mut assembled) = kept.assembled.take() {
            if let Some(report) = kept.report.take() {
                assembled.project = match Arc::try_unwrap(report) {
                    Ok(r) => r.project,
                    Err(shared) => shared.project.clone(),
                };
            }
            let env = self.env();
            let spliced = same_plan
                && replaced.iter().all(|(i, old)| {
                    units.get(*i).is_some_and(|(_, new)| {
                        old.kind == new.kind
                            && assembled.splice(*i, &old.modelled, &new.modelled, &env)
                    })
                });
            if spliced {
                kept.assembled = Some(assembled);
            }
        }
        *self.kept.get_mut().unwrap_or_else(|e| e.into_inner()) = kept;
    }

    /// `path` in the form the walk gives it, if it lies in the project (or
    /// is one of the files read for the named files' context).
    fn local_path(&self, path: &Path) -> Option<PathBuf> {
        let name = path.file_name()?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let canonical = parent.canonicalize().ok()?.join(name);
        let given = self.roots.iter().find_map(|(given, root, is_file)| {
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
        });
        given.or_else(|| {
            self.context
                .files
                .iter()
                .find(|c| c.path.canonicalize().is_ok_and(|p| p == canonical))
                .map(|c| c.path.clone())
        })
    }

    /// Whether a walk would pick `local` (bar `.gitignore`): a path named
    /// on its own, or a name fplint reads that `exclude` does not drop.
    fn wanted(&self, local: &Path) -> bool {
        // Helm renders a chart's templates; they are not manifests.
        if walk::is_chart_template(local) {
            return false;
        }
        if self
            .roots
            .iter()
            .any(|(given, _, is_file)| *is_file && given == local)
            || self.is_context(local)
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

/// Model one unit and note what it read.
fn model_job(job: &lint::Job, sources: &Sources, limits: Limits) -> Unit {
    let modelled = lint::model_unit(job, sources, limits);
    let paths: Vec<PathBuf> = job.paths().into_iter().map(Path::to_path_buf).collect();
    let out = &modelled.unit;
    let mut reads: Vec<FileId> = out
        .given_files
        .iter()
        .chain(&out.context_files)
        .copied()
        .chain(paths.iter().filter_map(|p| sources.lookup(p)))
        .collect();
    reads.sort();
    reads.dedup();
    Unit {
        kind: job.kind(),
        paths,
        reads,
        modelled,
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

/// Whether the shown path `path` is a file directly in the shown folder
/// `dir` (`.` or empty for the project's own folder), not in a subfolder.
fn directly_in(dir: &str, path: &str) -> bool {
    let rest = if dir == "." || dir.is_empty() {
        Some(path)
    } else {
        path.strip_prefix(dir).and_then(|r| r.strip_prefix('/'))
    };
    rest.is_some_and(|r| !r.contains('/'))
}
