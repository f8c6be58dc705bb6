//! Issue 26, items 1 to 4, against the real binary: which cluster a file
//! describes, and which cluster runs a workload. Same-name clusters stay
//! apart, folders claim their workloads, partial eksctl configs join the
//! nearest definition, nothing depends on file names, and a cluster known
//! only from profiles is said to have an unknown capacity.

use std::path::Path;
use std::process::{Command, Output};

fn fplint(args: &[&str], cwd: &Path) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "400")
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    match serde_json::from_slice(&o.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}):\n{}", stdout(o)),
    }
}

/// A repository root: `.git` marks it, as `git init` would.
fn repo() -> tempfile::TempDir {
    let d = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let _ = std::fs::create_dir_all(d.path().join(".git"));
    d
}

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&p, text) {
        panic!("write {}: {e}", p.display());
    }
}

/// The concise lines of a run.
fn lines(o: &Output) -> Vec<String> {
    stdout(o).lines().map(str::to_string).collect()
}

/// `(file, line, code, message)` of each finding of a JSON run.
fn findings(o: &Output) -> Vec<(String, u64, String, String)> {
    let v = json(o);
    let mut out: Vec<_> = v["diagnostics"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| {
                    (
                        d["file"].as_str().unwrap_or_default().to_string(),
                        d["line"].as_u64().unwrap_or_default(),
                        d["code"].as_str().unwrap_or_default().to_string(),
                        d["message"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn notices(o: &Output) -> Vec<(String, String)> {
    json(o)["notices"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|n| {
                    (
                        n["kind"].as_str().unwrap_or_default().to_string(),
                        n["message"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A Fargate-only eksctl cluster whose one profile selects `namespace`.
fn cluster(name: &str, region: &str, namespace: &str) -> String {
    format!(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: {name}\n  region: {region}\niam:\n  withOIDC: true\nfargateProfiles:\n  - name: fp-system\n    selectors:\n      - namespace: kube-system\n  - name: fp-apps\n    selectors:\n      - namespace: {namespace}\n"
    )
}

const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          resources: {requests: {cpu: 250m, memory: 512Mi}}\n";

const NO_PLACE: &str = "matches no Fargate profile of cluster";

#[test]
fn the_quick_start_places_every_workload() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = fplint(&["check", "examples/"], root);
    let out = stdout(&o);
    assert!(!out.contains("no cluster"), "{out}");
    let o = fplint(&["check", "--format", "json", "examples/"], root);
    assert_eq!(notices(&o), Vec::<(String, String)>::new());
    // The before and after configs of shop-prod are two clusters: the
    // problem is reported once, in the problem's file.
    let fp001: Vec<_> = findings(&o)
        .into_iter()
        .filter(|f| f.2 == "FP001")
        .map(|f| f.0)
        .collect();
    assert_eq!(fp001, ["examples/eksctl/problem/cluster.yaml"]);
}

#[test]
fn one_name_in_two_regions_is_two_clusters() {
    let d = repo();
    write(
        d.path(),
        "eu/cluster.yaml",
        &cluster("shop", "eu-west-1", "web"),
    );
    write(d.path(), "eu/k8s/web.yaml", WEB);
    write(
        d.path(),
        "us/cluster.yaml",
        &cluster("shop", "us-east-1", "api"),
    );
    write(d.path(), "us/k8s/web.yaml", WEB);
    let o = fplint(&["check", "--format", "json", "."], d.path());
    let placed: Vec<_> = findings(&o)
        .into_iter()
        .filter(|f| f.3.contains(NO_PLACE))
        .map(|f| (f.0, f.3))
        .collect();
    assert_eq!(
        placed,
        [(
            "us/k8s/web.yaml".to_string(),
            "Deployment `web` in namespace `web` matches no Fargate profile of cluster `shop` (us/cluster.yaml), which has no nodes: its pods stay Pending".to_string()
        )]
    );
    assert_eq!(notices(&o), Vec::<(String, String)>::new());
}

#[test]
fn a_region_qualified_table_speaks_of_one_cluster() {
    let d = repo();
    write(
        d.path(),
        "eu/cluster.yaml",
        &cluster("shop", "eu-west-1", "web"),
    );
    write(
        d.path(),
        "us/cluster.yaml",
        &cluster("shop", "us-east-1", "api"),
    );
    write(d.path(), "k8s/web.yaml", WEB);
    // The two clusters place it differently (only eu selects `web`).
    // Without a table the workload has no cluster, and the note names both
    // clusters with their files and the key that tells them apart.
    let o = fplint(&["check", "--format", "json", "."], d.path());
    let n = notices(&o);
    assert_eq!(n.len(), 1, "{n:?}");
    assert_eq!(n[0].0, "unassigned-workloads");
    let help = json(&o)["notices"][0]["help"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        help,
        "say which cluster runs them in fplint.toml (clusters: `shop` (eu/cluster.yaml), `shop` (us/cluster.yaml)), e.g.\n[clusters.\"shop@eu-west-1\"]\npaths = [\"k8s/**\"]"
    );
    // The table places the workload on the cluster of its region, and its
    // capacity is that cluster's alone.
    write(
        d.path(),
        "fplint.toml",
        "[clusters.\"shop@us-east-1\"]\npaths = [\"k8s/**\"]\n\n[clusters.\"shop@eu-west-1\"]\nec2-capacity = true\n",
    );
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert_eq!(notices(&o), Vec::<(String, String)>::new());
    let placed: Vec<_> = findings(&o)
        .into_iter()
        .filter(|f| f.3.contains(NO_PLACE))
        .map(|f| f.3)
        .collect();
    assert_eq!(
        placed,
        ["Deployment `web` in namespace `web` matches no Fargate profile of cluster `shop` (us/cluster.yaml), which has no nodes: its pods stay Pending"]
    );
}

#[test]
fn paths_tell_two_versions_of_one_cluster_apart() {
    let d = repo();
    write(
        d.path(),
        "fixed/cluster.yaml",
        &cluster("shop", "eu-west-1", "web"),
    );
    write(
        d.path(),
        "problem/cluster.yaml",
        &cluster("shop", "eu-west-1", "api"),
    );
    write(d.path(), "k8s/web.yaml", WEB);
    write(
        d.path(),
        "fplint.toml",
        "[clusters.shop]\npaths = [\"problem/**\", \"k8s/**\"]\n",
    );
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert_eq!(notices(&o), Vec::<(String, String)>::new());
    let placed: Vec<_> = findings(&o)
        .into_iter()
        .filter(|f| f.3.contains(NO_PLACE))
        .map(|f| (f.0, f.3))
        .collect();
    assert_eq!(
        placed,
        [(
            "k8s/web.yaml".to_string(),
            "Deployment `web` in namespace `web` matches no Fargate profile of cluster `shop` (problem/cluster.yaml), which has no nodes: its pods stay Pending".to_string()
        )]
    );
}

const LABELLED: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: shop, region: eu-west-1}\niam: {withOIDC: true}\nfargateProfiles:\n  - name: fp-system\n    selectors:\n      - namespace: kube-system\n        labels: {k8s-app: kube-dns}\n";
const UNLABELLED: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: shop, region: eu-west-1}\niam: {withOIDC: true}\nfargateProfiles:\n  - name: fp-system\n    selectors:\n      - namespace: kube-system\n";
const NODES: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: shop, region: eu-west-1}\nmanagedNodeGroups:\n  - name: ng-1\n";
const PROFILES: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: shop, region: eu-west-1}\nfargateProfiles:\n  - name: fp-apps\n    selectors:\n      - namespace: web\n";

/// Every assignment of `names` to the files of `roles` (in one folder):
/// the findings, with file names put back to roles, are the same.
fn same_for_every_name(
    roles: &[(&str, &str)],
    names: &[&str],
) -> Vec<(String, u64, String, String)> {
    let mut orders: Vec<Vec<usize>> = vec![Vec::new()];
    for _ in 0..roles.len() {
        orders = orders
            .into_iter()
            .flat_map(|o| {
                (0..names.len())
                    .filter(|i| !o.contains(i))
                    .map(|i| {
                        let mut o = o.clone();
                        o.push(i);
                        o
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    let mut first: Option<Vec<(String, u64, String, String)>> = None;
    for order in &orders {
        let d = repo();
        for (&(role, text), &i) in roles.iter().zip(order) {
            let _ = role;
            write(d.path(), names[i], text);
        }
        let o = fplint(&["check", "--format", "json", "."], d.path());
        let back = |s: &str| {
            let mut s = s.to_string();
            for (&(role, _), &i) in roles.iter().zip(order) {
                s = s.replace(names[i], &format!("<{role}>"));
            }
            s
        };
        let got: Vec<_> = findings(&o)
            .into_iter()
            .map(|(f, l, c, m)| (back(&f), l, c, back(&m)))
            .collect();
        let mut got = got;
        got.sort();
        match &first {
            None => first = Some(got),
            Some(want) => assert_eq!(&got, want, "names {order:?}"),
        }
    }
    first.unwrap_or_default()
}

#[test]
fn file_names_never_change_what_joins() {
    // Two versions of one cluster and a node-group-only file that could
    // belong to either: the versions stay apart (no profile named twice,
    // none overlapping itself), and the node groups join neither.
    let got = same_for_every_name(
        &[
            ("labelled", LABELLED),
            ("unlabelled", UNLABELLED),
            ("nodes", NODES),
        ],
        &["a.yaml", "b.yaml", "c.yaml"],
    );
    let codes: Vec<_> = got
        .iter()
        .map(|f| (f.0.as_str(), f.1, f.2.as_str()))
        .collect();
    assert_eq!(codes, [("<labelled>", 9, "FP001")]);
    // One definition, its node groups and more profiles: one cluster with
    // nodes, whatever the names.
    let got = same_for_every_name(
        &[
            ("cluster", LABELLED),
            ("nodes", NODES),
            ("profiles", PROFILES),
        ],
        &["a.yaml", "cluster.yaml", "z-nodes.yaml"],
    );
    assert_eq!(got, Vec::new());
}

#[test]
fn a_partial_config_joins_the_nearest_definition() {
    let d = repo();
    // Two versions of one cluster; the profiles of each folder join its own.
    write(
        d.path(),
        "with-nodes/cluster.yaml",
        &format!(
            "{}managedNodeGroups:\n  - name: ng-1\n",
            cluster("shop", "eu-west-1", "web")
        ),
    );
    write(
        d.path(),
        "fargate/cluster.yaml",
        &cluster("shop", "eu-west-1", "web"),
    );
    let system = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: shop, region: eu-west-1}\nfargateProfiles:\n  - name: fp-coredns\n    selectors:\n      - namespace: \"*\"\n";
    write(d.path(), "with-nodes/more/profiles.yaml", system);
    write(d.path(), "fargate/more/profiles.yaml", system);
    let o = fplint(
        &["check", "--format", "json", "--select", "FP001", "."],
        d.path(),
    );
    let v = json(&o);
    let got: Vec<_> = v["diagnostics"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| {
                    format!(
                        "{}:{} {} {}",
                        d["file"].as_str().unwrap_or_default(),
                        d["line"],
                        d["code"].as_str().unwrap_or_default(),
                        d["severity"].as_str().unwrap_or_default()
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    // The wildcard selects kube-system, which eksctl never patches CoreDNS
    // for; it matters only on the cluster without nodes. Yet the other
    // version selects kube-system without labels: eksctl moved CoreDNS
    // when it created that cluster, so nothing is wrong anywhere.
    assert_eq!(got, Vec::<String>::new());
    // Without the label-less selector in the Fargate-only version, the
    // profiles that joined it are the error; those of the other are quiet.
    write(
        d.path(),
        "fargate/cluster.yaml",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: shop, region: eu-west-1}\niam: {withOIDC: true}\nfargateProfiles:\n  - name: fp-apps\n    selectors:\n      - namespace: web\n",
    );
    let o = fplint(
        &["check", "--format", "concise", "--select", "FP001", "."],
        d.path(),
    );
    assert_eq!(
        lines(&o),
        ["fargate/more/profiles.yaml:7:20: FP001 [error] CoreDNS stays Pending: namespace pattern `*` covers `kube-system`, but eksctl moves CoreDNS to Fargate only for a selector that names `kube-system` exactly"]
    );
}

#[test]
fn a_cluster_known_from_profiles_alone_says_its_capacity_is_unknown() {
    let d = repo();
    write(d.path(), "k8s/profiles.yaml", PROFILES);
    write(d.path(), "k8s/web.yaml", WEB);
    let message = "1 workload runs on cluster `shop` (k8s/profiles.yaml), known only from profiles for `eksctl create fargateprofile`: whether it has EC2 nodes is unknown, so no check that needs its capacity ran on it";
    let help = "declare its capacity in fplint.toml, or lint it with the config that creates it, e.g.\n[clusters.shop]\nec2-capacity = false  # true when it has EC2 nodes";
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert_eq!(
        notices(&o),
        [("unknown-capacity".to_string(), message.to_string())]
    );
    assert_eq!(json(&o)["notices"][0]["help"].as_str(), Some(help));
    let human = stdout(&fplint(&["check", "."], d.path()));
    assert_eq!(human.matches(message).count(), 1, "{human}");
    let github = stdout(&fplint(&["check", "--format", "github", "."], d.path()));
    assert_eq!(
        github
            .matches(&format!(
                "::notice title=fplint unknown-capacity::{message}"
            ))
            .count(),
        1,
        "{github}"
    );
    let sarif = json(&fplint(&["check", "--format", "sarif", "."], d.path()));
    let notes = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes[0]["descriptor"]["id"], "unknown-capacity");
    assert!(
        notes[0]["message"]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with(message)),
        "{notes}"
    );
    // Declared, the capacity is known: no note, and the checks run.
    write(
        d.path(),
        "fplint.toml",
        "[clusters.shop]\nec2-capacity = false\n",
    );
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert_eq!(notices(&o), Vec::<(String, String)>::new());
    assert!(findings(&o).iter().any(|f| f.2 == "FP005"));
    // No workload depends on it: nothing to say.
    let d = repo();
    write(d.path(), "k8s/profiles.yaml", PROFILES);
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert_eq!(notices(&o), Vec::<(String, String)>::new());
}
