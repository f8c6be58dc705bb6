//! The evaluator and the CDK host on one-file Python programs: what each
//! construct writes into the template, and what stays unknown.

use super::{library_path, unique_id, Cdk};
use crate::frontend::program::eval::{Evaluator, Loaded};
use crate::source::FileId;
use crate::tree::{Limits, Node, NodeKind};

/// The program's templates as compact text: `Logical Type {props} <- deps`,
/// one resource a line; `?` for a value not computed.
fn synth(src: &str) -> String {
    let head = "import aws_cdk as cdk\nfrom aws_cdk import aws_eks as eks\n\n";
    let text = format!("{head}{src}");
    let parsed = crate::frontend::program::python::parse(&text, FileId(0), &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let modules = vec![Loaded {
        module: parsed.module,
        imports: Default::default(),
        python: true,
    }];
    let mut host = Cdk::default();
    Evaluator::new(&modules, &mut host).run(0);
    templates_text(&mut host)
}

/// The host's templates as compact text: `Logical Type {props} <- deps`,
/// one resource a line (the kubectl barrier left out); then its gaps.
pub(in crate::frontend::program) fn templates_text(host: &mut Cdk) -> String {
    let mut out = String::new();
    for stack in host.templates() {
        out.push_str(&format!("stack {}\n", stack.id));
        if let Some(c) = stack.template.get("Conditions") {
            out.push_str(&format!("  conditions {}\n", show(c)));
        }
        for e in stack
            .template
            .get("Resources")
            .and_then(Node::as_map)
            .unwrap_or(&[])
        {
            let r = &e.value;
            let ty = r.get("Type").and_then(Node::as_str).unwrap_or("");
            if ty == "AWS::SSM::Parameter" {
                continue;
            }
            out.push_str(&format!(
                "  {} {} {}",
                e.key.as_str().unwrap_or(""),
                ty,
                r.get("Properties").map(show).unwrap_or_default()
            ));
            if let Some(d) = r.get("DependsOn") {
                out.push_str(&format!(" <- {}", show(d)));
            }
            if let Some(c) = r.get("Condition") {
                out.push_str(&format!(" if {}", show(c)));
            }
            out.push('\n');
        }
    }
    for g in &host.gaps {
        out.push_str(&format!("gap: {}\n", g.what));
    }
    out
}

/// A template node as compact text; `?` for a value not computed.
pub(in crate::frontend::program) fn show(n: &Node) -> String {
    match &n.kind {
        NodeKind::Scalar(s, _) => s.to_string(),
        NodeKind::Seq(items) => format!(
            "[{}]",
            items.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        NodeKind::Map(entries) => {
            if entries.len() == 1 && entries[0].key.as_str() == Some("Fn::ImportValue") {
                return "?".into();
            }
            format!(
                "{{{}}}",
                entries
                    .iter()
                    .filter(|e| e.key.as_str() != Some("ServiceToken"))
                    .map(|e| format!("{}: {}", e.key.as_str().unwrap_or(""), show(&e.value)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }
}

#[test]
fn logical_ids_are_cdks() {
    let ids = |p: &[&str]| unique_id(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    // As cdk synth writes them (aws-cdk-lib 2.275).
    assert_eq!(ids(&["Cluster", "Resource", "Resource"]), "Cluster9EE0221C");
    assert_eq!(
        ids(&["Cluster", "fargate-profile-Apps", "Resource"]),
        "ClusterfargateprofileApps9094A301"
    );
    assert_eq!(
        ids(&["Cluster", "KubectlReadyBarrier"]),
        "ClusterKubectlReadyBarrier200052AF"
    );
    assert_eq!(
        ids(&["Cluster", "Resource", "Resource", "Default"]),
        "Cluster9EE0221C"
    );
    assert_eq!(ids(&["AppsProfile"]), "AppsProfile");
    assert_eq!(
        ids(&["Platform", "Cluster", "chart-Podinfo"]).to_lowercase(),
        "platformclusterchartpodinfo360033be"
    );
}

#[test]
fn libraries_share_one_path_in_both_languages() {
    for m in ["aws-cdk-lib/aws-eks", "@aws-cdk/aws-eks", "aws_cdk.aws_eks"] {
        assert_eq!(library_path(m).as_deref(), Some("cdk.aws_eks"), "{m}");
    }
    for m in ["aws-cdk-lib", "aws_cdk", "@aws-cdk/core"] {
        assert_eq!(library_path(m).as_deref(), Some("cdk"), "{m}");
    }
    assert_eq!(library_path("./stack"), None);
}

#[test]
fn a_fargate_cluster_has_its_default_profile_and_the_coredns_patch() {
    let got = synth(
        "app = cdk.App()\nstack = cdk.Stack(app, \"S\")\n\
         c = eks.FargateCluster(stack, \"Cluster\", cluster_name=\"shop\", version=eks.KubernetesVersion.V1_33)\n\
         c.add_fargate_profile(\"Apps\", selectors=[eks.Selector(namespace=\"apps\", labels={\"tier\": \"web\"})])\n",
    );
    assert_eq!(
        got,
        "stack S
  Cluster9EE0221C Custom::AWSCDK-EKS-Cluster {Config: {name: shop, version: 1.33}}
  ClusterfargateprofiledefaultEFC59F14 Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: Cluster9EE0221C}, selectors: [{namespace: default}, {namespace: kube-system}]}}
  ClusterCoreDnsComputeTypePatch37F4F125 Custom::AWSCDK-EKS-KubernetesPatch {ResourceName: deployment/coredns, ResourceNamespace: kube-system, ApplyPatchJson: {\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"eks.amazonaws.com/compute-type\":\"fargate\"}}}}}, ClusterName: {Ref: Cluster9EE0221C}, PatchType: strategic} <- [ClusterKubectlReadyBarrier200052AF]
  ClusterfargateprofileApps9094A301 Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: Cluster9EE0221C}, selectors: [{namespace: apps, labels: {tier: web}}]}} <- [ClusterfargateprofiledefaultEFC59F14]
"
    );
}

#[test]
fn a_cluster_has_two_nodes_unless_told_otherwise() {
    let got = synth(
        "app = cdk.App()\nstack = cdk.Stack(app, \"S\")\n\
         eks.Cluster(stack, \"Cluster\", version=eks.KubernetesVersion.V1_33)\n\
         eks.Cluster(stack, \"None\", version=eks.KubernetesVersion.V1_33, default_capacity=0)\n\
         eks.Cluster(stack, \"Maybe\", version=eks.KubernetesVersion.V1_33, default_capacity=cdk.Fn.import_value(\"n\"))\n",
    );
    assert!(got.contains("ClusterNodegroupDefaultCapacity"), "{got}");
    assert!(!got.contains("NoneNodegroup"), "{got}");
    // A count not known: the node group may exist.
    assert!(
        got.contains("AWS::EKS::Nodegroup {ClusterName: {Ref: Maybe"),
        "{got}"
    );
    assert!(got.contains("if FplintBranchUnknown"), "{got}");
}

#[test]
fn props_flow_from_the_entry_point_through_classes_loops_and_spreads() {
    let got = synth(
        "BASE = {\"chart\": \"grafana\", \"version\": \"10.5.15\"}\n\
         class Obs(cdk.Stack):\n\
         \x20   def __init__(self, scope, id, *, namespaces, **kwargs):\n\
         \x20       super().__init__(scope, id, **kwargs)\n\
         \x20       c = eks.FargateCluster(self, \"Cluster\", version=eks.KubernetesVersion.V1_33)\n\
         \x20       for i, ns in [(0, n) for n in namespaces]:\n\
         \x20           pass\n\
         \x20       for ns in namespaces:\n\
         \x20           c.add_helm_chart(ns.upper(), **BASE, namespace=f\"{ns}-ns\")\n\
         app = cdk.App()\n\
         Obs(app, \"Obs\", namespaces=[\"a\", \"b\"])\n",
    );
    assert!(got.contains("ClusterchartA"), "{got}");
    assert!(got.contains("Release: obsclusterchartb"), "{got}");
    assert!(got.contains("Chart: grafana, Version: 10.5.15"), "{got}");
    assert!(got.contains("Namespace: b-ns"), "{got}");
}

#[test]
fn an_unknown_branch_declares_under_a_condition_and_leaves_bindings_unknown() {
    let got = synth(
        "import os\n\
         app = cdk.App()\nstack = cdk.Stack(app, \"S\")\n\
         c = eks.FargateCluster(stack, \"Cluster\", version=eks.KubernetesVersion.V1_33)\n\
         ns = \"a\"\n\
         if os.environ.get(\"PROD\"):\n\
         \x20   c.add_fargate_profile(\"Prod\", selectors=[{\"namespace\": \"prod\"}])\n\
         \x20   ns = \"b\"\n\
         else:\n\
         \x20   c.add_fargate_profile(\"Dev\", selectors=[{\"namespace\": \"dev\"}])\n\
         c.add_helm_chart(\"X\", chart=\"x\", namespace=ns)\n",
    );
    assert!(got.contains("ClusterfargateprofileProd"), "{got}");
    assert!(got.contains("if FplintBranch0\n"), "{got}");
    assert!(got.contains("if FplintBranch0Else\n"), "{got}");
    assert!(got.contains("conditions {FplintBranch0: ?, FplintBranch0Else: {Fn::Not: [{Condition: FplintBranch0}]}}"), "{got}");
    // `ns` may be `a` or `b`.
    assert!(got.contains("Namespace: ?"), "{got}");
}

#[test]
fn a_conditional_whose_branches_agree_is_known() {
    let got = synth(
        "import os\n\
         app = cdk.App()\nstack = cdk.Stack(app, \"S\")\n\
         c = eks.FargateCluster(stack, \"Cluster\", version=eks.KubernetesVersion.V1_33)\n\
         c.add_helm_chart(\"X\", chart=\"x\", namespace=\"logs\" if os.environ.get(\"A\") else \"logs\")\n\
         c.add_helm_chart(\"Y\", chart=\"y\", namespace=\"a\" if os.environ.get(\"A\") else \"b\")\n",
    );
    assert!(got.contains("Namespace: logs"), "{got}");
    assert!(got.contains("ClusterchartY"), "{got}");
    assert!(got.contains("Chart: y, Namespace: ?"), "{got}");
}

#[test]
fn l1_props_are_written_in_pascal_case_with_their_dependencies() {
    let got = synth(
        "app = cdk.App()\nstack = cdk.Stack(app, \"S\")\n\
         cl = eks.CfnCluster(stack, \"Cluster\", name=\"l1\", resources_vpc_config=eks.CfnCluster.ResourcesVpcConfigProperty(subnet_ids=[\"s-1\"]))\n\
         a = eks.CfnFargateProfile(stack, \"A\", cluster_name=cl.ref, selectors=[eks.CfnFargateProfile.SelectorProperty(namespace=\"a\", labels=[{\"key\": \"k\", \"value\": \"v\"}])])\n\
         b = eks.CfnFargateProfile(stack, \"B\", cluster_name=cl.ref, selectors=[{\"namespace\": \"b\"}])\n\
         b.add_dependency(a)\n",
    );
    assert_eq!(
        got,
        "stack S
  Cluster AWS::EKS::Cluster {Name: l1, ResourcesVpcConfig: {SubnetIds: [s-1]}}
  A AWS::EKS::FargateProfile {ClusterName: {Ref: Cluster}, Selectors: [{Namespace: a, Labels: [{Key: k, Value: v}]}]}
  B AWS::EKS::FargateProfile {ClusterName: {Ref: Cluster}, Selectors: [{Namespace: b}]} <- [A]
"
    );
}

#[test]
fn a_construct_made_by_something_not_followed_is_a_gap() {
    let got = synth(
        "from helpers import make\n\
         app = cdk.App()\nstack = cdk.Stack(app, \"S\")\n\
         eks.HelmChart(stack, \"H\", cluster=make(stack), chart=\"x\")\n",
    );
    assert_eq!(got, "gap: a Helm chart's cluster is not known\n");
}
