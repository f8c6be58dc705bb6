//! A spanned document tree shared by the YAML and JSON readers.
//!
//! Scalars stay text: each frontend interprets them the way its target tool
//! does (`"1.30"` is a version for eksctl, not the number 1.3). Mapping entries
//! keep duplicates in source order so a frontend can report both places.

pub mod json;
pub mod yaml;
mod yaml_fast;

use crate::source::Span;

/// How a scalar was written: what decides whether `yes` is a string.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    /// Unquoted YAML scalar, or a JSON number, boolean or null.
    Plain,
    /// Single- or double-quoted YAML scalar, or a JSON string.
    Quoted,
    /// YAML literal (`|`) or folded (`>`) block.
    Block,
}

/// One node of a YAML or JSON document, with its byte span.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Scalar, sequence or mapping.
    pub kind: NodeKind,
    /// The bytes it covers.
    pub span: Span,
    /// The tag as written (`!Ref`, `!!str`), YAML only.
    pub tag: Option<Box<str>>,
}

/// The kinds of [`Node`].
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// A scalar's text, as the document means it, and how it was written.
    Scalar(Box<str>, ScalarStyle),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, entries in the order written.
    Map(Vec<Entry>),
}

/// One mapping entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The key node.
    pub key: Node,
    /// The value node.
    pub value: Node,
}

/// A key that appears twice in one mapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key.
    pub key: String,
    /// Its first entry.
    pub first: Span,
    /// Its second entry.
    pub second: Span,
    /// Both entries hold the same value, so no reader can disagree on it.
    pub same_value: bool,
}

/// A parse failure with the place it was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TreeError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub span: Span,
}

/// What a reader produced: every document it could read, the duplicate keys
/// it saw, and the error that stopped it, if any.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// The documents read, up to the error if any.
    pub documents: Vec<Node>,
    /// Keys written twice in one mapping.
    pub duplicates: Vec<DuplicateKey>,
    /// The error that stopped the reader.
    pub error: Option<TreeError>,
}

/// Bounds that keep hostile input from exhausting memory or the stack.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of a document.
    pub max_depth: usize,
    /// Nodes that alias expansion may add to one document.
    pub max_alias_nodes: usize,
    /// Terraform: evaluation work for one module (expressions evaluated,
    /// plus value nodes and string bytes copied).
    pub max_eval_steps: u64,
    /// Terraform: elements of one list or map built by evaluation.
    pub max_collection: usize,
    /// Terraform: local modules followed below the root.
    pub max_module_depth: usize,
    /// Fargate profiles per cluster, selectors per profile and labels per
    /// selector that the rules check (some compare them pairwise).
    pub max_list_items: usize,
    /// Helm chart reads and renders.
    pub helm: fplint_helm::Limits,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 512,
            max_alias_nodes: 1_000_000,
            max_eval_steps: 2_000_000,
            max_collection: 10_000,
            max_module_depth: 4,
            max_list_items: 1_000,
            helm: fplint_helm::Limits::default(),
        }
    }
}

impl Node {
    /// The text, if it is a scalar.
    pub fn scalar(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(s, _) => Some(s),
            _ => None,
        }
    }

    /// How it was written, if it is a scalar.
    pub fn style(&self) -> Option<ScalarStyle> {
        match &self.kind {
            NodeKind::Scalar(_, st) => Some(*st),
            _ => None,
        }
    }

    /// The text of a scalar that is not null.
    pub fn as_str(&self) -> Option<&str> {
        if self.is_null() {
            return None;
        }
        self.scalar()
    }

    /// Whether it is a null (`null`, `~`, or empty).
    pub fn is_null(&self) -> bool {
        match &self.kind {
            NodeKind::Scalar(s, ScalarStyle::Plain) => {
                self.tag.is_none() && matches!(&**s, "" | "~" | "null" | "Null" | "NULL")
            }
            _ => false,
        }
    }

    /// The boolean, if it is one (`true`/`false`).
    pub fn as_bool(&self) -> Option<bool> {
        match &self.kind {
            NodeKind::Scalar(s, ScalarStyle::Plain) => match &**s {
                "true" | "True" | "TRUE" => Some(true),
                "false" | "False" | "FALSE" => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    /// The items, if it is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The entries, if it is a mapping.
    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.kind {
            NodeKind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The first entry of a mapping whose key is `key`.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.as_map()?.iter().find(|e| e.key.scalar() == Some(key))
    }

    /// The value of entry `key`, if it is a mapping that has one.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    /// The tag, if any.
    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// A short noun for messages: "a mapping", "a list", "a string".
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Scalar(..) if self.is_null() => "null",
            NodeKind::Scalar(..) => "a scalar",
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a mapping",
        }
    }

    /// Number of nodes in this subtree.
    pub fn size(&self) -> usize {
        match &self.kind {
            NodeKind::Scalar(..) => 1,
            NodeKind::Seq(items) => 1 + items.iter().map(Node::size).sum::<usize>(),
            NodeKind::Map(entries) => {
                1 + entries
                    .iter()
                    .map(|e| e.key.size() + e.value.size())
                    .sum::<usize>()
            }
        }
    }
}

/// Find duplicate scalar keys among `entries` and append them to `out`.
pub(crate) fn find_duplicates(entries: &[Entry], out: &mut Vec<DuplicateKey>) {
    if entries.len() < 2 {
        return;
    }
    if entries.len() <= 32 {
        for (i, e) in entries.iter().enumerate() {
            let Some(k) = e.key.scalar() else { continue };
            if let Some(first) = entries[..i].iter().find(|p| p.key.scalar() == Some(k)) {
                out.push(DuplicateKey {
                    key: k.to_string(),
                    first: first.key.span,
                    second: e.key.span,
                    same_value: same_content(&first.value, &e.value),
                });
            }
        }
        return;
    }
    let mut seen: rustc_hash::FxHashMap<&str, &Entry> = rustc_hash::FxHashMap::default();
    for e in entries {
        let Some(k) = e.key.scalar() else { continue };
        match seen.get(k) {
            Some(first) => out.push(DuplicateKey {
                key: k.to_string(),
                first: first.key.span,
                second: e.key.span,
                same_value: same_content(&first.value, &e.value),
            }),
            None => {
                seen.insert(k, e);
            }
        }
    }
}

/// Structural equality that ignores where the nodes were written.
pub fn same_content(a: &Node, b: &Node) -> bool {
    if a.tag != b.tag {
        return false;
    }
    match (&a.kind, &b.kind) {
        (NodeKind::Scalar(x, sx), NodeKind::Scalar(y, sy)) => x == y && sx == sy,
        (NodeKind::Seq(x), NodeKind::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_content(p, q))
        }
        (NodeKind::Map(x), NodeKind::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| same_content(&p.key, &q.key) && same_content(&p.value, &q.value))
        }
        _ => false,
    }
}
