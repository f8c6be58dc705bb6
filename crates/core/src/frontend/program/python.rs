//! Python programs (CDK, Pulumi) read with tree-sitter's Python grammar and
//! lowered to [`syntax`](super::syntax). tree-sitter recovers from syntax
//! errors: each `ERROR` or missing node is an FP000 at its place, and the
//! statements around it are still read.
//!
//! Python specifics the lowering settles, so the evaluator need not:
//! - `import a.b` binds `a` (the top package); `import a.b as c` binds `c`
//!   to `a.b`.
//! - `from aws_cdk import aws_eks` names a module when a library's lowercase
//!   name is imported (`aws_cdk`, `pulumi*`): it becomes a namespace import
//!   of `aws_cdk.aws_eks`. Anything else (`from .stack import make`) stays a
//!   named import, so the program's own functions resolve.
//! - Module-level bindings are `exported` (Python modules export every name).
//! - Keyword arguments keep their names as written (snake case).

use super::syntax::{
    Arg, Expr, ExprKind, Function, Imported, Item, Name, Param, Prop, Stmt, TemplatePart,
};
use super::Parsed;
use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};
use crate::tree::Limits;
use tree_sitter::{Node, Parser};

/// Syntax errors reported per file; past that many the file is noise.
const MAX_ERRORS: usize = 20;

/// Top-level packages whose lowercase members imported with `from … import`
/// are modules (`from aws_cdk import aws_eks`, `from pulumi_aws import eks`).
fn library_module(module: &str) -> bool {
    let top = module.split('.').next().unwrap_or("");
    top == "aws_cdk" || top == "pulumi" || top.starts_with("pulumi_")
}

/// Parse and lower one Python file. The lowering recurses as deep as the
/// program nests, so it runs on a large stack.
pub fn parse(text: &str, file: FileId, limits: &Limits) -> Parsed {
    crate::stack::with_large_stack(|| parse_here(text, file, limits))
}

fn parse_here(text: &str, file: FileId, limits: &Limits) -> Parsed {
    let mut out = Parsed::default();
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        return out;
    }
    let Some(tree) = parser.parse(text, None) else {
        return out;
    };
    let root = tree.root_node();
    syntax_errors(root, file, text.len(), &mut out.diagnostics);
    let mut lower = Lower {
        text,
        file,
        max_depth: limits.max_depth,
        depth: 0,
        too_deep: None,
    };
    out.module.body = lower.block(root, true);
    if let Some(span) = lower.too_deep {
        out.diagnostics.push(super::too_deep(limits, span));
    }
    out
}

/// Every `ERROR` and missing node, outermost first, walked without recursion.
fn syntax_errors(root: Node, file: FileId, len: usize, out: &mut Vec<Diagnostic>) {
    if !root.has_error() {
        return;
    }
    let help = "fix the syntax error; fplint reads the rest of the program as written";
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_missing() {
            let at = node.start_byte();
            let span = Span::new(file, at, (at + 1).min(len));
            out.push(
                Diagnostic::parse_error(
                    format!("invalid Python: expected `{}`", node.kind()),
                    span,
                )
                .with_label("here")
                .with_help(help),
            );
            descend = false;
        } else if node.is_error() {
            out.push(
                Diagnostic::parse_error(
                    "invalid Python syntax",
                    Span::new(file, node.start_byte(), node.end_byte()),
                )
                .with_label("here")
                .with_help(help),
            );
            descend = false;
        }
        if out.len() >= MAX_ERRORS {
            return;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Named children, comments left out.
/// The names a target binds (`a`, `(b, [c])`, `*d`), in order.
fn identifiers<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    match node.kind() {
        "identifier" => out.push(node),
        "attribute" | "subscript" => {}
        _ => {
            for c in children(node) {
                identifiers(c, out);
            }
        }
    }
}

fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| !c.is_extra())
        .collect()
}

struct Lower<'a> {
    text: &'a str,
    file: FileId,
    max_depth: usize,
    depth: usize,
    /// Where nesting first passed the limit.
    too_deep: Option<Span>,
}

