//! Terraform's JSON syntax (`.tf.json`). The JSON is rewritten as native
//! HCL text for the one parser and evaluator, with a map from each emitted
//! token back to the JSON node it came from; [`super::eval::span_of`] uses the
//! map, so every span points into the JSON file.
//!
//! JSON has no blocks: Terraform tells a block from an attribute by the
//! provider's schema. Without schemas, a key of a resource body is a nested
//! block when its name is one of the block types the readers look at and
//! its value is an object (or a list of objects, one block each).

use crate::source::{FileId, Span};
use crate::tree::{Node, NodeKind, ScalarStyle};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// (start, end) in the HCL text, (start, end) in the JSON text.
type Seg = (usize, usize, usize, usize);

thread_local! {
    static REMAP: RefCell<HashMap<FileId, Arc<Vec<Seg>>>> = RefCell::new(HashMap::new());
    /// Whether any map is registered: spans of `.tf` files skip the lookup.
    static ACTIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Nested block types in resource and data bodies, as the readers know them.
const BLOCKS: &[&str] = &[
    "selector",
    "vpc_config",
    "scaling_config",
    "compute_config",
    "access_config",
    "kubernetes_network_config",
    "remote_access",
    "launch_template",
    "taint",
    "update_config",
    "set",
    "set_sensitive",
    "set_list",
    "metadata",
    "spec",
    "template",
    "container",
    "init_container",
    "toleration",
    "resources",
    "env",
    "port",
    "security_context",
    "node_selector_term",
    "statement",
    "principals",
    "condition",
    "content",
    "ebs",
    "block_device_mappings",
    "pod_identity_association",
];

/// The HCL text of a `.tf.json` file and its span map, or `None` when the
/// JSON is not a Terraform configuration (not an object).
pub fn translate(root: &Node) -> Option<(String, Vec<Seg>)> {
    let NodeKind::Map(entries) = &root.kind else {
        return None;
    };
    let mut out = Out::default();
    for e in entries {
        let Some(kind) = key_name(&e.key) else {
            continue;
        };
        match kind {
            "resource" | "data" => out.blocks(kind, &e.key, 2, &e.value, Body::Resource, &[]),
            "module" | "variable" | "output" | "provider" => {
                out.blocks(kind, &e.key, 1, &e.value, Body::Attributes, &[])
            }
            "locals" => out.blocks(kind, &e.key, 0, &e.value, Body::Attributes, &[]),
            "terraform" => out.blocks(kind, &e.key, 0, &e.value, Body::Terraform, &[]),
            _ => {}
        }
    }
    Some((out.text, out.segs))
}

/// Remember a file's span map on this thread, for [`remap`].
pub fn register(file: FileId, segs: Vec<Seg>) {
    REMAP.with(|m| m.borrow_mut().insert(file, Arc::new(segs)));
    ACTIVE.with(|a| a.set(true));
}

/// Forget the span maps of this thread (the unit is done).
pub fn clear() {
    REMAP.with(|m| m.borrow_mut().clear());
    ACTIVE.with(|a| a.set(false));
}

/// Whether `file` is a `.tf.json` file read as HCL text made from it.
pub fn is_translated(file: FileId) -> bool {
    ACTIVE.with(|a| a.get()) && REMAP.with(|m| m.borrow().contains_key(&file))
}

/// An HCL range of a translated file as a range of its JSON text; other
/// files' ranges as they are.
pub fn remap(file: FileId, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
    if !ACTIVE.with(|a| a.get()) {
        return r;
    }
    REMAP.with(|m| {
        let m = m.borrow();
        let Some(segs) = m.get(&file) else {
            return r.clone();
        };
        let at = |o: usize, end: bool| -> usize {
            let i = segs.partition_point(|s| s.0 <= o);
            // An end offset at a token's start belongs to the token before.
            let i = if end && i > 0 && segs[i - 1].0 == o && i > 1 {
                i - 1
            } else {
                i
            };
            match i.checked_sub(1).and_then(|j| segs.get(j)) {
                None => segs.first().map_or(0, |s| s.2),
                Some(&(hs, he, js, je)) if o <= he => {
                    // Inside a token: proportionally, within its JSON node.
                    let into = o - hs;
                    if he == hs || into == 0 {
                        js
                    } else if o == he {
                        je
                    } else {
                        (js + into).min(je)
                    }
                }
                Some(&(_, _, _, je)) => je,
            }
        };
        let start = at(r.start, false);
        let end = at(r.end, true).max(start);
        start..end
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Body {
    /// Resource and data bodies: some keys are nested blocks.
    Resource,
    /// Module, variable, output, provider, locals: attributes only.
    Attributes,
    /// `terraform`: `backend "s3"` and `cloud` blocks, attributes otherwise.
    Terraform,
}

#[derive(Default)]
struct Out {
    text: String,
    segs: Vec<Seg>,
}

fn key_name(k: &Node) -> Option<&str> {
    match &k.kind {
        NodeKind::Scalar(s, _) => Some(s),
        _ => None,
    }
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '-')
}

/// A JSON string as an HCL quoted template: `${...}` stays a template, as
/// Terraform reads JSON strings.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for ch in s.chars() {
        match ch {
            '\\' => q.push_str("\\\\"),
            '"' => q.push_str("\\\""),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            c if (c as u32) < 0x20 => q.push_str(&format!("\\u{:04x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

impl Out {
    fn tok(&mut self, text: &str, orig: Span) {
        let start = self.text.len();
        self.text.push_str(text);
        self.segs.push((
            start,
            self.text.len(),
            orig.start as usize,
            orig.end as usize,
        ));
    }

    fn glue(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// `ident "label"... { body }`, for each object the labels lead to.
    fn blocks(
        &mut self,
        ident: &str,
        ident_key: &Node,
        labels_left: usize,
        value: &Node,
        body: Body,
        labels: &[&Node],
    ) {
        match &value.kind {
            NodeKind::Seq(items) => {
                for it in items {
                    self.blocks(ident, ident_key, labels_left, it, body, labels);
                }
            }
            NodeKind::Map(entries) if labels_left > 0 => {
                for e in entries {
                    let mut l = labels.to_vec();
                    l.push(&e.key);
                    self.blocks(ident, ident_key, labels_left - 1, &e.value, body, &l);
                }
            }
            NodeKind::Map(entries) => {
                // The block starts at its innermost label (the name), the
                // place a reader of the JSON knows it by.
                let at = labels.last().map_or(ident_key.span, |l| l.span);
                self.tok(ident, at);
                for l in labels {
                    let Some(name) = key_name(l) else { return };
                    self.glue(" ");
                    self.tok(&quote(name), l.span);
                }
                self.glue(" ");
                self.tok(
                    "{",
                    Span::new(
                        value.span.file,
                        value.span.start as usize,
                        value.span.start as usize + 1,
                    ),
                );
                self.glue("\n");
                self.body(ident, entries, body);
                let end = value.span.end as usize;
                self.tok("}", Span::new(value.span.file, end.saturating_sub(1), end));
                self.glue("\n");
            }
            _ => {}
        }
    }

    fn body(&mut self, ident: &str, entries: &[crate::tree::Entry], body: Body) {
        for e in entries {
            let Some(k) = key_name(&e.key) else { continue };
            if k == "//" || !is_ident(k) {
                continue;
            }
            let objects = match &e.value.kind {
                NodeKind::Map(_) => true,
                NodeKind::Seq(items) => {
                    !items.is_empty() && items.iter().all(|i| matches!(i.kind, NodeKind::Map(_)))
                }
                NodeKind::Scalar(..) => false,
            };
            match body {
                Body::Resource if k == "dynamic" => {
                    self.blocks(k, &e.key, 1, &e.value, Body::Resource, &[]);
                }
                Body::Resource if k == "lifecycle" || k == "provisioner" || k == "connection" => {}
                Body::Resource if objects && BLOCKS.contains(&k) => {
                    self.blocks(k, &e.key, 0, &e.value, Body::Resource, &[]);
                }
                Body::Terraform if k == "backend" => {
                    self.blocks(k, &e.key, 1, &e.value, Body::Attributes, &[]);
                }
                Body::Terraform if objects => {
                    self.blocks(k, &e.key, 0, &e.value, Body::Attributes, &[]);
                }
                _ if k == "depends_on" => {
                    self.tok(k, e.key.span);
                    self.glue(" = ");
                    self.references(&e.value);
                    self.glue("\n");
                }
                _ => {
                    // `variable` bodies: `type` is written as a string in JSON.
                    if ident == "variable" && k != "default" {
                        continue;
                    }
                    self.tok(k, e.key.span);
                    self.glue(" = ");
                    self.expr(&e.value);
                    self.glue("\n");
                }
            }
        }
    }

    /// `depends_on = ["module.eks"]`: references written as strings.
    fn references(&mut self, v: &Node) {
        let NodeKind::Seq(items) = &v.kind else {
            self.glue("[]");
            return;
        };
        self.glue("[");
        let mut first = true;
        for it in items {
            let NodeKind::Scalar(s, _) = &it.kind else {
                continue;
            };
            let ok = !s.is_empty()
                && s.split('.').all(|p| {
                    let p = p.split('[').next().unwrap_or(p);
                    is_ident(p)
                })
                && !s.contains(['"', '\\', '$', '{', '}', '(', ')', ' ']);
            if !ok {
                continue;
            }
            if !first {
                self.glue(", ");
            }
            first = false;
            self.tok(s, it.span);
        }
        self.glue("]");
    }

    fn expr(&mut self, v: &Node) {
        match &v.kind {
            NodeKind::Scalar(s, ScalarStyle::Quoted) => self.tok(&quote(s), v.span),
            NodeKind::Scalar(s, _) => {
                let ok = s.parse::<f64>().is_ok() || matches!(&**s, "true" | "false" | "null");
                self.tok(if ok { s } else { "null" }, v.span);
            }
            NodeKind::Seq(items) => {
                self.tok(
                    "[",
                    Span::new(
                        v.span.file,
                        v.span.start as usize,
                        v.span.start as usize + 1,
                    ),
                );
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        self.glue(", ");
                    }
                    self.expr(it);
                }
                let end = v.span.end as usize;
                self.tok("]", Span::new(v.span.file, end.saturating_sub(1), end));
            }
            NodeKind::Map(entries) => {
                self.tok(
                    "{",
                    Span::new(
                        v.span.file,
                        v.span.start as usize,
                        v.span.start as usize + 1,
                    ),
                );
                self.glue("\n");
                for e in entries {
                    let Some(k) = key_name(&e.key) else { continue };
                    self.tok(&quote(k), e.key.span);
                    self.glue(" = ");
                    self.expr(&e.value);
                    self.glue("\n");
                }
                let end = v.span.end as usize;
                self.tok("}", Span::new(v.span.file, end.saturating_sub(1), end));
            }
        }
    }
}

/// Whether a JSON document is `terraform show -json` output of a plan.
pub fn is_plan(doc: &Node) -> bool {
    doc.get("format_version").is_some() && doc.get("planned_values").is_some()
}

/// A plan's `planned_values` as HCL resource blocks, every value resolved,
/// with `depends_on` from `configuration` (its `depends_on` and the
/// references of each expression), mapped back to the plan's JSON.
pub fn translate_plan(doc: &Node) -> Option<(String, Vec<Seg>)> {
    let root = doc.get("planned_values")?.get("root_module")?;
    let mut planned: Vec<(String, &Node)> = Vec::new();
    collect_planned(root, &mut planned, 0);
    // Block names: the address made an identifier, unique in the file.
    let mut names: Vec<(String, String, String)> = Vec::new(); // (type, name, config address)
    let mut seen = std::collections::HashSet::new();
    for (addr, r) in &planned {
        let rtype = r.get("type").and_then(Node::scalar).unwrap_or_default();
        let mut name: String = addr
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        name = format!("r_{}", name.trim_matches('_'));
        while !seen.insert(name.clone()) {
            name.push('_');
        }
        names.push((rtype.to_string(), name, config_address(addr)));
    }
    let config = doc.get("configuration").and_then(|c| c.get("root_module"));
    let mut deps: HashMap<String, Vec<String>> = HashMap::new();
    if let Some(c) = config {
        collect_config(c, "", &mut deps, 0);
    }
    let mut out = Out::default();
    for ((_, r), (rtype, name, caddr)) in planned.iter().zip(&names) {
        if r.get("mode").and_then(Node::scalar) != Some("managed") || !is_ident(rtype) {
            continue;
        }
        let Some(values) = r.get("values") else {
            continue;
        };
        let NodeKind::Map(entries) = &values.kind else {
            continue;
        };
        let at = r.get("address").map_or(r.span, |a| a.span);
        out.tok("resource", at);
        out.glue(&format!(" \"{rtype}\" "));
        out.tok(&quote(name), at);
        out.glue(" ");
        out.tok(
            "{",
            Span::new(
                r.span.file,
                r.span.start as usize,
                r.span.start as usize + 1,
            ),
        );
        out.glue("\n");
        out.body("resource", entries, Body::Resource);
        // What this resource waits for: the blocks of every address its
        // configuration names (a module's: every block inside it).
        let mut after: Vec<&str> = Vec::new();
        for full in deps.get(caddr).into_iter().flatten() {
            let inside = format!("{full}.");
            for (t2, n2, c2) in &names {
                let hit = c2 == full || (full.starts_with("module.") && c2.starts_with(&inside));
                if hit && c2 != caddr && is_ident(t2) {
                    after.push(n2);
                }
            }
        }
        after.sort();
        after.dedup();
        if !after.is_empty() {
            let list: Vec<String> = after
                .iter()
                .filter_map(|n| {
                    names
                        .iter()
                        .find(|x| x.1 == *n)
                        .map(|(t, n, _)| crate::path::dot(t, n))
                })
                .collect();
            out.glue(&format!("depends_on = [{}]\n", list.join(", ")));
        }
        let end = r.span.end as usize;
        out.tok("}", Span::new(r.span.file, end.saturating_sub(1), end));
        out.glue("\n");
    }
    Some((out.text, out.segs))
}

/// The configuration address of a planned instance: instance keys dropped.
pub(super) fn config_address(addr: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut in_str = false;
    for c in addr.chars() {
        match c {
            '"' if depth > 0 => in_str = !in_str,
            '[' if !in_str => depth += 1,
            ']' if !in_str => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Every resource of a plan's `planned_values`, with its object's span.
pub fn planned_resources(doc: &Node) -> Vec<crate::model::PlannedResource> {
    let Some(root) = doc.get("planned_values").and_then(|p| p.get("root_module")) else {
        return Vec::new();
    };
    let mut planned: Vec<(String, &Node)> = Vec::new();
    collect_planned(root, &mut planned, 0);
    planned
        .into_iter()
        .map(|(address, r)| crate::model::PlannedResource {
            config: config_address(&address),
            address,
            span: r.span,
        })
        .collect()
}

fn collect_planned<'n>(m: &'n Node, out: &mut Vec<(String, &'n Node)>, depth: usize) {
    if depth > 16 {
        return;
    }
    if let Some(NodeKind::Seq(rs)) = m.get("resources").map(|r| &r.kind) {
        for r in rs {
            if let Some(a) = r.get("address").and_then(Node::scalar) {
                out.push((a.to_string(), r));
            }
        }
    }
    if let Some(NodeKind::Seq(cs)) = m.get("child_modules").map(|r| &r.kind) {
        for c in cs {
            collect_planned(c, out, depth + 1);
        }
    }
}

/// Configuration address → what it refers to (relative to its module).
fn collect_config(m: &Node, prefix: &str, deps: &mut HashMap<String, Vec<String>>, depth: usize) {
    if depth > 16 {
        return;
    }
    if let Some(NodeKind::Seq(rs)) = m.get("resources").map(|r| &r.kind) {
        for r in rs {
            let Some(a) = r.get("address").and_then(Node::scalar) else {
                continue;
            };
            let mut refs = Vec::new();
            if let Some(NodeKind::Seq(d)) = r.get("depends_on").map(|d| &d.kind) {
                refs.extend(d.iter().filter_map(Node::scalar).map(ref_target));
            }
            if let Some(e) = r.get("expressions") {
                references(e, &mut refs, 0);
            }
            deps.entry(format!("{prefix}{a}"))
                .or_default()
                .extend(refs.into_iter().map(|r| format!("{prefix}{r}")));
        }
    }
    if let Some(NodeKind::Map(calls)) = m.get("module_calls").map(|c| &c.kind) {
        for e in calls {
            let Some(name) = key_name(&e.key) else {
                continue;
            };
            let p = format!("{prefix}module.{name}.");
            // A call's own depends_on holds for everything inside it.
            let mut call_refs = Vec::new();
            if let Some(NodeKind::Seq(d)) = e.value.get("depends_on").map(|d| &d.kind) {
                call_refs.extend(
                    d.iter()
                        .filter_map(Node::scalar)
                        .map(|r| format!("{prefix}{}", ref_target(r))),
                );
            }
            if let Some(inner) = e.value.get("module") {
                let before: Vec<String> = deps.keys().cloned().collect();
                collect_config(inner, &p, deps, depth + 1);
                if !call_refs.is_empty() {
                    for (k, v) in deps.iter_mut() {
                        if k.starts_with(&p) && !before.contains(k) {
                            v.extend(call_refs.iter().cloned());
                        }
                    }
                }
            }
        }
    }
}

/// `aws_eks_cluster.this.name` → `aws_eks_cluster.this`; `module.eks.x` → `module.eks`.
fn ref_target(r: &str) -> String {
    let parts: Vec<&str> = r.split('.').collect();
    let n = if parts.first() == Some(&"data") { 3 } else { 2 };
    config_address(&parts[..parts.len().min(n)].join("."))
}

fn references(e: &Node, out: &mut Vec<String>, depth: usize) {
    if depth > 32 {
        return;
    }
    match &e.kind {
        NodeKind::Map(entries) => {
            for x in entries {
                if key_name(&x.key) == Some("references") {
                    if let NodeKind::Seq(rs) = &x.value.kind {
                        out.extend(
                            rs.iter()
                                .filter_map(Node::scalar)
                                .filter(|r| !r.starts_with("var.") && !r.starts_with("local."))
                                .map(ref_target),
                        );
                    }
                } else {
                    references(&x.value, out, depth + 1);
                }
            }
        }
        NodeKind::Seq(items) => items.iter().for_each(|i| references(i, out, depth + 1)),
        NodeKind::Scalar(..) => {}
    }
}
