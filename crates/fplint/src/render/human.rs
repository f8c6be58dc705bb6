//! `--format human`: miette code frames, reading only the lines around each span.

use super::{rule_name, shorten};
use crate::lint::Report;
use fplint_core::{Diagnostic, Severity, SourceFile};
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use std::fmt;
use std::sync::Arc;

/// Serves miette the lines around a span using the file's line index, so
/// rendering does not rescan a large file for every diagnostic.
///
/// miette draws snippets in offset order; to draw the primary one first,
/// offsets are virtual: `rank * stride + offset`, where rank 0 holds the
/// primary span (and related spans close enough to share its snippet) and
/// rank 1 the other related spans.
struct FileSource {
    file: Arc<SourceFile>,
    stride: usize,
    /// The real line of the text's first line: a window of long lines
    /// (see [`Window`]) holds only the lines around the span.
    line_base: usize,
    /// Where the primary span really is, for the header, when the text is
    /// a window.
    header: Option<fplint_core::LineCol>,
}

impl FileSource {
    fn new(file: Arc<SourceFile>) -> FileSource {
        let stride = file.text.len() + 1;
        FileSource {
            file,
            stride,
            line_base: 0,
            header: None,
        }
    }

    /// The virtual span of `start..end` at `rank`.
    fn at(&self, rank: usize, start: usize, end: usize) -> SourceSpan {
        (rank * self.stride + start, end.saturating_sub(start)).into()
    }
}

impl SourceCode for FileSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let f = &self.file;
        let text: &str = &f.text;
        let lines = f.lines();
        let rank = span.offset() / self.stride;
        let base = rank * self.stride;
        // A snippet never joins spans of two ranks: they stay apart, in rank order.
        if (span.offset() + span.len()) / self.stride != rank {
            return Err(MietteError::OutOfBounds);
        }
        let start = f.clamp(span.offset() - base);
        let end = f.clamp(span.offset() + span.len() - base).max(start);
        if before == 0 && after == 0 {
            // miette asks this way for the header position: report the span itself.
            let lc = self.header.unwrap_or_else(|| f.line_col(start));
            return Ok(Box::new(MietteSpanContents::new_named(
                f.path.clone(),
                &text.as_bytes()[start..end],
                SourceSpan::new((base + start).into(), end - start),
                lc.line - 1,
                lc.column - 1,
                1,
            )));
        }
        let first = lines.line_of(start).saturating_sub(before);
        let last = (lines.line_of(end) + after).min(lines.line_count().saturating_sub(1));
        let s = lines.line_start(first);
        let mut e = if last + 1 < lines.line_count() {
            lines.line_start(last + 1)
        } else {
            text.len()
        };
        while e > s && matches!(text.as_bytes().get(e - 1), Some(b'\n' | b'\r')) {
            e -= 1;
        }
        let e = e.max(s);
        Ok(Box::new(MietteSpanContents::new_named(
            f.path.clone(),
            &text.as_bytes()[s..e],
            SourceSpan::new((base + s).into(), e - s),
            first + self.line_base,
            0,
            last - first + 1,
        )))
    }
}

struct Rendered<'a> {
    d: &'a Diagnostic,
    code: String,
    source: Option<FileSource>,
    labels: Vec<LabeledSpan>,
    help: Option<String>,
}

