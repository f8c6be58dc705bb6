//! Subnet visibility for profiles: a subnet is public when it maps public IPs
//! on launch or its route table routes to an internet gateway; the VPC
//! module's `public_subnets`/`private_subnets` outputs say it by name.

use super::eval::{self, Env};
use super::graph::{refs_of_expr, Ref};
use crate::model::{Known, Loc, SubnetRef, SubnetVisibility};
use crate::value::{Value, ValueKind};
use hcl_edit::structure::Structure;
use hcl_edit::Span as _;

pub fn subnet_refs(env: &Env<'_>, s: &Value, path: &str) -> Known<Vec<SubnetRef>> {
    match &s.kind {
        ValueKind::List(items) => Known::Known(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    let (visibility, evidence) = visibility(env, x);
                    SubnetRef {
                        id: super::located_str(
                            Some(x),
                            x.span.or(s.span).unwrap_or_default(),
                            &crate::path::index(path, i),
                        ),
                        visibility,
                        evidence,
                    }
                })
                .collect(),
        ),
        // A whole list that is unknown still has a visibility when it is
        // `module.vpc.public_subnets` or `aws_subnet.public[*].id`.
        ValueKind::Unknown => match visibility(env, s) {
            (Known::Known(v), evidence) => Known::Known(vec![SubnetRef {
                id: super::located_str(None, s.span.unwrap_or_default(), path),
                visibility: Known::Known(v),
                evidence,
            }]),
            _ => Known::Unknown,
        },
        _ => Known::Unknown,
    }
}

/// What the expression written at the value's span says about the subnet.
fn visibility(env: &Env<'_>, x: &Value) -> (Known<SubnetVisibility>, Option<Loc>) {
    let Some(span) = x.span else {
        return (Known::Unknown, None);
    };
    let Some(f) = env.file(span.file) else {
        return (Known::Unknown, None);
    };
    // A quoted string without interpolation (a subnet id written out)
    // references nothing: not parsed again.
    if is_plain_string(f.slice(span)) {
        return (Known::Unknown, None);
    }
    let Ok(expr) = hcl_edit::parser::parse_expr(f.slice(span)) else {
        return (Known::Unknown, None);
    };
    let refs = refs_of_expr(&expr);
    let mut found: Option<(SubnetVisibility, Option<Loc>)> = None;
    for r in &refs {
        let v = match (r.root.as_str(), r.attrs.get(1).map(String::as_str)) {
            ("module", Some(out)) if out.starts_with("public_subnet") => {
                Some((SubnetVisibility::Public, Some(Loc::new(span, ""))))
            }
            ("module", Some(out)) if out.starts_with("private_subnet") => {
                Some((SubnetVisibility::Private, None))
            }
            ("aws_subnet", _) => r.attrs.first().and_then(|n| subnet_resource(env, n)),
            _ => None,
        };
        match (v, &found) {
            (None, _) => return (Known::Unknown, None),
            (Some(v), None) => found = Some(v),
            (Some(v), Some(prev)) if v.0 != prev.0 => return (Known::Unknown, None),
            _ => {}
        }
    }
    match found {
        Some((v, e)) => (Known::Known(v), e),
        None => (Known::Unknown, None),
    }
}

/// `"..."` with no `${` or `%{` inside and no other quote than its last.
fn is_plain_string(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 2 || b[0] != b'"' || text.contains("${") || text.contains("%{") {
        return false;
    }
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i == b.len() - 1,
            b'\n' => return false,
            _ => i += 1,
        }
    }
    false
}

fn names(r: &[Ref], root: &str) -> Vec<String> {
    r.iter()
        .filter(|x| x.root == root)
        .filter_map(|x| x.attrs.first().cloned())
        .collect()
}

/// `aws_subnet.NAME`: public IPs on launch, or the routes of its route table.
fn subnet_resource(env: &Env<'_>, name: &str) -> Option<(SubnetVisibility, Option<Loc>)> {
    let &(file, body, _) = env.decls.resources.get(&format!("aws_subnet.{name}"))?;
    if let Some(a) = body.get_attribute("map_public_ip_on_launch") {
        let v = env.eval(&a.value, file, &Vec::new()).ok()?;
        match v.kind {
            ValueKind::Bool(true) => {
                let span = eval::span_of(file, a.span()).unwrap_or_default();
                return Some((SubnetVisibility::Public, Some(Loc::new(span, ""))));
            }
            ValueKind::Bool(false) => {}
            _ => return None,
        }
    }
    let mut associated = false;
    let mut keys: Vec<&String> = env
        .decls
        .resources
        .keys()
        .filter(|k| k.starts_with("aws_route_table_association."))
        .collect();
    keys.sort();
    for key in keys {
        let Some(&(_, assoc, _)) = env.decls.resources.get(key) else {
            continue;
        };
        let subnet = assoc
            .get_attribute("subnet_id")
            .map(|a| refs_of_expr(&a.value));
        if !subnet.is_some_and(|s| names(&s, "aws_subnet").iter().any(|n| n == name)) {
            continue;
        }
        let rt = assoc.get_attribute("route_table_id")?;
        let tables = names(&refs_of_expr(&rt.value), "aws_route_table");
        let [table] = tables.as_slice() else {
            return None;
        };
        associated = true;
        if let Some(l) = igw_route(env, table) {
            return Some((SubnetVisibility::Public, Some(l)));
        }
    }
    associated.then_some((SubnetVisibility::Private, None))
}

/// A route to an internet gateway in the table's inline routes or in `aws_route`s.
fn igw_route(env: &Env<'_>, table: &str) -> Option<Loc> {
    let is_igw = |body: &hcl_edit::structure::Body, file| {
        let a = body.get_attribute("gateway_id")?;
        let refs = refs_of_expr(&a.value);
        let literal = matches!(&a.value, hcl_edit::expr::Expression::String(s) if s.value().starts_with("igw-"));
        (literal || refs.iter().any(|r| r.root == "aws_internet_gateway"))
            .then(|| Loc::new(eval::span_of(file, a.span()).unwrap_or_default(), ""))
    };
    let &(file, body, _) = env
        .decls
        .resources
        .get(&format!("aws_route_table.{table}"))?;
    for s in body.iter() {
        if let Structure::Block(b) = s {
            if b.ident.as_str() == "route" {
                if let Some(l) = is_igw(&b.body, file) {
                    return Some(l);
                }
            }
        }
    }
    let mut keys: Vec<_> = env
        .decls
        .resources
        .keys()
        .filter(|k| k.starts_with("aws_route."))
        .collect();
    keys.sort();
    for k in keys {
        let &(file, route, _) = env.decls.resources.get(k)?;
        let rt = route
            .get_attribute("route_table_id")
            .map(|a| refs_of_expr(&a.value));
        if rt.is_some_and(|r| names(&r, "aws_route_table").iter().any(|n| n == table)) {
            if let Some(l) = is_igw(route, file) {
                return Some(l);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::is_plain_string;

    #[test]
    fn plain_strings_are_told_from_expressions() {
        for plain in [r#""subnet-0a1b""#, r#""""#, r#""a \"quoted\" b""#] {
            assert!(is_plain_string(plain), "{plain}");
        }
        for expr in [
            r#""${var.x}""#,
            r#""%{if true}a%{endif}""#,
            r#""a" == var.b ? "x" : "y""#,
            "var.subnet",
            r#""open"#,
            "\"two\nlines\"",
            r#""\""#,
        ] {
            assert!(!is_plain_string(expr), "{expr}");
        }
    }
}
