//! One cluster across Terraform roots: a root that names a cluster another
//! root of the run defines joins it (by name, a data source, a provider's
//! host, or the other root's outputs read from its code through a local
//! `terraform_remote_state`); what cannot be told stays unknown and quiet.

mod common;

use common::{concise, lint, tmp, write};
use std::path::{Path, PathBuf};

/// The root that names the cluster: `local.name` from the `init` root.
const INIT: &str = r#"variable "prefix" {
  default = "shop"
}

output "name" {
  value = "${var.prefix}-prod"
}
"#;

/// A Fargate-only cluster whose only profile selects `karpenter`.
const EKS: &str = r#"provider "aws" {
  region = "eu-west-1"
}

data "terraform_remote_state" "init" {
  backend = "local"
  config = {
    path = "../init/terraform.tfstate"
  }
}

resource "aws_eks_cluster" "main" {
  name     = data.terraform_remote_state.init.outputs.name
  role_arn = "arn:aws:iam::111122223333:role/eks-cluster"
  vpc_config {
    subnet_ids = ["subnet-0a1", "subnet-0b2"]
  }
}

resource "aws_eks_fargate_profile" "karpenter" {
  cluster_name           = aws_eks_cluster.main.name
  fargate_profile_name   = "karpenter"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/fargate-pods"
  subnet_ids             = ["subnet-0a1", "subnet-0b2"]
  selector {
    namespace = "karpenter"
  }
}

output "eks" {
  value = {
    endpoint = aws_eks_cluster.main.endpoint
    ca       = aws_eks_cluster.main.certificate_authority[0].data
  }
}
"#;

/// Karpenter and a NodePool, through providers configured from the `eks`
/// root's outputs.
const K8S: &str = r#"data "terraform_remote_state" "eks" {
  backend = "local"
  config = {
    path = "../eks/terraform.tfstate"
  }
}

provider "helm" {
  kubernetes {
    host                   = data.terraform_remote_state.eks.outputs.eks.endpoint
    cluster_ca_certificate = base64decode(data.terraform_remote_state.eks.outputs.eks.ca)
  }
}

resource "helm_release" "karpenter" {
  name       = "karpenter"
  namespace  = "karpenter"
  repository = "oci://public.ecr.aws/karpenter"
  chart      = "karpenter"
  version    = "1.1.0"
}
"#;

const NO_COREDNS: &str = "FP005 [error] no Fargate selector of cluster `shop-prod` matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up";

fn project() -> tempfile::TempDir {
    let d = tmp();
    write(d.path(), "init/main.tf", INIT);
    write(d.path(), "eks/main.tf", EKS);
    write(d.path(), "k8s/main.tf", K8S);
    d
}

/// `file:line: CODE [severity] message` per finding, paths relative to `dir`.
fn found(dir: &Path, paths: &[PathBuf]) -> Vec<String> {
    let report = lint(paths);
    let prefix = format!("{}/", dir.display());
    concise(&report)
        .lines()
        .filter(|l| l.contains(": FP"))
        .map(|l| {
            let l = l.strip_prefix(&prefix).unwrap_or(l);
            // `file:line:col: ...` without the column.
            let mut parts = l.splitn(4, ':');
            let (f, line, _, rest) = (
                parts.next().unwrap_or(""),
                parts.next().unwrap_or(""),
                parts.next().unwrap_or(""),
                parts.next().unwrap_or(""),
            );
            format!("{f}:{line}:{rest}")
        })
        .collect()
}

#[test]
fn karpenter_in_a_second_root_is_the_clusters_capacity() {
    let d = project();
    assert_eq!(
        found(d.path(), &[d.path().to_path_buf()]),
        Vec::<String>::new()
    );
}

#[test]
fn without_the_second_root_the_cluster_has_no_capacity() {
    let d = project();
    // The `eks` root alone: its name still comes from `init`'s code.
    let got = found(d.path(), &[d.path().join("eks"), d.path().join("init")]);
    assert_eq!(got, [format!("eks/main.tf:12: {NO_COREDNS}")]);
}

