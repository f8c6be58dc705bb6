//! The lint pipeline: walk, read and model files in parallel, run the rules,
//! filter, sort. Rendering is left to the caller.

use crate::config::{self, Config, ConfigError};
use crate::notice::{Notice, NoticeKind};
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
    /// The nearest `fplint.toml` or `.fplint.toml` above the first path.
    #[default]
    Discover,
    /// This file.
    File(PathBuf),
    /// None: the defaults.
    Disabled,
}

/// What a run does beside what the configuration says; these win over it.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Rule codes or prefixes to run (default: all).
    pub select: Option<Vec<String>>,
    /// Rule codes or prefixes to skip.
    pub ignore: Vec<String>,
    /// Lowest severity that makes the exit code 1.
    pub fail_on: Option<Severity>,
    /// Where the configuration comes from.
    pub config: ConfigChoice,
    /// Parser and evaluator bounds; `[limits]` in the config overrides them.
    pub limits: Limits,
    /// Largest file read, in bytes (default [`DEFAULT_MAX_FILE_SIZE`]).
    pub max_file_size: Option<u64>,
    /// Texts read instead of the files at these paths (fixes not yet
    /// written, unsaved editor buffers).
    pub overlays: std::collections::HashMap<PathBuf, Arc<str>>,
    /// Read the cluster definitions of a named file's project as context
    /// (see [`crate::context`]); the CLI does, tests of single files do not.
    pub project_context: bool,
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
    /// Every file read, for rendering spans.
    pub sources: Arc<Sources>,
    /// The findings, sorted by file, position and code.
    pub diagnostics: Vec<Diagnostic>,
    /// How many files were walked.
    pub files_scanned: usize,
    /// Paths that could not be read (exit code 2).
    pub errors: Vec<String>,
    /// Run-level notices: named files not linted or skipped, workloads
    /// without a cluster.
    pub notices: Vec<Notice>,
    /// Lowest severity that makes the exit code 1.
    pub fail_on: Severity,
    /// Findings never make the exit code 1 (`fail-on = "never"`).
    pub fail_never: bool,
}

impl Report {
    /// The findings, sorted by file, position and code.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Whether any file could not be parsed (FP000).
    pub fn has_parse_error(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.code == fplint_core::diagnostic::PARSE_ERROR)
    }

    /// 0, 1 or 2 as the CLI contract defines.
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() || self.has_parse_error() {
            2
        } else if self.fail_never {
            0
        } else if self.diagnostics.iter().any(|d| d.severity >= self.fail_on)
            || self
                .notices
                .iter()
                .any(|n| n.counts() && n.severity() >= self.fail_on)
        {
            1
        } else {
            0
        }
    }

    /// The file a diagnostic points into.
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
    /// Whether a rule code runs.
    pub fn enabled(&self, code: &str) -> bool {
        let hit = |p: &String| code.starts_with(p.as_str());
        self.select.as_ref().is_none_or(|s| s.iter().any(hit)) && !self.ignore.iter().any(hit)
    }
}

/// The configuration `choice` names, discovered from the first path.
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

/// Find the configuration, then lint `paths`.
pub fn run(paths: &[PathBuf], opts: &Options) -> Result<Report, ConfigError> {
    let cfg = resolve_config(paths, &opts.config)?;
    Ok(run_with_config(paths, opts, &cfg))
}

/// The model of everything under `paths`, before any rule runs.
pub struct Loaded {
    /// The model of every unit.
    pub project: Project,
    /// Every file read.
    pub sources: Arc<Sources>,
    /// Parse errors and other frontend findings.
    pub diagnostics: Vec<Diagnostic>,
    /// Suppressions written in the data (CloudFormation `Metadata`).
    pub suppressions: Vec<frontend::Suppression>,
    /// How many files were walked.
    pub files_scanned: usize,
    /// Paths that could not be read.
    pub errors: Vec<String>,
    /// Run-level notes (skipped files, workloads without a cluster).
    pub notices: Vec<Notice>,
    /// The folder of the configuration file, when there is one.
    pub base: Option<PathBuf>,
}

