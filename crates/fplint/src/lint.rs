//! The lint pipeline: walk, read and model files in parallel, run the rules,
//! filter, sort. Rendering is left to the caller.

use crate::config::{self, Config, ConfigError};
use crate::walk::{self, Candidate};
use fplint_core::compact::Compact as _;
use fplint_core::frontend::{self, UnitOutput};
use fplint_core::model::{Capacity, Known, Project};
use fplint_core::sources::{LoadError, Sources, DEFAULT_MAX_FILE_SIZE};
use fplint_core::tree::Limits;
use fplint_core::{Diagnostic, Severity, SourceFile};
use fplint_rules::{Context, Settings, REGISTRY};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where the configuration comes from.
#[derive(Debug, Clone, Default)]
pub enum ConfigChoice {
    /// `fplint.toml` or `.fplint.toml` in the first path's folder or above.
    #[default]
    Discover,
    /// This file (`--config`).
    File(PathBuf),
    /// None: the defaults (`--no-config`).
    Disabled,
}

/// What the caller says of a run; each set value wins over the configuration.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Rule code prefixes to run (`--select`); the configuration's when `None`.
    pub select: Option<Vec<String>>,
    /// Rule code prefixes not to run (`--ignore`), besides the configuration's.
    pub ignore: Vec<String>,
    /// The lowest severity that fails the run (`--fail-on`).
    pub fail_on: Option<Severity>,
    /// Where the configuration comes from.
    pub config: ConfigChoice,
    /// Parser and evaluator bounds; `[limits]` in the config overrides them.
    pub limits: Limits,
    /// Largest file read, in bytes (default [`DEFAULT_MAX_FILE_SIZE`]).
    pub max_file_size: Option<u64>,
}

impl Options {
    /// The limits in force: these options, overridden by the config file.
    pub fn effective_limits(&self, cfg: &Config) -> (Limits, u64) {
        let limits = cfg.limits.apply(self.limits);
        let size = cfg
            .limits
            .max_file_size
            .or(self.max_file_size)
            .unwrap_or(DEFAULT_MAX_FILE_SIZE);
        (limits, size)
    }
}

/// The result of one run.
pub struct Report {
    /// The model the rules ran over.
    pub project: Project,
    /// Every file read, to show where findings are.
    pub sources: Arc<Sources>,
    /// The findings, sorted; see [`Report::diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
    /// Files found to lint.
    pub files_scanned: usize,
    /// Paths that could not be read (exit code 2).
    pub errors: Vec<String>,
    /// The lowest severity that makes [`Report::exit_code`] 1.
    pub fail_on: Severity,
}

impl Report {
    /// The findings, sorted by file, position and code.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Whether a file could not be parsed (FP000), which makes the exit code 2.
    pub fn has_parse_error(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.code == fplint_core::diagnostic::PARSE_ERROR)
    }

    /// 0, 1 or 2 as the CLI contract defines.
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() || self.has_parse_error() {
            2
        } else if self.diagnostics.iter().any(|d| d.severity >= self.fail_on) {
            1
        } else {
            0
        }
    }

    /// The file a diagnostic points into, with its text.
    pub fn file(&self, d: &Diagnostic) -> Option<Arc<SourceFile>> {
        self.sources.get(d.span.file)
    }
}

/// Which rule codes run: `select` prefixes (default all) minus `ignore` prefixes.
pub struct Selection {
    select: Option<Vec<String>>,
    ignore: Vec<String>,
}

impl Selection {
    /// Whether the rule `code` runs.
    pub fn enabled(&self, code: &str) -> bool {
        let hit = |p: &String| code.starts_with(p.as_str());
        self.select.as_ref().is_none_or(|s| s.iter().any(hit)) && !self.ignore.iter().any(hit)
    }
}

/// The configuration `choice` names, discovered from `paths` if so.
pub fn resolve_config(paths: &[PathBuf], choice: &ConfigChoice) -> Result<Config, ConfigError> {
    match choice {
        ConfigChoice::Disabled => Ok(Config::default()),
        ConfigChoice::File(f) => config::load(f),
        ConfigChoice::Discover => {
            let start = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
            match config::discover(&start) {
                Some(f) => config::load(&f),
                None => Ok(Config::default()),
            }
        }
    }
}

/// Resolve the configuration, then [`run_with_config`].
pub fn run(paths: &[PathBuf], opts: &Options) -> Result<Report, ConfigError> {
    let cfg = resolve_config(paths, &opts.config)?;
    Ok(run_with_config(paths, opts, &cfg))
}

