//! Stage 3, model: one unit read and modelled by its kind's loader, with
//! what every loader shares (reading a candidate, turning a read error or
//! a panic into FP000, reading a unit as context only).

use super::plan::{Job, Shape};
use crate::notice::Notice;
use crate::walk::Candidate;
use fplint_core::compact::Compact as _;
use fplint_core::frontend::{self, UnitOutput};
use fplint_core::sources::{LoadError, Sources};
use fplint_core::tree::Limits;
use fplint_core::{Diagnostic, SourceFile};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

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

/// Read and model one unit, on the calling thread.
pub(crate) fn model_unit(job: &Job, sources: &Sources, limits: Limits) -> Modelled {
    let (mut unit, notice) = (job.input.load)(job, sources, limits);
    unit.compact();
    // The root's calls, to tell its findings in shared module code apart.
    let mut calls: Vec<fplint_core::Span> = unit.module_calls.iter().map(|m| m.outer).collect();
    calls.sort();
    calls.dedup();
    if !calls.is_empty() {
        for c in &mut unit.clusters {
            c.calls.clone_from(&calls);
        }
    }
    // A module's clusters live where the module is run, whatever file of a
    // called module defines them.
    let home = match &job.shape {
        Shape::Folder(dir, _) if job.input.home => Some(dir.clone()),
        // A Terragrunt unit's clusters live in the unit's folder.
        Shape::File(c) if crate::terragrunt::is_unit(&c.path) => {
            c.path.parent().map(std::path::Path::to_path_buf)
        }
        Shape::File(_) | Shape::Folder(..) => None,
    };
    Modelled { unit, notice, home }
}

/// Let go of the texts of files `from..` once modelled: the text is read
/// again only for files that get findings.
pub(crate) fn release_texts(sources: &Sources, from: usize) -> usize {
    let upto = sources.len();
    (from..upto)
        .into_par_iter()
        .for_each(|id| release_text(sources, id));
    upto
}

/// [`release_texts`] for the files `from..upto`, on the calling thread.
pub(crate) fn release_range(sources: &Sources, from: usize, upto: usize) {
    (from..upto).for_each(|id| release_text(sources, id));
}

/// Let go of file `id`'s text, unless it may hold inline suppressions.
fn release_text(sources: &Sources, id: usize) {
    let id = fplint_core::FileId(u32::try_from(id).unwrap_or(u32::MAX));
    sources.release_text(id, crate::suppress::may_have_directives);
}

/// The FP000 of a file that could not be read as text; `None` for one the
/// file system refused, which is recorded as a path the run could not read
/// (it is no parse error).
pub(crate) fn load_error_diagnostic(
    sources: &Sources,
    c: &Candidate,
    e: &LoadError,
) -> Option<Diagnostic> {
    let shown = fplint_core::sources::display_path(&c.path);
    Some(match e {
        LoadError::Io { .. } => {
            sources.note_unreadable(e.to_string());
            return None;
        }
        // Point at the first invalid byte, in the text as far as it decodes.
        LoadError::NotText { offset, lossy, .. } => {
            let f = sources.add_text(shown, lossy.clone());
            let end = f.clamp(offset + 1).max(*offset).min(f.text.len());
            Diagnostic::parse_error(e.to_string(), fplint_core::Span::new(f.id, *offset, end))
                .with_label("not UTF-8")
                .with_help("save the file as UTF-8; fplint reads only UTF-8 text")
        }
        // Its bytes are no code frame: nothing of it is shown.
        LoadError::Binary { .. } => {
            let f = sources.add_text(shown, "");
            Diagnostic::parse_error(e.to_string(), fplint_core::Span::new(f.id, 0, 0)).with_help(
                "fplint reads only text; exclude it (`exclude` in fplint.toml) or rename it",
            )
        }
        _ => {
            let f = sources.add_text(shown, "");
            let d = Diagnostic::parse_error(e.to_string(), fplint_core::Span::new(f.id, 0, 0));
            e.help().into_iter().fold(d, Diagnostic::with_help)
        }
    })
}

/// A file that could not be read. Binary or non-UTF-8 YAML/JSON that does
/// not look like one of ours is someone else's file and is skipped, as an
/// unrecognised document is; a `.tf` file is always ours.
pub(crate) fn unreadable(
    sources: &Sources,
    c: &Candidate,
    e: &LoadError,
    terraform: bool,
) -> UnitOutput {
    match e {
        LoadError::NotText { lossy, .. } if !terraform && !frontend::looks_recognised(lossy) => {
            return UnitOutput::default();
        }
        LoadError::Binary { .. } if !terraform => return UnitOutput::default(),
        _ => {}
    }
    UnitOutput {
        diagnostics: load_error_diagnostic(sources, c, e).into_iter().collect(),
        ..UnitOutput::default()
    }
}

/// Last line of defence: a bug that panics while reading one file becomes an
/// FP000 "internal error" on that file, and the other files are still linted.
pub(crate) fn guarded(
    c: &Candidate,
    sources: &Sources,
    f: impl FnOnce() -> UnitOutput,
) -> UnitOutput {
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
pub(crate) fn inject_panic(c: &Candidate) {
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

pub(crate) fn load_candidate(
    sources: &Sources,
    c: &Candidate,
) -> Result<Arc<SourceFile>, LoadError> {
    // Debug builds only: `FPLINT_DEBUG_UNREADABLE=NAME,..` refuses to read a
    // file whose name ends with a NAME, as the file system refuses a file
    // without permission to anyone but root, so tests run as root see it.
    #[cfg(debug_assertions)]
    if let Some(names) = std::env::var_os("FPLINT_DEBUG_UNREADABLE") {
        let path = c.path.as_os_str().to_string_lossy();
        if names
            .to_string_lossy()
            .split(',')
            .any(|n| path.ends_with(n))
        {
            return Err(LoadError::Io {
                path: fplint_core::sources::display_path(&c.path),
                reason: "Permission denied (os error 13)".into(),
            });
        }
    }
    if c.listed_file {
        sources.load_listed_file(&c.path)
    } else {
        sources.load(&c.path)
    }
}

/// A unit read only for its clusters: none of its files is reported on, and
/// its workloads are not checked (only the named files' are).
pub(crate) fn as_context(unit: &mut UnitOutput) {
    unit.workloads.clear();
    let given = std::mem::take(&mut unit.given_files);
    unit.context_files.extend(given);
    unit.diagnostics.clear();
    unit.suppressions.clear();
    // Findings of a plan stay in it rather than move to code not linted.
    unit.terraform_blocks.clear();
}
