//! `--format concise`: one line per finding, `file:line:col: FPxxx message`.

use super::place;
use crate::lint::Report;

/// One line per finding.
pub fn render(outcome: &Report) -> String {
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
            d.message
        ));
    }
    s
}
