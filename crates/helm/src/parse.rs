//! Go `text/template` lexer and parser, keeping the byte span of every node.

use std::ops::Range;
use std::rc::Rc;

pub type Span = Range<usize>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub span: Span,
}

fn err<T>(message: impl Into<String>, span: Span) -> Result<T, ParseError> {
    Err(ParseError {
        message: message.into(),
        span,
    })
}

#[derive(Debug, Clone)]
pub enum Node {
    /// Template text, already trimmed by `{{-`/`-}}`: `span` is what is output.
    Text(Span),
    Action(Pipe),
    If(Branch),
    With(Branch),
    Range(Box<RangeNode>),
    Template {
        span: Span,
        name: String,
        pipe: Option<Pipe>,
    },
    Break,
    Continue,
}

#[derive(Debug, Clone)]
pub struct Branch {
    pub span: Span,
    pub pipe: Pipe,
    pub then: Vec<Node>,
    pub otherwise: Option<Vec<Node>>,
}

#[derive(Debug, Clone)]
pub struct RangeNode {
    pub span: Span,
    pub pipe: Pipe,
    pub body: Vec<Node>,
    pub otherwise: Option<Vec<Node>>,
}

#[derive(Debug, Clone)]
pub struct Pipe {
    pub span: Span,
    /// Variables declared (`:=`) or assigned (`=`).
    pub vars: Vec<String>,
    pub assign: bool,
    pub cmds: Vec<Cmd>,
}

#[derive(Debug, Clone)]
pub struct Cmd {
    pub span: Span,
    pub args: Vec<Arg>,
}

#[derive(Debug, Clone)]
pub struct Arg {
    pub span: Span,
    pub kind: ArgKind,
}

#[derive(Debug, Clone)]
pub enum ArgKind {
    Dot,
    /// `.A.B` (fields of dot).
    Field(Vec<String>),
    /// `$x.A.B`.
    Var(String, Vec<String>),
    /// A function name.
    Ident(String),
    /// `(pipeline).A.B`.
    Pipe(Box<Pipe>, Vec<String>),
    Str(Rc<str>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Nil,
}

/// A parsed file: its top-level nodes and the templates it defines.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub root: Vec<Node>,
    pub defines: Vec<(String, Rc<Vec<Node>>)>,
}

// ------------------------------------------------------------------- lexer

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Field(String),
    Var(String),
    Dot,
    Str(String),
    Int(i64),
    Float(f64),
    Char(i64),
    Pipe,
    LParen,
    RParen,
    Comma,
    Declare,
    Assign,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    span: Span,
    /// Whitespace before it (fields chain only when glued).
    spaced: bool,
}

