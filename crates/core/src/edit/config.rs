//! Add-on configuration values: a key merged into the JSON or YAML document
//! a string holds (YAML, JSON, HCL strings and heredocs), or into a
//! Terraform `jsonencode({..})` object, each in its own style.

use super::*;
use crate::tree::ScalarStyle;
use hcl_edit::expr::{Object, ObjectKey};

/// One edit inside a document, in the document's own coordinates.
pub(super) type DocEdit = (usize, usize, String);

pub(super) fn set_value(
    text: &str,
    syntax: Syntax,
    file: FileId,
    at: Span,
    key: &str,
    value: &str,
) -> Result<Vec<TextEdit>, EditError> {
    match syntax {
        Syntax::Hcl => hcl_set(text, at, key, value),
        _ => doc_set(text, syntax, file, at, key, value),
    }
}

pub(super) fn add_values(
    text: &str,
    syntax: Syntax,
    file: FileId,
    addon: Span,
    key: &str,
    value: &str,
) -> Result<Vec<TextEdit>, EditError> {
    match syntax {
        Syntax::Hcl => hcl_add(text, addon, key, value),
        _ => doc_add(text, syntax, file, addon, key, value),
    }
}

/// A JSON document's top-level object with `key` set to `value`: the
/// existing value replaced, or a new member after the last one, written
/// with the document's own separators and indentation.
fn json_merge(doc: &str, key: &str, value: &str) -> Option<Vec<DocEdit>> {
    let parsed = tree::json::parse(doc, FileId(0), Limits::default());
    if parsed.error.is_some() {
        return None;
    }
    let root = parsed.documents.first()?;
    let NodeKind::Map(entries) = &root.kind else {
        return None;
    };
    let (k, v) = (quote_json(key), quote_json(value));
    if let Some(e) = entries.iter().find(|e| e.key.as_str() == Some(key)) {
        return Some(vec![(
            e.value.span.start as usize,
            e.value.span.end as usize,
            v,
        )]);
    }
    let Some(last) = entries.last() else {
        let (s, e) = (root.span.start as usize, root.span.end as usize);
        return Some(vec![(s, e, format!("{{{k}: {v}}}"))]);
    };
    let kend = last.key.span.end as usize;
    let vstart = last.value.span.start as usize;
    let end = last.value.span.end as usize;
    let colon = doc.get(kend..vstart)?;
    let first = entries.first()?;
    let content = if doc[root.span.start as usize..end].contains('\n') {
        format!(
            ",{}{}{k}{colon}{v}",
            newline(doc),
            indent_of(doc, last.key.span.start as usize)
        )
    } else {
        // `{"a": 1, "b": 2}` or `{"a":1,"b":2}`: as between the first two.
        let sep = match entries.get(1) {
            Some(second) => doc
                .get(first.value.span.end as usize..second.key.span.start as usize)?
                .to_string(),
            None if colon.ends_with(' ') => ", ".to_string(),
            None => ",".to_string(),
        };
        format!("{sep}{k}{colon}{v}")
    };
    Some(vec![(end, end, content)])
}

/// A YAML block mapping with `key` set: the value replaced, or a new line
/// after the last entry, at the entries' indentation.
/// The one YAML document of `doc`, when it parses cleanly and is alone.
pub(super) fn single_document(doc: &str) -> Option<tree::Node> {
    let parsed = tree::yaml::parse(doc, FileId(0), Limits::default());
    if parsed.error.is_some() || parsed.documents.len() != 1 {
        return None;
    }
    parsed.documents.into_iter().next()
}

fn yaml_merge(doc: &str, key: &str, value: &str) -> Option<Vec<DocEdit>> {
    let root = single_document(doc)?;
    let NodeKind::Map(entries) = &root.kind else {
        return None;
    };
    if doc[root.span.start as usize..].starts_with('{') {
        return None;
    }
    if let Some(e) = entries.iter().find(|e| e.key.as_str() == Some(key)) {
        return Some(vec![(
            e.value.span.start as usize,
            e.value.span.end as usize,
            value.to_string(),
        )]);
    }
    let last = entries.last()?;
    let at = line_end(doc, last.value.span.end.max(last.key.span.end) as usize);
    let indent = indent_of(doc, entries.first()?.key.span.start as usize);
    Some(vec![(
        at,
        at,
        format!("{}{indent}{key}: {value}", newline(doc)),
    )])
}

