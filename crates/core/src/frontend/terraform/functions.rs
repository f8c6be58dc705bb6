//! The Terraform functions that real EKS code uses. Anything else is unknown.

use super::eval::{
    as_num, has_unknown, num, same, scalar_text, unknown, v, Env, Fail, Fill, Scope, TextSource, R,
};
use super::text;
use crate::source::{FileId, Span};
use crate::value::{MapKey, Value, ValueKind};
use hcl_edit::expr::FuncArgs;

/// Strings built by functions are capped: hostile input must not exhaust memory.
const MAX_STRING: usize = 16 * 1024 * 1024;

pub fn call(
    env: &Env<'_>,
    name: &str,
    args: &FuncArgs,
    file: FileId,
    scope: &Scope,
    span: Option<Span>,
) -> R {
    let r = call_inner(env, name, args, file, scope, span)?;
    // A result is a new value (a file read, a decoded document, a merge):
    // it costs its size, so a loop cannot build one without bound.
    env.charge(&r);
    if !env.budget_left() {
        env.note_limit(
            span,
            format!(
                "Terraform evaluation stopped after {} steps (limits.terraform-eval-steps); later values are treated as unknown",
                env.limits.max_eval_steps
            ),
        );
        return unknown(span);
    }
    Ok(r)
}

