//! Run-level notices: what a run has to say that is not a finding on a
//! line of a linted file. A named file that was not linted (and why), a path
//! with nothing to lint, workloads that could not be given a cluster or
//! whose cluster's capacity is unknown. Every
//! renderer shows them, so that no run passes silently.

use fplint_core::Severity;
use serde::Serialize;

/// What a run-level note is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoticeKind {
    /// A named file that is almost one of fplint's formats: a warning that
    /// counts toward `--fail-on`, because the user meant it to be checked.
    NotLinted,
    /// A named file fplint cannot lint and was not meant for it (empty,
    /// binary, a Helm template, unrelated YAML): listed, exit code unchanged.
    Skipped,
    /// A named path with no file fplint reads.
    NothingToLint,
    /// Workloads that belong to no cluster, so no workload check ran on them.
    Unassigned,
    /// Workloads whose cluster is known only from a partial config, so
    /// whether it has EC2 nodes is unknown.
    UnknownCapacity,
}

impl NoticeKind {
    /// The kind as shown in reports (`not-linted`, `skipped`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::NotLinted => "not-linted",
            NoticeKind::Skipped => "skipped",
            NoticeKind::NothingToLint => "nothing-to-lint",
            NoticeKind::Unassigned => "unassigned-workloads",
            NoticeKind::UnknownCapacity => "unknown-capacity",
        }
    }
}

/// A note about the run rather than about a place in a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Notice {
    /// What it is about.
    pub kind: NoticeKind,
    /// The path as reached from the arguments, `/`-separated.
    pub file: Option<String>,
    /// 1-based line of the node at fault, when there is one.
    pub line: Option<usize>,
    /// What happened.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
}

impl Notice {
    /// A note of this kind, about `file` when it concerns one.
    pub fn new(kind: NoticeKind, file: Option<String>, message: impl Into<String>) -> Notice {
        Notice {
            kind,
            file,
            line: None,
            message: message.into(),
            help: None,
        }
    }

    /// The same note at this 1-based line.
    #[must_use]
    pub fn with_line(mut self, line: usize) -> Notice {
        self.line = Some(line);
        self
    }

    /// The same note with what to do about it.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Notice {
        self.help = Some(help.into());
        self
    }

    /// How much it counts for the exit code.
    pub fn severity(&self) -> Severity {
        match self.kind {
            NoticeKind::NotLinted => Severity::Warning,
            _ => Severity::Info,
        }
    }

    /// Only a near-miss counts toward the exit code: a pre-commit run over
    /// unrelated files must stay green.
    pub fn counts(&self) -> bool {
        self.kind == NoticeKind::NotLinted
    }

    /// `file:line: ` or `file: ` or nothing.
    pub fn place(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}: "),
            (Some(f), None) => format!("{f}: "),
            _ => String::new(),
        }
    }
}