/// JSON when it opens with `{`, otherwise a YAML block mapping.
fn merge(doc: &str, key: &str, value: &str) -> Option<Vec<DocEdit>> {
    if doc.trim_start().starts_with('{') {
        json_merge(doc, key, value)
    } else {
        yaml_merge(doc, key, value)
    }
}

fn apply_doc(doc: &str, edits: &[DocEdit]) -> String {
    let edits: Vec<TextEdit> = edits
        .iter()
        .map(|(s, e, c)| TextEdit {
            start: *s,
            end: *e,
            content: c.clone(),
        })
        .collect();
    apply(doc, &edits).0
}

/// Edits of a document held raw (a block scalar, a heredoc) at `base`.
pub(super) fn shift(base: usize, edits: Vec<DocEdit>) -> Vec<TextEdit> {
    edits
        .into_iter()
        .map(|(s, e, content)| TextEdit {
            start: base + s,
            end: base + e,
            content,
        })
        .collect()
}

/// A string escaped the way JSON, YAML double quotes and HCL share.
pub(super) fn escape_double(s: &str, hcl: bool) -> String {
    let q = quote_json(s);
    if hcl {
        q.replace("${", "$${").replace("%{", "%%{")
    } else {
        q
    }
}

/// YAML or JSON: the scalar at `at` holds the document.
fn doc_set(
    text: &str,
    syntax: Syntax,
    file: FileId,
    at: Span,
    key: &str,
    value: &str,
) -> Result<Vec<TextEdit>, EditError> {
    let docs = parse_doc(text, syntax, file)?;
    let mut path = Vec::new();
    if !docs.iter().any(|d| {
        path.clear();
        path_to(d, at, &mut path)
    }) {
        return Err(EditError::NotFound);
    }
    let (container, index) = *path.last().ok_or(EditError::NotFound)?;
    let node = match &container.kind {
        NodeKind::Map(e) => &e.get(index).ok_or(EditError::NotFound)?.value,
        NodeKind::Seq(i) => i.get(index).ok_or(EditError::NotFound)?,
        NodeKind::Scalar(..) => return Err(EditError::NotFound),
    };
    let NodeKind::Scalar(decoded, style) = &node.kind else {
        return Err(EditError::UnsupportedShape);
    };
    if node.tag.is_some() {
        // `!Sub`: what it holds is only known at deployment.
        return Err(EditError::UnsupportedShape);
    }
    let (s, e) = (node.span.start as usize, node.span.end as usize);
    let raw = text.get(s..e).ok_or(EditError::NotFound)?;
    if *style == ScalarStyle::Block {
        // A literal block (`|`): the document is its lines, as written.
        let body = line_start(text, s);
        let header = text[..body].trim_end();
        let header = header[line_start(header, header.len())..].trim_end();
        if !(header.ends_with('|') || header.ends_with("|-") || header.ends_with("|+")) {
            return Err(EditError::UnsupportedShape);
        }
        let edits = merge(&text[body..e], key, value).ok_or(EditError::UnsupportedShape)?;
        return Ok(shift(body, edits));
    }
    match raw.chars().next() {
        Some(q @ ('"' | '\'')) if !raw.contains('\n') && decoded.trim_start().starts_with('{') => {
            let edits = json_merge(decoded, key, value).ok_or(EditError::UnsupportedShape)?;
            let new = apply_doc(decoded, &edits);
            let content = if q == '"' {
                escape_double(&new, false)
            } else {
                format!("'{}'", new.replace('\'', "''"))
            };
            Ok(vec![TextEdit {
                start: s,
                end: e,
                content,
            }])
        }
        _ => Err(EditError::UnsupportedShape),
    }
}

