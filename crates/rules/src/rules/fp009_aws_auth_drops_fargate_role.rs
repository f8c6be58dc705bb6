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
use fplint_core::workload::{AwsAuth, RoleMapping};
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

/// The user name Fargate nodes authenticate as.
pub const USERNAME: &str = "system:node:{{SessionName}}";

/// A user name that is not a Fargate node's: unknown when not written.
fn wrong_username(m: &RoleMapping) -> Option<&str> {
    let u = m.username.known()?;
    let ok = matches!(
        u.strip_prefix("system:node:"),
        Some("{{SessionName}}" | "{{SessionNameRaw}}")
    );
    (!ok).then_some(u.as_str())
}

/// Whether a mapping can serve a Fargate pod execution role, whatever role
/// it names: all the Fargate groups and a Fargate node's user name.
fn fit_for_fargate(m: &RoleMapping) -> Known<bool> {
    match missing_groups(m) {
        Known::Known(miss) if !miss.is_empty() => return Known::Known(false),
        Known::Known(_) => {}
        Known::Unknown => return Known::Unknown,
    }
    if wrong_username(m).is_some() {
        return Known::Known(false);
    }
    if m.username.is_known() {
        Known::Known(true)
    } else {
        Known::Unknown
    }
}

const HELP: &str = "add `{rolearn: <pod execution role ARN>, username: \"system:node:{{SessionName}}\", groups: [system:bootstrappers, system:nodes, system:node-proxier]}` to `mapRoles`";

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
                    if reported.contains(&who) {
                        continue;
                    }
                    let d = if who.is_empty() {
                        unknown_role(ctx, auth, mappings, p)
                    } else {
                        known_role(ctx, cluster, auth, mappings, p, &who)
                    };
                    if let Some(d) = d {
                        out.push(d);
                        reported.push(who);
                    }
                }
            }
        }
    }
}

/// A profile whose role is not known: `aws-auth` still loses it when no
/// entry can serve a Fargate role at all.
fn unknown_role(
    ctx: &Context<'_>,
    auth: &AwsAuth,
    mappings: &[RoleMapping],
    p: &FargateProfile,
) -> Option<Diagnostic> {
    if mappings
        .iter()
        .any(|m| fit_for_fargate(m) != Known::Known(false))
    {
        return None;
    }
    let name = profile_label(ctx.project, p);
    let role_at = p.pod_execution_role.as_ref().map_or(&p.loc, |r| &r.loc);
    // An entry with the Fargate groups but another user name may be the
    // role itself, mapped as an EC2 node.
    let near = mappings
        .iter()
        .find(|m| missing_groups(m).known().is_some_and(Vec::is_empty));
    let d = match (auth.map_roles_loc.as_ref(), near) {
        (None, _) => Diagnostic::new(
            "FP009",
            Severity::Error,
            format!(
                "`aws-auth` is written without `mapRoles`, so it drops the entry EKS added for the pod execution role of Fargate profile `{name}`, whatever that role is: pods wait with \"Pod provisioning timed out\""
            ),
            auth.loc.span,
        )
        .with_label("no `mapRoles`")
        .with_path(auth.loc.path.clone()),
        (Some(_), Some(m)) => {
            let user = wrong_username(m).unwrap_or("?");
            Diagnostic::new(
                "FP009",
                Severity::Error,
                format!(
                    "no `mapRoles` entry of `aws-auth` can be the pod execution role of Fargate profile `{name}`: the one with the Fargate groups maps its role to user `{user}`, and Fargate nodes authenticate as `{USERNAME}`; pods wait with \"Pod provisioning timed out\""
                ),
                m.loc.span,
            )
            .with_label(format!("user `{user}`, not `{USERNAME}`"))
            .with_path(m.loc.path.clone())
        }
        (Some(at), None) => Diagnostic::new(
            "FP009",
            Severity::Error,
            format!(
                "no `mapRoles` entry of `aws-auth` can be the pod execution role of Fargate profile `{name}`, whatever that role is: none has the groups {}, so writing the ConfigMap drops the entry EKS added, and pods wait with \"Pod provisioning timed out\"",
                GROUPS.iter().map(|g| format!("`{g}`")).collect::<Vec<_>>().join(", ")
            ),
            at.span,
        )
        .with_label("no entry with the Fargate groups")
        .with_path(at.path.clone()),
    };
    Some(
        d.with_related(role_at.span, format!("profile `{name}` uses this role"))
            .with_help(HELP),
    )
}

