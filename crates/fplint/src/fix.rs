//! Fixes: rules propose them in model terms, this module writes them as
//! byte edits in each file's own syntax, applies them in passes until
//! nothing changes, and writes the files only when asked, atomically.
//!
//! A fix is never allowed to damage a file: each pass re-lints the fixed
//! texts, and a file that no longer parses is put back as it was, with an
//! internal error; a file changed on disk since it was read is left alone.

use crate::config::Config;
use crate::lint::{self, Options, Report};
use fplint_core::edit::{self, TextEdit};
use fplint_core::sources::Sources;
use fplint_core::{Applicability, Change, Diagnostic, FileId};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

/// Most passes of fix, re-lint, fix; a fix that keeps producing new
/// findings stops here.
pub const MAX_PASSES: usize = 10;

pub use crate::pipeline::report::materialize;
pub(crate) use crate::pipeline::report::FixMemo;

/// Which fixes to apply, and whether to write them.
#[derive(Debug, Clone, Copy, Default)]
pub struct FixOptions {
    /// Apply unsafe fixes too (`--unsafe-fixes`).
    pub unsafe_fixes: bool,
    /// Compute the fixed texts but write nothing (`--diff`).
    pub dry_run: bool,
}

/// One fix that was applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The rule code of the finding.
    pub code: &'static str,
    /// What the fix did.
    pub title: String,
    /// Whether it was safe or unsafe.
    pub applicability: Applicability,
    /// 1-based line of the finding in the text it was found in.
    pub line: usize,
}

/// A file the fixes changed.
#[derive(Debug, Clone)]
pub struct FixedFile {
    /// The path as shown in reports.
    pub path: String,
    /// Where it was read from and is written to.
    pub disk_path: PathBuf,
    /// The text as read.
    pub original: String,
    /// The text with the fixes applied.
    pub fixed: String,
    /// The fixes applied to it, in order.
    pub applied: Vec<Applied>,
    /// Whether it was written (false with `dry_run`, or on an error).
    pub written: bool,
}

/// What fixing did, and the report on the fixed texts.
pub struct FixOutcome {
    /// The files the fixes changed.
    pub files: Vec<FixedFile>,
    /// Files left alone, and fixes dropped, with why.
    pub errors: Vec<String>,
    /// The findings that remain after fixing.
    pub report: Report,
}

impl FixOutcome {
    /// Number of fixes applied, over all files.
    pub fn applied(&self) -> usize {
        self.files.iter().map(|f| f.applied.len()).sum()
    }

    /// A unified diff of every changed file, as `git diff` shows it.
    pub fn diff(&self) -> String {
        diff(&self.files)
    }
}

/// The exit code of `fplint check --diff`: 2 when a fix could not be
/// made, 1 when there is something to fix (unless findings never fail the
/// run), else 0.
pub fn diff_exit_code(files: &[FixedFile], fix_failed: bool, fail_never: bool) -> u8 {
    match (fix_failed, files.is_empty()) {
        (true, _) => 2,
        (false, false) if !fail_never => 1,
        (false, _) => 0,
    }
}

/// A unified diff of these files, as `git diff` shows it.
pub fn diff(files: &[FixedFile]) -> String {
    {
        let mut out = String::new();
        for f in files {
            let d = similar::TextDiff::from_lines(&f.original, &f.fixed);
            out.push_str(
                &d.unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{}", f.path), &format!("b/{}", f.path))
                    .to_string(),
            );
        }
        out
    }
}

/// Whether `--fix` with these options would apply this diagnostic's fix.
pub fn wanted(d: &Diagnostic, opts: FixOptions) -> bool {
    d.fix.as_ref().is_some_and(|f| {
        f.is_resolved() && (f.applicability == Applicability::Safe || opts.unsafe_fixes)
    })
}

/// The file a diagnostic's edits are in, when they are all in one.
fn edit_file(d: &Diagnostic) -> Option<FileId> {
    let fix = d.fix.as_ref()?;
    let mut files = fix.changes.iter().map(Change::file);
    let first = files.next()?;
    files.all(|f| f == first).then_some(first)
}

struct Working {
    display: String,
    disk: PathBuf,
    /// Bytes as first read, to see whether the file changed since.
    bytes: Vec<u8>,
    bom: bool,
    original: String,
    text: String,
    applied: Vec<Applied>,
}