pub(super) fn newline_len(text: &str, at: usize) -> usize {
    if text[at..].starts_with("\r\n") {
        2
    } else if text[at..].starts_with('\n') {
        1
    } else {
        0
    }
}

/// YAML or JSON: a new `ConfigurationValues` (CloudFormation, under
/// `Properties`) or `configurationValues` (eksctl add-on) entry.
fn doc_add(
    text: &str,
    syntax: Syntax,
    file: FileId,
    addon: Span,
    key: &str,
    value: &str,
) -> Result<Vec<TextEdit>, EditError> {
    let docs = parse_doc(text, syntax, file)?;
    let (map, name) = match docs.iter().find_map(|d| find_entry(d, addon.start)) {
        Some(resource) => (
            resource
                .value
                .get("Properties")
                .ok_or(EditError::UnsupportedShape)?,
            "ConfigurationValues",
        ),
        None => (
            docs.iter()
                .find_map(|d| find_map_at(d, addon.start))
                .ok_or(EditError::NotFound)?,
            "configurationValues",
        ),
    };
    let NodeKind::Map(entries) = &map.kind else {
        return Err(EditError::UnsupportedShape);
    };
    let last = entries.last().ok_or(EditError::UnsupportedShape)?;
    let doc = format!("{{{}: {}}}", quote_json(key), quote_json(value));
    let nl = newline(text);
    let flow = text[map.span.start as usize..].starts_with('{');
    let end = last.value.span.end.max(last.key.span.end) as usize;
    let indent = indent_of(text, last.key.span.start as usize);
    let entry = match syntax {
        Syntax::Json => format!("{}: {}", quote_json(name), quote_json(&doc)),
        _ => format!("{name}: '{doc}'"),
    };
    let (at, content) = if flow && !first_on_line(text, last.key.span.start as usize) {
        (end, format!(", {entry}"))
    } else if flow {
        (end, format!(",{nl}{indent}{entry}"))
    } else {
        if !first_on_line(text, last.key.span.start as usize) {
            return Err(EditError::UnsupportedShape);
        }
        (line_end(text, end), format!("{nl}{indent}{entry}"))
    };
    Ok(vec![TextEdit {
        start: at,
        end: at,
        content,
    }])
}

fn find_map_at(node: &Node, start: u32) -> Option<&Node> {
    match &node.kind {
        NodeKind::Map(entries) => {
            if node.span.start == start {
                return Some(node);
            }
            entries.iter().find_map(|e| find_map_at(&e.value, start))
        }
        NodeKind::Seq(items) => items.iter().find_map(|n| find_map_at(n, start)),
        NodeKind::Scalar(..) => None,
    }
}

/// Every expression in an HCL body, with the name of the attribute or
/// object key it is the value of; blocks and objects searched deeply.
pub(super) fn hcl_values<'a>(
    body: &'a hcl_edit::structure::Body,
    out: &mut Vec<(String, &'a Expression)>,
) {
    for s in body.iter() {
        match s {
            Structure::Attribute(a) => {
                out.push((a.key.as_str().to_string(), &a.value));
                expr_values(&a.value, out, 0);
            }
            Structure::Block(b) => hcl_values(&b.body, out),
        }
    }
}

fn expr_values<'a>(e: &'a Expression, out: &mut Vec<(String, &'a Expression)>, depth: usize) {
    if depth > 16 {
        return;
    }
    match e {
        Expression::Object(o) => {
            for (k, v) in o.iter() {
                out.push((key_name(k).unwrap_or_default(), v.expr()));
                expr_values(v.expr(), out, depth + 1);
            }
        }
        Expression::Array(a) => a.iter().for_each(|x| expr_values(x, out, depth + 1)),
        Expression::FuncCall(f) => f.args.iter().for_each(|x| expr_values(x, out, depth + 1)),
        Expression::Parenthesis(p) => expr_values(p.inner(), out, depth + 1),
        _ => {}
    }
}