/// Units modelled together before they are absorbed into the project.
const UNIT_BATCH: usize = 512;

/// A unit to model; `true` when it is read only as context.
pub(crate) enum Job<'a> {
    Document(&'a Candidate, bool),
    Module(PathBuf, Vec<&'a Candidate>, bool),
    /// A kustomize build root folder.
    Build(PathBuf),
    /// A module folder another folder of the run calls: linted through its calls.
    Called(Vec<&'a Candidate>),
}

impl Job<'_> {
    /// The files the unit is made of (none for a build: what it reads is
    /// in its kustomizations).
    pub(crate) fn paths(&self) -> Vec<&Path> {
        match self {
            Job::Document(c, _) => vec![c.path.as_path()],
            Job::Module(_, files, _) | Job::Called(files) => {
                files.iter().map(|c| c.path.as_path()).collect()
            }
            Job::Build(_) => Vec::new(),
        }
    }

    /// What kind of unit it is: a folder may turn from a root module into
    /// a called one, a file from context into a named one.
    pub(crate) fn kind(&self) -> u8 {
        match self {
            Job::Document(_, false) => 0,
            Job::Document(_, true) => 1,
            Job::Module(.., false) => 2,
            Job::Module(.., true) => 3,
            Job::Build(_) => 4,
            Job::Called(_) => 5,
        }
    }
}

/// One unit as its frontend made it, before the project is finished.
#[derive(Clone)]
pub(crate) struct Modelled {
    pub(crate) unit: UnitOutput,
    /// The note a named file that was not linted gets.
    pub(crate) notice: Option<Notice>,
    /// Where the unit's clusters live when not where their file is (a
    /// Terraform root module's folder).
    pub(crate) home: Option<PathBuf>,
}

/// Walk `paths` and model every file, on fplint's worker threads.
pub fn load(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Loaded {
    in_pool(|| load_here(paths, opts, cfg))
}

/// `exclude` of the configuration, with the folder its globs start at.
pub(crate) fn exclude_of<'a>(
    cfg: &'a Config,
    base: &'a Option<PathBuf>,
) -> Option<(&'a globset::GlobSet, &'a Path)> {
    match (&cfg.exclude, base) {
        (Some(set), Some(dir)) => Some((set, dir.as_path())),
        _ => None,
    }
}

/// The context of the named files among `walked`, when the options ask for it.
pub(crate) fn context_of(
    walked: &[Candidate],
    opts: &Options,
    cfg: &Config,
    base: &Option<PathBuf>,
) -> crate::context::Context {
    if opts.project_context {
        let anywhere = cfg.clusters.values().any(|o| !o.paths.is_empty());
        crate::context::candidates(walked, exclude_of(cfg, base), anywhere)
    } else {
        crate::context::Context::default()
    }
}

/// The folders reads are confined to: each path (a file's folder), and the
/// named files' project roots.
pub(crate) fn roots_of(paths: &[PathBuf], context: &[PathBuf]) -> Vec<PathBuf> {
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
        .chain(context.iter().cloned())
        .collect()
}

/// The notes for paths that hold nothing to lint.
pub(crate) fn empty_notices(empty: &[PathBuf]) -> Vec<Notice> {
    empty
        .iter()
        .map(|p| {
            Notice::new(
                NoticeKind::NothingToLint,
                Some(fplint_core::sources::display_path(p)),
                "no YAML, JSON or Terraform file here to lint",
            )
        })
        .collect()
}

/// The units `files` (and `context` files, read for their clusters only)
/// make, in key order, the order they are absorbed in. A unit is a
/// YAML/JSON file, a folder of `.tf` files (one module), or a kustomize
/// build; what a build reads is not linted alone.
pub(crate) fn plan_units<'a>(
    walked: &'a walk::Walked,
    context: &'a crate::context::Context,
    sources: &Sources,
    limits: Limits,
) -> Vec<(String, Job<'a>)> {
    let files = &walked.files;
    let found = Some(walked.kustomization_dirs.as_slice());
    let builds = crate::kustomize::plan_with_walked(files, &context.builds, found, sources, limits);
    let context = &context.files;
    let max = sources.max_file_size;
    plan_with(files, context, &builds, &|dir, files| {
        if let [c] = files {
            if crate::terragrunt::is_unit(&c.path) {
                return crate::terragrunt::calls(&c.path, sources, limits);
            }
        }
        let paths: Vec<PathBuf> = files.iter().map(|c| c.path.clone()).collect();
        fplint_core::frontend::terraform::local_calls(dir, &paths, max)
    })
}

