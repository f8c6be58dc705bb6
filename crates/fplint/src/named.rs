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
    if !unit.diagnostics.is_empty() {
        return None;
    }
    let recognised = !unit.formats.is_empty();
    if !c.explicit {
        return walked(file, unit, limits);
    }
    if recognised && !near_miss::worth_judging(&file.text) {
        return None;
    }
    // A CloudFormation template is one document, and its one near-miss is
    // a `Resources` that is not a map: when the text shows a map, judging
    // would only parse the file a second time.
    let template = unit
        .formats
        .iter()
        .all(|f| *f == fplint_core::frontend::Format::CloudFormation);
    if recognised && template && near_miss::resources_written_as_map(&file.text) {
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

/// The notice for a shell script with a YAML name: a heredoc manifest it
/// could not read is said of any file; a script with no manifest read is
/// said of a named file only.
pub fn script(
    c: &Candidate,
    file: &SourceFile,
    unit: &UnitOutput,
    note: &fplint_core::frontend::script::ScriptNote,
) -> Option<Notice> {
    let shown = Some(file.path.clone());
    if note.always {
        return Some(
            Notice::new(NoticeKind::Skipped, shown, note.reason.clone())
                .with_line(file.line_col(note.span.start as usize).line)
                .with_help(
                    "set the variable in the script itself (`NAME=value` before the heredoc) for fplint to read the manifest, or keep the manifest in a file of its own",
                ),
        );
    }
    (c.explicit && unit.formats.is_empty() && unit.diagnostics.is_empty()).then(|| {
        Notice::new(
            NoticeKind::Skipped,
            shown,
            "a shell script, not YAML: no heredoc in it writes a manifest",
        )
    })
}

/// A walked file's near-miss, gathered with the others into one note
/// ([`crate::notice::gather_near_misses`]); what else a walk skips is
/// someone else's file and goes unmentioned.
fn walked(file: &SourceFile, unit: &UnitOutput, limits: Limits) -> Option<Notice> {
    use fplint_core::frontend::Format;
    // A file read as eksctl or CloudFormation was linted. Most others are
    // manifests: one can only be a `ClusterConfig` in the wrong case (many
    // mention `eksctl` in labels); the rest are judged when a near-miss
    // word is in them.
    let worth = match unit.formats.as_slice() {
        [] => near_miss::worth_judging(&file.text),
        formats if formats.iter().all(|f| *f == Format::Kubernetes) => {
            near_miss::mentions_cluster_config(&file.text)
        }
        _ => false,
    };
    if !worth {
        return None;
    }
    match near_miss::judge(file, limits) {
        Verdict::NearMiss {
            span,
            message,
            help,
        } => Some(
            Notice::new(NoticeKind::NearMisses, Some(file.path.clone()), message)
                .with_line(file.line_col(span.start as usize).line)
                .with_help(help),
        ),
        Verdict::Linted | Verdict::Skipped(_) => None,
    }
}

/// The notice for a named file that could not be read as text and was not
/// reported as FP000 (binary, not UTF-8).
pub fn unreadable(c: &Candidate, e: &LoadError, unit: &UnitOutput) -> Option<Notice> {
    // A file the file system refused is among the paths the run could not read.
    if !c.explicit || !unit.diagnostics.is_empty() || matches!(e, LoadError::Io { .. }) {
        return None;
    }
    let reason = match e {
        LoadError::NotText { .. } => "not UTF-8 text".to_string(),
        LoadError::Binary { .. } => "binary, not text".to_string(),
        other => other.to_string(),
    };
    Some(Notice::new(
        NoticeKind::Skipped,
        Some(display_path(&c.path)),
        reason,
    ))
}
