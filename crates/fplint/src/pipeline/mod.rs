//! The lint pipeline, in stages, each a module with one job:
//!
//! 1. [`discover`]: the configuration, the files to lint and the named
//!    files' project context;
//! 2. [`plan`]: the units those files form, each of a kind in the
//!    [`inputs`] registry;
//! 3. [`model`]: each unit read and modelled by its kind's loader, in
//!    parallel;
//! 4. [`assemble`]: the units absorbed into one project and finished
//!    (clusters joined, capped, overridden, assigned);
//! 5. [`check`]: the rules run over the project;
//! 6. [`report`]: selection, suppressions, placement, severities, sort.
//!
//! This module runs them in order. Rendering is left to the caller.

pub mod assemble;
mod candidates;
pub mod check;
pub mod discover;
pub mod inputs;
pub mod model;
pub mod plan;
pub mod report;

use crate::config::{Config, ConfigError};
use crate::notice::Notice;
use crate::walk::{self, Candidate};
use fplint_core::frontend::{self, UnitOutput};
use fplint_core::model::Project;
use fplint_core::sources::{LoadError, Sources, DEFAULT_MAX_FILE_SIZE};
use fplint_core::tree::Limits;
use fplint_core::{Diagnostic, Severity};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

use assemble::finish_project;
use check::check_loaded;
use discover::{context_of, empty_notices, exclude_of, resolve_config, roots_of, ConfigChoice};
use model::{model_unit, unreadable, Modelled};
use plan::plan_units;
use report::Report;

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
    /// Walk hidden files and folders too (`--hidden`, as ripgrep's);
    /// `.git` stays out. Without it, the run says how many it skipped.
    pub hidden: bool,
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

/// A root that does not exist, for one text linted alone.
pub(crate) const IN_MEMORY: &str = "/nonexistent/fplint-in-memory";

/// Units absorbed between two releases of the texts they read.
const RELEASE_EVERY: usize = 512;

/// The project as the units absorbed so far made it.
#[derive(Default)]
struct Absorbed {
    project: Project,
    diagnostics: Vec<Diagnostic>,
    suppressions: Vec<frontend::Suppression>,
    notices: Vec<Notice>,
    /// Where each cluster lives, when not where its file is.
    homes: Vec<Option<PathBuf>>,
    /// Units finished ahead of one still being modelled, by plan index.
    waiting: std::collections::BTreeMap<usize, Modelled>,
    /// The plan index absorbed next.
    next: usize,
    /// Texts of files before this id have been let go.
    released: usize,
    /// How many files had been read at the last round: let go at the next
    /// one, so that a unit still being modelled keeps what it read.
    read: usize,
}

impl Absorbed {
    /// Absorb unit `index`, and every finished unit after it that was
    /// waiting for it. Returns the range of file ids whose texts may be let
    /// go now.
    fn take(&mut self, index: usize, unit: Modelled, sources: &Sources) -> Option<(usize, usize)> {
        self.waiting.insert(index, unit);
        let before = self.next;
        while let Some(m) = self.waiting.remove(&self.next) {
            self.absorb(m);
            self.next += 1;
        }
        if self.next / RELEASE_EVERY == before / RELEASE_EVERY {
            return None;
        }
        let from = self.released;
        self.released = self.read;
        self.read = sources.len();
        Some((from, self.released))
    }

    fn absorb(&mut self, mut m: Modelled) {
        self.homes
            .extend(std::iter::repeat_n(m.home, m.unit.clusters.len()));
        self.notices.extend(m.notice);
        self.suppressions.append(&mut m.unit.suppressions);
        self.diagnostics
            .extend(frontend::absorb(&mut self.project, m.unit));
    }
}

/// Model `jobs` on the worker threads, taken in plan order as threads come
/// free (no batch waits for its slowest unit), and absorb them in plan
/// order, so the project is the same whatever the thread count.
fn absorb_in_order(
    jobs: &[(String, plan::Job)],
    sources: &Sources,
    limits: Limits,
    notices: Vec<Notice>,
) -> Absorbed {
    let state = std::sync::Mutex::new(Absorbed {
        notices,
        ..Absorbed::default()
    });
    // `par_bridge` hands out units in order, one at a time.
    jobs.iter()
        .enumerate()
        .par_bridge()
        .for_each(|(i, (_, job))| {
            let m = model_unit(job, sources, limits);
            let release = state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(i, m, sources);
            if let Some((from, upto)) = release {
                model::release_range(sources, from, upto);
            }
        });
    let mut state = state.into_inner().unwrap_or_else(|e| e.into_inner());
    // Units after the last full round.
    let from = state.released;
    state.released = sources.len();
    model::release_range(sources, from, state.released);
    state
}

