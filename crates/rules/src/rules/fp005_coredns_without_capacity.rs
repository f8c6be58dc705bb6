//! FP005 coredns-without-capacity.
//!
//! On a Fargate-only cluster, CoreDNS (namespace `kube-system`, labels
//! `k8s-app: kube-dns` and `eks.amazonaws.com/component: coredns`) needs a
//! Fargate selector that matches it; without one, DNS never comes up.

use crate::common::fargate_only;
use crate::{Context, Rule};
use fplint_core::model::Known;
use fplint_core::placement;
use fplint_core::{Diagnostic, Severity};

/// The FP005 rule, `coredns-without-capacity`: the module documentation says what it finds.
pub struct CorednsWithoutCapacity;

/// The labels of the CoreDNS pods EKS runs, before the add-on's `podLabels`.
pub const COREDNS_LABELS: &[(&str, &str)] = fplint_core::model::COREDNS_POD_LABELS;

impl Rule for CorednsWithoutCapacity {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            if !fargate_only(cluster) {
                continue;
            }
            // The add-on's `podLabels` are CoreDNS's too.
            let Known::Known(labels) = cluster.coredns_labels() else {
                continue;
            };
            let labels: Vec<(&str, &str)> = labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let placed = placement::place(cluster, Some("kube-system"), Some(&labels));
            if placed.chosen != Known::Known(None) {
                continue;
            }
            // Point at the kube-system selector that misses, if there is one.
            let near = cluster
                .fargate_profiles
                .iter()
                .flat_map(|p| p.selectors.known().into_iter().flatten())
                .find(|s| {
                    s.namespace
                        .known()
                        .is_some_and(|n| fplint_core::glob::matches(n, "kube-system"))
                });
            let (span, path, label) = match near {
                Some(s) => (
                    s.labels_loc.as_ref().unwrap_or(&s.loc).span,
                    s.labels_loc.as_ref().unwrap_or(&s.loc).path.clone(),
                    "selects `kube-system`, but its labels are not on CoreDNS pods",
                ),
                None => (
                    cluster.loc.span,
                    cluster.loc.path.clone(),
                    "no Fargate selector matches CoreDNS",
                ),
            };
            let mut d = Diagnostic::new(
                "FP005",
                Severity::Error,
                format!(
                    "no Fargate selector of cluster {} matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up",
                    cluster.reference(span.file)
                ),
                span,
            )
            .with_label(label)
            .with_path(path)
            .with_help("add a selector `namespace: kube-system` without labels (or with labels CoreDNS carries: `k8s-app: kube-dns`)");
            if near.is_some() {
                d = d.with_related(
                    cluster.loc.span,
                    "cluster defined here, with no node groups",
                );
            }
            out.push(d);
        }
    }
}
