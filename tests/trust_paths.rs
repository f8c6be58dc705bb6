//! Issue 38, items 14 to 16, and issue 39, item 8, against the real
//! binary: a Terragrunt unit and the module it runs give the same findings
//! however they are named (the tree, the unit's folder, its file, the
//! module's folder or file, as pre-commit names staged files); the run's
//! clusters do not change with the paths named and are named by the unit
//! that runs them.

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

/// The unit: it runs `src/fargate` with the cluster's name.
const UNIT: &str = "terraform {\n  source = \"../../src/fargate\"\n}\n\ninputs = {\n  cluster_name = \"beacon\"\n}\n";

/// The module: its only profile selects `apps`, and its CoreDNS add-on
/// keeps the EC2 compute type.
const MODULE: &str = r#"variable "cluster_name" {
  type = string
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name    = var.cluster_name
  cluster_version = "1.30"
  vpc_id          = "vpc-0abc"
  subnet_ids      = ["subnet-0a1", "subnet-0b2"]

  cluster_addons = {
    coredns = {}
  }

  fargate_profiles = {
    apps = {
      selectors = [{ namespace = "apps" }]
    }
  }
}
"#;

/// Every way of naming the unit and its module, as the command line and
/// pre-commit name them (relative to the repository root).
const NAMINGS: &[&[&str]] = &[
    &["."],
    &[],
    &["envs"],
    &["envs/fargate"],
    &["envs/fargate/"],
    &["./envs/fargate"],
    &["envs/../envs/fargate"],
    &["envs/fargate/terragrunt.hcl"],
    &["./envs/fargate/terragrunt.hcl"],
    &["src"],
    &["src/fargate"],
    &["src/fargate/main.tf"],
    &["envs/fargate", "src/fargate"],
    &["envs/fargate/terragrunt.hcl", "src/fargate/main.tf"],
    &["src/fargate/main.tf", "envs/fargate/terragrunt.hcl"],
];

/// The concise output of every naming of the tree in `d`, which must be
/// one and the same; returned once.
fn same_for_every_naming(d: &Path) -> String {
    let mut first: Option<(String, &[&str])> = None;
    for naming in NAMINGS {
        let mut args = vec!["check", "--format", "concise"];
        args.extend_from_slice(naming);
        let got = stdout(&fplint(&args, d));
        match &first {
            None => first = Some((got, naming)),
            Some((want, named)) => {
                assert_eq!(
                    &got,
                    want,
                    "`{}` against `{}`",
                    naming.join(" "),
                    named.join(" ")
                )
            }
        }
    }
    first.map(|(out, _)| out).unwrap_or_default()
}

#[test]
fn a_unit_and_its_module_give_the_same_findings_however_named() {
    let d = repo();
    write(d.path(), "envs/fargate/terragrunt.hcl", UNIT);
    write(d.path(), "src/fargate/main.tf", MODULE);
    let out = same_for_every_naming(d.path());
    assert_eq!(
        out,
        "src/fargate/main.tf:9:3: FP005 [error] no Fargate selector of cluster `beacon` matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up\n\
         src/fargate/main.tf:15:5: FP006 [warning] the CoreDNS add-on of cluster `beacon` does not set `computeType` to `Fargate`: the add-on schedules CoreDNS for EC2 nodes (annotation `eks.amazonaws.com/compute-type: ec2`), and the cluster has none\n"
    );
    // Each finding once, in the module's code, the unit that runs it related.
    for naming in [".", "envs/fargate/terragrunt.hcl", "src/fargate"] {
        let v = json(&fplint(&["check", "--format", "json", naming], d.path()));
        let related: Vec<Vec<(String, u64, String)>> = v["diagnostics"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        x["related"]
                            .as_array()
                            .map(|r| {
                                r.iter()
                                    .map(|r| {
                                        (
                                            r["file"].as_str().unwrap_or_default().to_string(),
                                            r["line"].as_u64().unwrap_or_default(),
                                            r["message"].as_str().unwrap_or_default().to_string(),
                                        )
                                    })
                                    .collect()
                            })
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .unwrap_or_default();
        let unit = (
            "envs/fargate/terragrunt.hcl".to_string(),
            1,
            "`module.terragrunt` is called here".to_string(),
        );
        assert_eq!(
            related,
            [
                vec![unit.clone()],
                vec![
                    (
                        "src/fargate/main.tf".to_string(),
                        9,
                        "cluster without node groups".to_string()
                    ),
                    unit
                ]
            ],
            "{naming}"
        );
    }
}

#[test]
fn a_unit_whose_inputs_make_its_module_right_is_quiet_however_named() {
    // With its variables' defaults the module would keep CoreDNS on EC2
    // and select no `kube-system`; the unit sets the Fargate compute type
    // and selects it. Named alone, the module runs with the unit's inputs.
    let d = repo();
    write(
        d.path(),
        "envs/fargate/terragrunt.hcl",
        "terraform {\n  source = \"../../src/fargate\"\n}\n\ninputs = {\n  cluster_name = \"beacon\"\n  coredns = { configuration_values = jsonencode({ computeType = \"Fargate\" }) }\n  namespaces = [\"kube-system\", \"apps\"]\n}\n",
    );
    write(
        d.path(),
        "src/fargate/main.tf",
        r#"variable "cluster_name" {
  type    = string
  default = "beacon"
}

variable "coredns" {
  type    = any
  default = {}
}

variable "namespaces" {
  type    = list(string)
  default = ["apps"]
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name    = var.cluster_name
  cluster_version = "1.30"
  vpc_id          = "vpc-0abc"
  subnet_ids      = ["subnet-0a1", "subnet-0b2"]

  cluster_addons = {
    coredns = var.coredns
  }

  fargate_profiles = {
    for ns in var.namespaces : ns => {
      selectors = [{ namespace = ns }]
    }
  }
}
"#,
    );
    assert_eq!(same_for_every_naming(d.path()), "");
}

