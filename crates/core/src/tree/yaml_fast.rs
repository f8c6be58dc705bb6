//! A fast reader for the plain block YAML most manifests are written in.
//!
//! saphyr-parser scans a character at a time and costs about 300
//! instructions per byte, half of fplint's time on a large tree. This
//! reader takes the common subset (block mappings and sequences, one-line
//! plain and quoted scalars, one-line flow collections, literal block
//! scalars, `!Name` tags, comments, `---`) and builds the same tree, spans
//! included. Anything else (anchors, folded scalars, multi-line scalars,
//! escapes, tabs, non-ASCII outside comments, anything it is not sure is
//! valid) makes it give up, and the caller parses with saphyr: it never
//! decides what saphyr would reject or read otherwise. A test compares the
//! two on every YAML file of the repository and on generated text.

use super::{find_duplicates, Entry, Limits, Node, NodeKind, Parsed, ScalarStyle};
use crate::source::{FileId, Span};

/// The tree of `text`, or `None` when it is outside the subset.
pub(super) fn parse(text: &str, file: FileId, limits: Limits) -> Option<Parsed> {
    let b = text.as_bytes();
    // One pass over the bytes rules out what the subset never reads.
    if b.iter().any(|&c| OUTSIDE[usize::from(c)]) {
        return None;
    }
    // Other scripts are read in comments only (content with them gives up
    // where it is read), and never characters saphyr may take for a line
    // break or a mark: C1 controls (NEL among them), U+2028, U+2029, BOM.
    if !text.is_ascii()
        && text.chars().any(|c| {
            matches!(
                c,
                '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}'
            )
        })
    {
        return None;
    }
    let mut r = Reader {
        text,
        b,
        file,
        max_depth: limits.max_depth,
        depth: 0,
        out: Parsed::default(),
    };
    r.stream()?;
    Some(r.out)
}

/// Bytes the subset never reads: controls other than a line break (tabs,
/// carriage returns), and anchors and aliases (`&`, `*`).
const OUTSIDE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[0x7f] = true;
    t[b'&' as usize] = true;
    t[b'*' as usize] = true;
    t[b'\n' as usize] = false;
    t
};

/// A line with content.
#[derive(Copy, Clone)]
struct Line {
    /// Where the line starts.
    start: usize,
    /// Its indentation in spaces.
    indent: usize,
    /// Where its content starts.
    content: usize,
}

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    file: FileId,
    max_depth: usize,
    depth: usize,
    out: Parsed,
}

