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
    /// A change that would resolve the finding, when one is unambiguous.
    pub fix: Option<Fix>,
}

/// Whether applying a fix keeps what gets deployed, but for the mistake.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Changes what gets deployed (removing selector labels, a version
    /// bump): applied only with `--unsafe-fixes`.
    Unsafe,
    /// Keeps the deployed meaning except for the mistake itself, such as
    /// adding an ordering: applied by `--fix`.
    Safe,
}

impl Applicability {
    /// `safe` or `unsafe`.
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// A fix a rule proposes: a title, its applicability and its changes.
///
/// Rules say *what* to change in model terms ([`Change::AddDependency`]);
/// the pipeline turns that into byte edits in the file's own syntax
/// ([`Change::Replace`]) before anything renders or writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does, as a user reads it in a list of fixes.
    pub title: String,
    /// Safe or unsafe.
    pub applicability: Applicability,
    /// What to change, in model terms until the pipeline writes them as byte edits.
    pub changes: Vec<Change>,
}

impl Fix {
    /// A fix that keeps what gets deployed, but for the mistake.
    pub fn safe(title: impl Into<String>, changes: Vec<Change>) -> Fix {
        Fix {
            title: title.into(),
            applicability: Applicability::Safe,
            changes,
        }
    }

    /// A fix that changes what gets deployed.
    pub fn unsafe_(title: impl Into<String>, changes: Vec<Change>) -> Fix {
        Fix {
            title: title.into(),
            applicability: Applicability::Unsafe,
            changes,
        }
    }

    /// Every change is a byte edit: nothing is left to resolve against the text.
    pub fn is_resolved(&self) -> bool {
        self.changes
            .iter()
            .all(|c| matches!(c, Change::Replace { .. }))
    }
}

/// One change of a fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Replace the bytes of `span` with `content` (an insertion when the
    /// span is empty, a deletion when the content is).
    Replace { span: Span, content: String },
    /// Make the resource whose node spans `resource` (a CloudFormation
    /// resource's logical-id key, a Terraform block) depend on `on` (a
    /// logical id, or a Terraform address such as `module.eks`), merged into
    /// any dependency list it already has.
    AddDependency { resource: Span, on: String },
    /// Remove the mapping entry whose key spans `key`, with its value.
    RemoveEntry { key: Span },
    /// Remove the list item (or mapping value) spanning `item`; a mapping
    /// or list left empty goes with its key, at most three levels up (the
    /// `Metadata: {fplint: {ignore: [..]}}` nesting).
    RemoveItem { item: Span },
    /// Set `key` to the string `value` in the configuration values written
    /// at `at`: a JSON or YAML document in a string, or a Terraform
    /// `jsonencode({..})` object, merged into what is there.
    SetConfigValue {
        at: Span,
        key: String,
        value: String,
    },
    /// Give the add-on declared at `addon` (a CloudFormation logical-id key,
    /// a Terraform block, a terraform-aws-eks add-on key) configuration
    /// values holding only `key: value`.
    AddConfigValues {
        addon: Span,
        key: String,
        value: String,
    },
    /// Append `item` (a mapping of string fields, in order) to the list
    /// `key` at the top of the values document written at `at` (a Helm
    /// release's `values` entry: a YAML heredoc or a `yamlencode({..})`
    /// object), creating the list when there is none.
    AppendValuesItem {
        at: Span,
        key: String,
        item: Vec<(String, String)>,
    },
}

impl Change {
    /// The file the change is made in.
    pub fn file(&self) -> crate::source::FileId {
        match self {
            Change::Replace { span, .. } => span.file,
            Change::AddDependency { resource, .. } => resource.file,
            Change::RemoveEntry { key } => key.file,
            Change::RemoveItem { item } => item.file,
            Change::SetConfigValue { at, .. } => at.file,
            Change::AddConfigValues { addon, .. } => addon.file,
            Change::AppendValuesItem { at, .. } => at.file,
        }
    }
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
            fix: None,
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
    pub fn with_path(mut self, path: impl AsRef<str>) -> Self {
        let p = path.as_ref();
        if !p.is_empty() {
            self.path = Some(p.to_owned());
        }
        self
    }

    /// The same finding with a fix.
    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
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
