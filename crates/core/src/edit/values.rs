//! A Helm release's values: an item appended to a top-level list (a
//! chart's `tolerations`) in a YAML heredoc or a `yamlencode({..})` object,
//! each written in its own style.

use super::config::{escape_double, hcl_values, newline_len, object_items, shift, DocEdit};
use super::*;
use hcl_edit::expr::Object;

pub(super) fn append_item(
    text: &str,
    at: Span,
    key: &str,
    item: &[(String, String)],
) -> Result<Vec<TextEdit>, EditError> {
    let body = hcl_edit::parser::parse_body(text).map_err(|_| EditError::Unparsable)?;
    let mut values = Vec::new();
    hcl_values(&body, &mut values);
    let entry = values
        .iter()
        .filter(|(name, _)| name == "values")
        .find_map(|(_, e)| match e {
            Expression::Array(a) => a
                .iter()
                .find(|x| x.span().is_some_and(|r| r.start == at.start as usize)),
            _ => None,
        })
        .ok_or(EditError::NotFound)?;
    let span = entry.span().ok_or(EditError::NotFound)?;
    match entry {
        Expression::HeredocTemplate(_) => {
            // Directives make the document only known at plan time.
            if text[span.clone()].contains("%{") {
                return Err(EditError::UnsupportedShape);
            }
            let body = line_end(text, span.start);
            let body = body + newline_len(text, body);
            let close = line_start(text, span.end.saturating_sub(1));
            if body >= close {
                return Err(EditError::UnsupportedShape);
            }
            let edits =
                yaml_append(&text[body..close], key, item).ok_or(EditError::UnsupportedShape)?;
            Ok(shift(body, edits))
        }
        Expression::FuncCall(f) if f.name.name.as_str() == "yamlencode" && f.args.len() == 1 => {
            match f.args.iter().next() {
                Some(Expression::Object(o)) => object_append(text, o, key, item),
                _ => Err(EditError::UnsupportedShape),
            }
        }
        _ => Err(EditError::UnsupportedShape),
    }
}

/// A YAML scalar: plain when it reads back as the same string.
fn yaml_plain(s: &str) -> String {
    let plain = s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && !matches!(s, "true" | "false" | "null" | "yes" | "no" | "on" | "off")
        && s.parse::<f64>().is_err();
    if plain {
        s.to_string()
    } else {
        quote_json(s)
    }
}