#[test]
fn pre_commit_on_the_staged_unit_agrees_with_the_tree() {
    // The hook passes Terragrunt's `.hcl` files, and the staged unit gives
    // the findings the tree gives.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for hooks in [
        ".pre-commit-hooks.yaml",
        "packaging/pre-commit/.pre-commit-hooks.yaml",
    ] {
        let text = std::fs::read_to_string(root.join(hooks)).unwrap_or_default();
        assert!(
            text.contains("types_or: [yaml, json, terraform, hcl,"),
            "{hooks}:\n{text}"
        );
    }
    let d = repo();
    write(d.path(), "envs/fargate/terragrunt.hcl", UNIT);
    write(d.path(), "src/fargate/main.tf", MODULE);
    let tree = stdout(&fplint(&["check", "--format", "concise", "."], d.path()));
    let staged = fplint(
        &[
            "check",
            "--format",
            "concise",
            "envs/fargate/terragrunt.hcl",
        ],
        d.path(),
    );
    assert_eq!(stdout(&staged), tree);
    assert_eq!(staged.status.code(), Some(1));
    assert_eq!(tree.lines().count(), 2);
}

/// A unit that runs `src/fargate`, which wraps the registry module in a
/// local one; a manifest no profile selects.
fn wrapped(d: &Path, cluster_name: &str) {
    write(
        d,
        "envs/fargate/terragrunt.hcl",
        &format!("terraform {{\n  source = \"../../src/fargate\"\n}}\n\n{cluster_name}"),
    );
    write(
        d,
        "src/fargate/main.tf",
        "variable \"cluster_name\" {\n  type = string\n}\n\nmodule \"eks\" {\n  source       = \"./eks\"\n  cluster_name = var.cluster_name\n}\n",
    );
    write(
        d,
        "src/fargate/eks/main.tf",
        r#"variable "cluster_name" {
  type = string
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name    = var.cluster_name
  cluster_version = "1.30"
  vpc_id          = "vpc-0abc"
  subnet_ids      = ["subnet-0a1", "subnet-0b2"]

  fargate_profiles = {
    system = {
      selectors = [{ namespace = "kube-system" }]
    }
  }
}
"#,
    );
    write(
        d,
        "k8s/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          resources: {requests: {cpu: 250m, memory: 512Mi}}\n",
    );
}