/// Walk `paths` and model every file, on fplint's worker threads.
pub fn load(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Loaded {
    in_pool(|| load_here(paths, opts, cfg))
}

fn load_here(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Loaded {
    let (limits, max_file_size) = opts.effective_limits(cfg);
    let base = cfg.base_dir();
    let walked = walk::walk_hidden(paths, exclude_of(cfg, &base), opts.hidden);
    let mut context = context_of(&walked, opts, cfg, &base);
    if opts.project_context {
        // The units that run a module folder of the run, read through them.
        let mut near = roots_of(paths, &[], |p| p.is_file());
        near.extend(crate::terragrunt::roots(&walked.files, limits));
        near.extend(crate::modules::roots(
            paths,
            &walked.files,
            limits,
            max_file_size,
        ));
        let reader = Sources::new(near);
        let (units, roots) = crate::terragrunt::callers(
            paths,
            &walked.files,
            &context.files,
            exclude_of(cfg, &base),
            &reader,
            limits,
        );
        context.files.extend(units);
        context.files.sort();
        context.roots.extend(roots);
    }
    // The walk asked each path what it is: a named file is in its lists.
    let named: std::collections::HashSet<&std::path::Path> = walked
        .files
        .iter()
        .filter(|c| c.explicit)
        .map(|c| c.path.as_path())
        .chain(walked.chart_templates.iter().map(PathBuf::as_path))
        .collect();
    let mut roots = roots_of(paths, &context.roots, |p| named.contains(p));
    drop(named);
    // Terragrunt units read the files they include above them.
    roots.extend(crate::terragrunt::roots(&walked.files, limits));
    // Local modules are read wherever in the project they are.
    roots.extend(crate::modules::roots(
        paths,
        &walked.files,
        limits,
        max_file_size,
    ));
    // A chart brought in by a named template is read from its folder.
    roots.extend(
        walked
            .chart_templates
            .iter()
            .filter_map(|t| crate::walk::chart_of_template(t)),
    );
    let mut sources = Sources::new(roots)
        .with_overlays(&opts.overlays)
        .with_canonical_paths(walked.canonical_paths.clone())
        .with_preread(std::mem::take(&mut context.preread))
        .with_tf_folders(crate::modules::tf_folders());
    sources.max_file_size = max_file_size;
    let sources = Arc::new(sources);
    let candidates = [&walked.files[..], &context.files, &context.applied];
    plan::choose_shown(&sources, paths.len(), &candidates);
    let jobs = plan_units(&walked, &context, &sources, limits);

    // Units are modelled in parallel in plan order and absorbed in that
    // order as they finish, so only the units finished ahead of a slower
    // one live beside the project.
    let mut notices = empty_notices(&walked.empty);
    notices.extend(discover::hidden_notice(walked.hidden));
    notices.extend(crate::notice::chart_templates(&walked.chart_templates));
    let Absorbed {
        mut project,
        mut diagnostics,
        suppressions,
        mut notices,
        homes,
        ..
    } = absorb_in_order(&jobs, &sources, limits, notices);
    // The walk and the plan are not read past here; on a large tree they
    // are megabytes beside the model while clusters are assigned.
    drop(jobs);
    let files_scanned = walked.files.len() + program_files(&project, &sources);
    let errors = walked.errors;
    drop(walked.files);
    let (found, unassigned) = finish_project(
        &mut project,
        cfg,
        &sources,
        base.as_deref(),
        limits,
        homes,
        context.partial,
    );
    diagnostics.extend(found);
    notices.extend(unassigned);
    crate::notice::gather_near_misses(&mut notices);
    notices.sort();
    Loaded {
        project,
        sources,
        diagnostics,
        suppressions,
        files_scanned,
        errors,
        notices,
        base,
    }
}

/// The program source files a run read through their apps' `cdk.json`:
/// they are not walked, but they were linted.
pub(crate) fn program_files(project: &fplint_core::model::Project, sources: &Sources) -> usize {
    let mut ids: Vec<_> = project
        .given_files
        .iter()
        .filter(|id| {
            sources
                .get(**id)
                .is_some_and(|f| fplint_core::frontend::program::is_source(&f.path))
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids.len()
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
    let sources = Arc::new(Sources::new(vec![PathBuf::from(IN_MEMORY)]));
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
            _ if fplint_core::sources::is_binary(bytes) => Err(LoadError::Binary {
                path: name.to_string(),
            }),
            Ok(t) => Ok(t.strip_prefix('\u{feff}').unwrap_or(t).to_string()),
            Err(e) => Err(LoadError::NotText {
                path: name.to_string(),
                offset: e.valid_up_to(),
                lossy: String::from_utf8_lossy(bytes).into(),
            }),
        }
    };
    let input = inputs::for_text(name);
    let unit = match text {
        Ok(t) => {
            let f = sources.add_text(name, t);
            input
                .one_text
                .as_ref()
                .map_or_else(UnitOutput::default, |one| {
                    (one.load)(&c, &f, &sources, limits)
                })
        }
        Err(e) => unreadable(&sources, &c, &e, input.always_ours),
    };
    let mut project = Project::default();
    let mut suppressions = Vec::new();
    let mut unit = unit;
    suppressions.append(&mut unit.suppressions);
    let mut diagnostics = frontend::absorb(&mut project, unit);
    let (found, unassigned) =
        finish_project(&mut project, cfg, &sources, None, limits, Vec::new(), false);
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