/// The item's lines: `- k: v` at `dash`, the other keys at `col`.
fn yaml_item(nl: &str, dash: usize, col: usize, item: &[(String, String)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in item.iter().enumerate() {
        let lead = if i == 0 {
            format!("{}- ", " ".repeat(dash))
        } else {
            " ".repeat(col)
        };
        out.push_str(&format!("{nl}{lead}{k}: {}", yaml_plain(v)));
    }
    out
}

/// A YAML block mapping with `item` appended to its block sequence `key`,
/// or `key` added after the last entry.
fn yaml_append(doc: &str, key: &str, item: &[(String, String)]) -> Option<Vec<DocEdit>> {
    let root = super::config::single_document(doc)?;
    let NodeKind::Map(entries) = &root.kind else {
        return None;
    };
    let first = entries.first()?;
    if doc[root.span.start as usize..].starts_with('{')
        || !first_on_line(doc, first.key.span.start as usize)
    {
        return None;
    }
    let nl = newline(doc);
    if let Some(e) = entries.iter().rev().find(|e| e.key.as_str() == Some(key)) {
        let NodeKind::Seq(items) = &e.value.kind else {
            return None;
        };
        let last = items.last()?;
        let start = last.span.start as usize;
        if doc[e.value.span.start as usize..].starts_with('[') {
            return None;
        }
        let dash = doc[..start].trim_end_matches(' ');
        if !dash.ends_with('-') || !first_on_line(doc, dash.len() - 1) {
            return None;
        }
        let dash_col = dash.len() - 1 - line_start(doc, start);
        let col = start - line_start(doc, start);
        let at = line_end(doc, last.span.end as usize);
        return Some(vec![(at, at, yaml_item(nl, dash_col, col, item))]);
    }
    let last = entries.last()?;
    let at = line_end(doc, last.value.span.end.max(last.key.span.end) as usize);
    let indent = indent_of(doc, first.key.span.start as usize).len();
    let content = format!(
        "{nl}{}{key}:{}",
        " ".repeat(indent),
        yaml_item(nl, indent + 2, indent + 4, item)
    );
    Some(vec![(at, at, content)])
}

/// `{ k = "v", .. }` over several lines at `indent`, keys aligned.
fn hcl_object(nl: &str, indent: &str, item: &[(String, String)]) -> String {
    let width = item.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::from("{");
    for (k, v) in item {
        let pad = " ".repeat(width - k.len());
        out.push_str(&format!(
            "{nl}{indent}  {k}{pad} = {}",
            escape_double(v, true)
        ));
    }
    out.push_str(&format!("{nl}{indent}}}"));
    out
}

/// `yamlencode({..})`: `item` appended to the list `key`, or `key = [item]`
/// added to the object.
fn object_append(
    text: &str,
    o: &Object,
    key: &str,
    item: &[(String, String)],
) -> Result<Vec<TextEdit>, EditError> {
    let items = object_items(o).ok_or(EditError::UnsupportedShape)?;
    let span = o.span().ok_or(EditError::UnsupportedShape)?;
    let nl = newline(text);
    if let Some(i) = items.iter().rposition(|(k, _, _)| k == key) {
        let Some((_, v)) = o.iter().nth(i) else {
            return Err(EditError::NotFound);
        };
        let Expression::Array(list) = v.expr() else {
            return Err(EditError::UnsupportedShape);
        };
        let last = list.iter().last().ok_or(EditError::UnsupportedShape)?;
        let ls = last.span().ok_or(EditError::UnsupportedShape)?;
        if !matches!(last, Expression::Object(_)) || !text[ls.clone()].contains('\n') {
            return Err(EditError::UnsupportedShape);
        }
        if first_on_line(text, ls.start) {
            // One object a line: the new one on its own line after it.
            let indent = indent_of(text, ls.start).to_string();
            let obj = hcl_object(nl, &indent, item);
            let rest = &text[ls.end..];
            let trimmed = rest.trim_start_matches([' ', '\t']);
            let (at, content) = match trimmed.strip_prefix(',') {
                Some(_) => {
                    let at = ls.end + (rest.len() - trimmed.len()) + 1;
                    (at, format!("{nl}{indent}{obj},"))
                }
                None => (ls.end, format!(",{nl}{indent}{obj}")),
            };
            return Ok(vec![TextEdit {
                start: at,
                end: at,
                content,
            }]);
        }
        // `[{ .. }]`: the new object laid out as the last one, `}, {`.
        let indent = indent_of(text, ls.end.saturating_sub(1)).to_string();
        let content = format!(", {}", hcl_object(nl, &indent, item));
        return Ok(vec![TextEdit {
            start: ls.end,
            end: ls.end,
            content,
        }]);
    }
    if !text[span.clone()].contains('\n') {
        return Err(EditError::UnsupportedShape);
    }
    let (_, last, _) = items.last().ok_or(EditError::UnsupportedShape)?;
    if !first_on_line(text, last.key.0) {
        return Err(EditError::UnsupportedShape);
    }
    // A value over several lines joins no alignment group in `terraform fmt`.
    let indent = indent_of(text, last.key.0).to_string();
    let at = line_end(text, last.end);
    let comma = if text[last.end..at].trim_start().starts_with(',') {
        ","
    } else {
        ""
    };
    let value = format!("[{}]", hcl_object(nl, &indent, item));
    Ok(vec![TextEdit {
        start: at,
        end: at,
        content: format!("{nl}{indent}{key} = {value}{comma}"),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol() -> Vec<(String, String)> {
        [
            ("key", "eks.amazonaws.com/compute-type"),
            ("operator", "Equal"),
            ("value", "fargate"),
            ("effect", "NoSchedule"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    fn appended(doc: &str) -> Option<String> {
        let edits = yaml_append(doc, "tolerations", &tol())?;
        let edits: Vec<TextEdit> = edits
            .into_iter()
            .map(|(start, end, content)| TextEdit {
                start,
                end,
                content,
            })
            .collect();
        Some(apply(doc, &edits).0)
    }

    #[test]
    fn yaml_new_list_and_merged_list() {
        assert_eq!(
            appended("  a: 1\n").as_deref(),
            Some("  a: 1\n  tolerations:\n    - key: eks.amazonaws.com/compute-type\n      operator: Equal\n      value: fargate\n      effect: NoSchedule\n")
        );
        assert_eq!(
            appended("tolerations:\n- key: a\n  operator: Exists\n").as_deref(),
            Some("tolerations:\n- key: a\n  operator: Exists\n- key: eks.amazonaws.com/compute-type\n  operator: Equal\n  value: fargate\n  effect: NoSchedule\n")
        );
        // Flow styles are left alone.
        assert_eq!(appended("{a: 1}\n"), None);
        assert_eq!(appended("tolerations: []\n"), None);
        assert_eq!(yaml_plain("true"), "\"true\"");
    }
}