impl Reader<'_> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(b'\n')
    }

    fn eol(&self, i: usize) -> bool {
        i >= self.b.len() || self.b[i] == b'\n'
    }

    fn span(&self, s: usize, e: usize) -> Span {
        Span::new(self.file, s, e)
    }

    /// The next line at or after `from` (a line start) that is not blank or
    /// a comment.
    fn next_line(&self, mut from: usize) -> Option<Line> {
        while from < self.b.len() {
            let mut i = from;
            while self.at(i) == b' ' {
                i += 1;
            }
            if self.eol(i) || self.b[i] == b'#' {
                from = self.line_end(i) + 1;
                continue;
            }
            return Some(Line {
                start: from,
                indent: i - from,
                content: i,
            });
        }
        None
    }

    fn line_end(&self, i: usize) -> usize {
        self.b[i.min(self.b.len())..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.b.len(), |p| i + p)
    }

    /// `---` or `...` at the start of `l`: `Some(true)` for a clean `---`
    /// (nothing after it but a comment), `None` for anything that starts
    /// like a marker but is not a clean `---`.
    fn marker(&self, l: Line) -> Option<bool> {
        if l.indent != 0 {
            return Some(false);
        }
        let s = l.start;
        let three = &self.b[s..(s + 3).min(self.b.len())];
        if three != b"---" && three != b"..." {
            return Some(false);
        }
        if three == b"..." {
            return None;
        }
        self.rest_is_blank(s + 3).then_some(true)
    }

    /// Only spaces, then the end of the line or a comment after a space.
    fn rest_is_blank(&self, mut i: usize) -> bool {
        let start = i;
        while self.at(i) == b' ' {
            i += 1;
        }
        self.eol(i) || (self.b[i] == b'#' && i > start)
    }

    fn stream(&mut self) -> Option<()> {
        let mut pos = 0;
        // Whether a `---` opened a document that has no content yet.
        let mut open = false;
        while let Some(l) = self.next_line(pos) {
            if self.marker(l)? {
                if open {
                    // An empty document: saphyr's spans for it are odd.
                    return None;
                }
                open = true;
                pos = self.line_end(l.start) + 1;
                continue;
            }
            // A document may sit indented (values cut from a heredoc); a
            // line less indented after it ends it, and saphyr reads that.
            let (node, next) = self.block(l, None)?;
            self.out.documents.push(node);
            open = false;
            match next {
                None => return Some(()),
                Some(n) if self.marker(n)? => pos = n.start,
                Some(_) => return None,
            }
        }
        // A last `---` with nothing after it is an empty document.
        (!open).then_some(())
    }

    /// A block collection whose first line is `l`: a sequence when it
    /// starts with `- `, else a mapping. `parent` is the indentation of the
    /// enclosing block. Returns the node and the next content line.
    fn block(&mut self, l: Line, parent: Option<usize>) -> Option<(Node, Option<Line>)> {
        if parent.is_some_and(|p| l.indent <= p) {
            return None;
        }
        if self.is_entry(l.content) {
            self.sequence(l.indent, l.content, false)
        } else {
            self.mapping(l.indent, l.content, None)
        }
    }

    /// `-` followed by a space or the end of the line.
    fn is_entry(&self, i: usize) -> bool {
        self.at(i) == b'-' && matches!(self.at(i + 1), b' ' | b'\n')
    }

    fn enter(&mut self) -> Option<()> {
        if self.depth >= self.max_depth {
            // saphyr's path reports the limit.
            return None;
        }
        self.depth += 1;
        Some(())
    }

    /// A block sequence at `indent`, its first `-` at `first`. An
    /// indentless sequence (a mapping value at the mapping's own
    /// indentation) starts where its first item's first token does.
    fn sequence(
        &mut self,
        indent: usize,
        first: usize,
        indentless: bool,
    ) -> Option<(Node, Option<Line>)> {
        self.enter()?;
        let mut items: Vec<Node> = Vec::new();
        let mut dash = first;
        let mut start = None;
        let next = loop {
            let mut i = dash + 1;
            while self.at(i) == b' ' {
                i += 1;
            }
            let (item, next) = if self.eol(i) || self.b[i] == b'#' {
                if indentless && items.is_empty() {
                    return None;
                }
                // The item is the block on the lines below.
                match self.next_line(self.line_end(i) + 1) {
                    Some(l) if l.indent > indent && !self.marker(l)? => {
                        self.block(l, Some(indent))?
                    }
                    _ => return None,
                }
            } else if self.is_entry(i) {
                return None;
            } else if let Some(key) = self.key(i) {
                self.mapping(i - self.line_start(i), i, Some(key))?
            } else {
                let (node, after) = self.inline(i, indent)?;
                (node, self.next_line(after))
            };
            // An indentless sequence starts at its first item's first
            // token (a block scalar's indicator, not its content).
            start.get_or_insert(if indentless { i } else { dash });
            items.push(item);
            match next {
                Some(l) if l.indent == indent && !self.marker(l)? => {
                    if !self.is_entry(l.content) {
                        if indentless {
                            break Some(l);
                        }
                        return None;
                    }
                    dash = l.content;
                }
                Some(l) if l.indent > indent => return None,
                other => break other,
            }
        };
        self.depth -= 1;
        let s = start?;
        let e = items.last().map_or(s, |n| n.span.end as usize);
        Some((
            Node {
                kind: NodeKind::Seq(items),
                span: self.span(s, e),
                tag: None,
            },
            next,
        ))
    }

    fn line_start(&self, i: usize) -> usize {
        self.b[..i]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1)
    }

    /// The mapping key (`key:` then a space or the end of the line) at `i`,
    /// and where its `:` is.
    fn key(&self, i: usize) -> Option<(Node, usize)> {
        let (node, end) = match self.at(i) {
            b'"' | b'\'' => self.quoted(i)?,
            c => {
                if !plain_start(c, self.at(i + 1), false) {
                    return None;
                }
                let end = self.plain_end(i, false)?;
                if end == i || self.at(end - 1) == b' ' {
                    return None;
                }
                (self.scalar(i, end, ScalarStyle::Plain), end)
            }
        };
        if self.at(end) != b':' || !matches!(self.at(end + 1), b' ' | b'\n') {
            return None;
        }
        // saphyr's limit on an implicit key, and merge keys (with aliases
        // in practice) are left to it.
        if end - i > 1000
            || (node.scalar() == Some("<<") && node.style() == Some(ScalarStyle::Plain))
        {
            return None;
        }
        Some((node, end))
    }

    /// A block mapping at `indent`, its first key at `first` (`read`, when
    /// the caller has read it).
    fn mapping(
        &mut self,
        indent: usize,
        first: usize,
        mut read: Option<(Node, usize)>,
    ) -> Option<(Node, Option<Line>)> {
        self.enter()?;
        let mut entries: Vec<Entry> = Vec::new();
        let mut at = first;
        let next = loop {
            let (key, colon) = match read.take() {
                Some(k) => k,
                None => self.key(at)?,
            };
            let mut i = colon + 1;
            while self.at(i) == b' ' {
                i += 1;
            }
            let (value, next) = if self.eol(i) || (self.b[i] == b'#' && i > colon + 1) {
                let empty = Node {
                    kind: NodeKind::Scalar("".into(), ScalarStyle::Plain),
                    span: self.span(colon, colon),
                    tag: None,
                };
                match self.next_line(self.line_end(i) + 1) {
                    Some(l) if self.marker(l)? => (empty, Some(l)),
                    Some(l) if l.indent > indent => self.block(l, Some(indent))?,
                    Some(l) if l.indent == indent && self.is_entry(l.content) => {
                        self.sequence(indent, l.content, true)?
                    }
                    other => (empty, other),
                }
            } else {
                let (node, after) = self.inline(i, indent)?;
                (node, self.next_line(after))
            };
            entries.push(Entry { key, value });
            match next {
                Some(l) if l.indent == indent && !self.marker(l)? => {
                    if self.is_entry(l.content) {
                        return None;
                    }
                    at = l.content;
                }
                Some(l) if l.indent > indent => return None,
                other => break other,
            }
        };
        self.depth -= 1;
        find_duplicates(&entries, &mut self.out.duplicates);
        let s = first;
        let e = entries.last().map_or(s, |en| en.value.span.end as usize);
        Some((
            Node {
                kind: NodeKind::Map(entries),
                span: self.span(s, e),
                tag: None,
            },
            next,
        ))
    }

    /// A value on the rest of a line: a flow collection, a quoted or plain
    /// scalar, optionally tagged. Returns the node and the start of the next
    /// line; a line that goes on (other than with a comment) gives up, and
    /// so does the next line being indented further (a continuation).
    fn inline(&mut self, i: usize, indent: usize) -> Option<(Node, usize)> {
        // A literal block scalar, tagged or not, runs on below.
        let bar = match self.tag_end(i) {
            Some(j) => self.skip_spaces(j),
            None => i,
        };
        if self.at(bar) == b'|' {
            return self.literal(i, bar, indent);
        }
        let (node, end) = self.node(i, false)?;
        if !self.rest_is_blank(end) {
            return None;
        }
        let after = self.line_end(end) + 1;
        Some((node, after))
    }

    /// Where a `!Name` tag at `i` ends (at the space after it).
    fn tag_end(&self, i: usize) -> Option<usize> {
        if self.at(i) != b'!' {
            return None;
        }
        let mut j = i + 1;
        while self.at(j).is_ascii_alphanumeric() {
            j += 1;
        }
        (j > i + 1 && self.at(j) == b' ').then_some(j)
    }

    /// A literal block scalar (`|`, `|-`, `|+`) whose indicator is at `bar`,
    /// its tag (if any) from `start`, in a block at `indent`. Returns the
    /// node and the start of the first line after it. saphyr's span starts
    /// at the tag, or at the first character of the content, and ends after
    /// the last character of the content that is not a space.
    fn literal(&mut self, start: usize, bar: usize, indent: usize) -> Option<(Node, usize)> {
        #[derive(PartialEq)]
        enum Chomp {
            Clip,
            Strip,
            Keep,
        }
        let (chomp, header) = match self.at(bar + 1) {
            b'-' => (Chomp::Strip, bar + 2),
            b'+' => (Chomp::Keep, bar + 2),
            _ => (Chomp::Clip, bar + 1),
        };
        // An indentation indicator, or anything else on the line, is left
        // to saphyr.
        if !self.rest_is_blank(header) {
            return None;
        }
        let first = self.line_end(header) + 1;
        let n = self.skip_spaces(first) - first;
        // The first line sets the indentation: it must hold content.
        if first >= self.b.len() || self.eol(first + n) || n <= indent {
            return None;
        }
        let mut value = String::new();
        let (mut p, mut lines, mut empty, mut end) = (first, 0usize, 0usize, first + n);
        while p < self.b.len() {
            let sp = self.skip_spaces(p) - p;
            let e = self.line_end(p);
            if self.eol(p + sp) {
                // A blank line more indented than the content holds spaces;
                // saphyr reads spaces ending the text as a line too.
                if sp > n || (sp > 0 && p + sp >= self.b.len()) {
                    return None;
                }
                empty += 1;
            } else if sp < n {
                break;
            } else {
                if lines > 0 {
                    value.push('\n');
                }
                value.extend(std::iter::repeat_n('\n', empty));
                let content = self.text.get(p + n..e)?;
                if !content.is_ascii() {
                    return None;
                }
                value.push_str(content);
                let body = self.text.get(p..e)?.trim_end_matches(' ');
                end = p + body.len();
                lines += 1;
                empty = 0;
            }
            p = e + 1;
        }
        match chomp {
            Chomp::Clip => value.push('\n'),
            Chomp::Strip => {}
            Chomp::Keep => value.extend(std::iter::repeat_n('\n', 1 + empty)),
        }
        let tag =
            (start != bar).then(|| self.text.get(start..self.tag_end(start).unwrap_or(start)));
        let node = Node {
            kind: NodeKind::Scalar(value.into(), ScalarStyle::Block),
            span: self.span(if tag.is_some() { start } else { first + n }, end),
            tag: tag.flatten().map(Into::into),
        };
        Some((node, p.min(self.b.len())))
    }

    /// A node that fits on the line, in block (`flow` false) or flow context.
    fn node(&mut self, i: usize, flow: bool) -> Option<(Node, usize)> {
        let closed = match self.at(i) {
            b'[' => self.flow_seq(i),
            b'{' => self.flow_map(i),
            b'"' | b'\'' => self.quoted(i),
            _ => return self.open_node(i, flow),
        };
        // saphyr ends a node that closes with a bracket or quote where the
        // next token starts: after spaces, and in block context after a
        // comment, but before the line break.
        let (mut node, end) = closed?;
        let mut t = self.skip_spaces(end);
        if !flow && self.at(t) == b'#' && t > end {
            t = self.line_end(t);
        }
        node.span = self.span(node.span.start as usize, t);
        Some((node, t))
    }

    /// A tagged node or a plain scalar.
    fn open_node(&mut self, i: usize, flow: bool) -> Option<(Node, usize)> {
        match self.at(i) {
            b'!' => {
                let t = self.tag_end(i)?;
                let tag: Box<str> = self.text.get(i..t).unwrap_or_default().into();
                let j = self.skip_spaces(t);
                if matches!(self.at(j), b'!' | b'#' | b'\n') {
                    return None;
                }
                let (mut node, end) = self.node(j, flow)?;
                node.span = self.span(i, node.span.end as usize);
                node.tag = Some(tag);
                Some((node, end))
            }
            c => {
                if !plain_start(c, self.at(i + 1), flow) {
                    return None;
                }
                let end = self.plain_end(i, flow)?;
                if end == i {
                    return None;
                }
                // A `:` that ends a plain value is a key where none may be.
                if self.at(end) == b':' && !flow {
                    return None;
                }
                Some((self.scalar(i, end, ScalarStyle::Plain), end))
            }
        }
    }

    fn scalar(&self, s: usize, e: usize, style: ScalarStyle) -> Node {
        // ASCII throughout, so any offset is a character boundary.
        let text = self.text.get(s..e).unwrap_or_default();
        Node {
            kind: NodeKind::Scalar(text.into(), style),
            span: self.span(s, e),
            tag: None,
        }
    }

    /// Where a one-line plain scalar starting at `i` ends (trailing spaces
    /// not included): before `: `, ` #`, the end of the line, and in flow
    /// context before `,[]{}` (a `:` followed by anything else is part of
    /// the scalar there, as in `AWS::NoValue`).
    fn plain_end(&self, i: usize, flow: bool) -> Option<usize> {
        let mut j = i;
        let mut end = i;
        loop {
            let c = self.at(j);
            match c {
                b'\n' => break,
                b':' if flow => match self.at(j + 1) {
                    b' ' | b',' | b']' | b'}' | b'\n' => break,
                    b'[' | b'{' => return None,
                    _ => end = j + 1,
                },
                b':' if matches!(self.at(j + 1), b' ' | b'\n') => break,
                b'#' if self.at(j.wrapping_sub(1)) == b' ' && j > i => break,
                b',' | b'[' | b']' | b'{' | b'}' if flow => break,
                // saphyr rejects `-` before a flow indicator in flow context.
                b'-' if flow && matches!(self.at(j + 1), b',' | b'[' | b']' | b'{' | b'}') => {
                    return None
                }
                b' ' => {}
                // Non-ASCII content is left to saphyr.
                0x80.. => return None,
                _ => end = j + 1,
            }
            j += 1;
        }
        Some(end)
    }

    /// A one-line quoted scalar at `i`: double-quoted without escapes, or
    /// single-quoted. Returns the node and the end of its closing quote.
    fn quoted(&self, i: usize) -> Option<(Node, usize)> {
        let q = self.at(i);
        let mut j = i + 1;
        let mut value = String::new();
        loop {
            let c = self.at(j);
            if c == b'\n' || c >= 0x80 || (q == b'"' && c == b'\\') {
                return None;
            }
            if c == q {
                if q == b'\'' && self.at(j + 1) == b'\'' {
                    value.push('\'');
                    j += 2;
                    continue;
                }
                break;
            }
            value.push(c as char);
            j += 1;
        }
        let end = j + 1;
        let node = Node {
            kind: NodeKind::Scalar(value.into(), ScalarStyle::Quoted),
            span: self.span(i, end),
            tag: None,
        };
        Some((node, end))
    }

    fn skip_spaces(&self, mut i: usize) -> usize {
        while self.at(i) == b' ' {
            i += 1;
        }
        i
    }

    /// `[a, b]` on one line.
    fn flow_seq(&mut self, i: usize) -> Option<(Node, usize)> {
        self.enter()?;
        let mut items = Vec::new();
        let mut j = self.skip_spaces(i + 1);
        if self.at(j) != b']' {
            loop {
                let (item, end) = self.node(j, true)?;
                if item.tag.is_none() && matches!(item.kind, NodeKind::Scalar(..)) {
                    // `[a: b]` is a one-pair mapping.
                    if self.at(self.skip_spaces(end)) == b':' {
                        return None;
                    }
                }
                items.push(item);
                match self.flow_next(end, b']')? {
                    (true, next) => j = next,
                    (false, close) => {
                        j = close;
                        break;
                    }
                }
            }
        }
        Some(self.flow_close(NodeKind::Seq(items), i, j))
    }

    /// After a flow item ending at `end`: `(true, next item)` after a
    /// comma, `(false, where it closes)` at `close`. A trailing comma, or
    /// anything else, gives up.
    fn flow_next(&self, end: usize, close: u8) -> Option<(bool, usize)> {
        let j = self.skip_spaces(end);
        match self.at(j) {
            b',' => {
                let next = self.skip_spaces(j + 1);
                (self.at(next) != close).then_some((true, next))
            }
            c if c == close => Some((false, j)),
            _ => None,
        }
    }

    /// The flow collection from `open` to its closing bracket at `close`.
    fn flow_close(&mut self, kind: NodeKind, open: usize, close: usize) -> (Node, usize) {
        self.depth -= 1;
        if let NodeKind::Map(entries) = &kind {
            find_duplicates(entries, &mut self.out.duplicates);
        }
        let node = Node {
            kind,
            span: self.span(open, close + 1),
            tag: None,
        };
        (node, close + 1)
    }

    /// `{a: b, c: d}` on one line.
    fn flow_map(&mut self, i: usize) -> Option<(Node, usize)> {
        self.enter()?;
        let mut entries = Vec::new();
        let mut j = self.skip_spaces(i + 1);
        if self.at(j) != b'}' {
            loop {
                let (key, end) = match self.at(j) {
                    b'"' | b'\'' => self.quoted(j)?,
                    c if plain_start(c, self.at(j + 1), true) => {
                        let end = self.plain_end(j, true)?;
                        if end == j || self.at(end) != b':' {
                            return None;
                        }
                        (self.scalar(j, end, ScalarStyle::Plain), end)
                    }
                    _ => return None,
                };
                if self.at(end) != b':' || self.at(end + 1) != b' ' {
                    return None;
                }
                if key.scalar() == Some("<<") && key.style() == Some(ScalarStyle::Plain) {
                    return None;
                }
                let v = self.skip_spaces(end + 1);
                if matches!(self.at(v), b',' | b'}' | b'\n' | b'#') {
                    return None;
                }
                let (value, vend) = self.node(v, true)?;
                entries.push(Entry { key, value });
                match self.flow_next(vend, b'}')? {
                    (true, next) => j = next,
                    (false, close) => {
                        j = close;
                        break;
                    }
                }
            }
        }
        Some(self.flow_close(NodeKind::Map(entries), i, j))
    }
}

