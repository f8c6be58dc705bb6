//! Stage 4, assemble: what runs on the whole project once every unit is
//! absorbed (clusters joined, list caps, the configuration's cluster
//! overrides, cluster assignment). A workspace assembles incrementally
//! with the same steps (see `assembled.rs`).

use crate::config::Config;
use crate::notice::Notice;
use fplint_core::model::{Capacity, Known, Project};
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use fplint_core::Diagnostic;
use std::path::{Path, PathBuf};

/// What runs on the whole project once every unit is absorbed: clusters
/// described in several files joined, list caps, the configuration's
/// cluster overrides, cluster assignment (`homes`: each cluster's home, by
/// index) and the note on what has no cluster. Returns the findings and the
/// note.
pub(crate) fn finish_project(
    project: &mut Project,
    cfg: &Config,
    sources: &Sources,
    base: Option<&Path>,
    limits: Limits,
    homes: Vec<Option<PathBuf>>,
    partial: bool,
) -> (Vec<Diagnostic>, Vec<Notice>) {
    let joined = crate::assign::join(project, sources);
    // Homes are by index before the join; clusters joined away shift the
    // rest. Each kept cluster takes its own (moved, not copied: one path
    // per cluster).
    let homes: Vec<Option<PathBuf>> = if homes.is_empty() {
        Vec::new()
    } else {
        let mut before = homes;
        joined
            .kept
            .iter()
            .map(|&i| before.get_mut(i).and_then(Option::take))
            .collect()
    };
    crate::assembled::show_homes(project, &homes, sources);
    let diagnostics = cap_lists(project, limits.max_list_items);
    apply_cluster_overrides(project, cfg);
    let unassigned = crate::assign::assign_with_homes(project, cfg, sources, base, &homes);
    (diagnostics, unassigned.notice(project, partial))
}

/// Some rules compare profiles and selectors pairwise: a generated or
/// hostile file with 100,000 of them would take hours. Past the limit the
/// rest is dropped, and FP000 says so where the first dropped item is.
fn cap_lists(project: &mut Project, max: usize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for c in &mut project.clusters {
        out.extend(cap_cluster(c, max));
    }
    out
}

/// [`cap_lists`] for one cluster.
pub(crate) fn cap_cluster(c: &mut fplint_core::model::Cluster, max: usize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let hit = |what: &str, n: usize, span: fplint_core::Span| {
        Diagnostic::parse_error(
            format!("{n} {what}, over the limit of {max} (limits.max-list-items); the rest are not checked"),
            span,
        )
        .with_label("first item not checked")
    };
    if let Some(p) = c.fargate_profiles.get(max) {
        out.push(hit(
            "Fargate profiles in one cluster",
            c.fargate_profiles.len(),
            p.loc.span,
        ));
        c.fargate_profiles.truncate(max);
    }
    for p in &mut c.fargate_profiles {
        let Known::Known(sels) = &mut p.selectors else {
            continue;
        };
        if let Some(s) = sels.get(max) {
            out.push(hit("selectors in one profile", sels.len(), s.loc.span));
            sels.truncate(max);
        }
        for s in sels.iter_mut() {
            if let Known::Known(labels) = &mut s.labels {
                if labels.len() > max {
                    let at = s.labels_loc.as_ref().map_or(s.loc.span, |l| l.span);
                    out.push(hit("labels in one selector", labels.len(), at));
                    labels.truncate(max);
                }
            }
        }
    }
    out
}

fn apply_cluster_overrides(project: &mut Project, cfg: &Config) {
    for cluster in &mut project.clusters {
        override_cluster(cluster, cfg);
    }
}

/// [`apply_cluster_overrides`] for one cluster.
pub(crate) fn override_cluster(cluster: &mut fplint_core::model::Cluster, cfg: &Config) {
    let Some(o) = crate::assign::override_for(cluster, cfg) else {
        return;
    };
    match o.ec2_capacity {
        Some(true) => cluster.capacity = Capacity::Declared(cluster.loc.clone()),
        Some(false) => cluster.capacity = Capacity::None,
        None => {}
    }
}
