//! FP001 coredns-selector-labels.
//!
//! On a cluster with no EC2 capacity, eksctl moves CoreDNS onto Fargate by
//! patching its `eks.amazonaws.com/compute-type: ec2` annotation away, but only
//! when some selector names `kube-system` exactly and has no labels, or (since
//! eksctl 0.208.0) has the label `eks.amazonaws.com/component: coredns`. A
//! labelled or wildcard selector for `kube-system` leaves CoreDNS Pending.
//! Selectors whose labels CoreDNS pods do not carry are left to FP005.

use crate::{Context, Rule};
use fplint_core::model::{Capacity, Cluster, Known, Provisioner, Selector};
use fplint_core::placement;
use fplint_core::{Change, Diagnostic, Fix, Severity};

/// The FP001 rule, `coredns-selector-labels`: the module documentation says what it finds.
pub struct CorednsSelectorLabels;

const CODE: &str = "FP001";
const KUBE_SYSTEM: &str = "kube-system";
const COMPONENT_KEY: &str = "eks.amazonaws.com/component";

/// What eksctl makes of one selector with known namespace and labels.
enum Reading {
    /// `kube-system` without labels: eksctl patches CoreDNS.
    Patches,
    /// `kube-system` with the CoreDNS component label: patched by eksctl >= 0.208.0.
    PatchesSince0208,
    /// Matches CoreDNS pods but eksctl does not patch CoreDNS.
    Misses,
    /// Cannot match CoreDNS pods.
    Other,
}

/// `coredns`: the labels CoreDNS pods carry, the add-on's `podLabels` included.
fn read(sel: &Selector, coredns: &[(&str, &str)]) -> Known<Reading> {
    let Some(ns) = sel.namespace.known() else {
        return Known::Unknown;
    };
    let Some(labels) = sel.known_labels() else {
        return Known::Unknown;
    };
    if ns == KUBE_SYSTEM && labels.is_empty() {
        return Known::Known(Reading::Patches);
    }
    // A selector that cannot match CoreDNS pods at all is FP005's business.
    match placement::selector_matches(sel, KUBE_SYSTEM, Some(coredns)) {
        Known::Known(true) => {}
        Known::Known(false) => return Known::Known(Reading::Other),
        Known::Unknown => return Known::Unknown,
    }
    let reading = if ns == KUBE_SYSTEM
        && labels
            .iter()
            .any(|&(k, v)| k == COMPONENT_KEY && v == "coredns")
    {
        Reading::PatchesSince0208
    } else {
        Reading::Misses
    };
    Known::Known(reading)
}

impl Rule for CorednsSelectorLabels {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            let fragment = partial_without_capacity(cluster);
            if cluster.provisioner == Provisioner::Eksctl
                && (crate::common::fargate_only(cluster) || fragment)
                && !cluster.profiles_incomplete
            {
                let eksctl = ctx
                    .settings
                    .tools
                    .eksctl_version
                    .as_deref()
                    .and_then(|v| crate::common::parse_version(v).map(|p| (v, p)));
                check_cluster(cluster, eksctl, fragment, out);
            }
        }
    }
}

/// Profiles for `eksctl create fargateprofile` whose cluster's definition is
/// not in the run: that command runs the same CoreDNS step as `create
/// cluster` (`ScheduleCoreDNSOnFargateIfRelevant`), so a selector it passes
/// over still leaves CoreDNS where it is, but whether the cluster has nodes
/// for it is unknown.
fn partial_without_capacity(cluster: &Cluster) -> bool {
    cluster.provisioner == Provisioner::Eksctl
        && !cluster.defined
        && matches!(cluster.capacity, Capacity::Unknown)
        && cluster.node_groups.is_empty()
        && cluster.karpenter() == Known::Known(false)
        && !cluster.fargate_profiles.is_empty()
}

