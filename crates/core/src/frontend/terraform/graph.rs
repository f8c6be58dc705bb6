//! The dependencies Terraform orders a module by: references and
//! `depends_on`, through locals, with module outputs tracked one by one for
//! the EKS module (`module.eks.fargate_profiles` orders after the profiles,
//! `module.eks.cluster_name` does not, `depends_on = [module.eks]` does).

use super::eks_module::Kind;
use super::eval::{span_of, Decls};
use super::label;
use crate::model::{DependencyGraph, Loc};
use crate::path::concat;
use crate::source::FileId;
use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block, Body, Structure};
use hcl_edit::template::{Directive, Element, Template};
use hcl_edit::Span as _;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// A reference: `aws_eks_cluster.this.name` is root `aws_eks_cluster`, attrs `[this, name]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ref {
    pub root: String,
    pub attrs: Vec<String>,
}

pub fn refs_of_expr(e: &Expression) -> Vec<Ref> {
    let mut out = Vec::new();
    walk_expr(e, &mut out, 0);
    out
}

pub fn refs_of_body(b: &Body) -> Vec<Ref> {
    let mut out = Vec::new();
    walk_body(b, &mut out, 0);
    out
}

const MAX_WALK: usize = 256;

fn walk_body(b: &Body, out: &mut Vec<Ref>, depth: usize) {
    if depth > MAX_WALK {
        return;
    }
    for s in b.iter() {
        match s {
            Structure::Attribute(a) => walk_expr(&a.value, out, depth + 1),
            Structure::Block(bl) => walk_body(&bl.body, out, depth + 1),
        }
    }
}

fn walk_template(t: &Template, out: &mut Vec<Ref>, depth: usize) {
    for el in t.iter() {
        match el {
            Element::Interpolation(i) => walk_expr(&i.expr, out, depth + 1),
            Element::Directive(d) => match &**d {
                Directive::If(i) => {
                    walk_expr(&i.if_expr.cond_expr, out, depth + 1);
                    walk_template(&i.if_expr.template, out, depth + 1);
                    if let Some(e) = &i.else_expr {
                        walk_template(&e.template, out, depth + 1);
                    }
                }
                Directive::For(f) => {
                    walk_expr(&f.for_expr.collection_expr, out, depth + 1);
                    walk_template(&f.for_expr.template, out, depth + 1);
                }
            },
            Element::Literal(_) => {}
        }
    }
}

fn walk_expr(e: &Expression, out: &mut Vec<Ref>, depth: usize) {
    if depth > MAX_WALK {
        return;
    }
    let d = depth + 1;
    match e {
        Expression::Traversal(t) => {
            if let Expression::Variable(v) = &t.expr {
                let mut attrs = Vec::new();
                for op in &t.operators {
                    match op.value() {
                        TraversalOperator::GetAttr(n) if attrs.len() < 3 => {
                            attrs.push(n.as_str().to_string())
                        }
                        _ => break,
                    }
                }
                out.push(Ref {
                    root: v.as_str().to_string(),
                    attrs,
                });
            } else {
                walk_expr(&t.expr, out, d);
            }
            for op in &t.operators {
                if let TraversalOperator::Index(i) = op.value() {
                    walk_expr(i, out, d);
                }
            }
        }
        Expression::Variable(v) => out.push(Ref {
            root: v.as_str().to_string(),
            attrs: Vec::new(),
        }),
        Expression::Array(a) => a.iter().for_each(|x| walk_expr(x, out, d)),
        Expression::Object(o) => {
            for (k, val) in o.iter() {
                if let ObjectKey::Expression(ke) = k {
                    if !matches!(ke, Expression::Variable(_)) {
                        walk_expr(ke, out, d);
                    }
                }
                walk_expr(val.expr(), out, d);
            }
        }
        Expression::StringTemplate(t) => walk_template(t, out, d),
        Expression::HeredocTemplate(h) => walk_template(&h.template, out, d),
        Expression::Parenthesis(p) => walk_expr(p.inner(), out, d),
        Expression::Conditional(c) => {
            walk_expr(&c.cond_expr, out, d);
            walk_expr(&c.true_expr, out, d);
            walk_expr(&c.false_expr, out, d);
        }
        Expression::FuncCall(f) => f.args.iter().for_each(|x| walk_expr(x, out, d)),
        Expression::UnaryOp(u) => walk_expr(&u.expr, out, d),
        Expression::BinaryOp(b) => {
            walk_expr(&b.lhs_expr, out, d);
            walk_expr(&b.rhs_expr, out, d);
        }
        Expression::ForExpr(f) => {
            walk_expr(&f.intro.collection_expr, out, d);
            if let Some(k) = &f.key_expr {
                walk_expr(k, out, d);
            }
            walk_expr(&f.value_expr, out, d);
            if let Some(c) = &f.cond {
                walk_expr(&c.expr, out, d);
            }
        }
        Expression::Null(_)
        | Expression::Bool(_)
        | Expression::Number(_)
        | Expression::String(_) => {}
    }
}

#[derive(Default)]
pub struct GraphBuilder {
    graph: DependencyGraph,
    nodes: HashMap<String, u32>,
}

pub fn profiles_node(module_addr: &str) -> String {
    crate::path::dot(module_addr, "fargate_profiles")
}

fn outputs_node(module_addr: &str) -> String {
    crate::path::concat(&[module_addr, "#outputs"])
}

impl GraphBuilder {
    pub fn node(&self, addr: &str) -> Option<u32> {
        self.nodes.get(addr).copied()
    }

    fn add(&mut self, addr: String, loc: Loc) -> u32 {
        if let Some(&n) = self.nodes.get(&addr) {
            return n;
        }
        let n = self.graph.add_node(addr.clone(), loc);
        self.nodes.insert(addr, n);
        n
    }

