//! FP015 fargate-pod-size.
//!
//! Fargate sizes a pod from its requests: the larger of its largest init
//! container and the sum of its regular containers, plus 256 MB for the
//! kubelet and friends, rounded up to the smallest CPU/memory combination
//! that fits. Above 16 vCPU / 120 GB nothing fits; without requests the pod
//! gets 0.25 vCPU / 0.5 GB; and rounding can bill far more than asked.

use crate::common::{on_fargate, profile_name, with_variant, workload_name, workloads_of};
use crate::{Context, Rule};
use fplint_core::model::Known;
use fplint_core::placement::{billed_size, pod_request, OVERHEAD_MIB};
use fplint_core::workload::{Container, PodTemplate, WorkloadKind};
use fplint_core::{Diagnostic, Severity};

/// The FP015 rule, `fargate-pod-size`: the module documentation says what it finds.
pub struct FargatePodSize;

/// An init container whose effective CPU or memory request exceeds the sum
/// of the regular containers', or else the first regular container.
fn sizing_container(pod: &PodTemplate) -> Option<&Container> {
    let regular = pod.containers.known()?;
    let amount = |c: &Container| {
        let r = c.effective_requests();
        (
            r.cpu.known().copied().flatten().unwrap_or(0),
            r.memory.known().copied().flatten().unwrap_or(0),
        )
    };
    let sum = regular.iter().map(amount).fold((0u64, 0u64), |a, b| {
        (a.0.saturating_add(b.0), a.1.saturating_add(b.1))
    });
    let init = pod.init_containers.known().and_then(|init| {
        init.iter()
            .filter(|c| {
                let (cpu, mem) = amount(c);
                cpu > sum.0 || mem > sum.1
            })
            .max_by_key(|c| amount(c))
    });
    init.or_else(|| regular.first())
}

// Fargate's on-demand Linux/x86 price per vCPU-hour and GB-hour in us-east-1,
// as published in 2026; AWS changes them, and only their ratio matters here.
const VCPU_PRICE: f64 = 0.040_48;
const GB_PRICE: f64 = 0.004_445;

fn cost(cpu_m: u64, mem_mib: u64) -> f64 {
    cpu_m as f64 / 1000.0 * VCPU_PRICE + mem_mib as f64 / 1024.0 * GB_PRICE
}

fn size(cpu_m: u64, mib: u64) -> String {
    let gb = mib as f64 / 1024.0;
    format!(
        "{} vCPU / {} GB",
        cpu_m as f64 / 1000.0,
        (gb * 100.0).round() / 100.0
    )
}

impl Rule for FargatePodSize {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            for w in workloads_of(ctx.project, cluster) {
                // DaemonSets never run on Fargate (FP014).
                if w.kind == WorkloadKind::DaemonSet {
                    continue;
                }
                let Some(p) = on_fargate(cluster, w) else {
                    continue;
                };
                let Known::Known(req) = pod_request(&w.pod) else {
                    continue;
                };
                // The container that sets the size: an init container that
                // asks for more than the regular ones together, else the first.
                let first = sizing_container(&w.pod);
                let at = first
                    .and_then(|c| c.effective_requests().loc)
                    .or_else(|| first.map(|c| c.loc.clone()))
                    .unwrap_or_else(|| w.pod.loc.clone());
                let name = workload_name(w);
                let profile = profile_name(ctx.project, cluster, p);
                let req_mib = req.memory.div_ceil(1024 * 1024);
                let d = match billed_size(req.cpu_m, req.memory) {
                    None => Diagnostic::new(
                        "FP015",
                        Severity::Error,
                        format!(
                            "{name} requests {} (with the 256 MB overhead), more than the largest Fargate size, 16 vCPU / 120 GB: its pods stay Pending",
                            size(req.cpu_m, req_mib + OVERHEAD_MIB)
                        ),
                        at.span,
                    )
                    .with_label("too large for Fargate")
                    .with_help("lower the requests, or run the workload on EC2 nodes"),
                    Some(_) if !req.any_set => Diagnostic::new(
                        "FP015",
                        Severity::Warning,
                        format!("{name} runs on Fargate (profile `{profile}`) without CPU or memory requests: each pod gets 0.25 vCPU / 0.5 GB"),
                        at.span,
                    )
                    .with_label("no resource requests")
                    .with_help("set `resources.requests` for CPU and memory to what the containers need"),
                    Some((cpu, mib)) => {
                        let asked = cost(req.cpu_m, req_mib + OVERHEAD_MIB);
                        let billed = cost(cpu, mib);
                        if asked <= 0.0 || billed < 1.5 * asked {
                            continue;
                        }
                        Diagnostic::new(
                            "FP015",
                            Severity::Info,
                            format!(
                                "{name} requests {} with the overhead, billed as {} ({:.1}x the price at us-east-1 Linux rates)",
                                size(req.cpu_m, req_mib + OVERHEAD_MIB),
                                size(cpu, mib),
                                billed / asked
                            ),
                            at.span,
                        )
                        .with_label("rounded up to the next Fargate size")
                        .with_help("size the requests to a Fargate combination (remember the 256 MB overhead)")
                    }
                };
                out.push(with_variant(d.with_path(at.path.clone()), w));
            }
        }
    }
}
