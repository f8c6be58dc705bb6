//! What controllers apply, declared outside any cluster's unit (an Argo CD
//! `Application`, a Flux `HelmRelease` or `Kustomization`, a helmfile):
//! releases get the cluster that runs them, the way manifests do, and are
//! copied into that cluster's releases so that the rules see every release
//! of a cluster in one list; folders of manifests give their workloads a
//! namespace and a cluster.

use crate::assign::Assigner;
use fplint_core::model::{AppliedBy, Cluster, Located, Project};
use fplint_core::sources::Sources;
use fplint_core::FileId;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Names of the cluster a controller runs in itself.
const IN_CLUSTER: &[&str] = &["in-cluster", "https://kubernetes.default.svc"];

/// The cluster a declaration's destination names: `None` for the
/// controller's own cluster (assigned as manifests are), else the key of
/// the run's cluster of that name, or a key no cluster has (unknown).
fn destination_key(clusters: &[Box<Cluster>], dest: &Located<String>) -> Option<Option<String>> {
    let Some(named) = dest.known() else {
        return Some(None);
    };
    let named = named.trim_end_matches('/');
    if IN_CLUSTER.contains(&named) {
        return None;
    }
    Some(
        clusters
            .iter()
            .find(|c| c.name.known().is_some_and(|n| n == named))
            .map(|c| c.key.clone()),
    )
}

/// Assign each declared release a cluster and copy it there. A release
/// whose declaration names another cluster runs there: on the cluster of
/// that name when the run has one, otherwise on none (unknown).
pub(crate) fn assign_releases(project: &mut Project, sources: &Sources, assigner: &Assigner) {
    let keys: Vec<Option<String>> = project
        .releases
        .iter()
        .map(|r| {
            if let Some(k) = r
                .destination
                .as_ref()
                .and_then(|d| destination_key(&project.clusters, d))
            {
                return k;
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

/// A cluster key that no cluster has: the workload runs on a cluster
/// outside the run.
const ELSEWHERE: &str = "elsewhere:";

/// Give the workloads of each folder a controller applies the namespace it
/// gives them, and the cluster its declaration names. Idempotent.
pub(crate) fn apply_directory_sources(project: &mut Project, sources: &Sources) {
    if project.directory_sources.is_empty() {
        return;
    }
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let set = |globs: &[String]| {
        let mut b = globset::GlobSetBuilder::new();
        for g in globs {
            b.add(globset::Glob::new(g).ok()?);
        }
        b.build().ok()
    };
    let dirs: Vec<_> = project
        .directory_sources
        .iter()
        .filter_map(|d| {
            let key = d
                .destination
                .as_ref()
                .and_then(|dest| destination_key(&project.clusters, dest))
                .map(|k| k.unwrap_or_else(|| format!("{ELSEWHERE}{}", d.folder.display())));
            Some((
                d,
                canon(&d.folder)?,
                set(&d.include)?,
                set(&d.exclude)?,
                key,
            ))
        })
        .collect();
    let mut memo: HashMap<FileId, Option<PathBuf>> = HashMap::new();
    for w in &mut project.workloads {
        let at = w.variant.as_ref().map_or(w.loc.span, |v| v.loc.span);
        let file = memo
            .entry(at.file)
            .or_insert_with(|| canon(Path::new(&sources.peek(at.file)?.path)))
            .clone();
        let Some(file) = file else { continue };
        for (d, folder, include, exclude, key) in &dirs {
            let Ok(rel) = file.strip_prefix(folder) else {
                continue;
            };
            let nested = rel.components().count() > 1;
            if (nested && !d.recurse)
                || (!d.include.is_empty() && !include.is_match(rel))
                || exclude.is_match(rel)
            {
                continue;
            }
            if d.override_namespace || !w.namespace.value.is_known() {
                w.namespace = d.namespace.clone();
            }
            if w.cluster_key.is_none() {
                w.cluster_key.clone_from(key);
            }
            if d.changes_pods {
                w.pod.make_unknown(true);
            }
            break;
        }
    }
}