fn call_inner(
    env: &Env<'_>,
    name: &str,
    args: &FuncArgs,
    file: FileId,
    scope: &Scope,
    span: Option<Span>,
) -> R {
    let max_collection = env.limits.max_collection;
    // Lazy ones first: they decide which arguments fail.
    match name {
        "try" => {
            for a in args.iter() {
                if let Ok(x) = env.eval(a, file, scope) {
                    return Ok(x);
                }
            }
            return Err(Fail);
        }
        "can" => {
            let Some(a) = args.iter().next() else {
                return Err(Fail);
            };
            return match env.eval(a, file, scope) {
                Ok(x) if x.is_unknown() => unknown(span),
                Ok(_) => Ok(v(ValueKind::Bool(true), span)),
                Err(_) => Ok(v(ValueKind::Bool(false), span)),
            };
        }
        _ => {}
    }
    let mut vals = Vec::new();
    for a in args.iter() {
        vals.push(env.eval(a, file, scope)?);
    }
    if args.expand_final() {
        match vals.pop().map(|x| x.kind) {
            Some(ValueKind::List(items)) => vals.extend(items),
            _ => return unknown(span),
        }
    }
    match name {
        "jsonencode" | "yamlencode" => {
            let Some(x) = vals.into_iter().next() else {
                return Err(Fail);
            };
            if let Some(s) = span {
                env.encoded.borrow_mut().insert(s, x.clone());
            }
            if has_unknown(&x) {
                return unknown(span);
            }
            let mut out = String::new();
            to_json(&x, &mut out);
            return Ok(v(ValueKind::String(out), span));
        }
        "file" | "templatefile" => return read_file(env, name == "templatefile", &vals, span),
        "jsondecode" | "yamldecode" => {
            let Some(x) = vals.first() else {
                return Err(Fail);
            };
            return Ok(text::decode(env, x).unwrap_or_else(|| Value::unknown(span)));
        }
        _ => {}
    }
    // Every other function is strict: an unknown argument makes an unknown result.
    if vals.iter().any(Value::is_unknown) {
        return unknown(span);
    }
    let s = |i: usize| vals.get(i).and_then(scalar_text);
    match name {
        "merge" => {
            let mut out: Vec<(MapKey, Value)> = Vec::new();
            let mut index: std::collections::HashMap<String, usize> = Default::default();
            for m in &vals {
                match &m.kind {
                    ValueKind::Null => {}
                    ValueKind::Map(entries) => {
                        for (k, x) in entries {
                            match index.get(&k.name) {
                                Some(&i) => out[i] = (k.clone(), x.clone()),
                                None => {
                                    index.insert(k.name.clone(), out.len());
                                    out.push((k.clone(), x.clone()));
                                }
                            }
                        }
                        if out.len() > max_collection {
                            env.note_collection(span);
                            return unknown(span);
                        }
                    }
                    _ => return Err(Fail),
                }
            }
            Ok(v(ValueKind::Map(out), span))
        }
        "concat" => {
            let mut out = Vec::new();
            for l in &vals {
                match &l.kind {
                    ValueKind::List(items) => out.extend(items.iter().cloned()),
                    _ => return Err(Fail),
                }
                if out.len() > max_collection {
                    env.note_collection(span);
                    return unknown(span);
                }
            }
            Ok(v(ValueKind::List(out), span))
        }
        "lookup" => {
            let (Some(m), Some(k)) = (vals.first(), s(1)) else {
                return Err(Fail);
            };
            match (&m.kind, m.get(&k)) {
                (ValueKind::Map(_), Some(x)) => Ok(x.clone()),
                (ValueKind::Map(_), None) => vals.get(2).cloned().ok_or(Fail),
                _ => Err(Fail),
            }
        }
        "coalesce" => vals
            .iter()
            .find(|x| match &x.kind {
                ValueKind::Null => false,
                ValueKind::String(t) => !t.is_empty(),
                _ => true,
            })
            .cloned()
            .ok_or(Fail),
        "coalescelist" => vals
            .iter()
            .find(|x| matches!(&x.kind, ValueKind::List(i) if !i.is_empty()))
            .cloned()
            .ok_or(Fail),
        "tomap" | "tolist" | "tostring" | "tonumber" | "tobool" | "sensitive" | "nonsensitive" => {
            vals.into_iter().next().ok_or(Fail)
        }
        "toset" | "distinct" => {
            let Some(ValueKind::List(items)) = vals.first().map(|x| &x.kind) else {
                return Err(Fail);
            };
            let mut out: Vec<Value> = Vec::new();
            for x in items {
                // Quadratic: each comparison is work.
                env.charge_steps(out.len() as u64);
                if !env.budget_left() {
                    return unknown(span);
                }
                if !out.iter().any(|y| same(x, y)) {
                    out.push(x.clone());
                }
            }
            Ok(v(ValueKind::List(out), span))
        }
        "keys" | "values" => {
            let Some(ValueKind::Map(entries)) = vals.first().map(|x| &x.kind) else {
                return Err(Fail);
            };
            let mut e: Vec<_> = entries.iter().collect();
            e.sort_by(|a, b| a.0.name.cmp(&b.0.name));
            let out = e
                .into_iter()
                .map(|(k, x)| {
                    if name == "keys" {
                        v(ValueKind::String(k.name.clone()), k.span)
                    } else {
                        x.clone()
                    }
                })
                .collect();
            Ok(v(ValueKind::List(out), span))
        }
        "length" => match vals.first().map(|x| &x.kind) {
            Some(ValueKind::List(i)) => Ok(num(i.len() as f64, span)),
            Some(ValueKind::Map(e)) => Ok(num(e.len() as f64, span)),
            Some(ValueKind::String(t)) => Ok(num(t.chars().count() as f64, span)),
            _ => Err(Fail),
        },
        "flatten" => {
            let mut out = Vec::new();
            fn flat(x: &Value, out: &mut Vec<Value>, depth: usize, max: usize) -> bool {
                match &x.kind {
                    ValueKind::List(items) if depth < 64 => {
                        items.iter().all(|i| flat(i, out, depth + 1, max))
                    }
                    ValueKind::Unknown => false,
                    _ => {
                        out.push(x.clone());
                        out.len() <= max
                    }
                }
            }
            match vals.first() {
                Some(
                    x @ Value {
                        kind: ValueKind::List(_),
                        ..
                    },
                ) => {
                    if flat(x, &mut out, 0, max_collection) {
                        Ok(v(ValueKind::List(out), span))
                    } else {
                        unknown(span)
                    }
                }
                _ => Err(Fail),
            }
        }
        "compact" => match vals.first().map(|x| &x.kind) {
            Some(ValueKind::List(items)) => Ok(v(
                ValueKind::List(
                    items
                        .iter()
                        .filter(|x| {
                            !matches!(&x.kind, ValueKind::Null)
                                && !matches!(&x.kind, ValueKind::String(t) if t.is_empty())
                        })
                        .cloned()
                        .collect(),
                ),
                span,
            )),
            _ => Err(Fail),
        },
        "format" => {
            let Some(fmt) = s(0) else { return Err(Fail) };
            format(&fmt, &vals[1..], span)
        }
        "replace" => {
            let (Some(t), Some(from), Some(to)) = (s(0), s(1), s(2)) else {
                return Err(Fail);
            };
            if from.len() >= 2 && from.starts_with('/') && from.ends_with('/') {
                return unknown(span);
            }
            if from.is_empty() {
                return Err(Fail);
            }
            // Size the result before building it: a long replacement of a
            // frequent text would otherwise allocate without bound.
            let hits = t.matches(from.as_str()).count();
            if to.len() > from.len()
                && hits.saturating_mul(to.len() - from.len()) > MAX_STRING.saturating_sub(t.len())
            {
                return unknown(span);
            }
            let out = t.replace(&from, &to);
            if out.len() > MAX_STRING {
                return unknown(span);
            }
            Ok(v(ValueKind::String(out), span))
        }
        "lower" | "upper" | "trimspace" => {
            let Some(t) = s(0) else { return Err(Fail) };
            let out = match name {
                "lower" => t.to_lowercase(),
                "upper" => t.to_uppercase(),
                _ => t.trim().to_string(),
            };
            Ok(v(ValueKind::String(out), span))
        }
        "join" => {
            let (Some(sep), Some(ValueKind::List(items))) = (s(0), vals.get(1).map(|x| &x.kind))
            else {
                return Err(Fail);
            };
            let parts: Option<Vec<String>> = items.iter().map(scalar_text).collect();
            let parts = parts.ok_or(Fail)?;
            let total = parts.iter().map(String::len).sum::<usize>()
                + sep.len().saturating_mul(parts.len());
            if total > MAX_STRING {
                return unknown(span);
            }
            let out = parts.join(&sep);
            if out.len() > MAX_STRING {
                return unknown(span);
            }
            Ok(v(ValueKind::String(out), span))
        }
        "split" => {
            let (Some(sep), Some(t)) = (s(0), s(1)) else {
                return Err(Fail);
            };
            if sep.is_empty() {
                return Err(Fail);
            }
            if t.matches(sep.as_str()).count() >= max_collection {
                env.note_collection(span);
                return unknown(span);
            }
            let out = t
                .split(sep.as_str())
                .map(|p| v(ValueKind::String(p.to_string()), span))
                .collect();
            Ok(v(ValueKind::List(out), span))
        }
        "element" => {
            let (Some(ValueKind::List(items)), Some(i)) =
                (vals.first().map(|x| &x.kind), vals.get(1).and_then(as_num))
            else {
                return Err(Fail);
            };
            if items.is_empty() || i < 0.0 {
                return Err(Fail);
            }
            items.get(i as usize % items.len()).cloned().ok_or(Fail)
        }
        "contains" => {
            let (Some(ValueKind::List(items)), Some(x)) =
                (vals.first().map(|x| &x.kind), vals.get(1))
            else {
                return Err(Fail);
            };
            Ok(v(ValueKind::Bool(items.iter().any(|i| same(i, x))), span))
        }
        "range" => {
            let n: Option<Vec<f64>> = vals.iter().map(as_num).collect();
            let n = n.ok_or(Fail)?;
            let (start, end, step) = match n.as_slice() {
                [e] => (0.0, *e, 1.0),
                [s, e] => (*s, *e, if s <= e { 1.0 } else { -1.0 }),
                [s, e, st] => (*s, *e, *st),
                _ => return Err(Fail),
            };
            if step == 0.0 {
                return Err(Fail);
            }
            let mut out = Vec::new();
            let mut x = start;
            while (step > 0.0 && x < end) || (step < 0.0 && x > end) {
                out.push(num(x, span));
                x += step;
                if out.len() > max_collection {
                    env.note_collection(span);
                    return unknown(span);
                }
            }
            Ok(v(ValueKind::List(out), span))
        }
        "slice" => {
            let (Some(ValueKind::List(items)), Some(a), Some(b)) = (
                vals.first().map(|x| &x.kind),
                vals.get(1).and_then(as_num),
                vals.get(2).and_then(as_num),
            ) else {
                return Err(Fail);
            };
            let (a, b) = (a as usize, b as usize);
            if a > b || b > items.len() {
                return Err(Fail);
            }
            Ok(v(ValueKind::List(items[a..b].to_vec()), span))
        }
        "zipmap" => {
            let (Some(ValueKind::List(k)), Some(ValueKind::List(x))) =
                (vals.first().map(|x| &x.kind), vals.get(1).map(|x| &x.kind))
            else {
                return Err(Fail);
            };
            let mut out = Vec::new();
            for (kk, xx) in k.iter().zip(x) {
                let name = scalar_text(kk).ok_or(Fail)?;
                out.push((
                    MapKey {
                        name,
                        span: kk.span,
                    },
                    xx.clone(),
                ));
            }
            Ok(v(ValueKind::Map(out), span))
        }
        "one" => match vals.first().map(|x| &x.kind) {
            Some(ValueKind::List(items)) if items.is_empty() => Ok(v(ValueKind::Null, span)),
            Some(ValueKind::List(items)) if items.len() == 1 => Ok(items[0].clone()),
            _ => Err(Fail),
        },
        "startswith" | "endswith" => {
            let (Some(t), Some(p)) = (s(0), s(1)) else {
                return Err(Fail);
            };
            let r = if name == "startswith" {
                t.starts_with(&p)
            } else {
                t.ends_with(&p)
            };
            Ok(v(ValueKind::Bool(r), span))
        }
        _ => unknown(span),
    }
}

