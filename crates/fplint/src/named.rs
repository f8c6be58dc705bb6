//! Files named on the command line that were not linted: a near-miss is a
//! warning, anything else fplint cannot lint is listed as skipped. Walked
//! folders skip such files silently; a named one was meant to be checked.

use crate::notice::{Notice, NoticeKind};
use crate::walk::Candidate;
use fplint_core::frontend::near_miss::{self, Verdict};
use fplint_core::frontend::UnitOutput;
use fplint_core::sources::{display_path, LoadError};
use fplint_core::tree::Limits;
use fplint_core::SourceFile;

/// The notice for a named YAML/JSON file that was read, if it needs one.
pub fn judge(
    c: &Candidate,
    file: &SourceFile,
    unit: &UnitOutput,
    limits: Limits,
) -> Option<Notice> {
    if !c.explicit || !unit.diagnostics.is_empty() {
        return None;
    }
    if !unit.formats.is_empty() && !near_miss::worth_judging(&file.text) {
        return None;
    }
    let shown = Some(file.path.clone());
    match near_miss::judge(file, limits) {
        Verdict::Linted => None,
        Verdict::NearMiss {
            span,
            message,
            help,
        } => Some(
            Notice::new(NoticeKind::NotLinted, shown, message)
                .with_line(file.line_col(span.start as usize).line)
                .with_help(help),
        ),
        Verdict::Skipped(reason) => Some(Notice::new(NoticeKind::Skipped, shown, reason)),
    }
}

/// The notice for a named file that could not be read as text and was not
/// reported as FP000 (binary, not UTF-8).
pub fn unreadable(c: &Candidate, e: &LoadError, unit: &UnitOutput) -> Option<Notice> {
    if !c.explicit || !unit.diagnostics.is_empty() {
        return None;
    }
    let reason = match e {
        LoadError::NotText { .. } => "binary or not UTF-8 text".to_string(),
        other => other.to_string(),
    };
    Some(Notice::new(
        NoticeKind::Skipped,
        Some(display_path(&c.path)),
        reason,
    ))
}
