//! Go template built-ins and the Sprig functions real charts use.
//!
//! Unknowns: a function given an unknown argument returns unknown, unless it
//! only carries values (lists, dicts) or pastes text (`quote`, `indent`,
//! `printf`, ...), where the marker text goes through.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::rc::Rc;

use crate::digest;
use crate::value::{self, go_float_g, go_string, Map, Object, Value, UNKNOWN_MARKER};
use crate::Limits;

pub enum FnError {
    Msg(String),
    Limit(&'static str, String),
    NotFound,
}

type R = Result<Value, FnError>;

pub struct Ctx<'l> {
    pub limits: &'l Limits,
}

fn msg<T>(m: impl Into<String>) -> Result<T, FnError> {
    Err(FnError::Msg(m.into()))
}

/// Functions that paste their arguments' text or carry values: an unknown
/// argument goes through as its marker instead of making the result unknown.
const CARRY: &[&str] = &[
    "list",
    "tuple",
    "dict",
    "set",
    "append",
    "mustAppend",
    "push",
    "mustPush",
    "prepend",
    "mustPrepend",
    "concat",
    "merge",
    "mustMerge",
    "mergeOverwrite",
    "mustMergeOverwrite",
    "toYaml",
    "mustToYaml",
    "toYamlPretty",
    "toJson",
    "mustToJson",
    "toPrettyJson",
    "mustToPrettyJson",
    "toRawJson",
    "mustToRawJson",
    "quote",
    "squote",
    "indent",
    "nindent",
    "print",
    "printf",
    "println",
    "cat",
    "trim",
    "trimSuffix",
    "trimPrefix",
    "toString",
    "join",
    "replace",
    "trunc",
    "nospace",
    "html",
    "js",
    "fromYaml",
    "fromJson",
    "fromYamlArray",
    "fromJsonArray",
];

pub fn call(name: &str, mut args: Vec<Value>, ctx: &mut Ctx) -> R {
    // `.Capabilities.APIVersions` is a []string to functions (`has "x" ...`).
    for a in &mut args {
        if let Value::Object(o) = a {
            if let Object::ApiVersions(list) = &**o {
                *a = Value::list(list.iter().map(|v| Value::str(v.as_str())).collect());
            }
        }
    }
    let any_unknown = args.iter().any(Value::is_unknown);
    if any_unknown {
        if let Some(v) = unknown_rule(name, &args) {
            return Ok(v);
        }
        if !CARRY.contains(&name) {
            // Unknown functions still report as not defined.
            return match call_known(name, &args, ctx) {
                Err(FnError::NotFound) => Err(FnError::NotFound),
                _ => Ok(Value::Unknown),
            };
        }
        let markers: usize = args.iter().map(count_markers).sum();
        let r = match call_known(name, &args, ctx) {
            Ok(r) => r,
            // An unknown where a dict or list was due: the result is unknown.
            Err(FnError::Msg(_)) => return Ok(Value::Unknown),
            Err(e) => return Err(e),
        };
        // Text that lost a marker (trunc, replace) is unknown as a whole.
        if let Value::Str(s) = &r {
            if s.matches(UNKNOWN_MARKER).count() < markers.min(1) {
                return Ok(Value::Unknown);
            }
        }
        return Ok(r);
    }
    call_known(name, &args, ctx)
}

fn count_markers(v: &Value) -> usize {
    match v {
        Value::Unknown => 1,
        Value::Str(s) => s.matches(UNKNOWN_MARKER).count(),
        _ => 0,
    }
}

/// Functions whose result is decided before the unknown argument matters.
fn unknown_rule(name: &str, args: &[Value]) -> Option<Value> {
    match name {
        "default" => {
            let given = args.get(1)?;
            if given.is_unknown() {
                return Some(Value::Unknown);
            }
            None
        }
        "ternary" => {
            let c = args.get(2)?;
            match c.truth() {
                None => Some(Value::Unknown),
                Some(true) => Some(args[0].clone()),
                Some(false) => Some(args[1].clone()),
            }
        }
        "empty" | "not" => {
            Some(Value::Unknown).filter(|_| args.first().is_some_and(Value::is_unknown))
        }
        "eq" | "ne" | "lt" | "le" | "gt" | "ge" => Some(Value::Unknown),
        // YAML text with a marker where a scalar was reads back with the
        // marker in that scalar; text that is all marker is unknown whole.
        "fromYaml" | "fromJson" | "fromYamlArray" | "fromJsonArray" => match args.first()? {
            Value::Str(t) if t.trim() != UNKNOWN_MARKER => None,
            _ => Some(Value::Unknown),
        },
        // `merge $dst (unknown)`: which keys the result has is unknown.
        "merge" | "mustMerge" | "mergeOverwrite" | "mustMergeOverwrite" => args
            .iter()
            .any(|a| matches!(a, Value::Unknown))
            .then_some(Value::Unknown),
        "contains" | "hasPrefix" | "hasSuffix" => {
            let (Value::Str(needle), Value::Str(hay)) = (args.first()?, args.get(1)?) else {
                return Some(Value::Unknown);
            };
            if needle.contains(UNKNOWN_MARKER) {
                return Some(Value::Unknown);
            }
            let parts: Vec<&str> = hay.split(UNKNOWN_MARKER).collect();
            let found = match name {
                "contains" => parts.iter().any(|p| p.contains(&**needle)),
                "hasPrefix" => parts[0].starts_with(&**needle),
                _ => parts[parts.len() - 1].ends_with(&**needle),
            };
            // Unknown values are names, namespaces, random text and cluster
            // data, none of which holds template delimiters: charts ask
            // whether a value needs `tpl` this way.
            if found {
                Some(Value::Bool(true))
            } else if needle.contains("{{") || needle.contains("}}") {
                Some(Value::Bool(false))
            } else {
                Some(Value::Unknown)
            }
        }
        _ => None,
    }
}

fn want_str<'a>(v: &'a Value, _f: &str) -> Result<&'a str, FnError> {
    match v {
        Value::Str(s) => Ok(s),
        Value::Unknown => Ok(UNKNOWN_MARKER),
        Value::Nil => msg("invalid value; expected string"),
        other => msg(format!(
            "wrong type for value; expected string; got {}",
            other.type_name()
        )),
    }
}

fn want_int(v: &Value) -> Result<i64, FnError> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Nil => msg("invalid value; expected int"),
        other => msg(format!(
            "wrong type for value; expected int; got {}",
            other.type_name()
        )),
    }
}

fn nargs(args: &[Value], n: usize, name: &str) -> Result<(), FnError> {
    if args.len() != n {
        return msg(format!(
            "wrong number of args for {name}: want {n} got {}",
            args.len()
        ));
    }
    Ok(())
}

/// Sprig's `strval`.
pub fn strval(v: &Value) -> String {
    go_string(v)
}

/// Sprig's cast.ToInt64-like conversion (`int`, `add`, ...).
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Float(f) => *f as i64,
        Value::Bool(b) => *b as i64,
        Value::Str(s) => {
            let t = s.trim();
            t.parse::<i64>()
                .ok()
                .or_else(|| {
                    t.strip_prefix("0x")
                        .and_then(|h| i64::from_str_radix(h, 16).ok())
                })
                .or_else(|| t.parse::<f64>().ok().map(|f| f as i64))
                .unwrap_or(0)
        }
        _ => 0,
    }
}

pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => *b as i64 as f64,
        Value::Str(s) => s.trim().parse::<f64>().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Sprig's `empty`.
pub fn empty(v: &Value) -> bool {
    !v.truth().unwrap_or(true)
}

fn list_of(v: &Value, name: &str) -> Result<Rc<Vec<Value>>, FnError> {
    match v {
        Value::List(l) => Ok(l.clone()),
        Value::Nil => Ok(Rc::new(Vec::new())),
        other => msg(format!("Cannot {name} on type {}", other.type_name())),
    }
}

fn map_of(v: &Value) -> Result<value::MapRef, FnError> {
    match v {
        Value::Map(m) => Ok(m.clone()),
        Value::Nil => msg("invalid value; expected map[string]interface {}"),
        other => msg(format!(
            "wrong type for value; expected map[string]interface {{}}; got {}",
            other.type_name()
        )),
    }
}

fn bool_v(b: bool) -> R {
    Ok(Value::Bool(b))
}

fn s(v: impl Into<Rc<str>>) -> R {
    Ok(Value::Str(v.into()))
}

