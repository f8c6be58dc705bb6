//! YAML into the spanned tree, from saphyr-parser's events.
//!
//! saphyr-parser reports positions in characters; spans here are bytes.

use super::{find_duplicates, Entry, Limits, Node, NodeKind, Parsed, ScalarStyle, TreeError};
use crate::source::{FileId, Span};
use saphyr_parser::{Event, Parser, ScalarStyle as YStyle};
use std::collections::HashMap;

/// Converts saphyr's character indices to byte offsets, cheaply for the
/// mostly-forward order in which events arrive.
struct CharToByte<'a> {
    text: &'a str,
    ascii: bool,
    ch: usize,
    byte: usize,
}

impl<'a> CharToByte<'a> {
    fn new(text: &'a str) -> Self {
        CharToByte {
            text,
            ascii: text.is_ascii(),
            ch: 0,
            byte: 0,
        }
    }

    fn byte(&mut self, ch: usize) -> usize {
        if self.ascii {
            return ch.min(self.text.len());
        }
        if ch < self.ch / 2 {
            self.ch = 0;
            self.byte = 0;
        }
        while self.ch < ch {
            match self.text[self.byte..].chars().next() {
                Some(c) => {
                    self.byte += c.len_utf8();
                    self.ch += 1;
                }
                None => break,
            }
        }
        while self.ch > ch {
            match self.text[..self.byte].chars().next_back() {
                Some(c) => {
                    self.byte -= c.len_utf8();
                    self.ch -= 1;
                }
                None => break,
            }
        }
        self.byte
    }
}

enum Frame {
    Seq {
        start: usize,
        tag: Option<Box<str>>,
        anchor: usize,
        items: Vec<Node>,
    },
    Map {
        start: usize,
        tag: Option<Box<str>>,
        anchor: usize,
        entries: Vec<Entry>,
        key: Option<Node>,
    },
}

/// Parse every document of a YAML stream.
///
/// Plain block YAML, what most manifests are, is read by a fast reader of
/// that subset; everything else by saphyr-parser ([`parse_general`]). Both
/// build the same tree.
pub fn parse(text: &str, file: FileId, limits: Limits) -> Parsed {
    if let Some(fast) = super::yaml_fast::parse(text, file, limits) {
        return fast;
    }
    parse_general(text, file, limits)
}

/// [`parse`] without the fast reader: saphyr-parser for every text. For
/// comparing the two (tests, fuzzing, benchmarks).
pub fn parse_general(text: &str, file: FileId, limits: Limits) -> Parsed {
    let first = parse_strict(text, file, limits);
    let indentation = first
        .error
        .as_ref()
        .is_some_and(|e| e.message.contains("indentation"));
    if !indentation {
        return first;
    }
    // libyaml, Go YAML and CloudFormation accept flow collections whose lines
    // are indented less than their parent key; saphyr does not. Retry with
    // those lines indented further, and map the spans back.
    let Some(shifted) = Reindented::new(text) else {
        return first;
    };
    let mut second = parse_strict(&shifted.text, file, limits);
    if second.error.is_some() {
        return first;
    }
    for doc in &mut second.documents {
        shifted.remap(doc);
    }
    for d in &mut second.duplicates {
        d.first = shifted.span(d.first);
        d.second = shifted.span(d.second);
    }
    second
}

/// The text with every line that starts inside a flow collection indented by
/// a fixed amount, and the way back to original offsets.
struct Reindented {
    text: String,
    /// Per line of the new text: (start in new text, shift before it, spaces added).
    lines: Vec<(usize, usize, usize)>,
}

impl Reindented {
    fn new(text: &str) -> Option<Reindented> {
        let pad = text
            .lines()
            .map(|l| l.len() - l.trim_start_matches(' ').len())
            .max()
            .unwrap_or(0)
            + 1;
        let mut out = String::with_capacity(text.len() + 1024);
        let mut lines = Vec::new();
        let (mut depth, mut shift, mut changed) = (0usize, 0usize, false);
        for line in text.split_inclusive('\n') {
            let add = if depth > 0 { pad } else { 0 };
            lines.push((out.len(), shift, add));
            if add > 0 {
                changed = true;
                out.extend(std::iter::repeat_n(' ', add));
            }
            shift += add;
            out.push_str(line);
            depth = flow_depth_after(line, depth);
        }
        changed.then_some(Reindented { text: out, lines })
    }

