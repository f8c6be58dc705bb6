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
            text.contains("types_or: [yaml, json, terraform, hcl]"),
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