fn call_known(name: &str, a: &[Value], ctx: &mut Ctx) -> R {
    let lim = ctx.limits;
    match name {
        // ------------------------------------------------ text/template
        "not" => {
            nargs(a, 1, name)?;
            bool_v(!a[0].truth().unwrap_or(false))
        }
        "len" => {
            nargs(a, 1, name)?;
            match &a[0] {
                Value::Str(s) => Ok(Value::Int(s.len() as i64)),
                Value::List(l) => Ok(Value::Int(l.len() as i64)),
                Value::Map(m) => Ok(Value::Int(m.borrow().len() as i64)),
                Value::Unknown => Ok(Value::Unknown),
                Value::Nil => msg("len of nil pointer"),
                other => msg(format!("len of type {}", other.type_name())),
            }
        }
        "index" => {
            if a.is_empty() {
                return msg("wrong number of args for index: want at least 1 got 0");
            }
            let mut v = a[0].clone();
            for k in &a[1..] {
                v = match (&v, k) {
                    (Value::Unknown, _) | (_, Value::Unknown) => return Ok(Value::Unknown),
                    (Value::Map(m), Value::Str(key)) => {
                        m.borrow().get(&**key).cloned().unwrap_or_default()
                    }
                    (Value::Map(_), other) => {
                        return msg(format!(
                            "value has type {}; should be string",
                            other.type_name()
                        ))
                    }
                    (Value::List(l), idx) => {
                        let i = index_of(idx)?;
                        match usize::try_from(i).ok().and_then(|i| l.get(i)) {
                            Some(e) => e.clone(),
                            None => return msg(format!("index out of range: {i}")),
                        }
                    }
                    (Value::Str(st), idx) => {
                        let i = index_of(idx)?;
                        match usize::try_from(i).ok().and_then(|i| st.as_bytes().get(i)) {
                            Some(b) => Value::Int(*b as i64),
                            None => return msg(format!("index out of range: {i}")),
                        }
                    }
                    (Value::Nil, _) => return msg("index of untyped nil"),
                    (other, _) => {
                        return msg(format!("can't index item of type {}", other.type_name()))
                    }
                };
            }
            Ok(v)
        }
        "slice" | "mustSlice" => {
            if a.is_empty() {
                return msg("wrong number of args for slice");
            }
            let idx: Vec<i64> = a[1..].iter().map(index_of).collect::<Result<_, _>>()?;
            match &a[0] {
                Value::List(l) => {
                    let (i, j) = bounds(&idx, l.len())?;
                    Ok(Value::list(l[i..j].to_vec()))
                }
                // Sprig's `slice` replaces Go's: lists only.
                other => msg(format!(
                    "list should be type of slice or array but {}",
                    other.type_name().trim_start_matches("[]interface {}")
                )),
            }
        }
        "print" => s(sprint(a)),
        "println" => {
            let mut out = a.iter().map(go_string).collect::<Vec<_>>().join(" ");
            out.push('\n');
            s(out)
        }
        "printf" => {
            let Some(f) = a.first() else {
                return msg("wrong number of args for printf: want at least 1 got 0");
            };
            let f = want_str(f, name)?;
            s(sprintf(f, &a[1..]))
        }
        "html" => s(html_escape(&sprint_plain(a))),
        "js" => s(js_escape(&sprint_plain(a))),
        "urlquery" => s(urlquery(&sprint_plain(a))),
        "eq" => {
            if a.len() < 2 {
                return msg("missing argument for comparison");
            }
            for b in &a[1..] {
                if go_eq(&a[0], b)? {
                    return bool_v(true);
                }
            }
            bool_v(false)
        }
        "ne" => {
            nargs(a, 2, name)?;
            bool_v(!go_eq(&a[0], &a[1])?)
        }
        "lt" | "le" | "gt" | "ge" => {
            nargs(a, 2, name)?;
            let o = go_cmp(&a[0], &a[1])?;
            use std::cmp::Ordering::*;
            bool_v(match name {
                "lt" => o == Less,
                "le" => o != Greater,
                "gt" => o == Greater,
                _ => o != Less,
            })
        }
        "call" => msg("call is not supported"),

        // ------------------------------------------------ sprig: general
        "default" => {
            if a.is_empty() || a.len() > 2 {
                return msg("wrong number of args for default");
            }
            if a.len() == 1 || empty(&a[1]) {
                Ok(a[0].clone())
            } else {
                Ok(a[1].clone())
            }
        }
        "empty" => {
            nargs(a, 1, name)?;
            bool_v(empty(&a[0]))
        }
        "coalesce" => {
            for v in a {
                if v.is_unknown() {
                    return Ok(Value::Unknown);
                }
                if !empty(v) {
                    return Ok(v.clone());
                }
            }
            Ok(Value::Nil)
        }
        "all" => bool_v(a.iter().all(|v| !empty(v))),
        "any" => bool_v(a.iter().any(|v| !empty(v))),
        "ternary" => {
            nargs(a, 3, name)?;
            Ok(if a[2].truth().unwrap_or(false) {
                a[0].clone()
            } else {
                a[1].clone()
            })
        }
        "kindOf" => {
            nargs(a, 1, name)?;
            s(a[0].kind())
        }
        "kindIs" => {
            nargs(a, 2, name)?;
            bool_v(want_str(&a[0], name)? == a[1].kind())
        }
        "typeOf" => {
            nargs(a, 1, name)?;
            s(a[0].type_name())
        }
        "typeIs" | "typeIsLike" => {
            nargs(a, 2, name)?;
            let t = want_str(&a[0], name)?;
            bool_v(
                t == a[1].type_name()
                    || (name == "typeIsLike" && t == format!("*{}", a[1].type_name())),
            )
        }
        "deepEqual" => {
            nargs(a, 2, name)?;
            bool_v(a[0] == a[1])
        }
        "toString" => {
            nargs(a, 1, name)?;
            s(strval(&a[0]))
        }
        "toStrings" => {
            nargs(a, 1, name)?;
            let l = list_of(&a[0], name)?;
            Ok(Value::list(
                l.iter().map(|v| Value::str(strval(v))).collect(),
            ))
        }
        "atoi" => {
            nargs(a, 1, name)?;
            Ok(Value::Int(
                want_str(&a[0], name)?.trim().parse::<i64>().unwrap_or(0),
            ))
        }
        "int" | "int64" => {
            nargs(a, 1, name)?;
            Ok(Value::Int(to_int64(&a[0])))
        }
        "float64" => {
            nargs(a, 1, name)?;
            Ok(Value::Float(to_float64(&a[0])))
        }
        "toDecimal" => {
            nargs(a, 1, name)?;
            Ok(Value::Int(
                i64::from_str_radix(&strval(&a[0]), 8).unwrap_or(0),
            ))
        }

        // ------------------------------------------------ strings
        "trim" => s(want_str(one(a, name)?, name)?.trim_matches(is_go_space)),
        "trimAll" | "trimall" => {
            nargs(a, 2, name)?;
            let cut = want_str(&a[0], name)?;
            s(want_str(&a[1], name)?.trim_matches(|c| cut.contains(c)))
        }
        "trimSuffix" => {
            nargs(a, 2, name)?;
            let suf = want_str(&a[0], name)?;
            let v = want_str(&a[1], name)?;
            s(v.strip_suffix(suf).unwrap_or(v))
        }
        "trimPrefix" => {
            nargs(a, 2, name)?;
            let p = want_str(&a[0], name)?;
            let v = want_str(&a[1], name)?;
            s(v.strip_prefix(p).unwrap_or(v))
        }
        "upper" => s(want_str(one(a, name)?, name)?.to_uppercase()),
        "lower" => s(want_str(one(a, name)?, name)?.to_lowercase()),
        "title" => s(title(want_str(one(a, name)?, name)?)),
        "untitle" => {
            let v = want_str(one(a, name)?, name)?;
            s(v.split(' ')
                .map(|w| {
                    let mut c = w.chars();
                    match c.next() {
                        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
                        None => String::new(),
                    }
                })
                .collect::<Vec<_>>()
                .join(" "))
        }
        "replace" => {
            nargs(a, 3, name)?;
            let (old, new, src) = (
                want_str(&a[0], name)?,
                want_str(&a[1], name)?,
                want_str(&a[2], name)?,
            );
            if old.is_empty() {
                return s(go_replace_empty(src, new));
            }
            check_size(lim, src.len().saturating_mul(new.len().max(1)))?;
            s(src.replace(old, new))
        }
        "contains" => {
            nargs(a, 2, name)?;
            bool_v(want_str(&a[1], name)?.contains(want_str(&a[0], name)?))
        }
        "hasPrefix" => {
            nargs(a, 2, name)?;
            bool_v(want_str(&a[1], name)?.starts_with(want_str(&a[0], name)?))
        }
        "hasSuffix" => {
            nargs(a, 2, name)?;
            bool_v(want_str(&a[1], name)?.ends_with(want_str(&a[0], name)?))
        }
        "trunc" => {
            nargs(a, 2, name)?;
            let n = want_int(&a[0])?;
            let v = want_str(&a[1], name)?;
            let len = v.len() as i64;
            if n < 0 && len + n > 0 {
                s(byte_slice(v, (len + n) as usize, v.len()))
            } else if n >= 0 && len > n {
                s(byte_slice(v, 0, n as usize))
            } else {
                s(v)
            }
        }
        "substr" => {
            nargs(a, 3, name)?;
            let (start, end) = (want_int(&a[0])?, want_int(&a[1])?);
            let v = want_str(&a[2], name)?;
            let len = v.len() as i64;
            if start < 0 {
                return s(byte_slice(v, 0, end.clamp(0, len) as usize));
            }
            if end < 0 || end > len {
                return s(byte_slice(v, start.min(len) as usize, v.len()));
            }
            if start > end {
                return s("");
            }
            s(byte_slice(v, start as usize, end as usize))
        }
        "quote" => s(a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| go_quote(&strval(v)))
            .collect::<Vec<_>>()
            .join(" ")),
        "squote" => s(a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| format!("'{}'", strval(v)))
            .collect::<Vec<_>>()
            .join(" ")),
        "cat" => s(a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(go_string)
            .collect::<Vec<_>>()
            .join(" ")),
        "indent" | "nindent" => {
            nargs(a, 2, name)?;
            let n = want_int(&a[0])?.max(0) as usize;
            let v = want_str(&a[1], name)?;
            check_size(
                lim,
                v.len()
                    .saturating_add(n.saturating_mul(v.matches('\n').count() + 1)),
            )?;
            let pad = " ".repeat(n);
            let mut out = String::new();
            if name == "nindent" {
                out.push('\n');
            }
            out.push_str(&pad);
            out.push_str(&v.replace('\n', &format!("\n{pad}")));
            s(out)
        }
        "repeat" => {
            nargs(a, 2, name)?;
            let n = want_int(&a[0])?;
            let v = want_str(&a[1], name)?;
            if n < 0 {
                return msg("strings: negative Repeat count");
            }
            let size = (n as u128).saturating_mul(v.len() as u128);
            if size > lim.max_string_bytes as u128 {
                return Err(FnError::Limit(
                    "max-string-bytes",
                    format!(
                        "repeat would make {size} bytes, more than {}",
                        lim.max_string_bytes
                    ),
                ));
            }
            s(v.repeat(n as usize))
        }
        "nospace" => s(want_str(one(a, name)?, name)?
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()),
        "abbrev" => {
            nargs(a, 2, name)?;
            let w = want_int(&a[0])?;
            let v = want_str(&a[1], name)?;
            if w < 4 || v.len() as i64 <= w {
                return s(v);
            }
            s(format!("{}...", byte_slice(v, 0, (w - 3) as usize)))
        }
        "initials" => s(want_str(one(a, name)?, name)?
            .split_whitespace()
            .filter_map(|w| w.chars().next())
            .collect::<String>()),
        "wrap" | "wrapWith" => {
            let (w, text) = match a {
                [w, t] if name == "wrap" => (want_int(w)?, want_str(t, name)?),
                [w, _, t] => (want_int(w)?, want_str(t, name)?),
                _ => return msg(format!("wrong number of args for {name}")),
            };
            // goutils' line breaking is not reproduced: longer text is unknown.
            if text.chars().count() as i64 <= w.max(1) && !text.contains('\n') {
                s(text)
            } else {
                Ok(Value::Unknown)
            }
        }
        "plural" => {
            nargs(a, 3, name)?;
            Ok(if to_int64(&a[2]) == 1 {
                a[0].clone()
            } else {
                a[1].clone()
            })
        }
        "snakecase" => s(snake(want_str(one(a, name)?, name)?, '_')),
        "kebabcase" => s(snake(want_str(one(a, name)?, name)?, '-')),
        "camelcase" => s(camel(want_str(one(a, name)?, name)?)),
        "swapcase" => s(want_str(one(a, name)?, name)?
            .chars()
            .map(|c| {
                if c.is_uppercase() {
                    c.to_lowercase().next().unwrap_or(c)
                } else {
                    c.to_uppercase().next().unwrap_or(c)
                }
            })
            .collect::<String>()),
        "split" => {
            nargs(a, 2, name)?;
            let sep = want_str(&a[0], name)?;
            let v = want_str(&a[1], name)?;
            let mut m = Map::new();
            for (i, p) in go_split(v, sep).into_iter().enumerate() {
                m.insert(format!("_{i}"), Value::str(p));
            }
            Ok(Value::map(m))
        }
        "splitList" => {
            nargs(a, 2, name)?;
            let sep = want_str(&a[0], name)?;
            let v = want_str(&a[1], name)?;
            Ok(Value::list(
                go_split(v, sep).into_iter().map(Value::str).collect(),
            ))
        }
        "splitn" => {
            nargs(a, 3, name)?;
            let sep = want_str(&a[0], name)?;
            let n = want_int(&a[1])?;
            let v = want_str(&a[2], name)?;
            let parts: Vec<&str> = if n < 0 {
                v.split(sep).collect()
            } else {
                v.splitn(n as usize, sep).collect()
            };
            let mut m = Map::new();
            for (i, p) in parts.into_iter().enumerate() {
                m.insert(format!("_{i}"), Value::str(p));
            }
            Ok(Value::map(m))
        }
        "join" => {
            nargs(a, 2, name)?;
            let sep = want_str(&a[0], name)?;
            let items: Vec<String> = match &a[1] {
                Value::List(l) => l
                    .iter()
                    .filter(|v| !matches!(v, Value::Nil))
                    .map(strval)
                    .collect(),
                Value::Nil => Vec::new(),
                other => vec![strval(other)],
            };
            s(items.join(sep))
        }
        "sortAlpha" => {
            nargs(a, 1, name)?;
            let mut items: Vec<String> = match &a[0] {
                Value::List(l) => l.iter().map(strval).collect(),
                other => vec![strval(other)],
            };
            items.sort();
            Ok(Value::list(items.into_iter().map(Value::str).collect()))
        }
        "regexMatch" | "mustRegexMatch" => {
            nargs(a, 2, name)?;
            bool_v(regex(want_str(&a[0], name)?)?.is_match(want_str(&a[1], name)?))
        }
        "regexFind" | "mustRegexFind" => {
            nargs(a, 2, name)?;
            let re = regex(want_str(&a[0], name)?)?;
            s(re.find(want_str(&a[1], name)?)
                .map(|m| m.as_str())
                .unwrap_or(""))
        }
        "regexFindAll" | "mustRegexFindAll" => {
            nargs(a, 3, name)?;
            let re = regex(want_str(&a[0], name)?)?;
            let n = want_int(&a[2])?;
            let v = want_str(&a[1], name)?;
            let it = re.find_iter(v).map(|m| Value::str(m.as_str()));
            Ok(Value::list(if n < 0 {
                it.collect()
            } else {
                it.take(n as usize).collect()
            }))
        }
        "regexReplaceAll"
        | "mustRegexReplaceAll"
        | "regexReplaceAllLiteral"
        | "mustRegexReplaceAllLiteral" => {
            nargs(a, 3, name)?;
            let re = regex(want_str(&a[0], name)?)?;
            let v = want_str(&a[1], name)?;
            let rep = want_str(&a[2], name)?;
            if name.contains("Literal") {
                s(re.replace_all(v, regex::NoExpand(rep)).into_owned())
            } else {
                s(re.replace_all(v, rep).into_owned())
            }
        }
        "regexSplit" | "mustRegexSplit" => {
            nargs(a, 3, name)?;
            let re = regex(want_str(&a[0], name)?)?;
            let n = want_int(&a[2])?;
            let v = want_str(&a[1], name)?;
            let parts: Vec<Value> = if n < 0 {
                re.split(v).map(Value::str).collect()
            } else {
                re.splitn(v, n as usize).map(Value::str).collect()
            };
            Ok(Value::list(parts))
        }
        "regexQuoteMeta" => s(regex::escape(want_str(one(a, name)?, name)?)),
        "b64enc" => s(digest::b64enc(bytes_of(one(a, name)?).as_bytes())),
        "b64dec" => {
            let v = want_str(one(a, name)?, name)?;
            match digest::b64dec(v) {
                Some(b) => s(String::from_utf8_lossy(&b).into_owned()),
                None => s("illegal base64 data at input byte 0"),
            }
        }
        "sha256sum" => s(digest::hex(&digest::sha256(
            bytes_of(one(a, name)?).as_bytes(),
        ))),
        "sha1sum" => s(digest::hex(&digest::sha1(
            bytes_of(one(a, name)?).as_bytes(),
        ))),
        "adler32sum" => s(digest::adler32(bytes_of(one(a, name)?).as_bytes()).to_string()),

        // ------------------------------------------------ lists
        "list" | "tuple" => Ok(Value::list(a.to_vec())),
        "chunk" | "mustChunk" => {
            nargs(a, 2, name)?;
            let size = want_int(&a[0])?;
            if size <= 0 {
                return msg("size must be positive");
            }
            let l = list_of(&a[1], "chunk")?;
            Ok(Value::list(
                l.chunks(size as usize)
                    .map(|c| Value::list(c.to_vec()))
                    .collect(),
            ))
        }
        "base" | "dir" | "ext" | "clean" | "isAbs" => {
            let p = want_str(one(a, name)?, name)?;
            Ok(path_fn(name, p))
        }
        "first" | "mustFirst" => {
            let l = list_of(one(a, name)?, "find first")?;
            Ok(l.first().cloned().unwrap_or_default())
        }
        "last" | "mustLast" => {
            let l = list_of(one(a, name)?, "find last")?;
            Ok(l.last().cloned().unwrap_or_default())
        }
        "rest" | "mustRest" => {
            let l = list_of(one(a, name)?, "find rest")?;
            Ok(if l.is_empty() {
                Value::Nil
            } else {
                Value::list(l[1..].to_vec())
            })
        }
        "initial" | "mustInitial" => {
            let l = list_of(one(a, name)?, "find initial")?;
            Ok(if l.is_empty() {
                Value::Nil
            } else {
                Value::list(l[..l.len() - 1].to_vec())
            })
        }
        "append" | "push" | "mustAppend" | "mustPush" => {
            nargs(a, 2, name)?;
            let mut l = list_of(&a[0], "append")?.to_vec();
            l.push(a[1].clone());
            Ok(Value::list(l))
        }
        "prepend" | "mustPrepend" => {
            nargs(a, 2, name)?;
            let mut l = list_of(&a[0], "prepend")?.to_vec();
            l.insert(0, a[1].clone());
            Ok(Value::list(l))
        }
        "concat" => {
            let mut out = Vec::new();
            for v in a {
                out.extend(list_of(v, "concat")?.iter().cloned());
            }
            Ok(Value::list(out))
        }
        "has" | "mustHas" => {
            nargs(a, 2, name)?;
            match &a[1] {
                Value::Nil => bool_v(false),
                h => bool_v(list_of(h, "find has")?.iter().any(|v| *v == a[0])),
            }
        }
        "uniq" | "mustUniq" => {
            let l = list_of(one(a, name)?, "find uniq")?;
            let mut out: Vec<Value> = Vec::new();
            for v in l.iter() {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
            Ok(Value::list(out))
        }
        "compact" | "mustCompact" => {
            let l = list_of(one(a, name)?, "compact")?;
            Ok(Value::list(
                l.iter().filter(|v| !empty(v)).cloned().collect(),
            ))
        }
        "without" | "mustWithout" => {
            if a.is_empty() {
                return msg("wrong number of args for without");
            }
            let l = list_of(&a[0], "find without")?;
            Ok(Value::list(
                l.iter().filter(|v| !a[1..].contains(v)).cloned().collect(),
            ))
        }
        "reverse" | "mustReverse" => {
            let mut l = list_of(one(a, name)?, "find reverse")?.to_vec();
            l.reverse();
            Ok(Value::list(l))
        }
        "until" => {
            let n = want_int(one(a, name)?)?;
            let (start, stop, step) = if n >= 0 { (0, n, 1) } else { (0, n, -1) };
            until_step(start, stop, step, lim)
        }
        "untilStep" => {
            nargs(a, 3, name)?;
            until_step(want_int(&a[0])?, want_int(&a[1])?, want_int(&a[2])?, lim)
        }
        "seq" => {
            let p: Vec<i64> = a.iter().map(to_int64).collect();
            let (start, stop, step) = match p.as_slice() {
                [] => return s(""),
                [e] => (1, *e, if *e >= 1 { 1 } else { -1 }),
                [b, e] => (*b, *e, if e >= b { 1 } else { -1 }),
                [b, st, e] => (*b, *e, *st),
                _ => return msg("seq takes at most 3 arguments"),
            };
            if step == 0 || (step > 0 && start > stop) || (step < 0 && start < stop) {
                return s("");
            }
            let count = ((stop - start) / step).unsigned_abs() + 1;
            if count > lim.max_list_items as u64 {
                return Err(FnError::Limit(
                    "max-list-items",
                    format!(
                        "seq would make {count} items, more than {}",
                        lim.max_list_items
                    ),
                ));
            }
            let mut out = Vec::new();
            let mut i = start;
            while (step > 0 && i <= stop) || (step < 0 && i >= stop) {
                out.push(i.to_string());
                i += step;
            }
            s(out.join(" "))
        }

        // ------------------------------------------------ dicts
        "dict" => {
            let mut m = Map::new();
            for pair in a.chunks(2) {
                let k = strval(&pair[0]);
                m.insert(k, pair.get(1).cloned().unwrap_or_else(|| Value::str("")));
            }
            Ok(Value::map(m))
        }
        "get" => {
            nargs(a, 2, name)?;
            let m = map_of(&a[0])?;
            let k = want_str(&a[1], name)?;
            let r = m.borrow().get(k).cloned().unwrap_or_else(|| Value::str(""));
            Ok(r)
        }
        "set" => {
            nargs(a, 3, name)?;
            let m = map_of(&a[0])?;
            let k = want_str(&a[1], name)?.to_string();
            m.borrow_mut().insert(k, a[2].clone());
            Ok(a[0].clone())
        }
        "unset" => {
            nargs(a, 2, name)?;
            let m = map_of(&a[0])?;
            let k = want_str(&a[1], name)?.to_string();
            m.borrow_mut().remove(&k);
            Ok(a[0].clone())
        }
        "hasKey" => {
            nargs(a, 2, name)?;
            let m = map_of(&a[0])?;
            let k = want_str(&a[1], name)?;
            let r = m.borrow().contains_key(k);
            bool_v(r)
        }
        "keys" => {
            let mut out = Vec::new();
            for v in a {
                let m = map_of(v)?;
                out.extend(m.borrow().keys().map(|k| Value::str(k.as_str())));
            }
            Ok(Value::list(out))
        }
        "values" => {
            let m = map_of(one(a, name)?)?;
            let r = m.borrow().values().cloned().collect();
            Ok(Value::list(r))
        }
        "pick" | "omit" => {
            if a.is_empty() {
                return msg("wrong number of args");
            }
            let m = map_of(&a[0])?;
            let keys: Vec<String> = a[1..].iter().map(strval).collect();
            let r = m
                .borrow()
                .iter()
                .filter(|(k, _)| keys.contains(k) == (name == "pick"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Ok(Value::map(r))
        }
        "merge" | "mustMerge" | "mergeOverwrite" | "mustMergeOverwrite" => {
            if a.is_empty() {
                return msg("wrong number of args");
            }
            let dst = map_of(&a[0])?;
            let over = name.contains("Overwrite");
            for src in &a[1..] {
                if let Value::Map(sm) = src {
                    if Rc::ptr_eq(sm, &dst) {
                        continue;
                    }
                    let sm = sm.borrow().clone();
                    let mut d = dst.borrow_mut();
                    merge_into(&mut d, &sm, over, 0);
                }
            }
            Ok(a[0].clone())
        }
        "deepCopy" | "mustDeepCopy" => Ok(one(a, name)?.deep_copy()),
        "dig" => {
            if a.len() < 3 {
                return msg("dig needs at least three arguments");
            }
            let m = map_of(&a[a.len() - 1])?;
            let default = a[a.len() - 2].clone();
            let mut cur = Value::Map(m);
            for k in &a[..a.len() - 2] {
                let k = want_str(k, name)?;
                let next = match &cur {
                    Value::Map(m) => m.borrow().get(k).cloned(),
                    Value::Unknown => return Ok(Value::Unknown),
                    _ => None,
                };
                match next {
                    Some(v) => cur = v,
                    None => return Ok(default),
                }
            }
            Ok(cur)
        }
        "pluck" => {
            if a.is_empty() {
                return msg("wrong number of args");
            }
            let k = want_str(&a[0], name)?;
            let mut out = Vec::new();
            for d in &a[1..] {
                if let Value::Map(m) = d {
                    if let Some(v) = m.borrow().get(k) {
                        out.push(v.clone());
                    }
                }
            }
            Ok(Value::list(out))
        }

        // ------------------------------------------------ math
        "add" => Ok(Value::Int(
            a.iter().map(to_int64).fold(0i64, |x, y| x.wrapping_add(y)),
        )),
        "add1f" => Ok(Value::Float(to_float64(one(a, name)?) + 1.0)),
        "add1" => Ok(Value::Int(to_int64(one(a, name)?).wrapping_add(1))),
        "sub" => {
            nargs(a, 2, name)?;
            Ok(Value::Int(to_int64(&a[0]).wrapping_sub(to_int64(&a[1]))))
        }
        "mul" => Ok(Value::Int(
            a.iter().map(to_int64).fold(1i64, |x, y| x.wrapping_mul(y)),
        )),
        "div" | "mod" => {
            nargs(a, 2, name)?;
            let (x, y) = (to_int64(&a[0]), to_int64(&a[1]));
            if y == 0 {
                return msg("runtime error: integer divide by zero");
            }
            Ok(Value::Int(if name == "div" {
                x.wrapping_div(y)
            } else {
                x.wrapping_rem(y)
            }))
        }
        "max" | "min" | "biggest" => {
            if a.is_empty() {
                return msg("wrong number of args");
            }
            let it = a.iter().map(to_int64);
            Ok(Value::Int(if name == "max" {
                it.max().unwrap_or(0)
            } else {
                it.min().unwrap_or(0)
            }))
        }
        "addf" => Ok(Value::Float(a.iter().map(to_float64).sum())),
        "subf" => Ok(Value::Float(
            a.iter()
                .skip(1)
                .map(to_float64)
                .fold(a.first().map_or(0.0, to_float64), |x, y| x - y),
        )),
        "mulf" => Ok(Value::Float(a.iter().map(to_float64).product())),
        "divf" => Ok(Value::Float(
            a.iter()
                .skip(1)
                .map(to_float64)
                .fold(a.first().map_or(0.0, to_float64), |x, y| x / y),
        )),
        "maxf" => Ok(Value::Float(
            a.iter().map(to_float64).fold(f64::NEG_INFINITY, f64::max),
        )),
        "minf" => Ok(Value::Float(
            a.iter().map(to_float64).fold(f64::INFINITY, f64::min),
        )),
        "floor" => Ok(Value::Float(to_float64(one(a, name)?).floor())),
        "ceil" => Ok(Value::Float(to_float64(one(a, name)?).ceil())),
        "round" => {
            if a.len() < 2 {
                return msg("wrong number of args for round");
            }
            let p = 10f64.powi(to_int64(&a[1]) as i32);
            let x = to_float64(&a[0]) * p;
            let r = if x >= 0.0 {
                (x + 0.5).floor()
            } else {
                (x - 0.5).ceil()
            };
            Ok(Value::Float(r / p))
        }

        // ------------------------------------------------ serialisation
        "toYaml" | "mustToYaml" | "toYamlPretty" => {
            let v = one(a, name)?;
            match value::to_yaml(v) {
                Ok(y) => s(y.trim_end_matches('\n').to_string()),
                Err(e) if name == "toYaml" => {
                    let _ = e;
                    s("")
                }
                Err(e) => msg(e),
            }
        }
        "toJson" | "mustToJson" | "toRawJson" | "mustToRawJson" => {
            match value::to_json(one(a, name)?, false) {
                Ok(j) => s(if name.contains("Raw") {
                    unescape_html(&j)
                } else {
                    j
                }),
                Err(e) if name.starts_with("must") => msg(e),
                Err(_) => s(""),
            }
        }
        "toPrettyJson" | "mustToPrettyJson" => match value::to_json(one(a, name)?, true) {
            Ok(j) => s(j),
            Err(e) if name.starts_with("must") => msg(e),
            Err(_) => s(""),
        },
        "fromYaml" | "fromJson" | "mustFromJson" => {
            let text = want_str(one(a, name)?, name)?;
            match value::parse_yaml(text, lim.max_values_depth, lim.max_values_nodes) {
                Ok((docs, _)) => match docs.into_iter().next() {
                    Some(v @ Value::Map(_)) => Ok(v),
                    None | Some(Value::Nil) => Ok(Value::empty_map()),
                    Some(other) => {
                        let mut m = Map::new();
                        m.insert(
                            "Error".into(),
                            Value::str(format!(
                                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                                json_kind(&other)
                            )),
                        );
                        Ok(Value::map(m))
                    }
                },
                Err(e) => {
                    if name == "mustFromJson" {
                        return msg(e.message);
                    }
                    // go-yaml's wording is not ours: the message is unknown.
                    let _ = e;
                    let mut m = Map::new();
                    m.insert("Error".into(), Value::Unknown);
                    Ok(Value::map(m))
                }
            }
        }
        "fromYamlArray" | "fromJsonArray" => {
            let text = want_str(one(a, name)?, name)?;
            match value::parse_yaml(text, lim.max_values_depth, lim.max_values_nodes) {
                Ok((docs, _)) => match docs.into_iter().next() {
                    Some(v @ Value::List(_)) => Ok(v),
                    None | Some(Value::Nil) => Ok(Value::list(Vec::new())),
                    Some(other) => Ok(Value::list(vec![Value::str(format!(
                        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type []interface {{}}",
                        json_kind(&other)
                    ))])),
                },
                Err(_) => Ok(Value::list(vec![Value::Unknown])),
            }
        }

        // ------------------------------------------------ semver
        "semverCompare" => {
            nargs(a, 2, name)?;
            let c = want_str(&a[0], name)?;
            let v = want_str(&a[1], name)?;
            let ver =
                semver_parse(v).ok_or_else(|| FnError::Msg("Invalid Semantic Version".into()))?;
            let cons = constraint_parse(c)
                .ok_or_else(|| FnError::Msg(format!("improper constraint: {c}")))?;
            bool_v(cons.matches(&ver))
        }
        "semver" => {
            let v = want_str(one(a, name)?, name)?;
            let ver =
                semver_parse(v).ok_or_else(|| FnError::Msg("Invalid Semantic Version".into()))?;
            let mut m = Map::new();
            m.insert("Major".into(), Value::Int(ver.major as i64));
            m.insert("Minor".into(), Value::Int(ver.minor as i64));
            m.insert("Patch".into(), Value::Int(ver.patch as i64));
            m.insert("Prerelease".into(), Value::str(ver.pre.as_str()));
            m.insert("Metadata".into(), Value::str(ver.meta.as_str()));
            m.insert("Original".into(), Value::str(v));
            Ok(Value::map(m))
        }

        // ------------------------------------------------ unknowable
        "randAlphaNum"
        | "randAlpha"
        | "randNumeric"
        | "randAscii"
        | "randInt"
        | "randBytes"
        | "uuidv4"
        | "genCA"
        | "genCAWithKey"
        | "genSelfSignedCert"
        | "genSelfSignedCertWithKey"
        | "genSignedCert"
        | "genSignedCertWithKey"
        | "genPrivateKey"
        | "derivePassword"
        | "lookup"
        | "now"
        | "htpasswd"
        | "encryptAES"
        | "decryptAES"
        | "shuffle"
        | "getHostByName"
        | "bcrypt"
        | "randChoice"
        | "env"
        | "expandenv"
        | "buildCustomCert"
        | "ago"
        | "dateModify"
        | "mustDateModify" => Ok(Value::Unknown),

        // ------------------------------------------------ dates (no clock: only given times)
        "date" | "dateInZone" | "date_in_zone" | "date_modify" | "htmlDate" | "htmlDateInZone"
        | "toDate" | "mustToDate" | "unixEpoch" | "duration" | "durationRound" => {
            Ok(Value::Unknown)
        }

        "toToml" => Ok(Value::Unknown),
        "fail" | "required" | "include" | "tpl" => Err(FnError::NotFound),
        _ => Err(FnError::NotFound),
    }
}

/// Go's `path` functions (slash-separated, as Sprig uses them).
fn path_fn(name: &str, p: &str) -> Value {
    let clean = {
        let abs = p.starts_with('/');
        let mut parts: Vec<&str> = Vec::new();
        for seg in p.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    if parts.last().is_some_and(|l| *l != "..") {
                        parts.pop();
                    } else if !abs {
                        parts.push("..");
                    }
                }
                s => parts.push(s),
            }
        }
        let j = parts.join("/");
        match (abs, j.is_empty()) {
            (true, _) => format!("/{j}"),
            (false, true) => ".".to_string(),
            (false, false) => j,
        }
    };
    match name {
        "clean" => Value::str(clean),
        "isAbs" => Value::Bool(p.starts_with('/')),
        "base" => {
            let t = p.trim_end_matches('/');
            if p.is_empty() {
                Value::str(".")
            } else if t.is_empty() {
                Value::str("/")
            } else {
                Value::str(t.rsplit('/').next().unwrap_or(t))
            }
        }
        "dir" => {
            let d = match p.rfind('/') {
                Some(i) => &p[..=i],
                None => "",
            };
            Value::Str(match path_fn("clean", d) {
                Value::Str(s) => s,
                _ => ".".into(),
            })
        }
        _ => {
            let b = p.rsplit('/').next().unwrap_or(p);
            Value::str(b.rfind('.').map_or("", |i| &b[i..]))
        }
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::List(_) => "array",
        Value::Str(_) => "string",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Float(_) => "number",
        Value::Map(_) => "object",
        _ => "value",
    }
}