enum Item {
    Text(Span),
    Action { span: Span, toks: Vec<Token> },
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Splits the source into text and actions, applying trim markers.
fn lex(src: &str) -> Result<Vec<Item>, ParseError> {
    let b = src.as_bytes();
    let mut items = Vec::new();
    let mut pos = 0;
    let mut trim_next = false;
    while pos <= b.len() {
        let open = src[pos..].find("{{").map(|i| pos + i);
        let text_end = open.unwrap_or(b.len());
        let mut ts = pos;
        if trim_next {
            while ts < text_end && is_space(b[ts]) {
                ts += 1;
            }
        }
        let mut te = text_end;
        let Some(open) = open else {
            if ts < te {
                items.push(Item::Text(ts..te));
            }
            break;
        };
        let mut p = open + 2;
        let left_trim = b.len() > p + 1 && b[p] == b'-' && is_space(b[p + 1]);
        if left_trim {
            while te > ts && is_space(b[te - 1]) {
                te -= 1;
            }
            p += 2;
        }
        if ts < te {
            items.push(Item::Text(ts..te));
        }
        // Comment.
        let mut q = p;
        while q < b.len() && is_space(b[q]) && left_trim {
            q += 1;
        }
        if src[q..].starts_with("/*") {
            let Some(close) = src[q + 2..].find("*/").map(|i| q + 2 + i + 2) else {
                return err("unclosed comment", open..b.len());
            };
            let mut c = close;
            let mut right_trim = false;
            if src[c..].starts_with(" -}}") {
                right_trim = true;
                c += 4;
            } else if src[c..].starts_with("}}") {
                c += 2;
            } else {
                return err("comment ends before closing delimiter", open..close);
            }
            trim_next = right_trim;
            pos = c;
            continue;
        }
        let (toks, end, right_trim) = lex_action(src, p, open)?;
        items.push(Item::Action {
            span: open..end,
            toks,
        });
        trim_next = right_trim;
        pos = end;
    }
    Ok(items)
}

/// Tokens of one action from `p` up to `}}`. Returns the end (after `}}`).
fn lex_action(
    src: &str,
    mut p: usize,
    open: usize,
) -> Result<(Vec<Token>, usize, bool), ParseError> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut spaced = true;
    loop {
        if p >= b.len() {
            return err("unclosed action", open..b.len());
        }
        let c = b[p];
        if is_space(c) {
            // ` -}}` closes with a right trim.
            let mut q = p;
            while q < b.len() && is_space(b[q]) {
                q += 1;
            }
            if src[q..].starts_with("-}}") {
                return Ok((toks, q + 3, true));
            }
            p = q;
            spaced = true;
            continue;
        }
        if src[p..].starts_with("}}") {
            return Ok((toks, p + 2, false));
        }
        let start = p;
        let tok = match c {
            b'|' => {
                p += 1;
                Tok::Pipe
            }
            b'(' => {
                p += 1;
                Tok::LParen
            }
            b')' => {
                p += 1;
                Tok::RParen
            }
            b',' => {
                p += 1;
                Tok::Comma
            }
            b':' if src[p..].starts_with(":=") => {
                p += 2;
                Tok::Declare
            }
            b'=' => {
                p += 1;
                Tok::Assign
            }
            b'"' => {
                let (s, e) = lex_quoted(src, p)?;
                p = e;
                Tok::Str(s)
            }
            b'`' => {
                let Some(e) = src[p + 1..].find('`') else {
                    return err("unterminated raw quoted string", p..b.len());
                };
                let s = src[p + 1..p + 1 + e].replace('\r', "");
                p = p + e + 2;
                Tok::Str(s)
            }
            b'\'' => {
                let (s, e) = lex_char(src, p)?;
                p = e;
                Tok::Char(s)
            }
            b'$' => {
                p += 1;
                while p < b.len() && is_ident(b[p]) {
                    p += 1;
                }
                Tok::Var(src[start..p].to_string())
            }
            b'.' => {
                if p + 1 < b.len() && b[p + 1].is_ascii_digit() {
                    let (t, e) = lex_number(src, p)?;
                    p = e;
                    t
                } else {
                    p += 1;
                    if p < b.len() && is_ident(b[p]) {
                        while p < b.len() && is_ident(b[p]) {
                            p += 1;
                        }
                        Tok::Field(src[start + 1..p].to_string())
                    } else {
                        Tok::Dot
                    }
                }
            }
            b'0'..=b'9' | b'-' | b'+' => {
                let (t, e) = lex_number(src, p)?;
                p = e;
                t
            }
            c if is_ident(c) || c >= 0x80 => {
                while p < b.len() && (is_ident(b[p]) || b[p] >= 0x80) {
                    p += 1;
                }
                Tok::Ident(src[start..p].to_string())
            }
            _ => {
                let ch = src[p..].chars().next().unwrap_or('?');
                return err(
                    format!("unexpected {ch:?} in command"),
                    p..p + ch.len_utf8(),
                );
            }
        };
        toks.push(Token {
            tok,
            span: start..p,
            spaced,
        });
        spaced = false;
    }
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn lex_quoted(src: &str, start: usize) -> Result<(String, usize), ParseError> {
    let mut out = String::new();
    let mut it = src[start + 1..].char_indices();
    while let Some((i, c)) = it.next() {
        match c {
            '"' => return Ok((out, start + 1 + i + 1)),
            '\n' => break,
            '\\' => {
                let Some((_, e)) = it.next() else { break };
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    '\\' => out.push('\\'),
                    '"' => out.push('"'),
                    '\'' => out.push('\''),
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let mut v = 0u32;
                        for _ in 0..n {
                            let Some((_, h)) = it.next() else { break };
                            v = v * 16 + h.to_digit(16).unwrap_or(0);
                        }
                        out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                    '0'..='7' => {
                        let mut v = e.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            let Some((_, h)) = it.next() else { break };
                            v = v * 8 + h.to_digit(8).unwrap_or(0);
                        }
                        out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                    other => {
                        return err(
                            format!("unknown escape sequence \\{other}"),
                            start..start + 1 + i + 2,
                        )
                    }
                }
            }
            c => out.push(c),
        }
    }
    err(
        "unterminated quoted string",
        start..src.len().min(start + 1),
    )
}

