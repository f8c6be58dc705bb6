//! The lint pipeline: walk, read and model files in parallel, run the rules,
//! filter, sort. Rendering is left to the caller.

use crate::config::{self, Config, ConfigError};
use crate::walk::{self, Candidate};
use fplint_core::frontend::{self, UnitOutput};
use fplint_core::model::{Capacity, Project};
use fplint_core::sources::{LoadError, Sources};
use fplint_core::tree::Limits;
use fplint_core::{Diagnostic, Severity, SourceFile};
use fplint_rules::{Context, Settings, REGISTRY};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Clone, Default)]
pub enum ConfigChoice {
    #[default]
    Discover,
    File(PathBuf),
    Disabled,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub fail_on: Option<Severity>,
    pub config: ConfigChoice,
    pub limits: Limits,
}

/// The result of one run.
pub struct Outcome {
    pub sources: Arc<Sources>,
    pub diagnostics: Vec<Diagnostic>,
    pub files_scanned: usize,
    /// Paths that could not be read (exit code 2).
    pub errors: Vec<String>,
    pub fail_on: Severity,
}

impl Outcome {
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
    pub fn enabled(&self, code: &str) -> bool {
        let hit = |p: &String| code.starts_with(p.as_str());
        self.select.as_ref().is_none_or(|s| s.iter().any(hit)) && !self.ignore.iter().any(hit)
    }
}

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

pub fn run(paths: &[PathBuf], opts: &Options) -> Result<Outcome, ConfigError> {
    let cfg = resolve_config(paths, &opts.config)?;
    Ok(run_with_config(paths, opts, &cfg))
}

/// The model of everything under `paths`, before any rule runs.
pub struct Loaded {
    pub project: Project,
    pub sources: Arc<Sources>,
    /// Parse errors and other frontend findings.
    pub diagnostics: Vec<Diagnostic>,
    /// Suppressions written in the data (CloudFormation `Metadata`).
    pub suppressions: Vec<frontend::Suppression>,
    pub files_scanned: usize,
    pub errors: Vec<String>,
    pub base: Option<PathBuf>,
}

pub fn load(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Loaded {
    let base = cfg.base_dir();
    let exclude = match (&cfg.exclude, &base) {
        (Some(set), Some(dir)) => Some((set, dir.as_path())),
        _ => None,
    };
    let walked = walk::walk(paths, exclude);
    let roots: Vec<PathBuf> = paths
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
        .collect();
    let sources = Arc::new(Sources::new(roots));

    let (tf, docs): (Vec<&Candidate>, Vec<&Candidate>) = walked
        .files
        .iter()
        .partition(|c| c.path.extension().is_some_and(|e| e == "tf"));
    let mut units: Vec<(String, UnitOutput)> = docs
        .par_iter()
        .map(|c| {
            (
                fplint_core::sources::display_path(&c.path),
                load_document(c, &sources, opts.limits),
            )
        })
        .collect();

    let mut modules: BTreeMap<PathBuf, Vec<&Candidate>> = BTreeMap::new();
    for c in tf {
        let dir = c
            .path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        modules.entry(dir).or_default().push(c);
    }
    let module_units: Vec<(String, UnitOutput)> = modules
        .par_iter()
        .map(|(dir, files)| {
            (
                fplint_core::sources::display_path(dir),
                load_terraform(dir, files, &sources, opts.limits),
            )
        })
        .collect();
    units.extend(module_units);
    units.sort_by(|a, b| a.0.cmp(&b.0));

    let mut project = Project::default();
    let mut diagnostics = Vec::new();
    let mut suppressions = Vec::new();
    for (_, mut unit) in units {
        suppressions.append(&mut unit.suppressions);
        diagnostics.extend(frontend::absorb(&mut project, unit));
    }
    apply_cluster_overrides(&mut project, cfg);
    assign_clusters(&mut project, cfg, &sources, base.as_deref());
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

pub fn run_with_config(paths: &[PathBuf], opts: &Options, cfg: &Config) -> Outcome {
    let Loaded {
        project,
        sources,
        mut diagnostics,
        suppressions,
        files_scanned,
        errors,
        base,
    } = load(paths, opts, cfg);
    let selection = Selection {
        select: opts.select.clone().or_else(|| cfg.select.clone()),
        ignore: cfg.ignore.iter().chain(&opts.ignore).cloned().collect(),
    };
    let settings = Settings { quotas: cfg.quotas };
    let ctx = Context {
        project: &project,
        settings: &settings,
    };
    let found: Vec<Vec<Diagnostic>> = REGISTRY
        .par_iter()
        .filter(|r| selection.enabled(r.code))
        .filter_map(|r| r.rule)
        .map(|rule| {
            let mut out = Vec::new();
            rule.check(&ctx, &mut out);
            out
        })
        .collect();
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

    Outcome {
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
            .get(d.span.file)
            .map(|f| f.path.clone())
            .unwrap_or_default()
    };
    diags.sort_by_cached_key(|d| (path(d), d.span.start, d.code, d.span.end, d.message.clone()));
}

fn load_error_diagnostic(sources: &Sources, c: &Candidate, e: &LoadError) -> Diagnostic {
    let f = sources.add_text(fplint_core::sources::display_path(&c.path), "");
    Diagnostic::parse_error(e.to_string(), fplint_core::Span::new(f.id, 0, 0))
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
            let file = sources.add_text(fplint_core::sources::display_path(&c.path), "");
            UnitOutput {
                diagnostics: vec![Diagnostic::parse_error(
                    format!("internal error while reading this file: {what}; please report it"),
                    fplint_core::Span::new(file.id, 0, 0),
                )],
                ..UnitOutput::default()
            }
        }
    }
}

fn load_document(c: &Candidate, sources: &Sources, limits: Limits) -> UnitOutput {
    match sources.load(&c.path) {
        Ok(f) => guarded(c, sources, || frontend::load_document_file(&f, limits)),
        Err(e) => UnitOutput {
            diagnostics: vec![load_error_diagnostic(sources, c, &e)],
            ..UnitOutput::default()
        },
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
        match sources.load(&c.path) {
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
    let by_path = |span: fplint_core::Span| -> Option<String> {
        let f = sources.get(span.file)?;
        let shown = PathBuf::from(&f.path);
        let abs = shown.canonicalize().unwrap_or_else(|_| shown.clone());
        let rel = base
            .and_then(|b| abs.strip_prefix(b).ok())
            .unwrap_or(&shown);
        let name = globs
            .iter()
            .find(|(_, g)| g.is_match(rel) || g.is_match(&shown))?
            .0
            .clone();
        project_key(project, &name)
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
        let Some(f) = sources.get(d.span.file) else {
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