fn unescape_html(j: &str) -> String {
    j.replace("\\u003c", "<")
        .replace("\\u003e", ">")
        .replace("\\u0026", "&")
}

fn one<'a>(a: &'a [Value], name: &str) -> Result<&'a Value, FnError> {
    nargs(a, 1, name)?;
    Ok(&a[0])
}

fn bytes_of(v: &Value) -> String {
    strval(v)
}

fn is_go_space(c: char) -> bool {
    c.is_whitespace()
}

fn byte_slice(v: &str, i: usize, j: usize) -> String {
    let b = v.as_bytes();
    let i = i.min(b.len());
    let j = j.clamp(i, b.len());
    String::from_utf8_lossy(&b[i..j]).into_owned()
}

fn check_size(lim: &Limits, n: usize) -> Result<(), FnError> {
    if n > lim.max_string_bytes {
        return Err(FnError::Limit(
            "max-string-bytes",
            format!("string of {n} bytes, more than {}", lim.max_string_bytes),
        ));
    }
    Ok(())
}

fn until_step(start: i64, stop: i64, step: i64, lim: &Limits) -> R {
    if step == 0 || (step > 0 && start >= stop) || (step < 0 && start <= stop) {
        return Ok(Value::list(Vec::new()));
    }
    let count = ((stop as i128 - start as i128) / step as i128).unsigned_abs() + 1;
    if count > lim.max_list_items as u128 {
        return Err(FnError::Limit(
            "max-list-items",
            format!(
                "until would make {count} items, more than {}",
                lim.max_list_items
            ),
        ));
    }
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(Value::Int(i));
        i = match i.checked_add(step) {
            Some(n) => n,
            None => break,
        };
    }
    Ok(Value::list(out))
}

