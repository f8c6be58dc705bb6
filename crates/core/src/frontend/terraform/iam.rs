//! Pod execution roles written as `aws_iam_role` next to the profiles: their
//! attached managed policies and the services their trust policy allows.

use super::eval::{self, span_of, Env};
use super::graph::refs_of_expr;
use super::{text, Builder};
use crate::model::{
    join_statements, policy_statements, ExecutionRole, Known, Loc, Located, PolicyStatement,
};
use crate::source::FileId;
use crate::value::{Value, ValueKind};
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Body, Structure};
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
    // An empty path is the root path.
    let path = match attr("path") {
        Some(p) => {
            let mut l = super::located_str(Some(&p), header, &crate::path::dot(addr, "path"));
            if l.known().is_some_and(String::is_empty) {
                l.value = Known::Known("/".into());
            }
            l
        }
        None => Located::new(Known::Known("/".into()), loc.clone()),
    };
    let name_v =
        attr("name").map(|n| super::located_str(Some(&n), header, &crate::path::dot(addr, "name")));
    let trusted_services = match attr("assume_role_policy") {
        None => Known::Unknown,
        Some(p) => match text::decode(env, &p) {
            Some(doc) => services(&doc),
            None => Known::Unknown,
        },
    };
    let (policies, attached) = policies(env, name, attr("managed_policy_arns"));
    let statements = join_statements(
        attached,
        join_statements(
            inline_policies(env, file, body, addr),
            role_policies(env, name),
        ),
    );
    Some(ExecutionRole {
        profiles: Vec::new(),
        loc,
        name: name_v,
        path,
        policies,
        trusted_services,
        statements,
    })
}

/// The statements of a `policy` argument (JSON text, `jsonencode`, a heredoc).
fn policy_document(
    env: &Env<'_>,
    file: FileId,
    body: &Body,
    path: &str,
) -> Known<Vec<PolicyStatement>> {
    let Some(a) = body.get_attribute("policy") else {
        return Known::Unknown;
    };
    let v = env
        .eval(&a.value, file, &Vec::new())
        .unwrap_or_else(|_| Value::unknown(span_of(file, a.value.span())));
    match text::decode(env, &v) {
        Some(doc) if matches!(doc.kind, ValueKind::Map(_)) => policy_statements(&doc, path),
        _ => Known::Unknown,
    }
}

/// The role's `inline_policy` blocks; a `dynamic` one is unknown.
fn inline_policies(
    env: &Env<'_>,
    file: FileId,
    body: &Body,
    addr: &str,
) -> Known<Vec<PolicyStatement>> {
    let mut out = Known::Known(Vec::new());
    for s in body.iter() {
        let Structure::Block(b) = s else { continue };
        match (b.ident.as_str(), b.labels.first().map(|l| l.as_str())) {
            ("inline_policy", _) => {
                // An empty block removes the inline policies Terraform manages.
                if b.body.get_attribute("policy").is_none() {
                    continue;
                }
                let doc =
                    policy_document(env, file, &b.body, &crate::path::dot(addr, "inline_policy"));
                out = join_statements(out, doc);
            }
            ("dynamic", Some("inline_policy")) => return Known::Unknown,
            _ => {}
        }
    }
    out
}

/// `aws_iam_role_policy` resources whose `role` is this role.
fn role_policies(env: &Env<'_>, name: &str) -> Known<Vec<PolicyStatement>> {
    let mut keys: Vec<&String> = env
        .decls
        .resources
        .keys()
        .filter(|k| k.starts_with("aws_iam_role_policy."))
        .collect();
    keys.sort();
    let mut out = Known::Known(Vec::new());
    for k in keys {
        let Some(&(file, body, repeated)) = env.decls.resources.get(k) else {
            continue;
        };
        let Some(role_attr) = body.get_attribute("role") else {
            continue;
        };
        let names_role = refs_of_expr(&role_attr.value)
            .iter()
            .any(|r| r.root == "aws_iam_role" && r.attrs.first().is_some_and(|n| n == name));
        if !names_role {
            continue;
        }
        if repeated {
            return Known::Unknown;
        }
        out = join_statements(out, policy_document(env, file, body, k));
    }
    out
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

/// `managed_policy_arns` on the role, and attachments that name the role;
/// an attached `aws_iam_policy` of the module is read as statements.
fn policies(
    env: &Env<'_>,
    name: &str,
    inline: Option<Value>,
) -> (Known<Vec<Located<String>>>, Known<Vec<PolicyStatement>>) {
    let mut statements = Known::Known(Vec::new());
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
            return (Known::Unknown, statements);
        };
        for i in items {
            if !push(i, "managed_policy_arns") {
                return (Known::Unknown, statements);
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
            return (Known::Unknown, statements);
        }
        let Some(a) = body.get_attribute("policy_arn") else {
            return (Known::Unknown, statements);
        };
        let v = env
            .eval(&a.value, file, &Vec::new())
            .unwrap_or_else(|_| Value::unknown(None));
        if push(&v, &crate::path::dot(k, "policy_arn")) {
            continue;
        }
        // A policy of the module: its document, not its ARN, says what it allows.
        let policy = refs_of_expr(&a.value)
            .into_iter()
            .find(|r| r.root == "aws_iam_policy")
            .and_then(|r| r.attrs.first().cloned())
            .map(|n| format!("aws_iam_policy.{n}"));
        match policy.and_then(|p| Some((env.decls.resources.get(&p).copied()?, p))) {
            Some(((pfile, pbody, false), p)) => {
                statements = join_statements(statements, policy_document(env, pfile, pbody, &p));
            }
            _ => return (Known::Unknown, statements),
        }
    }
    (Known::Known(out), statements)
}