/// `eksctl`: the version from `[tools] eksctl-version`, when the user set
/// it; `fragment`: the cluster's capacity is not in the run, so every
/// finding is a warning.
fn check_cluster(
    cluster: &Cluster,
    eksctl: Option<(&str, (u64, u64, u64))>,
    fragment: bool,
    out: &mut Vec<Diagnostic>,
) {
    let Known::Known(coredns) = cluster.coredns_labels() else {
        return;
    };
    let coredns: Vec<(&str, &str)> = coredns
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut readings = Vec::new();
    for profile in &cluster.fargate_profiles {
        let Some(selectors) = profile.selectors.known() else {
            return;
        };
        for sel in selectors {
            match read(sel, &coredns) {
                Known::Known(r) => readings.push((sel, r)),
                // An unknown selector might be the one that makes eksctl patch CoreDNS.
                Known::Unknown => return,
            }
        }
    }
    if readings.iter().any(|(_, r)| matches!(r, Reading::Patches)) {
        return;
    }
    let cluster_note = if fragment {
        format!(
            "profiles for `eksctl create fargateprofile`: cluster {} is defined outside the run, so whether CoreDNS can run on its nodes is unknown",
            cluster.reference(cluster.loc.span.file)
        )
    } else {
        format!(
            "cluster {} declares no node groups, so CoreDNS can only run on Fargate",
            cluster.reference(cluster.loc.span.file)
        )
    };
    let pending = if fragment {
        "CoreDNS stays Pending unless the cluster has EC2 nodes"
    } else {
        "CoreDNS stays Pending"
    };
    let certain = if fragment {
        Severity::Warning
    } else {
        Severity::Error
    };
    let since_0208: Vec<_> = readings
        .iter()
        .filter(|(_, r)| matches!(r, Reading::PatchesSince0208))
        .collect();
    if !since_0208.is_empty() {
        // A known eksctl version turns the warning into a certain answer.
        if eksctl.is_some_and(|(_, p)| p >= (0, 208, 0)) {
            return;
        }
        for (sel, _) in since_0208 {
            let span = sel
                .labels
                .known()
                .and_then(|ls| {
                    ls.iter()
                        .find(|l| l.key.known().map(String::as_str) == Some(COMPONENT_KEY))
                })
                .map_or(sel.loc.span, |l| l.loc.span);
            let d = match eksctl {
                Some((v, _)) => Diagnostic::new(
                    CODE,
                    certain,
                    format!("eksctl {v} (from `[tools] eksctl-version`) ignores a labelled `kube-system` selector and leaves CoreDNS Pending: only 0.208.0 and later accept `{COMPONENT_KEY}: coredns`"),
                    span,
                ),
                None => Diagnostic::new(
                    CODE,
                    Severity::Warning,
                    "CoreDNS moves to Fargate only with eksctl 0.208.0 or later: older eksctl ignores a labelled `kube-system` selector and leaves CoreDNS Pending",
                    span,
                ),
            };
            out.push(
                d
                .with_label("eksctl < 0.208.0 does not treat this label as selecting CoreDNS")
                .with_path(sel.labels_loc.as_ref().map_or(sel.loc.path.clone(), |l| l.path.clone()))
                .with_related(cluster.loc.span, cluster_note.clone())
                .with_help("create the cluster with eksctl 0.208.0 or later, or select `kube-system` without labels"),
            );
        }
        return;
    }
    for (sel, r) in readings {
        if !matches!(r, Reading::Misses) {
            continue;
        }
        let ns = sel.namespace.known().map_or("", String::as_str);
        let d = if ns == KUBE_SYSTEM {
            let labels = sel.labels_loc.as_ref().unwrap_or(&sel.loc);
            Diagnostic::new(
                CODE,
                certain,
                format!("{pending}: eksctl moves CoreDNS to Fargate only when a `kube-system` selector has no labels"),
                labels.span,
            )
            .with_label("labels on the `kube-system` selector")
            .with_path(labels.path.clone())
            // Unsafe: the profile then takes every `kube-system` pod.
            .with_fix(Fix::unsafe_(
                "remove the labels from the `kube-system` selector",
                vec![Change::RemoveEntry { key: labels.span }],
            ))
        } else {
            Diagnostic::new(
                CODE,
                certain,
                format!(
                    "{pending}: namespace pattern `{ns}` covers `kube-system`, but eksctl moves CoreDNS to Fargate only for a selector that names `kube-system` exactly"
                ),
                sel.namespace.loc.span,
            )
            .with_label("wildcard covers `kube-system`")
            .with_path(sel.namespace.loc.path.clone())
        };
        out.push(
            d.with_related(cluster.loc.span, cluster_note.clone())
                .with_help("add a selector `namespace: kube-system` with no labels (or remove the labels from this one); with eksctl 0.208.0 or later, the label `eks.amazonaws.com/component: coredns` also works"),
        );
    }
}
