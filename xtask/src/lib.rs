//! A synthetic monorepo for benchmarks: every format fplint reads, with
//! realistic content and a known number of findings.

pub mod cdk;
pub mod charts;
pub mod gitops;
pub mod parse;
pub mod readme;
pub mod schema;
pub mod terragrunt;

pub use cdk::generate_cdk_app;
pub use gitops::generate_gitops;
pub use terragrunt::generate_terragrunt;

use std::fmt::Write as _;
use std::path::Path;

/// What [`generate`] wrote.
#[derive(Default, Debug)]
pub struct Stats {
    pub files: u64,
    pub bytes: u64,
    /// Findings fplint must report: FP001, FP003 and FP002 once per tenth project.
    pub findings: u64,
}

fn write(stats: &mut Stats, path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p)?;
    }
    std::fs::write(path, text)?;
    stats.files += 1;
    stats.bytes += text.len() as u64;
    Ok(())
}

/// One team's project: an eksctl cluster, a CloudFormation stack, a
/// Terraform module and manifests. Every tenth project carries one known
/// mistake per format.
pub fn generate(root: &Path, target: u64) -> std::io::Result<Stats> {
    let mut stats = Stats::default();
    let mut i = 0u64;
    while stats.bytes < target {
        let dir = root.join(format!("team-{:05}", i));
        let broken = i.is_multiple_of(10);
        write(&mut stats, &dir.join("cluster.yaml"), &eksctl(i, broken))?;
        write(
            &mut stats,
            &dir.join("stack.yaml"),
            &cloudformation(i, broken),
        )?;
        write(
            &mut stats,
            &dir.join("infra/main.tf"),
            &terraform(i, broken),
        )?;
        write(&mut stats, &dir.join("infra/variables.tf"), &variables(i))?;
        write(&mut stats, &dir.join("k8s/apps.yaml"), &manifests(i))?;
        if broken {
            // FP001 (eksctl), FP003 (CloudFormation), FP002 (Terraform).
            stats.findings += 3;
        }
        i += 1;
    }
    Ok(stats)
}

fn eksctl(i: u64, broken: bool) -> String {
    let labels = if broken {
        "\n        labels:\n          k8s-app: kube-dns"
    } else {
        ""
    };
    let mut s = format!(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: team-{i}\n  region: eu-west-1\n  version: \"1.31\"\n  tags:\n    team: team-{i}\n    cost-center: \"{}\"\nvpc:\n  subnets:\n    private:\n      eu-west-1a: {{ id: subnet-{i:08x}a }}\n      eu-west-1b: {{ id: subnet-{i:08x}b }}\naddons:\n  - name: vpc-cni\n  - name: kube-proxy\n  - name: coredns\nfargateProfiles:\n  - name: fp-system\n    selectors:\n      - namespace: kube-system{labels}\n    subnets: [subnet-{i:08x}a, subnet-{i:08x}b]\n",
        1000 + i % 97
    );
    for p in 0..4 {
        let _ = write!(
            s,
            "  - name: fp-app-{p}\n    selectors:\n      - namespace: app-{p}\n        labels:\n          compute: fargate\n    subnets: [subnet-{i:08x}a, subnet-{i:08x}b]\n"
        );
    }
    s
}

fn cloudformation(i: u64, broken: bool) -> String {
    let depends = if broken {
        ""
    } else {
        "\n    DependsOn: ProfileSystem"
    };
    format!(
        "AWSTemplateFormatVersion: \"2010-09-09\"\nDescription: Fargate profiles of team {i}\nParameters:\n  ClusterName:\n    Type: String\n    Default: team-{i}-cfn\n  PodRole:\n    Type: String\nResources:\n  ProfileSystem:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: !Ref ClusterName\n      FargateProfileName: system\n      PodExecutionRoleArn: !Ref PodRole\n      Selectors:\n        - Namespace: kube-system\n      Tags:\n        - Key: team\n          Value: !Sub \"team-${{ClusterName}}\"\n  ProfileApps:\n    Type: AWS::EKS::FargateProfile{depends}\n    Properties:\n      ClusterName: !Ref ClusterName\n      FargateProfileName: apps\n      PodExecutionRoleArn: !Ref PodRole\n      Selectors:\n        - Namespace: apps\n          Labels:\n            - Key: compute\n              Value: fargate\nOutputs:\n  Apps:\n    Value: !GetAtt ProfileApps.Arn\n"
    )
}

fn terraform(i: u64, broken: bool) -> String {
    let order = if broken {
        ""
    } else {
        "\n  depends_on = [aws_eks_fargate_profile.karpenter]"
    };
    format!(
        "locals {{\n  name = \"team-{i}-tf\"\n  tags = merge(var.tags, {{ team = \"team-{i}\" }})\n}}\n\nresource \"aws_eks_cluster\" \"this\" {{\n  name     = local.name\n  role_arn = var.cluster_role_arn\n  vpc_config {{\n    subnet_ids = var.private_subnets\n  }}\n  tags = local.tags\n}}\n\nresource \"aws_eks_fargate_profile\" \"system\" {{\n  cluster_name           = aws_eks_cluster.this.name\n  fargate_profile_name   = \"kube-system\"\n  pod_execution_role_arn = var.pod_role_arn\n  subnet_ids             = var.private_subnets\n  selector {{\n    namespace = \"kube-system\"\n  }}\n}}\n\nresource \"aws_eks_fargate_profile\" \"karpenter\" {{\n  cluster_name           = aws_eks_cluster.this.name\n  fargate_profile_name   = \"karpenter\"\n  pod_execution_role_arn = var.pod_role_arn\n  subnet_ids             = var.private_subnets\n  selector {{\n    namespace = \"karpenter\"\n  }}\n}}\n\nresource \"helm_release\" \"karpenter\" {{\n  name       = \"karpenter\"\n  namespace  = \"karpenter\"\n  repository = \"oci://public.ecr.aws/karpenter\"\n  chart      = \"karpenter\"\n  version    = \"1.6.2\"{order}\n\n  values = [\n    <<-EOT\n    settings:\n      clusterName: ${{aws_eks_cluster.this.name}}\n    serviceAccount:\n      annotations:\n        eks.amazonaws.com/role-arn: ${{var.karpenter_role_arn}}\n    EOT\n  ]\n}}\n"
    )
}

