//! Turning a fix's model-level changes into byte edits, written in the
//! file's own syntax and style: YAML block or flow, JSON indentation, HCL
//! alignment. Comments and everything not touched stay as they are.
//!
//! Each function re-reads the one file it edits; fixes are rare, so this
//! costs nothing on a clean run.

use crate::diagnostic::Change;
use crate::source::{FileId, Span};
use crate::tree::{self, Entry, Limits, Node, NodeKind};
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block, Structure};
use hcl_edit::Span as _;

/// The syntax a file is written in, as far as editing it goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// YAML (eksctl, CloudFormation, Kubernetes).
    Yaml,
    /// JSON (CloudFormation, `.tf.json`).
    Json,
    /// HCL (Terraform).
    Hcl,
}

impl Syntax {
    /// `.tf` is HCL; a document that opens with `{` or `[` is JSON; the
    /// rest is YAML.
    pub fn of(path: &str, text: &str) -> Syntax {
        if path.ends_with(".tf") {
            return Syntax::Hcl;
        }
        match text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .chars()
            .next()
        {
            Some('{') | Some('[') => Syntax::Json,
            _ => Syntax::Yaml,
        }
    }
}

/// One byte edit: replace `start..end` with `content`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TextEdit {
    /// First byte replaced.
    pub start: usize,
    /// Byte after the last one replaced (`start` for an insertion).
    pub end: usize,
    /// What goes in their place.
    pub content: String,
}

/// Why a change could not be written; the fix is then dropped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The file no longer parses.
    #[error("the file no longer parses")]
    Unparsable,
    /// The node the fix names is not in the file.
    #[error("the node the fix names is not in the file")]
    NotFound,
    /// A form fplint does not rewrite.
    #[error("the dependency list is written in a form fplint does not rewrite")]
    UnsupportedShape,
}

/// The byte edits that make `change` in `text`. An empty list means the
/// file already says it (the dependency is there), so nothing is to do.
pub fn resolve(
    change: &Change,
    text: &str,
    syntax: Syntax,
    file: FileId,
) -> Result<Vec<TextEdit>, EditError> {
    match change {
        Change::Replace { span, content } => Ok(vec![TextEdit {
            start: span.start as usize,
            end: span.end as usize,
            content: content.clone(),
        }]),
        Change::AddDependency { resource, on } => match syntax {
            Syntax::Hcl => hcl_add_dependency(text, *resource, on),
            Syntax::Yaml | Syntax::Json => doc_add_dependency(text, syntax, file, *resource, on),
        },
        Change::RemoveEntry { key } => match syntax {
            Syntax::Yaml => yaml_remove_entry(text, file, *key),
            _ => Err(EditError::UnsupportedShape),
        },
        Change::RemoveItem { item } => match syntax {
            Syntax::Yaml | Syntax::Json => doc_remove_item(text, syntax, file, *item),
            Syntax::Hcl => Err(EditError::UnsupportedShape),
        },
        Change::SetConfigValue { at, key, value } => {
            config::set_value(text, syntax, file, *at, key, value)
        }
        Change::AddConfigValues { addon, key, value } => {
            config::add_values(text, syntax, file, *addon, key, value)
        }
        Change::AppendValuesItem { at, key, item } => match syntax {
            Syntax::Hcl => values::append_item(text, *at, key, item),
            _ => Err(EditError::UnsupportedShape),
        },
    }
}

mod config;
mod values;

fn parse_doc(text: &str, syntax: Syntax, file: FileId) -> Result<Vec<Node>, EditError> {
    let parsed = match syntax {
        Syntax::Json => tree::json::parse(text, file, Limits::default()),
        _ => tree::yaml::parse(text, file, Limits::default()),
    };
    if parsed.error.is_some() {
        return Err(EditError::Unparsable);
    }
    Ok(parsed.documents)
}

/// The mapping entry whose key starts at `key_start`, anywhere in the tree.
fn find_entry(node: &Node, key_start: u32) -> Option<&Entry> {
    match &node.kind {
        NodeKind::Map(entries) => entries.iter().find_map(|e| {
            if e.key.span.start == key_start {
                Some(e)
            } else {
                find_entry(&e.value, key_start)
            }
        }),
        NodeKind::Seq(items) => items.iter().find_map(|n| find_entry(n, key_start)),
        NodeKind::Scalar(..) => None,
    }
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1)
}

