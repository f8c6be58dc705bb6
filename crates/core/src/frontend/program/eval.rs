//! A small evaluator over [`syntax`](super::syntax): what a CDK or Pulumi
//! program computes before it declares its constructs. It knows literals,
//! bindings, objects and arrays with spreads, template strings, functions,
//! classes and the program's own modules; a library it does not model
//! (anything imported from a package) is handed to its [`Host`]. Whatever it
//! cannot compute is [`V::Unknown`], and unknown never fires.
//!
//! An `if` whose test is unknown runs both branches, each under a condition
//! the host stamps on what it declares there, and leaves every binding it
//! changed unknown. A loop over an array not fully known runs its body once
//! more with an unknown item, so whatever the unknown items declare is
//! declared with unknown values.

use super::syntax::{Arg, Expr, ExprKind, Function, Imported, Item, Module, Prop, Stmt};
use super::syntax::{Name, TemplatePart};
use crate::source::Span;
use rustc_hash::FxHashMap as HashMap;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// A shared, mutable part of a value (objects and arrays are references).
pub type Shared<T> = Rc<RefCell<T>>;

/// A value and where it was written (a literal's span; a computed value's
/// expression).
#[derive(Clone, Debug)]
pub struct Val<'m> {
    /// What it is.
    pub kind: V<'m>,
    /// Where it comes from.
    pub span: Span,
}

/// The kinds of [`Val`].
#[derive(Clone, Debug)]
pub enum V<'m> {
    /// Not computed.
    Unknown,
    /// `undefined`, or a missing prop.
    Undefined,
    /// `null`, `None`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number, with the text it was written as when a literal.
    Num(f64, Option<Rc<str>>),
    /// A string.
    Str(Rc<str>),
    /// An array or list.
    Array(Shared<Array<'m>>),
    /// An object literal or dict.
    Object(Shared<Object<'m>>),
    /// A function of the program.
    Func(Rc<Closure<'m>>),
    /// A class of the program.
    Class(Rc<Class<'m>>),
    /// An instance of a class of the program.
    Instance(Rc<Instance<'m>>),
    /// A library's module, class, function or enum member, by its path
    /// (`cdk.aws_eks.FargateCluster`).
    Lib(Rc<str>),
    /// Something the host made (a construct), by its number.
    Handle(usize),
    /// A module of the program, by its number.
    Module(usize),
    /// A method of an instance, with the instance.
    Method(Rc<Instance<'m>>, &'m Function),
}

/// An array: its items, and whether more may be in it than are known.
#[derive(Clone, Debug, Default)]
pub struct Array<'m> {
    /// The known items.
    pub items: Vec<Val<'m>>,
    /// Items may have been added that are not known.
    pub open: bool,
}

/// An object: its entries in order, and whether keys not listed may be in
/// it (a spread of something unknown).
#[derive(Clone, Debug, Default)]
pub struct Object<'m> {
    /// Key, where the key is written, value.
    pub entries: Vec<(String, Span, Val<'m>)>,
    /// Keys not listed may be present.
    pub open: bool,
}

impl<'m> Object<'m> {
    /// The value of `key`: `Undefined` when surely absent, `Unknown` when
    /// it may be there.
    pub fn get(&self, key: &str) -> Option<&Val<'m>> {
        self.entries.iter().rev().find(|e| e.0 == key).map(|e| &e.2)
    }

    fn set(&mut self, key: &str, span: Span, v: Val<'m>) {
        match self.entries.iter_mut().find(|e| e.0 == key) {
            Some(e) => e.2 = v,
            None => self.entries.push((key.to_string(), span, v)),
        }
    }
}

/// A function and the scope it closes over.
#[derive(Debug)]
pub struct Closure<'m> {
    /// The function.
    pub func: &'m Function,
    scope: Rc<Scope<'m>>,
    module: usize,
}

/// A class of the program.
#[derive(Debug)]
pub struct Class<'m> {
    /// Its name.
    pub name: String,
    base: Option<Val<'m>>,
    members: &'m [Function],
    scope: Rc<Scope<'m>>,
    module: usize,
}

/// An instance of a class of the program.
#[derive(Debug)]
pub struct Instance<'m> {
    class: Rc<Class<'m>>,
    /// Its fields.
    pub fields: Shared<Object<'m>>,
    /// The construct it is, when its class extends a library construct.
    pub handle: Cell<Option<usize>>,
}

#[derive(Debug, Default)]
struct Scope<'m> {
    vars: RefCell<HashMap<String, Val<'m>>>,
    parent: Option<Rc<Scope<'m>>>,
    depth: u32,
    /// A function's or module's scope: where a Python assignment binds.
    boundary: bool,
}

impl<'m> Scope<'m> {
    fn child(parent: &Rc<Scope<'m>>) -> Rc<Scope<'m>> {
        Rc::new(Scope {
            vars: RefCell::default(),
            parent: Some(parent.clone()),
            depth: parent.depth + 1,
            boundary: false,
        })
    }

    fn function(parent: &Rc<Scope<'m>>) -> Rc<Scope<'m>> {
        Rc::new(Scope {
            vars: RefCell::default(),
            parent: Some(parent.clone()),
            depth: parent.depth + 1,
            boundary: true,
        })
    }

    /// The scope a Python assignment to `name` binds in: the block scope
    /// up to the function's that already binds it, else the function's.
    fn python_binder(self: &Rc<Self>, name: &str) -> Rc<Scope<'m>> {
        let mut s = self.clone();
        loop {
            if s.boundary || s.vars.borrow().contains_key(name) {
                return s;
            }
            match s.parent.clone() {
                Some(p) => s = p,
                None => return s,
            }
        }
    }

    fn lookup(&self, name: &str) -> Option<Val<'m>> {
        if let Some(v) = self.vars.borrow().get(name) {
            return Some(v.clone());
        }
        self.parent.as_ref()?.lookup(name)
    }

    /// The depth of the scope that binds `name`.
    fn binder(&self, name: &str) -> Option<u32> {
        if self.vars.borrow().contains_key(name) {
            return Some(self.depth);
        }
        self.parent.as_ref()?.binder(name)
    }

    fn assign(&self, name: &str, v: Val<'m>) -> bool {
        if let Some(slot) = self.vars.borrow_mut().get_mut(name) {
            *slot = v;
            return true;
        }
        match &self.parent {
            Some(p) => p.assign(name, v),
            None => false,
        }
    }

    fn bind(&self, name: &str, v: Val<'m>) {
        self.vars.borrow_mut().insert(name.to_string(), v);
    }
}

/// The arguments of a call, as the host sees them.
#[derive(Debug, Default)]
pub struct Args<'m> {
    /// Positional arguments, spreads expanded where known.
    pub positional: Vec<Val<'m>>,
    /// Python keyword arguments, names as written.
    pub keywords: Vec<(String, Span, Val<'m>)>,
    /// A spread whose items are not known was passed.
    pub open: bool,
    /// The whole call.
    pub span: Span,
}

