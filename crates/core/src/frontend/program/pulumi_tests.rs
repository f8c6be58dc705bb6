//! The Pulumi host on one-file programs in both languages: what each
//! resource writes into the template, what it waits for, and what stays
//! unknown.

use super::{library_path, Pulumi};
use crate::frontend::program::cdk::tests::show;
use crate::frontend::program::eval::{Evaluator, Loaded};
use crate::source::FileId;
use crate::tree::{Limits, Node};

/// The program's template as compact text: `Logical Type {props} <- deps`.
fn run(src: &str, python: bool, stacks: &[&str]) -> String {
    let limits = Limits::default();
    let parsed = if python {
        crate::frontend::program::python::parse(src, FileId(0), &limits)
    } else {
        crate::frontend::program::typescript::parse(src, FileId(0), "index.ts", &limits)
    };
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let modules = vec![Loaded {
        module: parsed.module,
        imports: Default::default(),
        python,
    }];
    let configs = stacks
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let doc = crate::tree::yaml::parse(s, FileId(i as u32 + 1), limits);
            doc.documents[0].get("config").cloned().unwrap()
        })
        .collect();
    let mut host = Pulumi::new("shop".into(), configs);
    Evaluator::new(&modules, &mut host).run(0);
    let mut out = String::new();
    for stack in host.templates() {
        for e in stack
            .template
            .get("Resources")
            .and_then(Node::as_map)
            .unwrap_or(&[])
        {
            let r = &e.value;
            out.push_str(&format!(
                "{} {} {}",
                e.key.as_str().unwrap_or(""),
                r.get("Type").and_then(Node::as_str).unwrap_or(""),
                r.get("Properties").map(show).unwrap_or_default()
            ));
            if let Some(d) = r.get("DependsOn") {
                out.push_str(&format!(" <- {}", show(d)));
            }
            if let Some(c) = r.get("Condition") {
                out.push_str(&format!(" if {}", show(c)));
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
    }
    for g in &host.gaps {
        out.push_str(&format!("gap: {}\n", g.what));
    }
    out
}

const TS: &str = "import * as aws from '@pulumi/aws';\nimport * as eks from '@pulumi/eks';\nimport * as k8s from '@pulumi/kubernetes';\nimport * as pulumi from '@pulumi/pulumi';\n";
const PY: &str = "import json\nimport pulumi\nimport pulumi_aws as aws\nimport pulumi_eks as eks\nimport pulumi_kubernetes as k8s\n";

#[test]
fn libraries_share_one_path_in_both_languages() {
    for (m, want) in [
        ("@pulumi/aws", "aws"),
        ("pulumi_aws", "aws"),
        ("@pulumi/eks", "eks"),
        ("pulumi_eks", "eks"),
        ("@pulumi/kubernetes", "k8s"),
        ("pulumi_kubernetes.helm.v3", "k8s.helm.v3"),
        ("@pulumi/kubernetes/helm/v3", "k8s.helm.v3"),
        ("pulumi", "pulumi"),
    ] {
        assert_eq!(library_path(m).as_deref(), Some(want), "{m}");
    }
    assert_eq!(library_path("./cluster"), None);
    assert_eq!(
        library_path("pulumi_random").as_deref(),
        Some("lib:pulumi_random")
    );
}

#[test]
fn a_release_waits_for_what_its_provider_reads() {
    let src = format!(
        "{TS}const c = new aws.eks.Cluster('shop', {{ roleArn: 'r' }});\n\
         const p = new aws.eks.FargateProfile('apps', {{ clusterName: c.name, podExecutionRoleArn: 'r', selectors: [{{ namespace: 'apps', labels: {{ tier: 'web' }} }}] }});\n\
         const kc = pulumi.interpolate`server: ${{c.endpoint}}`;\n\
         const k = new k8s.Provider('k', {{ kubeconfig: kc, namespace: 'apps' }});\n\
         new k8s.helm.v3.Release('web', {{ chart: 'podinfo', repositoryOpts: {{ repo: 'https://example.com' }} }}, {{ provider: k }});\n\
         new k8s.helm.v3.Release('api', {{ chart: 'podinfo', name: 'api', namespace: 'api' }}, {{ provider: k, dependsOn: [p] }});\n"
    );
    assert_eq!(
        run(&src, false, &[]),
        "shop AWS::EKS::Cluster\n\
         apps AWS::EKS::FargateProfile {ClusterName: {Ref: shop}, FargateProfileName: apps-*, Selectors: [{Namespace: apps, Labels: [{Key: tier, Value: web}]}], PodExecutionRoleArn: ?} <- [shop]\n\
         web Custom::AWSCDK-EKS-HelmChart {ClusterName: {Ref: shop}, Release: web-*, Chart: podinfo, Repository: https://example.com, Namespace: apps} <- [shop]\n\
         api Custom::AWSCDK-EKS-HelmChart {ClusterName: {Ref: shop}, Release: api, Chart: podinfo, Namespace: api} <- [apps, shop]\n"
    );
}

#[test]
fn the_eks_component_makes_its_profile_coredns_and_nodes() {
    let src = format!(
        "{PY}a = eks.Cluster('a', fargate=True)\n\
         b = eks.Cluster('b')\n\
         c = eks.Cluster('eks-c', fargate=eks.FargateProfileArgs(selectors=[{{'namespace': 'jobs'}}]), skip_default_node_group=True)\n\
         k8s.core.v1.Namespace('jobs', opts=pulumi.ResourceOptions(provider=c.provider))\n"
    );
    assert_eq!(
        run(&src, true, &[]),
        "a-eksCluster AWS::EKS::Cluster\n\
         a-fargateProfile AWS::EKS::FargateProfile {ClusterName: {Ref: a-eksCluster}, FargateProfileName: a-fargateProfile-*, Selectors: [{Namespace: default}, {Namespace: kube-system}], PodExecutionRoleArn: ?} <- [a-eksCluster]\n\
         a-coredns AWS::EKS::Addon {ClusterName: {Ref: a-eksCluster}, AddonName: coredns, ConfigurationValues: {\"computeType\":\"Fargate\"}} <- [a-eksCluster, a-fargateProfile]\n\
         b-eksCluster AWS::EKS::Cluster\n\
         b-defaultNodeGroup AWS::AutoScaling::AutoScalingGroup {MinSize: 1, Tags: [{Key: {Fn::Join: [, [kubernetes.io/cluster/, {Ref: b-eksCluster}]]}, PropagateAtLaunch: true, Value: owned}]} <- [b-eksCluster]\n\
         eks-c-eksCluster AWS::EKS::Cluster\n\
         eks_cfargateProfile AWS::EKS::FargateProfile {ClusterName: {Ref: eks-c-eksCluster}, FargateProfileName: eks_cfargateProfile-*, Selectors: [{Namespace: jobs}], PodExecutionRoleArn: ?} <- [eks-c-eksCluster]\n\
         eks-c-coredns AWS::EKS::Addon {ClusterName: {Ref: eks-c-eksCluster}, AddonName: coredns, ConfigurationValues: {\"computeType\":\"Fargate\"}} <- [eks-c-eksCluster, eks_cfargateProfile]\n\
         jobs Custom::AWSCDK-EKS-KubernetesResource {Manifest: [{apiVersion: v1, kind: Namespace, metadata: {name: jobs-*}}], ClusterName: {Ref: eks-c-eksCluster}} <- [eks-c-eksCluster, eks_cfargateProfile, eks-c-coredns]\n"
    );
}

#[test]
fn config_is_known_when_every_committed_stack_agrees() {
    let src = format!(
        "{PY}cfg = pulumi.Config()\n\
         c = aws.eks.Cluster('shop', role_arn='r')\n\
         for key in ['same', 'differs', 'partly', 'nowhere']:\n    aws.eks.FargateProfile(key, cluster_name=c.name, pod_execution_role_arn='r', selectors=[{{'namespace': cfg.get(key) or 'fallback'}}])\n"
    );
    let dev = "config:\n  shop:same: jobs\n  shop:differs: a\n  shop:partly: x\n";
    let prod = "config:\n  shop:same: jobs\n  shop:differs: b\n";
    let out = run(&src, true, &[dev, prod]);
    let ns: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split("Namespace: ").nth(1))
        .map(|l| l.split('}').next().unwrap_or(""))
        .collect();
    // Agreed: known. Differs or set in some stacks only: unknown. Set in
    // none: `get` gives nothing, and the program's fallback is used.
    assert_eq!(ns, ["jobs", "?", "?", "fallback"], "{out}");
    // With no committed stack nothing is known.
    let none = run(&src, true, &[]);
    assert_eq!(none.matches("Namespace: ?").count(), 4, "{none}");
}

#[test]
fn a_workload_on_the_default_provider_is_said_to_be_unknown() {
    let src = format!(
        "{TS}new k8s.apps.v1.Deployment('api', {{ metadata: {{ namespace: 'apps' }}, spec: {{}} }});\n"
    );
    let out = run(&src, false, &[]);
    assert!(out.contains("ClusterName: ?"), "{out}");
    assert!(
        out.ends_with(
            "gap: a Kubernetes resource uses the default provider: its cluster is not known\n"
        ),
        "{out}"
    );
}

#[test]
fn an_unknown_fargate_setting_makes_both_branches_conditional() {
    let src = format!("{TS}const cfg = new pulumi.Config();\nnew eks.Cluster('x', {{ fargate: cfg.getBoolean('fargate') }});\n");
    let out = run(&src, false, &[]);
    assert!(
        out.contains("x-fargateProfile AWS::EKS::FargateProfile")
            && out.contains(" if FplintBranchUnknown\n"),
        "{out}"
    );
    assert!(
        out.contains("x-defaultNodeGroup AWS::AutoScaling::AutoScalingGroup")
            && out.contains(" if FplintBranchUnknownElse\n"),
        "{out}"
    );
}