/// Where the line holding `at` ends, before its `\n` or `\r\n`.
fn line_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    if end > at && text[..end].ends_with('\r') {
        end - 1
    } else {
        end
    }
}

/// The white space that opens the line holding `at`.
fn indent_of(text: &str, at: usize) -> &str {
    let start = line_start(text, at);
    let line = &text[start..line_end(text, start)];
    &line[..line.len() - line.trim_start().len()]
}

/// The file's line ending, so an added line matches its neighbours.
fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// Only white space before `at` on its line.
fn first_on_line(text: &str, at: usize) -> bool {
    text[line_start(text, at)..at].trim().is_empty()
}

fn quote_json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// A YAML scalar for a logical id: plain when it needs no quotes.
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain {
        s.to_string()
    } else {
        quote_json(s)
    }
}

/// CloudFormation `DependsOn`, YAML or JSON: absent, a string, or a list.
fn doc_add_dependency(
    text: &str,
    syntax: Syntax,
    file: FileId,
    resource: Span,
    on: &str,
) -> Result<Vec<TextEdit>, EditError> {
    let docs = parse_doc(text, syntax, file)?;
    let entry = docs
        .iter()
        .find_map(|d| find_entry(d, resource.start))
        .ok_or(EditError::NotFound)?;
    let NodeKind::Map(props) = &entry.value.kind else {
        return Err(EditError::UnsupportedShape);
    };
    let item = |s: &str| match syntax {
        Syntax::Json => quote_json(s),
        _ => yaml_scalar(s),
    };
    let nl = newline(text);
    if let Some(dep) = props.iter().find(|e| e.key.as_str() == Some("DependsOn")) {
        let v = &dep.value;
        return match &v.kind {
            NodeKind::Scalar(s, _) if v.tag.is_none() => {
                if &**s == on {
                    return Ok(Vec::new());
                }
                let (a, b) = (item(s), item(on));
                Ok(vec![TextEdit {
                    start: v.span.start as usize,
                    end: v.span.end as usize,
                    content: format!("[{a}, {b}]"),
                }])
            }
            NodeKind::Seq(items) => {
                if items.iter().any(|n| n.as_str() == Some(on)) {
                    return Ok(Vec::new());
                }
                let flow = text[v.span.start as usize..].starts_with('[');
                match items.last() {
                    None if flow => {
                        let close = text[..v.span.end as usize]
                            .rfind(']')
                            .ok_or(EditError::UnsupportedShape)?;
                        Ok(vec![TextEdit {
                            start: close,
                            end: close,
                            content: item(on),
                        }])
                    }
                    None => Err(EditError::UnsupportedShape),
                    Some(last) => {
                        let end = last.span.end as usize;
                        let multiline = text[v.span.start as usize..end].contains('\n');
                        let content = if flow && !multiline {
                            format!(", {}", item(on))
                        } else if flow {
                            // JSON or flow YAML over several lines: a line like the last item's.
                            format!(",{nl}{}{}", indent_of(text, end), item(on))
                        } else {
                            // Block sequence: `- Item` lines.
                            let at = line_start(text, last.span.start as usize);
                            let dash = &text[at..last.span.start as usize];
                            let end = line_end(text, end);
                            return Ok(vec![TextEdit {
                                start: end,
                                end,
                                content: format!("{nl}{dash}{}", item(on)),
                            }]);
                        };
                        Ok(vec![TextEdit {
                            start: end,
                            end,
                            content,
                        }])
                    }
                }
            }
            _ => Err(EditError::UnsupportedShape),
        };
    }
    // No DependsOn yet: a new entry after `Type`, in the mapping's style.
    let anchor = props
        .iter()
        .find(|e| e.key.as_str() == Some("Type"))
        .or_else(|| props.first())
        .ok_or(EditError::UnsupportedShape)?;
    let key = match syntax {
        Syntax::Json => "\"DependsOn\": ".to_string(),
        _ => "DependsOn: ".to_string(),
    };
    let value_end = anchor.value.span.end as usize;
    let flow_map = text[entry.value.span.start as usize..].starts_with('{');
    if flow_map && !first_on_line(text, anchor.key.span.start as usize) {
        return Ok(vec![TextEdit {
            start: value_end,
            end: value_end,
            content: format!(", {key}{}", item(on)),
        }]);
    }
    let indent = indent_of(text, anchor.key.span.start as usize).to_string();
    match syntax {
        Syntax::Json => Ok(vec![TextEdit {
            start: value_end,
            end: value_end,
            content: format!(",{nl}{indent}{key}{}", item(on)),
        }]),
        _ => {
            let at = line_end(text, value_end);
            Ok(vec![TextEdit {
                start: at,
                end: at,
                content: format!("{nl}{indent}{key}{}", item(on)),
            }])
        }
    }
}