/// Where a declaration happens: the conditions it is under (innermost
/// last), each the name of an unknown `if` and whether it is the `else`.
#[derive(Clone, Debug, Default)]
pub struct Cx {
    /// The conditions, outermost first.
    pub conditions: Vec<(u32, bool)>,
}

/// What the evaluator hands a library: constructs, their methods and
/// members, and calls of library functions.
pub trait Host<'m> {
    /// `new Lib(args)`, or a Python call of a library class.
    fn construct(&mut self, path: &str, args: Args<'m>, cx: &Cx) -> Val<'m>;
    /// A call of a library function or static method (`KubernetesVersion.of`).
    fn call(&mut self, path: &str, args: Args<'m>, cx: &Cx) -> Val<'m>;
    /// `handle.name(args)`; `name` camel-cased.
    fn method(&mut self, handle: usize, name: &str, args: Args<'m>, cx: &Cx) -> Val<'m>;
    /// `handle.name`; `name` camel-cased.
    fn member(&mut self, handle: usize, name: &str, span: Span) -> Val<'m>;
    /// A class of the program extends the library class `path`: its
    /// instance is constructed by `super(args)`. The handle it becomes.
    fn base(&mut self, path: &str, args: Args<'m>, cx: &Cx) -> Option<usize>;
    /// The library path a module the program imports names (`span` is the
    /// import); `None` for a module that is no library the host knows.
    fn library_of(&self, module: &str, span: Span) -> Option<String>;
}

/// One module of the program, lowered, with how its imports resolve.
#[derive(Debug)]
pub struct Loaded {
    /// Its statements.
    pub module: Module,
    /// For each import's `from` as written: the program module it names.
    pub imports: HashMap<String, usize>,
    /// Python (keyword arguments, `self`, truthiness of empty lists).
    pub python: bool,
}

/// Evaluation work allowed for one program (statements and expressions).
const MAX_STEPS: u64 = 2_000_000;
/// Calls nested deeper than this are unknown.
const MAX_CALL_DEPTH: u32 = 64;

enum Flow<'m> {
    Next,
    Return(Val<'m>),
}

/// Evaluates a program's modules for a host.
pub struct Evaluator<'m, 'h> {
    modules: &'m [Loaded],
    host: &'h mut dyn Host<'m>,
    exports: Vec<Option<Rc<Scope<'m>>>>,
    running: Vec<bool>,
    steps: u64,
    /// The step budget ran out: what is left is unknown.
    pub exhausted: bool,
    call_depth: u32,
    cx: Cx,
    next_condition: u32,
    /// Scope depths at which an unknown branch began, innermost last.
    uncertain: Vec<u32>,
}

impl<'m, 'h> Evaluator<'m, 'h> {
    /// An evaluator of `modules` for `host`.
    pub fn new(modules: &'m [Loaded], host: &'h mut dyn Host<'m>) -> Self {
        Evaluator {
            modules,
            host,
            exports: vec![None; modules.len()],
            running: vec![false; modules.len()],
            steps: 0,
            exhausted: false,
            call_depth: 0,
            cx: Cx::default(),
            next_condition: 0,
            uncertain: Vec::new(),
        }
    }

    /// Run module `index` (the entry point is 0) and what it imports.
    pub fn run(&mut self, index: usize) {
        self.run_module(index);
    }

    /// Run module `index` (once) and return its scope.
    fn run_module(&mut self, index: usize) -> Option<Rc<Scope<'m>>> {
        if let Some(Some(scope)) = self.exports.get(index) {
            return Some(scope.clone());
        }
        let loaded = self.modules.get(index)?;
        if self.running.get(index).copied().unwrap_or(true) {
            // An import cycle: what is not yet bound is unknown.
            return None;
        }
        self.running[index] = true;
        let scope = Rc::new(Scope {
            boundary: true,
            ..Scope::default()
        });
        let _ = self.block(&loaded.module.body, &scope, index);
        self.running[index] = false;
        self.exports[index] = Some(scope.clone());
        Some(scope)
    }

    fn step(&mut self) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.exhausted = true;
        }
        !self.exhausted
    }

    fn python(&self, module: usize) -> bool {
        self.modules.get(module).is_some_and(|m| m.python)
    }

    fn block(&mut self, body: &'m [Stmt], scope: &Rc<Scope<'m>>, module: usize) -> Flow<'m> {
        // Declarations are hoisted (functions and classes used before).
        for s in body {
            if let Stmt::Function(f) = s {
                if let Some(name) = &f.name {
                    let v = self.closure(f, scope, module);
                    scope.bind(&name.text, v);
                }
            }
        }
        for s in body {
            if let Flow::Return(v) = self.stmt(s, scope, module) {
                return Flow::Return(v);
            }
        }
        Flow::Next
    }

    fn closure(&self, f: &'m Function, scope: &Rc<Scope<'m>>, module: usize) -> Val<'m> {
        Val {
            kind: V::Func(Rc::new(Closure {
                func: f,
                scope: scope.clone(),
                module,
            })),
            span: f.span,
        }
    }

    fn stmt(&mut self, s: &'m Stmt, scope: &Rc<Scope<'m>>, module: usize) -> Flow<'m> {
        if !self.step() {
            return Flow::Next;
        }
        match s {
            Stmt::Import { from, names, span } => self.import(from, names, *span, scope, module),
            Stmt::Let { name, value, .. } => {
                let v = match value {
                    Some(e) => self.expr(e, scope, module),
                    None => V::Undefined.at(name.span),
                };
                if self.python(module) {
                    // Python binds in the function, whatever block it is in.
                    let target = scope.python_binder(&name.text);
                    let unsure = self.uncertain.last().is_some_and(|&b| target.depth < b);
                    let v = if unsure { unknown_at(v.span) } else { v };
                    target.bind(&name.text, v);
                } else {
                    scope.bind(&name.text, v);
                }
            }
            Stmt::Assign { target, value, .. } => {
                let v = self.expr(value, scope, module);
                self.assign(target, v, scope, module);
            }
            Stmt::Expr(e) => {
                self.expr(e, scope, module);
            }
            Stmt::Function(_) => {}
            Stmt::Class {
                name,
                extends,
                members,
                ..
            } => {
                let base = extends.as_ref().map(|e| self.expr(e, scope, module));
                let class = Class {
                    name: name.text.clone(),
                    base,
                    members,
                    scope: scope.clone(),
                    module,
                };
                scope.bind(
                    &name.text,
                    Val {
                        kind: V::Class(Rc::new(class)),
                        span: name.span,
                    },
                );
            }
            Stmt::Return { value, span } => {
                let v = match value {
                    Some(e) => self.expr(e, scope, module),
                    None => unknown_at(*span).with_kind(V::Undefined),
                };
                return Flow::Return(v);
            }
            Stmt::If {
                test,
                then,
                otherwise,
                ..
            } => {
                let t = self.expr(test, scope, module);
                match truthy(&t, self.python(module)) {
                    Some(true) => return self.block(then, &Scope::child(scope), module),
                    Some(false) => return self.block(otherwise, &Scope::child(scope), module),
                    None => {
                        let id = self.next_condition;
                        self.next_condition += 1;
                        self.uncertain_branch(scope, id, false, |ev, inner| {
                            ev.block(then, inner, module)
                        });
                        self.uncertain_branch(scope, id, true, |ev, inner| {
                            ev.block(otherwise, inner, module)
                        });
                    }
                }
            }
            Stmt::For {
                binding,
                iter,
                body,
                ..
            } => {
                let it = self.expr(iter, scope, module);
                let (items, open) = self.items_of(&it);
                for item in items {
                    if self.exhausted {
                        break;
                    }
                    let inner = Scope::child(scope);
                    inner.bind(&binding.text, item);
                    if let Flow::Return(v) = self.block(body, &inner, module) {
                        return Flow::Return(v);
                    }
                }
                if open {
                    let id = self.next_condition;
                    self.next_condition += 1;
                    self.uncertain_branch(scope, id, false, |ev, inner| {
                        inner.bind(&binding.text, unknown_at(binding.span));
                        ev.block(body, inner, module)
                    });
                }
            }
            Stmt::Block { body, .. } => {
                return self.block(body, &Scope::child(scope), module);
            }
            Stmt::Other { .. } => {}
        }
        Flow::Next
    }

    /// Run `f` as a branch that may or may not run: what it binds outside
    /// itself becomes unknown, and what it declares is under a condition.
    fn uncertain_branch(
        &mut self,
        scope: &Rc<Scope<'m>>,
        id: u32,
        otherwise: bool,
        f: impl FnOnce(&mut Self, &Rc<Scope<'m>>) -> Flow<'m>,
    ) {
        let inner = Scope::child(scope);
        self.uncertain.push(inner.depth);
        self.cx.conditions.push((id, otherwise));
        // A `return` in a branch that may not run returns nothing known.
        let _ = f(self, &inner);
        self.cx.conditions.pop();
        self.uncertain.pop();
    }

    /// The items of an iterable and whether more may follow.
    fn items_of(&self, v: &Val<'m>) -> (Vec<Val<'m>>, bool) {
        match &v.kind {
            V::Array(a) => {
                let a = a.borrow();
                (a.items.clone(), a.open)
            }
            V::Object(o) => {
                // Iterating a dict (Python) or `for…in` gives its keys.
                let o = o.borrow();
                let keys = o
                    .entries
                    .iter()
                    .map(|(k, span, _)| str_at(k, *span))
                    .collect();
                (keys, o.open)
            }
            _ => (Vec::new(), true),
        }
    }

    fn import(
        &mut self,
        from: &str,
        names: &'m [Imported],
        span: Span,
        scope: &Rc<Scope<'m>>,
        module: usize,
    ) {
        let own = self
            .modules
            .get(module)
            .and_then(|m| m.imports.get(from).copied());
        match own {
            Some(target) => {
                let exports = self.run_module(target);
                for n in names {
                    match n {
                        // A default import is the module's `default` when it
                        // has one (`export default class`), else the module.
                        Imported::Default { local }
                            if exports
                                .as_ref()
                                .is_some_and(|e| e.vars.borrow().get("default").is_some()) =>
                        {
                            let v = exports
                                .as_ref()
                                .and_then(|e| e.vars.borrow().get("default").cloned())
                                .unwrap_or_else(|| unknown_at(local.span));
                            scope.bind(&local.text, v);
                        }
                        Imported::Namespace { local } | Imported::Default { local } => scope.bind(
                            &local.text,
                            Val {
                                kind: V::Module(target),
                                span: local.span,
                            },
                        ),
                        Imported::Named { name, local } => {
                            let v = exports
                                .as_ref()
                                .and_then(|e| e.vars.borrow().get(name).cloned())
                                .or_else(|| {
                                    // `from .pkg import module`.
                                    let sub = format!("{from}.{name}");
                                    self.modules.get(module)?.imports.get(&sub).map(|&m| Val {
                                        kind: V::Module(m),
                                        span: local.span,
                                    })
                                })
                                .unwrap_or_else(|| unknown_at(local.span));
                            scope.bind(&local.text, v);
                        }
                    }
                }
            }
            None => {
                let lib = self.host.library_of(from, span);
                for n in names {
                    let (local, path) = match n {
                        Imported::Namespace { local } | Imported::Default { local } => {
                            (local, lib.clone())
                        }
                        Imported::Named { name, local } => {
                            (local, lib.as_ref().map(|l| format!("{l}.{name}")))
                        }
                    };
                    let v = match path {
                        Some(p) => Val {
                            kind: V::Lib(p.into()),
                            span: local.span,
                        },
                        None => unknown_at(span),
                    };
                    scope.bind(&local.text, v);
                }
            }
        }
    }

    fn assign(&mut self, target: &'m Expr, v: Val<'m>, scope: &Rc<Scope<'m>>, module: usize) {
        let unsure = |ev: &Self, depth: Option<u32>| match (ev.uncertain.last(), depth) {
            (Some(&branch), Some(d)) => d < branch,
            (Some(_), None) => true,
            _ => false,
        };
        match &target.kind {
            ExprKind::Name(n) => {
                let v = if unsure(self, scope.binder(n)) {
                    unknown_at(v.span)
                } else {
                    v
                };
                if !scope.assign(n, v.clone()) {
                    scope.bind(n, v);
                }
            }
            ExprKind::Member { object, name } => {
                let o = self.expr(object, scope, module);
                let v = if self.uncertain.is_empty() {
                    v
                } else {
                    unknown_at(v.span)
                };
                match &o.kind {
                    V::Object(obj) => obj.borrow_mut().set(&name.text, name.span, v),
                    V::Instance(i) => i.fields.borrow_mut().set(&name.text, name.span, v),
                    _ => {}
                }
            }
            ExprKind::Index { object, index } => {
                let o = self.expr(object, scope, module);
                let i = self.expr(index, scope, module);
                let sure = self.uncertain.is_empty();
                match (&o.kind, &i.kind) {
                    (V::Object(obj), V::Str(k)) => {
                        let v = if sure { v } else { unknown_at(v.span) };
                        obj.borrow_mut().set(k, i.span, v)
                    }
                    (V::Object(obj), _) => obj.borrow_mut().open = true,
                    (V::Array(a), V::Num(n, _)) if sure => {
                        let mut a = a.borrow_mut();
                        match index_of(*n).and_then(|n| a.items.get_mut(n)) {
                            Some(slot) => *slot = v,
                            None => a.open = true,
                        }
                    }
                    (V::Array(a), _) => a.borrow_mut().open = true,
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// Evaluate an expression.
    fn expr(&mut self, e: &'m Expr, scope: &Rc<Scope<'m>>, module: usize) -> Val<'m> {
        let span = e.span;
        if !self.step() {
            return unknown_at(span);
        }
        let kind = match &e.kind {
            ExprKind::Str(s) => V::Str(s.as_str().into()),
            ExprKind::Num(n) => match parse_num(n) {
                Some(x) => V::Num(x, Some(n.as_str().into())),
                None => V::Unknown,
            },
            ExprKind::Bool(b) => V::Bool(*b),
            ExprKind::Null => V::Null,
            ExprKind::Undefined => V::Undefined,
            ExprKind::Template(parts) => {
                let mut out = String::new();
                for p in parts {
                    match p {
                        TemplatePart::Text(t) => out.push_str(t),
                        TemplatePart::Expr(x) => {
                            let v = self.expr(x, scope, module);
                            match text_of(&v, self.python(module)) {
                                Some(t) => out.push_str(&t),
                                None => return unknown_at(span),
                            }
                        }
                    }
                }
                V::Str(out.into())
            }
            ExprKind::Name(n) => {
                return match scope.lookup(n) {
                    Some(v) => v,
                    None => unknown_at(span),
                }
            }
            ExprKind::This => {
                return scope.lookup("this").unwrap_or_else(|| unknown_at(span));
            }
            ExprKind::Member { object, name } => {
                let o = self.expr(object, scope, module);
                return self.member(&o, name, span);
            }
            ExprKind::Index { object, index } => {
                let o = self.expr(object, scope, module);
                let i = self.expr(index, scope, module);
                return index_value(&o, &i, span);
            }
            ExprKind::Call { callee, args } => return self.call(callee, args, span, scope, module),
            ExprKind::New { callee, args } => {
                let args_v = self.args(args, span, scope, module);
                // `new Map([[k, v], ...])`: an object of its string keys.
                if matches!(&callee.kind, ExprKind::Name(n) if n == "Map" && scope.lookup(n).is_none())
                {
                    return map_of(&args_v, span);
                }
                let c = self.expr(callee, scope, module);
                return self.instantiate(&c, args_v, span);
            }
            ExprKind::Object(props) => {
                let mut obj = Object::default();
                for p in props {
                    match p {
                        Prop::KeyValue {
                            key: Some(k),
                            value,
                        } => {
                            let v = self.expr(value, scope, module);
                            obj.set(&k.text, k.span, v);
                        }
                        Prop::KeyValue { key: None, value } => {
                            self.expr(value, scope, module);
                            obj.open = true;
                        }
                        Prop::Spread(x) => {
                            let v = self.expr(x, scope, module);
                            spread_into(&mut obj, &v);
                        }
                    }
                }
                V::Object(Rc::new(RefCell::new(obj)))
            }
            ExprKind::Array(items) => {
                let mut arr = Array::default();
                for it in items {
                    match it {
                        Item::Expr(x) => {
                            let v = self.expr(x, scope, module);
                            arr.items.push(v);
                        }
                        Item::Spread(x) => {
                            let v = self.expr(x, scope, module);
                            let (items, open) = self.items_of(&v);
                            arr.items.extend(items);
                            arr.open |= open;
                        }
                    }
                }
                V::Array(Rc::new(RefCell::new(arr)))
            }
            ExprKind::Function(f) => return self.closure(f, scope, module),
            ExprKind::Binary { op, left, right } => {
                return self.binary(op, left, right, span, scope, module)
            }
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand, scope, module);
                match (op.as_str(), &v.kind) {
                    ("!", _) => match truthy(&v, self.python(module)) {
                        Some(b) => V::Bool(!b),
                        None => V::Unknown,
                    },
                    ("-", V::Num(n, _)) => V::Num(-n, None),
                    ("+", V::Num(n, _)) => V::Num(*n, None),
                    _ => V::Unknown,
                }
            }
            ExprKind::Conditional {
                test,
                then,
                otherwise,
            } => {
                let t = self.expr(test, scope, module);
                match truthy(&t, self.python(module)) {
                    Some(true) => return self.expr(then, scope, module),
                    Some(false) => return self.expr(otherwise, scope, module),
                    None => {
                        let a = self.expr(then, scope, module);
                        let b = self.expr(otherwise, scope, module);
                        // Both ways give the same value: it is known.
                        if same(&a, &b) {
                            return a;
                        }
                        V::Unknown
                    }
                }
            }
            ExprKind::Unknown => V::Unknown,
        };
        Val { kind, span }
    }

    fn member(&mut self, o: &Val<'m>, name: &Name, span: Span) -> Val<'m> {
        let n = name.text.as_str();
        let kind = match &o.kind {
            V::Lib(p) => V::Lib(format!("{p}.{n}").into()),
            V::Module(m) => {
                return self
                    .run_module(*m)
                    .and_then(|s| s.vars.borrow().get(n).cloned())
                    .unwrap_or_else(|| unknown_at(span));
            }
            V::Object(obj) => {
                let obj = obj.borrow();
                return match obj.get(n) {
                    Some(v) => v.clone(),
                    None if obj.open => unknown_at(span),
                    None if n == "length" => V::Num(obj.entries.len() as f64, None).at(span),
                    None => unknown_at(span).with_kind(V::Undefined),
                };
            }
            V::Instance(i) => {
                if let Some(v) = i.fields.borrow().get(n) {
                    return v.clone();
                }
                if let Some(f) = find_method(&i.class, n) {
                    return Val {
                        kind: V::Method(i.clone(), f),
                        span,
                    };
                }
                match i.handle.get() {
                    Some(h) => return self.host.member(h, &camel(n), span),
                    None => V::Unknown,
                }
            }
            V::Handle(h) => return self.host.member(*h, &camel(n), span),
            V::Array(a) if n == "length" => {
                let a = a.borrow();
                if a.open {
                    V::Unknown
                } else {
                    V::Num(a.items.len() as f64, None)
                }
            }
            V::Str(s) if n == "length" => V::Num(s.chars().count() as f64, None),
            _ => V::Unknown,
        };
        Val { kind, span }
    }

    fn args(
        &mut self,
        args: &'m [Arg],
        span: Span,
        scope: &Rc<Scope<'m>>,
        module: usize,
    ) -> Args<'m> {
        let mut out = Args {
            span,
            ..Args::default()
        };
        for a in args {
            match a {
                Arg::Positional(x) => {
                    let v = self.expr(x, scope, module);
                    out.positional.push(v);
                }
                Arg::Spread(x) => {
                    let v = self.expr(x, scope, module);
                    let (items, open) = self.items_of(&v);
                    out.positional.extend(items);
                    out.open |= open;
                }
                Arg::Keyword(n, x) => {
                    let v = self.expr(x, scope, module);
                    out.keywords.push((n.text.clone(), n.span, v));
                }
                Arg::KeywordSpread(x) => {
                    let v = self.expr(x, scope, module);
                    match &v.kind {
                        V::Object(o) => {
                            let o = o.borrow();
                            out.keywords.extend(
                                o.entries.iter().map(|(k, s, v)| (k.clone(), *s, v.clone())),
                            );
                            out.open |= o.open;
                        }
                        _ => out.open = true,
                    }
                }
            }
        }
        out
    }

    fn call(
        &mut self,
        callee: &'m Expr,
        args: &'m [Arg],
        span: Span,
        scope: &Rc<Scope<'m>>,
        module: usize,
    ) -> Val<'m> {
        // `super(…)` and Python's `super().__init__(…)`.
        let is_super = |e: &Expr| matches!(&e.kind, ExprKind::Name(n) if n == "super");
        let super_init = match &callee.kind {
            ExprKind::Name(n) if n == "super" => true,
            ExprKind::Member { object, name } if name.text == "__init__" => {
                matches!(&object.kind, ExprKind::Call { callee, .. } if is_super(callee))
            }
            _ => false,
        };
        if super_init {
            let args = self.args(args, span, scope, module);
            self.super_init(args, span, scope);
            return unknown_at(span).with_kind(V::Undefined);
        }
        if let ExprKind::Member { object, name } = &callee.kind {
            let o = self.expr(object, scope, module);
            let n = name.text.as_str();
            match &o.kind {
                V::Handle(h) => {
                    let args = self.args(args, span, scope, module);
                    let cx = self.cx.clone();
                    return self.host.method(*h, &camel(n), args, &cx);
                }
                V::Instance(i)
                    if i.fields.borrow().get(n).is_none() && find_method(&i.class, n).is_none() =>
                {
                    if let Some(h) = i.handle.get() {
                        let args = self.args(args, span, scope, module);
                        let cx = self.cx.clone();
                        return self.host.method(h, &camel(n), args, &cx);
                    }
                    return unknown_at(span);
                }
                V::Array(a) => {
                    let a = a.clone();
                    return self.array_method(&a, n, args, span, scope, module);
                }
                V::Object(obj) => {
                    let obj = obj.clone();
                    if let Some(v) = self.dict_method(&obj, n, args, span, scope, module) {
                        return v;
                    }
                }
                V::Str(s) => {
                    let s = s.clone();
                    return self.string_method(&s, n, args, span, scope, module);
                }
                V::Lib(p) if p.as_ref() == "Object" || p.as_ref() == "JSON" => {}
                _ => {}
            }
            let f = self.member(&o, name, callee.span);
            let args = self.args(args, span, scope, module);
            return self.apply(&f, args, span);
        }
        if let ExprKind::Name(n) = &callee.kind {
            if scope.lookup(n).is_none() {
                let args = self.args(args, span, scope, module);
                return builtin(n, args, span);
            }
        }
        let f = self.expr(callee, scope, module);
        let args = self.args(args, span, scope, module);
        self.apply(&f, args, span)
    }

    /// Call a value: a function, a method, a class (Python), a library path.
    fn apply(&mut self, f: &Val<'m>, args: Args<'m>, span: Span) -> Val<'m> {
        match &f.kind {
            V::Func(c) => {
                let c = c.clone();
                self.invoke(c.func, &c.scope, c.module, None, args, span)
            }
            V::Method(inst, func) => {
                let module = inst.class.module;
                let scope = inst.class.scope.clone();
                self.invoke(func, &scope, module, Some(inst.clone()), args, span)
            }
            V::Class(_) => self.instantiate(f, args, span),
            V::Lib(p) => {
                let cx = self.cx.clone();
                let last = p.rsplit('.').next().unwrap_or("");
                // A call of a library class (Python has no `new`) constructs it.
                if last.chars().next().is_some_and(char::is_uppercase) {
                    return self.host.construct(p, args, &cx);
                }
                self.host.call(p, args, &cx)
            }
            _ => unknown_at(span),
        }
    }

    fn instantiate(&mut self, c: &Val<'m>, args: Args<'m>, span: Span) -> Val<'m> {
        match &c.kind {
            V::Lib(p) => {
                let cx = self.cx.clone();
                self.host.construct(p, args, &cx)
            }
            V::Class(class) => {
                let inst = Rc::new(Instance {
                    class: class.clone(),
                    fields: Rc::default(),
                    handle: Cell::new(None),
                });
                self.construct_as(class, &inst, args, span);
                Val {
                    kind: V::Instance(inst),
                    span,
                }
            }
            _ => unknown_at(span),
        }
    }

    /// Run the constructor `class` declares (or inherits) on `inst`.
    fn construct_as(
        &mut self,
        class: &Rc<Class<'m>>,
        inst: &Rc<Instance<'m>>,
        args: Args<'m>,
        span: Span,
    ) {
        let ctor = class.members.iter().find(|f| {
            f.name
                .as_ref()
                .is_some_and(|n| n.text == "constructor" || n.text == "__init__")
        });
        match ctor {
            Some(f) => {
                let scope = Scope::child(&class.scope);
                scope.bind(
                    "$class",
                    Val {
                        kind: V::Class(class.clone()),
                        span,
                    },
                );
                self.invoke(f, &scope, class.module, Some(inst.clone()), args, span);
            }
            None => self.base_init(class, inst, args, span),
        }
    }

    /// The base class of `class` constructs `inst` with `args`.
    fn base_init(
        &mut self,
        class: &Rc<Class<'m>>,
        inst: &Rc<Instance<'m>>,
        args: Args<'m>,
        span: Span,
    ) {
        match class.base.as_ref().map(|b| &b.kind) {
            Some(V::Class(base)) => self.construct_as(base, inst, args, span),
            Some(V::Lib(path)) => {
                let cx = self.cx.clone();
                let path = path.clone();
                if let Some(h) = self.host.base(&path, args, &cx) {
                    inst.handle.set(Some(h));
                }
            }
            _ => {}
        }
    }

    fn super_init(&mut self, args: Args<'m>, span: Span, scope: &Rc<Scope<'m>>) {
        let (Some(this), Some(class)) = (scope.lookup("this"), scope.lookup("$class")) else {
            return;
        };
        if let (V::Instance(inst), V::Class(class)) = (&this.kind, &class.kind) {
            let (inst, class) = (inst.clone(), class.clone());
            self.base_init(&class, &inst, args, span);
        }
    }

    fn invoke(
        &mut self,
        f: &'m Function,
        outer: &Rc<Scope<'m>>,
        module: usize,
        this: Option<Rc<Instance<'m>>>,
        mut args: Args<'m>,
        span: Span,
    ) -> Val<'m> {
        if self.call_depth >= MAX_CALL_DEPTH {
            return unknown_at(span);
        }
        let scope = Scope::function(outer);
        let mut params = f.params.iter().peekable();
        if let Some(inst) = &this {
            scope.bind(
                "this",
                Val {
                    kind: V::Instance(inst.clone()),
                    span,
                },
            );
            if let Some(c) = outer
                .lookup("$class")
                .filter(|_| outer.vars.borrow().contains_key("$class"))
            {
                scope.bind("$class", c);
            } else {
                scope.bind(
                    "$class",
                    Val {
                        kind: V::Class(inst.class.clone()),
                        span,
                    },
                );
            }
            // Python's `self` comes first.
            if self.python(module) {
                params.next();
            }
        }
        let mut positional = std::mem::take(&mut args.positional).into_iter();
        let mut keywords = std::mem::take(&mut args.keywords);
        for p in params {
            let v = if p.rest {
                let items: Vec<Val<'m>> = positional.by_ref().collect();
                Val {
                    kind: V::Array(Rc::new(RefCell::new(Array {
                        items,
                        open: args.open,
                    }))),
                    span: p.name.span,
                }
            } else if p.keywords {
                let entries = std::mem::take(&mut keywords);
                Val {
                    kind: V::Object(Rc::new(RefCell::new(Object {
                        entries,
                        open: args.open,
                    }))),
                    span: p.name.span,
                }
            } else if let Some(v) = positional.next() {
                v
            } else if let Some(i) = keywords.iter().position(|k| k.0 == p.name.text) {
                keywords.remove(i).2
            } else if args.open {
                unknown_at(p.name.span)
            } else if let Some(d) = &p.default {
                self.expr(d, outer, module)
            } else {
                unknown_at(p.name.span).with_kind(V::Undefined)
            };
            // A default applies to `undefined` too.
            let v = match (&v.kind, &p.default) {
                (V::Undefined, Some(d)) => self.expr(d, outer, module),
                _ => v,
            };
            scope.bind(&p.name.text, v);
        }
        self.call_depth += 1;
        let flow = self.block(&f.body, &scope, module);
        self.call_depth -= 1;
        match flow {
            Flow::Return(v) => v,
            Flow::Next => unknown_at(span).with_kind(V::Undefined),
        }
    }

    fn callback(&mut self, f: &Val<'m>, item: Val<'m>, index: usize, span: Span) -> Val<'m> {
        let args = Args {
            positional: vec![item, V::Num(index as f64, None).at(span)],
            span,
            ..Args::default()
        };
        self.apply(f, args, span)
    }

    fn array_method(
        &mut self,
        a: &Shared<Array<'m>>,
        name: &str,
        args: &'m [Arg],
        span: Span,
        scope: &Rc<Scope<'m>>,
        module: usize,
    ) -> Val<'m> {
        let mut args = self.args(args, span, scope, module);
        let (items, open) = {
            let a = a.borrow();
            (a.items.clone(), a.open)
        };
        let new_array = |items: Vec<Val<'m>>, open: bool| Val {
            kind: V::Array(Rc::new(RefCell::new(Array { items, open }))),
            span,
        };
        match name {
            "map" | "forEach" => {
                let Some(f) = args.positional.first().cloned() else {
                    return unknown_at(span);
                };
                let mut out = Vec::new();
                for (i, item) in items.into_iter().enumerate() {
                    out.push(self.callback(&f, item, i, span));
                }
                if open {
                    let id = self.next_condition;
                    self.next_condition += 1;
                    self.uncertain_branch(scope, id, false, |ev, _| {
                        ev.callback(&f, unknown_at(span), 0, span);
                        Flow::Next
                    });
                }
                if name == "map" {
                    new_array(out, open)
                } else {
                    unknown_at(span).with_kind(V::Undefined)
                }
            }
            "filter" => {
                let Some(f) = args.positional.first().cloned() else {
                    return unknown_at(span);
                };
                let mut out = Vec::new();
                for (i, item) in items.into_iter().enumerate() {
                    let keep = self.callback(&f, item.clone(), i, span);
                    match truthy(&keep, self.python(module)) {
                        Some(true) => out.push(item),
                        Some(false) => {}
                        None => return unknown_at(span),
                    }
                }
                new_array(out, open)
            }
            "concat" => {
                let mut out = items;
                let mut open = open;
                for v in &args.positional {
                    match &v.kind {
                        V::Array(b) => {
                            let b = b.borrow();
                            out.extend(b.items.iter().cloned());
                            open |= b.open;
                        }
                        _ => out.push(v.clone()),
                    }
                }
                new_array(out, open || args.open)
            }
            "push" | "append" | "extend" => {
                let mut arr = a.borrow_mut();
                if !self.uncertain.is_empty() || args.open {
                    arr.open = true;
                } else if name == "extend" {
                    match args.positional.pop().map(|v| v.kind) {
                        Some(V::Array(b)) => {
                            let b = b.borrow();
                            arr.items.extend(b.items.iter().cloned());
                            arr.open |= b.open;
                        }
                        _ => arr.open = true,
                    }
                } else {
                    arr.items.extend(args.positional);
                }
                unknown_at(span)
            }
            "join" => {
                let sep = match args.positional.first().map(|v| &v.kind) {
                    None => ",".to_string(),
                    Some(V::Str(s)) => s.to_string(),
                    _ => return unknown_at(span),
                };
                if open {
                    return unknown_at(span);
                }
                let mut parts = Vec::new();
                for v in &items {
                    match text_of(v, self.python(module)) {
                        Some(t) => parts.push(t),
                        None => return unknown_at(span),
                    }
                }
                V::Str(parts.join(&sep).into()).at(span)
            }
            _ => unknown_at(span),
        }
    }

    fn dict_method(
        &mut self,
        obj: &Shared<Object<'m>>,
        name: &str,
        args: &'m [Arg],
        span: Span,
        scope: &Rc<Scope<'m>>,
        module: usize,
    ) -> Option<Val<'m>> {
        if !self.python(module) {
            return self.map_method(obj, name, args, span, scope, module);
        }
        let args = self.args(args, span, scope, module);
        let o = obj.borrow();
        let v = match name {
            "get" => {
                let key = match args.positional.first().map(|v| &v.kind) {
                    Some(V::Str(k)) => k.clone(),
                    _ => return Some(unknown_at(span)),
                };
                match o.get(&key) {
                    Some(v) => v.clone(),
                    None if o.open => unknown_at(span),
                    None => args
                        .positional
                        .get(1)
                        .cloned()
                        .unwrap_or_else(|| V::Null.at(span)),
                }
            }
            "items" | "keys" | "values" => {
                let items = o
                    .entries
                    .iter()
                    .map(|(k, s, v)| match name {
                        "keys" => str_at(k, *s),
                        "values" => v.clone(),
                        _ => Val {
                            kind: V::Array(Rc::new(RefCell::new(Array {
                                items: vec![str_at(k, *s), v.clone()],
                                open: false,
                            }))),
                            span: *s,
                        },
                    })
                    .collect();
                Val {
                    kind: V::Array(Rc::new(RefCell::new(Array {
                        items,
                        open: o.open,
                    }))),
                    span,
                }
            }
            _ => unknown_at(span),
        };
        Some(v)
    }

    /// A `Map`'s methods on the object it is: `set` adds a known key (an
    /// unknown one makes the object open), `get` and `has` read one.
    fn map_method(
        &mut self,
        obj: &Shared<Object<'m>>,
        name: &str,
        args: &'m [Arg],
        span: Span,
        scope: &Rc<Scope<'m>>,
        module: usize,
    ) -> Option<Val<'m>> {
        if !matches!(name, "set" | "get" | "has" | "delete" | "clear") {
            return None;
        }
        let args = self.args(args, span, scope, module);
        let key = match args.positional.first().map(|v| &v.kind) {
            Some(V::Str(k)) => Some((k.clone(), args.positional[0].span)),
            _ => None,
        };
        let mut o = obj.borrow_mut();
        let v = match (name, key) {
            ("set", Some((k, ks))) => {
                let v = args
                    .positional
                    .get(1)
                    .cloned()
                    .unwrap_or_else(|| V::Undefined.at(span));
                o.set(&k, ks, v);
                drop(o);
                return Some(Val {
                    kind: V::Object(obj.clone()),
                    span,
                });
            }
            ("get", Some((k, _))) => match o.get(&k) {
                Some(v) => v.clone(),
                None if o.open => unknown_at(span),
                None => V::Undefined.at(span),
            },
            ("has", Some((k, _))) => match o.get(&k) {
                Some(_) => V::Bool(true).at(span),
                None if o.open => unknown_at(span),
                None => V::Bool(false).at(span),
            },
            ("delete", Some((k, _))) => {
                o.entries.retain(|(e, _, _)| e.as_str() != k.as_ref());
                unknown_at(span)
            }
            ("clear", _) => {
                o.entries.clear();
                o.open = false;
                V::Undefined.at(span)
            }
            // A key not known: what the map holds is not known either.
            ("set" | "delete", None) => {
                o.open = true;
                unknown_at(span)
            }
            _ => unknown_at(span),
        };
        Some(v)
    }

    fn string_method(
        &mut self,
        s: &str,
        name: &str,
        args: &'m [Arg],
        span: Span,
        scope: &Rc<Scope<'m>>,
        module: usize,
    ) -> Val<'m> {
        let args = self.args(args, span, scope, module);
        let kind = match name {
            "toLowerCase" | "lower" => V::Str(s.to_lowercase().into()),
            "toUpperCase" | "upper" => V::Str(s.to_uppercase().into()),
            "trim" | "strip" => V::Str(s.trim().into()),
            "concat" => {
                let mut out = s.to_string();
                for a in &args.positional {
                    match text_of(a, self.python(module)) {
                        Some(t) => out.push_str(&t),
                        None => return unknown_at(span),
                    }
                }
                V::Str(out.into())
            }
            _ => V::Unknown,
        };
        Val { kind, span }
    }

    fn binary(
        &mut self,
        op: &str,
        left: &'m Expr,
        right: &'m Expr,
        span: Span,
        scope: &Rc<Scope<'m>>,
        module: usize,
    ) -> Val<'m> {
        let python = self.python(module);
        let l = self.expr(left, scope, module);
        match op {
            "&&" => {
                return match truthy(&l, python) {
                    Some(false) => l,
                    Some(true) => self.expr(right, scope, module),
                    None => {
                        self.expr(right, scope, module);
                        unknown_at(span)
                    }
                }
            }
            "||" => {
                return match truthy(&l, python) {
                    Some(true) => l,
                    Some(false) => self.expr(right, scope, module),
                    None => {
                        self.expr(right, scope, module);
                        unknown_at(span)
                    }
                }
            }
            "??" => {
                return match &l.kind {
                    V::Null | V::Undefined => self.expr(right, scope, module),
                    V::Unknown => {
                        self.expr(right, scope, module);
                        unknown_at(span)
                    }
                    _ => l,
                }
            }
            _ => {}
        }
        let r = self.expr(right, scope, module);
        let kind = match (op, &l.kind, &r.kind) {
            (_, V::Unknown, _) | (_, _, V::Unknown) => V::Unknown,
            ("+", V::Num(a, _), V::Num(b, _)) => V::Num(a + b, None),
            ("-", V::Num(a, _), V::Num(b, _)) => V::Num(a - b, None),
            ("*", V::Num(a, _), V::Num(b, _)) => V::Num(a * b, None),
            ("+", V::Str(_), _) | ("+", _, V::Str(_)) => {
                match (text_of(&l, python), text_of(&r, python)) {
                    (Some(a), Some(b))
                        if python == matches!((&l.kind, &r.kind), (V::Str(_), V::Str(_)))
                            || !python =>
                    {
                        V::Str(format!("{a}{b}").into())
                    }
                    _ => V::Unknown,
                }
            }
            ("==" | "===", _, _) => match equal(&l, &r) {
                Some(b) => V::Bool(b),
                None => V::Unknown,
            },
            ("!=" | "!==", _, _) => match equal(&l, &r) {
                Some(b) => V::Bool(!b),
                None => V::Unknown,
            },
            ("<", V::Num(a, _), V::Num(b, _)) => V::Bool(a < b),
            ("<=", V::Num(a, _), V::Num(b, _)) => V::Bool(a <= b),
            (">", V::Num(a, _), V::Num(b, _)) => V::Bool(a > b),
            (">=", V::Num(a, _), V::Num(b, _)) => V::Bool(a >= b),
            _ => V::Unknown,
        };
        Val { kind, span }
    }
}