/// [`plan_units`], given the kustomize builds and the local modules each
/// folder calls (a workspace keeps both between checks).
pub(crate) fn plan_with<'a>(
    files: &'a [Candidate],
    context: &'a [Candidate],
    builds: &fplint_core::frontend::kustomize::Plan,
    calls: &(dyn Fn(&PathBuf, &[&Candidate]) -> Vec<PathBuf> + Sync),
) -> Vec<(String, Job<'a>)> {
    // Grouped as the sorted walk gives them, then sorted once: a map keyed
    // by path compares paths component by component at every insert.
    let mut groups: Vec<((PathBuf, bool), Vec<&Candidate>)> = Vec::new();
    let mut jobs: Vec<(String, Job)> = builds
        .roots
        .iter()
        .map(|r| (fplint_core::sources::display_path(r), Job::Build(r.clone())))
        .collect();
    let all = files
        .iter()
        .map(|c| (c, false))
        .chain(context.iter().map(|c| (c, true)));
    for (c, ctx) in all {
        if builds.includes(&c.path) {
            continue;
        }
        if c.path.extension().is_some_and(|e| e == "tf")
            || c.path.to_string_lossy().ends_with(".tf.json")
        {
            let dir = c.path.parent().unwrap_or(Path::new("."));
            match groups.last_mut() {
                Some(((d, x), files)) if *x == ctx && d.as_os_str() == dir.as_os_str() => {
                    files.push(c)
                }
                _ => groups.push(((dir.to_path_buf(), ctx), vec![c])),
            }
        } else {
            jobs.push((
                fplint_core::sources::display_path(&c.path),
                Job::Document(c, ctx),
            ));
        }
    }
    // Stable: a folder's files stay in walk order.
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let mut modules: Vec<((PathBuf, bool), Vec<&Candidate>)> = Vec::with_capacity(groups.len());
    for (key, files) in groups {
        match modules.last_mut() {
            Some((k, all)) if *k == key => all.extend(files),
            _ => modules.push((key, files)),
        }
    }
    // A folder another folder of the run calls as a module is linted
    // through its calls; context folders are only read for their clusters.
    let linted: BTreeMap<PathBuf, Vec<&Candidate>> = modules
        .iter()
        .filter(|((_, ctx), _)| !ctx)
        .map(|((d, _), f)| (d.clone(), f.clone()))
        .collect();
    let mut called = crate::modules::called_folders_with(&linted, calls);
    let dirs: Vec<&PathBuf> = linted.keys().collect();
    called.extend(crate::terragrunt::called(files, &dirs, calls));
    for ((dir, ctx), files) in modules {
        let job = if !ctx && called.contains(&dir) {
            Job::Called(files)
        } else {
            Job::Module(dir.clone(), files, ctx)
        };
        jobs.push((fplint_core::sources::display_path(&dir), job));
    }
    jobs.sort_by(|a, b| a.0.cmp(&b.0));
    jobs
}

