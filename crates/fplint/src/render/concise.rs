//! `--format concise`: one line per finding, `file:line:col: FPxxx message`.

use super::{place, shorten};
use crate::lint::Report;

/// One line per finding.
pub fn render(outcome: &Report) -> String {
    crate::render::escape_controls(&render_unescaped(outcome)).into_owned()
}

/// One line per finding.
fn render_unescaped(outcome: &Report) -> String {
    let mut s = String::new();
    for d in &outcome.diagnostics {
        let p = place(outcome, d);
        s.push_str(&format!(
            "{}:{}:{}: {} [{}] {}\n",
            p.file,
            p.start.line,
            p.start.column,
            d.code,
            d.severity.as_str(),
            shorten(&d.message)
        ));
    }
    // Near-misses set the exit code, so they are listed with the findings.
    for n in outcome.notices.iter().filter(|n| n.counts()) {
        s.push_str(&format!(
            "{}:{}:1: {} [{}] {}\n",
            n.file.as_deref().unwrap_or_default(),
            n.line.unwrap_or(1),
            n.kind.as_str(),
            n.severity().as_str(),
            shorten(&n.message)
        ));
    }
    s
}