fn key_name(k: &ObjectKey) -> Option<String> {
    match k {
        ObjectKey::Ident(i) => Some(i.as_str().to_string()),
        ObjectKey::Expression(Expression::String(s)) => Some(s.as_str().to_string()),
        ObjectKey::Expression(_) => None,
    }
}

/// Terraform: `configuration_values` written as `jsonencode({..})`, a
/// JSON string, or a heredoc without interpolation.
fn hcl_set(text: &str, at: Span, key: &str, value: &str) -> Result<Vec<TextEdit>, EditError> {
    let body = hcl_edit::parser::parse_body(text).map_err(|_| EditError::Unparsable)?;
    let mut values = Vec::new();
    hcl_values(&body, &mut values);
    let expr = values
        .iter()
        .find(|(name, e)| {
            name == "configuration_values" && e.span().is_some_and(|r| r.start == at.start as usize)
        })
        .map(|(_, e)| *e)
        .ok_or(EditError::NotFound)?;
    let span = expr.span().ok_or(EditError::NotFound)?;
    match expr {
        Expression::FuncCall(f) if f.name.name.as_str() == "jsonencode" && f.args.len() == 1 => {
            match f.args.iter().next() {
                Some(Expression::Object(o)) => {
                    hcl_object_set(text, o, key, &format!("\"{value}\""))
                }
                _ => Err(EditError::UnsupportedShape),
            }
        }
        Expression::String(s) if s.trim_start().starts_with('{') => {
            let raw = &text[span.clone()];
            if raw.contains('\n') {
                return Err(EditError::UnsupportedShape);
            }
            let edits = json_merge(s, key, value).ok_or(EditError::UnsupportedShape)?;
            Ok(vec![TextEdit {
                start: span.start,
                end: span.end,
                content: escape_double(&apply_doc(s, &edits), true),
            }])
        }
        Expression::HeredocTemplate(_) => {
            // `<<EOT` .. `EOT`: the lines between are the document, as written.
            let raw = &text[span.clone()];
            if raw.contains("${") || raw.contains("%{") {
                return Err(EditError::UnsupportedShape);
            }
            let body = line_end(text, span.start);
            let body = body + newline_len(text, body);
            let close = line_start(text, span.end.saturating_sub(1));
            if body > close {
                return Err(EditError::UnsupportedShape);
            }
            let edits =
                json_merge(&text[body..close], key, value).ok_or(EditError::UnsupportedShape)?;
            Ok(shift(body, edits))
        }
        _ => Err(EditError::UnsupportedShape),
    }
}

/// One item of an HCL body or object: key start and end, value end.
#[derive(Clone, Copy)]
pub(super) struct Item {
    pub(super) key: (usize, usize),
    pub(super) end: usize,
}

pub(super) fn object_items(o: &Object) -> Option<Vec<(String, Item, std::ops::Range<usize>)>> {
    o.iter()
        .map(|(k, v)| {
            let ks = k.span()?;
            let vs = v.expr().span()?;
            Some((
                key_name(k).unwrap_or_default(),
                Item {
                    key: (ks.start, ks.end),
                    end: vs.end,
                },
                vs,
            ))
        })
        .collect()
}

/// `key = value` in an HCL object: the value replaced, or a new item.
fn hcl_object_set(
    text: &str,
    o: &Object,
    key: &str,
    value: &str,
) -> Result<Vec<TextEdit>, EditError> {
    let items = object_items(o).ok_or(EditError::UnsupportedShape)?;
    if let Some((_, _, vs)) = items.iter().find(|(k, _, _)| k == key) {
        return Ok(vec![TextEdit {
            start: vs.start,
            end: vs.end,
            content: value.to_string(),
        }]);
    }
    let span = o.span().ok_or(EditError::UnsupportedShape)?;
    let list: Vec<Item> = items.iter().map(|(_, i, _)| *i).collect();
    hcl_insert(text, span, &list, list.len().checked_sub(1), key, value)
}

