//! Module sources and Terragrunt includes outside the folder linted, in a
//! tree that no `.git` or `fplint.toml` marks as a project (a tarball, a CI
//! workspace without history): they are followed wherever they point, as
//! `terraform init` and `terragrunt` do, and a module that calls itself
//! through a parent ends the following.

use std::path::Path;
use std::process::Command;

fn tmp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    if let Some(d) = p.parent() {
        if let Err(e) = std::fs::create_dir_all(d) {
            panic!("mkdir {}: {e}", d.display());
        }
    }
    if let Err(e) = std::fs::write(&p, text) {
        panic!("write {}: {e}", p.display());
    }
}

/// Each finding as `file:line CODE message`, run from `dir`.
fn findings(dir: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "--format", "json"])
        .args(args)
        .current_dir(dir)
        .env_remove("RAYON_NUM_THREADS")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    let v: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)),
    };
    let empty = Vec::new();
    v["diagnostics"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(|d| {
            format!(
                "{}:{} {} {}",
                d["file"].as_str().unwrap_or(""),
                d["line"],
                d["code"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// A cluster whose only Fargate profile uses a public subnet.
const MODULE: &str = r#"variable "name" {
  type = string
}

resource "aws_subnet" "public" {
  vpc_id                  = "vpc-0123"
  cidr_block              = "10.0.0.0/24"
  map_public_ip_on_launch = true
}

resource "aws_eks_cluster" "this" {
  name     = var.name
  role_arn = "arn:aws:iam::111122223333:role/eks-cluster"

  vpc_config {
    subnet_ids = [aws_subnet.public.id]
  }
}

resource "aws_eks_addon" "coredns" {
  cluster_name         = aws_eks_cluster.this.name
  addon_name           = "coredns"
  configuration_values = jsonencode({ computeType = "Fargate" })
  depends_on           = [aws_eks_fargate_profile.system]
}

resource "aws_eks_fargate_profile" "system" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "system"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/fargate"
  subnet_ids             = [aws_subnet.public.id]

  selector {
    namespace = "kube-system"
  }
}
"#;

const CALL: &str = "module \"cluster\" {\n  source = \"../../modules/x\"\n  name   = \"shop\"\n}\n";

const PUBLIC: &str = "FP007 Fargate profile `system` of cluster `shop` uses a public subnet: Fargate accepts only private subnets";

#[test]
fn a_module_source_above_the_folder_is_read_without_a_project_marker() {
    let t = tmp();
    let root = t.path();
    assert!(!root.ancestors().any(|d| d.join(".git").exists()));
    write(root, "live/prod/main.tf", CALL);
    write(root, "modules/x/main.tf", MODULE);
    assert_eq!(
        findings(root, &["live/prod"]),
        [format!("live/prod/main.tf:1 {PUBLIC}")]
    );
    assert_eq!(
        findings(&root.join("live/prod"), &["."]),
        [format!("main.tf:1 {PUBLIC}")]
    );
    assert_eq!(
        findings(&root.join("live/prod"), &["main.tf"]),
        [format!("main.tf:1 {PUBLIC}")]
    );
}

#[test]
fn a_module_that_sources_itself_through_a_parent_stays_bounded() {
    let t = tmp();
    let root = t.path();
    write(root, "live/prod/main.tf", CALL);
    // `x` calls itself through its parent, and `a` and `b` call each other.
    let module = format!(
        "{MODULE}\nmodule \"again\" {{\n  source = \"../x\"\n  name   = \"shop-again\"\n}}\n\nmodule \"other\" {{\n  source = \"../../modules/a\"\n}}\n"
    );
    write(root, "modules/x/main.tf", &module);
    write(
        root,
        "modules/a/main.tf",
        "module \"b\" {\n  source = \"../b\"\n}\n",
    );
    write(
        root,
        "modules/b/main.tf",
        "module \"a\" {\n  source = \"../a\"\n}\n",
    );
    let got = findings(root, &["live/prod"]);
    let deeper = "FP000 in module `cluster`: local modules nest deeper than 4 levels (limits.terraform-module-depth; a module that calls itself?); this one is not read";
    assert_eq!(got.len(), 8, "{got:#?}");
    for want in [PUBLIC, deeper] {
        assert!(
            got.contains(&format!("live/prod/main.tf:1 {want}")),
            "{got:#?}"
        );
    }
    // What a marked project gives.
    write(root, ".git/HEAD", "ref: refs/heads/main\n");
    assert_eq!(findings(root, &["live/prod"]), got);
}

const TG_MODULE: &str = r#"variable "name" {
  type = string
}

variable "namespaces" {
  type = list(string)
}

resource "aws_eks_cluster" "this" {
  name     = var.name
  role_arn = "arn:aws:iam::111122223333:role/eks"

  vpc_config {
    subnet_ids = ["subnet-0a1", "subnet-0b2"]
  }
}

resource "aws_eks_fargate_profile" "this" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "default"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/fargate"
  subnet_ids             = ["subnet-0a1", "subnet-0b2"]

  dynamic "selector" {
    for_each = var.namespaces
    content {
      namespace = selector.value
    }
  }
}
"#;

const UNIT: &str = r#"include "root" {
  path = find_in_parent_folders("root.hcl")
}

locals {
  env = read_terragrunt_config(find_in_parent_folders("env.hcl"))
}

terraform {
  source = "../../../modules//eks"
}

inputs = {
  name = local.env.locals.name
}
"#;

const NO_DNS: &str = "FP005 no Fargate selector of cluster `shop` matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up";

/// The unit's cluster name comes from `env.hcl` and its namespaces from
/// `root.hcl`, both above it: the finding needs both read.
#[test]
fn a_terragrunt_unit_reads_its_includes_from_parent_folders_without_a_project_marker() {
    let t = tmp();
    let root = t.path();
    write(
        root,
        "root.hcl",
        "inputs = {\n  namespaces = [\"shop\", \"default\"]\n}\n",
    );
    write(root, "live/env.hcl", "locals {\n  name = \"shop\"\n}\n");
    write(root, "live/prod/eks/terragrunt.hcl", UNIT);
    write(root, "modules/eks/main.tf", TG_MODULE);
    // The unit's module code is the unit's own: the finding is in it,
    // however the unit is named.
    assert_eq!(
        findings(root, &["live/prod/eks"]),
        [format!("modules/eks/main.tf:9 {NO_DNS}")]
    );
    let unit = root.join("live/prod/eks");
    assert_eq!(
        findings(&unit, &["."]),
        [format!("../../../modules/eks/main.tf:9 {NO_DNS}")]
    );
    assert_eq!(
        findings(&unit, &["terragrunt.hcl"]),
        [format!("../../../modules/eks/main.tf:9 {NO_DNS}")]
    );
    // With `kube-system` selected in the included file, nothing.
    write(
        root,
        "root.hcl",
        "inputs = {\n  namespaces = [\"shop\", \"kube-system\"]\n}\n",
    );
    assert_eq!(findings(root, &["live/prod/eks"]), Vec::<String>::new());
}
