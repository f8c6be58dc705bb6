//! Template values: what Go's `interface{}` holds after Helm reads YAML.
//!
//! Maps have Go's reference semantics (Sprig's `set` mutates a dict that
//! other variables also see), so they sit behind `Rc<RefCell<..>>`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::rc::Rc;

/// The text an unknown value renders as. A YAML consumer that finds it in a
/// scalar treats that scalar as unknown. It is plain ASCII, a valid plain
/// YAML scalar and key, and no Go or Sprig function makes it by accident.
pub const UNKNOWN_MARKER: &str = "__FPLINT_UNKNOWN__";

pub type Map = BTreeMap<String, Value>;
pub type MapRef = Rc<RefCell<Map>>;

#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    List(Rc<Vec<Value>>),
    Map(MapRef),
    /// A value that cannot be known without the cluster, randomness or a
    /// release value fplint does not have.
    Unknown,
    /// Helm's objects with methods (`.Files`, `.Capabilities.APIVersions`, ...).
    Object(Rc<Object>),
}

#[derive(Debug)]
pub enum Object {
    /// `.Files`: the chart's files other than templates, by path.
    Files(Rc<BTreeMap<String, Vec<u8>>>),
    /// `.Capabilities.APIVersions`.
    ApiVersions(Rc<Vec<String>>),
    /// `.Capabilities.KubeVersion`: prints as its Version.
    KubeVersion {
        version: String,
        major: String,
        minor: String,
    },
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) | (Value::Unknown, Value::Unknown) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Map(a), Value::Map(b)) => Rc::ptr_eq(a, b) || *a.borrow() == *b.borrow(),
            (Value::Object(a), Value::Object(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Value {
    pub fn str(s: impl Into<Rc<str>>) -> Value {
        Value::Str(s.into())
    }
    pub fn list(v: Vec<Value>) -> Value {
        Value::List(Rc::new(v))
    }
    pub fn map(m: Map) -> Value {
        Value::Map(Rc::new(RefCell::new(m)))
    }
    pub fn empty_map() -> Value {
        Value::map(Map::new())
    }

    pub fn is_unknown(&self) -> bool {
        match self {
            Value::Unknown => true,
            Value::Str(s) => s.contains(UNKNOWN_MARKER),
            _ => false,
        }
    }

    /// Whether any part of the value is unknown.
    pub fn has_unknown(&self) -> bool {
        self.has_unknown_depth(0)
    }
    fn has_unknown_depth(&self, depth: usize) -> bool {
        if depth > MAX_NEST {
            return false;
        }
        match self {
            Value::List(l) => l.iter().any(|v| v.has_unknown_depth(depth + 1)),
            Value::Map(m) => m.borrow().values().any(|v| v.has_unknown_depth(depth + 1)),
            v => v.is_unknown(),
        }
    }

    /// Go's truth: false, 0, nil, and empty strings, lists and maps are false.
    /// `None` when unknown.
    pub fn truth(&self) -> Option<bool> {
        Some(match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => {
                if s.contains(UNKNOWN_MARKER) {
                    return None;
                }
                !s.is_empty()
            }
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.borrow().is_empty(),
            Value::Unknown => return None,
            Value::Object(_) => true,
        })
    }

    /// Sprig's `kindOf` (reflect.Kind names).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int64",
            Value::Float(_) => "float64",
            Value::Str(_) => "string",
            Value::List(_) => "slice",
            Value::Map(_) => "map",
            Value::Unknown => "unknown",
            Value::Object(_) => "ptr",
        }
    }

    /// Sprig's `typeOf` (Go type names).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int64",
            Value::Float(_) => "float64",
            Value::Str(_) => "string",
            Value::List(_) => "[]interface {}",
            Value::Map(_) => "map[string]interface {}",
            Value::Unknown => "unknown",
            Value::Object(o) => match **o {
                Object::Files(_) => "chart.Files",
                Object::ApiVersions(_) => "common.VersionSet",
                Object::KubeVersion { .. } => "*common.KubeVersion",
            },
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A copy that shares nothing mutable with `self`.
    pub fn deep_copy(&self) -> Value {
        self.deep_copy_depth(0)
    }
    fn deep_copy_depth(&self, depth: usize) -> Value {
        if depth > MAX_NEST {
            return Value::Unknown;
        }
        match self {
            Value::List(l) => Value::list(l.iter().map(|v| v.deep_copy_depth(depth + 1)).collect()),
            Value::Map(m) => Value::map(
                m.borrow()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.deep_copy_depth(depth + 1)))
                    .collect(),
            ),
            v => v.clone(),
        }
    }
}