fn variables(i: u64) -> String {
    format!(
        "variable \"cluster_role_arn\" {{\n  type = string\n}}\n\nvariable \"pod_role_arn\" {{\n  type = string\n}}\n\nvariable \"karpenter_role_arn\" {{\n  type = string\n}}\n\nvariable \"private_subnets\" {{\n  type    = list(string)\n  default = [\"subnet-{i:08x}a\", \"subnet-{i:08x}b\"]\n}}\n\nvariable \"tags\" {{\n  type    = map(string)\n  default = {{ owner = \"platform\" }}\n}}\n"
    )
}

fn manifests(i: u64) -> String {
    let mut s = String::new();
    for p in 0..4 {
        let _ = write!(
            s,
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc-{i}-{p}\n  namespace: app-{p}\n  labels:\n    app: svc-{p}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: svc-{p}\n  template:\n    metadata:\n      labels:\n        app: svc-{p}\n        compute: fargate\n    spec:\n      containers:\n        - name: app\n          image: public.ecr.aws/nginx/nginx:1.27\n          ports:\n            - containerPort: 8080\n          resources:\n            requests:\n              cpu: 500m\n              memory: 768Mi\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i}-{p}\n  namespace: app-{p}\nspec:\n  selector:\n    app: svc-{p}\n  ports:\n    - port: 80\n      targetPort: 8080\n"
        );
    }
    s
}

/// Generate one table: its file name under `crates/core/schemas/` and text.
pub fn schema_table(kind: &str, srcs: &[String]) -> Result<(&'static str, String), String> {
    use std::path::PathBuf;
    let p = |i: usize, what: &str| {
        srcs.get(i)
            .map(PathBuf::from)
            .ok_or(format!("{kind}: missing {what}"))
    };
    let (file, out) = match kind {
        "eksctl" => ("eksctl.tbl", schema::eksctl(&p(0, "SCHEMA_JSON")?)?),
        "cloudformation" => (
            "cloudformation.tbl",
            schema::cloudformation(&p(0, "CFN_LINT_SCHEMAS_DIR")?)?,
        ),
        "terraform" => {
            let pkgs: Vec<PathBuf> = srcs.iter().skip(1).map(PathBuf::from).collect();
            (
                "terraform.tbl",
                schema::terraform(&pkgs, &p(0, "CFN_LINT_SCHEMAS_DIR")?)?,
            )
        }
        "terraform-aws-eks" => {
            let versions = srcs
                .iter()
                .map(|s| {
                    let (v, d) = s.split_once('=').ok_or(format!("{s}: want MAJOR=DIR"))?;
                    let major = v
                        .trim_start_matches('v')
                        .parse::<u32>()
                        .map_err(|e| format!("{v}: {e}"))?;
                    Ok((major, PathBuf::from(d)))
                })
                .collect::<Result<Vec<_>, String>>()?;
            (
                "terraform-aws-eks.tbl",
                schema::terraform_aws_eks(&versions)?,
            )
        }
        "kubernetes" => ("kubernetes.tbl", schema::kubernetes(&p(0, "MODELS_DIR")?)?),
        other => return Err(format!("unknown schema kind {other}")),
    };
    let text = out.render(&format!(
        "Generated by `cargo run -p xtask -- schema {kind} ...` from the upstream\n\
         schema recorded in docs/schemas.md. Do not edit."
    ));
    Ok((file, text))
}

/// The committed table of that name.
pub fn committed_table(file: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/core/schemas")
        .join(file)
}

/// Two tables agree when their lines other than comments do.
pub fn same_table(a: &str, b: &str) -> bool {
    let body = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    body(a) == body(b)
}

/// `schema KIND SOURCE... [--check]`: write (or compare) one table under
/// `crates/core/schemas/`. Returns the exit code.
pub fn schema_main(args: &[String]) -> i32 {
    let check = args.iter().any(|a| a == "--check");
    let args: Vec<String> = args.iter().filter(|a| *a != "--check").cloned().collect();
    let Some((kind, srcs)) = args.split_first() else {
        eprintln!("usage: schema eksctl|cloudformation|terraform|terraform-aws-eks|kubernetes SOURCE... [--check]");
        return 2;
    };
    let (file, text) = match schema_table(kind, srcs) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let path = committed_table(file);
    if check {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if !same_table(&old, &text) {
            eprintln!(
                "{} disagrees with its upstream schema; regenerate it with `cargo run -p xtask -- schema {kind} ...`",
                path.display()
            );
            return 1;
        }
        println!("{file}: agrees with its upstream schema");
        return 0;
    }
    match std::fs::write(&path, text) {
        Ok(()) => {
            println!("wrote {}", path.display());
            0
        }
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            1
        }
    }
}
