//! fplint's findings as LSP diagnostics, with what hover and code actions
//! need kept beside them.

use crate::text::{Encoding, Lines};
use fplint::core::{Applicability, Change, SourceFile};
use fplint::{Report, Severity};
use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag,
    Location, NumberOrString, Range, TextEdit, Url, WorkspaceEdit,
};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One finding as published, with its rule and the edits it offers.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// What the client shows.
    pub diagnostic: Diagnostic,
    /// The rule's code.
    pub code: &'static str,
    /// What to do about it.
    pub help: Option<String>,
    /// The finding's fix as edits: title, applicability and the edit.
    pub fix: Option<(String, Applicability, WorkspaceEdit)>,
    /// The edit that silences the finding on its line.
    pub suppress: Option<TextEdit>,
}

/// The findings of one file and the text version they were found in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileItems {
    /// The open document's version the check read, if it was open.
    pub version: Option<i32>,
    /// Its findings, in the report's order.
    pub items: Vec<Item>,
}

/// Where the rule docs live: the same address SARIF's `helpUri` gives.
pub fn doc_url(code: &str) -> Option<Url> {
    Url::parse(&format!("{}{code}.md", fplint::render::sarif::DOCS_BASE)).ok()
}

/// A file with its line index.
type Indexed = (Arc<SourceFile>, Arc<Lines>);

/// A file's text and line index, built once per file per report.
struct Texts<'a> {
    report: &'a Report,
    cache: HashMap<u32, Option<Indexed>>,
}

impl Texts<'_> {
    fn get(&mut self, id: fplint::core::FileId) -> Option<Indexed> {
        let report = self.report;
        self.cache
            .entry(id.0)
            .or_insert_with(|| {
                let f = report.sources.get(id)?;
                let lines = Arc::new(Lines::new(&f.text));
                Some((f, lines))
            })
            .clone()
    }
}

/// Group a report's findings by document, converted for the client.
/// `uri_of` maps a file's canonical path (`None` for text that never had
/// a file) to the URI to publish it under (the open document's own URI
/// when there is one).
pub fn convert(
    report: &Report,
    enc: Encoding,
    uri_of: &dyn Fn(Option<&Path>) -> Option<Url>,
) -> BTreeMap<Url, Vec<Item>> {
    let mut texts = Texts {
        report,
        cache: HashMap::new(),
    };
    let mut uris: HashMap<u32, Option<Url>> = HashMap::new();
    let mut uri = |id: fplint::core::FileId| -> Option<Url> {
        uris.entry(id.0)
            .or_insert_with(|| {
                let path: Option<PathBuf> = report.sources.disk_path(id);
                uri_of(path.as_deref())
            })
            .clone()
    };
    let mut out: BTreeMap<Url, Vec<Item>> = BTreeMap::new();
    for d in report.diagnostics() {
        let (Some(file_uri), Some((file, lines))) = (uri(d.span.file), texts.get(d.span.file))
        else {
            continue;
        };
        let range = lines.range(&file.text, d.span.start as usize, d.span.end as usize, enc);
        let mut related = Vec::new();
        for r in &d.related {
            if let (Some(u), Some((f, l))) = (uri(r.span.file), texts.get(r.span.file)) {
                related.push(DiagnosticRelatedInformation {
                    location: Location::new(
                        u,
                        l.range(&f.text, r.span.start as usize, r.span.end as usize, enc),
                    ),
                    message: r.message.clone(),
                });
            }
        }
        let fix = d.fix.as_ref().and_then(|fix| {
            let mut changes: HashMap<Url, Vec<TextEdit>> = HashMap::new();
            for c in &fix.changes {
                // Fixes reach here written as byte edits; anything else was dropped.
                let Change::Replace { span, content } = c else {
                    return None;
                };
                let (u, (f, l)) = (uri(span.file)?, texts.get(span.file)?);
                let range = l.range(&f.text, span.start as usize, span.end as usize, enc);
                changes
                    .entry(u)
                    .or_default()
                    .push(TextEdit::new(range, content.clone()));
            }
            Some((
                fix.title.clone(),
                fix.applicability,
                WorkspaceEdit::new(changes),
            ))
        });
        let diagnostic = Diagnostic {
            range,
            severity: Some(severity(d.severity)),
            code: Some(NumberOrString::String(d.code.to_string())),
            code_description: doc_url(d.code).map(|href| CodeDescription { href }),
            source: Some("fplint".into()),
            message: d.message.clone(),
            related_information: (!related.is_empty()).then_some(related),
            tags: (d.code == fplint::suppress::UNUSED).then(|| vec![DiagnosticTag::UNNECESSARY]),
            data: None,
        };
        let suppress = suppression(
            &file.path,
            &file.text,
            &lines,
            d.span.start as usize,
            d.code,
            enc,
        );
        out.entry(file_uri).or_default().push(Item {
            diagnostic,
            code: d.code,
            help: d.help.clone(),
            fix,
            suppress,
        });
    }
    out
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The inline comment that silences `code` on the line of `offset`: a new
/// `# fplint: ignore[..]` at the line's end, or the code added to the one
/// already there. `None` where a comment cannot be written (JSON) or would
/// not work (parse errors, unused suppressions, another directive first).
fn suppression(
    path: &str,
    text: &str,
    lines: &Lines,
    offset: usize,
    code: &str,
    enc: Encoding,
) -> Option<TextEdit> {
    if code == fplint::core::diagnostic::PARSE_ERROR || code == fplint::suppress::UNUSED {
        return None;
    }
    let json = path.ends_with(".json") || text.trim_start().starts_with(['{', '[']);
    if json {
        return None;
    }
    let line_no = lines.position(text, offset, Encoding::Utf8).line;
    let start = lines.offset(text, lsp_types::Position::new(line_no, 0), Encoding::Utf8);
    let end = lines.offset(
        text,
        lsp_types::Position::new(line_no, u32::MAX),
        Encoding::Utf8,
    );
    let line = text.get(start..end)?;
    let (at, insert) = match line.find("fplint:") {
        None => (end, format!(" # fplint: ignore[{code}]")),
        Some(m) => {
            let rest = &line[m + "fplint:".len()..];
            let list = rest.trim_start().strip_prefix("ignore[")?;
            let close = list.find(']')?;
            let close_at = start + (line.len() - list.len()) + close;
            (close_at, format!(", {code}"))
        }
    };
    let pos = lines.position(text, at, enc);
    Some(TextEdit::new(Range::new(pos, pos), insert))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, offset: usize, code: &str) -> Option<String> {
        let lines = Lines::new(text);
        let e = suppression("a.yaml", text, &lines, offset, code, Encoding::Utf8)?;
        let at = lines.offset(text, e.range.start, Encoding::Utf8);
        Some(format!("{}{}{}", &text[..at], e.new_text, &text[at..]))
    }

    #[test]
    fn suppression_comments() {
        assert_eq!(
            edit("a: 1\nb: 2\r\nc: 3\n", 6, "FP001").as_deref(),
            Some("a: 1\nb: 2 # fplint: ignore[FP001]\r\nc: 3\n")
        );
        assert_eq!(
            edit("b: 2 # fplint: ignore[FP003]\n", 0, "FP001").as_deref(),
            Some("b: 2 # fplint: ignore[FP003, FP001]\n")
        );
        assert_eq!(
            edit("b: 2 # fplint: ignore-file[FP003]\n", 0, "FP001"),
            None
        );
        assert_eq!(edit("{\"a\": 1}\n", 0, "FP001"), None);
        assert_eq!(edit("a: 1\n", 0, "FP100"), None);
    }
}