/// Deepest nesting the printers and copiers follow; a dict that holds itself
/// (`set $d "me" $d`) stops here instead of overflowing the stack.
pub const MAX_NEST: usize = 200;

// ---------------------------------------------------------------- Go printing

/// Go's `fmt.Sprint` of one value (`%v`). `top` is false inside containers,
/// where nil prints `<nil>` rather than Helm's empty `<no value>`.
pub fn go_string(v: &Value) -> String {
    let mut s = String::new();
    write_go(&mut s, v, 0);
    s
}

fn write_go(out: &mut String, v: &Value, depth: usize) {
    if depth > MAX_NEST {
        out.push_str("...");
        return;
    }
    match v {
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&go_float_g(*f)),
        Value::Str(s) => out.push_str(s),
        Value::List(l) => {
            out.push('[');
            for (i, e) in l.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_go(out, e, depth + 1);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, e)) in m.borrow().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_go(out, e, depth + 1);
            }
            out.push(']');
        }
        Value::Unknown => out.push_str(UNKNOWN_MARKER),
        Value::Object(o) => match &**o {
            Object::Files(f) => {
                out.push_str("map[");
                for (i, k) in f.keys().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    let _ = write!(out, "{k}:[...]");
                }
                out.push(']');
            }
            Object::ApiVersions(a) => {
                let _ = write!(out, "[{}]", a.join(" "));
            }
            Object::KubeVersion { version, .. } => out.push_str(version),
        },
    }
}

/// Shortest decimal digits and decimal point position of `f` (|f| > 0).
fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` prints the shortest representation that round-trips, as Go's
    // strconv does with precision -1.
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, exp + 1)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`, which `%v` uses.
pub fn go_float_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let (digits, dp) = shortest_digits(f);
    let sign = if f < 0.0 { "-" } else { "" };
    let exp = dp - 1;
    if !(-4..6).contains(&exp) {
        let mut s = String::from(sign);
        s.push_str(&digits[..1]);
        if digits.len() > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        let _ = write!(s, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
        s
    } else {
        format!("{sign}{}", place_point(&digits, dp))
    }
}

fn place_point(digits: &str, dp: i32) -> String {
    if dp <= 0 {
        format!("0.{}{}", "0".repeat((-dp) as usize), digits)
    } else if dp as usize >= digits.len() {
        format!("{}{}", digits, "0".repeat(dp as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    }
}

/// Go's `encoding/json` float format.
pub fn json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    if f == 0.0 {
        return Some("0".into());
    }
    let abs = f.abs();
    if !(1e-6..1e21).contains(&abs) {
        let (digits, dp) = shortest_digits(f);
        let exp = dp - 1;
        let mut s = String::from(if f < 0.0 { "-" } else { "" });
        s.push_str(&digits[..1]);
        if digits.len() > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        let _ = write!(s, "e{}{}", if exp < 0 { '-' } else { '+' }, exp.abs());
        Some(s)
    } else {
        let (digits, dp) = shortest_digits(f);
        Some(format!(
            "{}{}",
            if f < 0.0 { "-" } else { "" },
            place_point(&digits, dp)
        ))
    }
}

// ---------------------------------------------------------------- JSON output

/// `toJson` / `mustToJson`: Go's json.Marshal (sorted keys, HTML escaped).
pub fn to_json(v: &Value, pretty: bool) -> Result<String, String> {
    let mut out = String::new();
    write_json(&mut out, v, pretty, 0)?;
    Ok(out)
}

fn write_json(out: &mut String, v: &Value, pretty: bool, depth: usize) -> Result<(), String> {
    if depth > MAX_NEST {
        return Err("value nested too deeply".into());
    }
    let nl = |out: &mut String, d: usize| {
        if pretty {
            out.push('\n');
            for _ in 0..d {
                out.push_str("  ");
            }
        }
    };
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => match json_float(*f) {
            Some(s) => out.push_str(&s),
            None => return Err(format!("json: unsupported value: {}", go_float_g(*f))),
        },
        Value::Str(s) => json_string(out, s),
        Value::Unknown => json_string(out, UNKNOWN_MARKER),
        Value::List(l) => {
            if l.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, e) in l.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                nl(out, depth + 1);
                write_json(out, e, pretty, depth + 1)?;
            }
            nl(out, depth);
            out.push(']');
        }
        Value::Map(m) => {
            let m = m.borrow();
            if m.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (i, (k, e)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                nl(out, depth + 1);
                json_string(out, k);
                out.push(':');
                if pretty {
                    out.push(' ');
                }
                write_json(out, e, pretty, depth + 1)?;
            }
            nl(out, depth);
            out.push('}');
        }
        Value::Object(_) => out.push_str("{}"),
    }
    Ok(())
}

fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------- YAML output

/// `toYaml`: sigs.k8s.io/yaml's Marshal (JSON first, then go-yaml v2), so
/// keys sort in go-yaml's natural order and numbers take JSON's form.
/// The result has a trailing newline, which `toYaml` trims.
pub fn to_yaml(v: &Value) -> Result<String, String> {
    let norm = json_normalise(v, 0)?;
    let mut out = String::new();
    match &norm {
        Y::Map(m) if m.is_empty() => out.push_str("{}\n"),
        Y::Seq(l) if l.is_empty() => out.push_str("[]\n"),
        Y::Map(_) | Y::Seq(_) => emit_block(&mut out, &norm, 0, false),
        scalar => {
            emit_scalar(&mut out, scalar, 0, true);
            out.push('\n');
        }
    }
    Ok(out)
}

/// A value after the JSON round trip: what go-yaml v2 marshals.
enum Y {
    Null,
    Bool(bool),
    Int(String),
    Float(String),
    Str(String),
    Seq(Vec<Y>),
    Map(Vec<(String, Y)>),
}

fn json_normalise(v: &Value, depth: usize) -> Result<Y, String> {
    if depth > MAX_NEST {
        return Err("value nested too deeply".into());
    }
    Ok(match v {
        Value::Nil => Y::Null,
        Value::Bool(b) => Y::Bool(*b),
        Value::Int(i) => Y::Int(i.to_string()),
        Value::Float(f) => {
            let s = json_float(*f)
                .ok_or_else(|| format!("json: unsupported value: {}", go_float_g(*f)))?;
            // go-yaml reads the JSON number back: an integer when it fits.
            if !s.contains(['.', 'e', 'E'])
                && (s.parse::<i64>().is_ok() || s.parse::<u64>().is_ok())
            {
                Y::Int(s)
            } else {
                Y::Float(go_float_g(s.parse::<f64>().unwrap_or(*f)))
            }
        }
        Value::Str(s) => Y::Str(s.to_string()),
        Value::Unknown => Y::Str(UNKNOWN_MARKER.into()),
        Value::List(l) => Y::Seq(
            l.iter()
                .map(|e| json_normalise(e, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => {
            let mut entries: Vec<(String, Y)> = m
                .borrow()
                .iter()
                .map(|(k, e)| Ok((k.clone(), json_normalise(e, depth + 1)?)))
                .collect::<Result<_, String>>()?;
            entries.sort_by(|a, b| yaml_key_order(&a.0, &b.0));
            Y::Map(entries)
        }
        Value::Object(_) => Y::Map(Vec::new()),
    })
}

/// go-yaml v2's `keyList.Less`: letters after other characters, digit runs
/// compared as numbers.
pub fn yaml_key_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let less = |x: bool| if x { Ordering::Less } else { Ordering::Greater };
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return less(bl);
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an.wrapping_mul(10).wrapping_add(ar[ai] as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn.wrapping_mul(10).wrapping_add(br[bi] as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// Block collection at `ind` columns. `inline` when the first line continues
/// a `- ` already written.
fn emit_block(out: &mut String, y: &Y, ind: usize, inline: bool) {
    let mut first = true;
    match y {
        Y::Map(m) => {
            for (k, v) in m {
                if !(first && inline) {
                    indent(out, ind);
                }
                first = false;
                emit_scalar(out, &Y::Str(k.clone()), ind, false);
                out.push(':');
                emit_value_after(out, v, ind, true);
            }
        }
        Y::Seq(l) => {
            for v in l {
                if !(first && inline) {
                    indent(out, ind);
                }
                first = false;
                out.push('-');
                emit_value_after(out, v, ind, false);
            }
        }
        _ => {}
    }
}

/// The value after `key:` or `-`.
fn emit_value_after(out: &mut String, v: &Y, ind: usize, in_map: bool) {
    match v {
        Y::Map(m) if m.is_empty() => out.push_str(" {}\n"),
        Y::Seq(l) if l.is_empty() => out.push_str(" []\n"),
        Y::Map(_) if in_map => {
            out.push('\n');
            emit_block(out, v, ind + 2, false);
        }
        // go-yaml v2 writes a list under a key without indenting it.
        Y::Seq(_) if in_map => {
            out.push('\n');
            emit_block(out, v, ind, false);
        }
        Y::Map(_) | Y::Seq(_) => {
            out.push(' ');
            emit_block(out, v, ind + 2, true);
        }
        scalar => {
            out.push(' ');
            emit_scalar(out, scalar, ind, true);
            out.push('\n');
        }
    }
}

fn emit_scalar(out: &mut String, y: &Y, ind: usize, fold: bool) {
    match y {
        Y::Null => out.push_str("null"),
        Y::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Y::Int(s) | Y::Float(s) => out.push_str(s),
        Y::Str(s) => emit_string(out, s, ind, fold),
        _ => {}
    }
}

/// Whether go-yaml v2 would read this plain text as something other than a
/// string (YAML 1.1: yes/no/on/off, numbers, null, ...).
pub fn resolves_non_string(s: &str) -> bool {
    !matches!(scalar_from_plain(s), Value::Str(_)) || is_base60_float(s) || is_timestamp(s)
}

/// go-yaml v2's `parseTimestamp`: `time.Parse` with its four layouts
/// (`2006-1-2T15:4:5.999999999Z07:00`, the same with `t`, `2006-1-2
/// 15:4:5.999999999`, `2006-1-2`). It reads such text into a string but
/// quotes it when writing, as it does the sexagesimal floats.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    // One or two digits (Go's `getnum` without a fixed width), within `max`.
    fn num(b: &[u8], i: &mut usize, max: u32) -> Option<u32> {
        let d = |j: usize| {
            b.get(j)
                .filter(|c| c.is_ascii_digit())
                .map(|c| u32::from(c - b'0'))
        };
        let mut n = d(*i)?;
        *i += 1;
        if let Some(x) = d(*i) {
            n = n * 10 + x;
            *i += 1;
        }
        (n <= max).then_some(n)
    }
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year: u32 = s[..4].parse().unwrap_or(0);
    let mut i = 5;
    let Some(month) = num(b, &mut i, 12) else {
        return false;
    };
    if month == 0 || b.get(i) != Some(&b'-') {
        return false;
    }
    i += 1;
    let Some(day) = num(b, &mut i, 31) else {
        return false;
    };
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if day == 0 || day > days {
        return false;
    }
    let zone = match b.get(i) {
        None => return true,
        Some(b'T' | b't') => true,
        Some(b' ') => false,
        Some(_) => return false,
    };
    i += 1;
    let Some(_) = num(b, &mut i, 23) else {
        return false;
    };
    for max in [59, 59] {
        if b.get(i) != Some(&b':') {
            return false;
        }
        i += 1;
        if num(b, &mut i, max).is_none() {
            return false;
        }
    }
    // An optional fraction, `.` or `,` and any number of digits.
    if matches!(b.get(i), Some(b'.' | b',')) && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if !zone {
        return i == b.len();
    }
    match &b[i..] {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            let two = |a: u8, c: u8| {
                (a.is_ascii_digit() && c.is_ascii_digit())
                    .then(|| u32::from(a - b'0') * 10 + u32::from(c - b'0'))
            };
            matches!((two(*h1, *h2), two(*m1, *m2)), (Some(h), Some(m)) if h <= 24 && m <= 60)
        }
        _ => false,
    }
}

fn is_base60_float(s: &str) -> bool {
    // go-yaml v2 quotes these (YAML 1.1 sexagesimal) although it reads them as strings.
    let t = s.strip_prefix(['-', '+']).unwrap_or(s);
    let Some((head, rest)) = t.split_once(':') else {
        return false;
    };
    !head.is_empty()
        && head.chars().all(|c| c.is_ascii_digit() || c == '_')
        && head.starts_with(|c: char| c.is_ascii_digit() && c != '0')
        && rest.split(':').enumerate().all(|(i, part)| {
            let part = if i == rest.split(':').count() - 1 {
                part.split_once('.').map_or(part, |(a, _)| a)
            } else {
                part
            };
            !part.is_empty() && part.len() <= 2 && part.chars().all(|c| c.is_ascii_digit())
        })
}

#[derive(Default)]
struct Analysis {
    multiline: bool,
    flow_plain: bool,
    block_plain: bool,
    single: bool,
    block: bool,
}

fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0A
        || (0x20..=0x7E).contains(&u)
        || (0xA0..=0xD7FF).contains(&u)
        || ((0xE000..=0xFFFD).contains(&u) && u != 0xFEFF)
        || u == 0x85
}

/// libyaml's `yaml_emitter_analyze_scalar`.
fn analyze(s: &str) -> Analysis {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return Analysis {
            single: true,
            ..Default::default()
        };
    }
    let (mut block_ind, mut flow_ind) = (false, false);
    if s.starts_with("---") || s.starts_with("...") {
        block_ind = true;
        flow_ind = true;
    }
    let blankz = |i: usize| i >= chars.len() || matches!(chars[i], ' ' | '\t' | '\n' | '\r');
    let is_break = |c: char| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let mut preceded_ws = true;
    let mut followed_ws = blankz(1);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break, mut prev_space, mut prev_break) =
        (false, false, false, false);
    let (mut line_breaks, mut special) = (false, false);
    for (i, &c) in chars.iter().enumerate() {
        let first = i == 0;
        let last = i + 1 == chars.len();
        if first {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_ind = true;
                    block_ind = true;
                }
                '?' | ':' => {
                    flow_ind = true;
                    if followed_ws {
                        block_ind = true;
                    }
                }
                '-' if followed_ws => {
                    flow_ind = true;
                    block_ind = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_ind = true,
                ':' => {
                    flow_ind = true;
                    if followed_ws {
                        block_ind = true;
                    }
                }
                '#' if preceded_ws => {
                    flow_ind = true;
                    block_ind = true;
                }
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            if first {
                leading_space = true;
            }
            if last {
                trailing_space = true;
            }
            if prev_break {
                break_space = true;
            }
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            line_breaks = true;
            if first {
                leading_break = true;
            }
            if last {
                trailing_break = true;
            }
            if prev_space {
                space_break = true;
            }
            prev_break = true;
            prev_space = false;
        } else {
            prev_space = false;
            prev_break = false;
        }
        preceded_ws = matches!(c, ' ' | '\t') || is_break(c);
        followed_ws = blankz(i + 2);
    }
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain: true,
        block_plain: true,
        single: true,
        block: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if trailing_space {
        a.block = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single = false;
    }
    if space_break || special {
        a.flow_plain = false;
        a.block_plain = false;
        a.single = false;
        a.block = false;
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_ind {
        a.flow_plain = false;
    }
    if block_ind {
        a.block_plain = false;
    }
    a
}

/// go-yaml v2 folds a long scalar at a space once its line has passed 80
/// columns (libyaml's `best_width`), going on at the value's indent plus 2.
/// Keys (`fold` false) and block scalars are never folded.
struct Line<'a> {
    out: &'a mut String,
    col: usize,
    fold: Option<usize>,
}