fn lex_char(src: &str, start: usize) -> Result<(i64, usize), ParseError> {
    let rest = &src[start + 1..];
    let mut it = rest.char_indices();
    let v = match it.next() {
        Some((_, '\\')) => match it.next() {
            Some((_, 'n')) => '\n' as i64,
            Some((_, 't')) => '\t' as i64,
            Some((_, '\\')) => '\\' as i64,
            Some((_, '\'')) => '\'' as i64,
            Some((_, c)) => c as i64,
            None => return err("unterminated character constant", start..src.len()),
        },
        Some((_, c)) => c as i64,
        None => return err("unterminated character constant", start..src.len()),
    };
    match it.next() {
        Some((i, '\'')) => Ok((v, start + 1 + i + 1)),
        _ => err("unterminated character constant", start..start + 1),
    }
}

fn lex_number(src: &str, start: usize) -> Result<(Tok, usize), ParseError> {
    let b = src.as_bytes();
    let mut p = start;
    if b[p] == b'-' || b[p] == b'+' {
        p += 1;
    }
    while p < b.len()
        && (b[p].is_ascii_alphanumeric()
            || b[p] == b'.'
            || b[p] == b'_'
            || ((b[p] == b'-' || b[p] == b'+') && matches!(b[p - 1], b'e' | b'E' | b'p' | b'P')))
    {
        p += 1;
    }
    let text = src[start..p].replace('_', "");
    let bad = || err(format!("bad number syntax: {:?}", &src[start..p]), start..p);
    let (neg, body) = match text.strip_prefix('-') {
        Some(r) => (true, r.to_string()),
        None => (false, text.strip_prefix('+').unwrap_or(&text).to_string()),
    };
    let lower = body.to_ascii_lowercase();
    let int = if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(bn) = lower.strip_prefix("0b") {
        i64::from_str_radix(bn, 2).ok()
    } else if lower.len() > 1 && lower.starts_with('0') && lower.bytes().all(|c| c.is_ascii_digit())
    {
        i64::from_str_radix(&lower[1..], 8).ok()
    } else if !lower.is_empty() && lower.bytes().all(|c| c.is_ascii_digit()) {
        lower.parse::<i64>().ok()
    } else {
        None
    };
    if let Some(i) = int {
        return Ok((Tok::Int(if neg { -i } else { i }), p));
    }
    if let Some(h) = lower.strip_prefix("0x") {
        // Hexadecimal float: 0x1p60, 0x1.8p-3.
        if let Some((mant, exp)) = h.split_once('p') {
            let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
            let mut m = 0f64;
            for c in ip.chars().chain(fp.chars()) {
                let Some(d) = c.to_digit(16) else {
                    return bad();
                };
                m = m * 16.0 + d as f64;
            }
            let Ok(e) = exp.parse::<i32>() else {
                return bad();
            };
            let f = m * 2f64.powi(e - 4 * fp.len() as i32);
            let f = if neg { -f } else { f };
            return Ok((Tok::Float(f), p));
        }
        return bad();
    }
    if lower.is_empty() {
        return bad();
    }
    match lower.parse::<f64>() {
        Ok(f)
            if lower
                .bytes()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-')) =>
        {
            // Go: a float constant with an integral value is an int.
            let f = if neg { -f } else { f };
            if f.fract() == 0.0 && f.abs() < 9.2e18 && !lower.contains('.') && !lower.contains('e')
            {
                Ok((Tok::Int(f as i64), p))
            } else {
                Ok((Tok::Float(f), p))
            }
        }
        _ => bad(),
    }
}

// ------------------------------------------------------------------ parser

/// Parses one template file.
pub fn parse(src: &str) -> Result<Parsed, ParseError> {
    let items = lex(src)?;
    let mut p = Parser {
        items,
        pos: 0,
        defines: Vec::new(),
        depth: 0,
    };
    let (root, end) = p.list(false)?;
    if let Some((kw, span)) = end {
        return err(format!("unexpected {{{{{kw}}}}}"), span);
    }
    Ok(Parsed {
        root,
        defines: p.defines,
    })
}

struct Parser {
    items: Vec<Item>,
    pos: usize,
    defines: Vec<(String, Rc<Vec<Node>>)>,
    depth: usize,
}

/// How a list ended: `end`, `else` (with the rest of the else action's tokens).
type ListEnd = Option<(String, Span)>;

const MAX_PARSE_DEPTH: usize = 200;

