//! YAML/JSON carried in strings (heredocs, values files, `*encode` results),
//! read back into values whose spans point where the text was written.

use super::eval::Env;
use crate::source::{FileId, Span};
use crate::tree::{self, Limits};
use crate::value::{Value, ValueKind};

/// The structured value behind a string value, if it can be told.
pub fn decode(env: &Env<'_>, x: &Value) -> Option<Value> {
    if let Some(s) = x.span {
        if let Some(enc) = env.encoded.borrow().get(&s) {
            return Some(enc.clone());
        }
        let ts = env.texts.borrow().get(&s).copied();
        if let Some(ts) = ts {
            let f = env.file(ts.body.file)?;
            return parse_raw(
                f.slice(ts.body),
                ts.body.file,
                ts.body.start as usize,
                ts.template,
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
        let abs: Vec<(u32, u32)> = masks
            .iter()
            .map(|&(s, e)| ((s + base) as u32, (e + base) as u32))
            .collect();
        mask(&mut val, &abs);
    }
    Some(val)
}

fn overlaps(span: Option<Span>, masks: &[(u32, u32)]) -> bool {
    span.is_some_and(|s| masks.iter().any(|&(a, b)| s.start < b && a < s.end))
}

fn mask(val: &mut Value, masks: &[(u32, u32)]) {
    match &mut val.kind {
        ValueKind::List(items) => items.iter_mut().for_each(|i| mask(i, masks)),
        ValueKind::Map(entries) => {
            if entries.iter().any(|(k, _)| overlaps(k.span, masks)) {
                val.kind = ValueKind::Unknown;
                return;
            }
            entries.iter_mut().for_each(|(_, x)| mask(x, masks));
        }
        _ => {
            if overlaps(val.span, masks) {
                val.kind = ValueKind::Unknown;
            }
        }
    }
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