#[test]
fn karpenter_for_a_cluster_outside_the_run_is_not_this_clusters() {
    let d = project();
    // The provider names a cluster by its name, and no root of the run has it.
    let text = K8S
        .replace(
            "data.terraform_remote_state.eks.outputs.eks.endpoint",
            "data.aws_eks_cluster.tools.endpoint",
        )
        .replace(
            "data.terraform_remote_state.eks.outputs.eks.ca",
            "data.aws_eks_cluster.tools.certificate_authority[0].data",
        );
    let text = text + "\ndata \"aws_eks_cluster\" \"tools\" {\n  name = \"tools\"\n}\n";
    write(d.path(), "k8s/main.tf", &text);
    let got = found(d.path(), &[d.path().to_path_buf()]);
    assert_eq!(got, [format!("eks/main.tf:12: {NO_COREDNS}")]);
}

#[test]
fn a_state_in_s3_is_not_read() {
    let d = project();
    write(
        d.path(),
        "k8s/main.tf",
        &K8S.replace(
            "backend = \"local\"\n  config = {\n    path = \"../eks/terraform.tfstate\"\n  }",
            "backend = \"s3\"\n  config = {\n    bucket = \"shop-state\"\n    key    = \"eks/terraform.tfstate\"\n  }",
        ),
    );
    let got = found(d.path(), &[d.path().to_path_buf()]);
    // Which cluster Karpenter serves is unknown: it may be this one's.
    assert_eq!(got, Vec::<String>::new());
}

/// `k8s` with its provider configured from a state fplint does not read,
/// and Karpenter's values as given.
fn karpenter_from_s3(values: &str) -> String {
    K8S.replace(
        "backend = \"local\"\n  config = {\n    path = \"../eks/terraform.tfstate\"\n  }",
        "backend = \"s3\"\n  config = {\n    bucket = \"shop-state\"\n    key    = \"eks/terraform.tfstate\"\n  }",
    )
    .replace(
        "  version    = \"1.1.0\"\n",
        &format!("  version    = \"1.1.0\"\n{values}"),
    )
}

#[test]
fn karpenter_named_for_another_cluster_leaves_this_one_without_nodes() {
    let d = project();
    let values = "  values     = [yamlencode({ settings = { clusterName = \"tools\" } })]\n";
    write(d.path(), "k8s/main.tf", &karpenter_from_s3(values));
    let got = found(d.path(), &[d.path().to_path_buf()]);
    assert_eq!(got, [format!("eks/main.tf:12: {NO_COREDNS}")]);
}

#[test]
fn karpenter_named_for_this_cluster_is_its_capacity() {
    let d = project();
    let values = "  set {\n    name  = \"settings.clusterName\"\n    value = \"shop-prod\"\n  }\n";
    write(d.path(), "k8s/main.tf", &karpenter_from_s3(values));
    let got = found(d.path(), &[d.path().to_path_buf()]);
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn a_node_group_for_a_cluster_not_told_may_serve_any() {
    let d = project();
    let group = |name: &str| {
        format!(
            "variable \"cluster\" {{\n  type = string\n}}\n\nresource \"aws_eks_node_group\" \"workers\" {{\n  cluster_name    = {name}\n  node_group_name = \"workers\"\n  node_role_arn   = \"arn:aws:iam::111122223333:role/nodes\"\n  subnet_ids      = [\"subnet-0a1\"]\n  scaling_config {{\n    desired_size = 1\n    max_size     = 1\n    min_size     = 1\n  }}\n}}\n"
        )
    };
    std::fs::remove_file(d.path().join("k8s/main.tf")).ok();
    write(d.path(), "nodes/main.tf", &group("var.cluster"));
    assert_eq!(
        found(d.path(), &[d.path().to_path_buf()]),
        Vec::<String>::new()
    );
    // Named for a cluster the run does not define: not this one's.
    write(d.path(), "nodes/main.tf", &group("\"tools\""));
    assert_eq!(
        found(d.path(), &[d.path().to_path_buf()]),
        [format!("eks/main.tf:12: {NO_COREDNS}")]
    );
}

#[test]
fn roots_that_read_each_others_state_read_nothing_more() {
    let d = tmp();
    let reads = |other: &str| {
        format!(
            "data \"terraform_remote_state\" \"other\" {{\n  backend = \"local\"\n  config = {{\n    path = \"../{other}/terraform.tfstate\"\n  }}\n}}\n\noutput \"name\" {{\n  value = data.terraform_remote_state.other.outputs.name\n}}\n"
        )
    };
    write(d.path(), "a/main.tf", &reads("b"));
    write(d.path(), "b/main.tf", &reads("a"));
    write(
        d.path(),
        "a/addon.tf",
        "resource \"aws_eks_addon\" \"coredns\" {\n  cluster_name = data.terraform_remote_state.other.outputs.name\n  addon_name   = \"coredns\"\n}\n",
    );
    assert_eq!(
        found(d.path(), &[d.path().to_path_buf()]),
        Vec::<String>::new()
    );
}

/// A Fargate-only cluster `shop` selecting `kube-system` and `apps`, with
/// its CoreDNS add-on on Fargate.
const SHOP: &str = r#"resource "aws_eks_cluster" "this" {
  name     = "shop"
  role_arn = "arn:aws:iam::111122223333:role/eks-cluster"
  vpc_config {
    subnet_ids = ["subnet-0a1", "subnet-0b2"]
  }
}

