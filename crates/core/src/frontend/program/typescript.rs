//! TypeScript and JavaScript programs (CDK, Pulumi) read with oxc's parser
//! and lowered to [`syntax`](super::syntax). oxc recovers from many syntax
//! errors; each error is an FP000 at its place, and what it could read is
//! still lowered. When it cannot recover, the file reads as empty.
//!
//! TypeScript specifics the lowering settles, so the evaluator need not:
//! - Types are dropped: interfaces, type aliases and `declare` forms are
//!   `Other`; `x as T`, `x!`, `<T>x` and `x satisfies T` are `x`.
//! - `import x = require('m')` and `const x = require('m')` are namespace
//!   imports of `m`.
//! - Class fields with an initialiser (`readonly n = 1`) are assignments to
//!   `this.n` at the start of the constructor, as TypeScript runs them.
//! - `const { a, b: c } = o` is one `Let` per name with a member value;
//!   `const [a, b] = xs` one with an index value.
//! - `for (const [k, v] of xs)` binds each item to a name no program can
//!   write, and `k`, `v` to its elements, as the Python reader does.

use super::syntax::{
    Arg, Expr, ExprKind, Function, Imported, Item, Module, Name, Param, Prop, Stmt, TemplatePart,
};
use super::Parsed;
use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};
use crate::tree::Limits;
use oxc_allocator::Allocator;
use oxc_ast::ast as js;
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

/// Syntax errors reported per file; past that many the file is noise.
const MAX_ERRORS: usize = 20;

/// Parse and lower one TypeScript or JavaScript file; `path` tells which
/// (`.ts`, `.tsx`, `.js`, `.mjs`, `.cjs`). The lowering recurses as deep as
/// the program nests, so it runs on a large stack.
pub fn parse(text: &str, file: FileId, path: &str, limits: &Limits) -> Parsed {
    crate::stack::with_large_stack(|| parse_here(text, file, path, limits))
}

fn parse_here(text: &str, file: FileId, path: &str, limits: &Limits) -> Parsed {
    let mut out = Parsed::default();
    // oxc addresses files with 32-bit offsets.
    if u32::try_from(text.len()).is_err() {
        return out;
    }
    let source_type = SourceType::from_path(path).unwrap_or_else(|_| SourceType::ts());
    let allocator = Allocator::default();
    let ret = Parser::new(&allocator, text, source_type).parse();
    let help = "fix the syntax error; fplint reads the rest of the program as written";
    for d in ret.errors.iter().take(MAX_ERRORS) {
        let span = d
            .labels
            .as_ref()
            .and_then(|l| l.first())
            .map(|l| {
                let start = l.offset().min(text.len());
                let end = (start + l.len().max(1)).min(text.len());
                Span::new(file, start, end.max(start))
            })
            .unwrap_or_else(|| Span::new(file, 0, 0));
        out.diagnostics.push(
            Diagnostic::parse_error(format!("invalid TypeScript: {}", d.message), span)
                .with_label("here")
                .with_help(help),
        );
    }
    let mut lower = Lower {
        file,
        max_depth: limits.max_depth,
        depth: 0,
        too_deep: None,
    };
    out.module = Module {
        body: lower.stmts(&ret.program.body),
    };
    if let Some(span) = lower.too_deep {
        let message = format!(
            "nesting deeper than {} levels (limits.max-depth)",
            limits.max_depth
        );
        let help = crate::frontend::parse_help(&message, "");
        out.diagnostics.push(
            Diagnostic::parse_error(message, span)
                .with_label("here")
                .with_help(help),
        );
    }
    out
}

struct Lower {
    file: FileId,
    max_depth: usize,
    depth: usize,
    too_deep: Option<Span>,
}

fn ident_expr(name: &str, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Name(name.to_string()),
        span,
    }
}

impl Lower {
    fn span(&self, s: oxc_span::Span) -> Span {
        Span::new(self.file, s.start as usize, s.end as usize)
    }

