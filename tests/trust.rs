//! Issue 12, items 7 to 12, against the real binary: no run passes
//! silently. Workloads find their cluster in a repository of several; a
//! named file brings its project's clusters as context; parse errors are
//! never hidden; named files that are not linted say so; unreadable paths
//! fail the run in every format; suppressions cover the whole finding.

use std::path::Path;
use std::process::{Command, Output};

fn fplint(args: &[&str], cwd: &Path) -> Output {
    fplint_threads(args, cwd, None)
}

fn fplint_threads(args: &[&str], cwd: &Path, threads: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fplint"));
    cmd.args(args).current_dir(cwd).env("NO_COLOR", "1");
    match threads {
        Some(n) => cmd.env("RAYON_NUM_THREADS", n),
        None => cmd.env_remove("RAYON_NUM_THREADS"),
    };
    match cmd.output() {
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

fn tmp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    write_bytes(dir, name, text.as_bytes());
}

fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&p, bytes) {
        panic!("write {}: {e}", p.display());
    }
}

/// A repository root: `.git` marks it, as `git init` would.
fn repo() -> tempfile::TempDir {
    let d = tmp();
    let _ = std::fs::create_dir_all(d.path().join(".git"));
    d
}

/// The concise lines of a run, as `(file:line code)` pairs.
fn codes(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let file = parts.next()?;
            let line = parts.next()?;
            let _col = parts.next()?;
            let code = parts.next()?.split_whitespace().next()?;
            Some(format!("{file}:{line} {code}"))
        })
        .collect()
}

fn eksctl(name: &str, namespace: &str) -> String {
    format!(
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: {name}
  region: eu-west-1
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
  - name: fp-apps
    selectors:
      - namespace: {namespace}
iam:
  withOIDC: true
"
    )
}

fn deployment(name: &str, namespace: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {namespace}
spec:
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
        - name: app
          image: public.ecr.aws/nginx/nginx:1.27
          resources:
            requests: {{cpu: 250m, memory: 512Mi}}
"
    )
}

// ---------------------------------------------------------------- item 7

/// prod and staging in one repository: each manifest is checked against
/// the cluster of its own folder, not dropped because the run has two.
#[test]
fn workloads_take_the_cluster_of_their_folder() {
    let d = repo();
    write(d.path(), "prod/cluster.yaml", &eksctl("prod", "orders"));
    write(
        d.path(),
        "staging/cluster.yaml",
        &eksctl("staging", "payments"),
    );
    // `payments` runs only on staging: on prod it stays Pending.
    write(
        d.path(),
        "prod/apps/payments.yaml",
        &deployment("payments", "payments"),
    );
    write(
        d.path(),
        "staging/apps/payments.yaml",
        &deployment("payments", "payments"),
    );
    let o = fplint(&["check", "--format", "concise", "."], d.path());
    assert_eq!(
        codes(&o),
        ["prod/apps/payments.yaml:5 FP011"],
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("cluster `prod`"), "{}", stdout(&o));
    assert_eq!(o.status.code(), Some(1));
}