/// The model of everything under `paths`, before any rule runs.
pub struct Loaded {
    /// The model of every unit, clusters assigned.
    pub project: Project,
    /// Every file read.
    pub sources: Arc<Sources>,
    /// Parse errors and other frontend findings.
    pub diagnostics: Vec<Diagnostic>,
    /// Suppressions written in the data (CloudFormation `Metadata`).
    pub suppressions: Vec<frontend::Suppression>,
    /// Files found to lint.
    pub files_scanned: usize,
    /// Paths that could not be walked or read (exit code 2).
    pub errors: Vec<String>,
    /// The configuration's folder, where relative globs start.
    pub base: Option<PathBuf>,
}

/// Units modelled together before they are absorbed into the project.
const UNIT_BATCH: usize = 512;

/// One unit of modelling: a YAML/JSON file, or a folder of `.tf` files.
pub(crate) enum Job<'a> {
    Document(&'a Candidate),
    Module(PathBuf, Vec<&'a Candidate>),
}

impl Job<'_> {
    /// The files the unit is made of.
    pub(crate) fn paths(&self) -> Vec<&Path> {
        match self {
            Job::Document(c) => vec![c.path.as_path()],
            Job::Module(_, files) => files.iter().map(|c| c.path.as_path()).collect(),
        }
    }
}

/// Walk `paths` and model every file, on fplint's worker threads.
pub fn load(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Loaded {
    in_pool(|| load_here(paths, opts, cfg))
}

fn load_here(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Loaded {
    let (limits, max_file_size) = opts.effective_limits(cfg);
    let base = cfg.base_dir();
    let exclude = match (&cfg.exclude, &base) {
        (Some(set), Some(dir)) => Some((set, dir.as_path())),
        _ => None,
    };
    let walked = walk::walk(paths, exclude);
    let mut sources = Sources::new(roots_of(paths));
    sources.max_file_size = max_file_size;
    let sources = Arc::new(sources);
    let jobs = plan_units(&walked.files);

    // Units are modelled in parallel a batch at a time and absorbed in key
    // order, so only one batch of unit models lives beside the project.
    let mut project = Project::default();
    let mut diagnostics = Vec::new();
    let mut suppressions = Vec::new();
    let mut released = 0;
    for batch in jobs.chunks(UNIT_BATCH) {
        let units: Vec<UnitOutput> = batch
            .par_iter()
            .map(|(_, job)| model_unit(job, &sources, limits))
            .collect();
        for mut unit in units {
            suppressions.append(&mut unit.suppressions);
            diagnostics.extend(frontend::absorb(&mut project, unit));
        }
        // Modelled: the text is read again only for files that get findings.
        let upto = sources.len();
        (released..upto).into_par_iter().for_each(|id| {
            let id = fplint_core::FileId(u32::try_from(id).unwrap_or(u32::MAX));
            sources.release_text(id, crate::suppress::may_have_directives);
        });
        released = upto;
    }
    diagnostics.extend(finish_project(
        &mut project,
        cfg,
        &sources,
        base.as_deref(),
        limits,
    ));
    Loaded {
        project,
        sources,
        diagnostics,
        suppressions,
        files_scanned: walked.files.len(),
        errors: walked.errors,
        base,
    }
}

/// The folders reads are confined to: each path, or a file's folder.
pub(crate) fn roots_of(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .map(|p| {
            if p.is_file() {
                p.parent()
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            } else {
                p.clone()
            }
        })
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p
            }
        })
        .collect()
}

/// The units `files` make, in key order (the order they are absorbed in).
pub(crate) fn plan_units(files: &[Candidate]) -> Vec<(String, Job<'_>)> {
    // A unit is a YAML/JSON file or a folder of `.tf` files (one module).
    let mut modules: BTreeMap<PathBuf, Vec<&Candidate>> = BTreeMap::new();
    let mut jobs: Vec<(String, Job)> = Vec::new();
    for c in files {
        if c.path.extension().is_some_and(|e| e == "tf") {
            let dir = c
                .path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            modules.entry(dir).or_default().push(c);
        } else {
            jobs.push((
                fplint_core::sources::display_path(&c.path),
                Job::Document(c),
            ));
        }
    }
    for (dir, files) in modules {
        jobs.push((
            fplint_core::sources::display_path(&dir),
            Job::Module(dir, files),
        ));
    }
    jobs.sort_by(|a, b| a.0.cmp(&b.0));
    jobs
}

