//! Terraform: the arguments and nested blocks of the resources fplint reads,
//! and the inputs of terraform-aws-eks per major version, checked on the
//! written HCL. Keys of values that are not literal objects (variables,
//! function calls, `for` expressions) are unknown and not checked.

use super::{suggest, SchemaFinding, Table, Ty};
use crate::source::{FileId, Span};
use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::structure::{Block, BlockLabel, Body, Structure};
use hcl_edit::Span as _;

/// Arguments and blocks Terraform itself gives every resource; `region` is
/// the hashicorp/aws provider's (v6) on every resource.
const RESOURCE_META: &[&str] = &[
    "count",
    "for_each",
    "provider",
    "depends_on",
    "lifecycle",
    "provisioner",
    "connection",
    "region",
];
const MODULE_META: &[&str] = &[
    "source",
    "version",
    "count",
    "for_each",
    "providers",
    "depends_on",
];

fn span(file: FileId, r: Option<std::ops::Range<usize>>) -> Option<Span> {
    let r = r?;
    Some(Span::new(file, r.start, r.end))
}

fn label(b: &Block, i: usize) -> Option<&str> {
    match b.labels.get(i)? {
        BlockLabel::String(s) => Some(s.value().as_str()),
        BlockLabel::Ident(i) => Some(i.as_str()),
    }
}

/// A `resource "TYPE" "NAME"` block of a type the table knows.
pub fn check_resource(block: &Block, file: FileId, out: &mut Vec<SchemaFinding>) {
    let (Some(rtype), Some(name)) = (label(block, 0), label(block, 1)) else {
        return;
    };
    let t = super::terraform();
    if t.object(rtype).is_none() {
        return;
    }
    let path = crate::path::dot(rtype, name);
    check_body(t, &block.body, rtype, &path, file, RESOURCE_META, out);
    if matches!(rtype, "aws_eks_addon" | "awscc_eks_addon") {
        if let Some(a) = block.body.get_attribute("configuration_values") {
            let here = crate::path::dot(&path, "configuration_values");
            check_configuration_values(&a.value, &here, file, out);
        }
    }
}

/// The text of a template made of literal parts only; `None` when it
/// interpolates or has directives (unknown until plan).
fn literal(t: &hcl_edit::template::Template) -> Option<String> {
    let mut s = String::new();
    for e in t.iter() {
        match e {
            hcl_edit::template::Element::Literal(l) => s.push_str(l.value()),
            _ => return None,
        }
    }
    Some(s)
}

/// Add-on configuration values written out in the configuration: a string
/// or heredoc without interpolation must hold a JSON or YAML object, and
/// `jsonencode`/`yamlencode` of a literal list or scalar is not one.
/// Anything computed (variables, `templatefile`, `file`, interpolation) is
/// unknown.
fn check_configuration_values(
    e: &Expression,
    path: &str,
    file: FileId,
    out: &mut Vec<SchemaFinding>,
) {
    let Some(at) = span(file, e.span()) else {
        return;
    };
    match e {
        Expression::String(s) => super::check_addon_configuration(s.value(), at, path, out),
        Expression::StringTemplate(t) => {
            if let Some(text) = literal(t) {
                super::check_addon_configuration(&text, at, path, out);
            }
        }
        Expression::HeredocTemplate(h) => {
            let mut h = (**h).clone();
            if h.indent().is_some() {
                h.dedent();
            }
            if let Some(text) = literal(&h.template) {
                super::check_addon_configuration(&text, at, path, out);
            }
        }
        Expression::Parenthesis(p) => check_configuration_values(p.inner(), path, file, out),
        Expression::FuncCall(f) if !f.name.is_namespaced() && f.args.len() == 1 => {
            let func = f.name.name.as_str();
            if !matches!(func, "jsonencode" | "yamlencode") {
                return;
            }
            let found = match f.args.iter().next() {
                Some(Expression::Array(_)) => "a list",
                Some(Expression::String(_) | Expression::Number(_) | Expression::Bool(_)) => {
                    "a scalar"
                }
                _ => return,
            };
            out.push(SchemaFinding::InvalidValue {
                field: "configuration_values".into(),
                found: format!("`{func}` of {found}"),
                expected: "a JSON or YAML object".into(),
                suggestion: None,
                span: at,
                path: path.to_string(),
            });
        }
        _ => {}
    }
}

/// `configuration_values` in the literal add-on map of a terraform-aws-eks
/// call (`cluster_addons` up to v20, `addons` from v21), whatever the
/// version: the key means the same in each.
fn check_module_addons(body: &Body, path: &str, file: FileId, out: &mut Vec<SchemaFinding>) {
    for key in ["cluster_addons", "addons"] {
        let Some(Expression::Object(o)) = body.get_attribute(key).map(|a| &a.value) else {
            continue;
        };
        for (k, v) in o.iter() {
            let name = match k {
                ObjectKey::Ident(i) => i.as_str().to_string(),
                ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
                ObjectKey::Expression(_) => continue,
            };
            let Expression::Object(addon) = v.expr() else {
                continue;
            };
            for (ak, av) in addon.iter() {
                let is_cv = match ak {
                    ObjectKey::Ident(i) => i.as_str() == "configuration_values",
                    ObjectKey::Expression(Expression::String(s)) => {
                        s.value().as_str() == "configuration_values"
                    }
                    ObjectKey::Expression(_) => false,
                };
                if is_cv {
                    let here = format!("{path}.{key}.{name}.configuration_values");
                    check_configuration_values(av.expr(), &here, file, out);
                }
            }
        }
    }
}