impl Line<'_> {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.col += 1;
    }

    fn put_str(&mut self, s: &str) {
        for c in s.chars() {
            self.put(c);
        }
    }

    /// Whether a space here may become a line break.
    fn may_fold(&self) -> bool {
        self.fold.is_some() && self.col > 80
    }

    fn break_line(&mut self) {
        let ind = self.fold.unwrap_or(0);
        self.out.push('\n');
        indent(self.out, ind);
        self.col = ind;
    }
}

fn emit_string(out: &mut String, s: &str, ind: usize, fold: bool) {
    let col = out.rsplit('\n').next().map_or(0, |l| l.chars().count());
    let mut line = Line {
        out,
        col,
        fold: fold.then_some(ind + 2),
    };
    let a = analyze(s);
    if s.contains('\n') && !resolves_non_string(s) {
        if a.block {
            emit_literal(line.out, s, ind);
            return;
        }
        emit_double(&mut line, s);
        return;
    }
    if resolves_non_string(s) || s.is_empty() {
        emit_double(&mut line, s);
    } else if a.block_plain && !a.multiline {
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if !spaces && line.may_fold() && chars.get(i + 1) != Some(&' ') {
                    line.break_line();
                } else {
                    line.put(' ');
                }
                spaces = true;
            } else {
                line.put(c);
                spaces = false;
            }
        }
    } else if a.single && !a.multiline {
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        line.put('\'');
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if !spaces && line.may_fold() && i > 0 && i + 1 < chars.len() && chars[i + 1] != ' '
                {
                    line.break_line();
                } else {
                    line.put(' ');
                }
                spaces = true;
            } else {
                if c == '\'' {
                    line.put('\'');
                }
                line.put(c);
                spaces = false;
            }
        }
        line.put('\'');
    } else {
        emit_double(&mut line, s);
    }
}

