//! CloudFormation intrinsic functions.
//!
//! The YAML short forms (`!Ref X`, `!GetAtt A.B`, `!Sub ...`) are rewritten
//! into the long forms (`{Ref: X}`, `{Fn::GetAtt: [A, B]}`, `{Fn::Sub: ...}`)
//! that JSON templates use, so everything after this step reads one shape.

use crate::source::{FileId, Span};
use crate::tree::{Entry, Node, NodeKind, ScalarStyle};

/// Every short-form tag CloudFormation accepts, with its long form.
const SHORT_FORMS: &[(&str, &str)] = &[
    ("!Ref", "Ref"),
    ("!Condition", "Condition"),
    ("!GetAtt", "Fn::GetAtt"),
    ("!Sub", "Fn::Sub"),
    ("!Join", "Fn::Join"),
    ("!If", "Fn::If"),
    ("!Select", "Fn::Select"),
    ("!Split", "Fn::Split"),
    ("!FindInMap", "Fn::FindInMap"),
    ("!ImportValue", "Fn::ImportValue"),
    ("!GetAZs", "Fn::GetAZs"),
    ("!Base64", "Fn::Base64"),
    ("!Cidr", "Fn::Cidr"),
    ("!Equals", "Fn::Equals"),
    ("!And", "Fn::And"),
    ("!Or", "Fn::Or"),
    ("!Not", "Fn::Not"),
    ("!Transform", "Fn::Transform"),
    // AWS::LanguageExtensions and the rule-specific functions.
    ("!Length", "Fn::Length"),
    ("!ToJsonString", "Fn::ToJsonString"),
    ("!ForEach", "Fn::ForEach"),
    ("!Contains", "Fn::Contains"),
    ("!EachMemberEquals", "Fn::EachMemberEquals"),
    ("!EachMemberIn", "Fn::EachMemberIn"),
    ("!RefAll", "Fn::RefAll"),
    ("!ValueOf", "Fn::ValueOf"),
    ("!ValueOfAll", "Fn::ValueOfAll"),
];

/// The YAML core-schema tags (`!!str`, `!!int`) as saphyr-parser writes them.
const CORE_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// A tag CloudFormation does not know, with where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTag {
    /// The tag as written.
    pub tag: String,
    /// Where.
    pub span: Span,
}

/// Whether any node of the tree carries a tag (JSON never does).
pub fn has_tags(node: &Node) -> bool {
    if node.tag.is_some() {
        return true;
    }
    match &node.kind {
        NodeKind::Scalar(..) => false,
        NodeKind::Seq(items) => items.iter().any(has_tags),
        NodeKind::Map(entries) => entries
            .iter()
            .any(|e| has_tags(&e.key) || has_tags(&e.value)),
    }
}

/// Rewrite short-form tags into long forms. An unknown tag is recorded and its
/// node wrapped under a key no function has, so that it evaluates as unknown.
pub fn normalise(node: &Node, text: &str, unknown: &mut Vec<UnknownTag>) -> Node {
    let mut n = node.clone();
    normalise_in_place(&mut n, text, unknown);
    n
}

