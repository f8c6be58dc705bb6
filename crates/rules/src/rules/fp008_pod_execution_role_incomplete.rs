//! FP008 pod-execution-role-incomplete.
//!
//! A pod execution role defined next to its profiles must carry the managed
//! policy `AmazonEKSFargatePodExecutionRolePolicy` and trust
//! `eks-fargate-pods.amazonaws.com`; otherwise Fargate cannot pull images or
//! register its nodes, and pods stay Pending with "Pod execution role is not
//! found in auth config or does not have all required permissions". A role
//! with an IAM path is a warning: EKS maps it in `aws-auth` with the path,
//! which the IAM authenticator does not match.

use crate::common::profile_label;
use crate::{Context, Rule};
use fplint_core::model::{Cluster, ExecutionRole, Loc, Project};
use fplint_core::{Diagnostic, Severity};

/// The FP008 rule, `pod-execution-role-incomplete`: the module documentation says what it finds.
pub struct PodExecutionRoleIncomplete;

/// The AWS managed policy a pod execution role needs.
pub const POLICY: &str = "AmazonEKSFargatePodExecutionRolePolicy";
const SERVICE: &str = "eks-fargate-pods.amazonaws.com";

/// An IAM role ARN (`arn:aws:iam::111122223333:role/team/pods/NAME`) as its
/// path (`/team/pods/`, `/` when none) and its name.
pub fn role_arn_parts(arn: &str) -> Option<(String, &str)> {
    let (_, rest) = arn.split_once(":role/")?;
    match rest.rsplit_once('/') {
        Some((path, name)) => Some((format!("/{path}/"), name)),
        None => Some(("/".to_string(), rest)),
    }
}

fn role_label(role: &ExecutionRole) -> &str {
    role.name.as_ref().and_then(|n| n.known()).map_or_else(
        || {
            role.loc
                .path
                .strip_prefix("Resources.")
                .unwrap_or(&role.loc.path)
        },
        String::as_str,
    )
}

/// The first profile that uses the role, and where it names it.
fn first_user<'a>(
    project: &'a Project,
    cluster: &'a Cluster,
    role: &ExecutionRole,
) -> Option<(&'a str, &'a Loc)> {
    let p = role
        .profiles
        .first()
        .and_then(|&i| cluster.fargate_profiles.get(i))?;
    let at = p.pod_execution_role.as_ref().map_or(&p.loc, |r| &r.loc);
    Some((profile_label(project, p), at))
}

fn path_warning(out: &mut Vec<Diagnostic>, what: String, path: &str, loc: &Loc) {
    out.push(
        Diagnostic::new(
            "FP008",
            Severity::Warning,
            format!("{what} has the IAM path `{path}`: EKS maps it in `aws-auth` with the path, which the IAM authenticator does not match, so Fargate nodes may not register"),
            loc.span,
        )
        .with_label("path other than `/`")
        .with_path(loc.path.clone())
        .with_help("give the pod execution role the path `/`"),
    );
}

impl Rule for PodExecutionRoleIncomplete {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in &ctx.project.clusters {
            for role in &cluster.execution_roles {
                let name = role_label(role);
                let user = first_user(ctx.project, cluster, role);
                let with_user = |d: Diagnostic| match user {
                    Some((p, at)) => {
                        d.with_related(at.span, format!("profile `{p}` uses this role"))
                    }
                    None => d,
                };
                if let Some(policies) = role.policies.known() {
                    let attached = policies.iter().any(|p| {
                        p.known()
                            .is_some_and(|arn| arn.ends_with(&format!(":policy/{POLICY}")))
                    });
                    if !attached {
                        out.push(with_user(
                            Diagnostic::new(
                                "FP008",
                                Severity::Error,
                                format!("pod execution role `{name}` lacks the managed policy `{POLICY}`: Fargate cannot pull images or register its nodes"),
                                role.loc.span,
                            )
                            .with_label(format!("no `{POLICY}`"))
                            .with_path(role.loc.path.clone())
                            .with_help(format!("attach `arn:aws:iam::aws:policy/{POLICY}` to the role")),
                        ));
                    }
                }
                if let Some(services) = role.trusted_services.known() {
                    let trusted = services.iter().any(|s| {
                        s.known()
                            .is_some_and(|s| s.starts_with("eks-fargate-pods."))
                    });
                    if !trusted {
                        let at = services.first().map_or(&role.loc, |s| &s.loc);
                        out.push(with_user(
                            Diagnostic::new(
                                "FP008",
                                Severity::Error,
                                format!("the trust policy of pod execution role `{name}` does not allow `{SERVICE}`: Fargate cannot assume it"),
                                at.span,
                            )
                            .with_label(format!("`{SERVICE}` is not a trusted principal"))
                            .with_path(at.path.clone())
                            .with_help(format!("allow `sts:AssumeRole` to the service principal `{SERVICE}`")),
                        ));
                    }
                }
                if let Some(path) = role.path.known().filter(|p| p.as_str() != "/") {
                    path_warning(
                        out,
                        format!("pod execution role `{name}`"),
                        path,
                        &role.path.loc,
                    );
                }
            }
            // Roles known only by their ARN: the path is in it.
            let mut seen = Vec::new();
            for (i, p) in cluster.fargate_profiles.iter().enumerate() {
                if cluster
                    .execution_roles
                    .iter()
                    .any(|r| r.profiles.contains(&i))
                {
                    continue;
                }
                let Some(arn) = p.pod_execution_role.as_ref() else {
                    continue;
                };
                let Some((path, name)) = arn.known().and_then(|a| role_arn_parts(a)) else {
                    continue;
                };
                if path == "/" || seen.contains(&arn.loc.span) {
                    continue;
                }
                seen.push(arn.loc.span);
                path_warning(out, format!("pod execution role `{name}`"), &path, &arn.loc);
            }
        }
    }
}
