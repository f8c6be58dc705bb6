//! A synthetic Terragrunt repository for benchmarks: a live tree of units
//! over shared local modules, the layout of a team with many accounts,
//! regions and environments.

use crate::{write, Stats};
use std::path::Path;

/// Units per environment: a VPC, the cluster, its IAM roles and DNS.
const UNITS: [&str; 4] = ["vpc", "eks", "iam", "dns"];

/// Write `units` Terragrunt units (rounded up to whole environments) under
/// `root/live`, with their modules under `root/modules`. Every tenth
/// cluster unit leaves CoreDNS's compute type at EC2 on a Fargate-only
/// cluster: one FP006 each.
pub fn generate_terragrunt(root: &Path, units: u64) -> std::io::Result<Stats> {
    let mut stats = Stats::default();
    modules(&mut stats, root)?;
    write(&mut stats, &root.join("live/root.hcl"), ROOT_HCL)?;
    let envs = units.div_ceil(UNITS.len() as u64);
    for e in 0..envs {
        let account = format!("account-{}", e / 10);
        let region = ["eu-west-1", "us-east-1", "ap-southeast-2"][(e % 3) as usize];
        let env = format!("env-{e:03}");
        let dir = root.join("live").join(&account).join(region);
        let region_hcl = dir.join("region.hcl");
        if !region_hcl.exists() {
            write(
                &mut stats,
                &region_hcl,
                &format!("locals {{\n  region = \"{region}\"\n}}\n"),
            )?;
        }
        let dir = dir.join(&env);
        write(
            &mut stats,
            &dir.join("env.hcl"),
            &format!(
                "locals {{\n  env        = \"{env}\"\n  cidr_block = \"10.{}.0.0/16\"\n}}\n",
                e % 250
            ),
        )?;
        let broken = e % 10 == 0;
        for unit in UNITS {
            write(
                &mut stats,
                &dir.join(unit).join("terragrunt.hcl"),
                &unit_hcl(unit, broken),
            )?;
        }
        if broken {
            stats.findings += 1;
        }
    }
    Ok(stats)
}

const ROOT_HCL: &str = r#"locals {
  region_vars = read_terragrunt_config(find_in_parent_folders("region.hcl"))
  env_vars    = read_terragrunt_config(find_in_parent_folders("env.hcl"))
  region      = local.region_vars.locals.region
  env         = local.env_vars.locals.env
}

generate "provider" {
  path      = "provider.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
provider "aws" {
  region = "eu-west-1"
}
EOF
}

inputs = {
  region = local.region
  tags = {
    environment = local.env
    managed-by  = "terragrunt"
  }
}
"#;

fn unit_hcl(unit: &str, broken: bool) -> String {
    let include = "include \"root\" {\n  path   = find_in_parent_folders(\"root.hcl\")\n  expose = true\n}\n\nlocals {\n  env_vars = read_terragrunt_config(find_in_parent_folders(\"env.hcl\"))\n}\n\n";
    let source =
        format!("terraform {{\n  source = \"${{get_repo_root()}}/modules//{unit}\"\n}}\n\n");
    let body = match unit {
        "vpc" => "inputs = {\n  name       = \"${include.root.locals.env}-vpc\"\n  cidr_block = local.env_vars.locals.cidr_block\n}\n".to_string(),
        "eks" => {
            let compute = if broken { "EC2" } else { "Fargate" };
            format!("dependency \"vpc\" {{\n  config_path = \"../vpc\"\n\n  mock_outputs = {{\n    private_subnets = [\"subnet-mock-a\", \"subnet-mock-b\"]\n  }}\n}}\n\ndependency \"iam\" {{\n  config_path = \"../iam\"\n}}\n\ninputs = {{\n  name                 = \"${{include.root.locals.env}}-cluster\"\n  subnet_ids           = dependency.vpc.outputs.private_subnets\n  cluster_role_arn     = dependency.iam.outputs.cluster_role_arn\n  pod_role_arn         = dependency.iam.outputs.pod_role_arn\n  coredns_compute_type = \"{compute}\"\n}}\n")
        }
        "iam" => "inputs = {\n  prefix = include.root.locals.env\n}\n".to_string(),
        _ => "dependency \"eks\" {\n  config_path = \"../eks\"\n}\n\ninputs = {\n  zone_name    = \"${include.root.locals.env}.example.internal\"\n  cluster_name = dependency.eks.outputs.cluster_name\n}\n".to_string(),
    };
    format!("{include}{source}{body}")
}