fn emit_literal(out: &mut String, s: &str, ind: usize) {
    out.push('|');
    if s.starts_with([' ', '\n']) {
        out.push('2');
    }
    if !s.ends_with('\n') {
        out.push('-');
    } else if s.len() == 1 || s.ends_with("\n\n") {
        out.push('+');
    }
    let body = s.strip_suffix('\n').unwrap_or(s);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            indent(out, ind + 2);
            out.push_str(line);
        }
    }
    if s.ends_with("\n\n") {
        // Trailing empty lines are already written by the split above.
    }
}

fn emit_double(line: &mut Line, s: &str) {
    let chars: Vec<char> = s.chars().collect();
    let mut spaces = false;
    line.put('"');
    for (i, &c) in chars.iter().enumerate() {
        let escape = match c {
            '"' => "\\\"".to_string(),
            '\\' => "\\\\".to_string(),
            '\n' => "\\n".to_string(),
            '\t' => "\\t".to_string(),
            '\r' => "\\r".to_string(),
            '\0' => "\\0".to_string(),
            '\u{7}' => "\\a".to_string(),
            '\u{8}' => "\\b".to_string(),
            '\u{b}' => "\\v".to_string(),
            '\u{c}' => "\\f".to_string(),
            '\u{1b}' => "\\e".to_string(),
            '\u{85}' => "\\N".to_string(),
            '\u{2028}' => "\\L".to_string(),
            '\u{2029}' => "\\P".to_string(),
            c if is_printable(c) => String::new(),
            c if (c as u32) <= 0xFF => format!("\\x{:02X}", c as u32),
            c if (c as u32) <= 0xFFFF => format!("\\u{:04X}", c as u32),
            c => format!("\\U{:08X}", c as u32),
        };
        if !escape.is_empty() {
            line.put_str(&escape);
            spaces = false;
        } else if c == ' ' {
            if !spaces && line.may_fold() && i > 0 && i + 1 < chars.len() {
                line.break_line();
                // A space that starts the next line is escaped, or folding would eat it.
                if chars[i + 1] == ' ' {
                    line.put('\\');
                }
            } else {
                line.put(' ');
            }
            spaces = true;
        } else {
            line.put(c);
            spaces = false;
        }
    }
    line.put('"');
}

