//! Inline suppressions: `# fplint: ignore[FP001]` (or `//` in HCL) on the
//! finding's line or the line above, and `# fplint: ignore-file[FP003]`
//! anywhere in the file; CloudFormation `Metadata: {fplint: {ignore: [...]}}`
//! on a resource or the template. A suppression that suppresses nothing is
//! reported.

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

#[derive(Debug)]
struct Directive {
    file: FileId,
    scope: Scope,
    codes: Vec<(String, Span)>,
    used: Vec<bool>,
}

/// Directives in comments: the marker must follow `#` or `//` on its line.
fn scan(file: &SourceFile) -> Vec<Directive> {
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
        let in_comment = before.contains('#') || before.contains("//");
        if !in_comment {
            continue;
        }
        let rest = line[at + MARKER.len()..].trim_start();
        let (file_wide, rest) = if let Some(r) = rest.strip_prefix("ignore-file[") {
            (true, r)
        } else if let Some(r) = rest.strip_prefix("ignore[") {
            (false, r)
        } else {
            continue;
        };
        let Some(close) = rest.find(']') else {
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
                codes.push((
                    code.to_ascii_uppercase(),
                    Span::new(file.id, s, s + code.len()),
                ));
            }
            pos += part.len() + 1;
        }
        if codes.is_empty() {
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
        });
    }
    out
}

/// Drop suppressed diagnostics; return the unused-suppression findings for
/// codes whose rules ran (`enabled`).
pub fn apply(
    diagnostics: &mut Vec<Diagnostic>,
    sources: &Sources,
    in_data: &[fplint_core::frontend::Suppression],
    enabled: &dyn Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    let mut directives: Vec<Directive> = sources.all().iter().flat_map(|f| scan(f)).collect();
    directives.extend(in_data.iter().map(|s| Directive {
        file: s.file,
        scope: s.scope.map_or(Scope::File, Scope::Span),
        used: vec![false; s.codes.len()],
        codes: s.codes.clone(),
    }));
    if directives.is_empty() {
        return Vec::new();
    }
    diagnostics.retain(|d| {
        let Some(file) = sources.get(d.span.file) else {
            return true;
        };
        let line = file.lines().line_of(d.span.start as usize);
        let mut suppressed = false;
        for dir in directives.iter_mut().filter(|x| x.file == d.span.file) {
            let applies = match dir.scope {
                Scope::File => true,
                Scope::Line(l) => l == line || l + 1 == line,
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
    let mut unused = Vec::new();
    for dir in &directives {
        for ((code, span), used) in dir.codes.iter().zip(&dir.used) {
            let known = fplint_rules::REGISTRY
                .iter()
                .any(|r| r.code.starts_with(code.as_str()));
            if *used || (known && !enabled(code)) {
                continue;
            }
            let message = if known {
                format!("suppression of `{code}` suppresses nothing")
            } else {
                format!("suppression names `{code}`, which is not a rule code")
            };
            unused.push(
                Diagnostic::new(UNUSED, Severity::Info, message, *span)
                    .with_label("unused")
                    .with_help(
                        "remove it, or move it to the line of the finding or the line above",
                    ),
            );
        }
    }
    unused
}