impl Parser {
    /// Nodes up to `{{end}}`/`{{else}}` (when `inner`), or the end of input.
    fn list(&mut self, inner: bool) -> Result<(Vec<Node>, ListEnd), ParseError> {
        let mut nodes = Vec::new();
        while self.pos < self.items.len() {
            let item = std::mem::replace(&mut self.items[self.pos], Item::Text(0..0));
            self.pos += 1;
            match item {
                Item::Text(s) => nodes.push(Node::Text(s)),
                Item::Action { span, toks } => {
                    let kw = match toks.first() {
                        Some(Token {
                            tok: Tok::Ident(k), ..
                        }) => k.as_str(),
                        _ => "",
                    };
                    match kw {
                        "end" => {
                            if toks.len() > 1 {
                                return err("unexpected token in end", span);
                            }
                            if !inner {
                                return err("unexpected {{end}}", span);
                            }
                            return Ok((nodes, Some(("end".into(), span))));
                        }
                        "else" => {
                            if !inner {
                                return err("unexpected {{else}}", span);
                            }
                            // Put back the rest for `else if` / `else with`.
                            self.pos -= 1;
                            self.items[self.pos] = Item::Action {
                                span: span.clone(),
                                toks,
                            };
                            return Ok((nodes, Some(("else".into(), span))));
                        }
                        _ => nodes.push(self.action(span, toks)?),
                    }
                }
            }
        }
        if inner {
            return err("unexpected EOF", 0..0);
        }
        Ok((nodes, None))
    }

    fn action(&mut self, span: Span, toks: Vec<Token>) -> Result<Node, ParseError> {
        let kw = match toks.first() {
            Some(Token {
                tok: Tok::Ident(k), ..
            }) => k.clone(),
            _ => String::new(),
        };
        match kw.as_str() {
            "if" | "with" => self.branch(&kw, span, toks),
            "range" => {
                self.enter(&span)?;
                let pipe = pipeline(&toks[1..], span.clone(), true)?;
                let (body, end) = self.list(true)?;
                let otherwise = self.else_part(end, "range")?;
                self.depth -= 1;
                Ok(Node::Range(Box::new(RangeNode {
                    span,
                    pipe,
                    body,
                    otherwise,
                })))
            }
            "define" | "block" => {
                self.enter(&span)?;
                let Some(Token {
                    tok: Tok::Str(name),
                    ..
                }) = toks.get(1)
                else {
                    return err(format!("{kw} needs a quoted template name"), span);
                };
                let name = name.clone();
                let pipe = if kw == "block" {
                    if toks.len() > 2 {
                        Some(pipeline(&toks[2..], span.clone(), false)?)
                    } else {
                        None
                    }
                } else {
                    if toks.len() > 2 {
                        return err("unexpected token in define", span);
                    }
                    None
                };
                let (body, end) = self.list(true)?;
                if let Some((k, s)) = end {
                    if k != "end" {
                        return err(format!("unexpected {{{{{k}}}}} in {kw}"), s);
                    }
                }
                self.depth -= 1;
                self.defines.push((name.clone(), Rc::new(body)));
                if kw == "block" {
                    Ok(Node::Template { span, name, pipe })
                } else {
                    Ok(Node::Text(0..0))
                }
            }
            "template" => {
                let Some(Token {
                    tok: Tok::Str(name),
                    ..
                }) = toks.get(1)
                else {
                    return err("template needs a quoted template name", span);
                };
                let pipe = if toks.len() > 2 {
                    Some(pipeline(&toks[2..], span.clone(), false)?)
                } else {
                    None
                };
                Ok(Node::Template {
                    span,
                    name: name.clone(),
                    pipe,
                })
            }
            "break" if toks.len() == 1 => Ok(Node::Break),
            "continue" if toks.len() == 1 => Ok(Node::Continue),
            _ => Ok(Node::Action(pipeline(&toks, span, false)?)),
        }
    }

