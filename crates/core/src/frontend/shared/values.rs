//! Helm values as a release writes them: `--set` paths, and Helm's merge of
//! one values layer over another.

use crate::source::Span;
use crate::value::{MapKey, Value, ValueKind};

/// One step of a `--set` path.
#[derive(Debug, PartialEq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// `a.b[0].c`, with `\.` an escaped dot in a key.
pub fn parse_path(p: &str) -> Option<Vec<Seg>> {
    let mut segs = Vec::new();
    let mut cur = String::new();
    let mut chars = p.chars().peekable();
    let mut after_index = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n) => cur.push(n),
                None => return None,
            },
            '.' => {
                if !cur.is_empty() {
                    segs.push(Seg::Key(std::mem::take(&mut cur)));
                } else if !after_index {
                    return None;
                }
                after_index = false;
            }
            '[' => {
                if !cur.is_empty() {
                    segs.push(Seg::Key(std::mem::take(&mut cur)));
                }
                let mut n = String::new();
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    n.push(d);
                }
                let i: usize = n.trim().parse().ok()?;
                if i > 10_000 {
                    return None;
                }
                segs.push(Seg::Index(i));
                after_index = true;
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        segs.push(Seg::Key(cur));
    }
    if segs.is_empty() {
        None
    } else {
        Some(segs)
    }
}

/// Sets `leaf` at `segs` under `node`, making maps and lists on the way;
/// `false` where the path crosses a value of another shape.
pub(crate) fn insert(node: &mut Value, segs: &[Seg], leaf: Value, key_span: Option<Span>) -> bool {
    let Some((first, rest)) = segs.split_first() else {
        *node = leaf;
        return true;
    };
    match first {
        Seg::Key(k) => {
            if !matches!(node.kind, ValueKind::Map(_)) {
                if node.is_unknown() {
                    return true;
                }
                *node = Value::new(ValueKind::Map(Vec::new()), key_span);
            }
            let ValueKind::Map(entries) = &mut node.kind else {
                return false;
            };
            let pos = match entries.iter().position(|(mk, _)| &mk.name == k) {
                Some(p) => p,
                None => {
                    entries.push((
                        MapKey {
                            name: k.clone(),
                            span: key_span,
                        },
                        Value::new(ValueKind::Null, key_span),
                    ));
                    entries.len() - 1
                }
            };
            insert(&mut entries[pos].1, rest, leaf, key_span)
        }
        Seg::Index(i) => {
            if !matches!(node.kind, ValueKind::List(_)) {
                if node.is_unknown() {
                    return true;
                }
                *node = Value::new(ValueKind::List(Vec::new()), key_span);
            }
            let ValueKind::List(items) = &mut node.kind else {
                return false;
            };
            while items.len() <= *i {
                items.push(Value::new(ValueKind::Null, key_span));
            }
            insert(&mut items[*i], rest, leaf, key_span)
        }
    }
}

/// Helm's merge: maps merge key by key, anything else replaces.
pub(crate) fn merge(acc: &mut Value, new: Value, depth: usize) {
    match (&mut acc.kind, new.kind) {
        (ValueKind::Map(a), ValueKind::Map(n)) if depth < 128 => {
            for (k, x) in n {
                match a.iter_mut().find(|(ak, _)| ak.name == k.name) {
                    Some((ak, slot)) => {
                        if matches!(x.kind, ValueKind::Map(_))
                            && matches!(slot.kind, ValueKind::Map(_))
                        {
                            merge(slot, x, depth + 1);
                        } else {
                            *ak = k;
                            *slot = x;
                        }
                    }
                    None => a.push((k, x)),
                }
            }
            acc.span = acc.span.or(new.span);
        }
        (_, kind) => {
            *acc = Value::new(kind, new.span);
        }
    }
}
