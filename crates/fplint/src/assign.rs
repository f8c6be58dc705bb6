//! Which cluster each manifest and workload-bearing resource (workloads,
//! aws-auth, pod identities) runs on. In order: a cluster its own unit
//! already names; `[clusters.NAME] paths`; the nearest enclosing folder that
//! defines exactly one cluster; the only cluster of the run. What is left
//! has no cluster, and workload checks cannot run on it: the run says so.

use crate::config::Config;
use crate::notice::{Notice, NoticeKind};
use fplint_core::model::{Cluster, Project};
use fplint_core::sources::Sources;
use fplint_core::{FileId, Span};
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Join the clusters described in several files ([`fplint_core::join`]),
/// a partial config to the definition nearest it.
pub(crate) fn join(project: &mut Project, sources: &Sources) -> fplint_core::join::Joined {
    let folder = |id: FileId| {
        let f = sources.peek(id)?;
        let abs = canonical_of(sources, id, Path::new(&f.path));
        let dir = abs.parent()?;
        Some(
            dir.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect(),
        )
    };
    // Each eksctl definition's signature alone, on the worker threads: on a
    // large tree they are most of the join.
    let sigs = project
        .clusters
        .par_iter()
        .map(|c| fplint_core::join::signature(c))
        .collect();
    let joined = fplint_core::join::join_clusters_with(project, sigs, &folder);
    name_files(project, sources);
    joined
}

/// Tell each cluster the file that defines it, and whether another cluster
/// has its name, for the messages that name it.
pub(crate) fn name_files(project: &mut Project, sources: &Sources) {
    let mut count: HashMap<String, usize> = HashMap::default();
    for c in &project.clusters {
        if let Some(n) = c.name.known() {
            *count.entry(n.clone()).or_default() += 1;
        }
    }
    for c in &mut project.clusters {
        c.shown_file = sources.peek(c.loc.span.file).map(|f| f.path.clone());
        c.name_shared = c.name.known().is_some_and(|n| count.get(n) > Some(&1));
    }
}

/// The `[clusters]` table that speaks of `cluster`: `"NAME@REGION"` before
/// `NAME`, so clusters of one name in two regions can be told apart.
pub(crate) fn override_for<'a>(
    cluster: &Cluster,
    cfg: &'a Config,
) -> Option<&'a crate::config::ClusterOverride> {
    let name = cluster.name.known()?;
    let region = cluster.region.as_ref().and_then(|r| r.known());
    region
        .and_then(|r| cfg.clusters.get(&format!("{name}@{r}")))
        .or_else(|| cfg.clusters.get(name))
}

/// Whether the `[clusters]` table `table` speaks of `cluster`.
fn table_names(table: &str, cluster: &Cluster) -> bool {
    let Some(name) = cluster.name.known() else {
        return false;
    };
    match table.split_once('@') {
        Some((n, r)) => {
            n == name
                && cluster
                    .region
                    .as_ref()
                    .and_then(|x| x.known())
                    .map(String::as_str)
                    == Some(r)
        }
        None => table == name,
    }
}

/// What assignment could not place.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unassigned {
    /// Workloads, aws-auth maps and pod identities without a cluster.
    pub count: usize,
    /// Their files, as shown, sorted.
    pub files: Vec<String>,
    /// The run's clusters as the note names them: name, region and the
    /// file that defines each, sorted.
    pub clusters: Vec<(String, Option<String>, String)>,
    /// Clusters known only from profiles for `eksctl create fargateprofile`
    /// that workloads run on: the cluster as named, its file, the
    /// `[clusters]` key and how many workloads.
    pub unknown_capacity: Vec<(String, String, String, usize)>,
}

/// The clusters of `project` known only from a partial eksctl config, with
/// no capacity known, that workloads of the run are given to.
fn unknown_capacity(project: &Project, sources: &Sources) -> Vec<(String, String, String, usize)> {
    let mut out: Vec<_> = project
        .clusters
        .iter()
        .filter(|c| {
            c.provisioner == fplint_core::model::Provisioner::Eksctl
                && !c.defined
                && matches!(c.capacity, fplint_core::model::Capacity::Unknown)
        })
        .filter_map(|c| {
            let name = c.name.known()?;
            let n = project
                .workloads
                .iter()
                .filter(|w| w.cluster_key.as_deref() == Some(c.key.as_str()))
                .count();
            if n == 0 {
                return None;
            }
            let file = sources
                .peek(c.loc.span.file)
                .map(|f| f.path.clone())
                .unwrap_or_default();
            let table = match c.region.as_ref().and_then(|r| r.known()) {
                Some(r) if c.name_shared => format!("{name}@{r}"),
                _ => name.clone(),
            };
            Some((name.clone(), file, toml_key(&table), n))
        })
        .collect();
    out.sort();
    out
}