/// Read and model one unit, on the calling thread.
pub(crate) fn model_unit(job: &Job, sources: &Sources, limits: Limits) -> UnitOutput {
    let mut unit = match job {
        Job::Document(c) => load_document(c, sources, limits),
        Job::Module(dir, files) => load_terraform(dir, files, sources, limits),
    };
    unit.compact();
    unit
}

/// What runs on the whole project once every unit is absorbed: list caps,
/// the configuration's cluster overrides, cluster assignment.
pub(crate) fn finish_project(
    project: &mut Project,
    cfg: &Config,
    sources: &Sources,
    base: Option<&Path>,
    limits: Limits,
) -> Vec<Diagnostic> {
    let diagnostics = cap_lists(project, limits.max_list_items);
    apply_cluster_overrides(project, cfg);
    assign_clusters(project, cfg, sources, base);
    diagnostics
}

/// Walk, model, run the rules, filter and sort: `fplint check`.
pub fn run_with_config(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Report {
    check_loaded(load(paths, opts, cfg), opts, cfg)
}

/// Run `f` on fplint's worker threads: rayon's, sized by `RAYON_NUM_THREADS`
/// or the core count, with stacks deep enough for Terraform evaluation so
/// that each module runs inline rather than on a thread of its own.
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    let pool = POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("fplint-{i}"))
            .stack_size(fplint_core::stack::LARGE_STACK)
            .start_handler(|_| fplint_core::stack::declare_large_stack())
            .build()
            .ok()
    });
    match pool {
        Some(p) => p.install(f),
        // No threads could be made: rayon's global pool, where each
        // Terraform module gets a thread of its own when it can.
        None => f(),
    }
}

/// Lint one file's bytes without touching the file system: the whole
/// pipeline (reading, frontends, rules, suppressions) as `check` runs it on
/// a file of that name. For fuzzing and tests; a `.tf` name is a module of
/// one file.
pub fn lint_bytes(name: &str, bytes: &[u8], opts: &Options) -> Report {
    lint_bytes_with_config(name, bytes, opts, &Config::default())
}

/// [`lint_bytes`] under a given configuration (selection, severities, quotas).
pub fn lint_bytes_with_config(name: &str, bytes: &[u8], opts: &Options, cfg: &Config) -> Report {
    let (limits, max_file_size) = opts.effective_limits(cfg);
    // A root that does not exist: `file()` and local modules read nothing.
    let sources = Arc::new(Sources::new(vec![PathBuf::from(
        "/nonexistent/fplint-in-memory",
    )]));
    let c = Candidate {
        path: PathBuf::from(name),
        explicit: true,
        listed_file: false,
    };
    let text = if bytes.len() as u64 > max_file_size {
        Err(LoadError::TooLarge {
            path: name.to_string(),
            size: bytes.len() as u64,
            limit: max_file_size,
        })
    } else {
        match std::str::from_utf8(bytes) {
            Ok(t) => Ok(t.strip_prefix('\u{feff}').unwrap_or(t).to_string()),
            Err(e) => Err(LoadError::NotText {
                path: name.to_string(),
                offset: e.valid_up_to(),
                lossy: String::from_utf8_lossy(bytes).into(),
            }),
        }
    };
    let is_tf = name.ends_with(".tf");
    let unit = match text {
        Ok(t) => {
            let f = sources.add_text(name, t);
            if is_tf {
                let dir = PathBuf::from("/nonexistent/fplint-in-memory");
                let mut out = guarded(&c, &sources, || {
                    fplint_core::frontend::terraform::load_module(
                        &dir,
                        std::slice::from_ref(&f),
                        &sources,
                        limits,
                    )
                });
                out.diagnostics.retain(|d| d.span.file == f.id);
                out
            } else {
                guarded(&c, &sources, || frontend::load_document_file(&f, limits))
            }
        }
        Err(e) => unreadable(&sources, &c, &e, is_tf),
    };
    let mut project = Project::default();
    let mut suppressions = Vec::new();
    let mut unit = unit;
    suppressions.append(&mut unit.suppressions);
    let mut diagnostics = frontend::absorb(&mut project, unit);
    diagnostics.extend(cap_lists(&mut project, limits.max_list_items));
    apply_cluster_overrides(&mut project, cfg);
    assign_clusters(&mut project, cfg, &sources, None);
    let loaded = Loaded {
        project,
        sources,
        diagnostics,
        suppressions,
        files_scanned: 1,
        errors: Vec::new(),
        base: None,
    };
    check_loaded(loaded, opts, cfg)
}

