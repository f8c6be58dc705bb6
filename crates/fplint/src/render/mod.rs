//! Renderers: diagnostics are data until they reach this edge.

pub mod concise;
pub mod diagram;
pub mod github;
pub mod help;
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

/// `text` with its control characters escaped ([`escape_controls`]) and
/// every `code span` longer than fits a line cut in its middle, for the
/// formats people read; JSON and SARIF keep values whole.
pub fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match escape_controls(text) {
        std::borrow::Cow::Borrowed(t) => cut(t),
        std::borrow::Cow::Owned(t) => std::borrow::Cow::Owned(cut(&t).into_owned()),
    }
}

/// [`shorten`] without the escaping.
fn cut(text: &str) -> std::borrow::Cow<'_, str> {
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

/// Whether `c` is a control character a terminal acts on: C0 but tab and
/// line feed, DEL, and C1. Carriage return before a line feed ends a line.
fn is_control(c: char, next: Option<char>) -> bool {
    match c {
        '\t' | '\n' => false,
        '\r' => next != Some('\n'),
        _ => c.is_control(),
    }
}

/// How a control character is shown: `\x1b` for C0 and DEL, `\u{9b}` for C1,
/// as `git` and ripgrep show bytes they will not print.
fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = match u32::from(c) {
        n @ 0..=0x7f => write!(out, "\\x{n:02x}"),
        n => write!(out, "\\u{{{n:x}}}"),
    };
}

/// `text` with every control character escaped but tab and line ends
/// (ESC, BEL, backspace, C1 ...), for the formats people read on a
/// terminal: a linted file must not move the cursor, retitle the window or
/// rewrite the screen through fplint's output. JSON and SARIF keep values
/// exact (their encoders escape control characters).
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let mut chars = text.chars().peekable();
    let mut out: Option<String> = None;
    let mut at = 0;
    while let Some(c) = chars.next() {
        let control = is_control(c, chars.peek().copied());
        match (&mut out, control) {
            (None, false) => {}
            (None, true) => {
                let mut s = String::with_capacity(text.len() + 8);
                s.push_str(&text[..at]);
                push_escaped(&mut s, c);
                out = Some(s);
            }
            (Some(s), true) => push_escaped(s, c),
            (Some(s), false) => s.push(c),
        }
        at += c.len_utf8();
    }
    match out {
        Some(s) => std::borrow::Cow::Owned(s),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// A file's text with its control characters escaped (see
/// [`escape_controls`]), and where each byte offset of the original is in
/// it; `None` when there is nothing to escape. Lines stay where they were.
pub(crate) fn escape_source(text: &str) -> Option<(String, OffsetMap)> {
    let escaped = escape_controls(text);
    let std::borrow::Cow::Owned(escaped) = escaped else {
        return None;
    };
    let mut shifts = Vec::new();
    let mut extra = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_control(c, chars.peek().map(|&(_, n)| n)) {
            let mut e = String::new();
            push_escaped(&mut e, c);
            extra += e.len() - c.len_utf8();
            shifts.push((i + c.len_utf8(), extra));
        }
    }
    Some((escaped, OffsetMap { shifts }))
}

/// Where an offset of a file is in its escaped text.
pub(crate) struct OffsetMap {
    /// After each escaped character (its end offset in the original), the
    /// bytes added so far.
    shifts: Vec<(usize, usize)>,
}

impl OffsetMap {
    /// The map of a text with nothing escaped.
    pub(crate) fn none() -> OffsetMap {
        OffsetMap { shifts: Vec::new() }
    }

    /// The offset in the escaped text.
    pub(crate) fn map(&self, offset: usize) -> usize {
        let n = self.shifts.partition_point(|&(end, _)| end <= offset);
        offset + n.checked_sub(1).map_or(0, |i| self.shifts[i].1)
    }
}

/// The formats of `fplint check`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Code frames, help and fixes, then a summary ([`human`]).
    Human,
    /// One JSON object ([`json`]).
    Json,
    /// SARIF 2.1.0 ([`sarif`]).
    Sarif,
    /// GitHub Actions workflow commands ([`github`]).
    Github,
    /// One line per finding ([`concise`]).
    Concise,
    /// Markdown for a GitHub job summary ([`summary`]).
    Summary,
}

/// How `fplint check` prints a report.
pub struct ReportOptions {
    /// The format.
    pub format: Format,
    /// One line per rule with its count instead of the findings.
    pub statistics: bool,
    /// No summary line after the human format.
    pub quiet: bool,
    /// How the human format looks.
    pub human: human::HumanOptions,
    /// The width the human summary is wrapped at ([`human::summary_width`]).
    pub summary_width: Option<usize>,
    /// How long the run took, for the summary.
    pub elapsed: std::time::Duration,
    /// Fixes written by `--fix`.
    pub fixes_applied: usize,
    /// `--unsafe-fixes` was given.
    pub unsafe_fixes: bool,
}

/// A report as `fplint check` prints it in the format asked for.
pub fn report(outcome: &Report, o: &ReportOptions) -> String {
    let fit = |text: String| match o.summary_width {
        Some(w) => human::fit(&text, w),
        None => text,
    };
    match o.format {
        Format::Json if o.statistics => statistics::json(outcome),
        _ if o.statistics => {
            let mut s = statistics::text(outcome);
            if !o.quiet && o.format == Format::Human {
                s.push_str(&fit(human::summary(outcome, o.elapsed)));
            }
            s
        }
        Format::Json => json::render(outcome),
        Format::Concise => concise::render(outcome),
        Format::Sarif => sarif::render(outcome),
        Format::Github => github::render(outcome),
        Format::Summary => summary::render(outcome, &summary::SummaryOptions::from_env()),
        Format::Human => {
            let mut s = human::render(outcome, &o.human);
            if !o.quiet {
                let mut summary = human::summary(outcome, o.elapsed);
                summary.push_str(&human::fix_summary(
                    outcome,
                    o.fixes_applied,
                    o.unsafe_fixes,
                ));
                s.push_str(&fit(summary));
            }
            s
        }
    }
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

    #[test]
    fn control_characters_are_escaped() {
        use super::{escape_controls, escape_source};
        assert_eq!(escape_controls("a\tb\nc"), "a\tb\nc");
        assert_eq!(escape_controls("a\r\nb"), "a\r\nb");
        assert_eq!(escape_controls("\u{1b}]0;x\u{7}"), "\\x1b]0;x\\x07");
        assert_eq!(escape_controls("a\rb\u{7f}\u{9b}"), "a\\x0db\\x7f\\u{9b}");
        let (text, map) = escape_source("a\u{1b}b\n\u{9b}c").unwrap();
        assert_eq!(text, "a\\x1bb\n\\u{9b}c");
        assert_eq!(map.map(0), 0);
        assert_eq!(map.map(1), 1);
        assert_eq!(map.map(2), 5);
        assert_eq!(map.map(4), 7);
        assert_eq!(map.map(6), 13);
        assert!(escape_source("plain\n").is_none());
    }
}
