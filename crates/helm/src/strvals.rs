//! Helm's `strvals`: `--set a.b[0]=x,c={1,2}` into a values map.

use crate::value::{Map, Value};

/// Parses one `--set` argument into `dst` (as `strvals.ParseInto`).
pub fn parse_into(expr: &str, dst: &mut Map, string: bool) -> Result<(), String> {
    for part in split_top(expr) {
        if part.is_empty() {
            continue;
        }
        let Some(eq) = find_unescaped(&part, '=') else {
            return Err(format!("key {:?} has no value", unescape(&part)));
        };
        let key = &part[..eq];
        let raw = &part[eq + 1..];
        let value = if raw.starts_with('{') && raw.ends_with('}') && !string {
            let inner = &raw[1..raw.len() - 1];
            Value::list(
                split_list(inner)
                    .iter()
                    .map(|s| typed(&unescape(s), false))
                    .collect(),
            )
        } else {
            typed(&unescape(raw), string)
        };
        let path = parse_key(key)?;
        set_path(dst, &path, value, 0)?;
    }
    Ok(())
}

#[derive(Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn parse_key(key: &str) -> Result<Vec<Seg>, String> {
    let mut segs = Vec::new();
    let mut cur = String::new();
    let mut chars = key.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '.' => {
                if !cur.is_empty() {
                    segs.push(Seg::Key(std::mem::take(&mut cur)));
                }
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
                let i: usize = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("invalid index {n:?} in key {key:?}"))?;
                if i > 65536 {
                    return Err(format!(
                        "index of {i} is greater than maximum supported index of 65536"
                    ));
                }
                segs.push(Seg::Index(i));
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        segs.push(Seg::Key(cur));
    }
    if segs.is_empty() {
        return Err(format!("key {key:?} has no value"));
    }
    Ok(segs)
}

fn set_path(dst: &mut Map, path: &[Seg], v: Value, depth: usize) -> Result<(), String> {
    if depth > 100 {
        return Err("key nested too deeply".into());
    }
    let Seg::Key(k) = &path[0] else {
        return Err("key starts with an index".into());
    };
    if path.len() == 1 {
        dst.insert(k.clone(), v);
        return Ok(());
    }
    match &path[1] {
        Seg::Key(_) => {
            let mut inner = match dst.get(k) {
                Some(Value::Map(m)) => m.borrow().clone(),
                _ => Map::new(),
            };
            set_path(&mut inner, &path[1..], v, depth + 1)?;
            dst.insert(k.clone(), Value::map(inner));
        }
        Seg::Index(_) => {
            let mut list = match dst.get(k) {
                Some(Value::List(l)) => l.to_vec(),
                _ => Vec::new(),
            };
            set_list(&mut list, &path[1..], v, depth + 1)?;
            dst.insert(k.clone(), Value::list(list));
        }
    }
    Ok(())
}

fn set_list(list: &mut Vec<Value>, path: &[Seg], v: Value, depth: usize) -> Result<(), String> {
    let Seg::Index(i) = path[0] else {
        return Err("expected an index".into());
    };
    while list.len() <= i {
        list.push(Value::Nil);
    }
    if path.len() == 1 {
        list[i] = v;
        return Ok(());
    }
    match &path[1] {
        Seg::Key(_) => {
            let mut inner = match &list[i] {
                Value::Map(m) => m.borrow().clone(),
                _ => Map::new(),
            };
            // The remaining path starts with a key: set it in the element map.
            let mut tmp = Map::new();
            tmp.insert("_".into(), Value::map(std::mem::take(&mut inner)));
            let mut p = vec![Seg::Key("_".into())];
            p.extend(path[1..].iter().map(|s| match s {
                Seg::Key(k) => Seg::Key(k.clone()),
                Seg::Index(i) => Seg::Index(*i),
            }));
            set_path(&mut tmp, &p, v, depth + 1)?;
            list[i] = tmp.remove("_").unwrap_or_default();
        }
        Seg::Index(_) => {
            let mut inner = match &list[i] {
                Value::List(l) => l.to_vec(),
                _ => Vec::new(),
            };
            set_list(&mut inner, &path[1..], v, depth + 1)?;
            list[i] = Value::list(inner);
        }
    }
    Ok(())
}

/// strvals' `typedVal`.
fn typed(s: &str, string: bool) -> Value {
    if string {
        return Value::str(s);
    }
    if s.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if s.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if s.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    if s == "0" {
        return Value::Int(0);
    }
    if s.len() > 1 && s.starts_with('0') {
        return Value::str(s);
    }
    if let Ok(i) = s.parse::<i64>() {
        if !s.starts_with('+') {
            return Value::Int(i);
        }
    }
    Value::str(s)
}

fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '{' => {
                depth += 1;
                cur.push(c);
            }
            '}' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth <= 0 => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn split_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            ',' => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if !cur.is_empty() || !out.is_empty() {
        out.push(cur);
    }
    out
}

fn find_unescaped(s: &str, target: char) -> Option<usize> {
    let mut esc = false;
    for (i, c) in s.char_indices() {
        if esc {
            esc = false;
            continue;
        }
        if c == '\\' {
            esc = true;
        } else if c == target {
            return Some(i);
        }
    }
    None
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::to_json;

    fn p(s: &str) -> String {
        let mut m = Map::new();
        parse_into(s, &mut m, false).unwrap();
        to_json(&Value::map(m), false).unwrap()
    }

    #[test]
    fn set_forms() {
        assert_eq!(
            p("a=1,b=true,c=007,d=x"),
            r#"{"a":1,"b":true,"c":"007","d":"x"}"#
        );
        assert_eq!(p("a.b.c=1.5"), r#"{"a":{"b":{"c":"1.5"}}}"#);
        assert_eq!(p("l={x,y}"), r#"{"l":["x","y"]}"#);
        assert_eq!(p("l[1].k=v"), r#"{"l":[null,{"k":"v"}]}"#);
        assert_eq!(p(r"a\.b=c\,d"), r#"{"a.b":"c,d"}"#);
        assert_eq!(p("n=null"), r#"{"n":null}"#);
    }
}