fn format(fmt: &str, args: &[Value], span: Option<Span>) -> R {
    let mut out = String::new();
    let mut it = fmt.chars().peekable();
    let mut next = args.iter();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('%') => out.push('%'),
            Some('s') | Some('d') | Some('v') => {
                out.push_str(&next.next().and_then(scalar_text).ok_or(Fail)?);
            }
            Some('q') => {
                let t = next.next().and_then(scalar_text).ok_or(Fail)?;
                out.push_str(&serde_json::to_string(&t).map_err(|_| Fail)?);
            }
            _ => return unknown(span),
        }
    }
    if out.len() > MAX_STRING {
        return unknown(span);
    }
    Ok(v(ValueKind::String(out), span))
}

/// Serialise a known value as JSON, which is also valid YAML.
pub fn to_json(x: &Value, out: &mut String) {
    match &x.kind {
        ValueKind::Null | ValueKind::Unknown => out.push_str("null"),
        ValueKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ValueKind::Number(n) => out.push_str(n),
        ValueKind::String(s) => {
            out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()))
        }
        ValueKind::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                to_json(item, out);
            }
            out.push(']');
        }
        ValueKind::Map(entries) => {
            out.push('{');
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(&k.name).unwrap_or_else(|_| "\"\"".into()));
                out.push(':');
                to_json(item, out);
            }
            out.push('}');
        }
    }
}