/// The clusters of `project` as notes name them, sorted.
fn named_clusters(project: &Project, sources: &Sources) -> Vec<(String, Option<String>, String)> {
    let mut named: Vec<_> = project
        .clusters
        .iter()
        .filter_map(|c| {
            let name = c.name.known()?.clone();
            let region = c.region.as_ref().and_then(|r| r.known()).cloned();
            let file = sources
                .peek(c.loc.span.file)
                .map(|f| f.path.clone())
                .unwrap_or_default();
            Some((name, region, file))
        })
        .collect();
    named.sort();
    named.dedup();
    named
}

/// Give every workload-bearing item of `project` a cluster where one can be
/// told. `base` is the folder `[clusters] paths` are relative to (the
/// config's folder).
pub fn assign(
    project: &mut Project,
    cfg: &Config,
    sources: &Sources,
    base: Option<&Path>,
) -> Unassigned {
    assign_with_homes(project, cfg, sources, base, &[])
}

/// [`assign`], knowing the folder each cluster was modelled from (its
/// Terraform root module), by index in `project.clusters`; a cluster
/// without one lives in the folder of the file that defines it.
pub fn assign_with_homes(
    project: &mut Project,
    cfg: &Config,
    sources: &Sources,
    base: Option<&Path>,
    homes: &[Option<PathBuf>],
) -> Unassigned {
    let assigner = Assigner::new(project, cfg, sources, base, homes);
    assign_by(project, sources, &assigner)
}

/// Give every item of `project` without a cluster the one `assigner` picks.
pub(crate) fn assign_by(
    project: &mut Project,
    sources: &Sources,
    assigner: &Assigner,
) -> Unassigned {
    crate::declared::apply_directory_sources(project, sources);
    crate::charts::retire_used_defaults(project, sources);
    let pick = |span: Span| assigner.pick(sources, span);
    // Each item's cluster depends on its file alone: on the worker threads.
    let workload_keys: Vec<Option<String>> = project
        .workloads
        .par_iter()
        // A built workload is judged from its overlay's folder.
        .map(|w| {
            let at = w.variant.as_ref().map_or(w.loc.span, |v| v.loc.span);
            w.cluster_key.clone().or_else(|| pick(at))
        })
        .collect();
    let auth_keys: Vec<Option<String>> = project
        .aws_auth
        .iter()
        .map(|a| a.cluster_key.clone().or_else(|| pick(a.loc.span)))
        .collect();
    let identity_keys: Vec<Option<String>> = project
        .pod_identities
        .iter()
        .map(|a| a.cluster_key.clone().or_else(|| pick(a.loc.span)))
        .collect();
    let mut left = Unassigned::default();
    let mut files = BTreeSet::new();
    let mut note = |k: &Option<String>, span: Span| {
        if k.is_none() {
            left.count += 1;
            if let Some(f) = sources.peek(span.file) {
                files.insert(f.path.clone());
            }
        }
    };
    for (a, k) in project.pod_identities.iter_mut().zip(identity_keys) {
        note(&k, a.loc.span);
        a.cluster_key = k;
    }
    for (w, k) in project.workloads.iter_mut().zip(workload_keys) {
        note(&k, w.loc.span);
        w.cluster_key = k;
    }
    for (a, k) in project.aws_auth.iter_mut().zip(auth_keys) {
        note(&k, a.loc.span);
        a.cluster_key = k;
    }
    left.files = files.into_iter().collect();
    if left.count > 0 {
        left.clusters = named_clusters(project, sources);
    }
    left.unknown_capacity = unknown_capacity(project, sources);
    crate::declared::assign_releases(project, sources, assigner);
    crate::charts::follow_releases(project);
    left
}

/// What tells the cluster of an item that does not name one: `[clusters]
/// paths`, the folders that define clusters, the only cluster. Kept by an
/// incremental check while the clusters' names, keys and folders stay.
pub(crate) struct Assigner {
    only: Option<String>,
    globs: Vec<(String, globset::GlobSet)>,
    /// The one cluster each `[clusters]` table with `paths` names; a
    /// table that names several, none of them defined under its `paths`,
    /// names none.
    by_name: HashMap<String, String>,
    folders: Folders,
    base: Option<PathBuf>,
    /// Per file, not per object: canonicalising costs a readlink per component.
    memo: Mutex<HashMap<FileId, Option<String>>>,
}