/// Run the rules over what was loaded, then filter and sort.
pub fn check_loaded(loaded: Loaded, opts: &Options, cfg: &Config) -> Report {
    let Loaded {
        project,
        sources,
        mut diagnostics,
        suppressions,
        files_scanned,
        errors,
        base,
    } = loaded;
    let selection = Selection {
        select: opts.select.clone().or_else(|| cfg.select.clone()),
        ignore: cfg.ignore.iter().chain(&opts.ignore).cloned().collect(),
    };
    let settings = Settings { quotas: cfg.quotas };
    let ctx = Context {
        project: &project,
        settings: &settings,
    };
    let found: Vec<Vec<Diagnostic>> = in_pool(|| {
        REGISTRY
            .par_iter()
            .filter(|r| selection.enabled(r.code))
            .filter_map(|r| r.rule)
            .map(|rule| {
                let mut out = Vec::new();
                rule.check(&ctx, &mut out);
                out
            })
            .collect()
    });
    diagnostics.extend(found.into_iter().flatten());

    let per_file = PerFile::new(cfg, &base);
    diagnostics.retain(|d| selection.enabled(d.code));
    let unused = crate::suppress::apply(&mut diagnostics, &sources, &suppressions, &|c| {
        REGISTRY
            .iter()
            .any(|r| r.code.starts_with(c) && selection.enabled(r.code))
    });
    if selection.enabled(crate::suppress::UNUSED) {
        diagnostics.extend(unused);
    }
    // Terraform reads sibling .tf files for context; report only what is in named files.
    let given: std::collections::HashSet<_> = project.given_files.iter().collect();
    let context_only: std::collections::HashSet<_> = project
        .context_files
        .iter()
        .filter(|f| !given.contains(f))
        .collect();
    diagnostics.retain(|d| !context_only.contains(&d.span.file));
    diagnostics.retain(|d| !per_file.ignored(d, &sources));
    for d in &mut diagnostics {
        if let Some(s) = cfg.severity.get(d.code) {
            d.severity = *s;
        }
    }
    sort(&mut diagnostics, &sources);
    diagnostics.dedup();
    // Read back the texts findings point into, before anything renders.
    let mut errors = errors;
    let mut wanted: Vec<fplint_core::FileId> = diagnostics
        .iter()
        .flat_map(|d| std::iter::once(d.span.file).chain(d.related.iter().map(|r| r.span.file)))
        .collect();
    wanted.sort();
    wanted.dedup();
    for id in wanted {
        let _ = sources.get(id);
    }
    errors.extend(
        sources
            .take_changed()
            .into_iter()
            .map(|p| format!("{p}: changed while fplint was reading it; run again")),
    );

    Report {
        project,
        sources,
        diagnostics,
        files_scanned,
        errors,
        fail_on: opts.fail_on.or(cfg.fail_on).unwrap_or(Severity::Warning),
    }
}

/// Sorted by file, position, code: deterministic whatever the thread count.
fn sort(diags: &mut [Diagnostic], sources: &Sources) {
    let path = |d: &Diagnostic| {
        sources
            .peek(d.span.file)
            .map(|f| f.path.clone())
            .unwrap_or_default()
    };
    diags.sort_by_cached_key(|d| (path(d), d.span.start, d.code, d.span.end, d.message.clone()));
}

fn load_error_diagnostic(sources: &Sources, c: &Candidate, e: &LoadError) -> Diagnostic {
    let shown = fplint_core::sources::display_path(&c.path);
    match e {
        // Point at the first invalid byte, in the text as far as it decodes.
        LoadError::NotText { offset, lossy, .. } => {
            let f = sources.add_text(shown, lossy.clone());
            let end = f.clamp(offset + 1).max(*offset).min(f.text.len());
            Diagnostic::parse_error(e.to_string(), fplint_core::Span::new(f.id, *offset, end))
                .with_label("not UTF-8")
                .with_help("save the file as UTF-8; fplint reads only UTF-8 text")
        }
        _ => {
            let f = sources.add_text(shown, "");
            Diagnostic::parse_error(e.to_string(), fplint_core::Span::new(f.id, 0, 0))
        }
    }
}

/// A file that could not be read. Binary or non-UTF-8 YAML/JSON that does
/// not look like one of ours is someone else's file and is skipped, as an
/// unrecognised document is; a `.tf` file is always ours.
fn unreadable(sources: &Sources, c: &Candidate, e: &LoadError, terraform: bool) -> UnitOutput {
    if let LoadError::NotText { lossy, .. } = e {
        if !terraform && !frontend::looks_recognised(lossy) {
            return UnitOutput::default();
        }
    }
    UnitOutput {
        diagnostics: vec![load_error_diagnostic(sources, c, e)],
        ..UnitOutput::default()
    }
}