/// The `${name}` interpolations of a template file whose variable is a
/// known scalar. Directives and other expressions stay unfilled.
fn template_fills(f: &crate::source::SourceFile, vars: &[(String, String)]) -> Vec<Fill> {
    let text = &f.text;
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find("${").map(|i| i + at) {
        let Some(end) = text[i..].find('}').map(|e| e + i) else {
            break;
        };
        let escaped = text[..i].ends_with('$');
        let name = text[i + 2..end].trim();
        if let Some((_, value)) = vars.iter().rev().find(|(k, _)| k == name) {
            if !escaped {
                out.push(Fill {
                    span: Span::new(f.id, i + 2, end),
                    text: value.clone(),
                });
            }
        }
        at = end + 1;
    }
    out
}

/// A template's text when every interpolation is filled and it has no
/// directives.
fn render_template(text: &str, fills: &[Fill]) -> Option<String> {
    if text.contains("%{") {
        return None;
    }
    let mut out = String::new();
    let mut at = 0;
    while let Some(i) = text[at..].find("${").map(|i| i + at) {
        let end = text[i..].find('}')? + i;
        let fill = fills
            .iter()
            .find(|f| f.span.start as usize == i + 2 && f.span.end as usize == end)?;
        out.push_str(&text[at..i]);
        out.push_str(&fill.text);
        at = end + 1;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// `file()` and `templatefile()`: relative to the module folder, through
/// `Sources` (root-confined, size-capped). A file that cannot be read is unknown.
fn read_file(env: &Env<'_>, template: bool, vals: &[Value], span: Option<Span>) -> R {
    let Some(rel) = vals.first().and_then(scalar_text) else {
        return unknown(span);
    };
    let path = std::path::Path::new(&rel);
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        env.dir.join(path)
    };
    let Ok(f) = env.sources.load(&full) else {
        return unknown(span);
    };
    let whole = Span::new(f.id, 0, f.text.len());
    env.files.borrow_mut().insert(f.id, f.clone());
    let vars: Vec<(String, String)> = match vals.get(1).map(|x| &x.kind) {
        Some(ValueKind::Map(entries)) if template => entries
            .iter()
            .filter_map(|(k, x)| Some((k.name.clone(), scalar_text(x)?)))
            .collect(),
        _ => Vec::new(),
    };
    let given = if template {
        template_fills(&f, &vars)
    } else {
        Vec::new()
    };
    let mut texts = env.texts.borrow_mut();
    // One file templated by several calls is read with the fills they agree
    // on: its values are registered by the file's span, not the call's.
    let fills: Vec<Fill> = match texts.get(&whole) {
        Some(before) if before.template => given
            .into_iter()
            .filter(|g| before.fills.contains(g))
            .collect(),
        _ => given,
    };
    let rendered = template.then(|| render_template(&f.text, &fills)).flatten();
    texts.insert(
        whole,
        TextSource {
            body: whole,
            template,
            fills: fills.into(),
        },
    );
    drop(texts);
    if template && (f.text.contains("${") || f.text.contains("%{")) {
        return match rendered {
            Some(text) => Ok(v(ValueKind::String(text), Some(whole))),
            None => unknown(Some(whole)),
        };
    }
    Ok(v(ValueKind::String(f.text.to_string()), Some(whole)))
}
