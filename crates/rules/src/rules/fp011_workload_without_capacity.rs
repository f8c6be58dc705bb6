//! FP011 workload-without-capacity.
//!
//! On a Fargate-only cluster, a workload whose namespace and labels match no
//! Fargate selector has nowhere to run: its pods stay Pending.

use crate::common::{fargate_only, place, workload_name, workloads_of};
use crate::{Context, Rule};
use fplint_core::model::Known;
use fplint_core::workload::WorkloadKind;
use fplint_core::{Diagnostic, Severity};

pub struct WorkloadWithoutCapacity;

impl Rule for WorkloadWithoutCapacity {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in &ctx.project.clusters {
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
                out.push(
                    Diagnostic::new(
                        "FP011",
                        Severity::Error,
                        format!(
                            "{} in namespace `{ns}` matches no Fargate profile of cluster `{}`, which has no nodes: its pods stay Pending",
                            workload_name(w),
                            cluster.display_name()
                        ),
                        w.namespace.loc.span,
                    )
                    .with_label("no Fargate selector matches this namespace and these labels")
                    .with_path(w.namespace.loc.path.clone())
                    .with_related(cluster.loc.span, "cluster defined here")
                    .with_help(format!(
                        "add a selector for namespace `{ns}` to a Fargate profile, or run the workload in a namespace that one selects"
                    )),
                );
            }
        }
    }
}
