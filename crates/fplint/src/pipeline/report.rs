//! Stage 6, report: the findings filtered (selection, suppressions,
//! per-file ignores), placed (plans, module calls), given their configured
//! severities, sorted and made ready to render.

use super::check::selection;
use super::{in_pool, Loaded, Options};
use crate::config::Config;
use crate::notice::Notice;
use fplint_core::edit::{self, Syntax};
use fplint_core::model::Project;
use fplint_core::sources::Sources;
use fplint_core::{Change, Diagnostic, Severity, SourceFile, Span};
use fplint_rules::REGISTRY;
use rayon::prelude::*;
use std::collections::HashMap;
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
    /// The findings a baseline hid, when one was applied
    /// ([`crate::baseline::apply`]).
    pub baseline: Option<crate::baseline::Applied>,
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

    /// The exit code of `fplint check`: [`Report::exit_code`], 0 instead of
    /// 1 when findings never fail the run (`--exit-zero`), and 2 when
    /// `--fix` could not write a file.
    pub fn check_exit_code(&self, fail_never: bool, fix_failed: bool) -> u8 {
        match (fix_failed, self.exit_code()) {
            (true, _) => 2,
            (false, 1) if fail_never => 0,
            (false, c) => u8::try_from(c).unwrap_or(2),
        }
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
    found: impl IntoIterator<Item = super::check::Found>,
    opts: &Options,
    cfg: &Config,
    fixes: Option<&mut FixMemo>,
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
    // Terraform reads sibling .tf files for context; report only what is in named files.
    let given: std::collections::HashSet<_> = project.given_files.iter().collect();
    let context_only: std::collections::HashSet<_> = project
        .context_files
        .iter()
        .filter(|f| !given.contains(f))
        .collect();
    // Placed at their calls before suppressions: a directive silences a
    // finding where it is reported.
    let found = found.into_iter().collect();
    diagnostics.extend(crate::modules::at_calls(found, &project, &context_only));

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
        Some(memo) => *memo = materialize_with(&mut diagnostics, &sources, memo),
        None => materialize(&mut diagnostics, &sources),
    }
    errors.extend(sources.take_unreadable());
    errors.sort();
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
        baseline: None,
    }
}

/// Sorted by file, position, code: deterministic whatever the thread count.
pub(crate) fn sort(diags: &mut [Diagnostic], sources: &Sources) {
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

/// Turn every fix's model-level changes into byte edits against the texts
/// the run read. A fix whose changes cannot be written in its file (a shape
/// fplint does not rewrite, a node no longer there) is dropped, and a fix
/// with nothing left to do (the dependency is already there) too.
pub fn materialize(diagnostics: &mut [Diagnostic], sources: &Sources) {
    materialize_with(diagnostics, sources, &FixMemo::default());
}

/// Each change a fix asks for, by its value (file ids included: an id
/// names one text), as byte edits; `None` when it cannot be made.
pub(crate) type FixMemo = std::collections::HashMap<String, Option<Vec<Change>>>;

/// [`materialize`], taking what `memo` already resolved; returns what this
/// call resolved, for the next.
pub(crate) fn materialize_with(
    diagnostics: &mut [Diagnostic],
    sources: &Sources,
    memo: &FixMemo,
) -> FixMemo {
    use rayon::prelude::*;
    // Each change is keyed by its value; the ones `memo` lacks are written
    // in parallel first (each reads and parses its file), then handed out
    // in order.
    let keys: Vec<Vec<String>> = diagnostics
        .iter()
        .map(|d| {
            d.fix.as_ref().map_or_else(Vec::new, |f| {
                f.changes.iter().map(|c| format!("{c:?}")).collect()
            })
        })
        .collect();
    let mut todo: HashMap<&str, &Change> = HashMap::new();
    for (d, ks) in diagnostics.iter().zip(&keys) {
        if let Some(f) = &d.fix {
            for (c, k) in f.changes.iter().zip(ks) {
                if !memo.contains_key(k) {
                    todo.insert(k, c);
                }
            }
        }
    }
    let todo: Vec<(&str, &Change)> = todo.into_iter().collect();
    let resolved: HashMap<&str, Option<Option<Vec<Change>>>> = in_pool(|| {
        todo.into_par_iter()
            .map(|(k, c)| (k, resolve(c, sources)))
            .collect()
    });
    let mut used = FixMemo::default();
    for (d, ks) in diagnostics.iter_mut().zip(&keys) {
        let Some(fix) = d.fix.take() else {
            continue;
        };
        let mut changes = Vec::new();
        let mut ok = true;
        for key in ks {
            let made = match memo.get(key).or_else(|| used.get(key)) {
                Some(hit) => hit.clone(),
                // A file that cannot be read again drops the fix.
                None => match resolved.get(key.as_str()).cloned().flatten() {
                    Some(made) => made,
                    None => {
                        ok = false;
                        break;
                    }
                },
            };
            used.insert(key.clone(), made.clone());
            match made {
                Some(edits) => changes.extend(edits),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok && !changes.is_empty() {
            d.fix = Some(fplint_core::Fix { changes, ..fix });
        }
    }
    used
}

/// One change as byte edits in its file: `None` when the file cannot be
/// read, `Some(None)` when the change cannot be written there.
fn resolve(c: &Change, sources: &Sources) -> Option<Option<Vec<Change>>> {
    let file = c.file();
    let f = sources.get(file)?;
    // A program's source is not YAML: its fixes are the author's to write.
    if fplint_core::frontend::program::is_source(&f.path) {
        return Some(None);
    }
    Some(
        edit::resolve(c, &f.text, Syntax::of(&f.path, &f.text), file)
            .ok()
            .map(|edits| {
                edits
                    .into_iter()
                    .map(|e| Change::Replace {
                        span: Span::new(file, e.start, e.end),
                        content: e.content,
                    })
                    .collect()
            }),
    )
}
