//! FP009 aws-auth-drops-fargate-role.
//!
//! When a Fargate profile is created, EKS adds its pod execution role to the
//! `aws-auth` ConfigMap with the groups `system:bootstrappers`,
//! `system:nodes` and `system:node-proxier`: that is how Fargate's kubelet
//! joins the cluster. Code that writes `aws-auth` (a manifest, a Terraform
//! `kubernetes_config_map*`, terraform-aws-eks v17-v19 managing it) replaces
//! that entry; without the role, pods wait with "Pod provisioning timed
//! out". Only clusters that authenticate with the ConfigMap alone are
//! checked: with access entries (`API_AND_CONFIG_MAP`, `API`) EKS gives the
//! role an access entry instead.

use super::fp008_pod_execution_role_incomplete::role_arn_parts;
use crate::common::profile_label;
use crate::{Context, Rule};
use fplint_core::model::{Cluster, FargateProfile, Known};
use fplint_core::workload::RoleMapping;
use fplint_core::{Diagnostic, Severity};

/// The FP009 rule, `aws-auth-drops-fargate-role`: the module documentation says what it finds.
pub struct AwsAuthDropsFargateRole;

/// The groups EKS maps a Fargate pod execution role into.
pub const GROUPS: [&str; 3] = [
    "system:bootstrappers",
    "system:nodes",
    "system:node-proxier",
];

/// What is known of a role: its name, and what in the code defines it.
#[derive(PartialEq)]
struct Who<'a> {
    name: Option<String>,
    reference: Option<&'a str>,
}

impl Who<'_> {
    fn is_empty(&self) -> bool {
        self.name.is_none() && self.reference.is_none()
    }
}

fn name_of_arn(arn: &str) -> String {
    role_arn_parts(arn).map_or(arn, |(_, n)| n).to_string()
}

/// The suffix frontends give the reference of a role a module creates for a
/// profile (`module.fargate#pod-execution-role`).
const CREATED: &str = "#pod-execution-role";

/// A reference that names exactly one role: a role resource, or a role a
/// module creates. Two different ones are two roles. (`module.NAME` alone is
/// whatever the module outputs, maybe a role it was given.)
fn one_role(r: &str) -> bool {
    r.contains("aws_iam_role.") || r.starts_with("Resources.") || r.ends_with(CREATED)
}

fn defined_name<'a>(cluster: &'a Cluster, reference: Option<&str>) -> Option<&'a String> {
    let r = reference?;
    cluster
        .execution_roles
        .iter()
        .find(|x| &*x.loc.path == r)?
        .name
        .as_ref()?
        .known()
}

fn profile_who<'a>(cluster: &'a Cluster, i: usize, p: &'a FargateProfile) -> Who<'a> {
    let arn = p.pod_execution_role.as_ref().and_then(|r| r.known());
    let defined = cluster
        .execution_roles
        .iter()
        .find(|r| r.profiles.contains(&i))
        .and_then(|r| r.name.as_ref()?.known());
    Who {
        name: arn.map(|a| name_of_arn(a)).or_else(|| defined.cloned()),
        reference: p.role_ref.as_deref(),
    }
}

fn mapping_who<'a>(cluster: &'a Cluster, m: &'a RoleMapping) -> Who<'a> {
    let name = match m.role_arn.known() {
        Some(a) if role_arn_parts(a).is_some() => Some(name_of_arn(a)),
        // A placeholder (`<>`, `ROLE_ARN`) is not a role yet: unknown.
        Some(_) => None,
        None => m
            .role_name
            .clone()
            .or_else(|| defined_name(cluster, m.role_ref.as_deref()).cloned()),
    };
    Who {
        name,
        reference: m.role_ref.as_deref(),
    }
}

/// Whether a profile's role and a mapping's are one role.
fn same(p: &Who<'_>, m: &Who<'_>) -> Known<bool> {
    if let (Some(x), Some(y)) = (&p.name, &m.name) {
        return Known::Known(x.eq_ignore_ascii_case(y));
    }
    match (p.reference, m.reference) {
        (Some(x), Some(y)) if x == y => Known::Known(true),
        // `module.fargate.iam_role_arn` is the role that sub-module creates.
        (Some(x), Some(y)) if x.strip_suffix(CREATED) == Some(y) => Known::Known(true),
        (Some(x), Some(y)) if one_role(x) && one_role(y) => Known::Known(false),
        _ => Known::Unknown,
    }
}

