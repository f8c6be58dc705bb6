//! Which folders of a run are kustomize build roots, and which files their
//! builds read (those are not linted alone). The build itself is in
//! [`fplint_core::frontend::kustomize`].

use crate::walk::Candidate;
use fplint_core::frontend::kustomize::{self, Plan};
use fplint_core::sources::Sources;
use fplint_core::tree::{self, Limits, Node};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The builds among the walked files: every folder holding a kustomization
/// (`kustomization.yaml`, `.yml`, or `Kustomization`, which has no
/// extension and is looked for next to the files walked).
pub fn plan(files: &[Candidate], sources: &Sources, limits: Limits) -> Plan {
    plan_with_roots(files, &[], sources, limits)
}

/// Whether `dir` holds a `Kustomization` file: by the walk's list
/// (`walked`, sorted) for the folder of a walked file, on disk for the
/// folder of a file named on the command line or when the walk gave no list.
fn has_bare_kustomization(dir: &Path, explicit: bool, walked: Option<&[PathBuf]>) -> bool {
    match walked {
        Some(found) if !explicit => found.binary_search_by(|d| d.as_path().cmp(dir)).is_ok(),
        _ => dir.join("Kustomization").is_file(),
    }
}

/// [`plan`], with more build roots to build (the overlays that include a
/// named file, see [`crate::context::Context::builds`]).
pub fn plan_with_roots(
    files: &[Candidate],
    roots: &[PathBuf],
    sources: &Sources,
    limits: Limits,
) -> Plan {
    plan_with_walked(files, roots, None, sources, limits)
}

/// [`plan_with_roots`], given the folders the walk found a `Kustomization`
/// file in ([`crate::walk::Walked::kustomization_dirs`]).
pub fn plan_with_walked(
    files: &[Candidate],
    roots: &[PathBuf],
    walked: Option<&[PathBuf]>,
    sources: &Sources,
    limits: Limits,
) -> Plan {
    let mut dirs: BTreeSet<PathBuf> = roots.iter().cloned().collect();
    // Every walked `Kustomization` is a build, as every walked
    // `kustomization.yaml` is, files beside it or not.
    dirs.extend(walked.unwrap_or_default().iter().cloned());
    // Compared as bytes: a set of paths compares them component by
    // component, which showed in profiles of large trees.
    let mut parents: Vec<(&Path, bool)> = Vec::new();
    for c in files {
        let parent = c.path.parent().unwrap_or(Path::new("."));
        if kustomize::is_kustomization_name(&c.path) {
            dirs.insert(parent.to_path_buf());
        } else if parents.last().map(|p| (p.0.as_os_str(), p.1))
            != Some((parent.as_os_str(), c.explicit))
        {
            parents.push((parent, c.explicit));
        }
    }
    parents.sort_unstable_by(|a, b| (a.0.as_os_str(), a.1).cmp(&(b.0.as_os_str(), b.1)));
    parents.dedup_by(|a, b| a.0.as_os_str() == b.0.as_os_str() && a.1 == b.1);
    for (p, explicit) in parents {
        if !dirs.contains(p) && has_bare_kustomization(p, explicit, walked) {
            dirs.insert(p.to_path_buf());
        }
    }
    if dirs.is_empty() {
        return Plan::default();
    }
    Plan::new(dirs, |dir| read(dir, sources, limits))
}

fn read(dir: &Path, sources: &Sources, limits: Limits) -> Option<Node> {
    let file = kustomize::kustomization_in(dir)?;
    let f = sources.load(&kustomize::normalise(&file)).ok()?;
    tree::yaml::parse(&f.text, f.id, limits)
        .documents
        .into_iter()
        .next()
}

/// The build roots under `project_root` whose builds read `file`: for a
/// run on one changed file (a pre-commit hook), the overlays to build
/// instead of linting a base manifest alone.
pub fn roots_including(file: &Path, project_root: &Path) -> Vec<PathBuf> {
    roots_including_any(
        std::slice::from_ref(&file.to_path_buf()),
        project_root,
        None,
    )
}