impl Assigner {
    /// The assigner of `project`'s clusters; see [`assign_with_homes`].
    pub(crate) fn new(
        project: &Project,
        cfg: &Config,
        sources: &Sources,
        base: Option<&Path>,
        homes: &[Option<PathBuf>],
    ) -> Assigner {
        let only = match project.clusters.as_slice() {
            [c] => Some(c.key.clone()),
            _ => None,
        };
        let globs: Vec<(String, globset::GlobSet)> = cfg
            .clusters
            .iter()
            .filter(|(_, o)| !o.paths.is_empty())
            .filter_map(|(name, o)| {
                let mut b = globset::GlobSetBuilder::new();
                for p in &o.paths {
                    b.add(globset::Glob::new(p).ok()?);
                }
                Some((name.clone(), b.build().ok()?))
            })
            .collect();
        let mut by_name = HashMap::default();
        for (table, set) in &globs {
            let named: Vec<&Cluster> = project
                .clusters
                .iter()
                .map(|c| &**c)
                .filter(|c| table_names(table, c))
                .collect();
            // Several of one name: the one defined under the table's
            // `paths`, or else the one a pattern names alone (`paths =
            // ["eks/cluster.yaml", "**"]`: the file says which, `**` where).
            let picked = match named.as_slice() {
                [one] => Some(*one),
                _ => {
                    let patterns: Vec<Vec<usize>> = named
                        .iter()
                        .map(|c| {
                            sources
                                .peek(c.loc.span.file)
                                .map(|f| {
                                    let shown = Path::new(&f.path);
                                    let abs = canonical_of(sources, c.loc.span.file, shown);
                                    let rel = base.and_then(|b| abs.strip_prefix(b).ok());
                                    let mut hit = set.matches(shown);
                                    hit.extend(rel.map(|r| set.matches(r)).unwrap_or_default());
                                    hit.sort_unstable();
                                    hit.dedup();
                                    hit
                                })
                                .unwrap_or_default()
                        })
                        .collect();
                    let under: Vec<usize> = (0..named.len())
                        .filter(|&i| !patterns[i].is_empty())
                        .collect();
                    let alone: Vec<usize> = (0..named.len())
                        .filter(|&i| {
                            patterns[i].iter().any(|p| {
                                patterns
                                    .iter()
                                    .enumerate()
                                    .all(|(j, q)| j == i || !q.contains(p))
                            })
                        })
                        .collect();
                    match (under.as_slice(), alone.as_slice()) {
                        ([one], _) | (_, [one]) => named.get(*one).copied(),
                        _ => None,
                    }
                }
            };
            if let Some(c) = picked {
                by_name.insert(table.clone(), c.key.clone());
            }
        }
        Assigner {
            only,
            globs,
            by_name,
            folders: Folders::new(project, sources, homes),
            base: base.map(Path::to_path_buf),
            memo: Mutex::new(HashMap::default()),
        }
    }

    /// The cluster key of an item at `span` that names no cluster itself.
    pub(crate) fn pick(&self, sources: &Sources, span: Span) -> Option<String> {
        if let Some(hit) = lock(&self.memo).get(&span.file) {
            return Option::clone(hit);
        }
        let f = sources.peek(span.file)?;
        let shown = PathBuf::from(&f.path);
        let abs = canonical_of(sources, span.file, &shown);
        let by_path = if self.globs.is_empty() {
            None
        } else {
            let rel = self
                .base
                .as_deref()
                .and_then(|b| abs.strip_prefix(b).ok())
                .unwrap_or(&shown);
            self.globs
                .iter()
                .find(|(_, g)| g.is_match(rel) || g.is_match(&shown))
                .and_then(|(name, _)| self.by_name.get(name).cloned())
        };
        let key = by_path
            .or_else(|| abs.parent().and_then(|dir| self.folders.nearest(dir)))
            .or_else(|| self.only.clone());
        lock(&self.memo).insert(span.file, key.clone());
        key
    }
}

