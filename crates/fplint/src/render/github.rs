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
    crate::render::escape_controls(&render_unescaped(outcome)).into_owned()
}

/// One workflow command per finding.
fn render_unescaped(outcome: &Report) -> String {
    let mut s = String::new();
    for d in &outcome.diagnostics {
        let p = place(outcome, d);
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut message = super::shorten(&d.message).into_owned();
        if let Some(h) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(&super::shorten(h));
        }
        if let Some(f) = d.fix.as_ref().filter(|f| f.is_resolved()) {
            message.push_str(&match f.applicability {
                fplint_core::Applicability::Safe => {
                    format!("\nfix: {} (`fplint check --fix` applies it)", f.title)
                }
                fplint_core::Applicability::Unsafe => format!(
                    "\nfix: {} (unsafe: `fplint check --fix --unsafe-fixes` applies it)",
                    f.title
                ),
            });
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
    if let Some((n, file)) = crate::baseline::hidden_count(outcome) {
        s.push_str(&format!(
            "::notice title=fplint baseline::{}\n",
            data(&super::hidden_note(n, &file))
        ));
    }
    for n in &outcome.notices {
        let kind = match n.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = Vec::new();
        if let Some(f) = &n.file {
            props.push(format!("file={}", property(f)));
        }
        if let Some(l) = n.line {
            props.push(format!("line={l}"));
        }
        props.push(format!("title=fplint {}", n.kind.as_str()));
        let mut message = super::shorten(&n.message).into_owned();
        if let Some(h) = &n.help {
            message.push_str("\nhelp: ");
            message.push_str(&super::shorten(h));
        }
        s.push_str(&format!(
            "::{kind} {}::{}\n",
            props.join(","),
            data(&message)
        ));
    }
    for e in &outcome.errors {
        s.push_str(&format!(
            "::error title=fplint could not read a path::{}\n",
            data(e)
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