fn index_of(v: &Value) -> Result<i64, FnError> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Float(f) => msg(format!("cannot index slice/array with type float64 ({f})")),
        Value::Nil => msg("cannot index slice/array with nil"),
        other => msg(format!(
            "cannot index slice/array with type {}",
            other.type_name()
        )),
    }
}

fn bounds(idx: &[i64], len: usize) -> Result<(usize, usize), FnError> {
    let get = |k: usize, d: usize| -> Result<usize, FnError> {
        match idx.get(k) {
            Some(&i) if i < 0 || i as usize > len => msg(format!("index out of range: {i}")),
            Some(&i) => Ok(i as usize),
            None => Ok(d),
        }
    };
    let i = get(0, 0)?;
    let j = get(1, len)?;
    if i > j {
        return msg(format!("invalid slice index: {i} > {j}"));
    }
    Ok((i, j))
}

fn merge_into(dst: &mut Map, src: &Map, over: bool, depth: usize) {
    if depth > value::MAX_NEST {
        return;
    }
    for (k, sv) in src {
        match dst.get(k) {
            Some(Value::Map(dm)) => {
                if let Value::Map(sm) = sv {
                    if !Rc::ptr_eq(dm, sm) {
                        let sm = sm.borrow().clone();
                        merge_into(&mut dm.borrow_mut(), &sm, over, depth + 1);
                    }
                } else if over && !matches!(sv, Value::Nil) {
                    dst.insert(k.clone(), sv.clone());
                }
            }
            Some(dv) => {
                let replace = (over && !empty_for_merge(sv)) || matches!(dv, Value::Nil);
                if replace {
                    dst.insert(k.clone(), sv.deep_copy());
                }
            }
            None => {
                dst.insert(k.clone(), sv.deep_copy());
            }
        }
    }
}