impl Unassigned {
    /// What has no cluster in an assigned project.
    pub(crate) fn of(project: &Project, sources: &Sources) -> Unassigned {
        let spans = project
            .pod_identities
            .iter()
            .filter(|a| a.cluster_key.is_none())
            .map(|a| a.loc.span)
            .chain(
                project
                    .workloads
                    .iter()
                    .filter(|w| w.cluster_key.is_none())
                    .map(|w| w.loc.span),
            )
            .chain(
                project
                    .aws_auth
                    .iter()
                    .filter(|a| a.cluster_key.is_none())
                    .map(|a| a.loc.span),
            );
        let mut left = Unassigned::default();
        let mut files = BTreeSet::new();
        for span in spans {
            left.count += 1;
            if let Some(f) = sources.peek(span.file) {
                files.insert(f.path.clone());
            }
        }
        left.files = files.into_iter().collect();
        if left.count > 0 {
            left.clusters = named_clusters(project, sources);
        }
        left.unknown_capacity = unknown_capacity(project, sources);
        left
    }

    /// The run-level note, when clusters exist but some workloads belong to
    /// none of them (with no cluster in the run there is nothing to suggest).
    /// `partial`: the cluster search stopped early, so the count is a floor.
    /// With them, one note per cluster whose capacity a partial config
    /// leaves unknown while workloads run on it.
    pub fn notice(&self, project: &Project, partial: bool) -> Vec<Notice> {
        let mut out: Vec<Notice> = self
            .unknown_capacity
            .iter()
            .map(|(name, file, table, n)| {
                let (items, them) = if *n == 1 {
                    ("1 workload runs".to_string(), "it")
                } else {
                    (format!("{n} workloads run"), "them")
                };
                Notice::new(
                    NoticeKind::UnknownCapacity,
                    None,
                    format!(
                        "{items} on cluster `{name}` ({file}), known only from profiles for `eksctl create fargateprofile`: whether it has EC2 nodes is unknown, so no check that needs its capacity ran on {them}"
                    ),
                )
                .with_help(format!(
                    "declare its capacity in fplint.toml, or lint it with the config that creates it, e.g.\n[clusters.{table}]\nec2-capacity = false  # true when it has EC2 nodes"
                ))
            })
            .collect();
        out.extend(self.unassigned_notice(project, partial));
        out
    }

    fn unassigned_notice(&self, project: &Project, partial: bool) -> Option<Notice> {
        if self.count == 0 || project.clusters.is_empty() {
            return None;
        }
        let folder = common_folder(&self.files);
        let glob = if folder.is_empty() {
            "**".to_string()
        } else {
            format!("{folder}/**")
        };
        // A name two clusters share needs its region (or `paths`) to say
        // which one.
        let table = |(name, region, _): &(String, Option<String>, String)| {
            let twins: Vec<_> = self.clusters.iter().filter(|c| &c.0 == name).collect();
            match region {
                Some(r)
                    if twins.len() > 1
                        && twins.iter().filter(|c| c.1.as_ref() == Some(r)).count() == 1 =>
                {
                    toml_key(&format!("{name}@{r}"))
                }
                _ => toml_key(name),
            }
        };
        // A name the table cannot tell apart from a twin's (one region, or
        // none written) needs the definition's file among its `paths`.
        let snippet = self.clusters.first().map(|c| {
            let key = table(c);
            let told = self
                .clusters
                .iter()
                .filter(|o| o.0 == c.0 && (!key.contains('@') || o.1 == c.1))
                .count()
                == 1;
            if told || c.2.is_empty() {
                format!("[clusters.{key}]\npaths = [\"{glob}\"]")
            } else {
                format!("[clusters.{key}]\npaths = [\"{}\", \"{glob}\"]", c.2)
            }
        });
        let names: Vec<String> = self
            .clusters
            .iter()
            .map(|(name, _, file)| {
                if file.is_empty() {
                    format!("`{name}`")
                } else {
                    format!("`{name}` ({file})")
                }
            })
            .collect();
        let items = if self.count == 1 {
            "1 workload has".to_string()
        } else {
            format!("{} workloads have", self.count)
        };
        let mut help = format!(
            "say which cluster runs them in fplint.toml (clusters: {}{})",
            names.join(", "),
            if partial { ", ..." } else { "" }
        );
        if let Some(s) = snippet {
            help.push_str(", e.g.\n");
            help.push_str(&s);
        }
        Some(
            Notice::new(
                NoticeKind::Unassigned,
                None,
                format!(
                    "{items} no cluster, so no workload check ran on them: the run has {}{} clusters and neither a folder nor `[clusters]` says which one runs {}",
                    if partial { "at least " } else { "" },
                    project.clusters.len(),
                    shorten(&self.files)
                ),
            )
            .with_help(help),
        )
    }
}

/// A TOML key: bare when it can be, quoted otherwise.
fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