/// Terraform `depends_on`: merged into an existing list, or a new line
/// at the end of the block, indented like the block's other arguments.
fn hcl_add_dependency(text: &str, resource: Span, on: &str) -> Result<Vec<TextEdit>, EditError> {
    let body = hcl_edit::parser::parse_body(text).map_err(|_| EditError::Unparsable)?;
    let block = find_block(body.iter(), resource.start as usize, 0).ok_or(EditError::NotFound)?;
    let nl = newline(text);
    let existing = block.body.iter().find_map(|s| match s {
        Structure::Attribute(a) if a.key.as_str() == "depends_on" => Some(a),
        _ => None,
    });
    if let Some(attr) = existing {
        let Expression::Array(arr) = &attr.value else {
            return Err(EditError::UnsupportedShape);
        };
        let span = arr.span().ok_or(EditError::UnsupportedShape)?;
        let listed = &text[span.clone()];
        let names: Vec<&str> = listed
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split([',', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if names.contains(&on) {
            return Ok(Vec::new());
        }
        let close = span.end - 1;
        let last = arr.iter().last().and_then(|e| e.span());
        return Ok(vec![match last {
            None => TextEdit {
                start: close,
                end: close,
                content: on.to_string(),
            },
            Some(l) if listed.contains('\n') => TextEdit {
                start: l.end,
                end: l.end,
                content: format!(",{nl}{}{on}", indent_of(text, l.start)),
            },
            Some(l) => TextEdit {
                start: l.end,
                end: l.end,
                content: format!(", {on}"),
            },
        }]);
    }
    let span = block.span().ok_or(EditError::NotFound)?;
    let close = text[..span.end]
        .rfind('}')
        .ok_or(EditError::UnsupportedShape)?;
    if !first_on_line(text, close) {
        // `resource "a" "b" { x = 1 }` on one line: rare; leave it to the user.
        return Err(EditError::UnsupportedShape);
    }
    let inner_indent = block
        .body
        .iter()
        .find_map(|s| match s {
            Structure::Attribute(a) => a.span(),
            Structure::Block(b) => b.span(),
        })
        .map(|r| indent_of(text, r.start).to_string())
        .unwrap_or_else(|| format!("{}  ", indent_of(text, span.start)));
    let at = line_start(text, close);
    let blank = if block.body.iter().next().is_some() {
        nl
    } else {
        ""
    };
    Ok(vec![TextEdit {
        start: at,
        end: at,
        content: format!("{blank}{inner_indent}depends_on = [{on}]{nl}"),
    }])
}

fn find_block<'a>(
    items: impl Iterator<Item = &'a Structure>,
    start: usize,
    depth: usize,
) -> Option<&'a Block> {
    if depth > 8 {
        return None;
    }
    for s in items {
        if let Structure::Block(b) = s {
            if b.span().is_some_and(|r| r.start == start) {
                return Some(b);
            }
            if let Some(found) = find_block(b.body.iter(), start, depth + 1) {
                return Some(found);
            }
        }
    }
    None
}

/// Remove `key: value` lines from a YAML block mapping.
fn yaml_remove_entry(text: &str, file: FileId, key: Span) -> Result<Vec<TextEdit>, EditError> {
    let docs = parse_doc(text, Syntax::Yaml, file)?;
    let entry = docs
        .iter()
        .find_map(|d| find_entry(d, key.start))
        .ok_or(EditError::NotFound)?;
    let k = entry.key.span.start as usize;
    if !first_on_line(text, k) {
        // `- labels: …` opens a list item, or a flow mapping: not rewritten.
        return Err(EditError::UnsupportedShape);
    }
    let start = line_start(text, k);
    let end = line_end(text, entry.value.span.end.max(entry.key.span.end) as usize);
    let end = if text[end..].starts_with("\r\n") {
        end + 2
    } else if text[end..].starts_with('\n') {
        end + 1
    } else {
        end
    };
    Ok(vec![TextEdit {
        start,
        end,
        content: String::new(),
    }])
}