fn empty_for_merge(v: &Value) -> bool {
    matches!(v, Value::Nil)
}

fn regex(p: &str) -> Result<regex::Regex, FnError> {
    regex::RegexBuilder::new(p)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| FnError::Msg(format!("error parsing regexp: {e}")))
}

fn go_split(v: &str, sep: &str) -> Vec<String> {
    if sep.is_empty() {
        return v.chars().map(|c| c.to_string()).collect();
    }
    v.split(sep).map(str::to_string).collect()
}

fn go_replace_empty(src: &str, new: &str) -> String {
    let mut out = String::from(new);
    for c in src.chars() {
        out.push(c);
        out.push_str(new);
    }
    out
}

fn title(v: &str) -> String {
    let mut out = String::new();
    let mut prev_letter = false;
    for c in v.chars() {
        if !prev_letter && c.is_alphanumeric() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_letter = c.is_alphanumeric() || c == '_' || c == '\'';
    }
    out
}

fn snake(v: &str, sep: char) -> String {
    let mut out = String::new();
    let chars: Vec<char> = v.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = if i > 0 { Some(chars[i - 1]) } else { None };
            let next = chars.get(i + 1);
            let boundary = prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(|p| p.is_uppercase())
                    && next.is_some_and(|n| n.is_lowercase()));
            if boundary && !out.ends_with(sep) {
                out.push(sep);
            }
            out.extend(c.to_lowercase());
        } else if c == '_' || c == '-' || c == ' ' {
            if !out.is_empty() && !out.ends_with(sep) {
                out.push(sep);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn camel(v: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in v.chars() {
        if c == '_' || c == '-' || c == ' ' {
            up = true;
            continue;
        }
        if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

// ------------------------------------------------------------------ fmt

fn is_string(v: &Value) -> bool {
    matches!(v, Value::Str(_) | Value::Unknown)
}

/// `fmt.Sprint`: a space between operands when neither is a string.
pub fn sprint(a: &[Value]) -> String {
    let mut out = String::new();
    for (i, v) in a.iter().enumerate() {
        if i > 0 && !is_string(v) && !is_string(&a[i - 1]) {
            out.push(' ');
        }
        out.push_str(&go_string(v));
    }
    out
}

/// What `html`/`js`/`urlquery` print: one string argument as is.
fn sprint_plain(a: &[Value]) -> String {
    if let [Value::Str(s)] = a {
        return s.to_string();
    }
    sprint(a)
}

fn html_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn js_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            '\n' => out.push_str("\\u000A"),
            '\r' => out.push_str("\\u000D"),
            '\t' => out.push_str("\\u0009"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn urlquery(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// Go's `strconv.Quote`.
pub fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if !c.is_ascii() && (c.is_control() || c == '\u{feff}') => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn go_type_for_bad_verb(v: &Value) -> String {
    match v {
        Value::Nil => "<nil>".into(),
        _ => format!("{}={}", v.type_name(), go_string(v)),
    }
}

/// Go's `fmt.Sprintf` for the verbs templates use.
pub fn sprintf(f: &str, args: &[Value]) -> String {
    let mut out = String::new();
    let mut argi = 0;
    let mut chars = f.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut minus = false;
        let mut plus = false;
        let mut zero = false;
        let mut sharp = false;
        let mut space = false;
        while let Some(&fl) = chars.peek() {
            match fl {
                '-' => minus = true,
                '+' => plus = true,
                '0' => zero = true,
                '#' => sharp = true,
                ' ' => space = true,
                _ => break,
            }
            chars.next();
        }
        let mut width: Option<usize> = None;
        let mut num = String::new();
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() {
                num.push(d);
                chars.next();
            } else {
                break;
            }
        }
        if !num.is_empty() {
            width = num.parse().ok().map(|w: usize| w.min(1 << 16));
        }
        let mut prec: Option<usize> = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_ascii_digit() {
                    p.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            prec = Some(p.parse::<usize>().unwrap_or(0).min(1 << 10));
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(argi) else {
            let _ = write!(out, "%!{verb}(MISSING)");
            continue;
        };
        argi += 1;
        let body = format_one(verb, arg, prec, plus, sharp, space);
        let body = match body {
            Some(b) => b,
            None => {
                let _ = write!(out, "%!{verb}({})", go_type_for_bad_verb(arg));
                continue;
            }
        };
        let w = width.unwrap_or(0);
        let len = body.chars().count();
        if len < w {
            let pad = w - len;
            if minus {
                out.push_str(&body);
                out.push_str(&" ".repeat(pad));
            } else if zero && matches!(arg, Value::Int(_) | Value::Float(_)) && verb != 's' {
                let (sign, digits) = match body.strip_prefix('-') {
                    Some(d) => ("-", d.to_string()),
                    None => ("", body.clone()),
                };
                out.push_str(sign);
                out.push_str(&"0".repeat(pad));
                out.push_str(&digits);
            } else {
                out.push_str(&" ".repeat(pad));
                out.push_str(&body);
            }
        } else {
            out.push_str(&body);
        }
    }
    if argi < args.len() {
        out.push_str("%!(EXTRA ");
        let extra: Vec<String> = args[argi..].iter().map(go_type_for_bad_verb).collect();
        out.push_str(&extra.join(", "));
        out.push(')');
    }
    out
}

fn format_one(
    verb: char,
    v: &Value,
    prec: Option<usize>,
    plus: bool,
    sharp: bool,
    space: bool,
) -> Option<String> {
    let sign = |neg: bool, s: String| -> String {
        if neg {
            s
        } else if plus {
            format!("+{s}")
        } else if space {
            format!(" {s}")
        } else {
            s
        }
    };
    Some(match (verb, v) {
        ('v', Value::Float(f)) if prec.is_none() => sign(*f < 0.0, go_float_g(*f)),
        ('v', _) => {
            let s = go_string(v);
            if sharp {
                if let Value::Str(_) = v {
                    return Some(go_quote(&s));
                }
            }
            s
        }
        ('s', Value::Str(s)) => match prec {
            Some(p) => s.chars().take(p).collect(),
            None => s.to_string(),
        },
        ('s', Value::Unknown) => UNKNOWN_MARKER.into(),
        ('s', Value::Map(_)) => go_string(v),
        ('s', Value::Nil) => "%!s(<nil>)".into(),
        ('q', Value::Str(s)) => go_quote(s),
        ('q', Value::Unknown) => go_quote(UNKNOWN_MARKER),
        ('q', Value::Int(i)) => format!("'{}'", char::from_u32(*i as u32).unwrap_or('\u{fffd}')),
        ('d', Value::Int(i)) => sign(*i < 0, i.to_string()),
        ('t', Value::Bool(b)) => b.to_string(),
        ('x', Value::Int(i)) => {
            let s = format!("{:x}", i.unsigned_abs());
            let s = if sharp { format!("0x{s}") } else { s };
            if *i < 0 {
                format!("-{s}")
            } else {
                s
            }
        }
        ('X', Value::Int(i)) => {
            let s = format!("{:X}", i.unsigned_abs());
            if *i < 0 {
                format!("-{s}")
            } else {
                s
            }
        }
        ('x', Value::Str(s)) => digest::hex(s.as_bytes()),
        ('X', Value::Str(s)) => digest::hex(s.as_bytes()).to_uppercase(),
        ('o', Value::Int(i)) => format!("{:o}", i),
        ('b', Value::Int(i)) => format!("{:b}", i),
        ('c', Value::Int(i)) => char::from_u32(*i as u32).unwrap_or('\u{fffd}').to_string(),
        ('f' | 'F', Value::Float(f)) => sign(*f < 0.0, format!("{:.*}", prec.unwrap_or(6), f)),
        ('e', Value::Float(f)) => {
            let s = format!("{:.*e}", prec.unwrap_or(6), f);
            let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
            let e: i32 = e.parse().unwrap_or(0);
            sign(
                *f < 0.0,
                format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()),
            )
        }
        ('g', Value::Float(f)) => sign(*f < 0.0, go_float_g(*f)),
        ('d' | 'x' | 'X' | 'o' | 'b' | 'c' | 'q' | 'f' | 'e' | 'g' | 't' | 's', Value::List(l)) => {
            let parts: Vec<String> = l
                .iter()
                .map(|e| {
                    format_one(verb, e, prec, plus, sharp, space)
                        .unwrap_or_else(|| format!("%!{verb}({})", go_type_for_bad_verb(e)))
                })
                .collect();
            format!("[{}]", parts.join(" "))
        }
        ('T', _) => v.type_name().to_string(),
        _ => return None,
    })
}

// ------------------------------------------------------------ comparison

#[derive(PartialEq)]
enum Basic {
    Bool,
    Int,
    Float,
    Str,
    Nil,
    Other,
}

fn basic(v: &Value) -> Basic {
    match v {
        Value::Bool(_) => Basic::Bool,
        Value::Int(_) => Basic::Int,
        Value::Float(_) => Basic::Float,
        Value::Str(_) => Basic::Str,
        Value::Nil => Basic::Nil,
        _ => Basic::Other,
    }
}

/// Go's template `eq` for two operands.
fn go_eq(a: &Value, b: &Value) -> Result<bool, FnError> {
    let (ka, kb) = (basic(a), basic(b));
    if ka != kb {
        if ka == Basic::Nil || kb == Basic::Nil {
            return Ok(false);
        }
        return msg("incompatible types for comparison");
    }
    Ok(match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Nil, Value::Nil) => true,
        (Value::List(_), _) | (Value::Map(_), _) => {
            return msg(format!(
                "non-comparable type {}: {}",
                a.type_name(),
                go_string(a)
            ))
        }
        _ => a == b,
    })
}

fn go_cmp(a: &Value, b: &Value) -> Result<std::cmp::Ordering, FnError> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => {
            Ok(x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal))
        }
        (Value::Str(x), Value::Str(y)) => Ok(x.cmp(y)),
        _ if basic(a) == Basic::Other
            || basic(b) == Basic::Other
            || basic(a) == Basic::Nil
            || basic(b) == Basic::Nil
            || basic(a) == Basic::Bool =>
        {
            msg("invalid type for comparison")
        }
        _ => msg("incompatible types for comparison"),
    }
}