/// A new `key = value` after item `after` (or in an empty `{}`), aligned
/// as `terraform fmt` aligns the run of one-line items it joins.
pub(super) fn hcl_insert(
    text: &str,
    container: std::ops::Range<usize>,
    items: &[Item],
    after: Option<usize>,
    key: &str,
    value: &str,
) -> Result<Vec<TextEdit>, EditError> {
    let nl = newline(text);
    let Some(a) = after else {
        // `{}`: one line.
        let inner = text
            .get(container.start + 1..container.end - 1)
            .unwrap_or("");
        if !inner.trim().is_empty() || inner.contains('\n') {
            return Err(EditError::UnsupportedShape);
        }
        return Ok(vec![TextEdit {
            start: container.start,
            end: container.end,
            content: format!("{{ {key} = {value} }}"),
        }]);
    };
    let last = items.get(a).ok_or(EditError::NotFound)?;
    if !text[container.clone()].contains('\n') {
        return Ok(vec![TextEdit {
            start: last.end,
            end: last.end,
            content: format!(", {key} = {value}"),
        }]);
    }
    if !first_on_line(text, last.key.0) {
        return Err(EditError::UnsupportedShape);
    }
    let line = |at: usize| text[..at].matches('\n').count();
    let one_line = |i: &Item| line(i.key.0) == line(i.end);
    // The run of one-line items on consecutive lines around `after`.
    let mut lo = a;
    while lo > 0
        && one_line(&items[lo])
        && one_line(&items[lo - 1])
        && line(items[lo - 1].key.0) + 1 == line(items[lo].key.0)
    {
        lo -= 1;
    }
    let mut hi = a;
    while hi + 1 < items.len()
        && one_line(&items[hi])
        && one_line(&items[hi + 1])
        && line(items[hi].key.0) + 1 == line(items[hi + 1].key.0)
    {
        hi += 1;
    }
    let group: Vec<Item> = if one_line(last) {
        items[lo..=hi].to_vec()
    } else {
        Vec::new()
    };
    let indent = indent_of(text, last.key.0).to_string();
    let col = |i: &Item| i.key.1 - line_start(text, i.key.0);
    let width = group
        .iter()
        .map(col)
        .chain(std::iter::once(indent.len() + key.len()))
        .max()
        .unwrap_or(0);
    let mut edits = Vec::new();
    for i in &group {
        let eq = text[i.key.1..i.end].find('=').map(|p| i.key.1 + p);
        let Some(eq) = eq else { continue };
        let pad = " ".repeat(width - col(i) + 1);
        if text[i.key.1..eq] != pad {
            edits.push(TextEdit {
                start: i.key.1,
                end: eq,
                content: pad,
            });
        }
    }
    let at = line_end(text, last.end);
    let comma = if text[last.end..at].trim_start().starts_with(',') {
        ","
    } else {
        ""
    };
    let pad = " ".repeat(width - indent.len() - key.len() + 1);
    edits.push(TextEdit {
        start: at,
        end: at,
        content: format!("{nl}{indent}{key}{pad}= {value}{comma}"),
    });
    Ok(edits)
}