/// Python builtins and JavaScript globals the evaluator computes.
/// `new Map(entries)`: an object of the entries' string keys; anything
/// else it is given makes it open.
fn map_of<'m>(args: &Args<'m>, span: Span) -> Val<'m> {
    let mut obj = Object {
        entries: Vec::new(),
        open: args.open,
    };
    match args.positional.first().map(|v| &v.kind) {
        None | Some(V::Undefined | V::Null) => {}
        Some(V::Array(a)) => {
            let a = a.borrow();
            obj.open |= a.open;
            for pair in &a.items {
                match &pair.kind {
                    V::Array(kv) => match kv.borrow().items.as_slice() {
                        [Val {
                            kind: V::Str(k),
                            span: ks,
                        }, v] => obj.set(k, *ks, v.clone()),
                        _ => obj.open = true,
                    },
                    _ => obj.open = true,
                }
            }
        }
        Some(V::Object(o)) => {
            let o = o.borrow();
            obj.entries = o.entries.clone();
            obj.open |= o.open;
        }
        Some(_) => obj.open = true,
    }
    V::Object(Rc::new(RefCell::new(obj))).at(span)
}

fn builtin<'m>(name: &str, args: Args<'m>, span: Span) -> Val<'m> {
    match name {
        // `dict(a=1)`, `dict(**other, b=2)`.
        "dict" if args.positional.is_empty() => Val {
            kind: V::Object(Rc::new(RefCell::new(Object {
                entries: args.keywords,
                open: args.open,
            }))),
            span,
        },
        "str" | "String" => match args.positional.first() {
            Some(v) => match text_of(v, name == "str") {
                Some(t) => V::Str(t.into()).at(span),
                None => unknown_at(span),
            },
            None => unknown_at(span),
        },
        "list" | "tuple" => match args.positional.first() {
            Some(
                v @ Val {
                    kind: V::Array(_), ..
                },
            ) => v.clone(),
            _ => unknown_at(span),
        },
        _ => unknown_at(span),
    }
}