/// A Terraform root's cluster lives where the root is run, though a
/// called module defines it; that still holds when an eksctl cluster
/// described in two files, earlier in the walk, is joined into one (the
/// join shifted every later cluster onto its neighbour's folder).
#[test]
fn a_join_elsewhere_keeps_terraform_roots_owning_their_manifests() {
    let d = repo();
    write(d.path(), "a-team/cluster.yaml", &eksctl("alpha", "orders"));
    write(
        d.path(),
        "a-team/0-profiles.yaml",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: alpha\n  region: eu-west-1\nfargateProfiles:\n  - name: fp-jobs\n    selectors:\n      - namespace: jobs\n",
    );
    write(
        d.path(),
        "modules/eks/main.tf",
        "variable \"name\" { type = string }\nresource \"aws_eks_cluster\" \"this\" {\n  name     = var.name\n  role_arn = \"arn:aws:iam::123456789012:role/eks\"\n  vpc_config { subnet_ids = [\"subnet-1\", \"subnet-2\"] }\n}\nresource \"aws_eks_fargate_profile\" \"system\" {\n  cluster_name           = aws_eks_cluster.this.name\n  fargate_profile_name   = \"system\"\n  pod_execution_role_arn = \"arn:aws:iam::123456789012:role/pod\"\n  subnet_ids             = [\"subnet-1\"]\n  selector { namespace = \"kube-system\" }\n}\n",
    );
    write(
        d.path(),
        "envs/prod/main.tf",
        "provider \"aws\" { region = \"eu-west-1\" }\nmodule \"eks\" {\n  source = \"../../modules/eks\"\n  name   = \"prod\"\n}\n",
    );
    write(
        d.path(),
        "envs/prod/k8s/web.yaml",
        &deployment("web", "web"),
    );
    let o = fplint(&["check", "--format", "concise", "."], d.path());
    assert_eq!(
        codes(&o),
        [
            "envs/prod/k8s/web.yaml:5 FP011",
            // Fargate-only, with no CoreDNS add-on and no patch of CoreDNS.
            "modules/eks/main.tf:2 FP006"
        ],
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("cluster `prod`"), "{}", stdout(&o));
}

/// The same in Terraform and CloudFormation: the folder of the module or
/// template that defines the cluster owns the manifests below it.
#[test]
fn terraform_and_cloudformation_folders_own_their_manifests() {
    let d = repo();
    write(
        d.path(),
        "envs/prod/main.tf",
        r#"resource "aws_eks_cluster" "this" {
  name     = "prod"
  role_arn = "arn:aws:iam::111122223333:role/prod-cluster"
  vpc_config {
    subnet_ids = ["subnet-0a1b2c3d", "subnet-0e1f2a3b"]
  }
}

resource "aws_eks_fargate_profile" "system" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "system"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/prod-pods"
  subnet_ids             = ["subnet-0a1b2c3d"]
  selector {
    namespace = "kube-system"
  }
  selector {
    namespace = "orders"
  }
}
"#,
    );
    write(
        d.path(),
        "envs/staging/stack.yaml",
        "AWSTemplateFormatVersion: '2010-09-09'
Resources:
  Cluster:
    Type: AWS::EKS::Cluster
    Properties:
      Name: staging
      RoleArn: arn:aws:iam::111122223333:role/staging-cluster
      ResourcesVpcConfig:
        SubnetIds: [subnet-0a1b2c3d]
  Profile:
    Type: AWS::EKS::FargateProfile
    Properties:
      ClusterName: !Ref Cluster
      FargateProfileName: everything
      PodExecutionRoleArn: arn:aws:iam::111122223333:role/staging-pods
      Selectors:
        - Namespace: kube-system
        - Namespace: payments
",
    );
    write(
        d.path(),
        "envs/prod/k8s/payments.yaml",
        &deployment("payments", "payments"),
    );
    write(
        d.path(),
        "envs/staging/k8s/payments.yaml",
        &deployment("payments", "payments"),
    );
    let o = fplint(&["check", "--format", "json", "."], d.path());
    let v = json(&o);
    let fp011: Vec<String> = v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "FP011")
        .map(|d| format!("{}:{}", d["file"].as_str().unwrap_or(""), d["line"]))
        .collect();
    assert_eq!(fp011, ["envs/prod/k8s/payments.yaml:5"], "{v:#}");
    assert!(
        v.get("notices").is_none(),
        "every workload has a cluster: {v:#}"
    );
}