impl Lower<'_> {
    fn span(&self, node: Node) -> Span {
        Span::new(self.file, node.start_byte(), node.end_byte())
    }

    fn src(&self, node: Node) -> &str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    fn name(&self, node: Node) -> Name {
        Name {
            text: self.src(node).to_string(),
            span: self.span(node),
        }
    }

    /// One more level of nesting, or `false` (and the place noted) past the limit.
    fn enter(&mut self, node: Node) -> bool {
        if self.depth >= self.max_depth {
            if self.too_deep.is_none() {
                self.too_deep = Some(self.span(node));
            }
            return false;
        }
        self.depth += 1;
        true
    }

    /// The statements of a module or block.
    fn block(&mut self, node: Node, top: bool) -> Vec<Stmt> {
        let mut out = Vec::new();
        for child in children(node) {
            self.stmt(child, top, &mut out);
        }
        out
    }

    /// The statements of the block in `field`, if any. `top`: the block
    /// binds module-level names (an `if` or `for` at the top of a module).
    fn body(&mut self, node: Node, field: &str, top: bool) -> Vec<Stmt> {
        match node.child_by_field_name(field) {
            Some(b) => self.block(b, top),
            None => Vec::new(),
        }
    }

    fn stmt(&mut self, node: Node, top: bool, out: &mut Vec<Stmt>) {
        if !self.enter(node) {
            out.push(Stmt::Other {
                span: self.span(node),
            });
            return;
        }
        self.stmt_inner(node, top, out);
        self.depth -= 1;
    }

    fn stmt_inner(&mut self, node: Node, top: bool, out: &mut Vec<Stmt>) {
        let span = self.span(node);
        match node.kind() {
            "import_statement" => self.import(node, out),
            "import_from_statement" => self.import_from(node, out),
            "expression_statement" => {
                let kids = children(node);
                match kids.as_slice() {
                    [one] if one.kind() == "assignment" => self.assignment(*one, top, out),
                    // `x += 1` changes `x` to what the evaluator does not
                    // compute: its target becomes unknown.
                    [one] if one.kind() == "augmented_assignment" => {
                        match one.child_by_field_name("left") {
                            Some(left) => out.push(Stmt::Assign {
                                target: self.expr(left),
                                value: Expr {
                                    kind: ExprKind::Unknown,
                                    span,
                                },
                                span,
                            }),
                            None => out.push(Stmt::Other { span }),
                        }
                    }
                    [one] if one.kind() == "yield" => out.push(Stmt::Other { span }),
                    [one] => out.push(Stmt::Expr(self.expr(*one))),
                    _ => out.push(Stmt::Other { span }),
                }
            }
            "function_definition" => out.push(Stmt::Function(self.function(node))),
            "class_definition" => out.push(self.class(node, top)),
            "decorated_definition" => match node.child_by_field_name("definition") {
                Some(def) => self.stmt_inner(def, top, out),
                None => out.push(Stmt::Other { span }),
            },
            "if_statement" => out.push(self.if_stmt(node, top)),
            "for_statement" => {
                let left = node.child_by_field_name("left");
                let right = node.child_by_field_name("right");
                match (left, right) {
                    (Some(l), Some(r)) if l.kind() == "identifier" => {
                        let binding = self.name(l);
                        let iter = self.expr(r);
                        let body = self.body(node, "body", top);
                        out.push(Stmt::For {
                            binding,
                            iter,
                            body,
                            span,
                        });
                    }
                    // `for a, b in pairs:` binds each item to a name no
                    // Python name can be, and `a`, `b` to its elements.
                    (Some(l), Some(r))
                        if matches!(l.kind(), "pattern_list" | "tuple_pattern")
                            && children(l).iter().all(|n| n.kind() == "identifier") =>
                    {
                        let item = Name {
                            text: "$item".to_string(),
                            span: self.span(l),
                        };
                        let mut body: Vec<Stmt> = children(l)
                            .into_iter()
                            .enumerate()
                            .map(|(i, n)| {
                                let name = self.name(n);
                                let at = name.span;
                                Stmt::Let {
                                    value: Some(Expr {
                                        kind: ExprKind::Index {
                                            object: Box::new(Expr {
                                                kind: ExprKind::Name(item.text.clone()),
                                                span: item.span,
                                            }),
                                            index: Box::new(Expr {
                                                kind: ExprKind::Num(i.to_string()),
                                                span: at,
                                            }),
                                        },
                                        span: at,
                                    }),
                                    name,
                                    exported: false,
                                    span: at,
                                }
                            })
                            .collect();
                        body.extend(self.body(node, "body", top));
                        out.push(Stmt::For {
                            binding: item,
                            iter: self.expr(r),
                            body,
                            span,
                        });
                    }
                    _ => out.push(Stmt::Other { span }),
                }
            }
            "with_statement" => {
                let body = self.body(node, "body", top);
                out.push(Stmt::Block { body, span });
            }
            "try_statement" => {
                // What runs when nothing raises: the body, `else`, `finally`.
                let mut body = self.body(node, "body", top);
                for clause in children(node) {
                    match clause.kind() {
                        "else_clause" => body.extend(self.body(clause, "body", top)),
                        "finally_clause" => {
                            for b in children(clause) {
                                if b.kind() == "block" {
                                    body.extend(self.block(b, top));
                                }
                            }
                        }
                        _ => {}
                    }
                }
                out.push(Stmt::Block { body, span });
            }
            "return_statement" => {
                let value = children(node).first().map(|v| self.expr(*v));
                out.push(Stmt::Return { value, span });
            }
            "pass_statement" => {}
            // Statements tree-sitter kept whole inside a syntax error are
            // still read.
            "ERROR" => {
                for child in children(node) {
                    let kind = child.kind();
                    if kind.ends_with("_statement") || kind.ends_with("_definition") {
                        self.stmt(child, top, out);
                    }
                }
                out.push(Stmt::Other { span });
            }
            _ => out.push(Stmt::Other { span }),
        }
    }

    fn import(&mut self, node: Node, out: &mut Vec<Stmt>) {
        let span = self.span(node);
        let mut cursor = node.walk();
        let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
        for n in names {
            match n.kind() {
                // `import a.b` binds `a`.
                "dotted_name" => {
                    let Some(first) = children(n).into_iter().next() else {
                        continue;
                    };
                    let local = self.name(first);
                    out.push(Stmt::Import {
                        from: local.text.clone(),
                        names: vec![Imported::Namespace { local }],
                        span,
                    });
                }
                "aliased_import" => {
                    let (Some(module), Some(alias)) = (
                        n.child_by_field_name("name"),
                        n.child_by_field_name("alias"),
                    ) else {
                        continue;
                    };
                    out.push(Stmt::Import {
                        from: self.dotted(module),
                        names: vec![Imported::Namespace {
                            local: self.name(alias),
                        }],
                        span,
                    });
                }
                _ => {}
            }
        }
    }

    /// A dotted name or relative import as written, without spaces.
    fn dotted(&self, node: Node) -> String {
        self.src(node)
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '\\')
            .collect()
    }

    fn import_from(&mut self, node: Node, out: &mut Vec<Stmt>) {
        let span = self.span(node);
        let Some(module) = node.child_by_field_name("module_name") else {
            out.push(Stmt::Other { span });
            return;
        };
        let from = self.dotted(module);
        let relative = module.kind() == "relative_import";
        let mut cursor = node.walk();
        let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
        let mut named = Vec::new();
        for n in names {
            let (name, local) = match n.kind() {
                "dotted_name" => (n, n),
                "aliased_import" => match (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("alias"),
                ) {
                    (Some(name), Some(alias)) => (name, alias),
                    _ => continue,
                },
                _ => continue,
            };
            let text = self.dotted(name);
            let module_like = !relative
                && library_module(&from)
                && text.starts_with(|c: char| c.is_ascii_lowercase())
                && !text.contains('.');
            if module_like {
                out.push(Stmt::Import {
                    from: format!("{from}.{text}"),
                    names: vec![Imported::Namespace {
                        local: self.name(local),
                    }],
                    span,
                });
            } else {
                named.push(Imported::Named {
                    name: text,
                    local: self.name(local),
                });
            }
        }
        // `from m import *` binds names nobody can list: an import of nothing.
        if !named.is_empty() || out.is_empty() {
            out.push(Stmt::Import {
                from,
                names: named,
                span,
            });
        }
    }

    fn assignment(&mut self, node: Node, top: bool, out: &mut Vec<Stmt>) {
        let span = self.span(node);
        // `a = b = v`: every target gets `v`.
        let mut targets = Vec::new();
        let mut at = node;
        let value = loop {
            let Some(left) = at.child_by_field_name("left") else {
                out.push(Stmt::Other { span });
                return;
            };
            targets.push(left);
            match at.child_by_field_name("right") {
                Some(r) if r.kind() == "assignment" => at = r,
                Some(r) if r.kind() == "augmented_assignment" || r.kind() == "yield" => {
                    out.push(Stmt::Other { span });
                    return;
                }
                Some(r) => break Some(self.expr(r)),
                None => break None,
            }
        };
        for target in targets {
            match target.kind() {
                "identifier" => out.push(Stmt::Let {
                    name: self.name(target),
                    value: value.clone(),
                    exported: top,
                    span,
                }),
                "attribute" | "subscript" => match &value {
                    Some(v) => out.push(Stmt::Assign {
                        target: self.expr(target),
                        value: v.clone(),
                        span,
                    }),
                    None => out.push(Stmt::Other { span }),
                },
                // `a, b = pair`: each name gets its element.
                "pattern_list" | "tuple_pattern"
                    if children(target).iter().all(|n| n.kind() == "identifier") =>
                {
                    for (i, n) in children(target).into_iter().enumerate() {
                        let name = self.name(n);
                        let at = name.span;
                        out.push(Stmt::Let {
                            value: value.clone().map(|v| Expr {
                                span: at,
                                kind: ExprKind::Index {
                                    object: Box::new(v),
                                    index: Box::new(Expr {
                                        kind: ExprKind::Num(i.to_string()),
                                        span: at,
                                    }),
                                },
                            }),
                            name,
                            exported: top,
                            span,
                        });
                    }
                }
                // Bindings not followed: each name they bind is unknown.
                _ => {
                    let mut names = Vec::new();
                    identifiers(target, &mut names);
                    if names.is_empty() {
                        out.push(Stmt::Other { span });
                    }
                    for n in names {
                        let name = self.name(n);
                        out.push(Stmt::Let {
                            value: Some(Expr {
                                kind: ExprKind::Unknown,
                                span: name.span,
                            }),
                            name,
                            exported: top,
                            span,
                        });
                    }
                }
            }
        }
    }

    fn function(&mut self, node: Node) -> Function {
        let name = node.child_by_field_name("name").map(|n| self.name(n));
        let params = match node.child_by_field_name("parameters") {
            Some(p) => self.params(p),
            None => Vec::new(),
        };
        let body = self.body(node, "body", false);
        Function {
            name,
            params,
            body,
            span: self.span(node),
        }
    }

    fn params(&mut self, node: Node) -> Vec<Param> {
        let mut out = Vec::new();
        for p in children(node) {
            let plain = |name: Name| Param {
                name,
                default: None,
                rest: false,
                keywords: false,
            };
            match p.kind() {
                "identifier" => out.push(plain(self.name(p))),
                "default_parameter" | "typed_default_parameter" => {
                    let Some(n) = p.child_by_field_name("name") else {
                        continue;
                    };
                    if n.kind() != "identifier" {
                        continue;
                    }
                    let mut param = plain(self.name(n));
                    param.default = p.child_by_field_name("value").map(|v| self.expr(v));
                    out.push(param);
                }
                "typed_parameter" => {
                    if let Some(inner) = children(p).into_iter().next() {
                        if let Some(param) = self.splat_param(inner) {
                            out.push(param);
                        }
                    }
                }
                _ => {
                    if let Some(param) = self.splat_param(p) {
                        out.push(param);
                    }
                }
            }
        }
        out
    }

    /// `name`, `*args` or `**kwargs`.
    fn splat_param(&self, node: Node) -> Option<Param> {
        let (inner, rest, keywords) = match node.kind() {
            "identifier" => (node, false, false),
            "list_splat_pattern" => (children(node).into_iter().next()?, true, false),
            "dictionary_splat_pattern" => (children(node).into_iter().next()?, false, true),
            _ => return None,
        };
        (inner.kind() == "identifier").then(|| Param {
            name: self.name(inner),
            default: None,
            rest,
            keywords,
        })
    }

    fn class(&mut self, node: Node, top: bool) -> Stmt {
        let span = self.span(node);
        let Some(name) = node.child_by_field_name("name").map(|n| self.name(n)) else {
            return Stmt::Other { span };
        };
        let extends = node.child_by_field_name("superclasses").and_then(|s| {
            children(s)
                .into_iter()
                .find(|a| a.kind() != "keyword_argument")
                .map(|a| self.expr(a))
        });
        let mut members = Vec::new();
        if let Some(body) = node.child_by_field_name("body") {
            for m in children(body) {
                let def = match m.kind() {
                    "decorated_definition" => m.child_by_field_name("definition"),
                    _ => Some(m),
                };
                if let Some(def) = def.filter(|d| d.kind() == "function_definition") {
                    if self.enter(def) {
                        members.push(self.function(def));
                        self.depth -= 1;
                    }
                }
            }
        }
        Stmt::Class {
            name,
            extends,
            members,
            exported: top,
            span,
        }
    }

    fn if_stmt(&mut self, node: Node, top: bool) -> Stmt {
        let span = self.span(node);
        let test = match node.child_by_field_name("condition") {
            Some(c) => self.expr(c),
            None => self.unknown(node),
        };
        let then = self.body(node, "consequence", top);
        let mut cursor = node.walk();
        let alternatives: Vec<Node> = node
            .children_by_field_name("alternative", &mut cursor)
            .collect();
        // `elif` chains nest from the last clause up.
        let mut otherwise = Vec::new();
        for alt in alternatives.into_iter().rev() {
            match alt.kind() {
                "else_clause" => otherwise = self.body(alt, "body", top),
                "elif_clause" => {
                    let test = match alt.child_by_field_name("condition") {
                        Some(c) => self.expr(c),
                        None => self.unknown(alt),
                    };
                    let then = self.body(alt, "consequence", top);
                    let span = Span::new(self.file, alt.start_byte(), node.end_byte());
                    otherwise = vec![Stmt::If {
                        test,
                        then,
                        otherwise,
                        span,
                    }];
                }
                _ => {}
            }
        }
        Stmt::If {
            test,
            then,
            otherwise,
            span,
        }
    }

    fn unknown(&self, node: Node) -> Expr {
        Expr {
            kind: ExprKind::Unknown,
            span: self.span(node),
        }
    }

    fn expr(&mut self, node: Node) -> Expr {
        if !self.enter(node) {
            return self.unknown(node);
        }
        let e = self.expr_inner(node);
        self.depth -= 1;
        e
    }

    fn boxed(&mut self, node: Option<Node>, parent: Node) -> Box<Expr> {
        Box::new(match node {
            Some(n) => self.expr(n),
            None => self.unknown(parent),
        })
    }

    fn expr_inner(&mut self, node: Node) -> Expr {
        let span = self.span(node);
        let kind = match node.kind() {
            "identifier" => match self.src(node) {
                "self" => ExprKind::This,
                name => ExprKind::Name(name.to_string()),
            },
            "string" => self.string(node),
            "concatenated_string" => {
                let mut parts = Vec::new();
                for s in children(node) {
                    match self.string(s) {
                        ExprKind::Str(text) => parts.push(TemplatePart::Text(text)),
                        ExprKind::Template(p) => parts.extend(p),
                        _ => {
                            return Expr {
                                kind: ExprKind::Unknown,
                                span,
                            }
                        }
                    }
                }
                super::template_or_str(parts)
            }
            "integer" | "float" => ExprKind::Num(self.src(node).to_string()),
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            "none" => ExprKind::Null,
            "attribute" => {
                match (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("attribute"),
                ) {
                    (Some(o), Some(a)) => ExprKind::Member {
                        object: Box::new(self.expr(o)),
                        name: self.name(a),
                    },
                    _ => ExprKind::Unknown,
                }
            }
            "subscript" => {
                let mut cursor = node.walk();
                let subs: Vec<Node> = node
                    .children_by_field_name("subscript", &mut cursor)
                    .collect();
                match (node.child_by_field_name("value"), subs.as_slice()) {
                    (Some(v), [s]) if s.kind() != "slice" => ExprKind::Index {
                        object: Box::new(self.expr(v)),
                        index: Box::new(self.expr(*s)),
                    },
                    _ => ExprKind::Unknown,
                }
            }
            "call" => {
                let callee = self.boxed(node.child_by_field_name("function"), node);
                let args = match node.child_by_field_name("arguments") {
                    Some(a) if a.kind() == "argument_list" => self.args(a),
                    Some(a) => vec![Arg::Positional(self.unknown(a))],
                    None => Vec::new(),
                };
                ExprKind::Call { callee, args }
            }
            "dictionary" => {
                let mut props = Vec::new();
                for p in children(node) {
                    match p.kind() {
                        "pair" => {
                            let key = p.child_by_field_name("key").and_then(|k| {
                                match self.expr(k).kind {
                                    ExprKind::Str(text) => Some(Name {
                                        text,
                                        span: self.span(k),
                                    }),
                                    _ => None,
                                }
                            });
                            let value = match p.child_by_field_name("value") {
                                Some(v) => self.expr(v),
                                None => self.unknown(p),
                            };
                            props.push(Prop::KeyValue { key, value });
                        }
                        "dictionary_splat" => props.push(Prop::Spread(self.first_expr(p))),
                        _ => {
                            // A comprehension or an error inside: nothing is known.
                            return Expr {
                                kind: ExprKind::Unknown,
                                span,
                            };
                        }
                    }
                }
                ExprKind::Object(props)
            }
            // `return a, b` and `x = a, b` make a tuple.
            "list" | "tuple" | "expression_list" => {
                let mut items = Vec::new();
                for i in children(node) {
                    match i.kind() {
                        "list_splat" => items.push(Item::Spread(self.first_expr(i))),
                        _ => items.push(Item::Expr(self.expr(i))),
                    }
                }
                ExprKind::Array(items)
            }
            "lambda" => {
                let params = match node.child_by_field_name("parameters") {
                    Some(p) => self.params(p),
                    None => Vec::new(),
                };
                let value = node.child_by_field_name("body").map(|b| self.expr(b));
                ExprKind::Function(Box::new(Function {
                    name: None,
                    params,
                    body: vec![Stmt::Return { value, span }],
                    span,
                }))
            }
            "boolean_operator" => {
                let op = match node.child_by_field_name("operator").map(|o| o.kind()) {
                    Some("and") => "&&",
                    Some("or") => "||",
                    _ => return self.unknown(node),
                };
                ExprKind::Binary {
                    op: op.to_string(),
                    left: self.boxed(node.child_by_field_name("left"), node),
                    right: self.boxed(node.child_by_field_name("right"), node),
                }
            }
            "binary_operator" => {
                let Some(op) = node.child_by_field_name("operator") else {
                    return self.unknown(node);
                };
                ExprKind::Binary {
                    op: op.kind().to_string(),
                    left: self.boxed(node.child_by_field_name("left"), node),
                    right: self.boxed(node.child_by_field_name("right"), node),
                }
            }
            "not_operator" => ExprKind::Unary {
                op: "!".to_string(),
                operand: self.boxed(node.child_by_field_name("argument"), node),
            },
            "unary_operator" => {
                let Some(op) = node.child_by_field_name("operator") else {
                    return self.unknown(node);
                };
                ExprKind::Unary {
                    op: op.kind().to_string(),
                    operand: self.boxed(node.child_by_field_name("argument"), node),
                }
            }
            "comparison_operator" => self.comparison(node),
            "conditional_expression" => match children(node).as_slice() {
                [then, test, otherwise] => ExprKind::Conditional {
                    test: Box::new(self.expr(*test)),
                    then: Box::new(self.expr(*then)),
                    otherwise: Box::new(self.expr(*otherwise)),
                },
                _ => ExprKind::Unknown,
            },
            "parenthesized_expression" => match children(node).as_slice() {
                [inner] if inner.kind() != "yield" && inner.kind() != "list_splat" => {
                    return self.expr(*inner)
                }
                _ => ExprKind::Unknown,
            },
            _ => ExprKind::Unknown,
        };
        Expr { kind, span }
    }

    /// The expression inside `*x` or `**x`.
    fn first_expr(&mut self, node: Node) -> Expr {
        match children(node).into_iter().next() {
            Some(e) => self.expr(e),
            None => self.unknown(node),
        }
    }

    fn args(&mut self, node: Node) -> Vec<Arg> {
        let mut out = Vec::new();
        for a in children(node) {
            out.push(match a.kind() {
                "keyword_argument" => {
                    match (
                        a.child_by_field_name("name"),
                        a.child_by_field_name("value"),
                    ) {
                        (Some(n), Some(v)) => Arg::Keyword(self.name(n), self.expr(v)),
                        _ => Arg::Positional(self.unknown(a)),
                    }
                }
                "list_splat" => Arg::Spread(self.first_expr(a)),
                "dictionary_splat" => Arg::KeywordSpread(self.first_expr(a)),
                _ => Arg::Positional(self.expr(a)),
            });
        }
        out
    }

    /// `a == b`, `a in b`, `a not in b`, `a is b`; a chain is unknown.
    fn comparison(&mut self, node: Node) -> ExprKind {
        let operands = children(node);
        let mut cursor = node.walk();
        let ops: Vec<Node> = node
            .children_by_field_name("operators", &mut cursor)
            .collect();
        let ([left, right], [op]) = (operands.as_slice(), ops.as_slice()) else {
            return ExprKind::Unknown;
        };
        let (op, negate) = match op.kind() {
            "not in" => ("in", true),
            "is" => ("===", false),
            "is not" => ("!==", false),
            "<>" => ("!=", false),
            other => (other, false),
        };
        let binary = ExprKind::Binary {
            op: op.to_string(),
            left: Box::new(self.expr(*left)),
            right: Box::new(self.expr(*right)),
        };
        if negate {
            ExprKind::Unary {
                op: "!".to_string(),
                operand: Box::new(Expr {
                    kind: binary,
                    span: self.span(node),
                }),
            }
        } else {
            binary
        }
    }

    /// A string or f-string: its text unescaped, interpolations as parts.
    fn string(&mut self, node: Node) -> ExprKind {
        if node.kind() != "string" {
            return ExprKind::Unknown;
        }
        let kids = {
            let mut cursor = node.walk();
            node.children(&mut cursor).collect::<Vec<_>>()
        };
        let prefix = kids
            .iter()
            .find(|k| k.kind() == "string_start")
            .map(|k| self.src(*k).to_ascii_lowercase())
            .unwrap_or_default();
        let raw = prefix.contains('r');
        let format = prefix.contains('f');
        // A t-string (Python 3.14) is a Template object, not text.
        if prefix.contains('t') {
            return ExprKind::Unknown;
        }
        let start = kids
            .iter()
            .find(|k| k.kind() == "string_start")
            .map_or(node.start_byte(), |k| k.end_byte());
        let end = kids
            .iter()
            .find(|k| k.kind() == "string_end" && !k.is_missing())
            .map_or(node.end_byte(), |k| k.start_byte());
        let mut parts = Vec::new();
        let mut at = start;
        for k in kids.iter().filter(|k| k.kind() == "interpolation") {
            let text = self.text.get(at..k.start_byte()).unwrap_or("");
            if !text.is_empty() {
                parts.push(TemplatePart::Text(unescape(text, raw, format)));
            }
            let simple = k.child_by_field_name("format_specifier").is_none()
                && k.child_by_field_name("type_conversion").is_none();
            let value = match k.child_by_field_name("expression") {
                Some(e) if simple => self.expr(e),
                _ => self.unknown(*k),
            };
            parts.push(TemplatePart::Expr(value));
            at = k.end_byte();
        }
        if at < end {
            let text = self.text.get(at..end).unwrap_or("");
            parts.push(TemplatePart::Text(unescape(text, raw, format)));
        }
        super::template_or_str(parts)
    }
}