impl fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shorten(&self.d.message))
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shorten(&self.d.message))
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(&self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// The labels of a diagnostic drawn in its whole file.
fn labels(src: &FileSource, d: &Diagnostic) -> Vec<LabeledSpan> {
    let (start, end) = shown(&src.file, d.span.start as usize, d.span.end as usize);
    let primary = LabeledSpan::new_primary_with_span(
        Some(shorten(d.label.as_deref().unwrap_or_default()).into_owned())
            .filter(|l| !l.is_empty()),
        src.at(0, start, end),
    );
    let lines = src.file.lines();
    let primary_line = lines.line_of(start);
    let related = d
        .related
        .iter()
        .filter(|r| r.span.file == d.span.file)
        .map(|r| {
            let (s, e) = shown(&src.file, r.span.start as usize, r.span.end as usize);
            // Close enough to share the primary snippet's context lines.
            let near = lines.line_of(s).abs_diff(primary_line) <= 2 * CONTEXT_LINES + 1;
            LabeledSpan::new_with_span(
                Some(shorten(&r.message).into_owned()),
                src.at(usize::from(!near), s, e),
            )
        });
    std::iter::once(primary).chain(related).collect()
}

/// Lines longer than this (in bytes) are shown as a window around the span.
const LONG_LINE: usize = 200;
/// The bytes of a long line shown around the span.
const WINDOW: usize = 120;

/// The lines around a span when one of them is long (a minified JSON
/// template, a one-line `.tf`): each cut to the same columns around the
/// span, with an ellipsis where text is left out, as compilers do.
struct Window {
    /// The file's lines `first..=last`, cut.
    source: FileSource,
    first: usize,
    last: usize,
    /// Per line: where it starts in the file, the first byte shown, the
    /// bytes shown, and where that part starts in the window's text.
    cuts: Vec<(usize, usize, usize, usize)>,
}

impl Window {
    /// The window around `start..end`, if its lines need one.
    fn around(file: &Arc<SourceFile>, start: usize, end: usize, ascii: bool) -> Option<Window> {
        let text: &str = &file.text;
        let lines = file.lines();
        let line_end = |l: usize| {
            let e = if l + 1 < lines.line_count() {
                lines.line_start(l + 1)
            } else {
                text.len()
            };
            let mut e = e.max(lines.line_start(l));
            while e > lines.line_start(l) && matches!(text.as_bytes()[e - 1], b'\n' | b'\r') {
                e -= 1;
            }
            e
        };
        let first = lines.line_of(start).saturating_sub(CONTEXT_LINES);
        let last = (lines.line_of(end) + CONTEXT_LINES).min(lines.line_count().saturating_sub(1));
        if (first..=last).all(|l| line_end(l) - lines.line_start(l) <= LONG_LINE) {
            return None;
        }
        let ellipsis = if ascii { "..." } else { "\u{2026}" };
        let floor = |mut o: usize| {
            while o > 0 && !text.is_char_boundary(o) {
                o -= 1;
            }
            o
        };
        // The same columns on every line keep the lines aligned.
        let col = start - lines.line_start(lines.line_of(start));
        let from = col.saturating_sub(WINDOW / 3);
        let mut shown = String::new();
        let mut cuts = Vec::new();
        for l in first..=last {
            let (ls, le) = (lines.line_start(l), line_end(l));
            let s = floor((ls + from).min(le)).max(ls);
            let e = floor((s + WINDOW).min(le)).max(s);
            if s > ls {
                shown.push_str(ellipsis);
            }
            cuts.push((ls, s, e - s, shown.len()));
            shown.push_str(&text[s..e]);
            if e < le {
                shown.push_str(ellipsis);
            }
            shown.push('\n');
        }
        shown.pop();
        let lc = file.line_col(start);
        let mut source =
            FileSource::new(Arc::new(SourceFile::new(file.id, file.path.clone(), shown)));
        source.line_base = first;
        source.header = Some(lc);
        Some(Window {
            source,
            first,
            last,
            cuts,
        })
    }

    /// Where a file offset is in the window's text, if its line is shown.
    fn map(&self, offset: usize, file: &SourceFile) -> Option<usize> {
        let l = file.lines().line_of(offset);
        if l < self.first || l > self.last {
            return None;
        }
        let (_, s, len, at) = self.cuts[l - self.first];
        Some(at + offset.clamp(s, s + len) - s)
    }

    /// Whether a file offset is inside the shown part of its line.
    fn shows(&self, offset: usize, file: &SourceFile) -> bool {
        let l = file.lines().line_of(offset);
        (self.first..=self.last).contains(&l) && {
            let (_, s, len, _) = self.cuts[l - self.first];
            (s..=s + len).contains(&offset)
        }
    }
}

/// Lines shown above and below each span.
const CONTEXT_LINES: usize = 2;

/// The part of a span to highlight. A span over several lines of a
/// Terraform file is a block or a long argument: its first line (`resource
/// "aws_eks_cluster" "this"`, `selector`, `data = {`) says which, and
/// underlining the whole block hides what the finding is about.
fn shown(f: &SourceFile, start: usize, end: usize) -> (usize, usize) {
    let (start, end) = (f.clamp(start), f.clamp(end).max(f.clamp(start)));
    let lines = f.lines();
    if !f.path.ends_with(".tf") || lines.line_of(start) == lines.line_of(end) {
        return (start, end);
    }
    let first = &f.text[start..end];
    let line = first.split(['\n', '\r']).next().unwrap_or_default();
    let head = line.trim_end().trim_end_matches(['{', '[', '(']).trim_end();
    match head.is_empty() {
        true => (start, end),
        false => (start, start + head.len()),
    }
}

/// Whether `--color auto` colours: on a terminal, unless `NO_COLOR` is set
/// (and not empty) or `TERM` is `dumb`.
pub fn auto_color(stdout_is_terminal: bool) -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    stdout_is_terminal && !no_color && !dumb
}

