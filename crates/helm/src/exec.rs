//! The template evaluator: Go `text/template` execution with Helm's
//! `include`, `tpl`, `required` and `fail`, spans on output and unknowns.

use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use crate::funcs::{self, FnError};
use crate::parse::{self, Arg, ArgKind, Cmd, Node, Pipe, Span};
use crate::value::{go_string, Object, Value, UNKNOWN_MARKER};
use crate::{Limits, RenderError, RenderErrorKind};

/// One source the evaluator knows: a chart template or a `tpl` string.
pub struct Source {
    pub name: String,
    pub text: Rc<str>,
}

/// Output bytes and where they came from.
#[derive(Default, Debug, Clone)]
pub struct Out {
    pub text: String,
    /// Output range, source index, source range.
    pub segs: Vec<(Range<usize>, usize, Range<usize>)>,
    /// Output produced under a condition that is not known.
    pub unknown: Vec<Range<usize>>,
}

impl Out {
    fn push(&mut self, s: &str, src: usize, span: Range<usize>) {
        if s.is_empty() {
            return;
        }
        let start = self.text.len();
        self.text.push_str(s);
        self.segs.push((start..self.text.len(), src, span));
    }
}

enum Flow {
    Normal,
    Break,
    Continue,
}

type Res<T> = Result<T, RenderError>;

pub struct Engine<'l> {
    pub sources: Vec<Source>,
    defines: HashMap<String, (usize, Rc<Vec<Node>>)>,
    limits: &'l Limits,
    steps: u64,
    depth: usize,
    written: usize,
    tpl_cache: HashMap<Rc<str>, (usize, Rc<parse::Parsed>)>,
    /// Stack address where the current run began: deep includes stop before
    /// the thread's stack does, whatever its size.
    stack_base: usize,
}

/// Stack a run may use for nesting (the caller's thread may be a 2 MiB worker).
const STACK_BUDGET: usize = 768 * 1024;