/// A keyword argument's name as the construct prop it sets: jsii (CDK) and
/// Pulumi name Python keywords by snake-casing the camel-case prop
/// (`default_profile` is `defaultProfile`, `pod_execution_role_arn` is
/// `podExecutionRoleArn`).
pub fn prop_name(keyword: &str) -> String {
    let mut out = String::with_capacity(keyword.len());
    let mut upper = false;
    for (i, c) in keyword.chars().enumerate() {
        if c == '_' && i > 0 {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The keyword arguments of a call to a library construct or struct
/// (`eks.Selector(namespace="x")`, `FargateCluster(self, "C", version=v)`)
/// as the one props object the TypeScript form passes, keys camel-cased;
/// `**props` spreads into it. `None` when the call has no keywords.
pub fn keyword_props(args: &[Arg], span: Span) -> Option<Expr> {
    let mut props = Vec::new();
    for arg in args {
        match arg {
            Arg::Keyword(name, value) => props.push(Prop::KeyValue {
                key: Some(Name {
                    text: prop_name(&name.text),
                    span: name.span,
                }),
                value: value.clone(),
            }),
            Arg::KeywordSpread(value) => props.push(Prop::Spread(value.clone())),
            Arg::Positional(_) | Arg::Spread(_) => {}
        }
    }
    (!props.is_empty()).then_some(Expr {
        kind: ExprKind::Object(props),
        span,
    })
}

/// Python's escapes (`\n`, `\x41`, `\u00e9`, `\N{…}` kept as written), and
/// `{{`/`}}` in f-strings. A raw string keeps its backslashes.
fn unescape(text: &str, raw: bool, format: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '}' if format && chars.peek() == Some(&c) => {
                chars.next();
                out.push(c);
            }
            '\\' if !raw => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                match e {
                    '\n' => {}
                    '\\' => out.push('\\'),
                    '\'' => out.push('\''),
                    '"' => out.push('"'),
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    '0'..='7' => {
                        let mut value = e.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            match chars.peek().and_then(|d| d.to_digit(8)) {
                                Some(d) => {
                                    value = value * 8 + d;
                                    chars.next();
                                }
                                None => break,
                            }
                        }
                        out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
                    }
                    'x' | 'u' | 'U' => {
                        let len = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let digits: String = chars.clone().take(len).collect();
                        match (digits.len() == len)
                            .then(|| u32::from_str_radix(&digits, 16).ok())
                            .flatten()
                            .and_then(char::from_u32)
                        {
                            Some(ch) => {
                                for _ in 0..len {
                                    chars.next();
                                }
                                out.push(ch);
                            }
                            None => {
                                out.push('\\');
                                out.push(e);
                            }
                        }
                    }
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[path = "python_tests.rs"]
mod tests;
