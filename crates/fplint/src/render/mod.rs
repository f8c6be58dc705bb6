//! Renderers: diagnostics are data until they reach this edge.

pub mod concise;
pub mod diagram;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;
pub mod statistics;
pub mod summary;

use crate::lint::Report;
use fplint_core::{Diagnostic, LineCol};

/// A diagnostic's place, in the units the contract uses.
pub struct Place {
    /// The file's path as shown.
    pub file: String,
    /// Where the span starts.
    pub start: LineCol,
    /// Where the span ends.
    pub end: LineCol,
}

/// Where a diagnostic is, as line and column from 1.
pub fn place(outcome: &Report, d: &Diagnostic) -> Place {
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

/// Characters of a `code span` shown before an ellipsis: messages quote
/// values from the files, which may be any length. Helps quote what to
/// write (a toleration, a command) well below this, whole.
const CODE_HEAD: usize = 100;
/// Characters shown after it.
const CODE_TAIL: usize = 40;

/// `text` with every `code span` longer than fits a line cut in its middle,
/// for the formats people read; JSON and SARIF keep values whole.
pub fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    let long = text
        .split('`')
        .skip(1)
        .step_by(2)
        .any(|code| code.chars().count() > CODE_HEAD + CODE_TAIL + 1);
    if !long {
        return std::borrow::Cow::Borrowed(text);
    }
    let parts: Vec<&str> = text.split('`').collect();
    let closed = parts.len() - usize::from(parts.len().is_multiple_of(2));
    let mut out = String::with_capacity(text.len().min(1024));
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('`');
        }
        let n = part.chars().count();
        if i % 2 == 1 && i < closed && n > CODE_HEAD + CODE_TAIL + 1 {
            out.extend(part.chars().take(CODE_HEAD));
            out.push('\u{2026}');
            out.extend(part.chars().skip(n - CODE_TAIL));
        } else {
            out.push_str(part);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The rule name for a code (`FP001` → `coredns-selector-labels`).
pub fn rule_name(code: &str) -> &'static str {
    fplint_rules::find(code).map_or("unknown", |r| r.name)
}

/// What a baseline hid, as the formats people read say it.
pub fn hidden_note(n: usize, file: &str) -> String {
    let findings = if n == 1 { "finding" } else { "findings" };
    format!("{n} {findings} hidden by the baseline `{file}`.")
}

/// The rule list of `fplint rules`: one row per rule as text, or a JSON array.
pub mod rules {
    /// A table with a header: code, name, default severity, formats and
    /// the one-line summary of each rule.
    pub fn text() -> String {
        let rows: Vec<[String; 5]> = fplint_rules::REGISTRY
            .iter()
            .map(|r| {
                let formats: Vec<&str> = r.formats.iter().map(|f| f.as_str()).collect();
                [
                    r.code.to_string(),
                    r.name.to_string(),
                    r.default_severity.as_str().to_string(),
                    formats.join(","),
                    r.summary.to_string(),
                ]
            })
            .collect();
        let head = ["CODE", "NAME", "SEVERITY", "FORMATS", "SUMMARY"].map(String::from);
        let mut widths = [0usize; 4];
        for row in std::iter::once(&head).chain(&rows) {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut s = String::new();
        for row in std::iter::once(&head).chain(&rows) {
            for (w, cell) in widths.iter().zip(row) {
                s.push_str(&format!("{cell:<w$}  "));
            }
            s.push_str(&row[4]);
            s.push('\n');
        }
        s
    }

    /// A JSON array of `{code, name, default_severity, formats, summary}`.
    pub fn json() -> String {
        let list: Vec<serde_json::Value> = fplint_rules::REGISTRY
            .iter()
            .map(|r| {
                serde_json::json!({
                    "code": r.code,
                    "name": r.name,
                    "default_severity": r.default_severity.as_str(),
                    "formats": r.formats.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
                    "summary": r.summary,
                })
            })
            .collect();
        let mut s = serde_json::to_string_pretty(&list).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// A configuration error as a code frame pointing at the key at fault.
pub fn config_error(e: &crate::config::ConfigError) -> String {
    use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
    let name = e.path.display().to_string();
    let mut report = miette::MietteDiagnostic::new(format!("invalid config: {}", e.message));
    if let Some(span) = &e.span {
        report = report.with_label(LabeledSpan::at(span.clone(), "here"));
    }
    let report =
        miette::Report::new(report).with_source_code(NamedSource::new(name, e.text.clone()));
    let mut out = String::new();
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    if handler.render_report(&mut out, report.as_ref()).is_err() {
        out = format!(
            "error: invalid config {}: {}\n",
            e.path.display(),
            e.message
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn long_code_spans_are_cut_in_the_middle() {
        assert_eq!(shorten("profile `apps` here"), "profile `apps` here");
        let long = format!("a `{}{}` b", "x".repeat(200), "yz");
        let short = shorten(&long);
        assert_eq!(
            short,
            format!("a `{}\u{2026}{}yz` b", "x".repeat(100), "x".repeat(38))
        );
        let toleration =
            "add `{key: eks.amazonaws.com/compute-type, operator: Equal, value: fargate, effect: NoSchedule}`";
        assert_eq!(shorten(toleration), toleration);
        // An unclosed backtick is text.
        let open = format!("a `{}", "x".repeat(200));
        assert_eq!(shorten(&open), open);
    }
}
