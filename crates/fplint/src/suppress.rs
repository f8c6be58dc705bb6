//! Inline suppressions: `# fplint: ignore[FP001]` (or `//` in HCL) on the
//! line above a finding's first line or on any line of the finding, and
//! `# fplint: ignore-file[FP003]` anywhere in the file; CloudFormation
//! `Metadata: {fplint: {ignore: [...]}}` on a resource or the template. A
//! suppression that suppresses nothing is reported (info); one that cannot
//! work (malformed, or naming no rule) is reported as a warning.

use fplint_core::sources::Sources;
use fplint_core::{Diagnostic, FileId, Severity, SourceFile, Span};

/// The code of an inline suppression that suppresses nothing.
pub const UNUSED: &str = "FP100";

/// What every inline suppression starts with.
const MARKER: &str = "fplint:";

/// Whether a text may hold an inline suppression (and must be kept whole
/// for [`apply`]).
pub fn may_have_directives(text: &str) -> bool {
    text.contains(MARKER)
}

#[derive(Debug)]
enum Scope {
    /// A comment on this zero-based line: it covers its line and the next.
    Line(usize),
    File,
    /// A CloudFormation resource.
    Span(Span),
}

/// A comment that starts like a directive but is not one: it silences
/// nothing, so it is reported rather than ignored.
#[derive(Debug)]
struct Malformed {
    span: Span,
    why: &'static str,
}

#[derive(Debug)]
struct Directive {
    file: FileId,
    scope: Scope,
    codes: Vec<(String, Span)>,
    used: Vec<bool>,
    /// An inline comment's bytes: where `#`/`//` starts, where its line's
    /// text ends, and where the whole line (with its newline) starts and ends.
    comment: Option<Comment>,
}

#[derive(Debug, Clone, Copy)]
struct Comment {
    start: usize,
    text_end: usize,
    line_start: usize,
    line_end: usize,
}

/// Directives in comments: the marker must follow `#` or `//` on its line.
fn scan(file: &SourceFile, malformed: &mut Vec<Malformed>) -> Vec<Directive> {
    let text: &str = &file.text;
    if !may_have_directives(text) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut offset = 0;
    for (line_no, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let Some(at) = line.find(MARKER) else {
            continue;
        };
        let before = &line[..at];
        let hash = before.rfind('#');
        let slashes = before.rfind("//");
        let Some(opener) = hash.into_iter().chain(slashes).max() else {
            continue;
        };
        let body = line.trim_end_matches(['\n', '\r']);
        let comment = Comment {
            start: start + opener,
            text_end: start + body.len(),
            line_start: start,
            line_end: offset,
        };
        let rest = line[at + MARKER.len()..].trim_start();
        let whole = Span::new(
            file.id,
            start + at,
            start + line.trim_end_matches(['\n', '\r']).len().max(at),
        );
        let (file_wide, rest) = if let Some(r) = rest.strip_prefix("ignore-file[") {
            (true, r)
        } else if let Some(r) = rest.strip_prefix("ignore[") {
            (false, r)
        } else {
            // `fplint: ignore FP001`, `fplint: ignore-file`, `fplint: ignroe[..]`.
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if word.to_ascii_lowercase().starts_with("ignore") || rest.starts_with('[') {
                malformed.push(Malformed {
                    span: whole,
                    why: "the codes must be in brackets right after `ignore`",
                });
            } else if !word.is_empty() && word.len() <= 12 && close_to_ignore(&word) {
                malformed.push(Malformed {
                    span: whole,
                    why: "the only directives are `ignore[..]` and `ignore-file[..]`",
                });
            }
            continue;
        };
        let Some(close) = rest.find(']') else {
            malformed.push(Malformed {
                span: whole,
                why: "the code list has no closing `]`",
            });
            continue;
        };
        let list_start = start + (line.len() - line[at..].len()) + (line[at..].len() - rest.len());
        let mut codes = Vec::new();
        let mut pos = 0;
        for part in rest[..close].split(',') {
            let code = part.trim();
            let lead = part.len() - part.trim_start().len();
            if !code.is_empty() {
                let s = list_start + pos + lead;
                codes.push((canonical(code), Span::new(file.id, s, s + code.len())));
            }
            pos += part.len() + 1;
        }
        if codes.is_empty() {
            malformed.push(Malformed {
                span: whole,
                why: "the code list is empty",
            });
            continue;
        }
        out.push(Directive {
            file: file.id,
            scope: if file_wide {
                Scope::File
            } else {
                Scope::Line(line_no)
            },
            used: vec![false; codes.len()],
            codes,
            comment: Some(comment),
        });
    }
    out
}

/// FP100's fix: delete the one unused code from its list, or the whole
/// comment when none of its codes is used (the whole line when the comment
/// is alone on it). Safe: the suppression changes nothing. In CloudFormation
/// `Metadata` the code is deleted from its `ignore` list, and the entries
/// that leave empty with it.
fn unused_fix(dir: &Directive, index: usize, text: &str) -> Option<fplint_core::Fix> {
    let (code, span) = dir.codes.get(index)?;
    let Some(c) = dir.comment else {
        // Two unused codes of one list: their edits overlap, and the next
        // pass takes the second.
        return Some(fplint_core::Fix::safe(
            format!("remove the unused suppression of `{code}`"),
            vec![fplint_core::Change::RemoveItem { item: *span }],
        ));
    };
    let span_of = |a: usize, b: usize| Span::new(dir.file, a, b);
    let remove = |a: usize, b: usize| fplint_core::Change::Replace {
        span: span_of(a, b),
        content: String::new(),
    };
    let change = if dir.used.iter().all(|u| !u) {
        if text.get(c.line_start..c.start)?.trim().is_empty() {
            remove(c.line_start, c.line_end)
        } else {
            let lead = text.get(c.line_start..c.start)?;
            let from = c.line_start + lead.trim_end().len();
            remove(from, c.text_end)
        }
    } else {
        // `ignore[FP001, FP003]`: take the code and one comma beside it.
        let (a, b) = (span.start as usize, span.end as usize);
        let after = text.get(b..c.text_end)?;
        let before = text.get(c.start..a)?;
        if let Some(gap) = after.find(',').filter(|&i| after[..i].trim().is_empty()) {
            let rest = &after[gap + 1..];
            let ws = rest.len() - rest.trim_start().len();
            remove(a, b + gap + 1 + ws)
        } else {
            let comma = before.rfind(',')?;
            remove(c.start + comma, b)
        }
    };
    Some(fplint_core::Fix::safe(
        format!("remove the unused suppression of `{code}`"),
        vec![change],
    ))
}