// ---------------------------------------------------------------- YAML input

/// A plain YAML scalar as go-yaml v2 resolves it (YAML 1.1), then as JSON
/// sees it: every number a float64, since Helm reads values through JSON.
pub fn scalar_from_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Nil,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false)
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let first = s.as_bytes()[0];
    if first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.') {
        let plain = s.replace('_', "");
        let (neg, body) = match plain.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, plain.strip_prefix('+').unwrap_or(&plain)),
        };
        let int = if let Some(h) = body.strip_prefix("0x") {
            i128::from_str_radix(h, 16).ok()
        } else if let Some(b) = body.strip_prefix("0b") {
            i128::from_str_radix(b, 2).ok()
        } else if body.len() > 1
            && body.starts_with('0')
            && body.bytes().all(|c| c.is_ascii_digit())
        {
            i128::from_str_radix(&body[1..], 8).ok()
        } else if !body.is_empty() && body.bytes().all(|c| c.is_ascii_digit()) {
            body.parse::<i128>().ok()
        } else {
            None
        };
        if let Some(i) = int {
            let i = if neg { -i } else { i };
            return Value::Float(i as f64);
        }
        if is_yaml_float(&plain) {
            if let Ok(f) = plain.parse::<f64>() {
                return Value::Float(f);
            }
        }
    }
    Value::str(s)
}

fn is_yaml_float(s: &str) -> bool {
    // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let ds = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - ds;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let fs = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - fs;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let es = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == es {
            return false;
        }
    }
    i == b.len()
}

/// Where a value was written: for the values layer that set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSpan {
    /// Dotted path of the key (`image.tag`, `tolerations[0].key`).
    pub path: String,
    /// Byte range of the value in its file.
    pub range: std::ops::Range<usize>,
}

