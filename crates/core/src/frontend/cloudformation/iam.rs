//! Pod execution roles written as `AWS::IAM::Role` in the template and named
//! by a profile's `PodExecutionRoleArn: !GetAtt Role.Arn`: their path, managed
//! policies and the services their trust policy allows.

use super::intrinsic::{self, as_fn, sub_vars};
use super::template::{Resource, Template};
use crate::model::{
    join_statements, policy_statements, Cluster, ExecutionRole, Known, Loc, Located,
    PolicyStatement,
};
use crate::tree::Node;
use crate::value::Value;

const ROLE: &str = "AWS::IAM::Role";

/// Link profile `pi` of `cluster` to the role its `PodExecutionRoleArn` names.
pub fn link(t: &Template<'_>, arn: Option<&Node>, cluster: &mut Cluster, pi: usize) {
    let Some(arn) = arn else { return };
    let Some(("Fn::GetAtt", arg)) = as_fn(arn) else {
        return;
    };
    let attribute = match arg.as_seq() {
        Some([_, a]) => a.as_str(),
        _ => arg.as_str().and_then(|s| s.split_once('.')).map(|(_, a)| a),
    };
    if attribute != Some("Arn") {
        return;
    }
    let Some(id) = intrinsic::getatt_target(arn) else {
        return;
    };
    let Some((_, role)) = t.resource(id).filter(|(_, r)| r.ty == ROLE) else {
        return;
    };
    let path = format!("Resources.{}", role.id);
    if let Some(p) = cluster.fargate_profiles.get_mut(pi) {
        p.role_ref = Some(path.clone());
    }
    match cluster
        .execution_roles
        .iter_mut()
        .find(|r| *r.loc.path == *path)
    {
        Some(r) => r.profiles.push(pi),
        None => {
            let mut r = read_role(t, role, path);
            r.profiles.push(pi);
            cluster.execution_roles.push(r);
        }
    }
}

fn read_role(t: &Template<'_>, r: &Resource<'_>, path: String) -> ExecutionRole {
    let loc = Loc::new(r.key.span, path.clone());
    let props = crate::path::dot(&path, "Properties");
    let name = t.present(r.prop("RoleName")).map(|n| {
        Located::new(
            t.eval_str(n),
            Loc::new(n.span, crate::path::dot(&props, "RoleName")),
        )
    });
    // An empty path (a parameter defaulting to '') is the root path.
    let role_path = match t.present(r.prop("Path")) {
        Some(p) => Located::new(
            t.eval_str(p)
                .map(|s| if s.is_empty() { "/".into() } else { s }),
            Loc::new(p.span, crate::path::dot(&props, "Path")),
        ),
        None => Located::new(Known::Known("/".into()), loc.clone()),
    };
    ExecutionRole {
        profiles: Vec::new(),
        loc,
        name,
        path: role_path,
        policies: policies(t, r, &props),
        trusted_services: services(t, r, &props),
        statements: statements(t, r, &props),
    }
}

/// A `PolicyDocument`'s statements; an intrinsic in its place is unknown.
fn document(doc: Option<&Node>, path: &str) -> Known<Vec<PolicyStatement>> {
    match doc {
        Some(d) if as_fn(d).is_none() && d.as_map().is_some() => {
            policy_statements(&Value::from_node(d), path)
        }
        _ => Known::Unknown,
    }
}

/// The role's inline `Policies`, and the `AWS::IAM::Policy` and
/// `AWS::IAM::ManagedPolicy` resources of the template that name it in `Roles`.
fn statements(t: &Template<'_>, r: &Resource<'_>, props: &str) -> Known<Vec<PolicyStatement>> {
    let mut out = Known::Known(Vec::new());
    if let Some(list) = t.present(r.prop("Policies")) {
        let Some(items) = list.as_seq() else {
            return Known::Unknown;
        };
        for (i, p) in items.iter().enumerate() {
            if as_fn(p).is_some() {
                return Known::Unknown;
            }
            let doc = document(
                p.get("PolicyDocument"),
                &format!("{props}.Policies[{i}].PolicyDocument"),
            );
            out = join_statements(out, doc);
        }
    }
    for p in &t.resources {
        if !matches!(p.ty, "AWS::IAM::Policy" | "AWS::IAM::ManagedPolicy") {
            continue;
        }
        let names_role = p
            .prop("Roles")
            .and_then(Node::as_seq)
            .is_some_and(|roles| roles.iter().any(|x| intrinsic::ref_target(x) == Some(r.id)));
        if names_role {
            let doc = document(
                p.prop("PolicyDocument"),
                &format!("Resources.{}.Properties.PolicyDocument", p.id),
            );
            out = join_statements(out, doc);
        }
    }
    out
}

/// A string whose only unknowns are pseudo parameters that do not change
/// what it names (`arn:${AWS::Partition}:iam::aws:policy/NAME`,
/// `eks-fargate-pods.${AWS::URLSuffix}`): its text, variables left in.
fn text(t: &Template<'_>, n: &Node) -> Known<String> {
    if let Known::Known(s) = t.eval_str(n) {
        return Known::Known(s);
    }
    let Some(("Fn::Sub", arg)) = as_fn(n) else {
        return Known::Unknown;
    };
    match arg.as_str().filter(|_| arg.as_map().is_none()) {
        Some(s)
            if sub_vars(s)
                .iter()
                .all(|v| matches!(v.name, "AWS::Partition" | "AWS::URLSuffix")) =>
        {
            Known::Known(s.to_string())
        }
        _ => Known::Unknown,
    }
}

