//! FP010 fargate-profile-overlap.
//!
//! Two profiles of a cluster that certainly take some of the same pods. The
//! EKS user guide once said EKS picks one at random and now says nothing
//! about the choice; a pod can pin one with the label
//! `eks.amazonaws.com/fargate-profile: NAME`. Overlaps usually mean a
//! profile's subnets or pod execution role are never used for those pods.
//!
//! Selectors that ask for different label keys overlap only for a pod that
//! carries both labels, which is usually no pod at all (one profile per
//! component): they are reported only when a workload of the run has such
//! pods. Selectors of which one asks for at least the other's labels (no
//! labels at all included) overlap for every pod of the stricter one.

use crate::common::{exclusive, place, profile_label, workload_name, workloads_of};
use crate::{Context, Rule};
use fplint_core::model::{Cluster, Known, Project};
use fplint_core::placement::{selectors_overlap, Overlap, PIN_LABEL};
use fplint_core::workload::{Workload, WorkloadKind};
use fplint_core::{Diagnostic, Severity};
use std::collections::BTreeMap;

/// The FP010 rule, `fargate-profile-overlap`: the module documentation says what it finds.
pub struct FargateProfileOverlap;

/// A workload whose pods match two profiles: for each pair of profiles
/// `(earlier, later)`, the first such workload and the selectors it matches.
type Evidence<'a> = BTreeMap<(usize, usize), (&'a Workload, usize, usize)>;

fn evidence<'a>(project: &'a Project, cluster: &'a Cluster) -> Evidence<'a> {
    let mut out = Evidence::new();
    for w in workloads_of(project, cluster) {
        // DaemonSet pods are made for nodes; Fargate never takes them.
        if w.kind == WorkloadKind::DaemonSet {
            continue;
        }
        let placed = place(cluster, w);
        // The first selector of each profile that matches.
        let mut hits: Vec<(usize, usize)> = Vec::new();
        for m in &placed.matches {
            if !hits.iter().any(|(p, _)| *p == m.profile) {
                hits.push((m.profile, m.selector));
            }
        }
        // A pod that names one of them has made its choice.
        let pinned = w.pod.label(PIN_LABEL).and_then(|l| l.value.known());
        if pinned.is_some_and(|pin| {
            hits.iter()
                .any(|(p, _)| cluster.fargate_profiles[*p].name.known() == Some(pin))
        }) {
            continue;
        }
        for (x, &(pa, sa)) in hits.iter().enumerate() {
            for &(pb, sb) in &hits[x + 1..] {
                let key = if pa < pb { (pa, pb) } else { (pb, pa) };
                let sels = if pa < pb { (sa, sb) } else { (sb, sa) };
                out.entry(key).or_insert((w, sels.0, sels.1));
            }
        }
    }
    out
}

const HELP: &str = "make the selectors disjoint (namespace or labels), merge the profiles, or pin pods to a profile with the label `eks.amazonaws.com/fargate-profile: NAME`";

impl Rule for FargateProfileOverlap {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            let profiles = &cluster.fargate_profiles;
            let seen = evidence(ctx.project, cluster);
            for (j, later) in profiles.iter().enumerate() {
                let Some(later_sels) = later.selectors.known() else {
                    continue;
                };
                'earlier: for (i, earlier) in profiles[..j].iter().enumerate() {
                    let Some(earlier_sels) = earlier.selectors.known() else {
                        continue;
                    };
                    if exclusive(ctx.project, earlier, later) {
                        continue;
                    }
                    let names = (
                        profile_label(ctx.project, earlier),
                        profile_label(ctx.project, later),
                    );
                    for b in later_sels {
                        for a in earlier_sels {
                            if selectors_overlap(a, b) != Known::Known(Overlap::Certain) {
                                continue;
                            }
                            out.push(
                                Diagnostic::new(
                                    "FP010",
                                    Severity::Warning,
                                    format!(
                                        "profiles `{}` and `{}` can both match the same pods, and EKS does not document which one it uses for them",
                                        names.0,
                                        names.1,
                                    ),
                                    b.loc.span,
                                )
                                .with_label("overlaps a selector of another profile")
                                .with_path(b.loc.path.clone())
                                .with_related(a.loc.span, "this selector matches the same pods")
                                .with_help(HELP),
                            );
                            continue 'earlier;
                        }
                    }
                    let Some(&(w, sa, sb)) = seen.get(&(i, j)) else {
                        continue;
                    };
                    let (Some(a), Some(b)) = (earlier_sels.get(sa), later_sels.get(sb)) else {
                        continue;
                    };
                    out.push(
                        Diagnostic::new(
                            "FP010",
                            Severity::Warning,
                            format!(
                                "profiles `{}` and `{}` both match the pods of {}, and EKS does not document which one it uses for them",
                                names.0,
                                names.1,
                                workload_name(w),
                            ),
                            b.loc.span,
                        )
                        .with_label("matches pods that another profile matches too")
                        .with_path(b.loc.path.clone())
                        .with_related(a.loc.span, "this selector matches the same pods")
                        .with_related(w.loc.span, "these pods carry the labels of both selectors")
                        .with_help(HELP),
                    );
                }
            }
        }
    }
}
