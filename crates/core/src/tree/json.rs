//! JSON into the spanned tree, with jsonc-parser in strict mode.

use super::{find_duplicates, Entry, Limits, Node, NodeKind, Parsed, ScalarStyle, TreeError};
use crate::source::{FileId, Span};
use jsonc_parser::ast::{ObjectPropName, Value};
use jsonc_parser::{CollectOptions, ParseOptions};

fn strict() -> ParseOptions {
    ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// Deepest bracket nesting outside strings, found before the recursive parser
/// runs so that hostile nesting cannot overflow the stack.
fn nesting_depth_exceeds(text: &str, max: usize) -> Option<usize> {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Parse one JSON document.
pub fn parse(text: &str, file: FileId, limits: Limits) -> Parsed {
    let mut out = Parsed::default();
    if let Some(at) = nesting_depth_exceeds(text, limits.max_depth) {
        out.error = Some(TreeError {
            message: format!(
                "nesting deeper than {} levels (limits.max-depth)",
                limits.max_depth
            ),
            span: Span::new(file, at, at + 1),
        });
        return out;
    }
    match jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &strict()) {
        Ok(result) => {
            if let Some(v) = result.value {
                out.documents.push(convert(v, file, &mut out.duplicates));
            }
        }
        Err(err) => {
            let r = err.range();
            out.error = Some(TreeError {
                message: format!("invalid JSON: {}", err.kind()),
                span: Span::new(file, r.start, r.end),
            });
        }
    }
    out
}

fn convert(v: Value<'_>, file: FileId, dups: &mut Vec<crate::tree::DuplicateKey>) -> Node {
    let scalar = |s: &str, style, r: jsonc_parser::common::Range| Node {
        kind: NodeKind::Scalar(s.into(), style),
        span: Span::new(file, r.start, r.end),
        tag: None,
    };
    match v {
        Value::StringLit(s) => scalar(&s.value, ScalarStyle::Quoted, s.range),
        Value::NumberLit(n) => scalar(n.value, ScalarStyle::Plain, n.range),
        Value::BooleanLit(b) => scalar(
            if b.value { "true" } else { "false" },
            ScalarStyle::Plain,
            b.range,
        ),
        Value::NullKeyword(n) => scalar("null", ScalarStyle::Plain, n.range),
        Value::Array(a) => Node {
            kind: NodeKind::Seq(
                a.elements
                    .into_iter()
                    .map(|e| convert(e, file, dups))
                    .collect(),
            ),
            span: Span::new(file, a.range.start, a.range.end),
            tag: None,
        },
        Value::Object(o) => {
            let entries: Vec<Entry> = o
                .properties
                .into_iter()
                .map(|p| {
                    let key = match p.name {
                        ObjectPropName::String(s) => scalar(&s.value, ScalarStyle::Quoted, s.range),
                        ObjectPropName::Word(w) => scalar(w.value, ScalarStyle::Plain, w.range),
                    };
                    Entry {
                        key,
                        value: convert(p.value, file, dups),
                    }
                })
                .collect();
            find_duplicates(&entries, dups);
            Node {
                kind: NodeKind::Map(entries),
                span: Span::new(file, o.range.start, o.range.end),
                tag: None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_duplicates() {
        let t = r#"{"a": {"b": [1, "x"]}, "a": null}"#;
        let d = parse(t, FileId(0), Limits::default());
        assert!(d.error.is_none());
        let root = &d.documents[0];
        let b = root.get("a").unwrap().get("b").unwrap();
        assert_eq!(&t[b.span.range()], r#"[1, "x"]"#);
        assert_eq!(d.duplicates.len(), 1);
        assert_eq!(&t[d.duplicates[0].second.range()], r#""a""#);
    }

    #[test]
    fn strict_mode_rejects_comments_and_trailing_commas() {
        for t in [r#"{"a": 1,}"#, "{\"a\": 1 // c\n}", "{a: 1}"] {
            let d = parse(t, FileId(0), Limits::default());
            assert!(d.error.is_some(), "{t}");
        }
    }

    #[test]
    fn deep_nesting_rejected_before_parsing() {
        let t = "[".repeat(200_000);
        let d = parse(&t, FileId(0), Limits::default());
        assert!(d.error.unwrap().message.contains("nesting deeper"));
    }
}