/// Read and model one unit, on the calling thread.
pub(crate) fn model_unit(job: &Job, sources: &Sources, limits: Limits) -> Modelled {
    let (mut unit, notice) = match job {
        Job::Document(c, ctx) => load_document(c, *ctx, sources, limits),
        Job::Module(dir, files, ctx) => {
            let mut unit = load_terraform(dir, files, sources, limits);
            if *ctx {
                as_context(&mut unit);
            }
            (unit, None)
        }
        Job::Build(dir) => (load_build(dir, sources, limits), None),
        Job::Called(files) => (load_called(files, sources), None),
    };
    unit.compact();
    // A module's clusters live where the module is run, whatever file of a
    // called module defines them.
    let home = match job {
        Job::Module(dir, ..) => Some(dir.clone()),
        Job::Document(c, _) if crate::terragrunt::is_unit(&c.path) => {
            c.path.parent().map(Path::to_path_buf)
        }
        Job::Document(..) | Job::Build(..) | Job::Called(..) => None,
    };
    Modelled { unit, notice, home }
}

/// What runs on the whole project once every unit is absorbed: clusters
/// described in several files joined, list caps, the configuration's
/// cluster overrides, cluster assignment (`homes`: each cluster's home, by
/// index) and the note on what has no cluster. Returns the findings and the
/// note.
pub(crate) fn finish_project(
    project: &mut Project,
    cfg: &Config,
    sources: &Sources,
    base: Option<&Path>,
    limits: Limits,
    homes: &[Option<PathBuf>],
    partial: bool,
) -> (Vec<Diagnostic>, Option<Notice>) {
    let joined = fplint_core::join::join_clusters(project);
    // Homes are by index before the join; clusters joined away shift the rest.
    let homes: Vec<Option<PathBuf>> = if homes.is_empty() {
        Vec::new()
    } else {
        joined
            .remap(homes)
            .into_iter()
            .map(Option::flatten)
            .collect()
    };
    let diagnostics = cap_lists(project, limits.max_list_items);
    apply_cluster_overrides(project, cfg);
    let unassigned = crate::assign::assign_with_homes(project, cfg, sources, base, &homes);
    (diagnostics, unassigned.notice(project, partial))
}

/// Let go of the texts of files `from..` once modelled: the text is read
/// again only for files that get findings.
pub(crate) fn release_texts(sources: &Sources, from: usize) -> usize {
    let upto = sources.len();
    (from..upto).into_par_iter().for_each(|id| {
        let id = fplint_core::FileId(u32::try_from(id).unwrap_or(u32::MAX));
        sources.release_text(id, crate::suppress::may_have_directives);
    });
    upto
}