/// The width to wrap at: `COLUMNS` when set, else the terminal's, else 100
/// (piped or written to a file).
pub fn terminal_width(stdout_is_terminal: bool) -> usize {
    summary_width(stdout_is_terminal).unwrap_or(100)
}

/// The width summary lines are wrapped at ([`fit`]): `COLUMNS` when set,
/// else the terminal's; piped or written to a file, a line stays one line,
/// for `grep`.
pub fn summary_width(stdout_is_terminal: bool) -> Option<usize> {
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    let tty = || {
        stdout_is_terminal
            .then(terminal_size::terminal_size)
            .flatten()
            .map(|(w, _)| usize::from(w.0))
    };
    // Narrower than this, code frames are unreadable whatever is done.
    columns.or_else(tty).map(|w| w.max(40))
}

/// Whether frames are drawn in ASCII: `TERM=dumb` terminals (and the
/// consoles that set it) cannot show box-drawing characters.
pub fn ascii_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

/// How the human format looks.
pub struct HumanOptions {
    /// ANSI colours.
    pub color: bool,
    /// The width to wrap at, in columns.
    pub width: usize,
    /// Frames in ASCII rather than box-drawing characters.
    pub ascii: bool,
}

/// Code frames for every finding, then a summary.
pub fn render(outcome: &Report, opts: &HumanOptions) -> String {
    let mut theme = match (opts.ascii, opts.color) {
        (true, true) => GraphicalTheme::ascii(),
        (true, false) => GraphicalTheme::none(),
        (false, true) => GraphicalTheme::unicode(),
        (false, false) => GraphicalTheme::unicode_nocolor(),
    };
    if opts.ascii {
        theme.characters = miette::ThemeCharacters::ascii();
        theme.characters.error = "x error:".into();
        theme.characters.warning = "! warning:".into();
        theme.characters.advice = "i info:".into();
    } else {
        // The word survives copy and paste and screen readers; the glyph alone does not.
        theme.characters.error = "× error:".into();
        theme.characters.warning = "⚠ warning:".into();
        theme.characters.advice = "☞ info:".into();
    }
    // Lines break at spaces only: a key, taint, path or ARN stays whole,
    // even when longer than the line.
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(opts.width)
        .with_links(false)
        .with_context_lines(CONTEXT_LINES)
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_break_words(false);
    let mut out = String::new();
    // Each file is scanned for control characters once, however many
    // findings it has.
    let mut escapes: std::collections::HashMap<fplint_core::FileId, Option<Escaped>> =
        std::collections::HashMap::new();
    for d in &outcome.diagnostics {
        let file = outcome.file(d);
        // A file with control characters is drawn escaped, its spans moved
        // to match; the header keeps the file's own line and column.
        let escaped = file.as_ref().and_then(|f| {
            let e = escapes.entry(f.id).or_insert_with(|| escape_file(f));
            e.as_ref().map(|e| e.apply(f, d))
        });
        let (file, d, header) = match escaped {
            Some((f, d2, lc)) => (Some(f), std::borrow::Cow::Owned(d2), Some(lc)),
            None => (file, std::borrow::Cow::Borrowed(d), None),
        };
        let d: &Diagnostic = &d;
        let window = file.as_ref().and_then(|f| {
            let (start, end) = shown(f, d.span.start as usize, d.span.end as usize);
            Window::around(f, start, end, opts.ascii)
        });
        // Related places in other files, or outside a window, go into the footer.
        let outside = |r: &&fplint_core::Related| match (&window, &file) {
            (Some(w), Some(f)) => r.span.file == d.span.file && !w.shows(r.span.start as usize, f),
            _ => false,
        };
        let elsewhere: Vec<String> = d
            .related
            .iter()
            .filter(|r| r.span.file != d.span.file || outside(r))
            .filter_map(|r| {
                let f = outcome.sources.get(r.span.file)?;
                let lc = f.line_col(r.span.start as usize);
                Some(format!(
                    "{}:{}:{}: {}",
                    super::escape_controls(&f.path),
                    lc.line,
                    lc.column,
                    shorten(&r.message)
                ))
            })
            .collect();
        let fix_line = d
            .fix
            .as_ref()
            .filter(|f| f.is_resolved())
            .map(|f| match f.applicability {
                fplint_core::Applicability::Safe => {
                    format!("fix: {} (safe: `--fix`)", shorten(&f.title))
                }
                fplint_core::Applicability::Unsafe => {
                    format!(
                        "fix: {} (unsafe: `--fix --unsafe-fixes`)",
                        shorten(&f.title)
                    )
                }
            });
        let elsewhere: Vec<String> = elsewhere.into_iter().chain(fix_line).collect();
        let d_help = d.help.as_deref().map(|h| shorten(h).into_owned());
        let help = match (&d_help, elsewhere.is_empty()) {
            (Some(h), true) => Some(h.clone()),
            (h, false) => Some(
                h.iter()
                    .cloned()
                    .chain(elsewhere.iter().map(|e| {
                        if e.starts_with("fix: ") {
                            e.clone()
                        } else {
                            format!("see {e}")
                        }
                    }))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            (None, true) => None,
        };
        let labels_in_window = match (&window, &file) {
            (Some(w), Some(f)) => Some(windowed_labels(w, f, d, &outside)),
            _ => None,
        };
        let (mut source, labels) = match (window, labels_in_window) {
            (Some(w), Some(labels)) => (Some(w.source), labels),
            _ => match file.map(FileSource::new) {
                Some(src) => {
                    let labels = labels(&src, d);
                    (Some(src), labels)
                }
                None => (None, Vec::new()),
            },
        };
        if let (Some(src), Some(lc)) = (&mut source, header) {
            src.header = Some(lc);
        }
        let rendered = Rendered {
            d,
            code: format!("{} {}", d.code, rule_name(d.code)),
            source,
            labels,
            help,
        };
        if handler.render_report(&mut out, &rendered).is_err() {
            out.push_str(&format!("{}: {}\n", rendered.code, shorten(&d.message)));
        }
        out.push('\n');
    }
    // Near-misses set the exit code: shown with the findings, even `--quiet`.
    for n in outcome.notices.iter().filter(|n| n.counts()) {
        out.push_str(&notice(n));
    }
    // Without colour nothing of fplint's own is a control character: a
    // last pass catches what the escaping of each part above missed.
    match opts.color {
        true => out,
        false => super::escape_controls(&out).into_owned(),
    }
}

/// A file with its control characters escaped, and where its offsets are
/// in the escaped text.
struct Escaped {
    file: Arc<SourceFile>,
    map: super::OffsetMap,
}

/// `f` escaped; `None` when neither its path nor its text holds a
/// control character.
fn escape_file(f: &Arc<SourceFile>) -> Option<Escaped> {
    let path = super::escape_controls(&f.path);
    let (text, map) = match super::escape_source(&f.text) {
        Some(e) => e,
        None if matches!(path, std::borrow::Cow::Owned(_)) => {
            (f.text.to_string(), super::OffsetMap::none())
        }
        None => return None,
    };
    Some(Escaped {
        file: Arc::new(SourceFile::new(f.id, path.into_owned(), text)),
        map,
    })
}

impl Escaped {
    /// The escaped file, `d` with its spans in `f` moved to match, and
    /// where `d` starts in `f` itself.
    fn apply(
        &self,
        f: &SourceFile,
        d: &Diagnostic,
    ) -> (Arc<SourceFile>, Diagnostic, fplint_core::LineCol) {
        let (start, _) = shown(f, d.span.start as usize, d.span.end as usize);
        let lc = f.line_col(start);
        let moved = |span: &mut fplint_core::Span| {
            if span.file == f.id {
                let start = self.map.map(f.clamp(span.start as usize));
                let end = self.map.map(f.clamp(span.end as usize));
                span.start = u32::try_from(start).unwrap_or(u32::MAX);
                span.end = u32::try_from(end).unwrap_or(u32::MAX);
            }
        };
        let mut d = d.clone();
        moved(&mut d.span);
        for r in &mut d.related {
            moved(&mut r.span);
        }
        (self.file.clone(), d, lc)
    }
}

/// The labels of a diagnostic drawn in a window of its lines; related
/// places `outside` it are in the footer instead.
fn windowed_labels(
    w: &Window,
    f: &SourceFile,
    d: &Diagnostic,
    outside: &dyn Fn(&&fplint_core::Related) -> bool,
) -> Vec<LabeledSpan> {
    let (start, end) = shown(f, d.span.start as usize, d.span.end as usize);
    let at = |s: usize, e: usize| -> Option<SourceSpan> {
        let s2 = w.map(s, f)?;
        let e2 = w.map(e, f).filter(|&e2| e2 >= s2).unwrap_or(s2);
        Some(w.source.at(0, s2, e2))
    };
    let mut out: Vec<LabeledSpan> = at(start, end)
        .map(|span| {
            LabeledSpan::new_primary_with_span(
                Some(shorten(d.label.as_deref().unwrap_or_default()).into_owned())
                    .filter(|l| !l.is_empty()),
                span,
            )
        })
        .into_iter()
        .collect();
    for r in d.related.iter().filter(|r| r.span.file == d.span.file) {
        if outside(&r) {
            continue;
        }
        let (s, e) = shown(f, r.span.start as usize, r.span.end as usize);
        if let Some(span) = at(s, e) {
            out.push(LabeledSpan::new_with_span(
                Some(shorten(&r.message).into_owned()),
                span,
            ));
        }
    }
    out
}

/// One notice: `warning: file:line: message`, then its help indented.
fn notice(n: &crate::notice::Notice) -> String {
    let head = match n.kind {
        crate::notice::NoticeKind::Skipped => "skipped",
        _ => match n.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        },
    };
    let mut s = format!("{head}: {}{}\n", n.place(), shorten(&n.message));
    if let Some(h) = &n.help {
        for (i, line) in h.lines().enumerate() {
            s.push_str(if i == 0 { "  help: " } else { "        " });
            s.push_str(line);
            s.push('\n');
        }
    }
    super::escape_controls(&s).into_owned()
}

