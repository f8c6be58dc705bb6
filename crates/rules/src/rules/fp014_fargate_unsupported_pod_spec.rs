//! FP014 fargate-unsupported-pod-spec.
//!
//! Fargate runs each pod in its own micro-VM and refuses what needs a shared
//! host: DaemonSets, `hostNetwork`, `hostPort`, privileged containers,
//! `hostPath` volumes, GPUs, and arm64 (Fargate for EKS is x86_64 only).
//! For a release of a chart fplint knows (its pods are not rendered): the
//! values that turn on `hostNetwork` or privileged containers, such as the
//! KEDA chart's `operator.useHostNetwork: true`, when a selector without
//! labels sends the release's namespace to Fargate.
//! A DaemonSet whose required node affinity keeps it off Fargate nodes
//! (`eks.amazonaws.com/compute-type NotIn [fargate]`) creates no pods there.

use crate::charts::{lookup, truth, Effective, Field, KnownChart};
use crate::common::{
    add_variant, known_release, on_fargate, profile_name, release_name, release_pod_workloads,
    workload_name, workloads_of, TAINT_KEY,
};
use crate::{Context, Rule};
use fplint_core::model::{Cluster, HelmRelease, Known, Loc};
use fplint_core::placement;
use fplint_core::value::Value;
use fplint_core::workload::{Container, Workload, WorkloadKind};
use fplint_core::{Diagnostic, Severity};

/// The FP014 rule, `fargate-unsupported-pod-spec`: the module documentation says what it finds.
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
        for cluster in ctx.clusters() {
            for rel in &cluster.helm_releases {
                check_release(ctx, cluster, rel, out);
            }
            for w in workloads_of(ctx.project, cluster) {
                let before = out.len();
                check_workload(ctx, cluster, w, out);
                for d in out.iter_mut().skip(before) {
                    add_variant(d, w);
                }
            }
        }
    }
}

/// What a known chart's release turns on that Fargate refuses, from the
/// values it sets: `hostNetwork`, privileged containers, host ports.
fn check_release(
    ctx: &Context<'_>,
    cluster: &Cluster,
    rel: &HelmRelease,
    out: &mut Vec<Diagnostic>,
) {
    let Some(k) = known_release(rel) else {
        return;
    };
    let Some(ns) = rel.namespace.known() else {
        return;
    };
    let Known::Known(Some(p)) = placement::place(cluster, Some(ns), None).chosen else {
        return;
    };
    let profile = profile_name(ctx.project, cluster, p);
    let name = format!("Helm release `{}`", release_name(rel));
    // Only what every range the release may lie in gives.
    for mut d in k.in_every(|chart| release_findings(rel, chart, k.values, profile, &name)) {
        if let Some(w) = &k.weighed {
            d.message.push_str(&format!(" ({w})"));
        }
        out.push(d);
    }
}

