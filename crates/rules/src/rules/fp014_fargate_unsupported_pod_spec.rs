//! FP014 fargate-unsupported-pod-spec.
//!
//! Fargate runs each pod in its own micro-VM and refuses what needs a shared
//! host: DaemonSets, `hostNetwork`, `hostPort`, privileged containers,
//! `hostPath` volumes, GPUs, and arm64 (Fargate for EKS is x86_64 only).

use crate::common::{on_fargate, profile_name, workload_name, workloads_of};
use crate::{Context, Rule};
use fplint_core::model::Loc;
use fplint_core::workload::{Container, WorkloadKind};
use fplint_core::{Diagnostic, Severity};

pub struct FargateUnsupportedPodSpec;

fn finding(what: &str, loc: &Loc, workload: &str, profile: &str, help: &str) -> Diagnostic {
    Diagnostic::new(
        "FP014",
        Severity::Error,
        format!("{workload} runs on Fargate (profile `{profile}`), which does not support {what}"),
        loc.span,
    )
    .with_label(format!("{what} is not supported on Fargate"))
    .with_path(loc.path.clone())
    .with_help(help.to_string())
}

impl Rule for FargateUnsupportedPodSpec {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        const MOVE: &str = "run it on EC2 nodes (a node group or Karpenter) and keep its namespace out of the Fargate selectors";
        for cluster in &ctx.project.clusters {
            for w in workloads_of(ctx.project, cluster) {
                let Some(p) = on_fargate(cluster, w) else {
                    continue;
                };
                let profile = profile_name(ctx.project, cluster, p);
                let name = workload_name(w);
                if w.kind == WorkloadKind::DaemonSet {
                    out.push(finding("DaemonSets", &w.loc, &name, profile, MOVE));
                    continue;
                }
                let pod = &w.pod;
                if let Some(h) = &pod.host_network {
                    if h.known() == Some(&true) {
                        out.push(finding(
                            "hostNetwork",
                            &h.loc,
                            &name,
                            profile,
                            "remove `hostNetwork: true`, or run the workload on EC2 nodes",
                        ));
                    }
                }
                for v in &pod.host_path_volumes {
                    out.push(finding(
                        "hostPath volumes",
                        v,
                        &name,
                        profile,
                        "use an emptyDir, EFS or another volume type Fargate supports",
                    ));
                }
                for c in pod
                    .init_containers
                    .known()
                    .into_iter()
                    .flatten()
                    .chain(pod.containers.known().into_iter().flatten())
                {
                    container(c, &name, profile, out);
                }
                for pair in pod.node_selector.known().into_iter().flatten() {
                    let arch = matches!(
                        pair.key.as_str(),
                        "kubernetes.io/arch" | "beta.kubernetes.io/arch"
                    );
                    if arch && pair.value.known().map(String::as_str) == Some("arm64") {
                        out.push(finding("arm64", &pair.loc, &name, profile, "drop the arm64 node selector (Fargate for EKS runs x86_64 only), or run the workload on Graviton EC2 nodes"));
                    }
                }
            }
        }
    }
}

fn container(c: &Container, name: &str, profile: &str, out: &mut Vec<Diagnostic>) {
    if let Some(p) = &c.privileged {
        if p.known() == Some(&true) {
            out.push(finding(
                "privileged containers",
                &p.loc,
                name,
                profile,
                "remove `privileged: true`, or run the workload on EC2 nodes",
            ));
        }
    }
    for hp in &c.host_ports {
        out.push(finding(
            "hostPort",
            hp,
            name,
            profile,
            "remove the hostPort and reach the pod through a Service",
        ));
    }
    if let Some(g) = c.gpus.first() {
        out.push(finding(
            "GPUs",
            g,
            name,
            profile,
            "run GPU workloads on EC2 GPU nodes",
        ));
    }
}
