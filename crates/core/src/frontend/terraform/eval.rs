//! Expression evaluation over hcl-edit's tree, so every value keeps the span
//! where it was written. Whatever cannot be resolved (a data source, a
//! resource attribute the code does not set, an unknown function) is
//! `ValueKind::Unknown`; a definite failure (a missing key in a known map) is
//! `Err(Fail)`, which `try()` and `can()` rely on.

use super::functions;
use crate::source::{FileId, SourceFile, Span};
use crate::sources::Sources;
use crate::value::{MapKey, Value, ValueKind};
use hcl_edit::expr::{BinaryOperator, Expression, ObjectKey, TraversalOperator, UnaryOperator};
use hcl_edit::template::{Element, Template};
use hcl_edit::Span as _;
use rustc_hash::FxHashMap as HashMap;
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::sync::Arc;

/// A definite evaluation failure (not an unknown value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fail;

pub type R = Result<Value, Fail>;

/// Work bounds: hostile input must not hang or exhaust memory. Steps and
/// collection sizes come from [`crate::tree::Limits`]; the stack bound is fixed.
const MAX_DEPTH: u32 = 100;
/// String bytes that cost one evaluation step when a value is copied.
const BYTES_PER_STEP: u64 = 64;

/// Text whose YAML structure Helm reads, registered by the span of the value
/// that carries it: a heredoc body, a values file read by `file`/`templatefile`.
#[derive(Clone, Debug)]
pub struct TextSource {
    /// The raw text in its file.
    pub body: Span,
    /// `${...}` in it are interpolations (heredocs, `templatefile`).
    pub template: bool,
    /// What known interpolations render to (`templatefile`'s variables,
    /// a heredoc's expressions).
    pub fills: std::sync::Arc<[Fill]>,
}

/// An interpolation whose rendered text is known: the span of its
/// expression (inside `${…}`) and the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fill {
    pub span: Span,
    pub text: String,
}

