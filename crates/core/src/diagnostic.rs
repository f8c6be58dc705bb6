//! Diagnostics are plain data; only the CLI renders them.

use crate::source::Span;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

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
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    pub span: Span,
    /// Short text shown under the primary span.
    pub label: Option<String>,
    /// Logical location inside the document (`fargateProfiles[0].selectors[1]`).
    pub path: Option<String>,
    pub related: Vec<Related>,
}

impl Diagnostic {
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

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        let p: String = path.into();
        if !p.is_empty() {
            self.path = Some(p);
        }
        self
    }

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