/// Lint `paths`, apply the wanted fixes in passes until nothing changes,
/// write the changed files (unless `dry_run`), and lint them once more.
pub fn fix_paths(
    paths: &[PathBuf],
    options: &Options,
    config: &Config,
    fix: FixOptions,
) -> FixOutcome {
    let mut opts = options.clone();
    let mut report = lint::run_with_config(paths, &opts, config);
    let mut work: BTreeMap<PathBuf, Working> = BTreeMap::new();
    let mut errors = Vec::new();
    for _ in 0..MAX_PASSES {
        // Edits per file, a whole fix at a time: a fix that overlaps one
        // already taken waits for the next pass.
        let mut per_file: BTreeMap<FileId, Vec<(&Diagnostic, Vec<TextEdit>)>> = BTreeMap::new();
        for d in report.diagnostics.iter().filter(|d| wanted(d, fix)) {
            let (Some(file), Some(f)) = (edit_file(d), d.fix.as_ref()) else {
                continue;
            };
            let edits = f
                .changes
                .iter()
                .filter_map(|c| match c {
                    Change::Replace { span, content } => Some(TextEdit {
                        start: span.start as usize,
                        end: span.end as usize,
                        content: content.clone(),
                    }),
                    _ => None,
                })
                .collect();
            per_file.entry(file).or_default().push((d, edits));
        }
        let mut changed_any = false;
        let mut before_pass: HashMap<PathBuf, String> = HashMap::new();
        for (file, fixes) in per_file {
            let Some(src) = report.sources.get(file) else {
                continue;
            };
            let Some(disk) = report.sources.disk_path(file) else {
                // In-memory text: nothing to write back.
                continue;
            };
            let w = match work.entry(disk.clone()) {
                std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::btree_map::Entry::Vacant(v) => {
                    let Ok(bytes) = std::fs::read(&disk) else {
                        errors.push(format!("{}: cannot be read again to fix it", src.path));
                        continue;
                    };
                    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
                    v.insert(Working {
                        display: src.path.clone(),
                        disk: disk.clone(),
                        bytes,
                        bom,
                        original: src.text.to_string(),
                        text: src.text.to_string(),
                        applied: Vec::new(),
                    })
                }
            };
            if *w.text != *src.text {
                // The report is not about this text; the next pass is.
                continue;
            }
            let mut taken: Vec<TextEdit> = Vec::new();
            let mut applied = Vec::new();
            for (d, edits) in fixes {
                let new: Vec<&TextEdit> = edits.iter().filter(|e| !taken.contains(e)).collect();
                let clash = new.iter().any(|e| {
                    taken.iter().any(|t| {
                        e.start < t.end.max(t.start + 1) && t.start < e.end.max(e.start + 1)
                    })
                });
                if clash {
                    continue;
                }
                taken.extend(new.into_iter().cloned());
                let f = d.fix.as_ref();
                applied.push(Applied {
                    code: d.code,
                    title: f.map(|f| f.title.clone()).unwrap_or_default(),
                    applicability: f.map_or(Applicability::Safe, |f| f.applicability),
                    line: src.line_col(d.span.start as usize).line,
                });
            }
            let (next, skipped) = edit::apply(&w.text, &taken);
            if !skipped.is_empty() || next == w.text {
                continue;
            }
            before_pass.insert(disk.clone(), std::mem::replace(&mut w.text, next));
            w.applied.extend(applied);
            changed_any = true;
        }
        if !changed_any {
            break;
        }
        opts.overlays = work
            .iter()
            .map(|(p, w)| (p.clone(), Arc::<str>::from(w.text.as_str())))
            .collect();
        let next = lint::run_with_config(paths, &opts, config);
        // A fixed file that no longer parses is put back as it was.
        let mut reverted = false;
        for (disk, old) in &before_pass {
            let broken = next.diagnostics.iter().any(|d| {
                d.code == fplint_core::diagnostic::PARSE_ERROR
                    && next.sources.disk_path(d.span.file).as_deref() == Some(disk.as_path())
            });
            if broken {
                if let Some(w) = work.get_mut(disk) {
                    errors.push(format!(
                        "{}: internal error: a fix made the file unparsable, so it was dropped; please report it",
                        w.display
                    ));
                    w.text = old.clone();
                    w.applied.clear();
                    reverted = true;
                }
            }
        }
        if reverted {
            opts.overlays = work
                .iter()
                .map(|(p, w)| (p.clone(), Arc::<str>::from(w.text.as_str())))
                .collect();
            report = lint::run_with_config(paths, &opts, config);
            break;
        }
        report = next;
    }
    let mut files = Vec::new();
    for (_, w) in work {
        if w.text == w.original {
            continue;
        }
        let mut written = false;
        if !fix.dry_run {
            match write_back(&w) {
                Ok(()) => written = true,
                Err(e) => errors.push(e),
            }
        }
        files.push(FixedFile {
            path: w.display,
            disk_path: w.disk,
            original: w.original,
            fixed: w.text,
            applied: w.applied,
            written,
        });
    }
    FixOutcome {
        files,
        errors,
        report,
    }
}

/// Write a fixed text where it was read, unless the file changed since.
fn write_back(w: &Working) -> Result<(), String> {
    match std::fs::read(&w.disk) {
        Ok(now) if now == w.bytes => {}
        Ok(_) => {
            return Err(format!(
                "{}: changed on disk while fplint was fixing it; left alone",
                w.display
            ))
        }
        Err(e) => return Err(format!("{}: cannot be read again: {e}", w.display)),
    }
    let mut bytes = Vec::with_capacity(w.text.len() + 3);
    if w.bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    bytes.extend_from_slice(w.text.as_bytes());
    crate::fs::write_atomically(&w.disk, &bytes)
        .map_err(|e| format!("{}: cannot be written: {e}", w.display))
}

/// The fixes as a list, one line per fix, grouped by file (`--show-fixes`).
pub fn show(files: &[FixedFile]) -> String {
    let mut out = String::new();
    let n: usize = files.iter().map(|f| f.applied.len()).sum();
    if n == 0 {
        return out;
    }
    out.push_str(&format!(
        "Fixed {n} finding{}:\n",
        if n == 1 { "" } else { "s" }
    ));
    for f in files {
        out.push_str(&format!("- {}:\n", f.path));
        for a in &f.applied {
            out.push_str(&format!(
                "    {} {} (line {}{})\n",
                a.code,
                a.title,
                a.line,
                if a.applicability == Applicability::Unsafe {
                    ", unsafe"
                } else {
                    ""
                }
            ));
        }
    }
    out
}

/// Where a report's file lives on disk, when it was read from disk.
pub fn disk_path(sources: &Sources, file: FileId) -> Option<PathBuf> {
    sources.disk_path(file)
}