/// `(cluster, run_by)` of each table of `placement --format json`.
fn clusters(d: &Path, naming: &str) -> Vec<(String, String)> {
    let v = json(&fplint(&["placement", "--format", "json", naming], d));
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|t| {
                    (
                        t["cluster"].as_str().unwrap_or_default().to_string(),
                        t["run_by"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_clusters_of_a_run_do_not_change_with_the_paths_named() {
    let d = repo();
    wrapped(d.path(), "inputs = {\n  cluster_name = \"beacon\"\n}\n");
    // One cluster, named by the unit that runs it, whatever is named:
    // never the module folders read as roots of their own.
    for naming in [
        ".",
        "k8s/web.yaml",
        "envs/fargate",
        "envs/fargate/terragrunt.hcl",
        "src/fargate",
        "src/fargate/main.tf",
        "src/fargate/eks",
        "src/fargate/eks/main.tf",
    ] {
        assert_eq!(
            clusters(d.path(), naming),
            [("beacon".to_string(), "envs/fargate".to_string())],
            "{naming}"
        );
    }
    // The module the unit's module wraps, named alone, is run by the unit
    // too: no finding of a root of its own.
    for naming in ["src/fargate/eks", "src/fargate/eks/main.tf"] {
        let out = stdout(&fplint(&["check", "--format", "concise", naming], d.path()));
        assert_eq!(out, "", "{naming}");
    }
    for naming in [".", "k8s/web.yaml"] {
        let out = stdout(&fplint(&["check", "--format", "concise", naming], d.path()));
        assert_eq!(
            out,
            "k8s/web.yaml:5:14: FP011 [error] Deployment `web` in namespace `web` matches no Fargate profile of cluster `beacon` (envs/fargate), which has no nodes: its pods stay Pending\n",
            "{naming}"
        );
    }
    let text = stdout(&fplint(&["placement", "."], d.path()));
    assert_eq!(
        text.lines().next(),
        Some("cluster beacon (Fargate only), src/fargate/eks/main.tf:9, in module.eks, run by envs/fargate")
    );
}

#[test]
fn a_cluster_of_unknown_name_is_named_by_its_unit() {
    // The unit's name comes from a dependency fplint cannot read: the
    // cluster is the unit's, not `module.terragrunt.module.eks.module.eks`.
    let d = repo();
    wrapped(
        d.path(),
        "dependency \"names\" {\n  config_path = \"../names\"\n}\n\ninputs = {\n  cluster_name = dependency.names.outputs.cluster\n}\n",
    );
    for naming in [".", "k8s/web.yaml", "src/fargate"] {
        assert_eq!(
            clusters(d.path(), naming),
            [("envs/fargate".to_string(), String::new())],
            "{naming}"
        );
    }
    let out = stdout(&fplint(&["check", "--format", "concise", "."], d.path()));
    assert_eq!(
        out,
        "k8s/web.yaml:5:14: FP011 [error] Deployment `web` in namespace `web` matches no Fargate profile of cluster `envs/fargate`, which has no nodes: its pods stay Pending\n"
    );
    let text = stdout(&fplint(&["placement", "."], d.path()));
    assert_eq!(
        text.lines().next(),
        Some("cluster envs/fargate (Fargate only), src/fargate/eks/main.tf:9, in module.eks")
    );
}

#[test]
fn placement_calls_a_cluster_with_nodes_and_no_profile_ec2_only() {
    let d = repo();
    let eksctl = |name: &str, extra: &str| {
        format!("apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: {name}\n  region: eu-west-1\nvpc:\n  cidr: 10.0.0.0/16\nmanagedNodeGroups:\n  - name: ng-1\n{extra}")
    };
    write(d.path(), "nodes/cluster.yaml", &eksctl("nodes", ""));
    write(
        d.path(),
        "mixed/cluster.yaml",
        &eksctl(
            "mixed",
            "fargateProfiles:\n  - name: fp-system\n    selectors:\n      - namespace: kube-system\n",
        ),
    );
    let text = stdout(&fplint(&["placement", "."], d.path()));
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("cluster ")).collect();
    assert_eq!(
        headers,
        [
            "cluster mixed (Fargate and EC2), mixed/cluster.yaml:4",
            "cluster nodes (EC2 only), nodes/cluster.yaml:4",
        ]
    );
    let mermaid = stdout(&fplint(
        &["placement", "--format", "mermaid", "nodes"],
        d.path(),
    ));
    assert!(mermaid.contains("cluster nodes · EC2 only"), "{mermaid}");
}

const HARBOR: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: harbor\n  region: eu-west-1\nvpc:\n  id: vpc-0abc\n  subnets:\n    private:\n      eu-west-1a: {id: subnet-0a1}\n      eu-west-1b: {id: subnet-0b2}\n";

const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          resources: {requests: {cpu: 250m, memory: 512Mi}}\n";

#[test]
fn numbered_steps_of_one_cluster_are_one_cluster() {
    // Each step repeats `metadata` and `vpc`; one adds the node group,
    // one the add-ons, one the Fargate profile. Whatever the files are
    // called, they are one cluster with EC2 nodes, not four clusters of
    // which one is Fargate-only.
    let steps = [
        format!("{HARBOR}iam:\n  withOIDC: true\n"),
        format!("{HARBOR}managedNodeGroups:\n  - name: ng-system\n    instanceType: m5.large\n    privateNetworking: true\n"),
        format!("{HARBOR}addons:\n  - name: vpc-cni\n  - name: coredns\n"),
        format!("{HARBOR}fargateProfiles:\n  - name: fp-apps\n    selectors:\n      - namespace: apps\n"),
    ];
    for names in [
        [
            "01-cluster.yaml",
            "02-nodegroup.yaml",
            "03-addons.yaml",
            "05-fargate.yaml",
        ],
        ["z.yaml", "y.yaml", "x.yaml", "w.yaml"],
    ] {
        let d = repo();
        for (name, text) in names.iter().zip(&steps) {
            write(d.path(), &format!("eks/{name}"), text);
        }
        write(d.path(), "k8s/web.yaml", WEB);
        let out = fplint(&["check", "--format", "json", "."], d.path());
        let v = json(&out);
        assert_eq!(v["diagnostics"], serde_json::json!([]), "{names:?}");
        assert_eq!(v["notices"], serde_json::Value::Null, "{names:?}");
        let tables = json(&fplint(&["placement", "--format", "json", "."], d.path()));
        let kinds: Vec<(String, bool)> = tables
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|t| {
                        (
                            t["cluster"].as_str().unwrap_or_default().to_string(),
                            t["fargate_only"].as_bool().unwrap_or(true),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(kinds, [("harbor".to_string(), false)], "{names:?}");
    }
    let d = repo();
    for (name, text) in [
        "01-cluster.yaml",
        "02-nodegroup.yaml",
        "03-addons.yaml",
        "05-fargate.yaml",
    ]
    .iter()
    .zip(&steps)
    {
        write(d.path(), &format!("eks/{name}"), text);
    }
    let text = stdout(&fplint(&["placement", "."], d.path()));
    assert_eq!(
        text.lines().next(),
        Some("cluster harbor (Fargate and EC2), eks/01-cluster.yaml:4 (also eks/02-nodegroup.yaml:4, eks/03-addons.yaml:4, eks/05-fargate.yaml:4)")
    );
}

#[test]
fn the_notes_advice_for_two_versions_of_one_cluster_does_what_it_says() {
    // Two versions in one folder: both say which profiles the cluster has,
    // so they stay two clusters, and a table naming `harbor` must say
    // which one.
    let d = repo();
    write(
        d.path(),
        "eks/cluster.yaml",
        &format!("{HARBOR}fargateProfiles:\n  - name: fp-apps\n    selectors:\n      - namespace: apps\n"),
    );
    write(
        d.path(),
        "eks/cluster-next.yaml",
        &format!("{HARBOR}fargateProfiles:\n  - name: fp-apps\n    selectors:\n      - namespace: apps\n  - name: fp-system\n    selectors:\n      - namespace: kube-system\n"),
    );
    write(d.path(), "k8s/web.yaml", WEB);
    // A workload only the next version places: the two versions disagree,
    // so the run keeps its note rather than weighing them.
    write(
        d.path(),
        "k8s/api.yaml",
        &WEB.replace("name: web", "name: api")
            .replace("namespace: web", "namespace: kube-system"),
    );
    let v = json(&fplint(&["check", "--format", "json", "."], d.path()));
    let help = v["notices"][0]["help"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        help,
        "say which cluster runs them in fplint.toml (clusters: `harbor` (eks/cluster-next.yaml), `harbor` (eks/cluster.yaml)), e.g.\n[clusters.harbor]\npaths = [\"eks/cluster-next.yaml\", \"k8s/**\"]"
    );
    // The advice as written, and with `**` for where the workloads are.
    let advice = help
        .split_once("e.g.\n")
        .map(|(_, s)| s)
        .unwrap_or_default();
    for table in [
        advice.to_string(),
        "[clusters.harbor]\npaths = [\"eks/cluster-next.yaml\", \"**\"]".to_string(),
    ] {
        write(d.path(), "fplint.toml", &format!("{table}\n"));
        let out = fplint(&["check", "--format", "json", "."], d.path());
        let v = json(&out);
        assert_eq!(v["notices"], serde_json::Value::Null, "{table}");
        let found: Vec<(String, String)> = v["diagnostics"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        (
                            x["file"].as_str().unwrap_or_default().to_string(),
                            x["message"].as_str().unwrap_or_default().to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            found,
            [
                (
                    "eks/cluster.yaml".to_string(),
                    "no Fargate selector of cluster `harbor` (eks/cluster.yaml) matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up".to_string()
                ),
                (
                    "k8s/web.yaml".to_string(),
                    "Deployment `web` in namespace `web` matches no Fargate profile of cluster `harbor` (eks/cluster-next.yaml), which has no nodes: its pods stay Pending".to_string()
                ),
            ],
            "{table}"
        );
    }
}

#[test]
fn a_syntax_error_in_the_units_module_is_reported_however_named() {
    let d = repo();
    write(d.path(), "envs/fargate/terragrunt.hcl", UNIT);
    write(
        d.path(),
        "src/fargate/main.tf",
        &format!("{MODULE}\nresource \"aws_iam_role\" \"x\" {{\n  name =\n}}\n"),
    );
    let out = same_for_every_naming(d.path());
    assert_eq!(
        out,
        "src/fargate/main.tf:26:9: FP000 [error] invalid HCL: invalid expression; expected `\"`, `[`, `{`, `-`, `!`, `(`, `_`, `<`, letter or digit\n"
    );
    for naming in [".", "envs/fargate/terragrunt.hcl"] {
        let o = fplint(&["check", "--format", "concise", naming], d.path());
        assert_eq!(o.status.code(), Some(2), "{naming}");
    }
}