/// [`normalise`] on a tree the caller owns, without copying it.
pub fn normalise_in_place(node: &mut Node, text: &str, unknown: &mut Vec<UnknownTag>) {
    // Below first: unknown tags are recorded inside out, keys left as written.
    match &mut node.kind {
        NodeKind::Scalar(..) => {}
        NodeKind::Seq(items) => {
            for n in items {
                normalise_in_place(n, text, unknown);
            }
        }
        NodeKind::Map(entries) => {
            for e in entries {
                normalise_in_place(&mut e.value, text, unknown);
            }
        }
    }
    let Some(tag) = node.tag.take() else {
        return;
    };
    if tag.starts_with(CORE_TAG_PREFIX) {
        node.tag = Some(tag);
        return;
    }
    let tag_span = tag_span(text, node.span, &tag);
    let long = SHORT_FORMS
        .iter()
        .find(|(s, _)| *s == &*tag)
        .map(|(_, l)| *l);
    let name = match long {
        Some(l) => l,
        None => {
            unknown.push(UnknownTag {
                tag: tag.to_string(),
                span: tag_span,
            });
            &tag
        }
    };
    let span = node.span;
    let mut inner = std::mem::replace(
        node,
        Node {
            kind: NodeKind::Seq(Vec::new()),
            span,
            tag: None,
        },
    );
    if name == "Fn::GetAtt" {
        if let NodeKind::Scalar(s, style) = &inner.kind {
            // `!GetAtt A.B.C` names resource A and attribute `B.C`.
            if let Some((res, attr)) = s.split_once('.') {
                let part = |t: &str| Node {
                    kind: NodeKind::Scalar(t.into(), *style),
                    span,
                    tag: None,
                };
                inner.kind = NodeKind::Seq(vec![part(res), part(attr)]);
            }
        }
    }
    *node = Node {
        kind: NodeKind::Map(vec![Entry {
            key: Node {
                kind: NodeKind::Scalar(name.into(), ScalarStyle::Plain),
                span: tag_span,
                tag: None,
            },
            value: inner,
        }]),
        span,
        tag: None,
    };
}

/// The span of the tag text itself: the node's span starts at the tag for
/// scalars and flow collections; for block collections search just before.
fn tag_span(text: &str, node: Span, tag: &str) -> Span {
    let start = node.start as usize;
    let file: FileId = node.file;
    if text.get(start..).is_some_and(|t| t.starts_with(tag)) {
        return Span::new(file, start, start + tag.len());
    }
    let mut from = start.saturating_sub(256);
    while from > 0 && !text.is_char_boundary(from) {
        from -= 1;
    }
    let to = (start + tag.len()).min(text.len());
    if let Some(window) = text.get(from..to) {
        if let Some(i) = window.rfind(tag) {
            return Span::new(file, from + i, from + i + tag.len());
        }
    }
    node
}

/// A single-key mapping naming an intrinsic function: `(name, argument)`.
pub fn as_fn(node: &Node) -> Option<(&str, &Node)> {
    let entries = node.as_map()?;
    let [e] = entries else { return None };
    let k = e.key.scalar()?;
    (k == "Ref" || k == "Condition" || k.starts_with("Fn::")).then_some((k, &e.value))
}

/// The logical name a `Ref` argument names.
pub fn ref_target(node: &Node) -> Option<&str> {
    match as_fn(node)? {
        ("Ref", arg) => arg.as_str(),
        _ => None,
    }
}

/// The resource a `Fn::GetAtt` names (list form, or `A.B` string form).
pub fn getatt_target(node: &Node) -> Option<&str> {
    match as_fn(node)? {
        ("Fn::GetAtt", arg) => getatt_resource(arg),
        _ => None,
    }
}

fn getatt_resource(arg: &Node) -> Option<&str> {
    match &arg.kind {
        NodeKind::Seq(items) => items.first()?.as_str(),
        NodeKind::Scalar(..) => {
            let s = arg.as_str()?;
            Some(s.split_once('.').map_or(s, |(r, _)| r))
        }
        NodeKind::Map(_) => None,
    }
}

/// One `${...}` placeholder of a `Fn::Sub` string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubVar<'a> {
    /// The whole name (`AWS::Region`, `Bucket.Arn`, `Param`).
    pub name: &'a str,
    /// Byte range of the placeholder in the string, `${` to `}`.
    pub range: std::ops::Range<usize>,
}

/// The placeholders of a `Fn::Sub` string. `${!Literal}` is text, not a variable.
pub fn sub_vars(s: &str) -> Vec<SubVar<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = s[i..].find("${") {
        let open = i + off;
        let body = open + 2;
        let Some(close) = s[body..].find('}').map(|c| body + c) else {
            break;
        };
        if !s[body..].starts_with('!') {
            out.push(SubVar {
                name: s[body..close].trim(),
                range: open..close + 1,
            });
        }
        i = close + 1;
    }
    out
}