fn find_method<'m>(class: &Rc<Class<'m>>, name: &str) -> Option<&'m Function> {
    let mut c = class.clone();
    for _ in 0..32 {
        if let Some(f) = c
            .members
            .iter()
            .find(|f| f.name.as_ref().is_some_and(|n| n.text == name))
        {
            return Some(f);
        }
        let next = match c.base.as_ref().map(|b| &b.kind) {
            Some(V::Class(b)) => b.clone(),
            _ => return None,
        };
        c = next;
    }
    None
}

fn spread_into<'m>(obj: &mut Object<'m>, v: &Val<'m>) {
    match &v.kind {
        V::Object(o) => {
            let o = o.borrow();
            if o.open {
                // Keys written before may be overridden by keys not known.
                obj.entries.clear();
                obj.open = true;
            }
            for (k, s, v) in &o.entries {
                obj.set(k, *s, v.clone());
            }
        }
        V::Instance(i) => spread_into(
            obj,
            &Val {
                kind: V::Object(i.fields.clone()),
                span: v.span,
            },
        ),
        V::Undefined | V::Null => {}
        _ => {
            obj.entries.clear();
            obj.open = true;
        }
    }
}

fn index_value<'m>(o: &Val<'m>, i: &Val<'m>, span: Span) -> Val<'m> {
    match (&o.kind, &i.kind) {
        (V::Array(a), V::Num(n, _)) => {
            let a = a.borrow();
            match index_of(*n).and_then(|n| a.items.get(n)) {
                Some(v) => v.clone(),
                None => unknown_at(span),
            }
        }
        (V::Object(obj), V::Str(k)) => {
            let obj = obj.borrow();
            match obj.get(k) {
                Some(v) => v.clone(),
                None if obj.open => unknown_at(span),
                None => unknown_at(span).with_kind(V::Undefined),
            }
        }
        (V::Instance(inst), V::Str(k)) => match inst.fields.borrow().get(k) {
            Some(v) => v.clone(),
            None => unknown_at(span),
        },
        _ => unknown_at(span),
    }
}