/// What one range of the chart's facts says the release turns on.
fn release_findings(
    rel: &HelmRelease,
    chart: &'static KnownChart,
    values: &Value,
    profile: &str,
    name: &str,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // A DaemonSet the chart renders in a Fargate namespace, unless its
    // affinity keeps it off Fargate nodes.
    for w in chart.workloads {
        if w.kind != "DaemonSet"
            || w.rendered(values) != Known::Known(true)
            || w.in_release_namespace(values) != Known::Known(true)
        {
            continue;
        }
        let Some(Known::Known(affinity)) = w.field(Field::Affinity).map(|f| f.effective(values))
        else {
            continue;
        };
        if affinity.value.as_ref().is_some_and(avoids_fargate_nodes) {
            continue;
        }
        let loc = Loc::new(rel.loc.span, &rel.loc.path);
        out.push(finding(
            "DaemonSets",
            &loc,
            &format!("{name} (DaemonSet `{}`)", w.name),
            profile,
            "keep the release's namespace out of the Fargate selectors, or give the DaemonSet a required node affinity with `eks.amazonaws.com/compute-type NotIn [fargate]`",
        ));
    }
    let mut seen: Vec<&str> = Vec::new();
    for w in release_pod_workloads(chart, values) {
        for (field, what, off) in [
            (Field::HostNetwork, "hostNetwork", "false"),
            (Field::Privileged, "privileged containers", "false"),
        ] {
            let Some(src) = w.field(field) else {
                continue;
            };
            let Known::Known(Effective {
                value: Some(v),
                set_at: Some(path),
            }) = src.effective(values)
            else {
                continue;
            };
            if truth(&v) != Known::Known(true) || seen.contains(&path) {
                continue;
            }
            seen.push(path);
            let set = lookup(values, path).and_then(|v| v.span);
            // Values read from a file are reported at the `values` entry.
            let at = match set {
                Some(s) if s.file == rel.loc.span.file => s,
                Some(s) => rel
                    .value_sources
                    .iter()
                    .find(|src| src.origin.is_some_and(|o| o.file == s.file))
                    .map_or(rel.loc.span, |src| src.loc.span),
                None => rel.loc.span,
            };
            let loc = Loc::new(at, format!("{}.values.{path}", rel.loc.path));
            let mut d = finding(
                what,
                &loc,
                name,
                profile,
                &format!(
                    "set `{path}: {off}` (the chart's default), or run `{}` on EC2 nodes",
                    chart.name
                ),
            );
            if let Some(s) = set.filter(|s| s.file != rel.loc.span.file) {
                d = d.with_related(s, format!("`{path}: true` in the values file"));
            }
            out.push(d);
        }
    }
    out
}

/// True when every required node selector term keeps pods off Fargate nodes,
/// which carry the label `eks.amazonaws.com/compute-type=fargate`. A part
/// fplint cannot read counts as keeping them off: an unknown never fires.
fn avoids_fargate_nodes(affinity: &Value) -> bool {
    let mut at = affinity;
    for key in [
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    ] {
        if at.is_unknown() {
            return true;
        }
        match at.get(key) {
            Some(v) => at = v,
            None => return false,
        }
    }
    if at.is_unknown() {
        return true;
    }
    let Some(terms) = at.as_list().filter(|t| !t.is_empty()) else {
        return false;
    };
    terms.iter().all(|term| {
        let Some(exprs) = term.get("matchExpressions") else {
            return term.is_unknown();
        };
        if exprs.is_unknown() {
            return true;
        }
        exprs
            .as_list()
            .into_iter()
            .flatten()
            .any(expr_avoids_fargate)
    })
}

fn expr_avoids_fargate(e: &Value) -> bool {
    match e.get("key") {
        Some(k) if k.is_unknown() => return true,
        Some(k) if k.as_str() == Some(TAINT_KEY) => {}
        _ => return false,
    }
    let values = e
        .get("values")
        .and_then(Value::as_list)
        .and_then(|vs| vs.iter().map(Value::as_str).collect::<Option<Vec<_>>>());
    match (e.get("operator").and_then(Value::as_str), values) {
        (Some("NotIn"), Some(vs)) => vs.contains(&"fargate"),
        (Some("In"), Some(vs)) => !vs.contains(&"fargate"),
        (Some("DoesNotExist"), _) => true,
        (Some("Exists" | "Gt" | "Lt"), _) => false,
        // The operator or the values cannot be read.
        _ => true,
    }
}

fn check_workload(ctx: &Context<'_>, cluster: &Cluster, w: &Workload, out: &mut Vec<Diagnostic>) {
    const MOVE: &str = "run it on EC2 nodes (a node group or Karpenter) and keep its namespace out of the Fargate selectors";
    let Some(p) = on_fargate(cluster, w) else {
        return;
    };
    let profile = profile_name(ctx.project, cluster, p);
    let name = workload_name(w);
    if w.kind == WorkloadKind::DaemonSet {
        let avoids = w.pod.affinity.as_ref().and_then(|a| a.known());
        if avoids.is_some_and(avoids_fargate_nodes) {
            return;
        }
        out.push(finding("DaemonSets", &w.loc, &name, profile, MOVE));
        return;
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