    fn offset(&self, m: usize) -> usize {
        let i = self
            .lines
            .partition_point(|&(start, _, _)| start <= m)
            .saturating_sub(1);
        match self.lines.get(i) {
            Some(&(start, shift, add)) if m < start + add => start - shift,
            Some(&(_, shift, add)) => m - shift - add,
            None => m,
        }
    }

    fn span(&self, s: Span) -> Span {
        Span::new(
            s.file,
            self.offset(s.start as usize),
            self.offset(s.end as usize),
        )
    }

    fn remap(&self, node: &mut Node) {
        node.span = self.span(node.span);
        match &mut node.kind {
            NodeKind::Scalar(..) => {}
            NodeKind::Seq(items) => items.iter_mut().for_each(|n| self.remap(n)),
            NodeKind::Map(entries) => entries.iter_mut().for_each(|e| {
                self.remap(&mut e.key);
                self.remap(&mut e.value);
            }),
        }
    }
}

/// Flow-collection depth at the end of `line`, given the depth at its start.
/// Brackets count when they open a value (or anywhere inside a flow
/// collection), outside quotes and comments.
fn flow_depth_after(line: &str, mut depth: usize) -> usize {
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut prev = b' ';
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'#' if prev == b' ' || prev == b'\t' => break,
            b'"' | b'\'' if depth > 0 || matches!(prev, b' ' | b'[' | b'{' | b',') => {
                // Skip the quoted scalar; '' escapes a single quote.
                i += 1;
                while i < bytes.len() {
                    if b == b'"' && bytes[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if bytes[i] == b {
                        if b == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
            }
            b'[' | b'{' if depth > 0 || matches!(prev, b' ' | b'\t') || i == 0 => depth += 1,
            b']' | b'}' if depth > 0 => depth -= 1,
            _ => {}
        }
        prev = bytes.get(i).copied().unwrap_or(b' ');
        i += 1;
    }
    depth
}

pub(super) fn parse_strict(text: &str, file: FileId, limits: Limits) -> Parsed {
    let mut out = Parsed::default();
    let mut pos = CharToByte::new(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: HashMap<usize, Node> = HashMap::new();
    let mut alias_nodes = 0usize;
    let mut parser = Parser::new_from_str(text).keep_tags(true);
    let fail = |message: String, at: usize| TreeError {
        message,
        span: Span::new(file, at, at),
    };

    while let Some(item) = parser.next_event() {
        let (event, span) = match item {
            Ok(ev) => ev,
            Err(err) => {
                let at = pos.byte(err.marker().index());
                let message = format!("invalid YAML: {}", err.info());
                out.error = Some(fail(message, at));
                return out;
            }
        };
        let start = pos.byte(span.start.index());
        let end = pos.byte(span.end.index());
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing => continue,
            // Anchors are per document; the copy budget is per stream, or
            // a thousand small bombs would pass one by one.
            Event::DocumentStart(_) => {
                anchors.clear();
                continue;
            }
            Event::DocumentEnd => continue,
            Event::Scalar(value, style, anchor, tag) => {
                let style = match style {
                    YStyle::Plain => ScalarStyle::Plain,
                    YStyle::SingleQuoted | YStyle::DoubleQuoted => ScalarStyle::Quoted,
                    YStyle::Literal | YStyle::Folded => ScalarStyle::Block,
                };
                let end = if style == ScalarStyle::Block {
                    start + text[start..end.max(start)].trim_end().len()
                } else {
                    end
                };
                let node = Node {
                    kind: NodeKind::Scalar(value.into_owned().into_boxed_str(), style),
                    span: Span::new(file, start, end),
                    tag: tag.map(|t| t.to_string().into_boxed_str()),
                };
                if anchor > 0 {
                    anchors.insert(anchor, node.clone());
                }
                node
            }
            Event::Alias(id) => {
                let Some(target) = anchors.get(&id) else {
                    out.error = Some(fail("alias to an unknown anchor".into(), start));
                    return out;
                };
                alias_nodes = alias_nodes.saturating_add(target.size());
                if alias_nodes > limits.max_alias_nodes {
                    out.error = Some(fail(alias_message(limits), start));
                    return out;
                }
                let mut node = target.clone();
                node.span = Span::new(file, start, end);
                node
            }
            Event::SequenceStart(anchor, tag) => {
                if stack.len() >= limits.max_depth {
                    let message = format!(
                        "nesting deeper than {} levels (limits.max-depth)",
                        limits.max_depth
                    );
                    out.error = Some(fail(message, start));
                    return out;
                }
                stack.push(Frame::Seq {
                    start,
                    tag: tag.map(|t| t.to_string().into_boxed_str()),
                    anchor,
                    items: Vec::new(),
                });
                continue;
            }
            Event::MappingStart(anchor, tag) => {
                if stack.len() >= limits.max_depth {
                    let message = format!(
                        "nesting deeper than {} levels (limits.max-depth)",
                        limits.max_depth
                    );
                    out.error = Some(fail(message, start));
                    return out;
                }
                stack.push(Frame::Map {
                    start,
                    tag: tag.map(|t| t.to_string().into_boxed_str()),
                    anchor,
                    entries: Vec::new(),
                    key: None,
                });
                continue;
            }
            Event::SequenceEnd => {
                let Some(Frame::Seq {
                    start: s,
                    tag,
                    anchor,
                    items,
                }) = stack.pop()
                else {
                    out.error = Some(fail("unbalanced sequence".into(), start));
                    return out;
                };
                // Flow `]` ends the node; a block sequence ends with its last item.
                let e = if end > start {
                    end
                } else {
                    items.last().map_or(s, |n| n.span.end as usize)
                };
                let node = Node {
                    kind: NodeKind::Seq(items),
                    span: Span::new(file, s, e),
                    tag,
                };
                if anchor > 0 {
                    if let Err(e) = remember(&mut anchors, anchor, &node, &mut alias_nodes, limits)
                    {
                        out.error = Some(fail(e, start));
                        return out;
                    }
                }
                node
            }
            Event::MappingEnd => {
                let Some(Frame::Map {
                    start: s,
                    tag,
                    anchor,
                    entries,
                    ..
                }) = stack.pop()
                else {
                    out.error = Some(fail("unbalanced mapping".into(), start));
                    return out;
                };
                let entries = apply_merge_keys(entries);
                find_duplicates(&entries, &mut out.duplicates);
                let e = if end > start {
                    end
                } else {
                    entries.last().map_or(s, |en| en.value.span.end as usize)
                };
                let node = Node {
                    kind: NodeKind::Map(entries),
                    span: Span::new(file, s, e),
                    tag,
                };
                if anchor > 0 {
                    if let Err(e) = remember(&mut anchors, anchor, &node, &mut alias_nodes, limits)
                    {
                        out.error = Some(fail(e, start));
                        return out;
                    }
                }
                node
            }
        };
        match stack.last_mut() {
            None => out.documents.push(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push(Entry {
                    key: k,
                    value: node,
                }),
            },
        }
    }
    out
}

fn alias_message(limits: Limits) -> String {
    format!(
        "alias expansion exceeds {} nodes (limits.max-alias-nodes; a YAML alias bomb?)",
        limits.max_alias_nodes
    )
}

/// Keep a copy of an anchored collection. Copies count against the alias
/// budget: nested anchors would otherwise copy a large tree once per level.
fn remember(
    anchors: &mut HashMap<usize, Node>,
    anchor: usize,
    node: &Node,
    copied: &mut usize,
    limits: Limits,
) -> Result<(), String> {
    *copied = copied.saturating_add(node.size());
    if *copied > limits.max_alias_nodes {
        return Err(alias_message(limits));
    }
    anchors.insert(anchor, node.clone());
    Ok(())
}

/// `<<: *base` merges the keys of `base` that the mapping does not set itself.
fn apply_merge_keys(entries: Vec<Entry>) -> Vec<Entry> {
    let is_merge =
        |e: &Entry| e.key.scalar() == Some("<<") && e.key.style() == Some(ScalarStyle::Plain);
    if !entries.iter().any(is_merge) {
        return entries;
    }
    let (merges, mut own): (Vec<Entry>, Vec<Entry>) = entries.into_iter().partition(is_merge);
    // A set, not a scan per key: merging two large maps must stay linear.
    let mut present: std::collections::HashSet<Option<Box<str>>> =
        own.iter().map(|o| o.key.scalar().map(Box::from)).collect();
    for m in merges {
        let sources: Vec<Node> = match m.value.kind {
            NodeKind::Map(_) => vec![m.value],
            NodeKind::Seq(items) => items,
            NodeKind::Scalar(..) => Vec::new(),
        };
        for src in sources {
            if let NodeKind::Map(src_entries) = src.kind {
                for e in src_entries {
                    let k = e.key.scalar().map(Box::from);
                    if present.insert(k) {
                        own.push(e);
                    }
                }
            }
        }
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Parsed {
        parse(text, FileId(0), Limits::default())
    }

    fn slice<'a>(text: &'a str, n: &Node) -> &'a str {
        &text[n.span.range()]
    }

    #[test]
    fn spans_are_bytes() {
        let t = "é: 1\nname: ö-x\nlist:\n  - a\n  - b\n";
        let d = p(t);
        assert!(d.error.is_none());
        let root = &d.documents[0];
        assert_eq!(slice(t, root.get("name").unwrap()), "ö-x");
        assert_eq!(slice(t, root.get("list").unwrap()), "- a\n  - b");
        assert_eq!(root.get("é").unwrap().scalar(), Some("1"));
    }

    #[test]
    fn tags_and_flow() {
        let t = "a: !Ref X\nb: !GetAtt [A, B]\nc: {x: 1}\n";
        let d = p(t);
        let root = &d.documents[0];
        assert_eq!(root.get("a").unwrap().tag(), Some("!Ref"));
        assert_eq!(slice(t, root.get("a").unwrap()), "!Ref X");
        let b = root.get("b").unwrap();
        assert_eq!(b.tag(), Some("!GetAtt"));
        assert_eq!(b.as_seq().unwrap().len(), 2);
        assert_eq!(slice(t, root.get("c").unwrap()), "{x: 1}");
    }

    #[test]
    fn duplicates_kept_and_reported() {
        let t = "a: 1\nb: 2\na: 3\n";
        let d = p(t);
        assert_eq!(d.documents[0].as_map().unwrap().len(), 3);
        assert_eq!(d.duplicates.len(), 1);
        assert_eq!(
            slice(
                t,
                &Node {
                    span: d.duplicates[0].second,
                    ..d.documents[0].clone()
                }
            ),
            "a"
        );
        assert_eq!(d.duplicates[0].first.start, 0);
    }

    #[test]
    fn multi_document_and_anchors() {
        let t = "a: &x {k: v}\nb: *x\n---\nc: 2\n";
        let d = p(t);
        assert_eq!(d.documents.len(), 2);
        assert_eq!(
            d.documents[0].get("b").unwrap().get("k").unwrap().scalar(),
            Some("v")
        );
    }

    #[test]
    fn merge_keys() {
        let t = "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n";
        let d = p(t);
        let m = d.documents[0].get("m").unwrap();
        assert_eq!(m.get("x").unwrap().scalar(), Some("1"));
        assert_eq!(m.get("y").unwrap().scalar(), Some("3"));
        assert!(d.duplicates.is_empty());
    }

    #[test]
    fn alias_bomb_is_bounded() {
        let mut t = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            t.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
                p = i - 1
            ));
        }
        let d = p(&t);
        let err = d.error.unwrap();
        assert!(err.message.contains("alias expansion"), "{}", err.message);
    }

    #[test]
    fn depth_is_capped() {
        let t = "[".repeat(100_000);
        let d = p(&t);
        let msg = d.error.unwrap().message;
        assert!(
            msg.contains("nesting deeper") || msg.contains("recursion"),
            "{msg}"
        );
        let t = "a:\n".to_string() + &"- ".repeat(600) + "x\n";
        let msg = p(&t).error.unwrap().message;
        assert!(
            msg.contains("nesting deeper") || msg.contains("recursion"),
            "{msg}"
        );
    }

    #[test]
    fn error_position() {
        let t = "a: 1\nb: [1, 2\nc: 3\n";
        let d = p(t);
        let e = d.error.unwrap();
        assert!(e.message.starts_with("invalid YAML"));
        assert!(e.span.start as usize <= t.len());
    }

    #[test]
    fn flow_mapping_indented_like_its_key() {
        let t = "Resources:\n  Key:\n    Props: {\n      \"A\": [1,\n    2],\n      \"B\": \"x # y\"\n    }\n    Next: !Ref Z\n";
        let d = p(t);
        assert!(d.error.is_none(), "{:?}", d.error);
        let key = d.documents[0].get("Resources").unwrap().get("Key").unwrap();
        let props = key.get("Props").unwrap();
        assert_eq!(props.get("B").unwrap().scalar(), Some("x # y"));
        assert_eq!(slice(t, props.get("B").unwrap()), "\"x # y\"");
        assert_eq!(slice(t, key.get("Next").unwrap()), "!Ref Z");
        assert!(slice(t, props).starts_with('{') && slice(t, props).ends_with('}'));
    }

    #[test]
    fn block_scalar_span_trimmed() {
        let t = "a: |\n  hello\n  world\nb: 1\n";
        let d = p(t);
        let a = d.documents[0].get("a").unwrap();
        assert_eq!(a.scalar(), Some("hello\nworld\n"));
        assert_eq!(a.style(), Some(ScalarStyle::Block));
        assert!(slice(t, a).ends_with("world"));
    }
}