/// What one module folder declares, borrowed from its parsed files.
#[derive(Default)]
pub struct Decls<'a> {
    pub variables: HashMap<String, (FileId, Option<&'a Expression>)>,
    pub locals: HashMap<String, (FileId, &'a Expression)>,
    /// `type.name` → the resource's body (for attributes written in code).
    pub resources: HashMap<String, (FileId, &'a hcl_edit::structure::Body, bool)>,
    /// `type.name` → the resource's header (`resource "type" "name"`).
    pub headers: HashMap<String, Span>,
    /// Variables' `type` constraints, whose `optional(...)` attributes
    /// Terraform fills in.
    pub types: HashMap<String, (FileId, &'a Expression)>,
    /// `type.name` → a data source's body (`aws_eks_cluster`, whose `name`
    /// is its id).
    pub data: HashMap<String, (FileId, &'a hcl_edit::structure::Body)>,
}

enum LocalState {
    InProgress,
    Done(Value),
}

/// Variables bound by `for`, `each`, `count` and dynamic-block iterators.
pub type Scope = Vec<(String, Value)>;

pub struct Env<'a> {
    pub decls: &'a Decls<'a>,
    /// Variable values: module inputs or tfvars, over defaults.
    pub vars: HashMap<String, Value>,
    locals: RefCell<HashMap<String, LocalState>>,
    resource_guard: RefCell<Vec<String>>,
    pub texts: RefCell<HashMap<Span, TextSource>>,
    /// Structured data behind `yamlencode`/`jsonencode` results, by call span.
    pub encoded: RefCell<HashMap<Span, Value>>,
    steps: Cell<u64>,
    depth: Cell<u32>,
    pub sources: &'a Sources,
    pub dir: PathBuf,
    pub files: RefCell<HashMap<FileId, Arc<SourceFile>>>,
    pub limits: crate::tree::Limits,
    /// The first hard limit evaluation ran into, reported as FP000.
    pub limit_hit: RefCell<Option<(Option<Span>, String)>>,
    /// Object keys renamed for the parser (a repeated key), by file and offset.
    pub renamed: HashMap<(FileId, u32), String>,
    /// Outputs of the local modules read so far, by call name: an object, or
    /// a list/map of objects for `count`/`for_each` calls.
    pub modules: RefCell<HashMap<String, Value>>,
    /// Names a language layered on Terraform's adds (Terragrunt's
    /// `include`, `dependency` and functions), looked up first.
    pub host: Option<&'a dyn Host>,
    /// The outputs of other roots read through `terraform_remote_state`
    /// with a local backend, by data source name.
    pub remote_states: RefCell<HashMap<String, Value>>,
}

/// What a configuration language built on Terraform's expressions adds.
pub trait Host {
    /// The value of a root name (`include`), `None` when the host has no such name.
    fn root(&self, name: &str, span: Option<Span>) -> Option<Value>;
    /// Whether the host defines the function `name`.
    fn defines(&self, name: &str) -> bool;
    /// Call a function the host defines, with its arguments evaluated.
    fn call(&self, name: &str, args: Vec<Value>, span: Option<Span>) -> R;
}

pub fn span_of(file: FileId, r: Option<std::ops::Range<usize>>) -> Option<Span> {
    r.map(|r| {
        // A `.tf.json` file is parsed as HCL text made from it: back to the JSON.
        let r = super::json_syntax::remap(file, r);
        Span::new(file, r.start, r.end)
    })
}

pub fn v(kind: ValueKind, span: Option<Span>) -> Value {
    Value::new(kind, span)
}

pub fn unknown(span: Option<Span>) -> R {
    Ok(Value::unknown(span))
}

impl<'a> Env<'a> {
    pub fn new(decls: &'a Decls<'a>, sources: &'a Sources, dir: PathBuf) -> Env<'a> {
        Env {
            decls,
            vars: HashMap::default(),
            locals: RefCell::new(HashMap::default()),
            resource_guard: RefCell::new(Vec::new()),
            texts: RefCell::new(HashMap::default()),
            encoded: RefCell::new(HashMap::default()),
            steps: Cell::new(0),
            depth: Cell::new(0),
            sources,
            dir,
            files: RefCell::new(HashMap::default()),
            limits: crate::tree::Limits::default(),
            limit_hit: RefCell::new(None),
            renamed: HashMap::default(),
            modules: RefCell::new(HashMap::default()),
            host: None,
            remote_states: RefCell::new(HashMap::default()),
        }
    }

    /// Work done so far; module instances carry it on, so that a root and
    /// every module it calls share one `terraform-eval-steps` budget.
    pub fn steps_used(&self) -> u64 {
        self.steps.get()
    }

    pub fn set_steps(&self, n: u64) {
        self.steps.set(n);
    }

    pub fn budget_left(&self) -> bool {
        self.steps.get() < self.limits.max_eval_steps
    }

    /// Remember the first limit hit; the value stays unknown meanwhile.
    pub fn note_limit(&self, span: Option<Span>, message: String) {
        let mut hit = self.limit_hit.borrow_mut();
        if hit.is_none() {
            *hit = Some((span, message));
        }
    }

    pub fn note_collection(&self, span: Option<Span>) {
        self.note_limit(
            span,
            format!(
                "Terraform evaluation builds a collection of more than {} elements (limits.terraform-max-collection); its value is treated as unknown",
                self.limits.max_collection
            ),
        );
    }

    fn note_budget(&self, span: Option<Span>) {
        self.note_limit(
            span,
            format!(
                "Terraform evaluation stopped after {} steps (limits.terraform-eval-steps); later values are treated as unknown",
                self.limits.max_eval_steps
            ),
        );
    }

    pub fn file(&self, id: FileId) -> Option<Arc<SourceFile>> {
        self.files.borrow().get(&id).cloned()
    }

    /// Evaluate one expression written in `file`.
    pub fn eval(&self, expr: &Expression, file: FileId, scope: &Scope) -> R {
        self.steps.set(self.steps.get() + 1);
        let span = span_of(file, expr.span());
        if !self.budget_left() {
            self.note_budget(span);
            return unknown(span);
        }
        if self.depth.get() > MAX_DEPTH {
            self.note_limit(
                span,
                format!("Terraform evaluation nests deeper than {MAX_DEPTH} levels; the value is treated as unknown"),
            );
            return unknown(span);
        }
        self.depth.set(self.depth.get() + 1);
        let r = self.eval_inner(expr, file, scope, span);
        self.depth.set(self.depth.get() - 1);
        r
    }

    fn eval_inner(&self, expr: &Expression, file: FileId, scope: &Scope, span: Option<Span>) -> R {
        match expr {
            Expression::Null(_) => Ok(v(ValueKind::Null, span)),
            Expression::Bool(b) => Ok(v(ValueKind::Bool(*b.value()), span)),
            Expression::Number(n) => Ok(v(ValueKind::Number(n.value().to_string()), span)),
            Expression::String(s) => Ok(v(ValueKind::String(s.value().to_string()), span)),
            Expression::Array(a) => {
                let mut items = Vec::new();
                for e in a.iter() {
                    items.push(self.eval(e, file, scope)?);
                    if items.len() > self.limits.max_collection {
                        self.note_collection(span);
                        return unknown(span);
                    }
                }
                Ok(v(ValueKind::List(items), span))
            }
            Expression::Object(o) => {
                let mut entries: Vec<(MapKey, Value)> = Vec::new();
                let mut index: HashMap<String, usize> = HashMap::default();
                for (k, val) in o.iter() {
                    let kspan = span_of(file, k.span());
                    let name = match k {
                        ObjectKey::Ident(i) => i.as_str().to_string(),
                        ObjectKey::Expression(e) => {
                            // A bare traversal key such as `(var.x)` is evaluated;
                            // a plain variable name stands for itself.
                            if let Expression::Variable(var) = e {
                                var.as_str().to_string()
                            } else {
                                let kv = self.eval(e, file, scope)?;
                                match scalar_text(&kv) {
                                    Some(s) => s,
                                    None if kv.is_unknown() => return unknown(span),
                                    None => return Err(Fail),
                                }
                            }
                        }
                    };
                    // A repeated key, renamed for the parser: the last one wins.
                    let name = kspan
                        .and_then(|k| {
                            let at = if matches!(k_is_quoted(k, self), Some(true)) {
                                k.start + 1
                            } else {
                                k.start
                            };
                            self.renamed.get(&(file, at)).cloned()
                        })
                        .unwrap_or(name);
                    let value = self.eval(val.expr(), file, scope)?;
                    match index.get(&name) {
                        Some(&i) => entries[i] = (MapKey { name, span: kspan }, value),
                        None => {
                            index.insert(name.clone(), entries.len());
                            entries.push((MapKey { name, span: kspan }, value));
                        }
                    }
                    if entries.len() > self.limits.max_collection {
                        self.note_collection(span);
                        return unknown(span);
                    }
                }
                Ok(v(ValueKind::Map(entries), span))
            }
            Expression::StringTemplate(t) => self.render(t, file, scope, span),
            Expression::HeredocTemplate(h) => {
                let mut h = (**h).clone();
                if h.indent().is_some() {
                    h.dedent();
                }
                let mut fills = Vec::new();
                let out = self.render_filling(&h.template, file, scope, span, &mut fills);
                if let Some(s) = span {
                    self.register_heredoc(s, fills);
                }
                out
            }
            Expression::Parenthesis(p) => self.eval(p.inner(), file, scope),
            Expression::Variable(var) => self.variable(var.as_str(), scope, span),
            Expression::Conditional(c) => {
                let cond = self.eval(&c.cond_expr, file, scope)?;
                match cond.kind {
                    ValueKind::Bool(true) => self.eval(&c.true_expr, file, scope),
                    ValueKind::Bool(false) => self.eval(&c.false_expr, file, scope),
                    ValueKind::String(ref s) if s == "true" => self.eval(&c.true_expr, file, scope),
                    ValueKind::String(ref s) if s == "false" => {
                        self.eval(&c.false_expr, file, scope)
                    }
                    ValueKind::Unknown => unknown(span),
                    _ => Err(Fail),
                }
            }
            Expression::FuncCall(f) => {
                if f.name.is_namespaced() {
                    return unknown(span);
                }
                let name = f.name.name.as_str();
                if let Some(h) = self.host.filter(|h| h.defines(name)) {
                    let mut vals = Vec::new();
                    for a in f.args.iter() {
                        vals.push(self.eval(a, file, scope)?);
                    }
                    return h.call(name, vals, span);
                }
                functions::call(self, f.name.name.as_str(), &f.args, file, scope, span)
            }
            Expression::Traversal(t) => self.traversal(t, file, scope, span),
            Expression::UnaryOp(u) => {
                let x = self.eval(&u.expr, file, scope)?;
                match (u.operator.value(), &x.kind) {
                    (_, ValueKind::Unknown) => unknown(span),
                    (UnaryOperator::Not, ValueKind::Bool(b)) => Ok(v(ValueKind::Bool(!b), span)),
                    (UnaryOperator::Neg, _) => match as_num(&x) {
                        Some(n) => Ok(num(-n, span)),
                        None => Err(Fail),
                    },
                    _ => Err(Fail),
                }
            }
            Expression::BinaryOp(b) => self.binary(b, file, scope, span),
            Expression::ForExpr(f) => self.for_expr(f, file, scope, span),
        }
    }

    fn register_heredoc(&self, span: Span, fills: Vec<Fill>) {
        let Some(f) = self.file(span.file) else {
            return;
        };
        let raw = f.slice(span);
        // The body starts after the first newline and ends at the line of the
        // closing delimiter.
        let Some(nl) = raw.find('\n') else { return };
        let trimmed = raw.trim_end_matches([' ', '\t', '\r', '\n']);
        let end = trimmed.rfind('\n').map_or(trimmed.len(), |i| i + 1);
        let start = nl + 1;
        if end < start {
            return;
        }
        let body = Span::new(
            span.file,
            span.start as usize + start,
            span.start as usize + end,
        );
        self.texts.borrow_mut().insert(
            span,
            TextSource {
                body,
                template: true,
                fills: fills.into(),
            },
        );
    }

    fn render(&self, t: &Template, file: FileId, scope: &Scope, span: Option<Span>) -> R {
        self.render_filling(t, file, scope, span, &mut Vec::new())
    }

    /// [`Self::render`], telling in `fills` what each known interpolation
    /// rendered to.
    fn render_filling(
        &self,
        t: &Template,
        file: FileId,
        scope: &Scope,
        span: Option<Span>,
        fills: &mut Vec<Fill>,
    ) -> R {
        let mut out = String::new();
        let mut unknown_part = false;
        for el in t.iter() {
            match el {
                Element::Literal(l) => out.push_str(l.value()),
                Element::Interpolation(i) => {
                    let x = self.eval(&i.expr, file, scope)?;
                    match &x.kind {
                        ValueKind::Unknown => unknown_part = true,
                        _ => match scalar_text(&x) {
                            Some(s) => {
                                if let Some(at) = span_of(file, i.expr.span()) {
                                    fills.push(Fill {
                                        span: at,
                                        text: s.clone(),
                                    });
                                }
                                out.push_str(&s);
                            }
                            None if matches!(x.kind, ValueKind::Null) => return Err(Fail),
                            None => return Err(Fail),
                        },
                    }
                }
                Element::Directive(_) => unknown_part = true,
            }
            if out.len() > 16 * 1024 * 1024 {
                return unknown(span);
            }
        }
        if unknown_part {
            return unknown(span);
        }
        Ok(v(ValueKind::String(out), span))
    }

    fn variable(&self, name: &str, scope: &Scope, span: Option<Span>) -> R {
        if let Some((_, val)) = scope.iter().rev().find(|(n, _)| n == name) {
            self.charge(val);
            if !self.budget_left() {
                self.note_budget(span);
                return unknown(span);
            }
            return Ok(val.clone());
        }
        // Roots such as `var`, `local`, `module` are only meaningful with a
        // traversal; a bare one is unknown.
        unknown(span)
    }

    fn traversal(
        &self,
        t: &hcl_edit::expr::Traversal,
        file: FileId,
        scope: &Scope,
        span: Option<Span>,
    ) -> R {
        let ops: Vec<&TraversalOperator> = t.operators.iter().map(|o| o.value()).collect();
        let (mut cur, consumed) = match &t.expr {
            Expression::Variable(root) => {
                let root = root.as_str();
                if scope.iter().any(|(n, _)| n == root) {
                    (self.variable(root, scope, span)?, 0)
                } else {
                    self.root_ref(root, &ops, file, scope, span)?
                }
            }
            other => (self.eval(other, file, scope)?, 0),
        };
        let mut i = consumed;
        while i < ops.len() {
            if cur.is_unknown() {
                return unknown(span);
            }
            match ops[i] {
                TraversalOperator::GetAttr(name) => {
                    cur = get_key(&cur, name.as_str())?;
                }
                TraversalOperator::Index(e) => {
                    let k = self.eval(e, file, scope)?;
                    cur = index(&cur, &k)?;
                }
                TraversalOperator::LegacyIndex(n) => {
                    let k = v(ValueKind::Number(n.value().to_string()), None);
                    cur = index(&cur, &k)?;
                }
                TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => {
                    let items = match &cur.kind {
                        ValueKind::List(items) => items.clone(),
                        ValueKind::Null => Vec::new(),
                        _ => vec![cur.clone()],
                    };
                    let rest = &ops[i + 1..];
                    let mut out = Vec::new();
                    for item in items {
                        let mut x = item;
                        for op in rest {
                            if x.is_unknown() {
                                break;
                            }
                            x = match op {
                                TraversalOperator::GetAttr(n) => get_key(&x, n.as_str())?,
                                TraversalOperator::Index(e) => {
                                    let k = self.eval(e, file, scope)?;
                                    index(&x, &k)?
                                }
                                _ => Value::unknown(span),
                            };
                        }
                        out.push(x);
                    }
                    return Ok(v(ValueKind::List(out), span));
                }
            }
            i += 1;
        }
        cur.span = cur.span.or(span);
        Ok(cur)
    }

    /// Resolve `var.x`, `local.x`, `path.module`, `each.*`... Returns the value
    /// and how many traversal operators it used.
    fn root_ref(
        &self,
        root: &str,
        ops: &[&TraversalOperator],
        file: FileId,
        scope: &Scope,
        span: Option<Span>,
    ) -> Result<(Value, usize), Fail> {
        if let Some(val) = self.host.and_then(|h| h.root(root, span)) {
            return Ok((val, 0));
        }
        let first = match ops.first() {
            Some(TraversalOperator::GetAttr(n)) => n.as_str(),
            _ => return Ok((Value::unknown(span), ops.len())),
        };
        match root {
            "var" => match self.vars.get(first) {
                Some(val) => {
                    self.charge(val);
                    if !self.budget_left() {
                        self.note_budget(span);
                        return Ok((Value::unknown(span), ops.len()));
                    }
                    Ok((val.clone(), 1))
                }
                None => Ok((Value::unknown(span), ops.len())),
            },
            // A local declared in a file that was not read is unknown, not an error.
            "local" => match self.local(first) {
                Ok(val) => Ok((val, 1)),
                Err(_) => Ok((Value::unknown(span), ops.len())),
            },
            "path" => match first {
                "module" | "root" | "cwd" => Ok((v(ValueKind::String(".".into()), span), 1)),
                _ => Ok((Value::unknown(span), ops.len())),
            },
            "terraform" if first == "workspace" => {
                Ok((v(ValueKind::String("default".into()), span), 1))
            }
            "module" => match self.modules.borrow().get(first) {
                Some(val) => {
                    self.charge(val);
                    if !self.budget_left() {
                        self.note_budget(span);
                        return Ok((Value::unknown(span), ops.len()));
                    }
                    Ok((val.clone(), 1))
                }
                None => Ok((Value::unknown(span), ops.len())),
            },
            "data" => Ok(self.data_ref(first, &ops[1..], span)),
            "terraform" | "self" | "each" | "count" => Ok((Value::unknown(span), ops.len())),
            rtype => {
                // `aws_eks_cluster.this.name`: the attribute as written in code.
                let key = crate::path::dot(rtype, first);
                let Some(&(rfile, body, repeated)) = self.decls.resources.get(&key) else {
                    return Ok((Value::unknown(span), ops.len()));
                };
                // One instance of a repeated resource (`this[0]`, `this["k"]`)
                // is read with its `count.index` or `each` bound.
                let (inst_scope, start) = if repeated {
                    match self.instance_scope(rfile, body, ops.get(1), file, scope)? {
                        Some(sc) => (sc, 2),
                        None => return Ok((Value::unknown(span), ops.len())),
                    }
                } else {
                    (Vec::new(), 1)
                };
                // Down through nested blocks (`metadata[0].name`) to an attribute.
                let mut body = body;
                let mut i = start;
                let a = loop {
                    let Some(TraversalOperator::GetAttr(name)) = ops.get(i) else {
                        return Ok((Value::unknown(span), ops.len()));
                    };
                    if let Some(a) = body.get_attribute(name.as_str()) {
                        break a;
                    }
                    // A computed attribute that is another one, as written.
                    let alias = match (rtype, name.as_str()) {
                        ("aws_eks_cluster", "id") if i == start => Some("name"),
                        _ => None,
                    };
                    if let Some(a) = alias.and_then(|n| body.get_attribute(n)) {
                        break a;
                    }
                    let blocks: Vec<&hcl_edit::structure::Block> = body
                        .iter()
                        .filter_map(|s| match s {
                            hcl_edit::structure::Structure::Block(b)
                                if b.ident.as_str() == name.as_str() =>
                            {
                                Some(b)
                            }
                            _ => None,
                        })
                        .collect();
                    let n = match ops.get(i + 1) {
                        Some(TraversalOperator::LegacyIndex(n)) => *n.value() as usize,
                        Some(TraversalOperator::Index(e)) => {
                            match self.eval(e, file, scope).ok().as_ref().and_then(as_num) {
                                Some(n) if n >= 0.0 => n as usize,
                                _ => return Ok((Value::unknown(span), ops.len())),
                            }
                        }
                        _ => return Ok((Value::unknown(span), ops.len())),
                    };
                    let Some(b) = blocks.get(n) else {
                        return Ok((Value::unknown(span), ops.len()));
                    };
                    body = &b.body;
                    i += 2;
                };
                let guard_key = key.clone();
                if self.resource_guard.borrow().contains(&guard_key)
                    || self.resource_guard.borrow().len() > 32
                {
                    return Ok((Value::unknown(span), ops.len()));
                }
                self.resource_guard.borrow_mut().push(guard_key);
                let r = self.eval(&a.value, rfile, &inst_scope);
                self.resource_guard.borrow_mut().pop();
                Ok((r.unwrap_or_else(|_| Value::unknown(span)), i + 1))
            }
        }
    }

    /// `data.TYPE.NAME...`: another root's outputs read through
    /// `terraform_remote_state`, and an `aws_eks_cluster`'s name (its id);
    /// every other data source is unknown. Returns the value and how many
    /// operators after `TYPE` it used, plus one.
    fn data_ref(
        &self,
        dtype: &str,
        ops: &[&TraversalOperator],
        span: Option<Span>,
    ) -> (Value, usize) {
        let all = ops.len() + 1;
        let attr = |i: usize| match ops.get(i) {
            Some(TraversalOperator::GetAttr(n)) => Some(n.as_str()),
            _ => None,
        };
        let Some(name) = attr(0) else {
            return (Value::unknown(span), all);
        };
        match (dtype, attr(1)) {
            ("terraform_remote_state", Some("outputs")) => {
                match self.remote_states.borrow().get(name) {
                    Some(outputs) => {
                        self.charge(outputs);
                        (outputs.clone(), 3)
                    }
                    None => (Value::unknown(span), all),
                }
            }
            ("aws_eks_cluster", Some("name" | "id")) => {
                let body = self.decls.data.get(&crate::path::dot(dtype, name));
                let Some(a) = body.and_then(|(_, b)| b.get_attribute("name")) else {
                    return (Value::unknown(span), all);
                };
                let Some(&(dfile, _)) = body else {
                    return (Value::unknown(span), all);
                };
                let val = self
                    .eval(&a.value, dfile, &Vec::new())
                    .unwrap_or_else(|_| Value::unknown(span));
                (val, 3)
            }
            _ => (Value::unknown(span), all),
        }
    }

    /// The scope of one instance of a `count`/`for_each` resource, picked by
    /// the index after its name; `None` when it cannot be told, a failure
    /// when the instance does not exist (as Terraform fails).
    fn instance_scope(
        &self,
        rfile: FileId,
        body: &hcl_edit::structure::Body,
        op: Option<&&TraversalOperator>,
        file: FileId,
        scope: &Scope,
    ) -> Result<Option<Scope>, Fail> {
        let key = match op {
            Some(TraversalOperator::Index(e)) => self.eval(e, file, scope)?,
            Some(TraversalOperator::LegacyIndex(n)) => {
                v(ValueKind::Number(n.value().to_string()), None)
            }
            _ => return Ok(None),
        };
        if key.is_unknown() {
            return Ok(None);
        }
        if let Some(c) = body.get_attribute("count") {
            let n = self.eval(&c.value, rfile, &Vec::new())?;
            let (Some(n), Some(i)) = (as_num(&n), as_num(&key)) else {
                return if n.is_unknown() { Ok(None) } else { Err(Fail) };
            };
            if i < 0.0 || i.fract() != 0.0 || i >= n {
                return Err(Fail);
            }
            let index = super::map_value(vec![("index", num(i, None))]);
            return Ok(Some(vec![("count".into(), index)]));
        }
        let Some(fe) = body.get_attribute("for_each") else {
            return Ok(None);
        };
        let fe = self.eval(&fe.value, rfile, &Vec::new())?;
        if fe.is_unknown() {
            return Ok(None);
        }
        let (Some(pairs), Some(k)) = (super::iter_pairs(&fe), scalar_text(&key)) else {
            return Err(Fail);
        };
        let Some((name, kspan, value)) = pairs.into_iter().find(|(n, _, _)| *n == k) else {
            return Err(Fail);
        };
        let each = super::map_value(vec![
            ("key", v(ValueKind::String(name), kspan)),
            ("value", value),
        ]);
        Ok(Some(vec![("each".into(), each)]))
    }

    /// Copying a value costs work in proportion to its size: without this a
    /// loop over a large local could copy it without bound.
    pub(crate) fn charge(&self, val: &Value) {
        let cap = self.limits.max_eval_steps;
        self.steps
            .set(self.steps.get().saturating_add(weight(val, 0, cap)));
    }

    /// Charge work that is not a copy (a quadratic comparison, a long string).
    pub(crate) fn charge_steps(&self, n: u64) {
        self.steps.set(self.steps.get().saturating_add(n));
    }

    pub fn local(&self, name: &str) -> R {
        match self.locals.borrow().get(name) {
            Some(LocalState::Done(val)) => {
                self.charge(val);
                if !self.budget_left() {
                    // Reported by the caller, at the reference.
                    return unknown(val.span);
                }
                return Ok(val.clone());
            }
            Some(LocalState::InProgress) => return unknown(None),
            None => {}
        }
        let Some(&(file, expr)) = self.decls.locals.get(name) else {
            return Err(Fail);
        };
        self.locals
            .borrow_mut()
            .insert(name.to_string(), LocalState::InProgress);
        let val = self
            .eval(expr, file, &Vec::new())
            .unwrap_or_else(|_| Value::unknown(span_of(file, expr.span())));
        self.locals
            .borrow_mut()
            .insert(name.to_string(), LocalState::Done(val.clone()));
        Ok(val)
    }

    fn binary(
        &self,
        b: &hcl_edit::expr::BinaryOp,
        file: FileId,
        scope: &Scope,
        span: Option<Span>,
    ) -> R {
        let op = *b.operator.value();
        let l = self.eval(&b.lhs_expr, file, scope)?;
        // Short-circuit on known booleans, as Terraform does not, but the
        // result is the same for known operands.
        if op == BinaryOperator::And && matches!(l.kind, ValueKind::Bool(false)) {
            return Ok(v(ValueKind::Bool(false), span));
        }
        if op == BinaryOperator::Or && matches!(l.kind, ValueKind::Bool(true)) {
            return Ok(v(ValueKind::Bool(true), span));
        }
        let r = self.eval(&b.rhs_expr, file, scope)?;
        if l.is_unknown() || r.is_unknown() {
            return unknown(span);
        }
        let bool_of = |x: &Value| match &x.kind {
            ValueKind::Bool(b) => Some(*b),
            ValueKind::String(s) if s == "true" => Some(true),
            ValueKind::String(s) if s == "false" => Some(false),
            _ => None,
        };
        match op {
            BinaryOperator::Eq => Ok(v(ValueKind::Bool(same(&l, &r)), span)),
            BinaryOperator::NotEq => Ok(v(ValueKind::Bool(!same(&l, &r)), span)),
            BinaryOperator::And | BinaryOperator::Or => match (bool_of(&l), bool_of(&r)) {
                (Some(x), Some(y)) => Ok(v(
                    ValueKind::Bool(if op == BinaryOperator::And {
                        x && y
                    } else {
                        x || y
                    }),
                    span,
                )),
                _ => Err(Fail),
            },
            _ => {
                let (Some(x), Some(y)) = (as_num(&l), as_num(&r)) else {
                    return Err(Fail);
                };
                let res = match op {
                    BinaryOperator::Plus => x + y,
                    BinaryOperator::Minus => x - y,
                    BinaryOperator::Mul => x * y,
                    BinaryOperator::Div if y != 0.0 => x / y,
                    BinaryOperator::Mod if y != 0.0 => x % y,
                    BinaryOperator::Less => return Ok(v(ValueKind::Bool(x < y), span)),
                    BinaryOperator::LessEq => return Ok(v(ValueKind::Bool(x <= y), span)),
                    BinaryOperator::Greater => return Ok(v(ValueKind::Bool(x > y), span)),
                    BinaryOperator::GreaterEq => return Ok(v(ValueKind::Bool(x >= y), span)),
                    _ => return Err(Fail),
                };
                Ok(num(res, span))
            }
        }
    }

    fn for_expr(
        &self,
        f: &hcl_edit::expr::ForExpr,
        file: FileId,
        scope: &Scope,
        span: Option<Span>,
    ) -> R {
        let coll = self.eval(&f.intro.collection_expr, file, scope)?;
        let pairs: Vec<(Value, Value)> = match &coll.kind {
            ValueKind::Unknown => return unknown(span),
            ValueKind::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, x)| (num(i as f64, None), x.clone()))
                .collect(),
            ValueKind::Map(entries) => {
                let mut e: Vec<_> = entries.iter().collect();
                e.sort_by(|a, b| a.0.name.cmp(&b.0.name));
                e.into_iter()
                    .map(|(k, x)| (v(ValueKind::String(k.name.clone()), k.span), x.clone()))
                    .collect()
            }
            _ => return Err(Fail),
        };
        let mut inner = scope.clone();
        let base = inner.len();
        let mut list = Vec::new();
        let mut map: Vec<(MapKey, Value)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::default();
        for (k, x) in pairs {
            inner.truncate(base);
            match &f.intro.key_var {
                Some(kv) => {
                    inner.push((kv.as_str().to_string(), k));
                    inner.push((f.intro.value_var.as_str().to_string(), x));
                }
                None => inner.push((f.intro.value_var.as_str().to_string(), x)),
            }
            if let Some(c) = &f.cond {
                let c = self.eval(&c.expr, file, &inner)?;
                match c.kind {
                    ValueKind::Bool(true) => {}
                    ValueKind::Bool(false) => continue,
                    ValueKind::Unknown => return unknown(span),
                    _ => return Err(Fail),
                }
            }
            let val = self.eval(&f.value_expr, file, &inner)?;
            match &f.key_expr {
                Some(ke) => {
                    let kv = self.eval(ke, file, &inner)?;
                    let Some(name) = scalar_text(&kv) else {
                        return if kv.is_unknown() {
                            unknown(span)
                        } else {
                            Err(Fail)
                        };
                    };
                    if f.grouping {
                        match index.get(&name).and_then(|&i| map.get_mut(i)) {
                            Some((_, slot)) => {
                                if let ValueKind::List(items) = &mut slot.kind {
                                    items.push(val);
                                }
                            }
                            None => {
                                index.insert(name.clone(), map.len());
                                map.push((
                                    MapKey {
                                        name,
                                        span: kv.span,
                                    },
                                    v(ValueKind::List(vec![val]), span),
                                ))
                            }
                        }
                    } else {
                        if index.contains_key(&name) {
                            // Terraform rejects duplicate keys without `...`.
                            return Err(Fail);
                        }
                        index.insert(name.clone(), map.len());
                        map.push((
                            MapKey {
                                name,
                                span: kv.span,
                            },
                            val,
                        ));
                    }
                }
                None => list.push(val),
            }
            if list.len() + map.len() > self.limits.max_collection {
                self.note_collection(span);
                return unknown(span);
            }
            if !self.budget_left() {
                self.note_budget(span);
                return unknown(span);
            }
        }
        if f.key_expr.is_some() {
            Ok(v(ValueKind::Map(map), span))
        } else {
            Ok(v(ValueKind::List(list), span))
        }
    }
}

/// Whether the key written at `k` starts with a quote.
fn k_is_quoted(k: Span, env: &Env<'_>) -> Option<bool> {
    let f = env.file(k.file)?;
    Some(f.slice(k).starts_with('"'))
}

/// The text of a string, number or bool, as Terraform converts it.
pub fn scalar_text(x: &Value) -> Option<String> {
    match &x.kind {
        ValueKind::String(s) | ValueKind::Number(s) => Some(s.clone()),
        ValueKind::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A boolean as Terraform converts it (`true`, `"false"`); null is false.
pub fn as_bool(x: &Value) -> Option<bool> {
    match &x.kind {
        ValueKind::Bool(b) => Some(*b),
        ValueKind::String(s) if s == "true" => Some(true),
        ValueKind::String(s) if s == "false" => Some(false),
        ValueKind::Null => Some(false),
        _ => None,
    }
}

pub fn as_num(x: &Value) -> Option<f64> {
    match &x.kind {
        ValueKind::Number(s) | ValueKind::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}

pub fn num(n: f64, span: Option<Span>) -> Value {
    let text = if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    };
    v(ValueKind::Number(text), span)
}

/// Structural equality, ignoring spans.
pub fn same(a: &Value, b: &Value) -> bool {
    match (&a.kind, &b.kind) {
        (ValueKind::Number(_), ValueKind::Number(_)) => as_num(a) == as_num(b),
        (ValueKind::List(x), ValueKind::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (ValueKind::Map(x), ValueKind::Map(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, p)| {
                    y.iter()
                        .find(|(k2, _)| k2.name == k.name)
                        .is_some_and(|(_, q)| same(p, q))
                })
        }
        (x, y) => x == y,
    }
}

pub fn get_key(cur: &Value, name: &str) -> R {
    match &cur.kind {
        ValueKind::Unknown => Ok(cur.clone()),
        ValueKind::Map(_) => cur.get(name).cloned().ok_or(Fail),
        _ => Err(Fail),
    }
}

pub fn index(cur: &Value, k: &Value) -> R {
    if k.is_unknown() || cur.is_unknown() {
        return Ok(Value::unknown(cur.span));
    }
    match &cur.kind {
        ValueKind::List(items) => {
            let i = as_num(k).ok_or(Fail)?;
            if i < 0.0 || i.fract() != 0.0 {
                return Err(Fail);
            }
            items.get(i as usize).cloned().ok_or(Fail)
        }
        ValueKind::Map(_) => {
            let name = scalar_text(k).ok_or(Fail)?;
            cur.get(&name).cloned().ok_or(Fail)
        }
        _ => Err(Fail),
    }
}

/// The cost of copying a value: its nodes plus its string bytes (a string
/// of megabytes copied ten thousand times must not pass for cheap), counted
/// up to a cut-off.
fn weight(x: &Value, acc: u64, cap: u64) -> u64 {
    if acc > cap {
        return acc;
    }
    match &x.kind {
        ValueKind::List(items) => items.iter().fold(acc + 1, |a, i| weight(i, a, cap)),
        ValueKind::Map(entries) => entries
            .iter()
            .fold(acc + 1, |a, (k, v)| weight(v, a + text_cost(&k.name), cap)),
        ValueKind::String(s) | ValueKind::Number(s) => acc + 1 + text_cost(s),
        _ => acc + 1,
    }
}

fn text_cost(s: &str) -> u64 {
    s.len() as u64 / BYTES_PER_STEP
}

/// Whether a value has an unknown part anywhere.
pub fn has_unknown(x: &Value) -> bool {
    match &x.kind {
        ValueKind::Unknown => true,
        ValueKind::List(items) => items.iter().any(has_unknown),
        ValueKind::Map(entries) => entries.iter().any(|(_, v)| has_unknown(v)),
        _ => false,
    }
}

impl Env<'_> {
    /// A value converted to a variable's type as far as the model cares:
    /// an object's `optional(T, default)` attributes that are absent are
    /// added, null or their default, through `map`, `list` and `set`.
    pub fn apply_type(&self, val: Value, ty: &Expression, file: FileId, depth: u32) -> Value {
        if depth > 16 || !self.budget_left() {
            return val;
        }
        self.charge_steps(1);
        let Expression::FuncCall(f) = ty else {
            return val;
        };
        let name = f.name.name.as_str();
        let arg = |i: usize| f.args.iter().nth(i);
        match (name, &val.kind) {
            ("optional", _) => match arg(0) {
                Some(t) => self.apply_type(val, t, file, depth + 1),
                None => val,
            },
            ("map", ValueKind::Map(entries)) => {
                let Some(t) = arg(0) else { return val };
                let entries = entries
                    .iter()
                    .map(|(k, x)| (k.clone(), self.apply_type(x.clone(), t, file, depth + 1)))
                    .collect();
                Value::new(ValueKind::Map(entries), val.span)
            }
            ("list" | "set", ValueKind::List(items)) => {
                let Some(t) = arg(0) else { return val };
                let items = items
                    .iter()
                    .map(|x| self.apply_type(x.clone(), t, file, depth + 1))
                    .collect();
                Value::new(ValueKind::List(items), val.span)
            }
            ("object", ValueKind::Map(entries)) => {
                let Some(Expression::Object(attrs)) = arg(0) else {
                    return val;
                };
                let mut entries = entries.clone();
                for (k, at) in attrs.iter() {
                    let key = match k {
                        ObjectKey::Ident(i) => i.as_str().to_string(),
                        ObjectKey::Expression(Expression::Variable(v)) => v.as_str().to_string(),
                        ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
                        ObjectKey::Expression(_) => continue,
                    };
                    let at = at.expr();
                    match entries.iter().position(|(n, _)| n.name == key) {
                        Some(i) => {
                            let x = std::mem::replace(&mut entries[i].1, Value::unknown(None));
                            // A null given for an optional attribute takes its default.
                            let x = match (&x.kind, optional_default(at)) {
                                (ValueKind::Null, Some(d)) => self
                                    .eval(d, file, &Vec::new())
                                    .unwrap_or_else(|_| Value::unknown(x.span)),
                                _ => x,
                            };
                            entries[i].1 = self.apply_type(x, at, file, depth + 1);
                        }
                        None => {
                            let Expression::FuncCall(o) = at else {
                                continue;
                            };
                            if o.name.name.as_str() != "optional" {
                                continue;
                            }
                            let filled = match optional_default(at) {
                                Some(d) => {
                                    let dv = self
                                        .eval(d, file, &Vec::new())
                                        .unwrap_or_else(|_| Value::unknown(None));
                                    self.apply_type(dv, at, file, depth + 1)
                                }
                                None => v(ValueKind::Null, None),
                            };
                            entries.push((
                                MapKey {
                                    name: key,
                                    span: None,
                                },
                                filled,
                            ));
                        }
                    }
                }
                Value::new(ValueKind::Map(entries), val.span)
            }
            _ => val,
        }
    }
}

/// The default of `optional(T, default)`.
fn optional_default(ty: &Expression) -> Option<&Expression> {
    match ty {
        Expression::FuncCall(f) if f.name.name.as_str() == "optional" => f.args.iter().nth(1),
        _ => None,
    }
}
