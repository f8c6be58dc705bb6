//! Facts several rules share.

use fplint_core::model::{Cluster, FargateProfile, Known, Project};
use fplint_core::placement::{self, Placement};
use fplint_core::workload::Workload;

/// A cluster that runs only on Fargate: no EC2 capacity is declared, no
/// Karpenter provisions nodes, and it has at least one profile (a cluster with
/// none has its compute elsewhere).
pub fn fargate_only(cluster: &Cluster) -> bool {
    cluster.fargate_only() == Known::Known(true)
        && cluster.karpenter() == Known::Known(false)
        && !cluster.fargate_profiles.is_empty()
}

/// The workloads that run on `cluster`.
pub fn workloads_of<'a>(
    project: &'a Project,
    cluster: &'a Cluster,
) -> impl Iterator<Item = &'a Workload> {
    project
        .workloads
        .iter()
        .filter(move |w| w.cluster_key.as_deref() == Some(cluster.key.as_str()))
}

/// Where a workload's pods go.
pub fn place(cluster: &Cluster, w: &Workload) -> Placement {
    let labels = w.pod.known_labels();
    placement::place(
        cluster,
        w.namespace.known().map(String::as_str),
        labels.as_deref(),
    )
}

/// The profile a workload's pods certainly run on.
pub fn on_fargate(cluster: &Cluster, w: &Workload) -> Option<usize> {
    match place(cluster, w).chosen {
        Known::Known(Some(p)) => Some(p),
        _ => None,
    }
}

/// The profile's name, or its resource's logical name when the deployment
/// engine generates the name (a CloudFormation profile without a name).
pub fn profile_label<'a>(project: &'a Project, profile: &'a FargateProfile) -> &'a str {
    if let Some(n) = profile.name.known() {
        return n;
    }
    profile
        .resource
        .and_then(|r| {
            project
                .graphs
                .get(r.graph as usize)?
                .nodes
                .get(r.node as usize)
        })
        .map_or("?", |n| n.name.as_str())
}

pub fn profile_name<'a>(project: &'a Project, cluster: &'a Cluster, i: usize) -> &'a str {
    cluster
        .fargate_profiles
        .get(i)
        .map_or("?", |p| profile_label(project, p))
}

/// Two profiles that cannot both exist (resources under exclusive conditions).
pub fn exclusive(project: &Project, a: &FargateProfile, b: &FargateProfile) -> bool {
    matches!((a.resource, b.resource), (Some(x), Some(y)) if project.mutually_exclusive(x, y))
}

pub fn workload_name(w: &Workload) -> String {
    format!(
        "{} `{}`",
        w.kind.as_str(),
        w.name.known().map_or("?", String::as_str)
    )
}
