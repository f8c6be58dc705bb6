//! Renderers: diagnostics are data until they reach this edge.

pub mod concise;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

use crate::lint::Outcome;
use fplint_core::{Diagnostic, LineCol};

/// A diagnostic's place, in the units the contract uses.
pub struct Place {
    pub file: String,
    pub start: LineCol,
    pub end: LineCol,
}

pub fn place(outcome: &Outcome, d: &Diagnostic) -> Place {
    match outcome.file(d) {
        Some(f) => Place {
            file: f.path.clone(),
            start: f.line_col(d.span.start as usize),
            end: f.line_col(d.span.end as usize),
        },
        None => Place {
            file: String::new(),
            start: LineCol { line: 1, column: 1 },
            end: LineCol { line: 1, column: 1 },
        },
    }
}

/// The rule name for a code (`FP001` → `coredns-selector-labels`).
pub fn rule_name(code: &str) -> &'static str {
    fplint_rules::find(code).map_or("unknown", |r| r.name)
}