    fn enter(&mut self, span: &Span) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_PARSE_DEPTH {
            return err("control structures nested too deeply", span.clone());
        }
        Ok(())
    }

    fn branch(&mut self, kw: &str, span: Span, toks: Vec<Token>) -> Result<Node, ParseError> {
        self.enter(&span)?;
        let pipe = pipeline(&toks[1..], span.clone(), false)?;
        let (then, end) = self.list(true)?;
        let otherwise = self.else_part(end, kw)?;
        self.depth -= 1;
        let b = Branch {
            span,
            pipe,
            then,
            otherwise,
        };
        Ok(if kw == "if" {
            Node::If(b)
        } else {
            Node::With(b)
        })
    }

    /// After a list ended with `else`: `{{else}} ... {{end}}`, or
    /// `{{else if ...}}`/`{{else with ...}}` chains (one shared `{{end}}`).
    fn else_part(&mut self, end: ListEnd, kw: &str) -> Result<Option<Vec<Node>>, ParseError> {
        let Some((k, _)) = end else {
            return Ok(None);
        };
        if k == "end" {
            return Ok(None);
        }
        let Item::Action { span, toks } =
            std::mem::replace(&mut self.items[self.pos], Item::Text(0..0))
        else {
            return Ok(None);
        };
        self.pos += 1;
        if toks.len() == 1 {
            let (body, end) = self.list(true)?;
            match end {
                Some((k, s)) if k != "end" => return err(format!("expected end; found {k}"), s),
                _ => {}
            }
            return Ok(Some(body));
        }
        match &toks[1].tok {
            Tok::Ident(k2) if (k2 == "if" || k2 == "with") && kw != "range" => {
                let k2 = k2.clone();
                let node = self.branch(&k2, span, toks[1..].to_vec())?;
                Ok(Some(vec![node]))
            }
            _ => err("unexpected token in else", span),
        }
    }
}

/// A pipeline from tokens: `$x := cmd | cmd`.
fn pipeline(toks: &[Token], span: Span, in_range: bool) -> Result<Pipe, ParseError> {
    if toks.is_empty() {
        return err("missing value for command", span);
    }
    let mut vars = Vec::new();
    let mut assign = false;
    let mut rest = toks;
    // Declarations: `$x :=`, `$x =`, and in range `$i, $e :=`.
    let decl_len = {
        let mut i = 0;
        let mut names = Vec::new();
        loop {
            match rest.get(i) {
                Some(Token {
                    tok: Tok::Var(v), ..
                }) => names.push(v.clone()),
                _ => break None,
            }
            match rest.get(i + 1).map(|t| &t.tok) {
                Some(Tok::Declare) => break Some((i + 2, names, false)),
                Some(Tok::Assign) => break Some((i + 2, names, true)),
                Some(Tok::Comma) if in_range && names.len() < 2 => i += 2,
                _ => break None,
            }
        }
    };
    if let Some((n, names, is_assign)) = decl_len {
        vars = names;
        assign = is_assign;
        rest = &rest[n..];
    }
    let mut cmds = Vec::new();
    let parts = split_top(rest, |t| matches!(t, Tok::Pipe));
    let n = parts.len();
    for (i, part) in parts.into_iter().enumerate() {
        // Go's parser takes a pipe right before the closing delimiter
        // (`{{ x | nindent 4 | }}`) as the end of the pipeline.
        if part.is_empty() && i + 1 == n && !cmds.is_empty() {
            break;
        }
        if part.is_empty() {
            return err("missing command in pipeline", span);
        }
        let cspan = part[0].span.start..part[part.len() - 1].span.end;
        let args = operands(part)?;
        if args.is_empty() {
            return err("empty command", cspan);
        }
        cmds.push(Cmd { span: cspan, args });
    }
    if cmds.is_empty() {
        return err("missing value for command", span);
    }
    for c in &cmds[1..] {
        if matches!(
            c.args[0].kind,
            ArgKind::Str(_) | ArgKind::Int(_) | ArgKind::Float(_) | ArgKind::Bool(_) | ArgKind::Nil
        ) {
            return err("non executable command in pipeline stage", c.span.clone());
        }
    }
    Ok(Pipe {
        span,
        vars,
        assign,
        cmds,
    })
}

/// Splits on a separator outside parentheses.
fn split_top(toks: &[Token], sep: impl Fn(&Tok) -> bool) -> Vec<&[Token]> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::LParen => depth += 1,
            Tok::RParen => depth -= 1,
            ref x if depth == 0 && sep(x) => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&toks[start..]);
    out
}

