//! Helm releases declared outside any cluster's unit (an Argo CD
//! `Application`, a Flux `HelmRelease`, a helmfile): each gets the cluster
//! that runs it, the way manifests do, and is copied into that cluster's
//! releases so that the rules see every release of a cluster in one list.

use crate::assign::Assigner;
use fplint_core::model::{AppliedBy, Project};
use fplint_core::sources::Sources;

/// Names of the cluster a controller runs in itself.
const IN_CLUSTER: &[&str] = &["in-cluster", "https://kubernetes.default.svc"];

/// Assign each declared release a cluster and copy it there. A release
/// whose declaration names another cluster runs there: on the cluster of
/// that name when the run has one, otherwise on none (unknown).
pub(crate) fn assign_releases(project: &mut Project, sources: &Sources, assigner: &Assigner) {
    let keys: Vec<Option<String>> = project
        .releases
        .iter()
        .map(|r| {
            if let Some(dest) = &r.destination {
                let named = dest.known()?;
                let named = named.trim_end_matches('/');
                if !IN_CLUSTER.contains(&named) {
                    return project
                        .clusters
                        .iter()
                        .find(|c| c.name.known().is_some_and(|n| n == named))
                        .map(|c| c.key.clone());
                }
            }
            r.cluster_key
                .clone()
                .or_else(|| assigner.pick(sources, r.loc.span))
        })
        .collect();
    for (r, k) in project.releases.iter_mut().zip(keys) {
        r.cluster_key = k;
    }
    // Idempotent: a second assignment replaces what the first copied.
    for c in &mut project.clusters {
        c.helm_releases
            .retain(|r| r.applied_by == AppliedBy::Deployment);
    }
    for r in &project.releases {
        let Some(k) = &r.cluster_key else { continue };
        if let Some(c) = project.clusters.iter_mut().find(|c| &c.key == k) {
            c.helm_releases.push(r.clone());
        }
    }
}