/// The containers from `node` down to the scalar spanning `target`, each
/// with the index of the child on the way.
fn path_to<'a>(node: &'a Node, target: Span, out: &mut Vec<(&'a Node, usize)>) -> bool {
    if out.len() > 64 {
        return false;
    }
    match &node.kind {
        NodeKind::Scalar(..) => node.span.start == target.start && node.span.end == target.end,
        NodeKind::Map(entries) => entries.iter().enumerate().any(|(i, e)| {
            out.push((node, i));
            let found = path_to(&e.value, target, out);
            if !found {
                out.pop();
            }
            found
        }),
        NodeKind::Seq(items) => items.iter().enumerate().any(|(i, n)| {
            out.push((node, i));
            let found = path_to(n, target, out);
            if !found {
                out.pop();
            }
            found
        }),
    }
}

fn child_count(node: &Node) -> usize {
    match &node.kind {
        NodeKind::Map(e) => e.len(),
        NodeKind::Seq(i) => i.len(),
        NodeKind::Scalar(..) => 0,
    }
}

/// Remove a list item or mapping value, and the containers it leaves empty.
fn doc_remove_item(
    text: &str,
    syntax: Syntax,
    file: FileId,
    item: Span,
) -> Result<Vec<TextEdit>, EditError> {
    let docs = parse_doc(text, syntax, file)?;
    let mut path = Vec::new();
    if !docs.iter().any(|d| {
        path.clear();
        path_to(d, item, &mut path)
    }) {
        return Err(EditError::NotFound);
    }
    let mut k = path.len().checked_sub(1).ok_or(EditError::NotFound)?;
    let mut levels = 0;
    while k > 0 && levels < 3 && child_count(path[k].0) == 1 {
        k -= 1;
        levels += 1;
    }
    let (container, index) = path[k];
    if child_count(container) == 1 {
        // The document would be left empty: not ours to decide.
        return Err(EditError::UnsupportedShape);
    }
    remove_child(text, container, index).map(|e| vec![e])
}

/// The edit that removes child `index` of `container`, with its comma
/// (flow and JSON) or its whole lines (YAML block style).
fn remove_child(text: &str, container: &Node, index: usize) -> Result<TextEdit, EditError> {
    let ranges: Vec<(usize, usize)> = match &container.kind {
        NodeKind::Map(entries) => entries
            .iter()
            .map(|e| {
                (
                    e.key.span.start as usize,
                    e.value.span.end.max(e.key.span.end) as usize,
                )
            })
            .collect(),
        NodeKind::Seq(items) => items
            .iter()
            .map(|n| (n.span.start as usize, n.span.end as usize))
            .collect(),
        NodeKind::Scalar(..) => return Err(EditError::UnsupportedShape),
    };
    let (start, end) = *ranges.get(index).ok_or(EditError::NotFound)?;
    let open = text.as_bytes().get(container.span.start as usize).copied();
    let flow = matches!(open, Some(b'[') | Some(b'{'));
    if flow {
        return Ok(match (ranges.get(index + 1), index.checked_sub(1)) {
            // The item and everything up to the next one: its comma, the line break.
            (Some(&(next, _)), _) => TextEdit {
                start,
                end: next,
                content: String::new(),
            },
            // The last one: from the end of the one before.
            (None, Some(p)) => TextEdit {
                start: ranges[p].1,
                end,
                content: String::new(),
            },
            (None, None) => return Err(EditError::UnsupportedShape),
        });
    }
    // Block style: the item's whole lines, `- ` or `key:` first on the line.
    let ls = line_start(text, start);
    let lead = text[ls..start].trim();
    if !(lead.is_empty() || (lead == "-" && matches!(container.kind, NodeKind::Seq(_)))) {
        return Err(EditError::UnsupportedShape);
    }
    let le = line_end(text, end);
    let le = if text[le..].starts_with("\r\n") {
        le + 2
    } else if text[le..].starts_with('\n') {
        le + 1
    } else {
        le
    };
    Ok(TextEdit {
        start: ls,
        end: le,
        content: String::new(),
    })
}

