//! What declarations of Helm releases share (Argo CD, Flux, helmfile, CDK):
//! values written as a YAML string with spans into it, Helm's merge, and
//! `--set`-style parameters.

use super::terraform::helm::{insert, merge, parse_path};
use crate::model::Known;
use crate::source::{FileId, SourceFile, Span};
use crate::tree::{self, Limits};
use crate::value::{Value, ValueKind};

/// An empty values map.
pub fn empty() -> Value {
    Value::new(ValueKind::Map(Vec::new()), None)
}

/// Values written as a YAML string (`helm.values: |`): spans point into the
/// block when its text parses to the same values, else at the string.
/// Unknown when the string is not YAML or not a map.
pub fn from_yaml_string(file: &SourceFile, v: &Value) -> Known<Value> {
    let Some(text) = v.as_str() else {
        return if v.is_unknown() || matches!(v.kind, ValueKind::Null) {
            Known::Known(empty())
        } else {
            Known::Unknown
        };
    };
    let Some(mut decoded) = parse(text, file.id, 0) else {
        return Known::Unknown;
    };
    if matches!(decoded.kind, ValueKind::Null) {
        return Known::Known(empty());
    }
    if !matches!(decoded.kind, ValueKind::Map(_)) {
        return Known::Unknown;
    }
    if let Some(span) = v.span {
        // A block scalar's body starts on the line after `|`, or at the
        // span, whose line's indentation belongs to it.
        let line_start = file
            .text
            .get(..span.start as usize)
            .and_then(|before| {
                let ls = before.rfind('\n').map_or(0, |i| i + 1);
                before[ls..].bytes().all(|b| b == b' ').then_some(ls)
            })
            .unwrap_or(span.start as usize);
        let raw = file
            .text
            .get(line_start..span.end as usize)
            .unwrap_or_default();
        let skip = match raw.trim_start_matches(' ').starts_with(['|', '>']) {
            true => raw.find('\n').map(|nl| nl + 1),
            false => Some(0),
        };
        let span = Span::new(span.file, line_start, span.end as usize);
        if let Some(skip) = skip {
            let base = span.start as usize + skip;
            if let Some(exact) = parse(&raw[skip..], file.id, base) {
                if same(&exact, &decoded) {
                    return Known::Known(exact);
                }
            }
        }
        respan(&mut decoded, span);
    }
    Known::Known(decoded)
}

/// Values embedded in a string that is not in the file as written (a JSON
/// string in a template): every span is the string's.
pub fn from_embedded(text: &str, at: Option<Span>) -> Known<Value> {
    let Some(mut v) = parse(text, FileId(u32::MAX), 0) else {
        return Known::Unknown;
    };
    match at {
        Some(s) => respan(&mut v, s),
        None => strip(&mut v),
    }
    Known::Known(v)
}

fn parse(text: &str, file: FileId, base: usize) -> Option<Value> {
    let parsed = tree::yaml::parse(text, file, Limits::default());
    if parsed.error.is_some() {
        return None;
    }
    let mut v = match parsed.documents.first() {
        Some(doc) => Value::from_node(doc),
        None => Value::new(ValueKind::Null, None),
    };
    shift(&mut v, base as u32);
    Some(v)
}

fn each_span(v: &mut Value, f: &mut impl FnMut(&mut Option<Span>)) {
    f(&mut v.span);
    match &mut v.kind {
        ValueKind::List(items) => items.iter_mut().for_each(|x| each_span(x, f)),
        ValueKind::Map(entries) => entries.iter_mut().for_each(|(k, x)| {
            f(&mut k.span);
            each_span(x, f);
        }),
        _ => {}
    }
}

fn shift(v: &mut Value, by: u32) {
    each_span(v, &mut |s| {
        if let Some(s) = s {
            s.start += by;
            s.end += by;
        }
    });
}

/// Point every span at `at`.
pub fn respan(v: &mut Value, at: Span) {
    each_span(v, &mut |s| *s = Some(at));
}

fn strip(v: &mut Value) {
    each_span(v, &mut |s| *s = None);
}

/// The same values, spans aside.
fn same(a: &Value, b: &Value) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    strip(&mut a);
    strip(&mut b);
    a == b
}

/// Merge `new` into `acc` the way Helm merges values files: maps key by
/// key, anything else replaces. A `new` that is not a map (or unknown)
/// makes the result unknown.
pub fn merge_into(acc: &mut Known<Value>, new: Known<Value>) {
    let Known::Known(a) = acc else { return };
    match new {
        Known::Known(n) if matches!(n.kind, ValueKind::Map(_)) => merge(a, n, 0),
        Known::Known(n) if matches!(n.kind, ValueKind::Null) => {}
        _ => *acc = Known::Unknown,
    }
}

/// Set one `--set`-style path (`a.b[0].c`) to `leaf`; a path that cannot be
/// read makes the values unknown.
pub fn set_path(acc: &mut Known<Value>, path: &str, leaf: Value, at: Option<Span>) {
    let Known::Known(a) = acc else { return };
    let ok = parse_path(path).is_some_and(|segs| insert(a, &segs, leaf, at));
    if !ok {
        *acc = Known::Unknown;
    }
}

/// Helm's typing of a `--set` string: booleans, integers, null.
pub fn typed(s: &str, at: Option<Span>) -> Value {
    let kind = match s {
        "true" => ValueKind::Bool(true),
        "false" => ValueKind::Bool(false),
        "null" => ValueKind::Null,
        t if !t.is_empty() && t.parse::<i64>().is_ok() => ValueKind::Number(t.to_string()),
        t => ValueKind::String(t.to_string()),
    };
    Value::new(kind, at)
}

/// Whether a folder `rel` (as a declaration writes it, relative to the
/// repository's root) exists under the repository holding `file`: the
/// nearest ancestor folder where it exists, up to the one holding `.git`.
pub fn local_folder(file: &SourceFile, rel: &str) -> Option<std::path::PathBuf> {
    let rel = rel.trim().trim_start_matches("./").trim_end_matches('/');
    if rel.is_empty() || rel.contains("..") || rel.starts_with('/') || rel.contains("://") {
        return None;
    }
    let mut dir = std::path::Path::new(&file.path).parent();
    for _ in 0..32 {
        let d = dir?;
        let base = if d.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            d
        };
        let cand = base.join(rel);
        if cand.is_dir() {
            return Some(cand);
        }
        if base.join(".git").exists() {
            return None;
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_string_values_keep_their_spans() {
        let text = "x:\n  values: |\n    a:\n      c: 1\n    d:\n      b: true\n";
        let file = SourceFile::new(FileId(0), "x.yaml", text);
        let doc = tree::yaml::parse(text, FileId(0), Limits::default());
        let v = Value::from_node(&doc.documents[0]);
        let vals = from_yaml_string(&file, v.get("x").unwrap().get("values").unwrap());
        let b = vals.known().unwrap().get("d").unwrap().get("b").unwrap();
        let s = b.span.unwrap();
        assert_eq!(&text[s.start as usize..s.end as usize], "true");
    }
}
