//! CDK apps and Pulumi projects read as source, through the real binary: a run on the app, a
//! source file named alone (pre-commit), a committed `cdk.out`, and the
//! notes that keep a partly read program from passing silently.

mod common;

use common::{stdout, tmp, write};
use std::path::Path;

const CDK_JSON: &str = "{\n  \"app\": \"python3 app.py\"\n}\n";

/// The entry point: the namespace comes from here.
const APP: &str = r#"import aws_cdk as cdk

from stacks.platform import Platform

app = cdk.App()
Platform(app, "Platform", namespace="monitoring")
app.synth()
"#;

/// A Fargate-only cluster and a chart in the namespace the entry point names.
const STACK: &str = r#"from aws_cdk import Stack
from aws_cdk import aws_eks as eks


class Platform(Stack):
    def __init__(self, scope, construct_id, *, namespace, **kwargs):
        super().__init__(scope, construct_id, **kwargs)
        cluster = eks.FargateCluster(self, "Cluster", cluster_name="shop", version=eks.KubernetesVersion.V1_33)
        cluster.add_helm_chart(
            "Grafana",
            chart="grafana",
            repository="https://grafana.github.io/helm-charts",
            version="10.5.15",
            namespace=namespace,
        )
"#;

fn app(dir: &Path) {
    // A repository of its own, so that nothing around it is its project.
    let _ = std::fs::create_dir_all(dir.join(".git"));
    write(dir, "cdk.json", CDK_JSON);
    write(dir, "app.py", APP);
    write(dir, "stacks/__init__.py", "");
    write(dir, "stacks/platform.py", STACK);
}

/// The binary's output for `args`, run in `dir`.
fn fplint(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_fplint"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run fplint: {e}"))
}