fn shorten(files: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut s = files
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if files.len() > SHOWN {
        s.push_str(&format!(" and {} more files", files.len() - SHOWN));
    }
    s
}

/// The deepest folder holding every file, `/`-separated ("" for none).
fn common_folder(files: &[String]) -> String {
    let mut common: Option<Vec<&str>> = None;
    for f in files {
        let mut parts: Vec<&str> = f.split('/').collect();
        parts.pop();
        common = Some(match common {
            None => parts,
            Some(c) => c
                .iter()
                .zip(&parts)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect(),
        });
    }
    common.unwrap_or_default().join("/")
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// A file's canonical path as the registry read it (its folders' forms are
/// cached there); `canonicalize` costs a `readlink` per component.
fn canonical_of(sources: &Sources, id: FileId, shown: &Path) -> PathBuf {
    sources.disk_path(id).unwrap_or_else(|| canonical(shown))
}

/// A memo's map, whatever another thread did while it held it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The folders that define clusters, canonical.
struct Folders {
    /// For each folder holding a cluster's folder (at any depth), the
    /// keys defined under it: up to two, enough to tell "exactly one".
    under: HashMap<PathBuf, Vec<String>>,
    memo: Mutex<HashMap<PathBuf, Option<String>>>,
}

impl Folders {
    fn new(project: &Project, sources: &Sources, homes: &[Option<PathBuf>]) -> Folders {
        let mut dirs: HashMap<FileId, Option<PathBuf>> = HashMap::default();
        let mut defined = Vec::new();
        for (i, c) in project.clusters.iter().enumerate() {
            // Cached by the registry: the folder's files were read from it.
            let home = homes
                .get(i)
                .and_then(Option::as_deref)
                .map(|h| sources.canonical_folder(h).unwrap_or_else(|_| canonical(h)));
            let dir = home.or_else(|| {
                dirs.entry(c.loc.span.file)
                    .or_insert_with(|| {
                        let f = sources.peek(c.loc.span.file)?;
                        canonical_of(sources, c.loc.span.file, Path::new(&f.path))
                            .parent()
                            .map(Path::to_path_buf)
                    })
                    .clone()
            });
            if let Some(dir) = dir {
                defined.push((dir, c.key.clone()));
            }
            // The other files that describe it (a copy, a partial config)
            // are its homes too.
            for at in &c.also_described_at {
                let dir = dirs
                    .entry(at.span.file)
                    .or_insert_with(|| {
                        let f = sources.peek(at.span.file)?;
                        canonical_of(sources, at.span.file, Path::new(&f.path))
                            .parent()
                            .map(Path::to_path_buf)
                    })
                    .clone();
                if let Some(dir) = dir {
                    defined.push((dir, c.key.clone()));
                }
            }
        }
        // Indexed by ancestor once: a scan of every cluster per folder
        // asked is quadratic on a tree of thousands of clusters.
        let mut under: HashMap<PathBuf, Vec<String>> = HashMap::default();
        for (dir, key) in &defined {
            for up in dir.ancestors() {
                let Some(keys) = under.get_mut(up) else {
                    under.insert(up.to_path_buf(), vec![key.clone()]);
                    continue;
                };
                // Each folder above one that has this key, or two keys,
                // has it or two keys too: it was offered every key below.
                if keys.len() >= 2 || keys.contains(key) {
                    break;
                }
                keys.push(key.clone());
            }
        }
        Folders {
            under,
            memo: Mutex::new(HashMap::default()),
        }
    }

    /// The cluster of the nearest folder at or above `dir` that defines any:
    /// when it defines exactly one. Further up there are only more.
    fn nearest(&self, dir: &Path) -> Option<String> {
        if self.under.is_empty() {
            return None;
        }
        if let Some(hit) = lock(&self.memo).get(dir) {
            return hit.clone();
        }
        let mut found = None;
        for up in dir.ancestors() {
            let Some(keys) = self.under.get(up) else {
                continue;
            };
            if let [key] = keys.as_slice() {
                found = Some(key.clone());
            }
            break;
        }
        lock(&self.memo).insert(dir.to_path_buf(), found.clone());
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_folders() {
        assert_eq!(
            common_folder(&["k8s/a/x.yaml".into(), "k8s/b/y.yaml".into()]),
            "k8s"
        );
        assert_eq!(common_folder(&["x.yaml".into()]), "");
    }

    #[test]
    fn keys() {
        assert_eq!(toml_key("prod-1"), "prod-1");
        assert_eq!(toml_key("a.b"), "\"a.b\"");
    }
}
