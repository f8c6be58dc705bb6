//! FP008 pod-execution-role-incomplete.
//!
//! A pod execution role defined next to its profiles must allow the ECR
//! pull actions (what `AmazonEKSFargatePodExecutionRolePolicy` grants, or
//! another managed policy or statement that grants them) and trust
//! `eks-fargate-pods.amazonaws.com`; otherwise Fargate cannot pull images
//! from private ECR repositories, or cannot use the role at all. A role with
//! an IAM path is a warning: EKS maps it in `aws-auth` with the path, which
//! the IAM authenticator does not match. A cluster on access entries alone
//! (`API`) never reads `aws-auth`, and access entries take paths. Quiet when
//! a policy's content is not known.

use crate::common::profile_label;
use crate::{Context, Rule};
use fplint_core::glob;
use fplint_core::model::{Cluster, ExecutionRole, Known, Loc, Project};
use fplint_core::{Diagnostic, Severity};

/// The FP008 rule, `pod-execution-role-incomplete`: the module documentation says what it finds.
pub struct PodExecutionRoleIncomplete;

/// The AWS managed policy a pod execution role needs.
pub const POLICY: &str = "AmazonEKSFargatePodExecutionRolePolicy";
const SERVICE: &str = "eks-fargate-pods.amazonaws.com";

/// The actions an image pull calls. `AmazonEKSFargatePodExecutionRolePolicy`
/// also grants `ecr:BatchCheckLayerAvailability`, which only pushes use.
const PULL: &[&str] = &[
    "ecr:GetAuthorizationToken",
    "ecr:BatchGetImage",
    "ecr:GetDownloadUrlForLayer",
];

/// AWS managed policies that grant every pull action.
const GRANTS_PULL: &[&str] = &[
    POLICY,
    "AmazonEC2ContainerRegistryReadOnly",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonEC2ContainerRegistryPowerUser",
    "AmazonEC2ContainerRegistryFullAccess",
    "AmazonECSTaskExecutionRolePolicy",
    "AdministratorAccess",
    "PowerUserAccess",
];

/// AWS managed policies known to grant no ECR action. Any other policy may
/// grant them, which keeps the check quiet.
const NO_ECR: &[&str] = &[
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEKSClusterPolicy",
    "AmazonEKSVPCResourceController",
    "AmazonEKSServicePolicy",
    "AmazonSSMManagedInstanceCore",
    "CloudWatchAgentServerPolicy",
];

/// An AWS managed policy's name (`arn:aws:iam::aws:policy/service-role/NAME`).
fn aws_managed(arn: &str) -> Option<&str> {
    let (_, rest) = arn.split_once(":iam::aws:policy/")?;
    Some(rest.rsplit('/').next().unwrap_or(rest))
}

/// Whether an IAM action pattern (`ecr:Get*`, `*`) covers `action`.
fn covers(pattern: &str, action: &str) -> bool {
    glob::matches(&pattern.to_ascii_lowercase(), &action.to_ascii_lowercase())
}

/// The pull actions the role certainly lacks; unknown when a policy's
/// content cannot be told or a statement denies one.
fn missing_pull(role: &ExecutionRole) -> Known<Vec<&'static str>> {
    let (Some(policies), Some(statements)) = (role.policies.known(), role.statements.known())
    else {
        return Known::Unknown;
    };
    let mut unknown_policy = false;
    let mut granted_by_policy = false;
    for p in policies {
        let Some(arn) = p.known() else {
            unknown_policy = true;
            continue;
        };
        match aws_managed(arn) {
            Some(n) if GRANTS_PULL.contains(&n) => granted_by_policy = true,
            Some(n) if NO_ECR.contains(&n) => {}
            _ => unknown_policy = true,
        }
    }
    let denied = |a: &str| {
        statements
            .iter()
            .any(|s| !s.allow && s.actions.iter().any(|p| covers(p, a)))
    };
    if PULL.iter().any(|a| denied(a)) {
        return Known::Unknown;
    }
    if granted_by_policy {
        return Known::Known(Vec::new());
    }
    let missing: Vec<&str> = PULL
        .iter()
        .copied()
        .filter(|a| {
            !statements
                .iter()
                .any(|s| s.allow && s.actions.iter().any(|p| covers(p, a)))
        })
        .collect();
    if !missing.is_empty() && unknown_policy {
        return Known::Unknown;
    }
    Known::Known(missing)
}

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
        for cluster in ctx.clusters() {
            // With access entries alone EKS never reads `aws-auth`, and an
            // access entry takes a role ARN with a path.
            let paths_matter =
                cluster.authentication_mode.known().map(String::as_str) != Some("API");
            for role in &cluster.execution_roles {
                let name = role_label(role);
                let user = first_user(ctx.project, cluster, role);
                let with_user = |d: Diagnostic| match user {
                    Some((p, at)) => {
                        d.with_related(at.span, format!("profile `{p}` uses this role"))
                    }
                    None => d,
                };
                if let Known::Known(missing) = missing_pull(role) {
                    if !missing.is_empty() {
                        let list = missing
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", ");
                        let (label, help) = if missing.len() == PULL.len() {
                            (
                                format!("no `{POLICY}` nor another grant of the ECR pull actions"),
                                format!("attach `arn:aws:iam::aws:policy/{POLICY}` to the role"),
                            )
                        } else {
                            (
                                format!("does not allow {list}"),
                                format!("allow {list} in the role's policy, or attach `arn:aws:iam::aws:policy/{POLICY}`"),
                            )
                        };
                        out.push(with_user(
                            Diagnostic::new(
                                "FP008",
                                Severity::Error,
                                format!("pod execution role `{name}` does not allow {list}: Fargate cannot pull images from private Amazon ECR repositories"),
                                role.loc.span,
                            )
                            .with_label(label)
                            .with_path(role.loc.path.clone())
                            .with_help(help),
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
                // An empty path is the root path.
                let path = role
                    .path
                    .known()
                    .filter(|p| paths_matter && !matches!(p.as_str(), "/" | ""));
                if let Some(path) = path {
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
                if !paths_matter || path == "/" || seen.contains(&arn.loc.span) {
                    continue;
                }
                seen.push(arn.loc.span);
                path_warning(out, format!("pod execution role `{name}`"), &path, &arn.loc);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managed_policy_names_and_action_patterns() {
        assert_eq!(
            aws_managed("arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy"),
            Some("AmazonECSTaskExecutionRolePolicy")
        );
        assert_eq!(
            aws_managed(
                "arn:${AWS::Partition}:iam::aws:policy/AmazonEKSFargatePodExecutionRolePolicy"
            ),
            Some(POLICY)
        );
        assert_eq!(aws_managed("arn:aws:iam::111122223333:policy/pull"), None);
        assert!(covers("ecr:Get*", "ecr:GetAuthorizationToken"));
        assert!(covers("ECR:batchgetimage", "ecr:BatchGetImage"));
        assert!(covers("*", "ecr:BatchGetImage"));
        assert!(!covers("ecr:Describe*", "ecr:GetDownloadUrlForLayer"));
        assert!(!covers("s3:*", "ecr:BatchGetImage"));
    }
}
