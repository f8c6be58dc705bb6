//! `--format github`: workflow commands that GitHub Actions shows as
//! annotations on the pull request.

use super::{place, rule_name};
use crate::lint::Report;
use fplint_core::Severity;

/// Escaping for the message part of a workflow command.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping for a property value (`file=`, `title=`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow command per finding.
pub fn render(outcome: &Report) -> String {
    let mut s = String::new();
    for d in &outcome.diagnostics {
        let p = place(outcome, d);
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        s.push_str(&format!(
            "::{kind} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            property(&p.file),
            p.start.line,
            p.start.column,
            p.end.line,
            p.end.column,
            property(&format!("{} {}", d.code, rule_name(d.code))),
            data(&message)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(data("50%\nnext"), "50%25%0Anext");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }
}
