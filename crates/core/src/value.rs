//! Resolved data values (add-on configuration, Helm values, evaluated HCL)
//! that keep the span of where each part was written.

use crate::source::Span;
use crate::tree::{Node, NodeKind, ScalarStyle};

/// A plain data value (JSON-like) with the span it was read from.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// What it is.
    pub kind: ValueKind,
    /// Where it was written, when it was.
    pub span: Option<Span>,
}

/// The kinds of [`Value`].
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// Could not be resolved (an interpolation, a data source).
    Unknown,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// Numbers keep their text.
    Number(String),
    /// A string.
    String(String),
    /// A list.
    List(Vec<Value>),
    /// A map, keys in the order written.
    Map(Vec<(MapKey, Value)>),
}

/// A map key with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct MapKey {
    /// The key.
    pub name: String,
    /// Where it was written, when it was.
    pub span: Option<Span>,
}

impl Value {
    /// A value of this kind.
    pub fn new(kind: ValueKind, span: Option<Span>) -> Value {
        Value { kind, span }
    }

    /// A value that could not be resolved.
    pub fn unknown(span: Option<Span>) -> Value {
        Value::new(ValueKind::Unknown, span)
    }

    /// Whether the value could not be resolved.
    pub fn is_unknown(&self) -> bool {
        matches!(self.kind, ValueKind::Unknown)
    }

    /// The entry `key` of a map.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.kind {
            ValueKind::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k.name == key)
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// Key lookup ignoring ASCII case.
    pub fn get_ignore_case(&self, key: &str) -> Option<&Value> {
        match &self.kind {
            ValueKind::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k.name.eq_ignore_ascii_case(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::String(s) | ValueKind::Number(s) => Some(s),
            _ => None,
        }
    }

    /// The items, if it is a list.
    pub fn as_list(&self) -> Option<&[Value]> {
        match &self.kind {
            ValueKind::List(items) => Some(items),
            _ => None,
        }
    }

    /// A JSON or YAML document embedded in a string (add-on configuration
    /// values). Positions inside the string are not mapped, so spans are
    /// dropped; unknown when it does not parse.
    pub fn parse_embedded(text: &str) -> crate::model::Known<Value> {
        let file = crate::source::FileId(u32::MAX);
        let parsed = crate::tree::yaml::parse(text, file, crate::tree::Limits::default());
        match (parsed.error, parsed.documents.first()) {
            (None, Some(doc)) => {
                let mut v = Value::from_node(doc);
                v.strip_spans();
                crate::model::Known::Known(v)
            }
            _ => crate::model::Known::Unknown,
        }
    }

    fn strip_spans(&mut self) {
        self.span = None;
        match &mut self.kind {
            ValueKind::List(items) => items.iter_mut().for_each(Value::strip_spans),
            ValueKind::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                k.span = None;
                v.strip_spans();
            }),
            _ => {}
        }
    }

    /// Read a document node the way YAML 1.2's core schema (and JSON) types scalars.
    pub fn from_node(node: &Node) -> Value {
        let span = Some(node.span);
        let kind = match &node.kind {
            NodeKind::Scalar(s, ScalarStyle::Plain) if node.tag.is_none() => {
                if node.is_null() {
                    ValueKind::Null
                } else if let Some(b) = node.as_bool() {
                    ValueKind::Bool(b)
                } else if looks_numeric(s) {
                    ValueKind::Number(s.to_string())
                } else {
                    ValueKind::String(s.to_string())
                }
            }
            NodeKind::Scalar(s, _) => ValueKind::String(s.to_string()),
            NodeKind::Seq(items) => ValueKind::List(items.iter().map(Value::from_node).collect()),
            NodeKind::Map(entries) => ValueKind::Map(
                entries
                    .iter()
                    .map(|e| {
                        let name = e.key.scalar().unwrap_or_default().to_string();
                        (
                            MapKey {
                                name,
                                span: Some(e.key.span),
                            },
                            Value::from_node(&e.value),
                        )
                    })
                    .collect(),
            ),
        };
        Value { kind, span }
    }
}

/// What `Value::from_node(node).as_str()` gives, without building the value.
pub(crate) fn text_of(node: &Node) -> Option<&str> {
    match &node.kind {
        NodeKind::Scalar(s, ScalarStyle::Plain) if node.tag.is_none() => {
            (!node.is_null() && node.as_bool().is_none()).then_some(&**s)
        }
        NodeKind::Scalar(s, _) => Some(s),
        NodeKind::Seq(_) | NodeKind::Map(_) => None,
    }
}

fn looks_numeric(s: &str) -> bool {
    let t = s.strip_prefix(['-', '+']).unwrap_or(s);
    !t.is_empty()
        && t.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
        && t.parse::<f64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::{text_of, Value};
    use crate::source::FileId;
    use crate::tree::{yaml, Limits};

    #[test]
    fn text_of_reads_a_node_as_its_value_would() {
        let text = "a: apps/v1\nb: null\nc: ~\nd: true\ne: 'true'\nf: 42\ng: !!str yes\n\
                    h: [x]\ni: {k: v}\nj: \"\"\nk:\nl: !Ref x\nm: \"null\"\nn: False\n";
        let parsed = yaml::parse(text, FileId(0), Limits::default());
        assert!(parsed.error.is_none());
        let doc = &parsed.documents[0];
        let entries = doc.as_map().unwrap();
        assert_eq!(entries.len(), 14);
        for e in entries {
            let value = Value::from_node(&e.value);
            assert_eq!(text_of(&e.value), value.as_str(), "{:?}", e.key.scalar());
        }
    }
}