resource "aws_eks_fargate_profile" "system" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "system"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/fargate-pods"
  subnet_ids             = ["subnet-0a1", "subnet-0b2"]
  selector {
    namespace = "kube-system"
  }
  selector {
    namespace = "apps"
  }
}

resource "aws_eks_addon" "coredns" {
  cluster_name         = aws_eks_cluster.this.name
  addon_name           = "coredns"
  configuration_values = jsonencode({ computeType = "Fargate" })
  depends_on           = [aws_eks_fargate_profile.system]
}
"#;

const KEDA: &str = r#"data "aws_eks_cluster" "shop" {
  name = "shop"
}

provider "helm" {
  kubernetes {
    host = data.aws_eks_cluster.shop.endpoint
  }
}

resource "helm_release" "keda" {
  name       = "keda"
  namespace  = "keda"
  repository = "https://kedacore.github.io/charts"
  chart      = "keda"
  version    = "2.16.0"
}
"#;

#[test]
fn a_release_named_into_one_cluster_of_its_name_is_judged_there() {
    let d = tmp();
    write(d.path(), "cluster/main.tf", SHOP);
    write(d.path(), "apps/main.tf", KEDA);
    let got = found(d.path(), &[d.path().to_path_buf()]);
    assert_eq!(
        got,
        [format!(
            "apps/main.tf:13: FP011 [error] Helm release `keda` installs into namespace `keda`, which no Fargate profile of cluster `shop` ({}/cluster/main.tf) selects, and the cluster has no nodes: its pods stay Pending",
            d.path().display()
        )]
    );
}

#[test]
fn a_release_named_into_two_clusters_of_its_name_stays_unknown() {
    let d = tmp();
    write(d.path(), "prod/main.tf", SHOP);
    write(d.path(), "staging/main.tf", SHOP);
    write(d.path(), "apps/main.tf", KEDA);
    assert_eq!(
        found(d.path(), &[d.path().to_path_buf()]),
        Vec::<String>::new()
    );
}

#[test]
fn an_editor_sees_the_second_root_change() {
    let d = project();
    let linter = match fplint::Linter::with_choice(
        &[d.path().to_path_buf()],
        &fplint::lint::ConfigChoice::Disabled,
    ) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    let mut ws = linter.open(&[d.path()]);
    let codes = |ws: &mut fplint::Workspace| -> Vec<&'static str> {
        ws.check().diagnostics().iter().map(|x| x.code).collect()
    };
    assert_eq!(codes(&mut ws), Vec::<&str>::new());
    // Karpenter goes: the cluster has no capacity.
    let k8s = d.path().join("k8s/main.tf");
    ws.set_overlay(
        &k8s,
        K8S.replace("chart      = \"karpenter\"", "chart      = \"keda\""),
    );
    assert_eq!(codes(&mut ws), ["FP005"]);
    ws.remove_overlay(&k8s);
    assert_eq!(codes(&mut ws), Vec::<&str>::new());
    // The `eks` root's output no longer names the cluster: the provider
    // names none, and Karpenter may serve any cluster.
    let eks = d.path().join("eks/main.tf");
    ws.set_overlay(
        &eks,
        EKS.replace("aws_eks_cluster.main.endpoint", "\"https://example.com\""),
    );
    assert_eq!(codes(&mut ws), Vec::<&str>::new());
    // Karpenter goes there too: the cluster has no capacity.
    ws.set_overlay(
        &k8s,
        K8S.replace("chart      = \"karpenter\"", "chart      = \"keda\""),
    );
    assert_eq!(codes(&mut ws), ["FP005"]);
}