/// `ManagedPolicyArns`. Managed policies of the template that name the role
/// in their `Roles` are read as statements instead.
fn policies(t: &Template<'_>, r: &Resource<'_>, props: &str) -> Known<Vec<Located<String>>> {
    let mut out = Vec::new();
    if let Some(list) = t.present(r.prop("ManagedPolicyArns")) {
        let Some(items) = list.as_seq() else {
            return Known::Unknown;
        };
        for (i, item) in items.iter().enumerate() {
            match text(t, item) {
                Known::Known(s) => out.push(Located::new(
                    Known::Known(s),
                    Loc::new(item.span, format!("{props}.ManagedPolicyArns[{i}]")),
                )),
                Known::Unknown => return Known::Unknown,
            }
        }
    }
    Known::Known(out)
}

/// `AssumeRolePolicyDocument.Statement[].Principal.Service`.
fn services(t: &Template<'_>, r: &Resource<'_>, props: &str) -> Known<Vec<Located<String>>> {
    let Some(doc) = t.present(r.prop("AssumeRolePolicyDocument")) else {
        return Known::Unknown;
    };
    if as_fn(doc).is_some() || doc.as_map().is_none() {
        return Known::Unknown;
    }
    let stmts: Vec<&Node> = match doc.get("Statement") {
        Some(s) if as_fn(s).is_some() => return Known::Unknown,
        Some(s) => match s.as_seq() {
            Some(items) => items.iter().collect(),
            None => vec![s],
        },
        None => return Known::Unknown,
    };
    let mut out = Vec::new();
    for (i, s) in stmts.into_iter().enumerate() {
        if as_fn(s).is_some() {
            return Known::Unknown;
        }
        let Some(p) = s.get("Principal") else {
            continue;
        };
        if as_fn(p).is_some() {
            return Known::Unknown;
        }
        let Some(svc) = p.get("Service") else {
            continue;
        };
        let items: Vec<&Node> = match svc.as_seq() {
            Some(items) => items.iter().collect(),
            None => vec![svc],
        };
        for item in items {
            match text(t, item) {
                Known::Known(x) => out.push(Located::new(
                    Known::Known(x),
                    Loc::new(
                        item.span,
                        format!(
                            "{props}.AssumeRolePolicyDocument.Statement[{i}].Principal.Service"
                        ),
                    ),
                )),
                Known::Unknown => return Known::Unknown,
            }
        }
    }
    Known::Known(out)
}

#[cfg(test)]
mod tests {
    use crate::frontend::load_document_file;
    use crate::model::Known;
    use crate::source::{FileId, SourceFile};
    use crate::tree::Limits;

    fn strings(v: &Known<Vec<crate::model::Located<String>>>) -> Option<Vec<String>> {
        v.known()
            .map(|xs| xs.iter().filter_map(|x| x.known().cloned()).collect())
    }

    #[test]
    fn roles_named_by_getatt_with_pseudo_parameters() {
        let t = "Resources:\n  C:\n    Type: AWS::EKS::Cluster\n    Properties: {Name: shop}\n  \
                 P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: !Ref C\n      \
                 PodExecutionRoleArn: !GetAtt R.Arn\n  \
                 Q:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: !Ref C\n      \
                 PodExecutionRoleArn: {\"Fn::GetAtt\": [R, Arn]}\n  \
                 R:\n    Type: AWS::IAM::Role\n    Properties:\n      Path: /eks/\n      \
                 AssumeRolePolicyDocument:\n        Statement:\n          - Principal: {Service: [!Sub 'eks-fargate-pods.${AWS::URLSuffix}']}\n      \
                 ManagedPolicyArns:\n        - !Sub arn:${AWS::Partition}:iam::aws:policy/AmazonEKSFargatePodExecutionRolePolicy\n";
        let out = load_document_file(&SourceFile::new(FileId(0), "t.yaml", t), Limits::default());
        let c = &out.clusters[0];
        assert_eq!(c.authentication_mode, Known::Known("CONFIG_MAP".into()));
        assert_eq!(
            c.fargate_profiles[0].role_ref.as_deref(),
            Some("Resources.R")
        );
        let [r] = &c.execution_roles[..] else {
            panic!("{:?}", c.execution_roles)
        };
        assert_eq!(r.profiles, [0, 1]);
        assert_eq!(r.path.known().map(String::as_str), Some("/eks/"));
        assert_eq!(
            strings(&r.trusted_services).unwrap(),
            ["eks-fargate-pods.${AWS::URLSuffix}"]
        );
        assert_eq!(
            strings(&r.policies).unwrap(),
            ["arn:${AWS::Partition}:iam::aws:policy/AmazonEKSFargatePodExecutionRolePolicy"]
        );
    }

    #[test]
    fn unreadable_parts_stay_unknown() {
        let t = "Parameters:\n  Policy: {Type: String}\nResources:\n  \
                 P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: c\n      \
                 PodExecutionRoleArn: !GetAtt R.Arn\n  \
                 R:\n    Type: AWS::IAM::Role\n    Properties:\n      \
                 AssumeRolePolicyDocument: !If [X, {}, {}]\n      ManagedPolicyArns: [!Ref Policy]\n";
        let out = load_document_file(&SourceFile::new(FileId(0), "t.yaml", t), Limits::default());
        let r = &out.clusters[0].execution_roles[0];
        assert!(!r.policies.is_known());
        assert!(!r.trusted_services.is_known());
        // A role the profile names by `Ref` (its name) is not linked.
        let t = t.replace("!GetAtt R.Arn", "!Ref R");
        let out = load_document_file(
            &SourceFile::new(FileId(0), "t.yaml", t.as_str()),
            Limits::default(),
        );
        assert!(out.clusters[0].execution_roles.is_empty());
    }
}