fn load_here(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Loaded {
    let (limits, max_file_size) = opts.effective_limits(cfg);
    let base = cfg.base_dir();
    let walked = walk::walk(paths, exclude_of(cfg, &base));
    let context = context_of(&walked.files, opts, cfg, &base);
    let mut roots = roots_of(paths, &context.roots);
    roots.extend(crate::terragrunt::roots(&walked.files));
    let mut sources = Sources::new(roots).with_overlays(&opts.overlays);
    sources.max_file_size = max_file_size;
    let sources = Arc::new(sources);
    let jobs = plan_units(&walked, &context, &sources, limits);

    // Units are modelled in parallel a batch at a time and absorbed in key
    // order, so only one batch of unit models lives beside the project.
    let mut project = Project::default();
    let mut diagnostics = Vec::new();
    let mut suppressions = Vec::new();
    let mut notices = empty_notices(&walked.empty);
    let mut homes: Vec<Option<PathBuf>> = Vec::new();
    let mut released = 0;
    for batch in jobs.chunks(UNIT_BATCH) {
        let units: Vec<Modelled> = batch
            .par_iter()
            .map(|(_, job)| model_unit(job, &sources, limits))
            .collect();
        for mut m in units {
            homes.extend(std::iter::repeat_n(m.home, m.unit.clusters.len()));
            notices.extend(m.notice);
            suppressions.append(&mut m.unit.suppressions);
            diagnostics.extend(frontend::absorb(&mut project, m.unit));
        }
        released = release_texts(&sources, released);
    }
    let (found, unassigned) = finish_project(
        &mut project,
        cfg,
        &sources,
        base.as_deref(),
        limits,
        &homes,
        context.partial,
    );
    diagnostics.extend(found);
    notices.extend(unassigned);
    notices.sort();
    Loaded {
        project,
        sources,
        diagnostics,
        suppressions,
        files_scanned: walked.files.len(),
        errors: walked.errors,
        notices,
        base,
    }
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
    let (found, unassigned) = finish_project(&mut project, cfg, &sources, None, limits, &[], false);
    diagnostics.extend(found);
    let notices = unassigned.into_iter().collect();
    let loaded = Loaded {
        project,
        sources,
        diagnostics,
        suppressions,
        files_scanned: 1,
        errors: Vec::new(),
        notices,
        base: None,
    };
    check_loaded(loaded, opts, cfg)
}

/// Run the rules over what was loaded, then filter and sort.
pub fn check_loaded(loaded: Loaded, opts: &Options, cfg: &Config) -> Report {
    let selection = selection(opts, cfg);
    let settings = settings(cfg);
    let ctx = Context {
        project: &loaded.project,
        settings: &settings,
        only: None,
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
    report_with(loaded, found.into_iter().flatten(), opts, cfg, None)
}

/// The rule codes `opts` and `cfg` select.
pub(crate) fn selection(opts: &Options, cfg: &Config) -> Selection {
    Selection {
        select: opts.select.clone().or_else(|| cfg.select.clone()),
        ignore: cfg.ignore.iter().chain(&opts.ignore).cloned().collect(),
    }
}

/// What the rules read from `cfg` besides the model.
pub(crate) fn settings(cfg: &Config) -> Settings {
    Settings {
        quotas: cfg.quotas,
        tools: cfg.tools.clone(),
    }
}

/// The report of what was loaded, given the rules' findings over it:
/// selection, suppressions, placement, per-file ignores, severities, sort.
pub(crate) fn report_with(
    loaded: Loaded,
    found: impl IntoIterator<Item = Diagnostic>,
    opts: &Options,
    cfg: &Config,
    fixes: Option<&mut crate::fix::FixMemo>,
) -> Report {
    let Loaded {
        project,
        sources,
        mut diagnostics,
        suppressions,
        files_scanned,
        errors,
        notices,
        base,
    } = loaded;
    let selection = selection(opts, cfg);
    diagnostics.extend(found);

    let per_file = PerFile::new(cfg, &base);
    // A file that could not be read is never hidden: no selection, ignore,
    // per-file ignore or severity applies to FP000.
    let parse_error = |d: &Diagnostic| d.code == fplint_core::diagnostic::PARSE_ERROR;
    diagnostics.retain(|d| parse_error(d) || selection.enabled(d.code));
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
    crate::plan::place(&mut diagnostics, &project);
    crate::modules::place(&mut diagnostics, &project, &context_only);
    // A fix is for files the user linted: never installed module code or
    // files read only for context, even when the finding moved to a call.
    for d in &mut diagnostics {
        let foreign = d.fix.as_ref().is_some_and(|f| {
            f.changes.iter().any(|c| {
                let file = c.file();
                context_only.contains(&file)
                    || sources.peek(file).is_some_and(|s| installed(&s.path))
            })
        });
        if foreign {
            d.fix = None;
        }
    }
    diagnostics.retain(|d| parse_error(d) || !per_file.ignored(d, &sources));
    for d in diagnostics.iter_mut().filter(|d| !parse_error(d)) {
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
    in_pool(|| {
        wanted.par_iter().for_each(|&id| {
            let _ = sources.get(id);
        })
    });
    match fixes {
        Some(memo) => *memo = crate::fix::materialize_with(&mut diagnostics, &sources, memo),
        None => crate::fix::materialize(&mut diagnostics, &sources),
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
        notices,
        fail_on: opts.fail_on.or(cfg.fail_on).unwrap_or(Severity::Warning),
        // A level on the command line overrides the file's `never`.
        fail_never: opts.fail_on.is_none() && cfg.fail_never,
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

fn load_document(
    c: &Candidate,
    context: bool,
    sources: &Sources,
    limits: Limits,
) -> (UnitOutput, Option<Notice>) {
    match load_candidate(sources, c) {
        Ok(f) => {
            let terragrunt = crate::terragrunt::is_unit(&c.path);
            let mut unit = guarded(c, sources, || {
                inject_panic(c);
                if terragrunt {
                    return frontend::terragrunt::load_unit(&f, sources, limits);
                }
                frontend::load_document_file(&f, limits)
            });
            if context {
                unit.context_files.push(f.id);
                as_context(&mut unit);
                return (unit, None);
            }
            let notice = (!terragrunt)
                .then(|| crate::named::judge(c, &f, &unit, limits))
                .flatten();
            (unit, notice)
        }
        Err(e) => {
            let mut unit = unreadable(sources, c, &e, false);
            if context {
                as_context(&mut unit);
                return (unit, None);
            }
            let notice = crate::named::unreadable(c, &e, &unit);
            (unit, notice)
        }
    }
}

/// A unit read only for its clusters: none of its files is reported on, and
/// its workloads are not checked (only the named files' are).
fn as_context(unit: &mut UnitOutput) {
    unit.workloads.clear();
    let given = std::mem::take(&mut unit.given_files);
    unit.context_files.extend(given);
    unit.diagnostics.clear();
    unit.suppressions.clear();
    // Findings of a plan stay in it rather than move to code not linted.
    unit.terraform_blocks.clear();
}

fn load_build(dir: &Path, sources: &Sources, limits: Limits) -> UnitOutput {
    let c = Candidate {
        path: dir.to_path_buf(),
        explicit: false,
        listed_file: false,
    };
    guarded(&c, sources, || {
        fplint_core::frontend::kustomize::build(dir, sources, limits)
    })
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

/// A called module's files: named, so findings in them are reported, and
/// checked for syntax; their content is modelled through the calls.
fn load_called(files: &[&Candidate], sources: &Sources) -> UnitOutput {
    let mut out = UnitOutput {
        formats: vec![fplint_core::frontend::Format::Terraform],
        ..UnitOutput::default()
    };
    let mut given = Vec::new();
    for c in files {
        match load_candidate(sources, c) {
            Ok(f) => given.push(f),
            Err(e) => out.diagnostics.push(load_error_diagnostic(sources, c, &e)),
        }
    }
    out.diagnostics
        .extend(fplint_core::frontend::terraform::syntax_errors(&given));
    out.given_files = given.iter().map(|f| f.id).collect();
    out
}

/// Some rules compare profiles and selectors pairwise: a generated or
/// hostile file with 100,000 of them would take hours. Past the limit the
/// rest is dropped, and FP000 says so where the first dropped item is.
fn cap_lists(project: &mut Project, max: usize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for c in &mut project.clusters {
        out.extend(cap_cluster(c, max));
    }
    out
}

/// [`cap_lists`] for one cluster.
pub(crate) fn cap_cluster(c: &mut fplint_core::model::Cluster, max: usize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let hit = |what: &str, n: usize, span: fplint_core::Span| {
        Diagnostic::parse_error(
            format!("{n} {what}, over the limit of {max} (limits.max-list-items); the rest are not checked"),
            span,
        )
        .with_label("first item not checked")
    };
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
    out
}

fn apply_cluster_overrides(project: &mut Project, cfg: &Config) {
    for cluster in &mut project.clusters {
        override_cluster(cluster, cfg);
    }
}

/// [`apply_cluster_overrides`] for one cluster.
pub(crate) fn override_cluster(cluster: &mut fplint_core::model::Cluster, cfg: &Config) {
    let Some(name) = cluster.name.known() else {
        return;
    };
    let Some(o) = cfg.clusters.get(name) else {
        return;
    };
    match o.ec2_capacity {
        Some(true) => cluster.capacity = Capacity::Declared(cluster.loc.clone()),
        Some(false) => cluster.capacity = Capacity::None,
        None => {}
    }
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

/// Whether `path` lies in code `terraform init` installed (`.terraform/`).
fn installed(path: &str) -> bool {
    path.split(['/', '\\']).any(|c| c == ".terraform")
}