    pub fn add_nodes(
        &mut self,
        blocks: &[(&Block, FileId)],
        prefix: &str,
        kinds: &HashMap<String, Kind>,
        decls: &Decls<'_>,
    ) {
        let mut owners: Vec<(Vec<u32>, &Block)> = Vec::new();
        for (b, file) in blocks {
            let loc = Loc::new(span_of(*file, b.span()).unwrap_or_default(), "");
            let addr = match (b.ident.as_str(), label(b, 0), label(b, 1)) {
                ("resource", Some(t), Some(n)) => concat(&[prefix, t, ".", n]),
                ("data", Some(t), Some(n)) => concat(&[prefix, "data.", t, ".", n]),
                ("module", Some(n), _) => concat(&[prefix, "module.", n]),
                // A local module's outputs, which the caller refers to one by one.
                ("output", Some(n), _) => concat(&[prefix, "output.", n]),
                _ => continue,
            };
            let mut mine = vec![self.add(addr.clone(), loc.clone())];
            if b.ident.as_str() == "module" {
                let kind = label(b, 0).and_then(|n| kinds.get(n));
                if kind.is_some_and(Kind::has_profiles) {
                    let p = self.add(profiles_node(&addr), loc.clone());
                    let o = self.add(outputs_node(&addr), loc);
                    self.graph.add_edge(mine[0], p);
                    self.graph.add_edge(mine[0], o);
                    self.graph.add_edge(p, o);
                    mine.push(o);
                }
            }
            owners.push((mine, b));
        }
        let mut local_memo: HashMap<String, Vec<Ref>> = HashMap::default();
        for (mine, b) in owners {
            let mut refs = refs_of_body(&b.body);
            expand_locals(&mut refs, decls, &mut local_memo);
            for r in refs {
                if let Some(t) = self.target(&r, prefix, kinds) {
                    for &m in &mine {
                        if m != t {
                            self.graph.add_edge(m, t);
                        }
                    }
                }
            }
        }
    }

    fn target(&mut self, r: &Ref, prefix: &str, kinds: &HashMap<String, Kind>) -> Option<u32> {
        let a = |i: usize| r.attrs.get(i).map(String::as_str);
        let addr = match r.root.as_str() {
            "var" | "local" | "each" | "count" | "path" | "terraform" | "self" => return None,
            "data" => concat(&[prefix, "data.", a(0)?, ".", a(1)?]),
            "module" => {
                let m = a(0)?;
                let base = concat(&[prefix, "module.", m]);
                match (kinds.get(m), a(1)) {
                    (Some(k), Some(out)) if k.has_profiles() => {
                        if out.starts_with("fargate_profile") {
                            profiles_node(&base)
                        } else {
                            outputs_node(&base)
                        }
                    }
                    (Some(Kind::Local(_)), Some(out)) => {
                        // Created now, filled when the module is read.
                        let addr = concat(&[&base, ".output.", out]);
                        let loc = self
                            .node(&base)
                            .and_then(|n| self.graph.nodes.get(n as usize))
                            .map(|n| n.loc.clone())
                            .unwrap_or_default();
                        let o = self.add(addr, loc);
                        if let Some(m) = self.node(&base) {
                            self.graph.add_edge(m, o);
                        }
                        return Some(o);
                    }
                    _ => base,
                }
            }
            t => concat(&[prefix, t, ".", a(0)?]),
        };
        self.node(&addr)
    }

    /// What a local module block depends on (its inputs and its own
    /// `depends_on`), everything inside it depends on: a release in a module
    /// called with `depends_on = [module.eks]` waits for the profiles.
    pub fn inherit(&mut self, module_addr: &str, child_prefix: &str) {
        let Some(m) = self.node(module_addr) else {
            return;
        };
        let inner: Vec<u32> = self
            .nodes
            .iter()
            .filter(|(k, _)| k.starts_with(child_prefix))
            .map(|(_, &n)| n)
            .collect();
        let outer: Vec<u32> = self
            .graph
            .direct(m)
            .iter()
            .copied()
            .filter(|t| !inner.contains(t))
            .collect();
        for &n in &inner {
            for &t in &outer {
                if n != t {
                    self.graph.add_edge(n, t);
                }
            }
        }
    }

    /// `depends_on = [module.x]` orders after everything inside a local module.
    pub fn link_module(&mut self, module_addr: &str, child_prefix: &str) {
        let Some(m) = self.node(module_addr) else {
            return;
        };
        let inner: Vec<u32> = self
            .nodes
            .iter()
            .filter(|(k, _)| k.starts_with(child_prefix))
            .map(|(_, &n)| n)
            .collect();
        for n in inner {
            self.graph.add_edge(m, n);
        }
    }

    pub fn finish(self) -> DependencyGraph {
        self.graph
    }
}

/// Replace `local.x` references by what the local refers to, transitively.
fn expand_locals(refs: &mut Vec<Ref>, decls: &Decls<'_>, memo: &mut HashMap<String, Vec<Ref>>) {
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::default();
    let mut stack: Vec<Ref> = std::mem::take(refs);
    while let Some(r) = stack.pop() {
        if r.root == "local" {
            let Some(name) = r.attrs.first() else {
                continue;
            };
            if !seen.insert(name.clone()) || seen.len() > 10_000 {
                continue;
            }
            if let Some(m) = memo.get(name) {
                stack.extend(m.iter().cloned());
                continue;
            }
            if let Some((_, e)) = decls.locals.get(name) {
                let inner = refs_of_expr(e);
                memo.insert(name.clone(), inner.clone());
                stack.extend(inner);
            }
        } else {
            out.push(r);
        }
    }
    *refs = out;
}