/// What the run could not do or did not look at: named files skipped,
/// paths with nothing to lint, workloads without a cluster, unreadable paths.
fn run_notes(outcome: &Report) -> String {
    let mut s = String::new();
    for n in outcome.notices.iter().filter(|n| !n.counts()) {
        s.push_str(&notice(n));
    }
    for e in &outcome.errors {
        s.push_str(&format!("error: {}\n", super::escape_controls(e)));
    }
    if let Some((n, file)) = crate::baseline::hidden_count(outcome) {
        s.push_str(&super::hidden_note(n, &file));
        s.push('\n');
    }
    s
}

/// `Found 3 problems (2 errors, 1 warning) in 12 files.`
pub fn summary(outcome: &Report, elapsed: std::time::Duration) -> String {
    crate::render::escape_controls(&summary_unescaped(outcome, elapsed)).into_owned()
}

/// `Found 3 problems (2 errors, 1 warning) in 12 files.`
fn summary_unescaped(outcome: &Report, elapsed: std::time::Duration) -> String {
    let count = |s: Severity| {
        outcome
            .diagnostics
            .iter()
            .filter(|d| d.severity == s)
            .count()
    };
    let (e, w, i) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let files = plural(outcome.files_scanned, "file");
    let ms = elapsed.as_secs_f64() * 1000.0;
    let notes = run_notes(outcome);
    // A run that could not read everything must not read like a clean one.
    let incomplete = if outcome.errors.is_empty() {
        String::new()
    } else {
        format!(
            "fplint could not read {}: the results are incomplete.\n",
            plural(outcome.errors.len(), "path")
        )
    };
    let near = outcome.notices.iter().filter(|n| n.counts()).count();
    if e + w + i == 0 && near == 0 && outcome.files_scanned == 0 && !outcome.errors.is_empty() {
        // Nothing was read: "no problems" would read like a clean pass.
        return format!(
            "{notes}fplint could not read {}: nothing was linted.\n",
            plural(outcome.errors.len(), "path")
        );
    }
    if e + w + i == 0 && near == 0 {
        return format!("{notes}{incomplete}No problems found in {files} ({ms:.0} ms).\n");
    }
    let (w, near_note) = if near > 0 {
        (
            w + near,
            format!(" ({} not linted)", plural(near, "named file")),
        )
    } else {
        (w, String::new())
    };
    let mut parts = Vec::new();
    for (n, word) in [(e, "error"), (w, "warning"), (i, "info")] {
        if n > 0 {
            parts.push(if word == "info" {
                format!("{n} info")
            } else {
                plural(n, word)
            });
        }
    }
    format!(
        "{notes}{incomplete}Found {} ({}) in {files}{near_note} ({ms:.0} ms).\n",
        plural(e + w + i, "problem"),
        parts.join(", ")
    )
}

