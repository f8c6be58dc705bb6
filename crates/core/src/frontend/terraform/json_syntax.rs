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