/// Reads YAML documents into values, the way Helm's `yaml.Unmarshal` does
/// (numbers as float64, YAML 1.1 booleans). Returns one value per document,
/// and where each key's value was written.
pub fn parse_yaml(
    text: &str,
    max_depth: usize,
    max_nodes: usize,
) -> Result<(Vec<Value>, Vec<ValueSpan>), YamlError> {
    use saphyr_parser::{Event, Parser, ScalarStyle};
    enum Frame {
        Seq(Vec<Value>, String),
        Map(Map, Option<String>, String),
    }
    let byte_at = CharIndex::new(text);
    let mut docs = Vec::new();
    let mut spans = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: std::collections::HashMap<usize, Value> = Default::default();
    let mut nodes = 0usize;
    let mut parser = Parser::new_from_str(text);
    while let Some(item) = parser.next_event() {
        let (ev, span) = item.map_err(|e| YamlError {
            message: e.info().to_string(),
            offset: byte_at.byte(e.marker().index()),
        })?;
        let start = byte_at.byte(span.start.index());
        let end = byte_at.byte(span.end.index());
        nodes += 1;
        if nodes > max_nodes {
            return Err(YamlError {
                message: format!("more than {max_nodes} YAML nodes"),
                offset: start,
            });
        }
        let path_here = |stack: &Vec<Frame>| -> String {
            match stack.last() {
                Some(Frame::Seq(items, p)) => format!("{p}[{}]", items.len()),
                Some(Frame::Map(_, Some(k), p)) => {
                    if p.is_empty() {
                        k.clone()
                    } else {
                        format!("{p}.{k}")
                    }
                }
                _ => String::new(),
            }
        };
        let (value, anchor) = match ev {
            Event::Scalar(s, style, anchor, tag) => {
                let v = if style == ScalarStyle::Plain {
                    match tag.as_ref().map(|t| t.suffix.as_str()) {
                        Some("str") => Value::str(s.as_ref()),
                        _ => scalar_from_plain(&s),
                    }
                } else {
                    Value::str(s.as_ref())
                };
                (v, anchor)
            }
            Event::Alias(id) => (anchors.get(&id).cloned().unwrap_or_default(), 0),
            Event::SequenceStart(_, _) | Event::MappingStart(_, _) => {
                if stack.len() >= max_depth {
                    return Err(YamlError {
                        message: format!("values nested deeper than {max_depth} levels"),
                        offset: start,
                    });
                }
                let p = path_here(&stack);
                if matches!(ev, Event::SequenceStart(..)) {
                    stack.push(Frame::Seq(Vec::new(), p));
                } else {
                    stack.push(Frame::Map(Map::new(), None, p));
                }
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(items, _)) => (Value::list(items), 0),
                _ => continue,
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(m, _, _)) => (Value::map(m), 0),
                _ => continue,
            },
            Event::DocumentStart(_) => {
                anchors.clear();
                continue;
            }
            _ => continue,
        };
        // saphyr's anchor ids are only on scalars/collections' start events; the
        // collection anchors are lost here, a rare case in values files.
        if anchor > 0 {
            anchors.insert(anchor, value.clone());
        }
        let here = path_here(&stack);
        match stack.last_mut() {
            None => docs.push(value),
            Some(Frame::Seq(items, _)) => {
                spans.push(ValueSpan {
                    path: here,
                    range: start..end,
                });
                items.push(value)
            }
            Some(Frame::Map(m, key, _)) => match key.take() {
                None => {
                    let k = match &value {
                        Value::Str(s) => s.to_string(),
                        Value::Nil => "null".into(),
                        other => go_string(other),
                    };
                    *key = Some(k);
                }
                Some(k) => {
                    if k == "<<" {
                        if let Value::Map(src) = &value {
                            for (mk, mv) in src.borrow().iter() {
                                m.entry(mk.clone()).or_insert_with(|| mv.clone());
                            }
                        }
                    } else {
                        spans.push(ValueSpan {
                            path: here,
                            range: start..end,
                        });
                        m.insert(k, value);
                    }
                }
            },
        }
    }
    Ok((docs, spans))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    pub offset: usize,
}

