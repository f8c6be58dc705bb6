//! FP011 workload-without-capacity.
//!
//! On a Fargate-only cluster, a workload whose namespace and labels match no
//! Fargate selector has nowhere to run: its pods stay Pending. A Helm
//! release's pod labels are not known, so it is reported only when no
//! selector can match its namespace, and only for charts known to run
//! Deployments in the release's namespace.

use crate::common::{
    fargate_only, place, release_name, release_pod_namespace, weighed_note, with_variant,
    workload_name, workloads_of,
};
use crate::{Context, Rule};
use fplint_core::model::Cluster;
use fplint_core::model::Known;
use fplint_core::placement;
use fplint_core::workload::WorkloadKind;
use fplint_core::{Diagnostic, Severity};

/// No EC2 capacity but Karpenter's, and some profile.
fn fargate_only_but_karpenter(cluster: &Cluster) -> bool {
    cluster.fargate_only() == Known::Known(true) && !cluster.fargate_profiles.is_empty()
}

/// The FP011 rule, `workload-without-capacity`: the module documentation says what it finds.
pub struct WorkloadWithoutCapacity;

impl Rule for WorkloadWithoutCapacity {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            for rel in &cluster.helm_releases {
                // Karpenter makes nodes for the others, never for itself.
                let own = rel.chart_name() == Some("karpenter");
                if !(fargate_only(cluster) || (own && fargate_only_but_karpenter(cluster))) {
                    continue;
                }
                let Some(ns) = release_pod_namespace(rel) else {
                    continue;
                };
                if placement::place(cluster, Some(ns), None).chosen != Known::Known(None) {
                    continue;
                }
                out.push(
                    Diagnostic::new(
                        "FP011",
                        Severity::Error,
                        format!(
                            "Helm release `{}` installs into namespace `{ns}`, which no Fargate profile of cluster {} selects, and the cluster has no nodes: its pods stay Pending{}",
                            release_name(rel),
                            cluster.reference(rel.namespace.loc.span.file),
                            weighed_note(rel)
                        ),
                        rel.namespace.loc.span,
                    )
                    .with_label("no Fargate selector matches this namespace")
                    .with_path(rel.namespace.loc.path.clone())
                    .with_related(cluster.loc.span, "cluster defined here")
                    .with_help(format!(
                        "add a selector for namespace `{ns}` to a Fargate profile, or install the release into a namespace that one selects"
                    )),
                );
            }
            if !fargate_only(cluster) {
                continue;
            }
            for w in workloads_of(ctx.project, cluster) {
                // DaemonSets never run on Fargate: FP014 says so.
                if w.kind == WorkloadKind::DaemonSet
                    || place(cluster, w).chosen != Known::Known(None)
                {
                    continue;
                }
                let ns = w.namespace.known().map_or("?", String::as_str);
                out.push(with_variant(
                    Diagnostic::new(
                        "FP011",
                        Severity::Error,
                        format!(
                            "{} in namespace `{ns}` matches no Fargate profile of cluster {}, which has no nodes: its pods stay Pending",
                            workload_name(w),
                            cluster.reference(w.namespace.loc.span.file)
                        ),
                        w.namespace.loc.span,
                    )
                    .with_label("no Fargate selector matches this namespace and these labels")
                    .with_path(w.namespace.loc.path.clone())
                    .with_related(cluster.loc.span, "cluster defined here")
                    .with_help(format!(
                        "add a selector for namespace `{ns}` to a Fargate profile, or run the workload in a namespace that one selects"
                    )),
                    w,
                ));
            }
        }
    }
}