/// Last line of defence: a bug that panics while reading one file becomes an
/// FP000 "internal error" on that file, and the other files are still linted.
fn guarded(c: &Candidate, sources: &Sources, f: impl FnOnce() -> UnitOutput) -> UnitOutput {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(out) => out,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let shown = fplint_core::sources::display_path(&c.path);
            let file = sources.add_text(shown.clone(), "");
            UnitOutput {
                diagnostics: vec![Diagnostic::parse_error(
                    format!("internal error while reading `{shown}`: {what}; please report it"),
                    fplint_core::Span::new(file.id, 0, 0),
                )],
                ..UnitOutput::default()
            }
        }
    }
}

/// Debug builds only: `FPLINT_DEBUG_PANIC_ON=NAME` panics while reading a
/// file whose name ends with NAME, so tests can show the guard works.
fn inject_panic(c: &Candidate) {
    #[cfg(debug_assertions)]
    if let Some(name) = std::env::var_os("FPLINT_DEBUG_PANIC_ON") {
        if c.path
            .as_os_str()
            .to_string_lossy()
            .ends_with(&*name.to_string_lossy())
        {
            panic!("injected by FPLINT_DEBUG_PANIC_ON");
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = c;
}

fn load_candidate(sources: &Sources, c: &Candidate) -> Result<Arc<SourceFile>, LoadError> {
    if c.listed_file {
        sources.load_listed_file(&c.path)
    } else {
        sources.load(&c.path)
    }
}

fn load_document(c: &Candidate, sources: &Sources, limits: Limits) -> UnitOutput {
    match load_candidate(sources, c) {
        Ok(f) => guarded(c, sources, || {
            inject_panic(c);
            frontend::load_document_file(&f, limits)
        }),
        Err(e) => unreadable(sources, c, &e, false),
    }
}

fn load_terraform(
    dir: &Path,
    files: &[&Candidate],
    sources: &Sources,
    limits: Limits,
) -> UnitOutput {
    let mut given = Vec::new();
    let mut errors = Vec::new();
    for c in files {
        match load_candidate(sources, c) {
            Ok(f) => given.push(f),
            Err(e) => errors.push(load_error_diagnostic(sources, c, &e)),
        }
    }
    let mut out = match files.first() {
        Some(c) => guarded(c, sources, || {
            fplint_core::frontend::terraform::load_module(dir, &given, sources, limits)
        }),
        None => UnitOutput::default(),
    };
    // Siblings are read for context only.
    out.diagnostics
        .retain(|d| given.iter().any(|g| g.id == d.span.file));
    out.diagnostics.extend(errors);
    out
}

/// Some rules compare profiles and selectors pairwise: a generated or
/// hostile file with 100,000 of them would take hours. Past the limit the
/// rest is dropped, and FP000 says so where the first dropped item is.
fn cap_lists(project: &mut Project, max: usize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let hit = |what: &str, n: usize, span: fplint_core::Span| {
        Diagnostic::parse_error(
            format!("{n} {what}, over the limit of {max} (limits.max-list-items); the rest are not checked"),
            span,
        )
        .with_label("first item not checked")
    };
    for c in &mut project.clusters {
        if let Some(p) = c.fargate_profiles.get(max) {
            out.push(hit(
                "Fargate profiles in one cluster",
                c.fargate_profiles.len(),
                p.loc.span,
            ));
            c.fargate_profiles.truncate(max);
        }
        for p in &mut c.fargate_profiles {
            let Known::Known(sels) = &mut p.selectors else {
                continue;
            };
            if let Some(s) = sels.get(max) {
                out.push(hit("selectors in one profile", sels.len(), s.loc.span));
                sels.truncate(max);
            }
            for s in sels.iter_mut() {
                if let Known::Known(labels) = &mut s.labels {
                    if labels.len() > max {
                        let at = s.labels_loc.as_ref().map_or(s.loc.span, |l| l.span);
                        out.push(hit("labels in one selector", labels.len(), at));
                        labels.truncate(max);
                    }
                }
            }
        }
    }
    out
}

fn apply_cluster_overrides(project: &mut Project, cfg: &Config) {
    for cluster in &mut project.clusters {
        let Some(name) = cluster.name.known() else {
            continue;
        };
        let Some(o) = cfg.clusters.get(name) else {
            continue;
        };
        match o.ec2_capacity {
            Some(true) => cluster.capacity = Capacity::Declared(cluster.loc.clone()),
            Some(false) => cluster.capacity = Capacity::None,
            None => {}
        }
    }
}

/// A manifest runs on the cluster `[clusters.NAME] paths` names, or on the
/// only cluster of the run; otherwise its cluster stays unknown.
fn assign_clusters(project: &mut Project, cfg: &Config, sources: &Sources, base: Option<&Path>) {
    let only = match project.clusters.as_slice() {
        [c] => Some(c.key.clone()),
        _ => None,
    };
    let globs: Vec<(String, globset::GlobSet)> = cfg
        .clusters
        .iter()
        .filter(|(_, o)| !o.paths.is_empty())
        .filter_map(|(name, o)| {
            let mut b = globset::GlobSetBuilder::new();
            for p in &o.paths {
                b.add(globset::Glob::new(p).ok()?);
            }
            Some((name.clone(), b.build().ok()?))
        })
        .collect();
    // Per file, not per object: canonicalising costs a readlink per component.
    let memo = std::cell::RefCell::new(std::collections::HashMap::new());
    let by_path = |span: fplint_core::Span| -> Option<String> {
        if globs.is_empty() {
            return None;
        }
        if let Some(hit) = memo.borrow().get(&span.file) {
            return Option::clone(hit);
        }
        let f = sources.peek(span.file)?;
        let shown = PathBuf::from(&f.path);
        let abs = shown.canonicalize().unwrap_or_else(|_| shown.clone());
        let rel = base
            .and_then(|b| abs.strip_prefix(b).ok())
            .unwrap_or(&shown);
        let key = globs
            .iter()
            .find(|(_, g)| g.is_match(rel) || g.is_match(&shown))
            .and_then(|(name, _)| project_key(project, name));
        memo.borrow_mut().insert(span.file, key.clone());
        key
    };
    let workload_keys: Vec<Option<String>> = project
        .workloads
        .iter()
        .map(|w| {
            w.cluster_key
                .clone()
                .or_else(|| by_path(w.loc.span))
                .or_else(|| only.clone())
        })
        .collect();
    let auth_keys: Vec<Option<String>> = project
        .aws_auth
        .iter()
        .map(|a| {
            a.cluster_key
                .clone()
                .or_else(|| by_path(a.loc.span))
                .or_else(|| only.clone())
        })
        .collect();
    let identity_keys: Vec<Option<String>> = project
        .pod_identities
        .iter()
        .map(|a| {
            a.cluster_key
                .clone()
                .or_else(|| by_path(a.loc.span))
                .or_else(|| only.clone())
        })
        .collect();
    for (a, k) in project.pod_identities.iter_mut().zip(identity_keys) {
        a.cluster_key = k;
    }
    for (w, k) in project.workloads.iter_mut().zip(workload_keys) {
        w.cluster_key = k;
    }
    for (a, k) in project.aws_auth.iter_mut().zip(auth_keys) {
        a.cluster_key = k;
    }
}

fn project_key(project: &Project, name: &str) -> Option<String> {
    project
        .clusters
        .iter()
        .find(|c| c.name.known().map(String::as_str) == Some(name))
        .map(|c| c.key.clone())
}

/// `[[per-file-ignores]]`, matched on paths relative to the config's folder.
struct PerFile<'a> {
    cfg: &'a Config,
    base: Option<PathBuf>,
}

impl<'a> PerFile<'a> {
    fn new(cfg: &'a Config, base: &Option<PathBuf>) -> Self {
        PerFile {
            cfg,
            base: base.clone(),
        }
    }

    fn ignored(&self, d: &Diagnostic, sources: &Sources) -> bool {
        if self.cfg.per_file_ignores.is_empty() {
            return false;
        }
        let Some(f) = sources.peek(d.span.file) else {
            return false;
        };
        let shown = PathBuf::from(&f.path);
        let abs = shown.canonicalize().unwrap_or_else(|_| shown.clone());
        let rel = self
            .base
            .as_ref()
            .and_then(|b| abs.strip_prefix(b).ok())
            .map_or_else(|| shown.clone(), Path::to_path_buf);
        self.cfg.per_file_ignores.iter().any(|p| {
            (p.glob.is_match(&rel) || p.glob.is_match(&shown))
                && p.codes.iter().any(|c| d.code.starts_with(c.as_str()))
        })
    }
}