/// Character index to byte offset (saphyr reports characters).
struct CharIndex {
    ascii: bool,
    offsets: Vec<usize>,
    len: usize,
}
impl CharIndex {
    fn new(text: &str) -> Self {
        if text.is_ascii() {
            CharIndex {
                ascii: true,
                offsets: Vec::new(),
                len: text.len(),
            }
        } else {
            CharIndex {
                ascii: false,
                offsets: text.char_indices().map(|(i, _)| i).collect(),
                len: text.len(),
            }
        }
    }
    fn byte(&self, ch: usize) -> usize {
        if self.ascii {
            ch.min(self.len)
        } else {
            self.offsets.get(ch).copied().unwrap_or(self.len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_floats() {
        assert_eq!(go_float_g(1e6), "1e+06");
        assert_eq!(go_float_g(100000.0), "100000");
        assert_eq!(go_float_g(1.5), "1.5");
        assert_eq!(go_float_g(0.000001), "1e-06");
        assert_eq!(go_float_g(12345678901234567890.0), "1.2345678901234567e+19");
        assert_eq!(
            json_float(12345678901234567890.0).unwrap(),
            "12345678901234567000"
        );
        assert_eq!(json_float(1e21).unwrap(), "1e+21");
        assert_eq!(json_float(0.000001).unwrap(), "0.000001");
    }

    #[test]
    fn yaml_quoting_like_go_yaml() {
        let cases = [
            ("*", "'*'"),
            ("a: b", "'a: b'"),
            ("1.0", "\"1.0\""),
            ("yes", "\"yes\""),
            ("a b", "a b"),
            (" x", "' x'"),
            ("-", "'-'"),
            ("=", "="),
            ("a:b", "a:b"),
            ("x:", "'x:'"),
            ("'", "''''"),
            ("tab\there", "\"tab\\there\""),
            ("é", "é"),
            ("a😀", "\"a\\U0001F600\""),
            ("", "\"\""),
            ("012", "\"012\""),
            ("1_000", "\"1_000\""),
            (".5", "\".5\""),
            // A no-break space is printable: written as it is.
            ("\tx\u{a0}y", "\"\\tx\u{a0}y\""),
            // Timestamps go-yaml v2 reads as strings and quotes when writing.
            ("2024-04-01", "\"2024-04-01\""),
            ("2024-4-1", "\"2024-4-1\""),
            ("2024-02-29", "\"2024-02-29\""),
            ("2023-02-29", "2023-02-29"),
            ("2024-13-01", "2024-13-01"),
            ("2024-04-01T10:20:30Z", "\"2024-04-01T10:20:30Z\""),
            ("2024-04-01t1:2:3.5+02:00", "\"2024-04-01t1:2:3.5+02:00\""),
            ("2024-04-01 10:20:30.123", "\"2024-04-01 10:20:30.123\""),
            ("2024-04-01T10:20:30", "2024-04-01T10:20:30"),
            ("2024-04-01 10:20:30Z", "2024-04-01 10:20:30Z"),
            ("2024-04-01x", "2024-04-01x"),
            ("12024-04-01", "12024-04-01"),
            ("2024-04-31", "2024-04-31"),
            ("2024-04-01T24:00:00Z", "2024-04-01T24:00:00Z"),
            ("2024-04-01T10:20:30+25:00", "2024-04-01T10:20:30+25:00"),
            ("2024-04-01T10:20:30,5Z", "\"2024-04-01T10:20:30,5Z\""),
        ];
        for (s, want) in cases {
            let mut out = String::new();
            emit_string(&mut out, s, 0, true);
            assert_eq!(out, want, "{s:?}");
        }
    }

    #[test]
    fn long_scalars_fold_like_go_yaml() {
        // As helm's toYaml prints it: a space past column 80 becomes a line
        // break at the value's indent plus 2 (not the first of two spaces in
        // a plain scalar); keys never fold.
        let words = |n: usize| vec!["abcdefghi"; n].join(" ");
        let mut m = Map::new();
        m.insert("plain".into(), Value::str(words(10)));
        m.insert(
            "quoted".into(),
            Value::str(format!("{}\t{}", words(8), words(3))),
        );
        m.insert("single".into(), Value::str(format!("'{}", words(10))));
        m.insert(
            "two".into(),
            Value::str(format!("{}  {}", words(8), words(2))),
        );
        m.insert(
            "dq".into(),
            Value::str(format!("\t{}  {}", words(8), words(2))),
        );
        m.insert(words(10), Value::Int(1));
        m.insert("list".into(), Value::list(vec![Value::str(words(10))]));
        let got = to_yaml(&Value::map(m)).unwrap();
        let want = r#"abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi: 1
dq: "\tabcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi
  \ abcdefghi abcdefghi"
list:
- abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi
  abcdefghi abcdefghi
plain: abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi
  abcdefghi abcdefghi
quoted: "abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi\tabcdefghi
  abcdefghi abcdefghi"
single: '''abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi
  abcdefghi abcdefghi'
two: abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi  abcdefghi
  abcdefghi
"#;
        assert_eq!(got, want);
    }

    #[test]
    fn key_order() {
        let mut k = vec!["kA", "k10", "k9", "k_a", "1", ""];
        k.sort_by(|a, b| yaml_key_order(a, b));
        assert_eq!(k, vec!["", "1", "k_a", "k9", "k10", "kA"]);
    }
}