fn stack_here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Execution state of one template run (Go's `state`).
struct State {
    src: usize,
    vars: Vec<(String, Value)>,
    /// How many unknown conditions enclose the current node.
    uncertain: usize,
    /// Variables that existed when the innermost uncertain branch began.
    uncertain_floor: usize,
    /// Name of the template being executed, for `.Template.Name` and errors.
    name: Rc<str>,
}

impl<'l> Engine<'l> {
    pub fn new(limits: &'l Limits) -> Self {
        Engine {
            sources: Vec::new(),
            defines: HashMap::new(),
            limits,
            steps: 0,
            depth: 0,
            written: 0,
            tpl_cache: HashMap::new(),
            stack_base: 0,
        }
    }

    /// Adds and parses a source; its `define`s replace earlier ones of the
    /// same name (Go's template set does the same).
    pub fn add(
        &mut self,
        name: String,
        text: Rc<str>,
    ) -> Result<(usize, Rc<parse::Parsed>), RenderError> {
        let idx = self.sources.len();
        let parsed = parse::parse(&text).map_err(|e| RenderError {
            kind: RenderErrorKind::Parse,
            template: name.clone(),
            span: e.span,
            message: e.message,
        })?;
        // Go's template set names each file's body after the file.
        self.defines
            .insert(name.clone(), (idx, Rc::new(parsed.root.clone())));
        self.sources.push(Source { name, text });
        let parsed = Rc::new(parsed);
        for (n, body) in &parsed.defines {
            self.defines.insert(n.clone(), (idx, body.clone()));
        }
        Ok((idx, parsed))
    }

    /// Runs parsed nodes of source `src` with `dot` as data.
    pub fn execute(&mut self, src: usize, nodes: &[Node], dot: &Value, root: &Value) -> Res<Out> {
        self.stack_base = stack_here();
        let mut out = Out::default();
        let name: Rc<str> = self.sources[src].name.as_str().into();
        let mut st = State {
            src,
            vars: vec![("$".into(), root.clone())],
            uncertain: 0,
            uncertain_floor: 0,
            name,
        };
        self.nodes(&mut st, nodes, dot, &mut out)?;
        Ok(out)
    }

    fn error(
        &self,
        st: &State,
        span: Span,
        kind: RenderErrorKind,
        message: impl Into<String>,
    ) -> RenderError {
        RenderError {
            kind,
            template: self.sources[st.src].name.clone(),
            span,
            message: message.into(),
        }
    }

    fn step(&mut self, st: &State, span: &Span) -> Res<()> {
        self.steps += 1;
        if self.steps > self.limits.max_steps {
            return Err(self.error(
                st,
                span.clone(),
                RenderErrorKind::Limit("max-steps"),
                format!("more than {} evaluation steps", self.limits.max_steps),
            ));
        }
        Ok(())
    }

    fn write(&mut self, st: &State, out: &mut Out, s: &str, span: Span) -> Res<()> {
        self.written += s.len();
        if self.written > self.limits.max_output_bytes {
            return Err(self.error(
                st,
                span,
                RenderErrorKind::Limit("max-output-bytes"),
                format!("output larger than {} bytes", self.limits.max_output_bytes),
            ));
        }
        out.push(s, st.src, span);
        Ok(())
    }

    fn nodes(&mut self, st: &mut State, nodes: &[Node], dot: &Value, out: &mut Out) -> Res<Flow> {
        for n in nodes {
            match self.node(st, n, dot, out)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs `body` under an unknown condition: its output is marked unknown
    /// and variables it assigns are unknown afterwards.
    fn uncertain(
        &mut self,
        st: &mut State,
        body: &[Node],
        dot: &Value,
        out: &mut Out,
    ) -> Res<Flow> {
        let start = out.text.len();
        let floor = st.uncertain_floor;
        st.uncertain += 1;
        st.uncertain_floor = st.vars.len();
        let flow = self.nodes(st, body, dot, out);
        st.uncertain -= 1;
        st.uncertain_floor = floor;
        let flow = flow?;
        if out.text.len() > start {
            out.unknown.push(start..out.text.len());
        }
        // A break or continue under an unknown condition may or may not happen.
        Ok(match flow {
            Flow::Normal => Flow::Normal,
            _ => Flow::Normal,
        })
    }

    fn node(&mut self, st: &mut State, n: &Node, dot: &Value, out: &mut Out) -> Res<Flow> {
        match n {
            Node::Text(span) => {
                if !span.is_empty() {
                    self.step(st, span)?;
                    let text = self.sources[st.src].text.clone();
                    self.write(st, out, &text[span.clone()], span.clone())?;
                }
            }
            Node::Action(pipe) => {
                self.step(st, &pipe.span)?;
                let v = self.pipe(st, pipe, dot)?;
                if pipe.vars.is_empty() {
                    let s = self.print_value(st, &v, &pipe.span)?;
                    self.write(st, out, &s, pipe.span.clone())?;
                }
            }
            Node::If(b) | Node::With(b) => {
                self.step(st, &b.span)?;
                let mark = st.vars.len();
                let v = self.pipe(st, &b.pipe, dot)?;
                let is_with = matches!(n, Node::With(_));
                let flow = match v.truth() {
                    None => {
                        let d = if is_with { Value::Unknown } else { dot.clone() };
                        self.uncertain(st, &b.then, &d, out)?
                    }
                    Some(true) => {
                        let d = if is_with { v } else { dot.clone() };
                        self.nodes(st, &b.then, &d, out)?
                    }
                    Some(false) => match &b.otherwise {
                        Some(e) => self.nodes(st, e, dot, out)?,
                        None => Flow::Normal,
                    },
                };
                st.vars.truncate(mark);
                return Ok(flow);
            }
            Node::Range(r) => {
                self.step(st, &r.span)?;
                let mark = st.vars.len();
                let v = self.pipe_no_decl(st, &r.pipe, dot)?;
                let mut items: Vec<(Value, Value)> = Vec::new();
                let mut unknown = false;
                match &v {
                    Value::List(l) => {
                        items = l
                            .iter()
                            .enumerate()
                            .map(|(i, e)| (Value::Int(i as i64), e.clone()))
                            .collect()
                    }
                    Value::Map(m) => {
                        items = m
                            .borrow()
                            .iter()
                            .map(|(k, e)| (Value::str(k.as_str()), e.clone()))
                            .collect()
                    }
                    Value::Int(n) => {
                        items = (0..(*n).max(0))
                            .map(|i| (Value::Int(i), Value::Int(i)))
                            .collect()
                    }
                    Value::Nil => {}
                    Value::Unknown => unknown = true,
                    Value::Str(s) if s.contains(UNKNOWN_MARKER) => unknown = true,
                    Value::Object(o) => match &**o {
                        Object::Files(f) => {
                            items = f
                                .iter()
                                .map(|(k, b)| {
                                    (
                                        Value::str(k.as_str()),
                                        std::str::from_utf8(b).map_or(Value::Unknown, Value::str),
                                    )
                                })
                                .collect()
                        }
                        Object::ApiVersions(list) => {
                            items = list
                                .iter()
                                .enumerate()
                                .map(|(i, v)| (Value::Int(i as i64), Value::str(v.as_str())))
                                .collect()
                        }
                        Object::KubeVersion { .. } => {}
                    },
                    other => {
                        return Err(self.error(
                            st,
                            r.pipe.span.clone(),
                            RenderErrorKind::Template,
                            format!("range can't iterate over {}", go_string(other)),
                        ))
                    }
                }
                if unknown {
                    self.bind_range(st, &r.pipe, Value::Unknown, Value::Unknown);
                    self.uncertain(st, &r.body, &Value::Unknown, out)?;
                    st.vars.truncate(mark);
                    return Ok(Flow::Normal);
                }
                if items.is_empty() {
                    if let Some(e) = &r.otherwise {
                        self.nodes(st, e, dot, out)?;
                    }
                    st.vars.truncate(mark);
                    return Ok(Flow::Normal);
                }
                for (k, e) in items {
                    let inner = st.vars.len();
                    self.bind_range(st, &r.pipe, k, e.clone());
                    let flow = self.nodes(st, &r.body, &e, out)?;
                    st.vars.truncate(inner);
                    if let Flow::Break = flow {
                        break;
                    }
                }
                st.vars.truncate(mark);
            }
            Node::Template { span, name, pipe } => {
                self.step(st, span)?;
                let d = match pipe {
                    Some(p) => self.pipe(st, p, dot)?,
                    None => Value::Nil,
                };
                let Some((src, body)) = self.defines.get(name).cloned() else {
                    return Err(self.error(
                        st,
                        span.clone(),
                        RenderErrorKind::Template,
                        format!("no such template {name:?}"),
                    ));
                };
                self.enter(st, span, "max-include-depth")?;
                let root = d.clone();
                let mut inner = State {
                    src,
                    vars: vec![("$".into(), root)],
                    uncertain: st.uncertain,
                    uncertain_floor: 0,
                    name: st.name.clone(),
                };
                let r = self.nodes(&mut inner, &body, &d, out);
                self.depth -= 1;
                r?;
            }
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    fn enter(&mut self, st: &State, span: &Span, limit: &'static str) -> Res<()> {
        self.depth += 1;
        let used = self.stack_base.abs_diff(stack_here());
        if self.depth > self.limits.max_include_depth || used > STACK_BUDGET {
            self.depth -= 1;
            return Err(self.error(
                st,
                span.clone(),
                RenderErrorKind::Limit(limit),
                format!(
                    "include, template or tpl nested deeper than {} levels",
                    self.limits.max_include_depth
                ),
            ));
        }
        Ok(())
    }

    fn bind_range(&mut self, st: &mut State, pipe: &Pipe, k: Value, e: Value) {
        match pipe.vars.len() {
            1 => self.set_var(st, &pipe.vars[0], e, pipe.assign),
            2 => {
                self.set_var(st, &pipe.vars[0], k, pipe.assign);
                self.set_var(st, &pipe.vars[1], e, pipe.assign);
            }
            _ => {}
        }
    }

    fn set_var(&mut self, st: &mut State, name: &str, v: Value, assign: bool) {
        if assign {
            if let Some(i) = st.vars.iter().rposition(|(n, _)| n == name) {
                // Assigned under an unknown condition to a variable from outside it.
                let v = if st.uncertain > 0 && i < st.uncertain_floor {
                    Value::Unknown
                } else {
                    v
                };
                st.vars[i].1 = v;
                return;
            }
        }
        st.vars.push((name.to_string(), v));
    }

    /// The pipeline's value, without declaring its variables (range binds them).
    fn pipe_no_decl(&mut self, st: &mut State, pipe: &Pipe, dot: &Value) -> Res<Value> {
        let mut v: Option<Value> = None;
        for c in &pipe.cmds {
            v = Some(self.command(st, c, dot, v)?);
        }
        Ok(v.unwrap_or_default())
    }

    fn pipe(&mut self, st: &mut State, pipe: &Pipe, dot: &Value) -> Res<Value> {
        let v = self.pipe_no_decl(st, pipe, dot)?;
        if !pipe.assign {
            if let Some(name) = pipe.vars.first() {
                st.vars.push((name.clone(), v.clone()));
            }
        } else if let Some(name) = pipe.vars.first() {
            if !st.vars.iter().any(|(n, _)| n == name) {
                return Err(self.error(
                    st,
                    pipe.span.clone(),
                    RenderErrorKind::Template,
                    format!("undefined variable: {name}"),
                ));
            }
            self.set_var(st, name, v.clone(), true);
        }
        Ok(v)
    }

    fn var(&self, st: &State, name: &str, span: &Span) -> Res<Value> {
        match st.vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => Ok(v.clone()),
            None => Err(self.error(
                st,
                span.clone(),
                RenderErrorKind::Template,
                format!("undefined variable: {name}"),
            )),
        }
    }

    /// Go prints the value of an action with `fmt.Fprint`; Helm then removes
    /// the `<no value>` that a missing key prints.
    fn print_value(&self, st: &State, v: &Value, span: &Span) -> Res<String> {
        Ok(match v {
            Value::Nil => String::new(),
            Value::Object(o) => match &**o {
                Object::Files(_) | Object::ApiVersions(_) => go_string(v),
                Object::KubeVersion { .. } => go_string(v),
            },
            _ => {
                let _ = (st, span);
                go_string(v)
            }
        })
    }

    fn command(
        &mut self,
        st: &mut State,
        cmd: &Cmd,
        dot: &Value,
        fin: Option<Value>,
    ) -> Res<Value> {
        self.step(st, &cmd.span)?;
        let first = &cmd.args[0];
        match &first.kind {
            ArgKind::Ident(name) => self.call(st, name, &cmd.args[1..], cmd.span.clone(), dot, fin),
            ArgKind::Field(fields) => self.chain(
                st,
                dot.clone(),
                fields,
                &cmd.args[1..],
                first.span.clone(),
                dot,
                fin,
            ),
            ArgKind::Var(name, fields) => {
                let base = self.var(st, name, &first.span)?;
                self.chain(
                    st,
                    base,
                    fields,
                    &cmd.args[1..],
                    first.span.clone(),
                    dot,
                    fin,
                )
            }
            ArgKind::Pipe(p, fields) => {
                let base = self.pipe(st, p, dot)?;
                self.chain(
                    st,
                    base,
                    fields,
                    &cmd.args[1..],
                    first.span.clone(),
                    dot,
                    fin,
                )
            }
            _ => {
                if cmd.args.len() > 1 || fin.is_some() {
                    return Err(self.error(
                        st,
                        cmd.span.clone(),
                        RenderErrorKind::Template,
                        "can't give argument to non-function",
                    ));
                }
                if let ArgKind::Nil = first.kind {
                    return Err(self.error(
                        st,
                        cmd.span.clone(),
                        RenderErrorKind::Template,
                        "nil is not a command",
                    ));
                }
                self.arg(st, first, dot)
            }
        }
    }

    /// `base.F1.F2...`; the last field may be a method given the remaining args.
    #[allow(clippy::too_many_arguments)]
    fn chain(
        &mut self,
        st: &mut State,
        base: Value,
        fields: &[String],
        args: &[Arg],
        span: Span,
        dot: &Value,
        fin: Option<Value>,
    ) -> Res<Value> {
        let mut v = base;
        // Whether `v` is a chart's `.Values`, Helm's `chartutil.Values`, whose
        // methods come before its keys (cilium reads `.Values.AsMap`).
        let mut chart_values = false;
        for (i, f) in fields.iter().enumerate() {
            let last = i + 1 == fields.len();
            if std::mem::take(&mut chart_values) && f == "AsMap" && matches!(v, Value::Map(_)) {
                if last && (!args.is_empty() || fin.is_some()) {
                    return Err(self.error(
                        st,
                        span,
                        RenderErrorKind::Template,
                        "wrong number of args for AsMap: want 0",
                    ));
                }
                continue;
            }
            if f == "Values" {
                if let Value::Map(m) = &v {
                    let m = m.borrow();
                    chart_values = ["Chart", "Release", "Capabilities"]
                        .iter()
                        .all(|k| m.contains_key(*k));
                }
            }
            if let Value::Object(o) = &v {
                if let Some(r) = self.method(
                    st,
                    o.clone(),
                    f,
                    if last { args } else { &[] },
                    &span,
                    dot,
                    if last { fin.clone() } else { None },
                )? {
                    v = r;
                    continue;
                }
            }
            if last && (!args.is_empty() || fin.is_some()) && !matches!(v, Value::Unknown) {
                return Err(self.error(
                    st,
                    span,
                    RenderErrorKind::Template,
                    format!("can't give argument to non-function .{f}"),
                ));
            }
            v = match v {
                Value::Map(m) => m.borrow().get(f).cloned().unwrap_or_default(),
                Value::Unknown => Value::Unknown,
                Value::Str(ref s) if s.contains(UNKNOWN_MARKER) => Value::Unknown,
                // Go: a nil that a pipeline or variable holds is an invalid
                // value, whose fields are zero; a nil map entry is a nil
                // interface, whose fields are an error.
                Value::Nil if i == 0 => return Ok(Value::Nil),
                Value::Nil => {
                    return Err(self.error(
                        st,
                        span,
                        RenderErrorKind::Template,
                        format!("nil pointer evaluating interface {{}}.{f}"),
                    ))
                }
                other => {
                    return Err(self.error(
                        st,
                        span,
                        RenderErrorKind::Template,
                        format!("can't evaluate field {f} in type {}", other.type_name()),
                    ))
                }
            };
        }
        if fields.is_empty() && (!args.is_empty() || fin.is_some()) {
            return Err(self.error(
                st,
                span,
                RenderErrorKind::Template,
                "can't give argument to non-function",
            ));
        }
        Ok(v)
    }

    #[allow(clippy::too_many_arguments)]
    fn method(
        &mut self,
        st: &mut State,
        o: Rc<Object>,
        name: &str,
        args: &[Arg],
        span: &Span,
        dot: &Value,
        fin: Option<Value>,
    ) -> Res<Option<Value>> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.arg(st, a, dot)?);
        }
        if let Some(f) = fin {
            vals.push(f);
        }
        let r = match (&*o, name) {
            (
                Object::Files(_),
                "Get" | "GetBytes" | "Glob" | "Lines" | "AsConfig" | "AsSecrets",
            ) => funcs::files_method(&o, name, &vals),
            (Object::ApiVersions(list), "Has") => match vals.first() {
                Some(Value::Str(s)) => Ok(Value::Bool(list.iter().any(|a| a == &**s))),
                Some(Value::Unknown) => Ok(Value::Unknown),
                _ => Err(FnError::Msg("wrong number of args for Has: want 1".into())),
            },
            (
                Object::KubeVersion {
                    version,
                    major,
                    minor,
                },
                _,
            ) => match name {
                "Version" | "GitVersion" | "String" => Ok(Value::str(version.as_str())),
                "Major" => Ok(Value::str(major.as_str())),
                "Minor" => Ok(Value::str(minor.as_str())),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        r.map(Some)
            .map_err(|e| self.fn_error(st, span.clone(), name, e))
    }

    fn fn_error(&self, st: &State, span: Span, name: &str, e: FnError) -> RenderError {
        match e {
            FnError::Msg(m) => self.error(
                st,
                span,
                RenderErrorKind::Template,
                format!("error calling {name}: {m}"),
            ),
            FnError::Limit(l, m) => self.error(st, span, RenderErrorKind::Limit(l), m),
            FnError::NotFound => self.error(
                st,
                span,
                RenderErrorKind::Template,
                format!("function {name:?} not defined"),
            ),
        }
    }

    fn arg(&mut self, st: &mut State, a: &Arg, dot: &Value) -> Res<Value> {
        Ok(match &a.kind {
            ArgKind::Dot => dot.clone(),
            ArgKind::Field(f) => self.chain(st, dot.clone(), f, &[], a.span.clone(), dot, None)?,
            ArgKind::Var(n, f) => {
                let base = self.var(st, n, &a.span)?;
                self.chain(st, base, f, &[], a.span.clone(), dot, None)?
            }
            ArgKind::Pipe(p, f) => {
                let base = self.pipe(st, p, dot)?;
                self.chain(st, base, f, &[], a.span.clone(), dot, None)?
            }
            ArgKind::Ident(name) => self.call(st, name, &[], a.span.clone(), dot, None)?,
            ArgKind::Str(s) => Value::Str(s.clone()),
            ArgKind::Int(i) => Value::Int(*i),
            ArgKind::Float(f) => Value::Float(*f),
            ArgKind::Bool(b) => Value::Bool(*b),
            ArgKind::Nil => Value::Nil,
        })
    }

    fn call(
        &mut self,
        st: &mut State,
        name: &str,
        args: &[Arg],
        span: Span,
        dot: &Value,
        fin: Option<Value>,
    ) -> Res<Value> {
        // `and`/`or` stop at the first argument that decides (Go 1.18).
        if name == "and" || name == "or" {
            let n = args.len() + usize::from(fin.is_some());
            if n == 0 {
                return Err(self.fn_error(
                    st,
                    span,
                    name,
                    FnError::Msg("wrong number of args".into()),
                ));
            }
            let mut last = Value::Nil;
            let mut unknown = false;
            for (i, a) in args.iter().enumerate() {
                let v = self.arg(st, a, dot)?;
                let stop = match v.truth() {
                    None => {
                        unknown = true;
                        false
                    }
                    Some(t) => (name == "and") != t,
                };
                if stop {
                    return Ok(v);
                }
                last = v;
                let _ = i;
            }
            if let Some(v) = fin {
                match v.truth() {
                    None => unknown = true,
                    Some(t) if (name == "and") != t => return Ok(v),
                    _ => {}
                }
                last = v;
            }
            return Ok(if unknown { Value::Unknown } else { last });
        }
        let mut vals = Vec::with_capacity(args.len() + 1);
        for a in args {
            vals.push(self.arg(st, a, dot)?);
        }
        if let Some(f) = fin {
            vals.push(f);
        }
        match name {
            "include" => {
                let (tname, data) = match vals.as_slice() {
                    [n, d] => (n.clone(), d.clone()),
                    _ => {
                        return Err(self.fn_error(
                            st,
                            span,
                            name,
                            FnError::Msg("wrong number of args for include: want 2".into()),
                        ))
                    }
                };
                let Value::Str(tname) = tname else {
                    return Ok(Value::Unknown);
                };
                let Some((src, body)) = self.defines.get(&*tname).cloned() else {
                    return Err(self.error(
                        st,
                        span,
                        RenderErrorKind::Template,
                        format!("error calling include: template: no template {:?} associated with template \"gotpl\"", &*tname),
                    ));
                };
                self.enter(st, &span, "max-include-depth")?;
                let mut inner = State {
                    src,
                    vars: vec![("$".into(), data.clone())],
                    uncertain: 0,
                    uncertain_floor: 0,
                    name: st.name.clone(),
                };
                let mut out = Out::default();
                let r = self.nodes(&mut inner, &body, &data, &mut out);
                self.depth -= 1;
                r?;
                Ok(self.unknown_text(out))
            }
            "tpl" => {
                let (text, data) = match vals.as_slice() {
                    [t, d] => (t.clone(), d.clone()),
                    _ => {
                        return Err(self.fn_error(
                            st,
                            span,
                            name,
                            FnError::Msg("wrong number of args for tpl: want 2".into()),
                        ))
                    }
                };
                let text: Rc<str> = match text {
                    Value::Str(s) if !s.contains(UNKNOWN_MARKER) => s,
                    Value::Unknown | Value::Str(_) => return Ok(Value::Unknown),
                    other => {
                        return Err(self.fn_error(
                            st,
                            span,
                            name,
                            FnError::Msg(format!(
                                "wrong type for value; expected string; got {}",
                                other.type_name()
                            )),
                        ))
                    }
                };
                self.enter(st, &span, "max-include-depth")?;
                let r = self.run_tpl(st, text, &data, &span);
                self.depth -= 1;
                r
            }
            "required" => match vals.as_slice() {
                [msg, v] => {
                    if v.is_unknown() {
                        return Ok(Value::Unknown);
                    }
                    let missing = match v {
                        Value::Nil => true,
                        Value::Str(s) => s.is_empty(),
                        _ => false,
                    };
                    if missing {
                        return Err(self.error(
                            st,
                            span,
                            RenderErrorKind::Required,
                            go_string(msg),
                        ));
                    }
                    Ok(v.clone())
                }
                _ => Err(self.fn_error(
                    st,
                    span,
                    name,
                    FnError::Msg("wrong number of args for required: want 2".into()),
                )),
            },
            "fail" => {
                let msg = vals.first().map(go_string).unwrap_or_default();
                if st.uncertain > 0 {
                    // A fail under an unknown condition may not happen; when
                    // it does not, it prints nothing (the region is unknown).
                    return Ok(Value::str(""));
                }
                if vals.first().is_some_and(Value::is_unknown) {
                    return Ok(Value::Unknown);
                }
                Err(self.error(st, span, RenderErrorKind::Fail, msg))
            }
            _ => {
                let mut ctx = funcs::Ctx {
                    limits: self.limits,
                };
                funcs::call(name, vals, &mut ctx).map_err(|e| self.fn_error(st, span, name, e))
            }
        }
    }

    fn run_tpl(&mut self, st: &mut State, text: Rc<str>, data: &Value, span: &Span) -> Res<Value> {
        let (src, parsed) = match self.tpl_cache.get(&text) {
            Some(c) => c.clone(),
            None => {
                let name = format!("{}:tpl", st.name);
                let (src, parsed) = match self.add(name, text.clone()) {
                    Ok(x) => x,
                    Err(mut e) => {
                        e.message = format!("error calling tpl: {}", e.message);
                        e.template = self.sources[st.src].name.clone();
                        e.span = span.clone();
                        return Err(e);
                    }
                };
                self.tpl_cache.insert(text, (src, parsed.clone()));
                (src, parsed)
            }
        };
        let mut inner = State {
            src,
            vars: vec![("$".into(), data.clone())],
            uncertain: 0,
            uncertain_floor: 0,
            name: st.name.clone(),
        };
        let mut out = Out::default();
        if let Err(mut e) = self.nodes(&mut inner, &parsed.root, data, &mut out) {
            // Text given to tpl is in no file: point at the tpl call, level
            // by level, until a template of the chart holds it.
            if e.template == self.sources[src].name {
                e.template = self.sources[st.src].name.clone();
                e.span = span.clone();
            }
            return Err(e);
        }
        Ok(self.unknown_text(out))
    }

    /// The text of an included template; its unknown regions become the
    /// marker so that what uses the text knows.
    fn unknown_text(&self, out: Out) -> Value {
        if out.unknown.is_empty() {
            return Value::str(out.text);
        }
        // An included body under an unknown condition: which text comes out
        // is not known.
        Value::Unknown
    }
}