/// The logical name a `Fn::Sub` variable refers to: `A` for `${A.Arn}`.
pub fn sub_var_target(name: &str) -> &str {
    if name.contains("::") {
        return name;
    }
    name.split_once('.').map_or(name, |(r, _)| r)
}

/// Every logical name the subtree refers to through `Ref`, `Fn::GetAtt` and
/// `Fn::Sub`, with the span of the reference. Names bound in a `Fn::Sub`
/// variable map are not references.
pub fn visit_refs<'a>(node: &'a Node, f: &mut dyn FnMut(&'a str, Span)) {
    if let Some((name, arg)) = as_fn(node) {
        match name {
            "Ref" => {
                if let Some(t) = arg.as_str() {
                    f(t, node.span);
                }
                return;
            }
            "Fn::GetAtt" => {
                if let Some(t) = getatt_resource(arg) {
                    f(t, node.span);
                }
                if let Some(items) = arg.as_seq() {
                    items.iter().skip(1).for_each(|n| visit_refs(n, f));
                }
                return;
            }
            "Fn::Sub" => {
                let (template, vars) = match &arg.kind {
                    NodeKind::Seq(items) => (items.first(), items.get(1)),
                    _ => (Some(arg), None),
                };
                let bound: Vec<&str> = vars
                    .and_then(Node::as_map)
                    .map(|es| es.iter().filter_map(|e| e.key.scalar()).collect())
                    .unwrap_or_default();
                if let Some(t) = template {
                    match t.as_str() {
                        Some(s) if t.as_map().is_none() => {
                            for v in sub_vars(s) {
                                let target = sub_var_target(v.name);
                                if !bound.contains(&v.name) && !bound.contains(&target) {
                                    f(target, t.span);
                                }
                            }
                        }
                        _ => visit_refs(t, f),
                    }
                }
                if let Some(v) = vars {
                    visit_refs(v, f);
                }
                return;
            }
            _ => {}
        }
    }
    match &node.kind {
        NodeKind::Scalar(..) => {}
        NodeKind::Seq(items) => items.iter().for_each(|n| visit_refs(n, f)),
        NodeKind::Map(entries) => entries.iter().for_each(|e| visit_refs(&e.value, f)),
    }
}

/// A stable text for an expression, so that two identical unresolved
/// expressions (the same `Fn::ImportValue`) can be told to be equal.
pub fn canonical(node: &Node) -> String {
    let mut s = String::new();
    write_canonical(node, &mut s);
    s
}