/// Whether a plain scalar may start with `c` (then `next`).
fn plain_start(c: u8, next: u8, flow: bool) -> bool {
    match c {
        b'-' => match next {
            b' ' | b'\n' => false,
            b',' | b'[' | b']' | b'{' | b'}' => !flow,
            _ => true,
        },
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b' ' | b'\n' => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(text: &str) -> Parsed {
        super::super::yaml::parse_strict(text, FileId(0), Limits::default())
    }

    /// The fast reader either gives up or builds exactly saphyr's tree.
    fn agrees(text: &str) -> Result<bool, String> {
        let Some(fast) = parse(text, FileId(0), Limits::default()) else {
            return Ok(false);
        };
        let slow = strict(text);
        if let Some(e) = slow.error {
            return Err(format!(
                "fast read what saphyr rejects ({}):\n{text}",
                e.message
            ));
        }
        if fast.documents != slow.documents || fast.duplicates != slow.duplicates {
            let (f, s) = (dump(&fast), dump(&slow));
            let at = f
                .lines()
                .zip(s.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let line = |d: &str| d.lines().nth(at).unwrap_or("(none)").to_string();
            return Err(format!(
                "trees differ:\n{text}\n--- fast:   {}\n--- saphyr: {}",
                line(&f),
                line(&s)
            ));
        }
        Ok(true)
    }

    fn dump(p: &Parsed) -> String {
        fn node(n: &Node, depth: usize, out: &mut String) {
            let pad = "  ".repeat(depth);
            let (s, e, t) = (n.span.start, n.span.end, &n.tag);
            match &n.kind {
                NodeKind::Scalar(v, st) => {
                    out.push_str(&format!("{pad}{v:?} {st:?} {s}..{e} {t:?}\n"))
                }
                NodeKind::Seq(items) => {
                    out.push_str(&format!("{pad}seq {s}..{e} {t:?}\n"));
                    items.iter().for_each(|i| node(i, depth + 1, out));
                }
                NodeKind::Map(es) => {
                    out.push_str(&format!("{pad}map {s}..{e} {t:?}\n"));
                    for en in es {
                        node(&en.key, depth + 1, out);
                        node(&en.value, depth + 2, out);
                    }
                }
            }
        }
        let mut out = String::new();
        p.documents.iter().for_each(|d| node(d, 0, &mut out));
        out.push_str(&format!("{:?}\n", p.duplicates));
        out
    }

    /// The YAML files under `roots`, and under the folders a local run
    /// adds in `FPLINT_YAML_DIRS` (`:`-separated), sorted.
    fn files_under(roots: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        let extra = std::env::var("FPLINT_YAML_DIRS").unwrap_or_default();
        let extra = extra.split(':').filter(|d| !d.is_empty());
        for d in roots
            .iter()
            .cloned()
            .chain(extra.map(std::path::PathBuf::from))
        {
            yaml_files(&d, &mut files);
        }
        files.sort();
        files
    }

    fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == "target" || name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                yaml_files(&p, out);
            } else if name.ends_with(".yaml") || name.ends_with(".yml") {
                out.push(p);
            }
        }
    }

    use crate::test_rng::Rng;

    /// `text` with one small edit of the kind that moves YAML across the
    /// subset's edges: indentation, indicators, quotes, comments, markers.
    fn mutate(text: &str, rng: &mut Rng) -> String {
        const BITS: &[&str] = &[
            " ", "  ", ": ", ":", "- ", "-", "#", " #", "'", "\"", "[", "]", "{", "}", ",",
            "!Ref ", "!", "---\n", "\n", "\n  ", "...", "? ", "|", ">", "<<: ", "a: b", "\\", "~",
            "x:", "-1", "--", "%", "@", " - ", "[a, b]", "{a: 1}", "''", "\"\"", "|-\n  ", "é",
            " # ü", "日", "\u{2028}", "\u{85}", "\u{feff}",
        ];
        let mut s = text.to_string();
        let n = 1 + rng.below(3);
        for _ in 0..n {
            let mut at = rng.below(s.len() + 1);
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            match rng.below(3) {
                0 => s.insert_str(at, BITS[rng.below(BITS.len())]),
                1 => {
                    let mut end = (at + 1 + rng.below(4)).min(s.len());
                    while !s.is_char_boundary(end) {
                        end += 1;
                    }
                    s.replace_range(at..end, "");
                }
                _ => {
                    let mut end = (at + rng.below(3)).min(s.len());
                    while !s.is_char_boundary(end) {
                        end += 1;
                    }
                    s.replace_range(at..end, BITS[rng.below(BITS.len())]);
                }
            }
        }
        s
    }

    const SAMPLES: &[&str] = &[
        "a: 1\nb:\n  c: x y  # hi\n  d: \"q\"\nl:\n- p\n- q: 1\n  r: [a, \"b\", {x: y}]\ne:\nf: {}\ng: !Ref Foo\n",
        "---\n# c\n\"k 1\": v\n'k2': 'it''s'\nx:   y\n\nn:\n  # lower\n  - a#b\n  -\n    m: 1\n  - [ ]\n  - !If [c, {a: 1}, !Ref x]\n  - -foo\n  - \"a: b # c\"\ntop: !Sub \"x ${A}\"\ns: http://x:80/p?q=1\ne2: # c\nlast: 1 \n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n          args: [\"--port\", \"80\"]\n          ports:\n            - containerPort: 80\n      tolerations:\n      - key: eks.amazonaws.com/compute-type\n        operator: Equal\n        value: fargate\n        effect: NoSchedule\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\n",
        "a:\n  - x\nb:\n- c: 1\n  d: 2\n- e\nf: g\n",
        "- a\n- - b\n",
        "k: v\nk: w\nm: {a: 1, a: 2}\n",
        "a: 1\n---\nb: 2\n---\n",
        "a: [1, 2,]\nb: {c: }\n",
        "key: value: other\n",
        "a:\n  b\n",
        "- --port=80\n- -1\n- x:\n    y: 1\n",
        "- a:\n  - x\n  - y\n  b: 1\n- c\n",
        "a:\n- x\n-\n  - y\nb:\n  - {c: d}\n  - e: [f]\n    g: 'h'  # c\n",
        "a: 1\n  # comment deeper\nb: 2\n# c\n",
        "- a\n -b\n",
        "a:\n   b: 1\n  c: 2\n",
        "a: x\n  y\n",
        "a: \"x\" y\n",
        "a: 'x'# c\n",
        "a:    \n\n\n  b: c\n",
        "? a\n: b\n",
        "a: [b, [c, {d: e, f: [g]}], 'h', \"i\"] # end\n",
        "a: {b: [1, 2], 'c': \"d\", e: !Ref f}\n",
        "a: -\nb: - c\n",
        "x: yes\n\"y\": no\n'z': ~\n",
        "k8s-app: kube-dns\neks.amazonaws.com/role-arn: arn:aws:iam::1:role/x\n",
        "a: b # c: d\ne: f#g\n",
        "a: [x]  y\n",
        "--- \na: 1\n--- # two\nb: 2\n",
        "a: |\n  x\n  y\nb: |-\n  x\n\n  y\n\n\nc: |+\n  x\n\nd: !Sub |  # h\n  x ${A}\n   more\n  # not a comment\n# a comment\ne: 1\n",
        "- |\n  x   \n- a: |\n    y\n  b: 2\n- |\n    deep\n  # c\n- z\n",
        "a: |2\n   x\nb: |\n\n  x\nc: |\nd: |\n  x\n    \n",
        "a: |\n  x\n  \n \n  y\n  \nb: |+\n  z\n  \n\nc: 1\n",
        "c: |\n  w\n  ",
        "s:\n- |-\n  k: v\n- !Sub |\n  x\nt:\n- !Ref a\n",
        "# Überblick: 日本語 — ok\na: 1 # naïve\n",
        "a: naïve\n",
        "a: 1 # \u{2028} b: 2\n",
        "    settings:\n      clusterName: x\n    serviceAccount:\n      annotations:\n        eks.amazonaws.com/role-arn: arn\n",
        "  - a\n  - b: 1\n    c: [d]\n",
        "  a: 1\nb: 2\n",
        "  a: 1\n b: 2\n",
        "  a: 1\n---\n  b: 2\n",
        "  a: 1\n  ---\n",
        "  a: |\n    x\n  b: 1\n",
        "Resources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: !Ref C\n      Selectors:\n        - Namespace: kube-system\n          Labels:\n            - Key: k8s-app\n              Value: kube-dns\n      Tags: !If [HasTags, [{Key: a, Value: b}], !Ref AWS::NoValue]\n",
    ];

    #[test]
    fn samples_agree_and_the_common_ones_are_read() {
        for s in SAMPLES {
            agrees(s).unwrap();
        }
        // The subset must cover ordinary manifests and templates.
        let read: Vec<usize> = (0..SAMPLES.len())
            .filter(|&i| parse(SAMPLES[i], FileId(0), Limits::default()).is_some())
            .collect();
        assert_eq!(
            read,
            [
                0, 1, 2, 3, 5, 10, 11, 12, 13, 19, 21, 22, 24, 25, 26, 28, 29, 30, 32, 34, 35, 38,
                39, 42, 44, 45
            ]
        );
    }

    #[test]
    fn every_yaml_file_of_the_repository_agrees() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        // The shared corpus too, where present beside the repository.
        let files = files_under(&[root.clone(), root.join("../shared/corpus")]);
        assert!(files.len() > 100, "{} YAML files", files.len());
        let (mut read, mut failures) = (0, Vec::new());
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue;
            };
            match agrees(&text) {
                Ok(true) => read += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!("{}: {e}", f.display())),
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        assert!(read * 3 > files.len(), "read {read} of {}", files.len());
    }

    #[test]
    fn edited_text_agrees() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let files = files_under(&[root.join("tests/fixtures")]);
        let mut texts: Vec<String> = SAMPLES.iter().map(|s| s.to_string()).collect();
        texts.extend(files.iter().filter_map(|f| std::fs::read_to_string(f).ok()));
        let rounds: usize = std::env::var("FPLINT_YAML_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(40);
        let seed = std::env::var("FPLINT_YAML_SEED")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(0x9e37_79b9_7f4a_7c15);
        let mut rng = Rng(seed);
        let (mut failures, mut read, mut tried) = (Vec::new(), 0, 0);
        for t in &texts {
            for _ in 0..rounds {
                let m = mutate(t, &mut rng);
                tried += 1;
                match agrees(&m) {
                    Ok(r) => read += usize::from(r),
                    Err(e) => failures.push(e),
                }
            }
        }
        // The edits must leave much inside the subset, or they test nothing.
        assert!(read * 5 > tried, "read {read} of {tried} edited texts");
        failures.truncate(5);
        assert!(failures.is_empty(), "{}", failures.join("\n\n=====\n\n"));
    }
}
