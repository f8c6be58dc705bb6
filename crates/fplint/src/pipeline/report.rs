//! Stage 6, report: the findings filtered (selection, suppressions,
//! per-file ignores), placed (plans, module calls), given their configured
//! severities, sorted and made ready to render.

use super::check::selection;
use super::{in_pool, Loaded, Options};
use crate::config::Config;
use crate::notice::Notice;
use fplint_core::model::Project;
use fplint_core::sources::Sources;
use fplint_core::{Diagnostic, Severity, SourceFile};
use fplint_rules::REGISTRY;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