// ------------------------------------------------------------ semver

#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub meta: String,
}

/// Masterminds/semver's loose NewVersion (`v` prefix, missing parts).
pub fn semver_parse(s: &str) -> Option<Version> {
    let t = s.trim();
    let t = t.strip_prefix('v').unwrap_or(t);
    let (t, meta) = match t.split_once('+') {
        Some((a, b)) => (a, b.to_string()),
        None => (t, String::new()),
    };
    let (core, pre) = match t.split_once('-') {
        Some((a, b)) => (a, b.to_string()),
        None => (t, String::new()),
    };
    let parts: Vec<&str> = core.split('.').collect();
    if parts.is_empty()
        || parts.len() > 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let n = |i: usize| parts.get(i).map_or(Some(0), |p| p.parse::<u64>().ok());
    Some(Version {
        major: n(0)?,
        minor: n(1)?,
        patch: n(2)?,
        pre,
        meta,
    })
}

fn cmp_pre(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering::*;
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Equal,
        (true, false) => return Greater,
        (false, true) => return Less,
        _ => {}
    }
    let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for (x, y) in pa.iter().zip(pb.iter()) {
        let o = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(i), Ok(j)) => i.cmp(&j),
            (Ok(_), Err(_)) => Less,
            (Err(_), Ok(_)) => Greater,
            _ => x.cmp(y),
        };
        if o != Equal {
            return o;
        }
    }
    pa.len().cmp(&pb.len())
}