/// A misspelt `ignore` (`ingore`, `ignroe`): same letters, or one edit away.
fn close_to_ignore(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    let mut a: Vec<char> = w.chars().collect();
    let mut b: Vec<char> = "ignore".chars().collect();
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (x, y) = (a.clone(), b.clone());
    a.sort_unstable();
    b.sort_unstable();
    if a == b {
        return true;
    }
    // One insertion, deletion or substitution.
    let (short, long) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    let mut i = 0;
    while i < short.len() && short[i] == long[i] {
        i += 1;
    }
    if short.len() == long.len() {
        short[i + 1..] == long[i + 1..]
    } else {
        short[i..] == long[i + 1..]
    }
}

/// A suppressed code as written: a code, a prefix or a rule name
/// (`coredns-selector-labels` is FP001). One that names no rule is kept as
/// written, to be reported.
fn canonical(code: &str) -> String {
    crate::select::selector(code).unwrap_or_else(|_| match code.get(..2) {
        Some(p) if p.eq_ignore_ascii_case("fp") => code.to_ascii_uppercase(),
        _ => code.to_string(),
    })
}

/// Drop suppressed diagnostics; return the unused-suppression findings for
/// codes whose rules ran (`enabled`). Parse errors are never suppressed.
pub fn apply(
    diagnostics: &mut Vec<Diagnostic>,
    sources: &Sources,
    in_data: &[fplint_core::frontend::Suppression],
    enabled: &dyn Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    let mut malformed = Vec::new();
    let mut directives: Vec<Directive> = sources
        .all()
        .iter()
        .flat_map(|f| scan(f, &mut malformed))
        .collect();
    directives.extend(in_data.iter().map(|s| Directive {
        file: s.file,
        scope: s.scope.map_or(Scope::File, Scope::Span),
        used: vec![false; s.codes.len()],
        codes: s.codes.iter().map(|(c, sp)| (canonical(c), *sp)).collect(),
        comment: None,
    }));
    let mut unused: Vec<Diagnostic> = malformed
        .into_iter()
        .map(|m| {
            Diagnostic::new(
                UNUSED,
                Severity::Warning,
                format!("malformed suppression: {}; it silences nothing", m.why),
                m.span,
            )
            .with_label("not a directive")
            .with_help(
                "write `# fplint: ignore[FP001]` (or `ignore-file[FP001]`), codes comma-separated",
            )
        })
        .collect();
    if directives.is_empty() {
        return unused;
    }
    diagnostics.retain(|d| {
        if d.code == fplint_core::diagnostic::PARSE_ERROR {
            return true;
        }
        let Some(file) = sources.get(d.span.file) else {
            return true;
        };
        let lines = file.lines();
        let first = lines.line_of(d.span.start as usize);
        // The end is exclusive: a span ending at a line start ends on the line before.
        let last = lines
            .line_of((d.span.end as usize).saturating_sub(1))
            .max(first);
        let mut suppressed = false;
        for dir in directives.iter_mut().filter(|x| x.file == d.span.file) {
            let applies = match dir.scope {
                Scope::File => true,
                // A comment inside a multi-line finding counts as on it.
                Scope::Line(l) => (first..=last).contains(&l) || l + 1 == first,
                Scope::Span(s) => s.start <= d.span.start && d.span.start < s.end.max(s.start + 1),
            };
            if !applies {
                continue;
            }
            for (i, (code, _)) in dir.codes.iter().enumerate() {
                if d.code.starts_with(code.as_str()) {
                    dir.used[i] = true;
                    suppressed = true;
                }
            }
        }
        !suppressed
    });
    for dir in &directives {
        let text = sources.get(dir.file).map(|f| f.text.clone());
        for (i, ((code, span), used)) in dir.codes.iter().zip(&dir.used).enumerate() {
            let known = fplint_rules::REGISTRY
                .iter()
                .any(|r| r.code.starts_with(code.as_str()));
            if *used || (known && !enabled(code)) {
                continue;
            }
            // A code that names no rule can never work: a warning, not a note.
            let (message, severity) = if known {
                (
                    format!("suppression of `{code}` suppresses nothing"),
                    Severity::Info,
                )
            } else {
                (
                    format!("suppression names `{code}`, which is not a rule code"),
                    Severity::Warning,
                )
            };
            let mut d = Diagnostic::new(UNUSED, severity, message, *span)
                .with_label("unused")
                .with_help("remove it, or move it to the line of the finding or the line above");
            if let Some(fix) = text.as_deref().and_then(|t| unused_fix(dir, i, t)) {
                d = d.with_fix(fix);
            }
            unused.push(d);
        }
    }
    unused
}
