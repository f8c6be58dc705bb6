//! A named manifest whose project root holds many clusters (the pre-commit
//! worst case): context modelling stops once two clusters make the
//! assignment ambiguous, and the manifest ends up exactly where a full run
//! puts it.

use fplint::{Linter, Options};
use std::path::Path;

fn cluster(name: &str) -> String {
    format!(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: {name}, region: eu-west-1}}\niam:\n  withOIDC: true\nfargateProfiles:\n  - name: apps\n    selectors:\n      - namespace: web\n"
    )
}

const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: other\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx\n";

const TF: &str = "resource \"aws_eks_cluster\" \"c\" {\n  name = \"tf\"\n}\n";

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Clusters in team folders, a manifest in a folder that defines none.
fn repo(names: &[&str], config: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "fplint.toml", config);
    for n in names {
        write(root, &format!("team-{n}/cluster.yaml"), &cluster(n));
    }
    write(root, "team-tf/infra/main.tf", TF);
    write(root, "apps/web.yaml", WEB);
    tmp
}

fn named(root: &Path) -> fplint::Report {
    let file = root.join("apps/web.yaml");
    Linter::discover(&[&file])
        .unwrap()
        .with_options(Options {
            project_context: true,
            ..Options::default()
        })
        .check_paths(&[&file])
}

/// The cluster each workload of `apps/web.yaml` is assigned to.
fn assigned(report: &fplint::Report) -> Vec<Option<String>> {
    report
        .project
        .workloads
        .iter()
        .filter(|w| {
            report
                .sources
                .peek(w.loc.span.file)
                .is_some_and(|f| f.path.ends_with("apps/web.yaml"))
        })
        .map(|w| w.cluster_key.clone())
        .collect()
}

fn full(root: &Path) -> fplint::Report {
    Linter::discover(&[root]).unwrap().check_paths(&[root])
}

#[test]
fn many_clusters_at_the_root_stop_after_two() {
    let tmp = repo(&["a", "b", "c", "d"], "");
    let report = named(tmp.path());
    // Two clusters were enough to know the manifest has none.
    assert_eq!(report.project.clusters.len(), 2);
    assert_eq!(assigned(&report), [None]);
    assert_eq!(assigned(&report), assigned(&full(tmp.path())));
    let note = report
        .notices
        .iter()
        .find(|n| n.kind == fplint::NoticeKind::Unassigned)
        .map(|n| n.message.as_str());
    // The search stopped early: the count is a floor, not the run's.
    assert!(
        note.is_some_and(|m| m.contains("the run has at least 2 clusters and")),
        "{note:?}"
    );
    let full = full(tmp.path());
    let note = full
        .notices
        .iter()
        .find(|n| n.kind == fplint::NoticeKind::Unassigned)
        .map(|n| n.message.as_str());
    assert!(note.is_none_or(|m| !m.contains("at least")), "{note:?}");
}

#[test]
fn one_cluster_name_is_read_in_full() {
    // Two copies of one cluster and a Terraform one: all are modelled.
    let tmp = repo(&["a"], "");
    write(tmp.path(), "team-copy/cluster.yaml", &cluster("a"));
    let report = named(tmp.path());
    assert!(report.project.clusters.len() >= 2);
    assert_eq!(assigned(&report), assigned(&full(tmp.path())));
}

#[test]
fn configured_paths_read_every_cluster() {
    let tmp = repo(&["a", "b", "c"], "[clusters.b]\npaths = [\"apps/**\"]\n");
    let report = named(tmp.path());
    assert_eq!(assigned(&report), [Some("b".to_string())]);
    assert_eq!(assigned(&report), assigned(&full(tmp.path())));
    // The manifest's namespace is selected by no profile of `b`.
    assert!(report.diagnostics().iter().any(|d| d.code == "FP011"));
}

/// A file in a folder that no `fplint.toml` or `.git` marks as a project
/// (a home or download folder): its own folder's files are its context,
/// nothing below them is walked.
#[test]
fn unmarked_folder_is_searched_one_level_deep() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "web.yaml", WEB);
    write(root, "cluster.yaml", &cluster("beside"));
    write(root, "deep/down/cluster.yaml", &cluster("below"));
    let file = root.join("web.yaml");
    let report = Linter::discover(&[&file])
        .unwrap()
        .with_options(Options {
            project_context: true,
            ..Options::default()
        })
        .check_paths(&[&file]);
    let names: Vec<Option<&String>> = report
        .project
        .clusters
        .iter()
        .map(|c| c.name.known())
        .collect();
    assert_eq!(names, [Some(&"beside".to_string())]);
    let keys: Vec<bool> = report
        .project
        .workloads
        .iter()
        .map(|w| w.cluster_key.is_some())
        .collect();
    assert_eq!(keys, [true]);
}

/// The names of the clusters a run modelled, in order.
fn cluster_names(report: &fplint::Report) -> Vec<String> {
    report
        .project
        .clusters
        .iter()
        .filter_map(|c| c.name.known().cloned())
        .collect()
}

/// The stop at two lists the root in path order, with the walk's own
/// rules: the first two clusters not ignored are read, as a full listing
/// sorted would give them.
#[test]
fn the_two_clusters_read_are_the_first_in_path_order() {
    let tmp = repo(&["d", "b", "c", "a"], "");
    write(tmp.path(), ".gitignore", "team-a/\n");
    write(tmp.path(), "team-b/notes/readme.yaml", "a: 1\n");
    let report = named(tmp.path());
    assert_eq!(cluster_names(&report), ["b", "c"]);
    assert_eq!(assigned(&report), [None]);
    assert_eq!(assigned(&report), assigned(&full(tmp.path())));
}

/// A cluster in the named file's own folder: the scope stops there and
/// that cluster is read in full, not cut at two.
#[test]
fn a_cluster_beside_the_file_is_not_cut_at_two() {
    let tmp = repo(&["a", "b", "c"], "");
    write(tmp.path(), "apps/cluster.yaml", &cluster("own"));
    let report = named(tmp.path());
    assert_eq!(cluster_names(&report), ["own"]);
    assert_eq!(assigned(&report), [Some("own".to_string())]);
}