/// The major version a module's `version` constraint fixes, if it does.
fn major_version(body: &Body) -> Option<u32> {
    let Some(Expression::String(s)) = body.get_attribute("version").map(|a| &a.value) else {
        return None;
    };
    let v = s.value().trim();
    let v = v
        .strip_prefix("~>")
        .or_else(|| v.strip_prefix('='))
        .unwrap_or(v)
        .trim();
    let (major, rest) = v.split_once('.')?;
    if rest.is_empty() || v.contains(',') || v.contains('>') || v.contains('<') {
        return None;
    }
    major.parse().ok()
}

/// A terraform-aws-eks module call: `sub` is `None` for the root module or
/// the sub-module path (`modules/fargate-profile`). Without a version that
/// fixes the major, the inputs are unknown.
pub fn check_eks_module(
    block: &Block,
    file: FileId,
    sub: Option<&str>,
    out: &mut Vec<SchemaFinding>,
) {
    let name = label(block, 0).unwrap_or("?");
    if sub.is_none() {
        check_module_addons(&block.body, &format!("module.{name}"), file, out);
    }
    let Some(major) = major_version(&block.body) else {
        return;
    };
    let object = match sub {
        None => format!("v{major}"),
        Some(s) => format!("v{major}.{}", s.replace('/', ".")),
    };
    let t = super::terraform_eks_module();
    if t.object(&object).is_none() {
        return;
    }
    check_body(
        t,
        &block.body,
        &object,
        &format!("module.{name}"),
        file,
        MODULE_META,
        out,
    );
}

fn check_body(
    t: &Table,
    body: &Body,
    object: &str,
    path: &str,
    file: FileId,
    meta: &[&str],
    out: &mut Vec<SchemaFinding>,
) {
    let Some(def) = t.object(object) else { return };
    let names = || {
        def.fields
            .iter()
            .map(|f| f.name.as_str())
            .chain(meta.iter().copied())
    };
    for s in body.iter() {
        match s {
            Structure::Attribute(a) => {
                let key = a.key.as_str();
                let here = crate::path::dot(path, key);
                let Some(at) = span(file, a.key.span()) else {
                    continue;
                };
                match def.get(key) {
                    Some(f) => match &f.ty {
                        Ty::Block(_) => out.push(SchemaFinding::ArgumentForBlock {
                            key: key.to_string(),
                            span: at,
                            path: here,
                        }),
                        ty => check_expr(t, &a.value, ty, &here, file, out),
                    },
                    None if meta.contains(&key) => {}
                    None if def.open => {}
                    None => out.push(SchemaFinding::UnknownField {
                        key: key.to_string(),
                        span: at,
                        path: here,
                        object: object.to_string(),
                        suggestion: suggest(key, names()),
                    }),
                }
            }
            Structure::Block(b) => {
                let ident = b.ident.as_str();
                // `dynamic "x" { content { } }`: the content is built at
                // plan time; only its name is checked.
                let (key, dynamic) = if ident == "dynamic" {
                    match label(b, 0) {
                        Some(l) => (l, true),
                        None => continue,
                    }
                } else {
                    (ident, false)
                };
                if meta.contains(&key) || def.open {
                    continue;
                }
                let here = crate::path::dot(path, key);
                match def.get(key) {
                    Some(Field {
                        ty: Ty::Block(inner),
                        ..
                    }) if !dynamic => check_body(t, &b.body, inner, &here, file, &[], out),
                    Some(_) => {}
                    None => {
                        let at = if dynamic {
                            b.labels.first().and_then(|l| match l {
                                BlockLabel::String(s) => span(file, s.span()),
                                BlockLabel::Ident(i) => span(file, i.span()),
                            })
                        } else {
                            span(file, b.ident.span())
                        };
                        let Some(at) = at else { continue };
                        out.push(SchemaFinding::UnknownField {
                            key: key.to_string(),
                            span: at,
                            path: here,
                            object: object.to_string(),
                            suggestion: suggest(key, names()),
                        });
                    }
                }
            }
        }
    }
}

use super::Field;

fn check_expr(
    t: &Table,
    e: &Expression,
    ty: &Ty,
    path: &str,
    file: FileId,
    out: &mut Vec<SchemaFinding>,
) {
    match (ty, e) {
        (Ty::Obj(name), Expression::Object(o)) => {
            let Some(def) = t.object(name) else { return };
            for (k, v) in o.iter() {
                let (key, at) = match k {
                    ObjectKey::Ident(i) => (i.as_str(), span(file, i.span())),
                    ObjectKey::Expression(Expression::String(s)) => {
                        (s.value().as_str(), span(file, s.span()))
                    }
                    // A computed key is unknown.
                    ObjectKey::Expression(_) => continue,
                };
                let here = crate::path::dot(path, key);
                match def.get(key) {
                    Some(f) => check_expr(t, v.expr(), &f.ty, &here, file, out),
                    None if def.open => {}
                    None => {
                        let Some(at) = at else { continue };
                        out.push(SchemaFinding::UnknownField {
                            key: key.to_string(),
                            span: at,
                            path: here,
                            object: name.to_string(),
                            suggestion: suggest(key, def.fields.iter().map(|f| f.name.as_str())),
                        });
                    }
                }
            }
        }
        (Ty::List(inner), Expression::Array(a)) => {
            for (i, item) in a.iter().enumerate() {
                check_expr(t, item, inner, &crate::path::index(path, i), file, out);
            }
        }
        (Ty::Map(inner), Expression::Object(o)) => {
            for (k, v) in o.iter() {
                let key = match k {
                    ObjectKey::Ident(i) => i.as_str().to_string(),
                    ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
                    ObjectKey::Expression(_) => continue,
                };
                check_expr(t, v.expr(), inner, &crate::path::dot(path, &key), file, out);
            }
        }
        (_, Expression::Parenthesis(p)) => check_expr(t, p.inner(), ty, path, file, out),
        _ => {}
    }
}