fn run(dir: &Path, args: &[&str]) -> (String, String, Option<i32>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fplint"))
        .current_dir(dir)
        .args(["check", "--no-config", "--format", "concise"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run fplint: {e}"));
    (
        stdout(&out),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

const FINDING: &str = "app.py:6:37: FP011 [error] Helm release `platformclusterchartgrafana1bc20815` installs into namespace `monitoring`, which no Fargate profile of cluster `shop` (stacks/platform.py) selects, and the cluster has no nodes: its pods stay Pending\n";

#[test]
fn an_app_is_read_from_its_entry_point_through_its_imports() {
    let d = tmp();
    app(d.path());
    let (out, _, code) = run(d.path(), &["."]);
    assert_eq!(out, FINDING);
    assert_eq!(code, Some(1));
}

#[test]
fn a_source_file_named_alone_is_read_with_its_app() {
    let d = tmp();
    app(d.path());
    // The finding is in the entry point: named, it is reported.
    let (out, _, code) = run(d.path(), &["app.py"]);
    assert_eq!(out, FINDING);
    assert_eq!(code, Some(1));
    // The stack alone: the finding is in another file of the app.
    let (out, _, code) = run(d.path(), &["stacks/platform.py"]);
    assert_eq!(out, "");
    assert_eq!(code, Some(0));
}

#[test]
fn a_source_file_outside_any_app_is_skipped_with_a_note() {
    let d = tmp();
    let _ = std::fs::create_dir_all(d.path().join(".git"));
    write(d.path(), "tool.py", "print('hello')\n");
    let out = fplint(d.path(), &["check", "--no-config", "tool.py"]);
    let text = stdout(&out);
    assert!(
        text.contains("tool.py: not part of a CDK app or Pulumi project: no `cdk.json` or `Pulumi.yaml` in its folder or above it"),
        "{text}"
    );
}

#[test]
fn a_committed_cdk_out_is_not_read_beside_the_source() {
    let d = tmp();
    app(d.path());
    // What `cdk synth` would write for the same cluster.
    write(
        d.path(),
        "cdk.out/Platform.template.json",
        r#"{"Resources": {"Cluster9EE0221C": {"Type": "Custom::AWSCDK-EKS-Cluster", "Properties": {"Config": {"name": "shop"}}}}}"#,
    );
    let (out, _, _) = run(d.path(), &["."]);
    assert_eq!(out, FINDING);
}

#[test]
fn what_the_program_does_that_is_not_followed_is_said_once() {
    let d = tmp();
    app(d.path());
    write(
        d.path(),
        "stacks/platform.py",
        &STACK.replace(
            "        cluster.add_helm_chart(",
            "        eks.HelmChart(self, \"Other\", cluster=make_cluster(), chart=\"x\")\n        cluster.add_helm_chart(",
        ),
    );
    let (out, _, _) = run(d.path(), &["."]);
    assert!(out.contains("FP011"), "{out}");
    let human = fplint(d.path(), &["check", "--no-config", "."]);
    let text = stdout(&human);
    assert!(
        text.contains("note: cdk.json: part of the program was not followed, so no check ran on it: stacks/platform.py:9: a Helm chart's cluster is not known"),
        "{text}"
    );
}

#[test]
fn an_app_without_an_entry_point_says_so() {
    let d = tmp();
    let _ = std::fs::create_dir_all(d.path().join(".git"));
    write(d.path(), "cdk.json", "{\"app\": \"make synth\"}\n");
    let out = fplint(d.path(), &["check", "--no-config", "."]);
    let text = stdout(&out);
    assert!(
        text.contains("note: cdk.json: program not read: the entry point of `make synth` is not a TypeScript, JavaScript or Python file of the app"),
        "{text}"
    );
    // A note, not a failure: an app in another language is no mistake.
    assert_eq!(out.status.code(), Some(0));
}

/// A chart in a namespace that a profile selects, on a cluster whose
/// profiles are L1 resources CDK does not order the chart after.
const UNORDERED: &str = r#"from aws_cdk import Stack
from aws_cdk import aws_eks as eks


class Platform(Stack):
    def __init__(self, scope, construct_id, **kwargs):
        super().__init__(scope, construct_id, **kwargs)
        cluster = eks.FargateCluster(self, "Cluster", cluster_name="shop", version=eks.KubernetesVersion.V1_33)
        eks.CfnFargateProfile(
            self,
            "Apps",
            cluster_name=cluster.cluster_name,
            fargate_profile_name="apps",
            pod_execution_role_arn="arn:aws:iam::111122223333:role/pods",
            selectors=[{"namespace": "apps"}],
        )
        cluster.add_helm_chart("Podinfo", chart="podinfo", repository="https://stefanprodan.github.io/podinfo", version="6.14.1", namespace="apps", values={"replicaCount": 2})
"#;

#[test]
fn findings_in_a_program_say_how_a_program_orders_its_constructs() {
    let d = tmp();
    app(d.path());
    write(
        d.path(),
        "app.py",
        &APP.replace(", namespace=\"monitoring\"", ""),
    );
    write(d.path(), "stacks/platform.py", UNORDERED);
    let out = fplint(d.path(), &["check", "--no-config", "--format", "json", "."]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let helps: Vec<(String, String)> = v["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["help"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let help = |code: &str| {
        helps
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, h)| h.clone())
            .unwrap_or_default()
    };
    assert!(
        help("FP002").starts_with("order the release after the profile so its pods are created once the profile is ACTIVE: add a dependency on `Apps` (`node.addDependency`; Python: `node.add_dependency`)"),
        "{helps:?}"
    );
    assert_eq!(
        help("FP003"),
        "add a dependency on `ClusterfargateprofiledefaultEFC59F14` (`node.addDependency`; Python: `node.add_dependency`) to `Apps` so that the profiles of the cluster are created one after another",
    );
}

#[test]
fn a_construct_whose_id_is_not_known_is_still_read() {
    let d = tmp();
    app(d.path());
    write(
        d.path(),
        "stacks/platform.py",
        &STACK.replace(
            "eks.FargateCluster(self, \"Cluster\",",
            "eks.FargateCluster(self, f\"{self.node.try_get_context('prefix')}-cluster\",",
        ),
    );
    let (out, _, _) = run(d.path(), &["."]);
    // The release is named after its construct path, which is not known.
    assert_eq!(
        out,
        "app.py:6:37: FP011 [error] Helm release `Resources.254chartGrafana4A6E9444` installs into namespace `monitoring`, which no Fargate profile of cluster `shop` (stacks/platform.py) selects, and the cluster has no nodes: its pods stay Pending\n"
    );
}

#[test]
fn an_app_that_imports_eks_but_declares_no_cluster_says_so() {
    let d = tmp();
    app(d.path());
    // The entry point leaves the stack out.
    write(
        d.path(),
        "app.py",
        &APP.replace("Platform(app", "# Platform(app"),
    );
    let out = fplint(d.path(), &["check", "--no-config", "."]);
    let text = stdout(&out);
    assert!(
        text.contains("stacks/platform.py:2: the program imports EKS constructs, but fplint found no cluster it declares"),
        "{text}"
    );
}

/// A Pulumi project in TypeScript: the entry point imports the cluster
/// from a module of its own and deploys into a namespace no profile selects.
const PULUMI_INDEX: &str = r#"import * as k8s from "@pulumi/kubernetes";
import { cluster } from "./cluster";

new k8s.helm.v3.Release(
  "grafana",
  { chart: "grafana", namespace: "monitoring", repositoryOpts: { repo: "https://grafana.github.io/helm-charts" } },
  { provider: cluster.provider },
);
"#;

const PULUMI_CLUSTER: &str = r#"import * as eks from "@pulumi/eks";

export const cluster = new eks.Cluster("shop", { fargate: true });
"#;

fn pulumi(dir: &Path) {
    let _ = std::fs::create_dir_all(dir.join(".git"));
    write(dir, "Pulumi.yaml", "name: shop\nruntime: nodejs\n");
    write(dir, "index.ts", PULUMI_INDEX);
    write(dir, "cluster.ts", PULUMI_CLUSTER);
}

#[test]
fn a_pulumi_project_is_read_from_its_entry_point() {
    let d = tmp();
    pulumi(d.path());
    let (text, _, code) = run(d.path(), &["."]);
    assert_eq!(
        text,
        "index.ts:6:34: FP011 [error] Helm release `grafana-*` installs into namespace `monitoring`, which no Fargate profile of cluster `Ref:shop-eksCluster` (cluster.ts) selects, and the cluster has no nodes: its pods stay Pending\n"
    );
    assert_eq!(code, Some(1));
    // Named alone (pre-commit), the module that declares the cluster is
    // context: the release's finding belongs to `index.ts`.
    let (text, _, code) = run(d.path(), &["cluster.ts"]);
    assert_eq!(text, "", "{text}");
    assert_eq!(code, Some(0));
    let (text, _, _) = run(d.path(), &["index.ts"]);
    assert!(text.starts_with("index.ts:6:34: FP011 "), "{text}");
}

#[test]
fn a_pulumi_project_in_a_runtime_not_read_says_so() {
    let d = tmp();
    let _ = std::fs::create_dir_all(d.path().join(".git"));
    write(d.path(), "Pulumi.yaml", "name: shop\nruntime: go\n");
    write(d.path(), "main.go", "package main\n");
    let out = fplint(d.path(), &["check", "--no-config", "."]);
    let text = stdout(&out);
    assert!(
        text.contains("note: Pulumi.yaml: program not read: the runtime `go` is not read (fplint reads `nodejs` and `python` programs)"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_pulumi_workload_on_the_default_provider_is_named_in_a_note() {
    let d = tmp();
    pulumi(d.path());
    write(
        d.path(),
        "index.ts",
        "import * as k8s from \"@pulumi/kubernetes\";\n\nnew k8s.core.v1.Namespace(\"jobs\");\n",
    );
    let out = fplint(d.path(), &["check", "--no-config", "."]);
    let text = stdout(&out);
    assert!(
        text.contains("note: Pulumi.yaml: part of the program was not followed, so no check ran on it: index.ts:3: a Kubernetes resource uses the default provider: its cluster is not known"),
        "{text}"
    );
}

#[test]
fn render_prints_what_a_program_declares_with_its_source_lines() {
    let d = tmp();
    pulumi(d.path());
    let out = fplint(d.path(), &["render", "."]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // The component's profile, and the release with the line that declares it.
    assert!(
        text.contains("# fplint: program Pulumi.yaml, stack shop: what fplint read, written as CloudFormation\n"),
        "{text}"
    );
    assert!(
        text.contains("---\n# Source: cluster.ts:3\nshop-fargateProfile:\n"),
        "{text}"
    );
    assert!(
        text.contains("    Selectors:\n    - Namespace: default\n    - Namespace: kube-system\n"),
        "{text}"
    );
    assert!(
        text.contains("---\n# Source: index.ts:4\ngrafana:\n"),
        "{text}"
    );
    assert!(
        text.contains("    PodExecutionRoleArn: __FPLINT_UNKNOWN__\n"),
        "{text}"
    );
}

#[test]
fn a_second_entry_point_named_alone_is_read_from_itself() {
    let d = tmp();
    app(d.path());
    // `cdk synth --app "python3 fargate_app.py"`: cdk.json runs app.py,
    // which never imports this file.
    write(
        d.path(),
        "fargate_app.py",
        "import aws_cdk as cdk\n\nfrom stacks.platform import Platform\n\napp = cdk.App()\nPlatform(app, \"Fargate\", namespace=\"jobs\")\napp.synth()\n",
    );
    let (text, _, code) = run(d.path(), &["fargate_app.py"]);
    assert_eq!(
        text,
        "fargate_app.py:6:36: FP011 [error] Helm release `fargateclusterchartgrafana66de1660` installs into namespace `jobs`, which no Fargate profile of cluster `shop` (stacks/platform.py) selects, and the cluster has no nodes: its pods stay Pending\n"
    );
    assert_eq!(code, Some(1));
}
