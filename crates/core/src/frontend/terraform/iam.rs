//! Pod execution roles written as `aws_iam_role` next to the profiles: their
//! attached managed policies and the services their trust policy allows.

use super::eval::{self, span_of, Env};
use super::graph::refs_of_expr;
use super::{text, Builder};
use crate::model::{ExecutionRole, Known, Loc, Located};
use crate::value::{Value, ValueKind};
use hcl_edit::expr::Expression;
use hcl_edit::Span as _;

/// Link a profile (cluster `ci`, profile `pi`) to the role its
/// `pod_execution_role_arn` expression names, when that role is in the module.
pub fn link(
    b: &mut Builder,
    env: &Env<'_>,
    ci: usize,
    pi: usize,
    arn: Option<&Expression>,
    prefix: &str,
) {
    let Some(arn) = arn else { return };
    let names: Vec<String> = refs_of_expr(arn)
        .into_iter()
        .filter(|r| r.root == "aws_iam_role")
        .filter_map(|r| r.attrs.first().cloned())
        .collect();
    let [name] = names.as_slice() else { return };
    let addr = format!("{prefix}aws_iam_role.{name}");
    let Some(cluster) = b.clusters.get_mut(ci) else {
        return;
    };
    if let Some(r) = cluster
        .execution_roles
        .iter_mut()
        .find(|r| *r.loc.path == *addr)
    {
        r.profiles.push(pi);
        return;
    }
    if let Some(mut role) = read_role(env, name, &addr) {
        role.profiles.push(pi);
        cluster.execution_roles.push(role);
    }
}

fn read_role(env: &Env<'_>, name: &str, addr: &str) -> Option<ExecutionRole> {
    let &(file, body, repeated) = env.decls.resources.get(&format!("aws_iam_role.{name}"))?;
    if repeated {
        return None;
    }
    let header = env
        .decls
        .headers
        .get(&format!("aws_iam_role.{name}"))
        .copied()
        .unwrap_or_default();
    let attr = |n: &str| {
        body.get_attribute(n).map(|a| {
            env.eval(&a.value, file, &Vec::new())
                .unwrap_or_else(|_| Value::unknown(span_of(file, a.value.span())))
        })
    };
    let loc = Loc::new(header, addr);
    let path = match attr("path") {
        Some(p) => super::located_str(Some(&p), header, &format!("{addr}.path")),
        None => Located::new(Known::Known("/".into()), loc.clone()),
    };
    let name_v =
        attr("name").map(|n| super::located_str(Some(&n), header, &format!("{addr}.name")));
    let trusted_services = match attr("assume_role_policy") {
        None => Known::Unknown,
        Some(p) => match text::decode(env, &p) {
            Some(doc) => services(&doc),
            None => Known::Unknown,
        },
    };
    Some(ExecutionRole {
        profiles: Vec::new(),
        loc,
        name: name_v,
        path,
        policies: policies(env, name, attr("managed_policy_arns")),
        trusted_services,
    })
}

/// `Statement[].Principal.Service`, a string or a list.
fn services(doc: &Value) -> Known<Vec<Located<String>>> {
    let stmts: Vec<&Value> = match doc.get("Statement").map(|s| &s.kind) {
        Some(ValueKind::List(items)) => items.iter().collect(),
        Some(ValueKind::Map(_)) => doc.get("Statement").into_iter().collect(),
        _ => return Known::Unknown,
    };
    let mut out = Vec::new();
    for s in stmts {
        let Some(p) = s.get("Principal") else {
            continue;
        };
        if p.is_unknown() {
            return Known::Unknown;
        }
        let Some(svc) = p.get("Service") else {
            continue;
        };
        let items: Vec<&Value> = match &svc.kind {
            ValueKind::List(i) => i.iter().collect(),
            _ => vec![svc],
        };
        for i in items {
            match eval::scalar_text(i) {
                Some(t) => out.push(Located::new(
                    Known::Known(t),
                    Loc::new(i.span.unwrap_or_default(), "Principal.Service"),
                )),
                None => return Known::Unknown,
            }
        }
    }
    Known::Known(out)
}

/// `managed_policy_arns` on the role, and attachments that name the role.
fn policies(env: &Env<'_>, name: &str, inline: Option<Value>) -> Known<Vec<Located<String>>> {
    let mut out = Vec::new();
    let mut push = |v: &Value, path: &str| -> bool {
        match eval::scalar_text(v).or_else(|| super::auth::policy_arn_text(env, v)) {
            Some(t) => {
                out.push(Located::new(
                    Known::Known(t),
                    Loc::new(v.span.unwrap_or_default(), path),
                ));
                true
            }
            None => false,
        }
    };
    if let Some(list) = inline {
        let ValueKind::List(items) = &list.kind else {
            return Known::Unknown;
        };
        for i in items {
            if !push(i, "managed_policy_arns") {
                return Known::Unknown;
            }
        }
    }
    let mut keys: Vec<&String> = env
        .decls
        .resources
        .keys()
        .filter(|k| {
            k.starts_with("aws_iam_role_policy_attachment.")
                || k.starts_with("aws_iam_policy_attachment.")
        })
        .collect();
    keys.sort();
    for k in keys {
        let Some(&(file, body, repeated)) = env.decls.resources.get(k) else {
            continue;
        };
        let role_attr = body
            .get_attribute("role")
            .or_else(|| body.get_attribute("roles"));
        let Some(role_attr) = role_attr else { continue };
        let refs = refs_of_expr(&role_attr.value);
        let names_role = refs
            .iter()
            .any(|r| r.root == "aws_iam_role" && r.attrs.first().is_some_and(|n| n == name));
        if !names_role {
            continue;
        }
        if repeated {
            // Attachments made by for_each/count: their ARNs are not enumerated here.
            return Known::Unknown;
        }
        let Some(a) = body.get_attribute("policy_arn") else {
            return Known::Unknown;
        };
        let v = env
            .eval(&a.value, file, &Vec::new())
            .unwrap_or_else(|_| Value::unknown(None));
        if !push(&v, &format!("{k}.policy_arn")) {
            return Known::Unknown;
        }
    }
    Known::Known(out)
}
