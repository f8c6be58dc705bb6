//! Walking a spanned document against a table.

use super::{suggest, SchemaFinding, Table, Ty};
use crate::tree::{Node, NodeKind};

/// How to walk one format's documents.
pub struct Walk<'t> {
    pub table: &'t Table,
    /// CloudFormation: an object that is an intrinsic function (`Ref`,
    /// `Fn::If`, ...) stands for a value fplint may not know; its keys are
    /// not the object's.
    pub intrinsics: bool,
    /// The tool matches keys ignoring case (Go's `encoding/json`, which
    /// eksctl decodes with): a key in another case is read by the tool but
    /// not by fplint.
    pub ignore_case: bool,
}

fn is_intrinsic(node: &Node) -> bool {
    match node.as_map() {
        Some([e]) => e
            .key
            .as_str()
            .is_some_and(|k| k == "Ref" || k == "Condition" || k.starts_with("Fn::")),
        _ => false,
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        crate::path::dot(path, key)
    }
}

/// Where a node is, written out only for a finding: most nodes have none,
/// and formatting every path showed in profiles of large trees.
enum Trail<'a> {
    Root(&'a str),
    Key(&'a Trail<'a>, &'a str),
    Index(&'a Trail<'a>, usize),
}

impl Trail<'_> {
    fn render(&self) -> String {
        match self {
            Trail::Root(p) => (*p).to_string(),
            Trail::Key(up, key) => join(&up.render(), key),
            Trail::Index(up, i) => format!("{}[{i}]", up.render()),
        }
    }
}

/// Check the keys of `node`, an object of type `object`, and of the objects
/// below it.
pub fn check_node(
    w: &Walk<'_>,
    node: &Node,
    object: &str,
    path: &str,
    out: &mut Vec<SchemaFinding>,
) {
    check_object(w, node, object, &Trail::Root(path), out);
}

fn check_object(
    w: &Walk<'_>,
    node: &Node,
    object: &str,
    path: &Trail<'_>,
    out: &mut Vec<SchemaFinding>,
) {
    let Some(def) = w.table.object(object) else {
        return;
    };
    let Some(entries) = node.as_map() else {
        return;
    };
    if w.intrinsics && is_intrinsic(node) {
        return;
    }
    // A YAML merge key brings keys fplint does not see here; a macro
    // (`Fn::Transform`) rewrites the object before CloudFormation reads it.
    // (Neither key is a null, so the plain scalar says it.)
    if entries.iter().any(|e| {
        e.key.scalar() == Some("<<") || (w.intrinsics && e.key.scalar() == Some("Fn::Transform"))
    }) {
        return;
    }
    for e in entries {
        let Some(key) = e.key.as_str() else { continue };
        match def.get(key) {
            Some(f) => {
                if let Some(expected) = wrong_shape(w, key, &f.ty, &e.value) {
                    out.push(SchemaFinding::InvalidValue {
                        field: key.to_string(),
                        found: shape(&e.value).to_string(),
                        expected: expected.to_string(),
                        suggestion: None,
                        span: e.value.span,
                        path: Trail::Key(path, key).render(),
                    });
                    continue;
                }
                if !matches!(f.ty, Ty::Leaf(_)) {
                    check_value(w, &e.value, &f.ty, &Trail::Key(path, key), out);
                }
            }
            None if def.open => {}
            None => {
                let other_case = w
                    .ignore_case
                    .then(|| def.fields.iter().find(|f| f.name.eq_ignore_ascii_case(key)))
                    .flatten();
                if let Some(f) = other_case {
                    // eksctl reads the key whatever its case; it matters only
                    // where fplint reads the field, which it then misses.
                    let full = Trail::Key(path, &f.name).render();
                    let root = full.split(['.', '[']).next().unwrap_or_default();
                    if !MODELLED_EKSCTL.contains(&root) {
                        continue;
                    }
                    out.push(SchemaFinding::WrongCase {
                        key: key.to_string(),
                        field: f.name.clone(),
                        span: e.key.span,
                        path: Trail::Key(path, key).render(),
                    });
                    continue;
                }
                out.push(SchemaFinding::UnknownField {
                    key: key.to_string(),
                    span: e.key.span,
                    path: Trail::Key(path, key).render(),
                    object: object.to_string(),
                    suggestion: suggest(key, def.fields.iter().map(|f| f.name.as_str())),
                })
            }
        }
    }
}

/// The top-level eksctl fields fplint's model reads (and what is below them).
const MODELLED_EKSCTL: &[&str] = &[
    "accessConfig",
    "addons",
    "autoModeConfig",
    "fargateProfiles",
    "iam",
    "karpenter",
    "managedNodeGroups",
    "metadata",
    "nodeGroups",
    "podIdentityAssociations",
    "remoteNetworkConfig",
    "vpc",
];

fn shape(node: &Node) -> &'static str {
    match node.kind {
        NodeKind::Scalar(..) => "a scalar",
        NodeKind::Seq(_) => "a list",
        NodeKind::Map(_) => "a mapping",
    }
}

/// A selector's namespace that is not a string, or labels that are not a
/// map: the tools refuse both, and fplint would read no selector.
fn wrong_shape(w: &Walk<'_>, key: &str, ty: &Ty, node: &Node) -> Option<&'static str> {
    if node.is_null() || (w.intrinsics && is_intrinsic(node)) {
        return None;
    }
    match ty {
        Ty::Leaf(t) if t == "str" && key.eq_ignore_ascii_case("namespace") => {
            (!matches!(node.kind, NodeKind::Scalar(..))).then_some("a string")
        }
        Ty::Map(_) if key.eq_ignore_ascii_case("labels") => {
            (!matches!(node.kind, NodeKind::Map(_))).then_some("a map of label names to values")
        }
        _ => None,
    }
}

fn check_value(w: &Walk<'_>, node: &Node, ty: &Ty, path: &Trail<'_>, out: &mut Vec<SchemaFinding>) {
    match ty {
        Ty::Leaf(_) => {}
        Ty::Obj(name) | Ty::Block(name) => check_object(w, node, name, path, out),
        Ty::List(inner) => {
            if let Some(items) = node.as_seq() {
                for (i, item) in items.iter().enumerate() {
                    check_value(w, item, inner, &Trail::Index(path, i), out);
                }
            }
        }
        Ty::Map(inner) => {
            if w.intrinsics && is_intrinsic(node) {
                return;
            }
            for e in node.as_map().unwrap_or(&[]) {
                if let Some(k) = e.key.as_str() {
                    check_value(w, &e.value, inner, &Trail::Key(path, k), out);
                }
            }
        }
    }
}