/// A cluster that certainly does not map Fargate roles through access
/// entries: its authentication mode is `CONFIG_MAP`.
fn config_map_only(cluster: &Cluster) -> bool {
    cluster.authentication_mode.known().map(String::as_str) == Some("CONFIG_MAP")
}

/// The Fargate groups a mapping lacks; unknown when its groups are.
fn missing_groups(m: &RoleMapping) -> Known<Vec<&'static str>> {
    match m.groups.known() {
        Some(gs) => Known::Known(
            GROUPS
                .iter()
                .copied()
                .filter(|g| !gs.iter().any(|x| x == g))
                .collect(),
        ),
        None => Known::Unknown,
    }
}

impl Rule for AwsAuthDropsFargateRole {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            if !config_map_only(cluster) {
                continue;
            }
            let auths = ctx
                .project
                .aws_auth
                .iter()
                .filter(|a| a.cluster_key.as_deref() == Some(cluster.key.as_str()));
            for auth in auths {
                let Some(mappings) = auth.roles.known() else {
                    continue;
                };
                let mut reported: Vec<Who<'_>> = Vec::new();
                for (i, p) in cluster.fargate_profiles.iter().enumerate() {
                    let who = profile_who(cluster, i, p);
                    if who.is_empty() || reported.contains(&who) {
                        continue;
                    }
                    let mut unsure = false;
                    let mut partial: Option<(&RoleMapping, Vec<&str>)> = None;
                    let mut mapped = false;
                    for m in mappings {
                        let missing = missing_groups(m);
                        match (same(&who, &mapping_who(cluster, m)), missing) {
                            (Known::Known(true), Known::Known(miss)) if miss.is_empty() => {
                                mapped = true;
                            }
                            (Known::Known(true), Known::Known(miss)) => {
                                partial.get_or_insert((m, miss));
                            }
                            (Known::Known(true), Known::Unknown) => unsure = true,
                            (Known::Known(false), _) => {}
                            (Known::Unknown, Known::Known(miss)) if !miss.is_empty() => {}
                            (Known::Unknown, _) => unsure = true,
                        }
                    }
                    if mapped || unsure {
                        continue;
                    }
                    let name = profile_label(ctx.project, p);
                    let role_at = p.pod_execution_role.as_ref().map_or(&p.loc, |r| &r.loc);
                    let role = match (&who.name, who.reference) {
                        (Some(n), _) => format!("`{n}`"),
                        (None, Some(r)) => match r.strip_suffix(CREATED) {
                            Some(m) => format!("the one `{m}` creates"),
                            None => format!("`{r}`"),
                        },
                        (None, None) => "?".to_string(),
                    };
                    let d = match partial {
                        Some((m, miss)) => Diagnostic::new(
                            "FP009",
                            Severity::Error,
                            format!(
                                "`aws-auth` maps the pod execution role of Fargate profile `{name}` ({role}) without {}: its Fargate nodes cannot work as nodes and pods time out",
                                miss.iter().map(|g| format!("`{g}`")).collect::<Vec<_>>().join(", ")
                            ),
                            m.loc.span,
                        )
                        .with_label("Fargate groups missing")
                        .with_path(m.loc.path.clone()),
                        None => {
                            let at = auth.map_roles_loc.as_ref().unwrap_or(&auth.loc);
                            Diagnostic::new(
                                "FP009",
                                Severity::Error,
                                format!(
                                    "`aws-auth` does not map the pod execution role of Fargate profile `{name}` ({role}): writing the ConfigMap drops the entry EKS added, and pods wait with \"Pod provisioning timed out\""
                                ),
                                at.span,
                            )
                            .with_label("no entry for the Fargate pod execution role")
                            .with_path(at.path.clone())
                        }
                    };
                    out.push(
                        d.with_related(role_at.span, format!("profile `{name}` uses this role"))
                            .with_help("add `{rolearn: <pod execution role ARN>, username: \"system:node:{{SessionName}}\", groups: [system:bootstrappers, system:nodes, system:node-proxier]}` to `mapRoles`"),
                    );
                    reported.push(who);
                }
            }
        }
    }
}