    fn name(&self, text: &str, s: oxc_span::Span) -> Name {
        Name {
            text: text.to_string(),
            span: self.span(s),
        }
    }

    /// Enter one level; `false` (and the place noted) when too deep.
    fn enter(&mut self, s: oxc_span::Span) -> bool {
        if self.depth >= self.max_depth {
            if self.too_deep.is_none() {
                self.too_deep = Some(self.span(s));
            }
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn stmts(&mut self, body: &[js::Statement<'_>]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in body {
            self.stmt(s, &mut out);
        }
        out
    }

    fn stmt(&mut self, s: &js::Statement<'_>, out: &mut Vec<Stmt>) {
        let span = self.span(s.span());
        if !self.enter(s.span()) {
            out.push(Stmt::Other { span });
            return;
        }
        self.stmt_inner(s, span, out);
        self.leave();
    }

    fn stmt_inner(&mut self, s: &js::Statement<'_>, span: Span, out: &mut Vec<Stmt>) {
        use js::Statement as S;
        match s {
            S::ExpressionStatement(e) => self.expr_stmt(&e.expression, span, out),
            S::VariableDeclaration(v) => self.variables(v, false, out),
            S::FunctionDeclaration(f) => out.push(Stmt::Function(self.function(f))),
            S::ClassDeclaration(c) => out.push(self.class(c, false, span)),
            S::ReturnStatement(r) => out.push(Stmt::Return {
                value: r.argument.as_ref().map(|a| self.expr(a)),
                span,
            }),
            S::IfStatement(i) => {
                let test = self.expr(&i.test);
                let then = self.body(&i.consequent);
                let otherwise = i
                    .alternate
                    .as_ref()
                    .map(|a| self.body(a))
                    .unwrap_or_default();
                out.push(Stmt::If {
                    test,
                    then,
                    otherwise,
                    span,
                });
            }
            S::ForOfStatement(f) => self.for_of(&f.left, &f.right, &f.body, span, out),
            S::BlockStatement(b) => out.push(Stmt::Block {
                body: self.stmts(&b.body),
                span,
            }),
            S::TryStatement(t) => {
                // What runs when nothing throws: the block, then `finally`.
                let mut body = self.stmts(&t.block.body);
                if let Some(f) = &t.finalizer {
                    body.extend(self.stmts(&f.body));
                }
                out.push(Stmt::Block { body, span });
            }
            S::ImportDeclaration(i) => {
                let from = i.source.value.to_string();
                let names = i
                    .specifiers
                    .as_ref()
                    .map(|specs| {
                        specs
                            .iter()
                            .map(|sp| match sp {
                                js::ImportDeclarationSpecifier::ImportSpecifier(s) => {
                                    Imported::Named {
                                        name: s.imported.name().to_string(),
                                        local: self.name(&s.local.name, s.local.span),
                                    }
                                }
                                js::ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                                    Imported::Default {
                                        local: self.name(&s.local.name, s.local.span),
                                    }
                                }
                                js::ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                                    Imported::Namespace {
                                        local: self.name(&s.local.name, s.local.span),
                                    }
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                out.push(Stmt::Import { from, names, span });
            }
            S::TSImportEqualsDeclaration(i) => match &i.module_reference {
                js::TSModuleReference::ExternalModuleReference(m) => out.push(Stmt::Import {
                    from: m.expression.value.to_string(),
                    names: vec![Imported::Namespace {
                        local: self.name(&i.id.name, i.id.span),
                    }],
                    span,
                }),
                _ => out.push(Stmt::Other { span }),
            },
            S::ExportNamedDeclaration(e) => match &e.declaration {
                Some(d) => self.declaration(d, span, out),
                None => out.push(Stmt::Other { span }),
            },
            S::ExportDefaultDeclaration(e) => match &e.declaration {
                js::ExportDefaultDeclarationKind::FunctionDeclaration(f) => {
                    out.push(Stmt::Function(self.function(f)))
                }
                js::ExportDefaultDeclarationKind::ClassDeclaration(c) => {
                    out.push(self.class(c, true, span))
                }
                _ => out.push(Stmt::Other { span }),
            },
            _ => out.push(Stmt::Other { span }),
        }
    }

    fn declaration(&mut self, d: &js::Declaration<'_>, span: Span, out: &mut Vec<Stmt>) {
        match d {
            js::Declaration::VariableDeclaration(v) => self.variables(v, true, out),
            js::Declaration::FunctionDeclaration(f) => out.push(Stmt::Function(self.function(f))),
            js::Declaration::ClassDeclaration(c) => out.push(self.class(c, true, span)),
            _ => out.push(Stmt::Other { span }),
        }
    }

    /// A statement in a body position, as a list.
    fn body(&mut self, s: &js::Statement<'_>) -> Vec<Stmt> {
        match s {
            js::Statement::BlockStatement(b) => self.stmts(&b.body),
            other => {
                let mut out = Vec::new();
                self.stmt(other, &mut out);
                out
            }
        }
    }

    fn expr_stmt(&mut self, e: &js::Expression<'_>, span: Span, out: &mut Vec<Stmt>) {
        match e.get_inner_expression() {
            js::Expression::AssignmentExpression(a) => {
                let value = if a.operator == js::AssignmentOperator::Assign {
                    self.expr(&a.right)
                } else {
                    // `x += 1`: the new value is not computed.
                    Expr {
                        kind: ExprKind::Unknown,
                        span,
                    }
                };
                match self.assign_target(&a.left) {
                    Some(target) => out.push(Stmt::Assign {
                        target,
                        value,
                        span,
                    }),
                    None => out.push(Stmt::Other { span }),
                }
            }
            other => out.push(Stmt::Expr(self.expr(other))),
        }
    }

    fn assign_target(&mut self, t: &js::AssignmentTarget<'_>) -> Option<Expr> {
        use js::AssignmentTarget as T;
        match t {
            T::AssignmentTargetIdentifier(id) => Some(ident_expr(&id.name, self.span(id.span))),
            T::StaticMemberExpression(m) => Some(Expr {
                kind: ExprKind::Member {
                    object: Box::new(self.expr(&m.object)),
                    name: self.name(&m.property.name, m.property.span),
                },
                span: self.span(m.span),
            }),
            T::ComputedMemberExpression(m) => Some(Expr {
                kind: ExprKind::Index {
                    object: Box::new(self.expr(&m.object)),
                    index: Box::new(self.expr(&m.expression)),
                },
                span: self.span(m.span),
            }),
            _ => None,
        }
    }

    fn variables(&mut self, v: &js::VariableDeclaration<'_>, exported: bool, out: &mut Vec<Stmt>) {
        if v.declare {
            return;
        }
        for d in &v.declarations {
            let span = self.span(d.span);
            // `const x = require('m')`.
            if let (js::BindingPatternKind::BindingIdentifier(id), Some(init)) =
                (&d.id.kind, &d.init)
            {
                if let Some(from) = require_of(init) {
                    out.push(Stmt::Import {
                        from,
                        names: vec![Imported::Namespace {
                            local: self.name(&id.name, id.span),
                        }],
                        span,
                    });
                    continue;
                }
            }
            let value = d.init.as_ref().map(|e| self.expr(e));
            self.bind_pattern(&d.id, value, exported, span, out);
        }
    }

    /// One `Let` per name a pattern binds, its value reached through
    /// members and indexes of `value`.
    fn bind_pattern(
        &mut self,
        p: &js::BindingPattern<'_>,
        value: Option<Expr>,
        exported: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        use js::BindingPatternKind as K;
        match &p.kind {
            K::BindingIdentifier(id) => out.push(Stmt::Let {
                name: self.name(&id.name, id.span),
                value,
                exported,
                span,
            }),
            K::AssignmentPattern(a) => {
                // `const { a = 1 } = o`: `o.a ?? 1`.
                let default = self.expr(&a.right);
                let value = value.map(|v| Expr {
                    span: v.span,
                    kind: ExprKind::Binary {
                        op: "??".into(),
                        left: Box::new(v),
                        right: Box::new(default),
                    },
                });
                self.bind_pattern(&a.left, value, exported, span, out);
            }
            K::ObjectPattern(o) => {
                for prop in &o.properties {
                    let key = prop.key.static_name();
                    let v = match (&value, key) {
                        (Some(v), Some(k)) if !prop.computed => Some(Expr {
                            span: self.span(prop.span),
                            kind: ExprKind::Member {
                                object: Box::new(v.clone()),
                                name: self.name(&k, prop.key.span()),
                            },
                        }),
                        (Some(_), _) => Some(Expr {
                            span: self.span(prop.span),
                            kind: ExprKind::Unknown,
                        }),
                        (None, _) => None,
                    };
                    self.bind_pattern(&prop.value, v, exported, span, out);
                }
                if let Some(rest) = &o.rest {
                    let v = value.as_ref().map(|v| Expr {
                        span: v.span,
                        kind: ExprKind::Unknown,
                    });
                    self.bind_pattern(&rest.argument, v, exported, span, out);
                }
            }
            K::ArrayPattern(a) => {
                for (i, el) in a.elements.iter().enumerate() {
                    let Some(el) = el else { continue };
                    let v = value.as_ref().map(|v| Expr {
                        span: self.span(el.span()),
                        kind: ExprKind::Index {
                            object: Box::new(v.clone()),
                            index: Box::new(Expr {
                                kind: ExprKind::Num(i.to_string()),
                                span: self.span(el.span()),
                            }),
                        },
                    });
                    self.bind_pattern(el, v, exported, span, out);
                }
                if let Some(rest) = &a.rest {
                    let v = value.as_ref().map(|v| Expr {
                        span: v.span,
                        kind: ExprKind::Unknown,
                    });
                    self.bind_pattern(&rest.argument, v, exported, span, out);
                }
            }
        }
    }

    fn for_of(
        &mut self,
        left: &js::ForStatementLeft<'_>,
        right: &js::Expression<'_>,
        body: &js::Statement<'_>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let iter = self.expr(right);
        let pattern = match left {
            js::ForStatementLeft::VariableDeclaration(v) => v.declarations.first().map(|d| &d.id),
            _ => None,
        };
        let Some(pattern) = pattern else {
            out.push(Stmt::Other { span });
            return;
        };
        match &pattern.kind {
            js::BindingPatternKind::BindingIdentifier(id) => {
                let binding = self.name(&id.name, id.span);
                let body = self.body(body);
                out.push(Stmt::For {
                    binding,
                    iter,
                    body,
                    span,
                });
            }
            _ => {
                let item = Name {
                    text: "$item".to_string(),
                    span: self.span(pattern.span()),
                };
                let mut lets = Vec::new();
                let value = ident_expr(&item.text, item.span);
                self.bind_pattern(pattern, Some(value), false, item.span, &mut lets);
                lets.extend(self.body(body));
                out.push(Stmt::For {
                    binding: item,
                    iter,
                    body: lets,
                    span,
                });
            }
        }
    }

    fn params(&mut self, params: &js::FormalParameters<'_>) -> Vec<Param> {
        let mut out = Vec::new();
        for p in &params.items {
            let (pattern, default) = match &p.pattern.kind {
                js::BindingPatternKind::AssignmentPattern(a) => {
                    (&a.left, Some(self.expr(&a.right)))
                }
                _ => (&p.pattern, None),
            };
            let name = match &pattern.kind {
                js::BindingPatternKind::BindingIdentifier(id) => self.name(&id.name, id.span),
                // A destructured parameter binds nothing the evaluator follows.
                _ => self.name("$pattern", pattern.span()),
            };
            out.push(Param {
                name,
                default,
                rest: false,
                keywords: false,
            });
        }
        if let Some(rest) = &params.rest {
            if let js::BindingPatternKind::BindingIdentifier(id) = &rest.argument.kind {
                out.push(Param {
                    name: self.name(&id.name, id.span),
                    default: None,
                    rest: true,
                    keywords: false,
                });
            }
        }
        out
    }

    fn function(&mut self, f: &js::Function<'_>) -> Function {
        Function {
            name: f.id.as_ref().map(|id| self.name(&id.name, id.span)),
            params: self.params(&f.params),
            body: f
                .body
                .as_ref()
                .map(|b| self.stmts(&b.statements))
                .unwrap_or_default(),
            span: self.span(f.span),
        }
    }

    fn arrow(&mut self, a: &js::ArrowFunctionExpression<'_>) -> Function {
        let params = self.params(&a.params);
        let body = if a.expression {
            // An expression body is one `return`.
            match a.body.statements.first() {
                Some(js::Statement::ExpressionStatement(e)) => vec![Stmt::Return {
                    value: Some(self.expr(&e.expression)),
                    span: self.span(e.span),
                }],
                _ => Vec::new(),
            }
        } else {
            self.stmts(&a.body.statements)
        };
        Function {
            name: None,
            params,
            body,
            span: self.span(a.span),
        }
    }

    fn class(&mut self, c: &js::Class<'_>, exported: bool, span: Span) -> Stmt {
        let Some(id) = &c.id else {
            return Stmt::Other { span };
        };
        let name = self.name(&id.name, id.span);
        let extends = c.super_class.as_ref().map(|e| self.expr(e));
        let mut members = Vec::new();
        // Field initialisers run first in the constructor.
        let mut fields = Vec::new();
        for el in &c.body.body {
            match el {
                js::ClassElement::MethodDefinition(m) => {
                    let Some(key) = m.key.static_name() else {
                        continue;
                    };
                    let mut f = self.function(&m.value);
                    f.name = Some(self.name(&key, m.key.span()));
                    members.push(f);
                }
                js::ClassElement::PropertyDefinition(p) if !p.r#static => {
                    let (Some(key), Some(value)) = (p.key.static_name(), &p.value) else {
                        continue;
                    };
                    let at = self.span(p.span);
                    fields.push(Stmt::Assign {
                        target: Expr {
                            kind: ExprKind::Member {
                                object: Box::new(Expr {
                                    kind: ExprKind::This,
                                    span: at,
                                }),
                                name: self.name(&key, p.key.span()),
                            },
                            span: at,
                        },
                        value: self.expr(value),
                        span: at,
                    });
                }
                _ => {}
            }
        }
        if !fields.is_empty() {
            match members
                .iter_mut()
                .find(|f| f.name.as_ref().is_some_and(|n| n.text == "constructor"))
            {
                Some(ctor) => {
                    // After `super(…)` when there is one.
                    let at = ctor
                        .body
                        .iter()
                        .position(is_super_call)
                        .map_or(0, |i| i + 1);
                    for (k, f) in fields.into_iter().enumerate() {
                        ctor.body.insert(at + k, f);
                    }
                }
                None => {
                    // The implicit constructor passes its arguments on.
                    let rest = Name {
                        text: "args".into(),
                        span,
                    };
                    let mut body = vec![Stmt::Expr(Expr {
                        kind: ExprKind::Call {
                            callee: Box::new(ident_expr("super", span)),
                            args: vec![Arg::Spread(ident_expr("args", span))],
                        },
                        span,
                    })];
                    body.extend(fields);
                    members.push(Function {
                        name: Some(Name {
                            text: "constructor".into(),
                            span,
                        }),
                        params: vec![Param {
                            name: rest,
                            default: None,
                            rest: true,
                            keywords: false,
                        }],
                        body,
                        span,
                    });
                }
            }
        }
        Stmt::Class {
            name,
            extends,
            members,
            exported,
            span,
        }
    }

    fn args(&mut self, args: &[js::Argument<'_>]) -> Vec<Arg> {
        args.iter()
            .map(|a| match a {
                js::Argument::SpreadElement(s) => Arg::Spread(self.expr(&s.argument)),
                other => match other.as_expression() {
                    Some(e) => Arg::Positional(self.expr(e)),
                    None => Arg::Positional(Expr {
                        kind: ExprKind::Unknown,
                        span: self.span(other.span()),
                    }),
                },
            })
            .collect()
    }

    fn expr(&mut self, e: &js::Expression<'_>) -> Expr {
        let span = self.span(e.span());
        if !self.enter(e.span()) {
            return Expr {
                kind: ExprKind::Unknown,
                span,
            };
        }
        let kind = self.expr_kind(e, span);
        self.leave();
        Expr { kind, span }
    }

    fn expr_kind(&mut self, e: &js::Expression<'_>, span: Span) -> ExprKind {
        use js::Expression as E;
        match e {
            E::StringLiteral(s) => ExprKind::Str(s.value.to_string()),
            E::NumericLiteral(n) => ExprKind::Num(
                n.raw
                    .as_ref()
                    .map_or_else(|| super::eval::number_text(n.value), |r| r.to_string()),
            ),
            E::BooleanLiteral(b) => ExprKind::Bool(b.value),
            E::NullLiteral(_) => ExprKind::Null,
            E::Identifier(id) if id.name == "undefined" => ExprKind::Undefined,
            E::Identifier(id) => ExprKind::Name(id.name.to_string()),
            E::ThisExpression(_) => ExprKind::This,
            E::Super(_) => ExprKind::Name("super".into()),
            E::TemplateLiteral(t) => {
                let mut parts = Vec::new();
                for (i, q) in t.quasis.iter().enumerate() {
                    match &q.value.cooked {
                        Some(c) if !c.is_empty() => parts.push(TemplatePart::Text(c.to_string())),
                        Some(_) => {}
                        None => return ExprKind::Unknown,
                    }
                    if let Some(x) = t.expressions.get(i) {
                        parts.push(TemplatePart::Expr(self.expr(x)));
                    }
                }
                if parts.iter().all(|p| matches!(p, TemplatePart::Text(_))) {
                    let mut s = String::new();
                    for p in parts {
                        if let TemplatePart::Text(t) = p {
                            s.push_str(&t);
                        }
                    }
                    ExprKind::Str(s)
                } else {
                    ExprKind::Template(parts)
                }
            }
            E::ArrayExpression(a) => {
                let mut items = Vec::new();
                for el in &a.elements {
                    match el {
                        js::ArrayExpressionElement::SpreadElement(s) => {
                            items.push(Item::Spread(self.expr(&s.argument)))
                        }
                        js::ArrayExpressionElement::Elision(el) => items.push(Item::Expr(Expr {
                            kind: ExprKind::Undefined,
                            span: self.span(el.span),
                        })),
                        other => match other.as_expression() {
                            Some(x) => items.push(Item::Expr(self.expr(x))),
                            None => items.push(Item::Expr(Expr {
                                kind: ExprKind::Unknown,
                                span,
                            })),
                        },
                    }
                }
                ExprKind::Array(items)
            }
            E::ObjectExpression(o) => {
                let mut props = Vec::new();
                for p in &o.properties {
                    match p {
                        js::ObjectPropertyKind::SpreadProperty(s) => {
                            props.push(Prop::Spread(self.expr(&s.argument)))
                        }
                        js::ObjectPropertyKind::ObjectProperty(p) => {
                            let key = if p.computed {
                                match p.key.as_expression().map(|k| k.get_inner_expression()) {
                                    Some(E::StringLiteral(s)) => Some(self.name(&s.value, s.span)),
                                    _ => None,
                                }
                            } else {
                                p.key.static_name().map(|k| self.name(&k, p.key.span()))
                            };
                            let value = match &p.value {
                                E::FunctionExpression(f) if p.method => Expr {
                                    kind: ExprKind::Function(Box::new(self.function(f))),
                                    span: self.span(f.span),
                                },
                                v => self.expr(v),
                            };
                            props.push(Prop::KeyValue { key, value });
                        }
                    }
                }
                ExprKind::Object(props)
            }
            E::ArrowFunctionExpression(a) => ExprKind::Function(Box::new(self.arrow(a))),
            E::FunctionExpression(f) => ExprKind::Function(Box::new(self.function(f))),
            E::BinaryExpression(b) => ExprKind::Binary {
                op: b.operator.as_str().to_string(),
                left: Box::new(self.expr(&b.left)),
                right: Box::new(self.expr(&b.right)),
            },
            E::LogicalExpression(l) => ExprKind::Binary {
                op: l.operator.as_str().to_string(),
                left: Box::new(self.expr(&l.left)),
                right: Box::new(self.expr(&l.right)),
            },
            E::UnaryExpression(u) => ExprKind::Unary {
                op: u.operator.as_str().to_string(),
                operand: Box::new(self.expr(&u.argument)),
            },
            E::ConditionalExpression(c) => ExprKind::Conditional {
                test: Box::new(self.expr(&c.test)),
                then: Box::new(self.expr(&c.consequent)),
                otherwise: Box::new(self.expr(&c.alternate)),
            },
            E::CallExpression(c) => ExprKind::Call {
                callee: Box::new(self.expr(&c.callee)),
                args: self.args(&c.arguments),
            },
            E::NewExpression(n) => ExprKind::New {
                callee: Box::new(self.expr(&n.callee)),
                args: self.args(&n.arguments),
            },
            E::StaticMemberExpression(m) => ExprKind::Member {
                object: Box::new(self.expr(&m.object)),
                name: self.name(&m.property.name, m.property.span),
            },
            E::ComputedMemberExpression(m) => match m.expression.get_inner_expression() {
                E::StringLiteral(s) => ExprKind::Member {
                    object: Box::new(self.expr(&m.object)),
                    name: self.name(&s.value, s.span),
                },
                _ => ExprKind::Index {
                    object: Box::new(self.expr(&m.object)),
                    index: Box::new(self.expr(&m.expression)),
                },
            },
            E::ChainExpression(c) => match &c.expression {
                js::ChainElement::CallExpression(call) => ExprKind::Call {
                    callee: Box::new(self.expr(&call.callee)),
                    args: self.args(&call.arguments),
                },
                js::ChainElement::StaticMemberExpression(m) => ExprKind::Member {
                    object: Box::new(self.expr(&m.object)),
                    name: self.name(&m.property.name, m.property.span),
                },
                js::ChainElement::ComputedMemberExpression(m) => ExprKind::Index {
                    object: Box::new(self.expr(&m.object)),
                    index: Box::new(self.expr(&m.expression)),
                },
                js::ChainElement::TSNonNullExpression(n) => self.expr(&n.expression).kind,
                _ => ExprKind::Unknown,
            },
            // Parentheses and type assertions are the expression inside.
            E::ParenthesizedExpression(p) => self.expr(&p.expression).kind,
            E::TSAsExpression(x) => self.expr(&x.expression).kind,
            E::TSSatisfiesExpression(x) => self.expr(&x.expression).kind,
            E::TSTypeAssertion(x) => self.expr(&x.expression).kind,
            E::TSNonNullExpression(x) => self.expr(&x.expression).kind,
            E::TSInstantiationExpression(x) => self.expr(&x.expression).kind,
            _ => ExprKind::Unknown,
        }
    }
}

/// `require('m')`: the module it names.
fn require_of(e: &js::Expression<'_>) -> Option<String> {
    let js::Expression::CallExpression(c) = e.get_inner_expression() else {
        return None;
    };
    let js::Expression::Identifier(id) = &c.callee else {
        return None;
    };
    if id.name != "require" || c.arguments.len() != 1 {
        return None;
    }
    match c.arguments.first()?.as_expression()? {
        js::Expression::StringLiteral(s) => Some(s.value.to_string()),
        _ => None,
    }
}

fn is_super_call(s: &Stmt) -> bool {
    matches!(s, Stmt::Expr(Expr { kind: ExprKind::Call { callee, .. }, .. })
        if matches!(&callee.kind, ExprKind::Name(n) if n == "super"))
}
