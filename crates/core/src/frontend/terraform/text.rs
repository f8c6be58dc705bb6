//! YAML/JSON carried in strings (heredocs, values files, `*encode` results),
//! read back into values whose spans point where the text was written.

use super::eval::{Env, Fill};
use crate::source::{FileId, Span};
use crate::tree::{self, Limits};
use crate::value::{Value, ValueKind};

/// The structured value behind a string value, if it can be told.
pub fn decode(env: &Env<'_>, x: &Value) -> Option<Value> {
    if let Some(s) = x.span {
        if let Some(enc) = env.encoded.borrow().get(&s) {
            return Some(enc.clone());
        }
        let ts = env.texts.borrow().get(&s).cloned();
        if let Some(ts) = ts {
            let f = env.file(ts.body.file)?;
            return parse_template(
                f.slice(ts.body),
                ts.body.file,
                ts.body.start as usize,
                ts.template.then_some(&ts.fills[..]),
                env.limits,
            );
        }
    }
    let ValueKind::String(text) = &x.kind else {
        return None;
    };
    // A literal read verbatim from a file keeps exact spans; anything else
    // (escapes, computed strings) points at the string as a whole.
    if let Some(s) = x.span {
        if let Some(f) = env.file(s.file) {
            if f.slice(s) == text {
                return parse_raw(text, s.file, s.start as usize, false, env.limits);
            }
        }
    }
    let mut val = parse_raw(
        text,
        x.span.map_or(FileId(0), |s| s.file),
        0,
        false,
        env.limits,
    )?;
    respan(&mut val, x.span);
    Some(val)
}

/// Parse YAML text found at `base` in `file`. With `template`, `${...}`
/// interpolations become unknown scalars and the structure around them stays.
pub fn parse_raw(
    raw: &str,
    file: FileId,
    base: usize,
    template: bool,
    limits: Limits,
) -> Option<Value> {
    parse_template(raw, file, base, template.then_some(&[]), limits)
}

/// [`parse_raw`] of a template whose known interpolations render as `fills`
/// say: a scalar made of text and known interpolations is the text
/// Terraform renders, with the scalar's span in the template; every other
/// interpolation is unknown. `None` for `fills` reads the text verbatim.
pub fn parse_template(
    raw: &str,
    file: FileId,
    base: usize,
    fills: Option<&[Fill]>,
    limits: Limits,
) -> Option<Value> {
    let template = fills.is_some();
    let fills = fills.unwrap_or_default();
    let mut masks: Vec<(usize, usize)> = Vec::new();
    let owned;
    let text = if template && (raw.contains("${") || raw.contains("%{")) {
        let bytes = raw.as_bytes();
        let mut out = bytes.to_vec();
        let mut i = 0;
        while i + 1 < bytes.len() {
            if (bytes[i] == b'$' || bytes[i] == b'%') && bytes[i + 1] == b'{' {
                if bytes[i] == b'%' && !(i > 0 && bytes[i - 1] == b'%') {
                    // Template directives change the structure: unknown.
                    return None;
                }
                let mut depth = 0usize;
                let mut j = i + 1;
                while j < bytes.len() {
                    match bytes[j] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let end = (j + 1).min(bytes.len());
                let start = if i > 0 && (bytes[i - 1] == b'$' || bytes[i - 1] == b'%') {
                    i - 1
                } else {
                    i
                };
                for b in &mut out[start..end] {
                    if *b != b'\n' {
                        *b = b'x';
                    }
                }
                masks.push((start, end));
                i = end;
            } else {
                i += 1;
            }
        }
        owned = String::from_utf8(out).ok()?;
        owned.as_str()
    } else {
        raw
    };
    let parsed = tree::yaml::parse(text, file, limits);
    if parsed.error.is_some() {
        return None;
    }
    let mut val = match parsed.documents.first() {
        Some(doc) => Value::from_node(doc),
        None => Value::new(
            ValueKind::Null,
            Some(Span::new(file, base, base + raw.len())),
        ),
    };
    shift(&mut val, base as u32);
    if !masks.is_empty() {
        let holes = Holes {
            raw,
            base: base as u32,
            masks: masks
                .iter()
                .map(|&(s, e)| Hole {
                    start: (s + base) as u32,
                    end: (e + base) as u32,
                    with: substitute((s + base) as u32, (e + base) as u32, file, fills),
                })
                .collect(),
        };
        mask(&mut val, &holes);
    }
    Some(val)
}

/// An interpolation in a template's text: absolute offsets, and the text it
/// renders to when known.
struct Hole<'v> {
    start: u32,
    end: u32,
    with: Option<&'v str>,
}