fn depth_of_parens(toks: &[Token]) -> usize {
    let (mut d, mut max) = (0usize, 0usize);
    for t in toks {
        match t.tok {
            Tok::LParen => {
                d += 1;
                max = max.max(d);
            }
            Tok::RParen => d = d.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn operands(toks: &[Token]) -> Result<Vec<Arg>, ParseError> {
    let mut args = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let start = t.span.start;
        let mut kind = match &t.tok {
            Tok::Dot => ArgKind::Dot,
            Tok::Field(f) => ArgKind::Field(vec![f.clone()]),
            Tok::Var(v) => ArgKind::Var(v.clone(), Vec::new()),
            Tok::Str(s) => ArgKind::Str(s.as_str().into()),
            Tok::Int(n) | Tok::Char(n) => ArgKind::Int(*n),
            Tok::Float(f) => ArgKind::Float(*f),
            Tok::Ident(id) => match id.as_str() {
                "true" => ArgKind::Bool(true),
                "false" => ArgKind::Bool(false),
                "nil" => ArgKind::Nil,
                _ => ArgKind::Ident(id.clone()),
            },
            Tok::LParen => {
                let mut depth = 0;
                let mut j = i;
                loop {
                    match toks.get(j).map(|t| &t.tok) {
                        Some(Tok::LParen) => depth += 1,
                        Some(Tok::RParen) => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Some(_) => {}
                        None => return err("unclosed left paren", t.span.clone()),
                    }
                    j += 1;
                }
                let inner = &toks[i + 1..j];
                let pspan = t.span.start..toks[j].span.end;
                if depth_of_parens(inner) > MAX_PARSE_DEPTH / 4 {
                    return err("parentheses nested too deeply", pspan);
                }
                let pipe = pipeline(inner, pspan, false)?;
                i = j;
                ArgKind::Pipe(Box::new(pipe), Vec::new())
            }
            Tok::RParen => return err("unexpected right paren", t.span.clone()),
            Tok::Declare | Tok::Assign => {
                return err("unexpected assignment in operand", t.span.clone())
            }
            Tok::Comma => return err("unexpected comma", t.span.clone()),
            Tok::Pipe => return err("unexpected pipe", t.span.clone()),
        };
        let mut end = toks[i].span.end;
        i += 1;
        // Glued field chain: `$x.A`, `(p).A`, `.A.B`.
        while let Some(Token {
            tok: Tok::Field(f),
            spaced: false,
            span,
        }) = toks.get(i)
        {
            match &mut kind {
                ArgKind::Field(fs) | ArgKind::Var(_, fs) | ArgKind::Pipe(_, fs) => {
                    fs.push(f.clone())
                }
                ArgKind::Dot => kind = ArgKind::Field(vec![f.clone()]),
                _ => return err(format!("unexpected .{f} after operand"), span.clone()),
            }
            end = span.end;
            i += 1;
        }
        args.push(Arg {
            span: start..end,
            kind,
        });
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_and_comments() {
        let src = "a  {{- /* c */ -}}  b {{- .X -}}\n c";
        let p = parse(src).unwrap();
        let texts: Vec<&str> = p
            .root
            .iter()
            .filter_map(|n| match n {
                Node::Text(s) => Some(&src[s.clone()]),
                _ => None,
            })
            .collect();
        assert_eq!(texts, vec!["a", "b", "c"]);
    }

    #[test]
    fn else_if_chain_and_range_vars() {
        let src = "{{ if .A }}1{{ else if .B }}2{{ else }}3{{ end }}{{ range $i, $e := .L }}{{ $e }}{{ end }}";
        let p = parse(src).unwrap();
        assert_eq!(p.root.len(), 2);
        let Node::Range(r) = &p.root[1] else { panic!() };
        assert_eq!(r.pipe.vars, vec!["$i", "$e"]);
    }

    #[test]
    fn a_pipe_before_the_delimiter_ends_the_pipeline() {
        // Go's parser accepts these (datadog-operator writes `| nindent 4 | }}`).
        for ok in [
            r#"{{ "a" | upper | }}"#,
            r#"{{ ("a" | upper |) }}"#,
            r#"{{ $x := "a" | upper | }}"#,
        ] {
            assert!(parse(ok).is_ok(), "{ok}");
        }
        for bad in [r#"{{ "a" | | upper }}"#, "{{ | }}", "{{ ( | ) }}"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_have_spans() {
        let e = parse("ok {{ if .A }} never closed").unwrap_err();
        assert!(e.message.contains("EOF"));
        let e = parse("{{ .A ").unwrap_err();
        assert_eq!(e.message, "unclosed action");
    }

    #[test]
    fn numbers() {
        let p = parse("{{ 0x10 }}{{ -3 }}{{ 1.5 }}{{ 1e3 }}{{ 'a' }}").unwrap();
        assert_eq!(p.root.len(), 5);
    }
}