fn modules(stats: &mut Stats, root: &Path) -> std::io::Result<()> {
    let m = root.join("modules");
    write(
        stats,
        &m.join("vpc/main.tf"),
        r#"variable "name" {
  type = string
}

variable "cidr_block" {
  type = string
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "aws_vpc" "this" {
  cidr_block = var.cidr_block
  tags       = merge(var.tags, { Name = var.name })
}

resource "aws_subnet" "private" {
  count             = 2
  vpc_id            = aws_vpc.this.id
  cidr_block        = cidrsubnet(var.cidr_block, 4, count.index)
  availability_zone = count.index == 0 ? "eu-west-1a" : "eu-west-1b"
}

output "private_subnets" {
  value = aws_subnet.private[*].id
}
"#,
    )?;
    write(
        stats,
        &m.join("eks/main.tf"),
        r#"variable "name" {
  type = string
}

variable "subnet_ids" {
  type = list(string)
}

variable "cluster_role_arn" {
  type = string
}

variable "pod_role_arn" {
  type = string
}

variable "coredns_compute_type" {
  type    = string
  default = "Fargate"
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "aws_eks_cluster" "this" {
  name     = var.name
  role_arn = var.cluster_role_arn
  version  = "1.31"

  vpc_config {
    subnet_ids = var.subnet_ids
  }

  tags = var.tags
}

resource "aws_eks_fargate_profile" "system" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "kube-system"
  pod_execution_role_arn = var.pod_role_arn
  subnet_ids             = var.subnet_ids

  selector {
    namespace = "kube-system"
  }
}

resource "aws_eks_fargate_profile" "apps" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "apps"
  pod_execution_role_arn = var.pod_role_arn
  subnet_ids             = var.subnet_ids

  selector {
    namespace = "apps"
  }
}

resource "aws_eks_addon" "coredns" {
  cluster_name = aws_eks_cluster.this.name
  addon_name   = "coredns"

  configuration_values = jsonencode({
    computeType = var.coredns_compute_type
  })

  depends_on = [aws_eks_fargate_profile.system]
}

output "cluster_name" {
  value = aws_eks_cluster.this.name
}
"#,
    )?;
    write(
        stats,
        &m.join("iam/main.tf"),
        r#"variable "prefix" {
  type = string
}

resource "aws_iam_role" "cluster" {
  name = "${var.prefix}-cluster"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Action    = "sts:AssumeRole"
      Principal = { Service = "eks.amazonaws.com" }
    }]
  })
}

resource "aws_iam_role" "pods" {
  name = "${var.prefix}-fargate-pods"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Action    = "sts:AssumeRole"
      Principal = { Service = "eks-fargate-pods.amazonaws.com" }
    }]
  })
}

resource "aws_iam_role_policy_attachment" "pods" {
  role       = aws_iam_role.pods.name
  policy_arn = "arn:aws:iam::aws:policy/AmazonEKSFargatePodExecutionRolePolicy"
}

output "cluster_role_arn" {
  value = aws_iam_role.cluster.arn
}

output "pod_role_arn" {
  value = aws_iam_role.pods.arn
}
"#,
    )?;
    write(
        stats,
        &m.join("dns/main.tf"),
        r#"variable "zone_name" {
  type = string
}

variable "cluster_name" {
  type = string
}

resource "aws_route53_zone" "this" {
  name = var.zone_name
  tags = { cluster = var.cluster_name }
}
"#,
    )?;
    Ok(())
}