#[test]
fn clusters_of_one_name_are_told_apart_by_region() {
    let d = tmp();
    let provider = |region: &str| format!("provider \"aws\" {{\n  region = \"{region}\"\n}}\n\n");
    // `shop` in eu-west-1 leaves its CoreDNS add-on to the `addons` root.
    let eu = SHOP
        .split("resource \"aws_eks_addon\"")
        .next()
        .unwrap_or_default();
    write(d.path(), "eu/main.tf", &(provider("eu-west-1") + eu));
    write(d.path(), "us/main.tf", &(provider("us-east-1") + SHOP));
    write(
        d.path(),
        "addons/main.tf",
        &(provider("eu-west-1")
            + "resource \"aws_eks_addon\" \"coredns\" {\n  cluster_name = \"shop\"\n  addon_name   = \"coredns\"\n}\n"),
    );
    let got = found(d.path(), &[d.path().to_path_buf()]);
    assert_eq!(
        got,
        [format!(
            "addons/main.tf:7: FP006 [warning] the CoreDNS add-on of cluster `shop` ({}/eu/main.tf) does not set `computeType` to `Fargate`: the add-on schedules CoreDNS for EC2 nodes (annotation `eks.amazonaws.com/compute-type: ec2`), and the cluster has none",
            d.path().display()
        )]
    );
}

#[test]
fn roots_that_all_read_each_other_are_read_a_bounded_number_of_times() {
    let d = tmp();
    let n = 8;
    for i in 0..n {
        let mut text = String::new();
        for j in (0..n).filter(|j| *j != i) {
            text.push_str(&format!(
                "data \"terraform_remote_state\" \"r{j}\" {{\n  backend = \"local\"\n  config = {{\n    path = \"../r{j}/terraform.tfstate\"\n  }}\n}}\n\n"
            ));
        }
        text.push_str(&format!(
            "output \"name\" {{\n  value = data.terraform_remote_state.r{}.outputs.name\n}}\n",
            (i + 1) % n
        ));
        write(d.path(), &format!("r{i}/main.tf"), &text);
    }
    assert_eq!(
        found(d.path(), &[d.path().to_path_buf()]),
        Vec::<String>::new()
    );
}

#[test]
fn a_terraform_cluster_is_named_with_its_region_in_the_configuration() {
    let d = tmp();
    let provider = |region: &str| format!("provider \"aws\" {{\n  region = \"{region}\"\n}}\n\n");
    // Two clusters `shop` without an add-on, so both are FP006's; the
    // configuration gives the one in us-east-1 nodes fplint cannot see.
    let bare = SHOP
        .split("resource \"aws_eks_addon\"")
        .next()
        .unwrap_or_default();
    write(d.path(), "eu/main.tf", &(provider("eu-west-1") + bare));
    write(d.path(), "us/main.tf", &(provider("us-east-1") + bare));
    write(
        d.path(),
        "fplint.toml",
        "[clusters.\"shop@us-east-1\"]\nec2-capacity = true\n",
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "--format", "concise", "."])
        .current_dir(d.path())
        .env("NO_COLOR", "1")
        .output();
    let out = match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    let codes: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(": FP"))
        .map(|l| l.split(": FP").next().unwrap_or(""))
        .collect();
    assert_eq!(codes, ["eu/main.tf:5:1"], "{out}");
}

#[test]
fn a_provider_configured_from_a_kubeconfig_may_deploy_anywhere() {
    let d = project();
    let text =
        K8S.to_string() + "\nprovider \"kubernetes\" {\n  config_path = \"~/.kube/config\"\n}\n";
    write(d.path(), "k8s/main.tf", &text);
    let got = found(d.path(), &[d.path().to_path_buf()]);
    // Karpenter may serve any cluster: this one's capacity is unknown.
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn a_root_linted_alone_finds_the_root_writing_its_s3_state_in_its_project() {
    let d = project();
    write(d.path(), "fplint.toml", "");
    let backend = "terraform {\n  backend \"s3\" {\n    bucket = \"shop-state\"\n    key    = \"eks/terraform.tfstate\"\n  }\n}\n\n";
    write(d.path(), "eks/main.tf", &format!("{backend}{EKS}"));
    write(d.path(), "k8s/main.tf", &karpenter_from_s3(""));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["placement", "k8s"])
        .current_dir(d.path())
        .output()
        .unwrap();
    let text = common::stdout(&out);
    assert_eq!(
        text.lines().next(),
        Some("cluster shop-prod (Fargate and Karpenter nodes), k8s/main.tf:9"),
        "{text}"
    );
}