fn vcmp(a: &Version, b: &Version) -> std::cmp::Ordering {
    (a.major, a.minor, a.patch)
        .cmp(&(b.major, b.minor, b.patch))
        .then_with(|| cmp_pre(&a.pre, &b.pre))
}

struct Constraint {
    /// OR of ANDs of (op, version, wildcard depth).
    groups: Vec<Vec<(String, Version, usize)>>,
}

fn constraint_parse(c: &str) -> Option<Constraint> {
    let mut groups = Vec::new();
    for or in c.split("||") {
        let mut and = Vec::new();
        let or = or.trim();
        // Hyphen ranges: `1.2 - 1.4.5`.
        let normalised = or.replace(" - ", " HYPHEN ");
        let toks: Vec<String> = normalised
            .split([',', ' '])
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        let mut i = 0;
        let mut merged: Vec<String> = Vec::new();
        // Join "op version" written with a space (`>= 1.2`).
        while i < toks.len() {
            let t = &toks[i];
            if matches!(
                t.as_str(),
                "=" | "!=" | ">" | "<" | ">=" | "<=" | "~" | "~>" | "^"
            ) && i + 1 < toks.len()
            {
                merged.push(format!("{t}{}", toks[i + 1]));
                i += 2;
            } else {
                merged.push(t.clone());
                i += 1;
            }
        }
        let mut j = 0;
        while j < merged.len() {
            if j + 2 < merged.len() && merged[j + 1] == "HYPHEN" {
                let lo = parse_wild(&merged[j])?;
                let hi = parse_wild(&merged[j + 2])?;
                and.push((">=".into(), lo.0, lo.1));
                and.push(("<=".into(), hi.0, hi.1));
                j += 3;
                continue;
            }
            let t = &merged[j];
            let op_len = t
                .find(|c: char| c.is_ascii_digit() || c == 'v' || c == 'x' || c == 'X' || c == '*')
                .unwrap_or(t.len());
            let (op, ver) = t.split_at(op_len);
            let (v, wild) = parse_wild(ver)?;
            and.push((op.trim().to_string(), v, wild));
            j += 1;
        }
        groups.push(and);
    }
    Some(Constraint { groups })
}

/// Helm's `IsCompatibleRange`: whether a chart version meets a dependency's
/// version constraint. No constraint, or one that does not parse, is false.
pub(crate) fn version_in_range(constraint: &str, version: &str) -> bool {
    if constraint.trim().is_empty() {
        return false;
    }
    match (semver_parse(version), constraint_parse(constraint)) {
        (Some(v), Some(c)) => c.matches(&v),
        _ => false,
    }
}

/// A version with wildcards; the count says how many parts were given
/// before a wildcard or the end (3 when complete).
fn parse_wild(s: &str) -> Option<(Version, usize)> {
    let t = s.strip_prefix('v').unwrap_or(s);
    if t == "*" || t == "x" || t == "X" || t.is_empty() {
        return Some((semver_parse("0.0.0")?, 0));
    }
    let (core, rest) = match t.find(['-', '+']) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, ""),
    };
    let parts: Vec<&str> = core.split('.').collect();
    let mut given = 0;
    let mut nums = Vec::new();
    for p in &parts {
        if matches!(*p, "x" | "X" | "*") {
            break;
        }
        nums.push(*p);
        given += 1;
    }
    while nums.len() < 3 {
        nums.push("0");
    }
    let v = semver_parse(&format!("{}{}", nums.join("."), rest))?;
    Some((v, given))
}

impl Constraint {
    fn matches(&self, v: &Version) -> bool {
        self.groups.iter().any(|g| {
            // A prerelease only satisfies a group with a prerelease bound
            // (Masterminds' rule).
            if !v.pre.is_empty() && !g.iter().any(|(_, c, _)| !c.pre.is_empty()) {
                return false;
            }
            g.iter().all(|(op, c, wild)| check(op, c, *wild, v))
        })
    }
}

