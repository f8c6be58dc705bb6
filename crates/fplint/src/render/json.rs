//! `--format json`: the contract in the CLI spec, version 1.

use super::{place, rule_name};
use crate::lint::Report;
use crate::notice::NoticeKind;
use serde::Serialize;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    files_scanned: usize,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    /// Paths that could not be read: the run is incomplete (exit code 2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    errors: Vec<&'a str>,
    /// Named files fplint cannot lint, with the reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<JsonSkipped<'a>>,
    /// Other run-level notices: near-misses not linted, paths with nothing
    /// to lint, workloads without a cluster.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notices: Vec<JsonNotice<'a>>,
    /// The baseline applied and how many findings it hid.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<JsonBaseline>,
}

#[derive(Serialize)]
struct JsonBaseline {
    file: String,
    hidden: usize,
}

#[derive(Serialize)]
struct JsonSkipped<'a> {
    file: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct JsonNotice<'a> {
    kind: &'a str,
    severity: &'a str,
    message: &'a str,
    help: Option<&'a str>,
    file: Option<&'a str>,
    line: Option<usize>,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    name: &'a str,
    severity: &'a str,
    message: &'a str,
    help: Option<&'a str>,
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    path: Option<&'a str>,
    related: Vec<JsonRelated<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<JsonFix<'a>>,
}

/// A fix: its edits are byte ranges shown as 1-based lines and columns
/// (columns count characters), end exclusive.
#[derive(Serialize)]
struct JsonFix<'a> {
    title: &'a str,
    applicability: &'a str,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    content: &'a str,
}

fn fix<'a>(outcome: &Report, d: &'a fplint_core::Diagnostic) -> Option<JsonFix<'a>> {
    let f = d.fix.as_ref().filter(|f| f.is_resolved())?;
    let edits = f
        .changes
        .iter()
        .filter_map(|c| {
            let fplint_core::Change::Replace { span, content } = c else {
                return None;
            };
            let file = outcome.sources.get(span.file)?;
            let (a, b) = (
                file.line_col(span.start as usize),
                file.line_col(span.end as usize),
            );
            Some(JsonEdit {
                file: file.path.clone(),
                line: a.line,
                column: a.column,
                end_line: b.line,
                end_column: b.column,
                content,
            })
        })
        .collect();
    Some(JsonFix {
        title: &f.title,
        applicability: f.applicability.as_str(),
        edits,
    })
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    file: String,
    line: usize,
    column: usize,
    message: &'a str,
}

/// The JSON document of the CLI contract, version 1.
pub fn render(outcome: &Report) -> String {
    let diagnostics = outcome
        .diagnostics
        .iter()
        .map(|d| {
            let p = place(outcome, d);
            JsonDiagnostic {
                code: d.code,
                name: rule_name(d.code),
                severity: d.severity.as_str(),
                message: &d.message,
                help: d.help.as_deref(),
                file: p.file,
                line: p.start.line,
                column: p.start.column,
                end_line: p.end.line,
                end_column: p.end.column,
                path: d.path.as_deref(),
                related: d
                    .related
                    .iter()
                    .filter_map(|r| {
                        let f = outcome.sources.get(r.span.file)?;
                        let lc = f.line_col(r.span.start as usize);
                        Some(JsonRelated {
                            file: f.path.clone(),
                            line: lc.line,
                            column: lc.column,
                            message: &r.message,
                        })
                    })
                    .collect(),
                fix: fix(outcome, d),
            }
        })
        .collect();
    let skipped = outcome
        .notices
        .iter()
        .filter(|n| n.kind == NoticeKind::Skipped)
        .map(|n| JsonSkipped {
            file: n.file.as_deref().unwrap_or_default(),
            reason: &n.message,
        })
        .collect();
    let notices = outcome
        .notices
        .iter()
        .filter(|n| n.kind != NoticeKind::Skipped)
        .map(|n| JsonNotice {
            kind: n.kind.as_str(),
            severity: n.severity().as_str(),
            message: &n.message,
            help: n.help.as_deref(),
            file: n.file.as_deref(),
            line: n.line,
        })
        .collect();
    let report = JsonReport {
        version: 1,
        files_scanned: outcome.files_scanned,
        diagnostics,
        errors: outcome.errors.iter().map(String::as_str).collect(),
        skipped,
        notices,
        baseline: crate::baseline::hidden_count(outcome)
            .map(|(hidden, file)| JsonBaseline { file, hidden }),
    };
    let mut s =
        serde_json::to_string_pretty(&report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
