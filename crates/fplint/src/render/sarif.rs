//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning. Columns are UTF-16
//! code units, SARIF's default, and the run says so.

use super::rule_name;
use crate::lint::Report;
use fplint_core::Severity;
use serde_json::{json, Value};

/// Where each rule's documentation is online.
pub const DOCS_BASE: &str = "https://github.com/fplint/fplint/blob/main/rules/";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A path as a SARIF `artifactLocation.uri`: relative paths stay relative
/// references, absolute ones become `file://` URIs; both percent-encoded.
pub fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char);
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    if path.starts_with('/') {
        format!("file://{out}")
    } else {
        out
    }
}

/// The first paragraph of a doc's "What it does" section.
fn full_description(doc: &str) -> String {
    let after = doc.split("## What it does").nth(1).unwrap_or_default();
    after
        .trim_start()
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A SARIF 2.1.0 log of one run.
pub fn render(outcome: &Report) -> String {
    let rules: Vec<Value> = fplint_rules::REGISTRY
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": full_description(r.doc)},
                "helpUri": format!("{DOCS_BASE}{}.md", r.code),
                "help": {"text": r.summary, "markdown": r.doc},
                "defaultConfiguration": {"level": level(r.default_severity)},
            })
        })
        .collect();
    let index = |code: &str| fplint_rules::REGISTRY.iter().position(|r| r.code == code);
    let location = |file: &fplint_core::SourceFile, span: fplint_core::Span| {
        let start = file.line_col(span.start as usize);
        let end = file.line_col(span.end as usize);
        json!({
            "physicalLocation": {
                "artifactLocation": {"uri": uri(&file.path)},
                "region": {
                    "startLine": start.line,
                    "startColumn": file.utf16_column(span.start as usize),
                    "endLine": end.line,
                    "endColumn": file.utf16_column(span.end as usize),
                }
            }
        })
    };
    // With a baseline, every result says how it stands against it, and the
    // findings it hides are results too (`unchanged`, `updated`), so code
    // scanning keeps tracking them.
    let states = outcome.baseline.as_ref().map(|b| &b.hidden);
    let reported = outcome
        .diagnostics
        .iter()
        .map(|d| (d, states.map(|_| crate::baseline::State::New)));
    let hidden = states.into_iter().flatten().map(|(d, s)| (d, Some(*s)));
    let results: Vec<Value> = reported
        .chain(hidden)
        .filter_map(|(d, state)| {
            let file = outcome.file(d)?;
            let mut text = d.message.clone();
            if let Some(h) = &d.help {
                text.push_str("\nhelp: ");
                text.push_str(h);
            }
            let mut result = json!({
                "ruleId": d.code,
                "level": level(d.severity),
                "message": {"text": text},
                "locations": [location(&file, d.span)],
                "properties": {"name": rule_name(d.code)},
            });
            if let Some(i) = index(d.code) {
                result["ruleIndex"] = json!(i);
            }
            if let Some(fp) = crate::baseline::fingerprint_in(outcome, d) {
                result["partialFingerprints"] = json!({ "fplintFingerprint/v1": fp });
            }
            if let Some(s) = state {
                result["baselineState"] = json!(s.as_str());
            }
            if let Some(p) = &d.path {
                result["locations"][0]["logicalLocations"] = json!([{"fullyQualifiedName": p}]);
            }
            let related: Vec<Value> = d
                .related
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    let f = outcome.sources.get(r.span.file)?;
                    let mut l = location(&f, r.span);
                    l["id"] = json!(i);
                    l["message"] = json!({"text": r.message});
                    Some(l)
                })
                .collect();
            if !related.is_empty() {
                result["relatedLocations"] = Value::Array(related);
            }
            if let Some(fix) = d.fix.as_ref().filter(|f| f.is_resolved()) {
                let changes: Vec<Value> = fix
                    .changes
                    .iter()
                    .filter_map(|c| {
                        let fplint_core::Change::Replace { span, content } = c else {
                            return None;
                        };
                        let f = outcome.sources.get(span.file)?;
                        let at = location(&f, *span);
                        Some(json!({
                            "artifactLocation": at["physicalLocation"]["artifactLocation"],
                            "replacements": [{
                                "deletedRegion": at["physicalLocation"]["region"],
                                "insertedContent": {"text": content},
                            }],
                        }))
                    })
                    .collect();
                result["fixes"] = json!([{
                    "description": {"text": format!("{} ({})", fix.title, fix.applicability.as_str())},
                    "artifactChanges": changes,
                }]);
            }
            Some(result)
        })
        .collect();
    // What the run could not do goes to the invocation, so an upload of an
    // incomplete run cannot close existing alerts as fixed.
    let mut notifications: Vec<Value> = outcome
        .notices
        .iter()
        .map(|n| {
            let mut text = n.message.clone();
            if let Some(h) = &n.help {
                text.push_str("\nhelp: ");
                text.push_str(h);
            }
            let mut v = json!({
                "level": level(n.severity()),
                "message": {"text": text},
                "descriptor": {"id": n.kind.as_str()},
            });
            if let Some(f) = &n.file {
                let mut loc = json!({"physicalLocation": {"artifactLocation": {"uri": uri(f)}}});
                if let Some(l) = n.line {
                    loc["physicalLocation"]["region"] = json!({"startLine": l});
                }
                v["locations"] = json!([loc]);
            }
            v
        })
        .collect();
    notifications.extend(outcome.errors.iter().map(|e| {
        json!({
            "level": "error",
            "message": {"text": e},
            "descriptor": {"id": "unreadable-path"},
        })
    }));
    let mut invocation = json!({"executionSuccessful": outcome.errors.is_empty()});
    if !notifications.is_empty() {
        invocation["toolExecutionNotifications"] = Value::Array(notifications);
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "fplint",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/fplint/fplint",
                "rules": rules,
            }},
            "invocations": [invocation],
            "columnKind": "utf16CodeUnits",
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}