/// Terraform: `configuration_values = jsonencode({ key = value })` on an
/// `aws_eks_addon` block (after `addon_name`), or on a terraform-aws-eks
/// add-on's object.
fn hcl_add(text: &str, addon: Span, key: &str, value: &str) -> Result<Vec<TextEdit>, EditError> {
    let body = hcl_edit::parser::parse_body(text).map_err(|_| EditError::Unparsable)?;
    let new = format!("jsonencode({{ {key} = \"{value}\" }})");
    if let Some(block) = find_block(body.iter(), addon.start as usize, 0) {
        let span = block.span().ok_or(EditError::NotFound)?;
        let mut items = Vec::new();
        let mut after = None;
        for s in block.body.iter() {
            let Structure::Attribute(a) = s else { continue };
            let (Some(ks), Some(vs)) = (a.key.span(), a.value.span()) else {
                return Err(EditError::UnsupportedShape);
            };
            if a.key.as_str() == "addon_name" {
                after = Some(items.len());
            }
            items.push(Item {
                key: (ks.start, ks.end),
                end: vs.end,
            });
        }
        let after = after.or(items.len().checked_sub(1));
        let open = text[span.clone()].find('{').map(|p| span.start + p);
        let open = open.ok_or(EditError::UnsupportedShape)?;
        return hcl_insert(
            text,
            open..span.end,
            &items,
            after,
            "configuration_values",
            &new,
        );
    }
    // A terraform-aws-eks add-on: `coredns = { .. }`, found by its key.
    let mut values = Vec::new();
    hcl_values(&body, &mut values);
    for (_, e) in &values {
        let Expression::Object(o) = e else { continue };
        for (k, v) in o.iter() {
            if k.span().is_some_and(|r| r.start == addon.start as usize) {
                let Expression::Object(inner) = v.expr() else {
                    return Err(EditError::UnsupportedShape);
                };
                return hcl_object_set(text, inner, "configuration_values", &new);
            }
        }
    }
    Err(EditError::NotFound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(doc: &str) -> String {
        apply_doc(doc, &merge(doc, "computeType", "Fargate").unwrap())
    }

    #[test]
    fn json_keeps_its_own_style() {
        assert_eq!(merged("{}"), r#"{"computeType": "Fargate"}"#);
        assert_eq!(
            merged(r#"{"a":1,"b":2}"#),
            r#"{"a":1,"b":2,"computeType":"Fargate"}"#
        );
        assert_eq!(
            merged(r#"{"a": 1}"#),
            r#"{"a": 1, "computeType": "Fargate"}"#
        );
        assert_eq!(
            merged("{\n    \"a\": 1\n}"),
            "{\n    \"a\": 1,\n    \"computeType\": \"Fargate\"\n}"
        );
        assert_eq!(
            merged(r#"{"computeType": "EC2", "a": 1}"#),
            r#"{"computeType": "Fargate", "a": 1}"#
        );
        assert_eq!(
            merged("a: 1\nb:\n  c: 2\n"),
            "a: 1\nb:\n  c: 2\ncomputeType: Fargate\n"
        );
        assert!(merge("[1]", "computeType", "Fargate").is_none());
    }

    fn set_hcl(text: &str) -> String {
        let at = text
            .find("jsonencode")
            .or_else(|| text.find("= \""))
            .unwrap();
        let at = if text[at..].starts_with('=') {
            at + 2
        } else {
            at
        };
        let edits = set_value(
            text,
            Syntax::Hcl,
            FileId(0),
            Span::new(FileId(0), at, at),
            "computeType",
            "Fargate",
        )
        .unwrap();
        apply(text, &edits).0
    }

    #[test]
    fn hcl_objects_and_strings() {
        assert_eq!(
            set_hcl("a = { configuration_values = jsonencode({}) }\n"),
            "a = { configuration_values = jsonencode({ computeType = \"Fargate\" }) }\n"
        );
        assert_eq!(
            set_hcl("configuration_values = jsonencode({ a = 1 })\n"),
            "configuration_values = jsonencode({ a = 1, computeType = \"Fargate\" })\n"
        );
        assert_eq!(
            set_hcl("configuration_values = jsonencode({\n  replicas = 2\n  x = { y = 1 }\n})\n"),
            "configuration_values = jsonencode({\n  replicas    = 2\n  x           = { y = 1 }\n  computeType = \"Fargate\"\n})\n"
        );
        assert_eq!(
            set_hcl("configuration_values = \"{\\\"a\\\": 1}\"\n"),
            "configuration_values = \"{\\\"a\\\": 1, \\\"computeType\\\": \\\"Fargate\\\"}\"\n"
        );
        // Interpolation: the value is only known at plan time.
        let t = "configuration_values = \"{\\\"a\\\": \\\"${var.x}\\\"}\"\n";
        let at = t.find('"').unwrap();
        let span = Span::new(FileId(0), at, at);
        assert!(set_value(t, Syntax::Hcl, FileId(0), span, "computeType", "Fargate").is_err());
    }
}