/// A manifest no folder places is reported once, with the fix, in every
/// format; `[clusters.NAME] paths` places it.
#[test]
fn a_workload_without_a_cluster_is_a_note_in_every_format() {
    let d = repo();
    write(d.path(), "prod/cluster.yaml", &eksctl("prod", "orders"));
    write(
        d.path(),
        "staging/cluster.yaml",
        &eksctl("staging", "payments"),
    );
    write(
        d.path(),
        "shared/payments.yaml",
        &deployment("payments", "payments"),
    );
    write(
        d.path(),
        "shared/orders.yaml",
        &deployment("orders", "orders"),
    );

    let o = fplint(&["check", "."], d.path());
    assert_eq!(o.status.code(), Some(0), "a note does not fail the run");
    let human = stdout(&o);
    assert!(
        human.contains("note: 2 workloads have no cluster, so no workload check ran on them: the run has 2 clusters"),
        "{human}"
    );
    assert!(
        human.contains("[clusters.prod]\n        paths = [\"shared/**\"]"),
        "{human}"
    );

    let v = json(&fplint(&["check", "--format", "json", "."], d.path()));
    assert_eq!(v["notices"][0]["kind"], "unassigned-workloads", "{v:#}");
    assert_eq!(v["notices"][0]["severity"], "info");
    assert_eq!(v["notices"].as_array().map(Vec::len), Some(1));

    let s = json(&fplint(&["check", "--format", "sarif", "."], d.path()));
    let n = &s["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(n["descriptor"]["id"], "unassigned-workloads", "{s:#}");
    assert_eq!(n["level"], "note");
    assert_eq!(s["runs"][0]["invocations"][0]["executionSuccessful"], true);

    let g = stdout(&fplint(&["check", "--format", "github", "."], d.path()));
    assert!(
        g.starts_with("::notice title=fplint unassigned-workloads::2 workloads have no cluster"),
        "{g}"
    );

    // The snippet works: staging runs the shared manifests.
    write(
        d.path(),
        "fplint.toml",
        "[clusters.staging]\npaths = [\"shared/**\"]\n",
    );
    let o = fplint(&["check", "--format", "concise", "."], d.path());
    assert_eq!(codes(&o), ["shared/orders.yaml:5 FP011"], "{}", stdout(&o));
    assert!(!stdout(&fplint(&["check", "."], d.path())).contains("note:"));
}

/// `placement` says why a cluster shows no workloads.
#[test]
fn placement_says_why_a_cluster_is_empty() {
    let d = repo();
    write(d.path(), "prod/cluster.yaml", &eksctl("prod", "orders"));
    write(
        d.path(),
        "staging/cluster.yaml",
        &eksctl("staging", "payments"),
    );
    write(
        d.path(),
        "shared/payments.yaml",
        &deployment("payments", "payments"),
    );
    let o = fplint(&["placement", "."], d.path());
    let text = stdout(&o);
    assert!(
        text.contains("cluster prod (Fargate only), prod/cluster.yaml:4\n  no workloads found for this cluster: 1 of 1 workload belongs to no cluster"),
        "{text}"
    );
    write(
        d.path(),
        "prod/apps/payments.yaml",
        &deployment("payments", "payments"),
    );
    std::fs::remove_dir_all(d.path().join("shared")).ok();
    let text = stdout(&fplint(&["placement", "."], d.path()));
    assert!(
        text.contains("cluster staging (Fargate only), staging/cluster.yaml:4\n  no workloads found for this cluster: 1 workload runs on another cluster"),
        "{text}"
    );
    let d = repo();
    write(d.path(), "cluster.yaml", &eksctl("prod", "orders"));
    let text = stdout(&fplint(&["placement", "."], d.path()));
    assert!(text.contains("no Kubernetes workloads were read"), "{text}");
}

/// Several clusters, several threads: the same bytes.
#[test]
fn assignment_is_deterministic() {
    let d = repo();
    for env in ["prod", "staging", "dev"] {
        write(
            d.path(),
            &format!("{env}/cluster.yaml"),
            &eksctl(env, "orders"),
        );
        for i in 0..20 {
            write(
                d.path(),
                &format!("{env}/apps/app{i}.yaml"),
                &deployment(
                    &format!("app{i}"),
                    if i % 2 == 0 { "orders" } else { "web" },
                ),
            );
        }
    }
    write(d.path(), "shared/x.yaml", &deployment("x", "web"));
    let one = fplint_threads(&["check", "--format", "json", "."], d.path(), Some("1"));
    let four = fplint_threads(&["check", "--format", "json", "."], d.path(), Some("4"));
    assert_eq!(stdout(&one), stdout(&four));
    // `shared/x.yaml` has no cluster, but every candidate finds it unplaced.
    assert_eq!(json(&one)["diagnostics"].as_array().map(Vec::len), Some(31));
}

// ---------------------------------------------------------------- item 8

/// pre-commit names only the staged manifest: the clusters of its
/// repository are read as context, and only the named file is reported on.
#[test]
fn a_named_manifest_is_checked_against_its_repository() {
    let d = repo();
    // The cluster file has a finding of its own (FP001): not reported,
    // because it was not named.
    write(
        d.path(),
        "infra/cluster.yaml",
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
        labels:
          k8s-app: kube-dns
  - name: fp-apps
    selectors:
      - namespace: orders
iam:
  withOIDC: true
",
    );
    write(d.path(), "apps/web.yaml", &deployment("web", "web"));
    write(
        d.path(),
        "apps/orders.yaml",
        &deployment("orders", "orders"),
    );
    let o = fplint(&["check", "--format", "json", "apps/web.yaml"], d.path());
    let v = json(&o);
    assert_eq!(v["files_scanned"], 1);
    let found: Vec<String> = v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            format!(
                "{} {}",
                d["code"].as_str().unwrap_or(""),
                d["file"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(found, ["FP011 apps/web.yaml"], "{v:#}");
    assert_eq!(
        v["diagnostics"][0]["related"][0]["file"],
        "infra/cluster.yaml"
    );
    assert_eq!(o.status.code(), Some(1));
    // From inside the folder, paths stay relative to where fplint runs.
    let o = fplint(
        &["check", "--format", "json", "web.yaml"],
        &d.path().join("apps"),
    );
    assert_eq!(
        json(&o)["diagnostics"][0]["related"][0]["file"],
        "../infra/cluster.yaml"
    );
    // A manifest the cluster runs: nothing.
    let o = fplint(&["check", "apps/orders.yaml"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

/// The project root is the folder of the nearest fplint.toml, before the
/// git root: a cluster outside it is not context.
#[test]
fn the_project_root_is_the_config_folder_first() {
    let d = repo();
    write(d.path(), "team-a/fplint.toml", "");
    write(d.path(), "team-a/cluster.yaml", &eksctl("a", "orders"));
    write(d.path(), "team-b/cluster.yaml", &eksctl("b", "web"));
    write(d.path(), "team-a/apps/web.yaml", &deployment("web", "web"));
    let o = fplint(
        &["check", "--format", "concise", "team-a/apps/web.yaml"],
        d.path(),
    );
    assert_eq!(
        codes(&o),
        ["team-a/apps/web.yaml:5 FP011"],
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("cluster `a`"));
}

/// Terraform context: the module folder that defines the cluster is read.
#[test]
fn a_named_manifest_reads_terraform_clusters() {
    let d = repo();
    write(
        d.path(),
        "terraform/eks.tf",
        r#"resource "aws_eks_cluster" "main" {
  name     = "shop"
  role_arn = "arn:aws:iam::111122223333:role/shop-cluster"
  vpc_config {
    subnet_ids = ["subnet-0a1b2c3d"]
  }
}
"#,
    );
    write(
        d.path(),
        "terraform/fargate.tf",
        r#"resource "aws_eks_fargate_profile" "apps" {
  cluster_name           = aws_eks_cluster.main.name
  fargate_profile_name   = "apps"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/shop-pods"
  subnet_ids             = ["subnet-0a1b2c3d"]
  selector {
    namespace = "kube-system"
  }
  selector {
    namespace = "orders"
  }
}
"#,
    );
    write(d.path(), "k8s/web.yaml", &deployment("web", "web"));
    let o = fplint(&["check", "--format", "concise", "k8s/web.yaml"], d.path());
    assert_eq!(codes(&o), ["k8s/web.yaml:5 FP011"], "{}", stdout(&o));
}

/// Without a config or a git root, the file's own folder is the project.
#[test]
fn without_a_root_the_files_folder_is_the_project() {
    let d = tmp();
    write(d.path(), "outer/cluster.yaml", &eksctl("outer", "orders"));
    write(
        d.path(),
        "outer/inner/cluster.yaml",
        &eksctl("inner", "web"),
    );
    write(
        d.path(),
        "outer/inner/web.yaml",
        &deployment("web", "orders"),
    );
    let o = fplint(
        &["check", "--format", "concise", "outer/inner/web.yaml"],
        d.path(),
    );
    // Only `inner` is context: it has no `orders` profile.
    assert!(stdout(&o).contains("cluster `inner`"), "{}", stdout(&o));
}

// ---------------------------------------------------------------- item 9

const BROKEN: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: [shop
";

/// FP000 is reported and exits 2 whatever selects, ignores or re-ranks.
#[test]
fn parse_errors_are_never_hidden() {
    let d = tmp();
    write(d.path(), "broken.yaml", BROKEN);
    for args in [
        &[
            "check",
            "--format",
            "concise",
            "--select",
            "FP001",
            "broken.yaml",
        ][..],
        &[
            "check",
            "--format",
            "concise",
            "--ignore",
            "FP0",
            "broken.yaml",
        ][..],
        &[
            "check",
            "--format",
            "concise",
            "--ignore",
            "FP000",
            "broken.yaml",
        ][..],
        &[
            "check",
            "--format",
            "concise",
            "--fail-on",
            "error",
            "broken.yaml",
        ][..],
    ] {
        let o = fplint(args, d.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stdout(&o).contains("FP000 [error]"),
            "{args:?}: {}",
            stdout(&o)
        );
    }
    write(
        d.path(),
        "fplint.toml",
        "select = [\"FP004\"]\nignore = [\"FP000\"]\nfail-on = \"error\"\n[severity]\nFP000 = \"info\"\n[[per-file-ignores]]\npath = \"*.yaml\"\nignore = [\"FP000\"]\n",
    );
    let o = fplint(&["check", "--format", "concise", "broken.yaml"], d.path());
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout(&o).contains("FP000 [error]"), "{}", stdout(&o));
    // Nor can a comment silence it.
    write(
        d.path(),
        "broken.yaml",
        &format!("# fplint: ignore-file[FP000]\n{BROKEN}"),
    );
    let o = fplint(
        &["check", "--format", "concise", "--no-config", "broken.yaml"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("FP000 [error]"), "{}", stdout(&o));
}

// --------------------------------------------------------------- item 10

/// A named near-miss is a warning with why and what to do, in every format.
#[test]
fn a_named_near_miss_is_a_warning() {
    let d = tmp();
    let cases = [
        (
            "kind.yaml",
            "apiVersion: eksctl.io/v1alpha5\nkind: Clusterconfig\nmetadata: {name: shop}\n",
            2,
            "`kind: Clusterconfig` is not `ClusterConfig`",
        ),
        (
            "stack.yaml",
            "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  - Type: AWS::EKS::Cluster\n",
            3,
            "`Resources` is a list, not a map of logical IDs",
        ),
        (
            "stack.json",
            "{\n  \"Resources\": [\n    {\"Type\": \"AWS::EKS::FargateProfile\"}\n  ]\n}\n",
            2,
            "`Resources` is a list, not a map of logical IDs",
        ),
    ];
    for (name, text, line, message) in cases {
        write(d.path(), name, text);
        let o = fplint(&["check", "--format", "concise", name], d.path());
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stdout(&o));
        assert_eq!(
            stdout(&o),
            format!(
                "{name}:{line}:1: not-linted [warning] {message}, so this {} was not linted\n",
                if name.starts_with("stack") {
                    "template"
                } else {
                    "file"
                }
            ),
        );
        let v = json(&fplint(&["check", "--format", "json", name], d.path()));
        assert_eq!(v["notices"][0]["kind"], "not-linted", "{v:#}");
        assert_eq!(v["notices"][0]["severity"], "warning");
        assert_eq!(v["notices"][0]["file"], name);
        assert_eq!(v["notices"][0]["line"], line);
        assert!(v["notices"][0]["help"].is_string());
        // --fail-on error: a warning no longer fails the run.
        let o = fplint(&["check", "--fail-on", "error", name], d.path());
        assert_eq!(o.status.code(), Some(0));
    }
    let o = fplint(&["check", "kind.yaml"], d.path());
    assert_eq!(
        stdout(&o).lines().take(2).collect::<Vec<_>>(),
        [
            "warning: kind.yaml:2: `kind: Clusterconfig` is not `ClusterConfig`, so this file was not linted",
            "  help: eksctl reads `kind: ClusterConfig` (the case matters)",
        ]
    );
    let g = stdout(&fplint(
        &["check", "--format", "github", "kind.yaml"],
        d.path(),
    ));
    assert!(
        g.starts_with("::warning file=kind.yaml,line=2,title=fplint not-linted::"),
        "{g}"
    );
    // An eksctl apiVersion eksctl does not know is FP020 (invalid-value),
    // named or walked: the file is meant for eksctl.
    write(
        d.path(),
        "v6/cluster.yaml",
        "apiVersion: eksctl.io/v1alpha6\nkind: ClusterConfig\nmetadata: {name: shop}\n",
    );
    let o = fplint(&["check", "--format", "concise", "v6"], d.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with("v6/cluster.yaml:1:13: FP020 [error]"),
        "{}",
        stdout(&o)
    );
    std::fs::remove_dir_all(d.path().join("v6")).unwrap();
    // Walked, the same files are told in one note that does not fail the
    // run (issue 26: a walk does not skip them silently either).
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let notices = json(&o)["notices"].clone();
    assert_eq!(notices.as_array().map(Vec::len), Some(1), "{notices:#}");
    assert_eq!(notices[0]["kind"], "near-misses", "{notices:#}");
    assert_eq!(notices[0]["severity"], "info", "{notices:#}");
}

/// Named files fplint cannot lint are listed as skipped, exit code unchanged.
#[test]
fn named_files_that_cannot_be_linted_are_skipped_with_the_reason() {
    let d = tmp();
    write(d.path(), "empty.yaml", "# nothing yet\n");
    write_bytes(
        d.path(),
        "logo.png.yaml",
        &[0x89, b'P', b'N', b'G', 0xff, 0xfe, 0, 1],
    );
    write(
        d.path(),
        "chart/templates/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"app.fullname\" . }}\n  labels:\n    {{- include \"app.labels\" . | nindent 4 }}\n",
    );
    write(
        d.path(),
        ".github/workflows/ci.yml",
        "name: ci\non: [push]\njobs: {}\n",
    );
    let files = [
        "empty.yaml",
        "logo.png.yaml",
        "chart/templates/deployment.yaml",
        ".github/workflows/ci.yml",
    ];
    let mut args = vec!["check"];
    args.extend(files);
    let o = fplint(&args, d.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "pre-commit over unrelated files stays green"
    );
    assert_eq!(
        stdout(&o),
        "skipped: .github/workflows/ci.yml: not an eksctl ClusterConfig, CloudFormation template or Kubernetes manifest
skipped: chart/templates/deployment.yaml: a template (Helm or Jinja), not valid YAML until rendered; lint the rendered output
skipped: empty.yaml: empty file
skipped: logo.png.yaml: binary, not text
"
        .to_string()
            + &stdout(&o)[stdout(&o).find("No problems").unwrap_or(0)..]
    );
    assert!(stdout(&o).contains("No problems found in 4 files"));

    let mut args = vec!["check", "--format", "json", "--fail-on", "info"];
    args.extend(files);
    let o = fplint(&args, d.path());
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["skipped"].as_array().map(Vec::len), Some(4), "{v:#}");
    assert_eq!(
        v["skipped"][2],
        serde_json::json!({"file": "empty.yaml", "reason": "empty file"})
    );

    let mut args = vec!["check", "--format", "sarif"];
    args.extend(files);
    let s = json(&fplint(&args, d.path()));
    let notes = &s["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes.as_array().map(Vec::len), Some(4), "{s:#}");
    assert_eq!(notes[2]["descriptor"]["id"], "skipped");
    assert_eq!(
        notes[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "empty.yaml"
    );
    assert_eq!(s["runs"][0]["invocations"][0]["executionSuccessful"], true);

    // Walking the folder: silent.
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert!(json(&o).get("skipped").is_none(), "{}", stdout(&o));
}

/// An empty folder, or one with nothing fplint reads, says so.
#[test]
fn a_path_with_nothing_to_lint_says_so() {
    let d = tmp();
    std::fs::create_dir_all(d.path().join("empty")).ok();
    write(d.path(), "docs/README.md", "# docs\n");
    let o = fplint(&["check", "empty", "docs"], d.path());
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.starts_with("note: docs: no YAML, JSON or Terraform file here to lint\nnote: empty: no YAML, JSON or Terraform file here to lint\nNo problems found in 0 files"), "{text}");
    let v = json(&fplint(&["check", "--format", "json", "empty"], d.path()));
    assert_eq!(v["notices"][0]["kind"], "nothing-to-lint");
}

// --------------------------------------------------------------- item 11

/// An unreadable path fails the run, and every format says so.
#[test]
fn an_unreadable_path_is_not_a_clean_run() {
    let d = tmp();
    write(d.path(), "cluster.yaml", &eksctl("shop", "orders"));
    let o = fplint(&["check", "cluster.yaml", "missing.yaml"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let text = stdout(&o);
    assert!(text.contains("error: missing.yaml: "), "{text}");
    assert!(text.contains("fplint could not read 1 path: the results are incomplete.\nNo problems found in 1 file"), "{text}");

    let o = fplint(
        &["check", "--format", "json", "cluster.yaml", "missing.yaml"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    let v = json(&o);
    assert!(
        v["errors"][0]
            .as_str()
            .is_some_and(|e| e.starts_with("missing.yaml: ")),
        "{v:#}"
    );

    let o = fplint(
        &["check", "--format", "sarif", "cluster.yaml", "missing.yaml"],
        d.path(),
    );
    let s = json(&o);
    let inv = &s["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false, "{s:#}");
    assert_eq!(inv["toolExecutionNotifications"][0]["level"], "error");
    assert_eq!(
        inv["toolExecutionNotifications"][0]["descriptor"]["id"],
        "unreadable-path"
    );

    let g = stdout(&fplint(
        &["check", "--format", "github", "missing.yaml"],
        d.path(),
    ));
    assert!(
        g.starts_with("::error title=fplint could not read a path::missing.yaml: "),
        "{g}"
    );
}

/// SARIF locations: relative paths stay relative references; absolute
/// ones are `file://` URIs; both percent-encoded.
#[test]
fn sarif_uris_are_uris() {
    let d = tmp();
    let labelled = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
        labels:
          k8s-app: kube-dns
iam:
  withOIDC: true
";
    write(d.path(), "my infra/cluster.yaml", labelled);
    let s = json(&fplint(
        &["check", "--format", "sarif", "my infra/cluster.yaml"],
        d.path(),
    ));
    let uri =
        &s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(uri, "my%20infra/cluster.yaml");
    let abs = d.path().join("my infra/cluster.yaml");
    let abs = abs.to_string_lossy();
    let s = json(&fplint(&["check", "--format", "sarif", &abs], d.path()));
    let uri = s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(uri.starts_with("file:///"), "{uri}");
    assert!(uri.ends_with("/my%20infra/cluster.yaml"), "{uri}");
}

// --------------------------------------------------------------- item 12

/// The FP001 labels finding spans `labels:` and its entries: a directive on
/// any of those lines, or on the line above, silences it.
#[test]
fn a_suppression_anywhere_on_the_finding_works() {
    let d = tmp();
    let base = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
        labels:
          k8s-app: kube-dns
iam:
  withOIDC: true
";
    for (from, to) in [
        (
            "        labels:\n",
            "        # fplint: ignore[FP001]\n        labels:\n",
        ),
        (
            "        labels:\n",
            "        labels: # fplint: ignore[FP001]\n",
        ),
        (
            "          k8s-app: kube-dns\n",
            "          # fplint: ignore[FP001]\n          k8s-app: kube-dns\n",
        ),
        (
            "          k8s-app: kube-dns\n",
            "          k8s-app: kube-dns # fplint: ignore[FP001]\n",
        ),
    ] {
        write(d.path(), "c.yaml", &base.replace(from, to));
        let o = fplint(
            &[
                "check",
                "--format",
                "concise",
                "--fail-on",
                "info",
                "c.yaml",
            ],
            d.path(),
        );
        assert_eq!(stdout(&o), "", "{to}");
        assert_eq!(o.status.code(), Some(0));
    }
    // Two lines above the finding is not on it.
    write(
        d.path(),
        "c.yaml",
        &base.replace(
            "      - namespace",
            "      # fplint: ignore[FP001]\n      - namespace",
        ),
    );
    let o = fplint(&["check", "--format", "concise", "c.yaml"], d.path());
    assert_eq!(
        codes(&o),
        ["c.yaml:8 FP100", "c.yaml:10 FP001"],
        "{}",
        stdout(&o)
    );
}

/// A malformed directive is a warning, and the finding stays.
#[test]
fn a_malformed_suppression_is_a_warning() {
    let d = tmp();
    write(
        d.path(),
        "c.yaml",
        "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
fargateProfiles:
  - name: fp-coredns
    selectors:
      - namespace: kube-system
        labels:
          # fplint: ignore FP001
          eks.amazonaws.com/component: coredns
iam:
  withOIDC: true
",
    );
    let o = fplint(&["check", "--format", "concise", "c.yaml"], d.path());
    assert_eq!(
        stdout(&o),
        "c.yaml:10:13: FP100 [warning] malformed suppression: the codes must be in brackets right after `ignore`; it silences nothing
c.yaml:11:11: FP001 [warning] CoreDNS moves to Fargate only with eksctl 0.208.0 or later: older eksctl ignores a labelled `kube-system` selector and leaves CoreDNS Pending
"
    );
    assert_eq!(o.status.code(), Some(1));
}

/// A cluster built by a module call belongs to the folder of the call: its
/// manifests are placed on it, by a walk and for a named file alike.
#[test]
fn the_folder_of_a_module_call_owns_its_manifests() {
    let d = repo();
    write(
        d.path(),
        "modules/eks/main.tf",
        r#"variable "name" {}
resource "aws_eks_cluster" "this" {
  name     = var.name
  role_arn = "arn:aws:iam::111122223333:role/cluster"
  vpc_config {
    subnet_ids = ["subnet-0a1b2c3d"]
  }
}
"#,
    );
    for env in ["prod", "staging"] {
        write(
            d.path(),
            &format!("envs/{env}/main.tf"),
            &format!(
                "module \"eks\" {{\n  source = \"../../modules/eks\"\n  name   = \"{env}\"\n}}\n"
            ),
        );
    }
    write(
        d.path(),
        "envs/prod/k8s/web.yaml",
        &deployment("web", "web"),
    );
    let placed = |args: &[&str]| -> Vec<String> {
        let v = json(&fplint(args, d.path()));
        v.as_array()
            .into_iter()
            .flatten()
            .flat_map(|t| {
                let c = t["cluster"].as_str().unwrap_or("").to_string();
                t["rows"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(move |r| format!("{c}: {}", r["workload"].as_str().unwrap_or("")))
            })
            .collect()
    };
    assert_eq!(
        placed(&["placement", "--format", "json", "."]),
        ["prod: Deployment/web"]
    );
    assert_eq!(
        placed(&["placement", "--format", "json", "envs/prod/k8s/web.yaml"]),
        ["prod: Deployment/web"]
    );
}