fn index_of(n: f64) -> Option<usize> {
    (n >= 0.0 && n.fract() == 0.0 && n < 1e9).then_some(n as usize)
}

fn parse_num(text: &str) -> Option<f64> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let lower = t.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok().map(|n| n as f64);
    }
    lower.trim_end_matches('n').parse().ok()
}

/// An unknown value at `span`.
pub fn unknown_at<'m>(span: Span) -> Val<'m> {
    Val {
        kind: V::Unknown,
        span,
    }
}

fn str_at<'m>(s: &str, span: Span) -> Val<'m> {
    Val {
        kind: V::Str(s.into()),
        span,
    }
}

impl<'m> V<'m> {
    /// This value at `span`.
    pub fn at(self, span: Span) -> Val<'m> {
        Val { kind: self, span }
    }
}

impl<'m> Val<'m> {
    fn with_kind(mut self, kind: V<'m>) -> Val<'m> {
        self.kind = kind;
        self
    }

    /// The string, when known.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            V::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Whether nothing is known of it.
    pub fn is_unknown(&self) -> bool {
        matches!(self.kind, V::Unknown)
    }
}

/// Whether a value is truthy, when that is known.
pub fn truthy(v: &Val<'_>, python: bool) -> Option<bool> {
    match &v.kind {
        V::Unknown => None,
        V::Undefined | V::Null => Some(false),
        V::Bool(b) => Some(*b),
        V::Num(n, _) => Some(*n != 0.0 && !n.is_nan()),
        V::Str(s) => Some(!s.is_empty()),
        V::Array(a) if python => {
            let a = a.borrow();
            if a.items.is_empty() {
                (!a.open).then_some(false)
            } else {
                Some(true)
            }
        }
        V::Object(o) if python => {
            let o = o.borrow();
            if o.entries.is_empty() {
                (!o.open).then_some(false)
            } else {
                Some(true)
            }
        }
        _ => Some(true),
    }
}

/// A number as JavaScript and Python print it (`2`, `0.5`).
pub fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// The text a value gives in a template string.
fn text_of(v: &Val<'_>, python: bool) -> Option<String> {
    match &v.kind {
        V::Str(s) => Some(s.to_string()),
        V::Num(n, _) => Some(number_text(*n)),
        V::Bool(b) if python => Some(if *b { "True" } else { "False" }.to_string()),
        V::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn equal(a: &Val<'_>, b: &Val<'_>) -> Option<bool> {
    match (&a.kind, &b.kind) {
        (V::Str(x), V::Str(y)) => Some(x == y),
        (V::Num(x, _), V::Num(y, _)) => Some(x == y),
        (V::Bool(x), V::Bool(y)) => Some(x == y),
        (V::Null | V::Undefined, V::Null | V::Undefined) => Some(true),
        (V::Null | V::Undefined, V::Str(_) | V::Num(..) | V::Bool(_))
        | (V::Str(_) | V::Num(..) | V::Bool(_), V::Null | V::Undefined) => Some(false),
        (V::Str(_), V::Num(..) | V::Bool(_)) | (V::Num(..) | V::Bool(_), V::Str(_)) => Some(false),
        _ => None,
    }
}

/// Whether two values are surely the same scalar.
fn same(a: &Val<'_>, b: &Val<'_>) -> bool {
    equal(a, b) == Some(true) && !matches!(a.kind, V::Null | V::Undefined)
}

/// A Python keyword or method name as the camel-case prop or method the
/// library declares (`add_fargate_profile` is `addFargateProfile`).
pub fn camel(name: &str) -> String {
    if name.contains('_') {
        super::python::prop_name(name)
    } else {
        name.to_string()
    }
}
