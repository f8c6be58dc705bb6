//! Diagnostics are plain data; only the CLI renders them.

use crate::source::Span;
use serde::{Deserialize, Serialize};

/// How serious a finding is; ordered, so `>=` compares with a threshold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never fails a run by default.
    Info,
    /// Likely a problem.
    Warning,
    /// A problem.
    Error,
}

impl Severity {
    /// `info`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// The severity named `s` (`info`, `warning`, `error`).
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// A secondary location: the other party of a finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    /// Where it is.
    pub span: Span,
    /// What it is, shown beside it.
    pub message: String,
}

/// One finding: plain data until a renderer turns it into text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule's code, `FP000` for parse errors.
    pub code: &'static str,
    /// Its severity, after the configuration's.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// The narrowest node at fault.
    pub span: Span,
    /// Short text shown under the primary span.
    pub label: Option<String>,
    /// Logical location inside the document (`fargateProfiles[0].selectors[1]`).
    pub path: Option<String>,
    /// The other parties: the profile that wins, the resource depended on.
    pub related: Vec<Related>,
}

impl Diagnostic {
    /// A finding of rule `code` at `span`.
    pub fn new(
        code: &'static str,
        severity: Severity,
        message: impl Into<String>,
        span: Span,
    ) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            help: None,
            span,
            label: None,
            path: None,
            related: Vec::new(),
        }
    }

    /// An FP000 parse error.
    pub fn parse_error(message: impl Into<String>, span: Span) -> Self {
        Diagnostic::new(PARSE_ERROR, Severity::Error, message, span)
    }

    /// The same finding with this help.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The same finding with this label under its span.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// The same finding with this logical path.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        let p: String = path.into();
        if !p.is_empty() {
            self.path = Some(p);
        }
        self
    }

    /// The same finding with one more related span.
    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Related {
            span,
            message: message.into(),
        });
        self
    }
}

/// The code of parse errors, emitted by frontends.
pub const PARSE_ERROR: &str = "FP000";
