//! `--statistics`: how many findings each rule made, most first.

use super::rule_name;
use crate::lint::Report;
use std::collections::BTreeMap;

/// `(code, count)`, by count (most first), then code.
fn counts(outcome: &Report) -> Vec<(&'static str, usize)> {
    let mut by_code: BTreeMap<&'static str, usize> = BTreeMap::new();
    for d in &outcome.diagnostics {
        *by_code.entry(d.code).or_default() += 1;
    }
    let mut v: Vec<_> = by_code.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

/// One line per code: `    3  FP001  coredns-selector-labels`.
pub fn text(outcome: &Report) -> String {
    crate::render::escape_controls(&text_unescaped(outcome)).into_owned()
}

/// One line per code: `    3  FP001  coredns-selector-labels`.
fn text_unescaped(outcome: &Report) -> String {
    counts(outcome)
        .into_iter()
        .map(|(code, n)| format!("{n:>5}  {code}  {}\n", rule_name(code)))
        .collect()
}

/// A JSON array of `{code, name, count}`, in the same order.
pub fn json(outcome: &Report) -> String {
    let list: Vec<serde_json::Value> = counts(outcome)
        .into_iter()
        .map(|(code, n)| serde_json::json!({"code": code, "name": rule_name(code), "count": n}))
        .collect();
    let mut s = serde_json::to_string_pretty(&list).unwrap_or_default();
    s.push('\n');
    s
}