fn known_role(
    ctx: &Context<'_>,
    cluster: &Cluster,
    auth: &AwsAuth,
    mappings: &[RoleMapping],
    p: &FargateProfile,
    who: &Who<'_>,
) -> Option<Diagnostic> {
    let mut unsure = false;
    let mut partial: Option<(&RoleMapping, Vec<&str>)> = None;
    let mut misnamed: Option<(&RoleMapping, &str)> = None;
    // An entry of unknown role with the Fargate groups but an EC2 node's
    // user name: this role mapped wrongly, or another one.
    let mut maybe_misnamed: Option<(&RoleMapping, &str)> = None;
    for m in mappings {
        let missing = missing_groups(m);
        match (same(who, &mapping_who(cluster, m)), missing) {
            (Known::Known(true), Known::Known(miss)) if miss.is_empty() => {
                match wrong_username(m) {
                    Some(u) => {
                        misnamed.get_or_insert((m, u));
                    }
                    None => return None,
                }
            }
            (Known::Known(true), Known::Known(miss)) => {
                partial.get_or_insert((m, miss));
            }
            (Known::Known(true), Known::Unknown) => unsure = true,
            (Known::Known(false), _) => {}
            (Known::Unknown, Known::Known(miss)) if !miss.is_empty() => {}
            // Another role, as far as anything can tell, unless it is fit
            // for Fargate: then it may be this role.
            (Known::Unknown, miss) => match (wrong_username(m), miss) {
                (Some(u), Known::Known(_)) => {
                    maybe_misnamed.get_or_insert((m, u));
                }
                // Not a Fargate node's user name: not a working entry.
                (Some(_), Known::Unknown) => {}
                (None, _) => unsure = true,
            },
        }
    }
    if unsure {
        return None;
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
    let d = match (misnamed, partial) {
        (None, None) if maybe_misnamed.is_some() => {
            let (m, user) = maybe_misnamed?;
            Diagnostic::new(
                "FP009",
                Severity::Error,
                format!(
                    "no `mapRoles` entry of `aws-auth` maps the pod execution role of Fargate profile `{name}` ({role}) as Fargate needs: the one with the Fargate groups maps its role to user `{user}`, and Fargate nodes authenticate as `{USERNAME}`; pods wait with \"Pod provisioning timed out\""
                ),
                m.loc.span,
            )
            .with_label(format!("user `{user}`, not `{USERNAME}`"))
            .with_path(m.loc.path.clone())
            .with_related(role_at.span, format!("profile `{name}` uses this role"))
            .with_help(HELP)
        }
        (Some((m, user)), _) => Diagnostic::new(
            "FP009",
            Severity::Error,
            format!(
                "`aws-auth` maps the pod execution role of Fargate profile `{name}` ({role}) to user `{user}`: Fargate nodes authenticate as `{USERNAME}`, so they cannot join and pods time out"
            ),
            m.loc.span,
        )
        .with_label(format!("user `{user}`, not `{USERNAME}`"))
        .with_path(m.loc.path.clone())
        .with_related(role_at.span, format!("profile `{name}` uses this role"))
        .with_help(format!("map the role to `username: \"{USERNAME}\"`")),
        (None, Some((m, miss))) => Diagnostic::new(
            "FP009",
            Severity::Error,
            format!(
                "`aws-auth` maps the pod execution role of Fargate profile `{name}` ({role}) without {}: its Fargate nodes cannot work as nodes and pods time out",
                miss.iter().map(|g| format!("`{g}`")).collect::<Vec<_>>().join(", ")
            ),
            m.loc.span,
        )
        .with_label("Fargate groups missing")
        .with_path(m.loc.path.clone())
        .with_related(role_at.span, format!("profile `{name}` uses this role"))
        .with_help(HELP),
        (None, None) => {
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
            .with_related(role_at.span, format!("profile `{name}` uses this role"))
            .with_help(HELP)
        }
    };
    Some(d)
}
