//! `--format json`: the contract in the CLI spec, version 1.

use super::{place, rule_name};
use crate::lint::Report;
use serde::Serialize;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    files_scanned: usize,
    diagnostics: Vec<JsonDiagnostic<'a>>,
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
            }
        })
        .collect();
    let report = JsonReport {
        version: 1,
        files_scanned: outcome.files_scanned,
        diagnostics,
    };
    let mut s =
        serde_json::to_string_pretty(&report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