struct Holes<'r, 'v> {
    raw: &'r str,
    base: u32,
    masks: Vec<Hole<'v>>,
}

/// What the interpolation at `start..end` renders to: the one known fill
/// inside it, when its text cannot change the YAML structure around it.
fn substitute(start: u32, end: u32, file: FileId, fills: &[Fill]) -> Option<&str> {
    let mut inside = fills
        .iter()
        .filter(|f| f.span.file == file && f.span.start >= start && f.span.end <= end);
    let text = inside.next()?.text.as_str();
    if inside.next().is_some() {
        return None;
    }
    let plain = |c: char| c.is_ascii_alphanumeric() || "._/@:+=-".contains(c);
    text.chars().all(plain).then_some(text)
}

fn overlapping<'h, 'v>(span: Option<Span>, holes: &'h Holes<'_, 'v>) -> Vec<&'h Hole<'v>> {
    span.map(|s| {
        holes
            .masks
            .iter()
            .filter(|h| s.start < h.end && h.start < s.end)
            .collect()
    })
    .unwrap_or_default()
}

fn mask(val: &mut Value, holes: &Holes<'_, '_>) {
    match &mut val.kind {
        ValueKind::List(items) => items.iter_mut().for_each(|i| mask(i, holes)),
        ValueKind::Map(entries) => {
            if entries
                .iter()
                .any(|(k, _)| !overlapping(k.span, holes).is_empty())
            {
                val.kind = ValueKind::Unknown;
                return;
            }
            entries.iter_mut().for_each(|(_, x)| mask(x, holes));
        }
        _ => {
            let inside = overlapping(val.span, holes);
            if !inside.is_empty() {
                val.kind = val
                    .span
                    .and_then(|s| rendered(s, &inside, holes))
                    .unwrap_or(ValueKind::Unknown);
            }
        }
    }
}

/// The scalar at `span` with its interpolations rendered, when each is
/// known and lies inside it; typed as YAML types a plain scalar.
fn rendered(span: Span, inside: &[&Hole<'_>], holes: &Holes<'_, '_>) -> Option<ValueKind> {
    // Offsets below are relative to the text: a span before it is not its.
    if span.start < holes.base {
        return None;
    }
    let end = span.end - holes.base;
    let mut text = String::new();
    let mut at = span.start;
    for h in inside {
        if h.start < span.start || h.end > span.end {
            return None;
        }
        text.push_str(
            holes
                .raw
                .get((at - holes.base) as usize..(h.start - holes.base) as usize)?,
        );
        text.push_str(h.with?);
        at = h.end;
    }
    text.push_str(holes.raw.get((at - holes.base) as usize..end as usize)?);
    let quoted = |q: char| text.len() >= 2 && text.starts_with(q) && text.ends_with(q);
    if quoted('\'') || (quoted('"') && !text.contains('\\')) {
        return Some(ValueKind::String(text[1..text.len() - 1].to_string()));
    }
    if text.starts_with(['"', '\'', '|', '>', '&', '*', '!', '[', '{']) || text.contains('\n') {
        return None;
    }
    let node = tree::Node {
        kind: tree::NodeKind::Scalar(text.into(), tree::ScalarStyle::Plain),
        span,
        tag: None,
    };
    Some(Value::from_node(&node).kind)
}

fn shift(val: &mut Value, base: u32) {
    let sh = |s: &mut Option<Span>| {
        if let Some(s) = s {
            s.start = s.start.saturating_add(base);
            s.end = s.end.saturating_add(base);
        }
    };
    sh(&mut val.span);
    match &mut val.kind {
        ValueKind::List(items) => items.iter_mut().for_each(|i| shift(i, base)),
        ValueKind::Map(entries) => entries.iter_mut().for_each(|(k, x)| {
            sh(&mut k.span);
            shift(x, base);
        }),
        _ => {}
    }
}

pub fn respan(val: &mut Value, span: Option<Span>) {
    val.span = span;
    match &mut val.kind {
        ValueKind::List(items) => items.iter_mut().for_each(|i| respan(i, span)),
        ValueKind::Map(entries) => entries.iter_mut().for_each(|(k, x)| {
            k.span = span;
            respan(x, span);
        }),
        _ => {}
    }
}
