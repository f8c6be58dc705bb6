//! Which cluster each manifest and workload-bearing resource (workloads,
//! aws-auth, pod identities) runs on. In order: a cluster its own unit
//! already names; `[clusters.NAME] paths`; the nearest enclosing folder that
//! defines exactly one cluster; the only cluster of the run. What is left
//! has no cluster, and workload checks cannot run on it: the run says so.

use crate::config::Config;
use crate::notice::{Notice, NoticeKind};
use fplint_core::model::Project;
use fplint_core::sources::Sources;
use fplint_core::{FileId, Span};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// What assignment could not place.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unassigned {
    /// Workloads, aws-auth maps and pod identities without a cluster.
    pub count: usize,
    /// Their files, as shown, sorted.
    pub files: Vec<String>,
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
    let pick = |span: Span| assigner.pick(sources, span);
    let workload_keys: Vec<Option<String>> = project
        .workloads
        .iter()
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
    crate::declared::assign_releases(project, sources, assigner);
    left
}

/// What tells the cluster of an item that does not name one: `[clusters]
/// paths`, the folders that define clusters, the only cluster. Kept by an
/// incremental check while the clusters' names, keys and folders stay.
pub(crate) struct Assigner {
    only: Option<String>,
    globs: Vec<(String, globset::GlobSet)>,
    /// The first cluster's key for each known name, when `globs` is not empty.
    by_name: HashMap<String, String>,
    folders: Folders,
    base: Option<PathBuf>,
    /// Per file, not per object: canonicalising costs a readlink per component.
    memo: RefCell<HashMap<FileId, Option<String>>>,
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
        let mut by_name = HashMap::new();
        if !globs.is_empty() {
            for c in &project.clusters {
                if let Some(n) = c.name.known() {
                    by_name.entry(n.clone()).or_insert_with(|| c.key.clone());
                }
            }
        }
        Assigner {
            only,
            globs,
            by_name,
            folders: Folders::new(project, sources, homes),
            base: base.map(Path::to_path_buf),
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// The cluster key of an item at `span` that names no cluster itself.
    pub(crate) fn pick(&self, sources: &Sources, span: Span) -> Option<String> {
        if let Some(hit) = self.memo.borrow().get(&span.file) {
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
        self.memo.borrow_mut().insert(span.file, key.clone());
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
        left
    }

    /// The run-level note, when clusters exist but some workloads belong to
    /// none of them (with no cluster in the run there is nothing to suggest).
    /// `partial`: the cluster search stopped early, so the count is a floor.
    pub fn notice(&self, project: &Project, partial: bool) -> Option<Notice> {
        if self.count == 0 || project.clusters.is_empty() {
            return None;
        }
        let names: BTreeSet<&str> = project
            .clusters
            .iter()
            .filter_map(|c| c.name.known().map(String::as_str))
            .collect();
        let folder = common_folder(&self.files);
        let glob = if folder.is_empty() {
            "**".to_string()
        } else {
            format!("{folder}/**")
        };
        let snippet = names
            .first()
            .map(|n| format!("[clusters.{}]\npaths = [\"{glob}\"]", toml_key(n)));
        let items = if self.count == 1 {
            "1 workload has".to_string()
        } else {
            format!("{} workloads have", self.count)
        };
        let mut help = format!(
            "say which cluster runs them in fplint.toml (clusters: {}{})",
            names.iter().copied().collect::<Vec<_>>().join(", "),
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

/// The folders that define clusters, canonical.
struct Folders {
    /// For each folder holding a cluster's folder (at any depth), the
    /// keys defined under it: up to two, enough to tell "exactly one".
    under: HashMap<PathBuf, Vec<String>>,
    /// Keys defined in more than one folder (a cluster and its fixed copy):
    /// a key names no one cluster, so a folder cannot pick it.
    shared: BTreeSet<String>,
    memo: RefCell<HashMap<PathBuf, Option<String>>>,
}

impl Folders {
    fn new(project: &Project, sources: &Sources, homes: &[Option<PathBuf>]) -> Folders {
        let mut dirs: HashMap<FileId, Option<PathBuf>> = HashMap::new();
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
                defined.push((dir, c.key.clone(), c.defined));
            }
        }
        let mut homes: HashMap<&str, BTreeSet<&PathBuf>> = HashMap::new();
        for (dir, key, _) in defined.iter().filter(|d| d.2) {
            homes.entry(key.as_str()).or_default().insert(dir);
        }
        let shared = homes
            .into_iter()
            .filter(|(_, dirs)| dirs.len() > 1)
            .map(|(k, _)| k.to_string())
            .collect();
        // Indexed by ancestor once: a scan of every cluster per folder
        // asked is quadratic on a tree of thousands of clusters.
        let mut under: HashMap<PathBuf, Vec<String>> = HashMap::new();
        for (dir, key, _) in &defined {
            for up in dir.ancestors() {
                let keys = under.entry(up.to_path_buf()).or_default();
                if keys.len() < 2 && !keys.contains(key) {
                    keys.push(key.clone());
                }
            }
        }
        Folders {
            under,
            shared,
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// The cluster of the nearest folder at or above `dir` that defines any:
    /// when it defines exactly one. Further up there are only more.
    fn nearest(&self, dir: &Path) -> Option<String> {
        if self.under.is_empty() {
            return None;
        }
        if let Some(hit) = self.memo.borrow().get(dir) {
            return hit.clone();
        }
        let mut found = None;
        for up in dir.ancestors() {
            let Some(keys) = self.under.get(up) else {
                continue;
            };
            if let [key] = keys.as_slice() {
                found = Some(key.clone()).filter(|k| !self.shared.contains(k));
            }
            break;
        }
        self.memo
            .borrow_mut()
            .insert(dir.to_path_buf(), found.clone());
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