fn write_canonical(node: &Node, out: &mut String) {
    match &node.kind {
        NodeKind::Scalar(t, _) => {
            out.push('"');
            out.push_str(&t.replace('\\', "\\\\").replace('"', "\\\""));
            out.push('"');
        }
        NodeKind::Seq(items) => {
            out.push('[');
            for (i, n) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(n, out);
            }
            out.push(']');
        }
        NodeKind::Map(entries) => {
            out.push('{');
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(&e.key, out);
                out.push(':');
                write_canonical(&e.value, out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{json, yaml, Limits};

    fn yaml_norm(t: &str) -> (Node, Vec<UnknownTag>) {
        let d = yaml::parse(t, FileId(0), Limits::default());
        assert!(d.error.is_none(), "{:?}", d.error);
        let mut unknown = Vec::new();
        let n = normalise(&d.documents[0], t, &mut unknown);
        (n, unknown)
    }

    fn json_doc(t: &str) -> Node {
        let d = json::parse(t, FileId(0), Limits::default());
        assert!(d.error.is_none(), "{:?}", d.error);
        d.documents[0].clone()
    }

    #[test]
    fn short_and_long_forms_read_alike() {
        let y = "a: !Ref X\nb: !GetAtt R.Arn\nc: !GetAtt [R, Arn]\nd: !Sub 'x-${P}'\n\
                 e: !Join ['-', [!Ref X, b]]\nf: !If [C, !Ref X, !Ref AWS::NoValue]\n\
                 g: !Select [0, !GetAZs '']\nh: !Condition C\ni: !ImportValue Exp\n\
                 j: !Base64 x\nk: !Cidr [a, 1, 2]\nl: !Equals [a, b]\nm: !And [!Condition C]\n\
                 n: !Or [!Not [!Condition C]]\no: !FindInMap [M, a, b]\np: !Split [',', x]\n\
                 q: !Sub\n  - '${V}'\n  - V: !Ref X\n";
        let j = r#"{"a": {"Ref": "X"}, "b": {"Fn::GetAtt": ["R", "Arn"]}, "c": {"Fn::GetAtt": ["R", "Arn"]},
            "d": {"Fn::Sub": "x-${P}"}, "e": {"Fn::Join": ["-", [{"Ref": "X"}, "b"]]},
            "f": {"Fn::If": ["C", {"Ref": "X"}, {"Ref": "AWS::NoValue"}]},
            "g": {"Fn::Select": ["0", {"Fn::GetAZs": ""}]}, "h": {"Condition": "C"},
            "i": {"Fn::ImportValue": "Exp"}, "j": {"Fn::Base64": "x"}, "k": {"Fn::Cidr": ["a", "1", "2"]},
            "l": {"Fn::Equals": ["a", "b"]}, "m": {"Fn::And": [{"Condition": "C"}]},
            "n": {"Fn::Or": [{"Fn::Not": [{"Condition": "C"}]}]}, "o": {"Fn::FindInMap": ["M", "a", "b"]},
            "p": {"Fn::Split": [",", "x"]}, "q": {"Fn::Sub": ["${V}", {"V": {"Ref": "X"}}]}}"#;
        let (y, unknown) = yaml_norm(y);
        assert!(unknown.is_empty());
        let j = json_doc(j);
        assert_eq!(canonical(&y), canonical(&j));
    }

    #[test]
    fn unknown_tag_is_reported_at_the_tag() {
        let t = "a: !Reff X\nb:\n  c: !Foo\n    - 1\n";
        let (n, unknown) = yaml_norm(t);
        assert_eq!(unknown.len(), 2);
        assert_eq!(&t[unknown[0].span.range()], "!Reff");
        assert_eq!(&t[unknown[1].span.range()], "!Foo");
        assert!(as_fn(n.get("a").unwrap()).is_none());
    }

    #[test]
    fn core_tags_are_not_intrinsics() {
        let (n, unknown) = yaml_norm("a: !!str 10\n");
        assert!(unknown.is_empty());
        assert_eq!(n.get("a").unwrap().scalar(), Some("10"));
    }

    #[test]
    fn sub_variables() {
        let v: Vec<&str> = sub_vars("${A}-${!Lit}-${B.Arn}-${AWS::Region}-${ C }")
            .iter()
            .map(|v| v.name)
            .collect();
        assert_eq!(v, ["A", "B.Arn", "AWS::Region", "C"]);
        assert_eq!(sub_var_target("B.Arn"), "B");
        assert_eq!(sub_var_target("AWS::Region"), "AWS::Region");
        assert!(sub_vars("${unclosed").is_empty());
    }

    #[test]
    fn refs_skip_bound_sub_names_and_literals() {
        let (n, _) = yaml_norm(
            "x:\n  a: !Sub '${A}-${!B}'\n  b: !Sub ['${C}-${D.Arn}', {C: !GetAtt E.Arn}]\n  c: [!Ref F]\n",
        );
        let mut seen = Vec::new();
        visit_refs(&n, &mut |name, _| seen.push(name));
        assert_eq!(seen, ["A", "D", "E", "F"]);
    }
}
