//! FP012 installed-before-fargate-profile.
//!
//! Pods created before the Fargate profile that selects them is ACTIVE are
//! handed to the default scheduler; on a cluster without nodes they stay
//! Pending, and nothing moves them once the profile is ready. Reports what
//! the deployment engine may create before the profile that runs its pods:
//! Terraform workloads (`kubernetes_*`, `kubectl_manifest`), Helm releases
//! FP002 does not report (they tolerate the Fargate taint, or their values
//! may), the
//! terraform-aws-eks module's CoreDNS add-on with `before_compute = true`,
//! and a CoreDNS add-on resource with no dependency on the profile that
//! serves it. Quiet when either resource, or the placement, is unknown.

use crate::common::{
    add_dependency_fix, certainly_tolerated, depends_on_target, fargate_only, place, profile_label,
    release_pod_namespace, uncovered, unordered_fargate_profile, weighed_note, workload_name,
    workloads_of,
};
use crate::{Context, Rule};
use fplint_core::model::{Cluster, FargateProfile, Known, Loc, Project, Provisioner, ResourceRef};
use fplint_core::placement::{self, Placement};
use fplint_core::workload::WorkloadKind;
use fplint_core::{Diagnostic, Severity};

/// The FP012 rule, `installed-before-fargate-profile`: the module documentation says what it finds.
pub struct InstalledBeforeFargateProfile;

const CODE: &str = "FP012";

impl Rule for InstalledBeforeFargateProfile {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let project = ctx.project;
        for cluster in ctx.clusters() {
            if cluster.fargate_only() != Known::Known(true) || cluster.fargate_profiles.is_empty() {
                continue;
            }
            let karpenter = cluster.karpenter();
            // Helm releases FP002 would report, had they no toleration.
            for rel in &cluster.helm_releases {
                let own = rel.chart_name() == Some("karpenter");
                if !own && karpenter != Known::Known(false) {
                    continue;
                }
                let Some(from) = rel.resource else {
                    continue;
                };
                let Some((profile, _)) = unordered_fargate_profile(project, cluster, rel) else {
                    continue;
                };
                // A chart the data knows to make pods there, that FP002
                // does not report.
                if release_pod_namespace(rel).is_none() || uncovered(rel).is_some() {
                    continue;
                }
                // Tolerations are spoken of only when the pods have them.
                let why = if certainly_tolerated(rel) {
                    " (tolerating the Fargate taint does not help pods the default scheduler already holds)"
                } else {
                    ""
                };
                let why = format!("{why}{}", weighed_note(rel));
                let Some(pres) = profile.resource else {
                    continue;
                };
                if pres.graph != from.graph {
                    continue;
                }
                let name = rel.name.known().map_or(&*rel.loc.path, String::as_str);
                out.push(finding(
                    project,
                    cluster,
                    profile,
                    &format!("Helm release `{name}`"),
                    &rel.loc,
                    &why,
                    Some(from),
                ));
            }
            if !fargate_only(cluster) {
                continue;
            }
            for w in workloads_of(project, cluster) {
                // DaemonSets never run on Fargate (FP014).
                if w.kind == WorkloadKind::DaemonSet {
                    continue;
                }
                let Some(from) = w.resource else { continue };
                let placed = place(cluster, w);
                if let Some(p) = unordered(project, cluster, &placed, from) {
                    out.push(finding(
                        project,
                        cluster,
                        p,
                        &workload_name(w),
                        &w.loc,
                        "",
                        Some(from),
                    ));
                }
            }
            let Known::Known(labels) = cluster.coredns_labels() else {
                continue;
            };
            let labels: Vec<(&str, &str)> = labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let coredns = placement::place(cluster, Some("kube-system"), Some(&labels));
            for a in &cluster.addons {
                if a.name.known().map(String::as_str) != Some("coredns") {
                    continue;
                }
                let profile = match a.resource {
                    Some(from) => unordered(project, cluster, &coredns, from),
                    None if a.before_compute => match coredns.chosen {
                        Known::Known(Some(p)) if !coredns.uncertain => {
                            cluster.fargate_profiles.get(p)
                        }
                        _ => None,
                    },
                    None => None,
                };
                if let Some(p) = profile {
                    let why = if a.resource.is_none() {
                        " (`before_compute = true` installs it before any compute, Fargate profiles included)"
                    } else {
                        ""
                    };
                    out.push(finding(
                        project,
                        cluster,
                        p,
                        "the CoreDNS add-on",
                        &a.loc,
                        why,
                        a.resource,
                    ));
                }
            }
        }
    }
}

/// The profile that takes the pods, when the resource creating them is
/// ordered after none of the profiles that match them. `None` when it is, or
/// when the placement or a profile's resource is unknown or in another graph.
fn unordered<'a>(
    project: &Project,
    cluster: &'a Cluster,
    placed: &Placement,
    from: ResourceRef,
) -> Option<&'a FargateProfile> {
    let Known::Known(Some(chosen)) = placed.chosen else {
        return None;
    };
    if placed.uncertain {
        return None;
    }
    for i in placed.matched_profiles() {
        let pres = cluster.fargate_profiles.get(i)?.resource?;
        if pres.graph != from.graph || project.depends_on(from, pres) {
            return None;
        }
    }
    cluster.fargate_profiles.get(chosen)
}

fn finding(
    project: &Project,
    cluster: &Cluster,
    profile: &FargateProfile,
    what: &str,
    at: &Loc,
    why: &str,
    from: Option<ResourceRef>,
) -> Diagnostic {
    let pname = profile_label(project, profile);
    let target = depends_on_target(project, profile);
    let help = match cluster.provisioner {
        Provisioner::Cdk => format!(
            "add a dependency on `{target}` (`node.addDependency`; Python: `node.add_dependency`) so that its pods are created once the profile is ACTIVE"
        ),
        Provisioner::CloudFormation => {
            format!(
                "add `DependsOn: {target}` so that its pods are created once the profile is ACTIVE"
            )
        }
        Provisioner::Pulumi => format!(
            "add the profile `{target}` to its `dependsOn` (Python: `depends_on`) so that its pods are created once the profile is ACTIVE"
        ),
        _ => format!(
            "add `depends_on = [{target}]` so that its pods are created once the profile is ACTIVE"
        ),
    };
    let d = Diagnostic::new(
        CODE,
        Severity::Warning,
        format!(
            "{what} is not ordered after Fargate profile `{pname}`, which runs its pods: pods created before the profile is ACTIVE stay Pending on cluster {}{why}",
            cluster.reference(at.span.file)
        ),
        at.span,
    )
    .with_label("may be created before the Fargate profile")
    .with_path(at.path.clone())
    .with_related(profile.loc.span, format!("Fargate profile `{pname}`"))
    .with_help(help);
    match from.and_then(|f| add_dependency_fix(project, cluster.provisioner, f, &target)) {
        Some(fix) => d.with_fix(fix),
        None => d,
    }
}