/// The build roots under `project_root` whose builds read any of `files`
/// (in the form `project_root` gives them), with one walk of the project.
///
/// `max_depth` limits how deep the search for kustomizations goes (1: the
/// root's own files), as for a folder that is no project.
///
/// kustomize reads a file only from a kustomization in the file's folder or
/// above (its load restrictor), so with none there the project is not
/// walked: the common pre-commit case, a manifest outside any kustomize tree.
pub fn roots_including_any(
    files: &[PathBuf],
    project_root: &Path,
    max_depth: Option<usize>,
) -> Vec<PathBuf> {
    // Files of one folder share its folders above.
    let mut looked = std::collections::HashSet::new();
    if !files
        .iter()
        .any(|f| under_kustomization(f, project_root, &mut looked))
    {
        return Vec::new();
    }
    // Listing folders is most of the cost: on every core (the set is
    // sorted, so the order the walkers find it in does not matter).
    let found = std::sync::Mutex::new(BTreeSet::new());
    ignore::WalkBuilder::new(project_root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .max_depth(max_depth)
        .build_parallel()
        .run(|| {
            let found = &found;
            Box::new(move |entry| {
                if let Ok(entry) = entry {
                    if entry.file_type().is_some_and(|t| t.is_file())
                        && kustomize::is_kustomization_name(entry.path())
                    {
                        if let Some(parent) = entry.path().parent() {
                            let mut dirs = found.lock().unwrap_or_else(|e| e.into_inner());
                            dirs.insert(parent.to_path_buf());
                        }
                    }
                }
                ignore::WalkState::Continue
            })
        });
    let dirs = found.into_inner().unwrap_or_else(|e| e.into_inner());
    if dirs.is_empty() {
        return Vec::new();
    }
    // Read straight from disk: nothing of these files is reported.
    let plan = Plan::new(dirs, |dir| {
        let text = std::fs::read_to_string(kustomize::kustomization_in(dir)?).ok()?;
        tree::yaml::parse(&text, fplint_core::FileId(0), Limits::default())
            .documents
            .into_iter()
            .next()
    });
    let mut roots: Vec<PathBuf> = files.iter().flat_map(|f| plan.roots_including(f)).collect();
    roots.sort();
    roots.dedup();
    roots
}

/// Whether a folder at or above `file`, up to `project_root`, holds a
/// kustomization; folders in `looked` are known to hold none, and so are
/// the folders above them.
fn under_kustomization<'a>(
    file: &'a Path,
    project_root: &Path,
    looked: &mut std::collections::HashSet<&'a Path>,
) -> bool {
    file.ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(project_root))
        .take_while(|d| looked.insert(d))
        .any(|d| kustomize::kustomization_in(d).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository of 1,000 files: 100 services, each a base and three
    /// overlays. Returns the folder and how long the lookup took.
    fn lookup_in_large_repo() -> (
        Vec<PathBuf>,
        PathBuf,
        (std::time::Duration, std::time::Duration),
    ) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let write = |rel: String, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(root)).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(p, text).unwrap_or_else(|e| panic!("{e}"));
        };
        for s in 0..100 {
            let base = format!("apps/svc{s}/base");
            write(
                format!("{base}/deployment.yaml"),
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
            );
            write(
                format!("{base}/service.yaml"),
                "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n",
            );
            write(
                format!("{base}/config.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n",
            );
            write(
                format!("{base}/kustomization.yaml"),
                "resources: [deployment.yaml, service.yaml, config.yaml]\n",
            );
            for env in ["dev", "staging", "prod"] {
                let o = format!("apps/svc{s}/overlays/{env}");
                write(format!("{o}/kustomization.yaml"), &format!("resources: [../../base]\nnamespace: {env}\npatches: [{{path: patch.yaml}}]\n"));
                write(
                    format!("{o}/patch.yaml"),
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
                );
            }
        }
        let changed = root.join("apps/svc42/base/deployment.yaml");
        // On-CPU time of this thread (the listing also runs on walker
        // threads, so this is a floor): wall time on a loaded machine says
        // little.
        let cpu = || {
            std::fs::read_to_string("/proc/thread-self/schedstat")
                .ok()
                .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        };
        let (t, c) = (std::time::Instant::now(), cpu());
        let roots = roots_including(&changed, root);
        let wall = t.elapsed();
        let took = match (c, cpu()) {
            (Some(a), Some(b)) => std::time::Duration::from_nanos(b - a),
            _ => wall,
        };
        let want = root.join("apps/svc42/overlays");
        (roots, want, (took, wall))
    }

    #[test]
    fn a_changed_base_file_finds_its_overlays() {
        let (roots, overlays, (took, wall)) = lookup_in_large_repo();
        assert_eq!(
            roots,
            ["dev", "prod", "staging"].map(|e| overlays.join(e)),
            "in {took:?}"
        );
        eprintln!("overlay lookup in a 1,000-file repository: {took:?} on CPU, {wall:?} wall");
    }

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for (rel, text) in files {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(dir.path()))
                .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(p, text).unwrap_or_else(|e| panic!("{e}"));
        }
        dir
    }

    /// The kustomization that reads the file sits two folders above it:
    /// the project is still searched for the overlays.
    #[test]
    fn a_kustomization_above_the_file_folder_still_searches() {
        let dir = tree(&[
            ("app/manifests/deploy.yaml", "kind: Deployment\n"),
            (
                "app/kustomization.yaml",
                "resources: [manifests/deploy.yaml]\n",
            ),
            ("env/dev/kustomization.yaml", "resources: [../../app]\n"),
        ]);
        let root = dir.path();
        let file = root.join("app/manifests/deploy.yaml");
        assert_eq!(roots_including(&file, root), [root.join("env/dev")]);
    }

    /// No folder at or above the file holds a kustomization: kustomize
    /// refuses to read a file from outside a kustomization's folder, so no
    /// build reads it and the project is not walked.
    #[test]
    fn a_file_outside_every_kustomize_tree_has_no_overlay() {
        let dir = tree(&[
            ("apps/web.yaml", "kind: Deployment\n"),
            (
                "env/dev/kustomization.yaml",
                "resources: [../../apps/web.yaml]\n",
            ),
        ]);
        let root = dir.path();
        assert!(roots_including(&root.join("apps/web.yaml"), root).is_empty());
        // A file in the overlay's own folder is still looked up.
        assert_eq!(
            roots_including(&root.join("env/dev/kustomization.yaml"), root),
            [root.join("env/dev")]
        );
    }
}