/// After the summary: how many fixes were applied, and how many remaining
/// findings `--fix` (or `--unsafe-fixes`) would fix, as ruff says it.
pub fn fix_summary(outcome: &Report, applied: usize, unsafe_fixes: bool) -> String {
    let mut out = String::new();
    if applied > 0 {
        out.push_str(&format!(
            "Fixed {applied} finding{}.\n",
            if applied == 1 { "" } else { "s" }
        ));
    }
    let count = |a: fplint_core::Applicability| {
        outcome
            .diagnostics
            .iter()
            .filter(|d| {
                d.fix
                    .as_ref()
                    .is_some_and(|f| f.is_resolved() && f.applicability == a)
            })
            .count()
    };
    let (safe, unsafe_) = (
        count(fplint_core::Applicability::Safe),
        count(fplint_core::Applicability::Unsafe),
    );
    match (safe, unsafe_, unsafe_fixes) {
        (0, 0, _) => {}
        (s, u, true) => out.push_str(&format!("{} fixable with `--fix --unsafe-fixes`.\n", s + u)),
        (s, 0, false) => out.push_str(&format!("{s} fixable with `--fix`.\n")),
        (0, u, false) => out.push_str(&format!(
            "{u} fixable with `--fix --unsafe-fixes` (unsafe: it changes what gets deployed).\n"
        )),
        (s, u, false) => out.push_str(&format!(
            "{s} fixable with `--fix` ({u} more with `--unsafe-fixes`).\n"
        )),
    }
    out
}

/// Stands for a space that does not break a line while wrapping.
const NO_BREAK: char = '\u{a0}';

/// `text` with every line longer than `width` columns wrapped at spaces, a
/// word never broken; continued lines are indented under their first.
pub fn fit(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.chars().count() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let rest = &line[indent..];
        // `help: ` continues under the help's text.
        let hang = indent + if rest.starts_with("help: ") { 6 } else { 2 };
        let hang = " ".repeat(hang.min(width / 2));
        let opts = textwrap::Options::new(width)
            .word_separator(textwrap::WordSeparator::AsciiSpace)
            .word_splitter(textwrap::WordSplitter::NoHyphenation)
            .break_words(false)
            .subsequent_indent(&hang);
        // A `code span` is one word: a command or key breaks nowhere.
        let mut in_code = false;
        let joined: String = line
            .chars()
            .map(|c| {
                in_code ^= c == '`';
                if c == ' ' && in_code {
                    NO_BREAK
                } else {
                    c
                }
            })
            .collect();
        for part in textwrap::wrap(&joined, opts) {
            out.push_str(&part.trim_end().replace(NO_BREAK, " "));
            out.push('\n');
        }
    }
    out
}
