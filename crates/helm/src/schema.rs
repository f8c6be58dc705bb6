//! `values.schema.json`: Helm refuses values its chart's JSON Schema rejects.
//! The keywords charts use are checked; an unknown value satisfies any schema.

use crate::value::{Map, Value};

/// Violations of `schema` by `v`, as `at '/path': message`.
pub fn validate(schema: &Value, v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, schema, v, "", &mut out, 0);
    out
}

fn get<'a>(m: &'a Map, k: &str) -> Option<&'a Value> {
    m.get(k)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(f) if f.fract() == 0.0 => "integer",
        Value::Float(_) => "number",
        Value::Str(_) => "string",
        Value::List(_) => "array",
        Value::Map(_) | Value::Object(_) => "object",
        Value::Unknown => "unknown",
    }
}

fn type_ok(want: &str, v: &Value) -> bool {
    let got = type_name(v);
    got == want || (want == "number" && got == "integer")
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn resolve<'a>(root: &'a Value, r: &str) -> Option<Value> {
    let path = r.strip_prefix("#")?;
    let mut cur = root.clone();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        let part = part.replace("~1", "/").replace("~0", "~");
        let next = match &cur {
            Value::Map(m) => m.borrow().get(&part).cloned(),
            _ => None,
        };
        cur = next?;
    }
    let _: Option<&'a Value> = None;
    Some(cur)
}

fn check(root: &Value, schema: &Value, v: &Value, at: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 64 || v.is_unknown() {
        return;
    }
    let s = match schema {
        Value::Map(m) => m.borrow().clone(),
        Value::Bool(false) => {
            out.push(format!("at '{}': false schema", path(at)));
            return;
        }
        _ => return,
    };
    if let Some(Value::Str(r)) = get(&s, "$ref") {
        if let Some(target) = resolve(root, r) {
            check(root, &target, v, at, out, depth + 1);
        }
    }
    match get(&s, "type") {
        Some(Value::Str(t)) if !type_ok(t, v) => {
            out.push(format!(
                "at '{}': got {}, want {}",
                path(at),
                type_name(v),
                t
            ));
            return;
        }
        Some(Value::List(ts)) if !ts.iter().any(|t| t.as_str().is_some_and(|t| type_ok(t, v))) => {
            let want: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            out.push(format!(
                "at '{}': got {}, want {}",
                path(at),
                type_name(v),
                want.join(" or ")
            ));
            return;
        }
        _ => {}
    }
    if let Some(Value::List(e)) = get(&s, "enum") {
        if !e.iter().any(|x| same(x, v)) {
            out.push(format!("at '{}': value must be one of the enum", path(at)));
        }
    }
    if let Some(c) = get(&s, "const") {
        if !same(c, v) {
            out.push(format!("at '{}': value must be the const", path(at)));
        }
    }
    if let Some(n) = num(v) {
        let bound = |k: &str| get(&s, k).and_then(num);
        if bound("minimum").is_some_and(|m| n < m)
            || bound("maximum").is_some_and(|m| n > m)
            || bound("exclusiveMinimum").is_some_and(|m| n <= m)
            || bound("exclusiveMaximum").is_some_and(|m| n >= m)
        {
            out.push(format!("at '{}': number out of range", path(at)));
        }
    }
    if let Value::Str(text) = v {
        let len = text.chars().count() as f64;
        if get(&s, "minLength").and_then(num).is_some_and(|m| len < m)
            || get(&s, "maxLength").and_then(num).is_some_and(|m| len > m)
        {
            out.push(format!("at '{}': string length out of range", path(at)));
        }
        if let Some(Value::Str(p)) = get(&s, "pattern") {
            if let Ok(re) = regex::RegexBuilder::new(p).size_limit(1 << 20).build() {
                if !re.is_match(text) {
                    out.push(format!("at '{}': does not match pattern {p:?}", path(at)));
                }
            }
        }
    }
    if let Value::List(items) = v {
        let len = items.len() as f64;
        if get(&s, "minItems").and_then(num).is_some_and(|m| len < m)
            || get(&s, "maxItems").and_then(num).is_some_and(|m| len > m)
        {
            out.push(format!("at '{}': item count out of range", path(at)));
        }
        if let Some(item_schema @ Value::Map(_)) = get(&s, "items") {
            for (i, e) in items.iter().enumerate() {
                check(root, item_schema, e, &format!("{at}/{i}"), out, depth + 1);
            }
        }
    }
    if let Value::Map(m) = v {
        let m = m.borrow().clone();
        if let Some(Value::List(req)) = get(&s, "required") {
            for r in req.iter().filter_map(Value::as_str) {
                if !m.contains_key(r) {
                    out.push(format!("at '{}': missing property '{r}'", path(at)));
                }
            }
        }
        let props = match get(&s, "properties") {
            Some(Value::Map(p)) => p.borrow().clone(),
            _ => Map::new(),
        };
        for (k, e) in &m {
            match props.get(k) {
                Some(ps) => check(root, ps, e, &format!("{at}/{k}"), out, depth + 1),
                None => match get(&s, "additionalProperties") {
                    Some(Value::Bool(false)) => out.push(format!(
                        "at '{}': additional property '{k}' not allowed",
                        path(at)
                    )),
                    Some(ap @ Value::Map(_)) => {
                        check(root, ap, e, &format!("{at}/{k}"), out, depth + 1)
                    }
                    _ => {}
                },
            }
        }
    }
    if let Some(Value::List(all)) = get(&s, "allOf") {
        for sub in all.iter() {
            check(root, sub, v, at, out, depth + 1);
        }
    }
    let passes = |sub: &Value| {
        let mut o = Vec::new();
        check(root, sub, v, at, &mut o, depth + 1);
        o.is_empty()
    };
    if let Some(Value::List(any)) = get(&s, "anyOf") {
        if !any.iter().any(passes) {
            out.push(format!("at '{}': anyOf failed", path(at)));
        }
    }
    if let Some(Value::List(one)) = get(&s, "oneOf") {
        if one.iter().filter(|x| passes(x)).count() != 1 {
            out.push(format!("at '{}': oneOf failed", path(at)));
        }
    }
    if let Some(not) = get(&s, "not") {
        if passes(not) {
            out.push(format!("at '{}': not failed", path(at)));
        }
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (num(a), num(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn path(at: &str) -> &str {
    if at.is_empty() {
        ""
    } else {
        at
    }
}