/// Apply non-overlapping edits to `text`; an edit that overlaps one
/// before it (in start order) is left out and reported by index.
pub fn apply(text: &str, edits: &[TextEdit]) -> (String, Vec<usize>) {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].start, edits[i].end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    let mut skipped = Vec::new();
    for i in order {
        let e = &edits[i];
        if e.start < at || e.end < e.start || e.end > text.len() {
            skipped.push(i);
            continue;
        }
        if !text.is_char_boundary(e.start) || !text.is_char_boundary(e.end) {
            skipped.push(i);
            continue;
        }
        out.push_str(&text[at..e.start]);
        out.push_str(&e.content);
        at = e.end;
    }
    out.push_str(&text[at..]);
    (out, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fid() -> FileId {
        FileId(0)
    }

    fn add(text: &str, syntax: Syntax, key: &str, on: &str) -> String {
        let at = text.find(key).unwrap();
        let span = Span::new(fid(), at, at + key.len());
        let change = Change::AddDependency {
            resource: span,
            on: on.into(),
        };
        let edits = resolve(&change, text, syntax, fid()).unwrap();
        apply(text, &edits).0
    }

    #[test]
    fn yaml_new_depends_on_after_type() {
        let t = "Resources:\n  B:\n    Type: AWS::EKS::FargateProfile # b\n    Properties:\n      X: 1\n";
        assert_eq!(
            add(t, Syntax::Yaml, "B:", "A"),
            "Resources:\n  B:\n    Type: AWS::EKS::FargateProfile # b\n    DependsOn: A\n    Properties:\n      X: 1\n"
        );
    }

    #[test]
    fn yaml_string_and_lists() {
        let t = "Resources:\n  B:\n    Type: X\n    DependsOn: C\n";
        assert_eq!(
            add(t, Syntax::Yaml, "B:", "A"),
            "Resources:\n  B:\n    Type: X\n    DependsOn: [C, A]\n"
        );
        let t = "Resources:\n  B:\n    Type: X\n    DependsOn:\n      - C\n    Properties: {}\n";
        assert_eq!(
            add(t, Syntax::Yaml, "B:", "A"),
            "Resources:\n  B:\n    Type: X\n    DependsOn:\n      - C\n      - A\n    Properties: {}\n"
        );
        let t = "Resources:\n  B:\n    Type: X\n    DependsOn: [C]\n";
        assert_eq!(
            add(t, Syntax::Yaml, "B:", "A"),
            "Resources:\n  B:\n    Type: X\n    DependsOn: [C, A]\n"
        );
        let t = "Resources:\n  B:\n    Type: X\n    DependsOn: [C, A]\n";
        assert_eq!(add(t, Syntax::Yaml, "B:", "A"), t);
    }

    #[test]
    fn json_keeps_indentation() {
        let t = "{\n  \"Resources\": {\n    \"B\": {\n      \"Type\": \"X\",\n      \"Properties\": {}\n    }\n  }\n}\n";
        assert_eq!(
            add(t, Syntax::Json, "\"B\"", "A"),
            "{\n  \"Resources\": {\n    \"B\": {\n      \"Type\": \"X\",\n      \"DependsOn\": \"A\",\n      \"Properties\": {}\n    }\n  }\n}\n"
        );
        let t = "{\"Resources\": {\"B\": {\"Type\": \"X\", \"DependsOn\": [\"C\"]}}}";
        assert_eq!(
            add(t, Syntax::Json, "\"B\"", "A"),
            "{\"Resources\": {\"B\": {\"Type\": \"X\", \"DependsOn\": [\"C\", \"A\"]}}}"
        );
    }

    #[test]
    fn hcl_new_and_merged_depends_on() {
        let t = "resource \"helm_release\" \"k\" {\n  name  = \"k\"\n  chart = \"k\"\n}\n";
        assert_eq!(
            add(t, Syntax::Hcl, "resource", "module.eks"),
            "resource \"helm_release\" \"k\" {\n  name  = \"k\"\n  chart = \"k\"\n\n  depends_on = [module.eks]\n}\n"
        );
        let t = "resource \"a\" \"b\" {\n  depends_on = [aws_x.y]\n}\n";
        assert_eq!(
            add(t, Syntax::Hcl, "resource", "module.eks"),
            "resource \"a\" \"b\" {\n  depends_on = [aws_x.y, module.eks]\n}\n"
        );
        let t = "resource \"a\" \"b\" {\n  depends_on = [\n    aws_x.y,\n  ]\n}\n";
        assert_eq!(
            add(t, Syntax::Hcl, "resource", "module.eks"),
            "resource \"a\" \"b\" {\n  depends_on = [\n    aws_x.y,\n    module.eks,\n  ]\n}\n"
        );
        let t = "resource \"a\" \"b\" {\n  depends_on = [module.eks]\n}\n";
        assert_eq!(add(t, Syntax::Hcl, "resource", "module.eks"), t);
    }

    #[test]
    fn crlf_files_get_crlf_lines() {
        let t = "Resources:\r\n  B:\r\n    Type: X\r\n";
        assert_eq!(
            add(t, Syntax::Yaml, "B:", "A"),
            "Resources:\r\n  B:\r\n    Type: X\r\n    DependsOn: A\r\n"
        );
    }

    #[test]
    fn remove_entry_takes_whole_lines() {
        let t = "s:\n  - namespace: kube-system\n    labels:\n      a: b\n  - namespace: x\n";
        let at = t.find("labels").unwrap();
        let change = Change::RemoveEntry {
            key: Span::new(fid(), at, at + 6),
        };
        let edits = resolve(&change, t, Syntax::Yaml, fid()).unwrap();
        assert_eq!(
            apply(t, &edits).0,
            "s:\n  - namespace: kube-system\n  - namespace: x\n"
        );
    }

    fn remove_item(text: &str, syntax: Syntax, item: &str) -> String {
        let at = text.find(item).unwrap();
        let change = Change::RemoveItem {
            item: Span::new(fid(), at, at + item.len()),
        };
        let edits = resolve(&change, text, syntax, fid()).unwrap();
        apply(text, &edits).0
    }

    #[test]
    fn remove_item_takes_its_comma_or_its_emptied_parents() {
        let t = "A:\n  Type: X\n  Metadata:\n    fplint:\n      ignore: [FP003, FP004]\n";
        assert_eq!(
            remove_item(t, Syntax::Yaml, "FP003"),
            "A:\n  Type: X\n  Metadata:\n    fplint:\n      ignore: [FP004]\n"
        );
        assert_eq!(
            remove_item(t, Syntax::Yaml, "FP004"),
            "A:\n  Type: X\n  Metadata:\n    fplint:\n      ignore: [FP003]\n"
        );
        let t = "A:\n  Metadata:\n    fplint:\n      ignore:\n        - FP003\n  Type: X\n";
        assert_eq!(remove_item(t, Syntax::Yaml, "FP003"), "A:\n  Type: X\n");
        let t = "{\"A\": {\"Type\": \"X\",\n  \"Metadata\": {\"fplint\": {\"ignore\": [\n    \"FP003\",\n    \"FP004\"\n  ]}}}}";
        assert_eq!(
            remove_item(t, Syntax::Json, "\"FP004\""),
            "{\"A\": {\"Type\": \"X\",\n  \"Metadata\": {\"fplint\": {\"ignore\": [\n    \"FP003\"\n  ]}}}}"
        );
        assert_eq!(
            remove_item(
                "{\"A\": {\"Type\": \"X\", \"Metadata\": {\"fplint\": {\"ignore\": \"FP003\"}}}}",
                Syntax::Json,
                "\"FP003\""
            ),
            "{\"A\": {\"Type\": \"X\"}}"
        );
    }

    #[test]
    fn overlapping_edits_are_deferred() {
        let edits = vec![
            TextEdit {
                start: 0,
                end: 3,
                content: "x".into(),
            },
            TextEdit {
                start: 2,
                end: 4,
                content: "y".into(),
            },
        ];
        assert_eq!(apply("abcdef", &edits), ("xdef".to_string(), vec![1]));
    }
}