fn check(op: &str, c: &Version, wild: usize, v: &Version) -> bool {
    use std::cmp::Ordering::*;
    let o = vcmp(v, c);
    let upper = |level: usize| -> Version {
        let mut u = c.clone();
        u.pre = String::new();
        match level {
            0 => u.major += 1,
            1 => {
                u.minor += 1;
                u.patch = 0
            }
            _ => {
                u.patch += 1;
            }
        }
        if level == 0 {
            u.minor = 0;
            u.patch = 0;
        }
        u
    };
    match op {
        "" | "=" | "==" => {
            if wild == 3 {
                o == Equal
            } else if wild == 0 {
                true
            } else {
                vcmp(v, c) != Less && vcmp(v, &upper(wild - 1)) == Less
            }
        }
        "!=" => {
            if wild == 3 {
                o != Equal
            } else {
                !(vcmp(v, c) != Less && vcmp(v, &upper(wild.saturating_sub(1))) == Less)
            }
        }
        ">" => {
            if wild == 3 {
                o == Greater
            } else if wild == 0 {
                false
            } else {
                vcmp(v, &upper(wild - 1)) != Less
            }
        }
        ">=" | "=>" => o != Less,
        "<" => o == Less,
        "<=" | "=<" => {
            if wild == 3 {
                o != Greater
            } else if wild == 0 {
                true
            } else {
                vcmp(v, &upper(wild - 1)) == Less
            }
        }
        "~" | "~>" => {
            if o == Less {
                return false;
            }
            let level = if wild >= 2 { 1 } else { 0 };
            vcmp(v, &upper(level)) == Less
        }
        "^" => {
            if o == Less {
                return false;
            }
            let level = if c.major > 0 || wild <= 1 {
                0
            } else if c.minor > 0 || wild == 2 {
                1
            } else {
                2
            };
            vcmp(v, &upper(level)) == Less
        }
        _ => false,
    }
}

// ------------------------------------------------------------ .Files

pub fn files_method(o: &Object, name: &str, a: &[Value]) -> R {
    let Object::Files(files) = o else {
        return Err(FnError::NotFound);
    };
    let arg = |i: usize| -> Result<&str, FnError> {
        match a.get(i) {
            Some(v) => want_str(v, name),
            None => msg(format!("wrong number of args for {name}")),
        }
    };
    match name {
        "Get" | "GetBytes" => {
            let p = arg(0)?;
            // Go's string holds any bytes; ours holds UTF-8 only, so a binary
            // file (a compressed archive) is unknown rather than mangled.
            match files.get(p).map(|b| std::str::from_utf8(b)) {
                Some(Ok(t)) => s(t.to_string()),
                Some(Err(_)) => Ok(Value::Unknown),
                None => s(String::new()),
            }
        }
        "Lines" => {
            let p = arg(0)?;
            let text = match files.get(p).map(|b| std::str::from_utf8(b)) {
                Some(Ok(t)) => t.to_string(),
                Some(Err(_)) => return Ok(Value::Unknown),
                None => String::new(),
            };
            if text.is_empty() {
                return Ok(Value::list(Vec::new()));
            }
            Ok(Value::list(text.split('\n').map(Value::str).collect()))
        }
        "Glob" => {
            let pat = arg(0)?;
            let sub: BTreeMap<String, Vec<u8>> = files
                .iter()
                .filter(|(k, _)| glob_match(pat, k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Ok(Value::Object(Rc::new(Object::Files(Rc::new(sub)))))
        }
        "AsConfig" | "AsSecrets" => {
            let mut m = Map::new();
            for (k, v) in files.iter() {
                let base = k.rsplit('/').next().unwrap_or(k).to_string();
                let val = if name == "AsSecrets" {
                    Value::str(digest::b64enc(v))
                } else {
                    std::str::from_utf8(v).map_or(Value::Unknown, Value::str)
                };
                m.insert(base, val);
            }
            if m.is_empty() {
                return s("");
            }
            match value::to_yaml(&Value::map(m)) {
                Ok(y) => s(y.trim_end_matches('\n').to_string()),
                Err(e) => msg(e),
            }
        }
        _ => Err(FnError::NotFound),
    }
}

/// gobwas/glob with `/` as separator: `*` within a segment, `**` across,
/// `?`, `[...]`, `{a,b}`.
pub fn glob_match(pat: &str, name: &str) -> bool {
    fn expand(p: &str) -> Vec<String> {
        if let Some(open) = p.find('{') {
            if let Some(close) = p[open..].find('}').map(|i| open + i) {
                let (pre, body, post) = (&p[..open], &p[open + 1..close], &p[close + 1..]);
                return body
                    .split(',')
                    .flat_map(|alt| expand(&format!("{pre}{alt}{post}")))
                    .collect();
            }
        }
        vec![p.to_string()]
    }
    fn m(p: &[char], n: &[char], budget: &mut u32) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        match p.first() {
            None => n.is_empty(),
            Some('*') if p.get(1) == Some(&'*') => {
                (0..=n.len()).any(|i| m(&p[2..], &n[i..], budget))
            }
            Some('*') => {
                for i in 0..=n.len() {
                    if i > 0 && n[i - 1] == '/' {
                        break;
                    }
                    if m(&p[1..], &n[i..], budget) {
                        return true;
                    }
                }
                false
            }
            Some('?') => !n.is_empty() && n[0] != '/' && m(&p[1..], &n[1..], budget),
            Some('[') => {
                let Some(close) = p.iter().position(|&c| c == ']') else {
                    return false;
                };
                let Some(&c) = n.first() else { return false };
                let set = &p[1..close];
                let (neg, set) = if set.first() == Some(&'!') {
                    (true, &set[1..])
                } else {
                    (false, set)
                };
                let mut hit = false;
                let mut i = 0;
                while i < set.len() {
                    if i + 2 < set.len() && set[i + 1] == '-' {
                        hit |= set[i] <= c && c <= set[i + 2];
                        i += 3;
                    } else {
                        hit |= set[i] == c;
                        i += 1;
                    }
                }
                hit != neg && m(&p[close + 1..], &n[1..], budget)
            }
            Some('\\') if p.len() > 1 => {
                !n.is_empty() && n[0] == p[1] && m(&p[2..], &n[1..], budget)
            }
            Some(&c) => !n.is_empty() && n[0] == c && m(&p[1..], &n[1..], budget),
        }
    }
    let name: Vec<char> = name.chars().collect();
    expand(pat).iter().take(64).any(|p| {
        let pc: Vec<char> = p.chars().collect();
        let mut budget = 100_000;
        m(&pc, &name, &mut budget)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sv(c: &str, v: &str) -> bool {
        constraint_parse(c)
            .unwrap()
            .matches(&semver_parse(v).unwrap())
    }

    #[test]
    fn semver_constraints() {
        assert!(sv(">=1.21-0", "v1.33.0"));
        assert!(sv(">=1.21-0", "1.21.0-eks-abc"));
        assert!(!sv(">=1.21", "1.21.0-eks-abc"));
        assert!(sv("<1.25", "1.24.9"));
        assert!(!sv("<1.25-0", "1.25.0"));
        assert!(sv("^1.2.3", "1.9.0"));
        assert!(!sv("^1.2.3", "2.0.0"));
        assert!(sv("~1.2.3", "1.2.9"));
        assert!(!sv("~1.2.3", "1.3.0"));
        assert!(sv(">= 1.19-0, < 1.30-0", "1.25.3"));
        assert!(sv("1.2.x", "1.2.7"));
        assert!(sv("<1.0 || >=2.0", "2.1.0"));
    }

    #[test]
    fn printf_verbs() {
        let a = |v: Vec<Value>| v;
        assert_eq!(
            sprintf("%s-%d", &a(vec![Value::str("x"), Value::Int(3)])),
            "x-3"
        );
        assert_eq!(
            sprintf("%d", &a(vec![Value::Float(80.0)])),
            "%!d(float64=80)"
        );
        assert_eq!(sprintf("%v", &a(vec![Value::Float(1e6)])), "1e+06");
        assert_eq!(sprintf("%q", &a(vec![Value::str("a\"b")])), "\"a\\\"b\"");
        assert_eq!(
            sprintf(
                "%05d|%-4s|%x",
                &a(vec![Value::Int(42), Value::str("ab"), Value::Int(255)])
            ),
            "00042|ab  |ff"
        );
        assert_eq!(sprintf("%s", &a(vec![])), "%!s(MISSING)");
        assert_eq!(sprintf("%.2f", &a(vec![Value::Float(1.005)])), "1.00");
    }

    #[test]
    fn globs() {
        assert!(glob_match("files/*.conf", "files/a.conf"));
        assert!(!glob_match("files/*.conf", "files/x/a.conf"));
        assert!(glob_match("files/**", "files/x/a.conf"));
        assert!(glob_match("{a,b}/*", "b/c"));
    }
}
