//! EKS Blueprints on one-file TypeScript and Python programs: the stack a
//! blueprint builds, as compact template text.

use crate::frontend::program::cdk::tests::templates_text;
use crate::frontend::program::cdk::Cdk;
use crate::frontend::program::eval::{Evaluator, Loaded};
use crate::source::FileId;
use crate::tree::Limits;

fn run(src: &str, python: bool) -> String {
    let module = if python {
        let head = "import aws_cdk as cdk\nfrom aws_cdk import aws_eks as eks\nimport eks_blueprints as blueprints\n\n";
        let parsed = crate::frontend::program::python::parse(
            &format!("{head}{src}"),
            FileId(0),
            &Limits::default(),
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        parsed.module
    } else {
        let head = "import * as cdk from 'aws-cdk-lib';\nimport * as eks from 'aws-cdk-lib/aws-eks';\nimport * as blueprints from '@aws-quickstart/eks-blueprints';\n\n";
        let parsed = crate::frontend::program::typescript::parse(
            &format!("{head}{src}"),
            FileId(0),
            "app.ts",
            &Limits::default(),
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        parsed.module
    };
    let modules = vec![Loaded {
        module,
        imports: Default::default(),
        python,
    }];
    let mut host = Cdk::default();
    Evaluator::new(&modules, &mut host).run(0);
    templates_text(&mut host)
}

#[test]
fn a_fargate_provider_makes_a_fargate_cluster_with_its_profiles() {
    let got = run(
        "const app = new cdk.App();\n\
         blueprints.EksBlueprint.builder()\n\
           .account('111111111111').region('eu-west-1')\n\
           .version(eks.KubernetesVersion.V1_33)\n\
           .clusterProvider(new blueprints.FargateClusterProvider({\n\
             fargateProfiles: { apps: { selectors: [{ namespace: 'apps' }] } },\n\
           }))\n\
           .build(app, 'shop');\n",
        false,
    );
    assert_eq!(
        got,
        "stack shop
  shop4CD1E56D Custom::AWSCDK-EKS-Cluster {Config: {name: shop, version: 1.33}}
  shopfargateprofiledefault18BCF16A Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: shop4CD1E56D}, selectors: [{namespace: default}, {namespace: kube-system}]}}
  shopCoreDnsComputeTypePatchD8477FF6 Custom::AWSCDK-EKS-KubernetesPatch {ResourceName: deployment/coredns, ResourceNamespace: kube-system, ApplyPatchJson: {\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"eks.amazonaws.com/compute-type\":\"fargate\"}}}}}, ClusterName: {Ref: shop4CD1E56D}, PatchType: strategic} <- [shopKubectlReadyBarrierA0646104]
  shopfargateprofileappsB96F25B1 Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: shop4CD1E56D}, selectors: [{namespace: apps}]}} <- [shopfargateprofiledefault18BCF16A]
"
    );
}

#[test]
fn a_generic_provider_makes_node_groups_and_add_ons_are_charts() {
    let got = run(
        "app = cdk.App()\n\
         provider = blueprints.GenericClusterProvider(\n\
             version=eks.KubernetesVersion.V1_33,\n\
             managed_node_groups=[{\"id\": \"system\", \"max_size\": 1}],\n\
             fargate_profiles={\"apps\": {\"selectors\": [{\"namespace\": \"apps\"}]}},\n\
         )\n\
         blueprints.EksBlueprint.builder().cluster_provider(provider).add_ons(\n\
             blueprints.addons.MetricsServerAddOn(),\n\
             blueprints.addons.AwsForFluentBitAddOn(values={\"tolerations\": []}),\n\
         ).build(app, \"ops\")\n",
        true,
    );
    assert_eq!(
        got,
        "stack ops
  ops111EF1D0 Custom::AWSCDK-EKS-Cluster {Config: {name: ops, version: 1.33}}
  opsNodegroupsystemngNodeGroupB6CC7BE3 AWS::EKS::Nodegroup {ClusterName: {Ref: ops111EF1D0}, NodegroupName: system, InstanceTypes: [m5.large], ScalingConfig: {DesiredSize: 1, MaxSize: 1, MinSize: 1}}
  opsfargateprofileappsF8AF3D9E Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: ops111EF1D0}, selectors: [{namespace: apps}]}}
  opschartmetricsserver59A708A9 Custom::AWSCDK-EKS-HelmChart {ClusterName: {Ref: ops111EF1D0}, Release: blueprints-addon-metrics-server, Chart: metrics-server, Version: 3.13.1, Repository: https://kubernetes-sigs.github.io/metrics-server, Values: {chart: metrics-server, repository: https://kubernetes-sigs.github.io/metrics-server, version: 3.13.1, release: blueprints-addon-metrics-server, name: metrics-server, namespace: kube-system, createNamespace: false}, Namespace: kube-system} <- [opsKubectlReadyBarrierE0FAD0A1]
  opschartfluentbitFBD3A48C Custom::AWSCDK-EKS-HelmChart {ClusterName: {Ref: ops111EF1D0}, Release: blueprints-addon-aws-for-fluent-bit, Chart: aws-for-fluent-bit, Version: 0.2.0, Repository: https://aws.github.io/eks-charts, Values: {image: {tag: 3.4.5}, serviceAccount: {name: aws-for-fluent-bit-sa, create: false}, tolerations: []}, Namespace: kube-system} <- [opsKubectlReadyBarrierE0FAD0A1]
"
    );
}

#[test]
fn add_ons_not_modelled_are_said_and_those_that_may_add_nodes_leave_capacity_unknown() {
    let got = run(
        "const app = new cdk.App();\n\
         class Mine {}\n\
         blueprints.EksBlueprint.builder()\n\
           .clusterProvider(new blueprints.FargateClusterProvider({ version: eks.KubernetesVersion.V1_33 }))\n\
           .addOns(new blueprints.addons.CertManagerAddOn(), new blueprints.addons.KarpenterV1AddOn(), new Mine())\n\
           .teams(new blueprints.PlatformTeam({ name: 'ops' }))\n\
           .build(app, 'c');\n",
        false,
    );
    assert_eq!(
        got,
        "stack c
  cD9631AF4 Custom::AWSCDK-EKS-Cluster {Config: {name: c, version: 1.33}}
  cfargateprofiledefault138C0D4A Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: cD9631AF4}, selectors: [{namespace: default}, {namespace: kube-system}]}}
  cCoreDnsComputeTypePatch854F1E89 Custom::AWSCDK-EKS-KubernetesPatch {ResourceName: deployment/coredns, ResourceNamespace: kube-system, ApplyPatchJson: {\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"eks.amazonaws.com/compute-type\":\"fargate\"}}}}}, ClusterName: {Ref: cD9631AF4}, PatchType: strategic} <- [cKubectlReadyBarrier6331A6FB]
  cKarpenterV1AddOnUnread3D4AD8D0 AWS::AutoScaling::AutoScalingGroup 
  cAddOnUnread7998BAEF AWS::AutoScaling::AutoScalingGroup 
gap: the EKS Blueprints add-on `CertManagerAddOn` is not read
gap: the EKS Blueprints add-on `KarpenterV1AddOn` is not read
gap: an EKS Blueprints add-on fplint does not know is not read
gap: EKS Blueprints teams are not read
"
    );
}

#[test]
fn no_provider_is_a_managed_node_group_and_the_construct_form_nests_the_cluster() {
    let got = run(
        "const app = new cdk.App();\n\
         new blueprints.EksBlueprint(app, { id: 'plain', version: 'auto', addOns: [new blueprints.addons.ExternalDnsAddOn({ hostedZoneResources: [] })] });\n",
        false,
    );
    assert_eq!(
        got,
        "stack plain
  plainct530F7301 Custom::AWSCDK-EKS-Cluster {Config: {name: plain-ct, version: 1.35}}
  plainctNodegroupplainngngNodeGroup84250BC1 AWS::EKS::Nodegroup {ClusterName: {Ref: plainct530F7301}, NodegroupName: plain-ng, InstanceTypes: [m5.large], ScalingConfig: {DesiredSize: 2, MaxSize: 3, MinSize: 2}}
  plainctchartexternaldns601988A4 Custom::AWSCDK-EKS-HelmChart {ClusterName: {Ref: plainct530F7301}, Release: blueprints-addon-external-dns, Chart: external-dns, Version: 1.21.1, Repository: https://kubernetes-sigs.github.io/external-dns/, Values: {provider: aws, extraArgs: [], aws: {region: ?}, serviceAccount: {create: false, name: external-dns-sa}}, Namespace: external-dns} <- [plainctKubectlReadyBarrierFAB5A9A8, externaldnsnsA88F2381]
  externaldnsnsA88F2381 Custom::AWSCDK-EKS-KubernetesResource {Manifest: [{apiVersion: v1, kind: Namespace, metadata: {name: external-dns}}], ClusterName: {Ref: plainct530F7301}} <- [plainctKubectlReadyBarrierFAB5A9A8]
"
    );
}

#[test]
fn node_group_providers_and_the_cluster_builder() {
    let got = run(
        "app = cdk.App()\n\
         mng = blueprints.MngClusterProvider(version=eks.KubernetesVersion.V1_33, max_size=5)\n\
         asg = blueprints.AsgClusterProvider(id=\"workers\", version=eks.KubernetesVersion.V1_33)\n\
         built = blueprints.cluster_builder().version(eks.KubernetesVersion.V1_33).fargate_profile(\"web\", {\"selectors\": [{\"namespace\": \"web\"}]}).build()\n\
         base = blueprints.EksBlueprint.builder().cluster_provider(mng)\n\
         base.build(app, \"a\")\n\
         base.clone(\"us-east-1\").cluster_provider(asg).build(app, \"b\")\n\
         blueprints.EksBlueprint.builder().cluster_provider(built).build(app, \"c\")\n",
        true,
    );
    assert_eq!(
        got,
        "stack a
  aDFA1A486 Custom::AWSCDK-EKS-Cluster {Config: {name: a, version: 1.33}}
  aNodegroupeksblueprintsmngngNodeGroup88FAC5F6 AWS::EKS::Nodegroup {ClusterName: {Ref: aDFA1A486}, NodegroupName: eks-blueprints-mng, InstanceTypes: [m5.large], ScalingConfig: {DesiredSize: 2, MaxSize: 5, MinSize: 2}}
stack b
  b285C9597 Custom::AWSCDK-EKS-Cluster {Config: {name: b, version: 1.33}}
  bworkersASGBE0C8060 AWS::AutoScaling::AutoScalingGroup {MinSize: 2, MaxSize: 3, Tags: [{Key: {Fn::Join: [, [kubernetes.io/cluster/, {Ref: b285C9597}]]}, PropagateAtLaunch: true, Value: owned}]}
stack c
  cD9631AF4 Custom::AWSCDK-EKS-Cluster {Config: {name: c, version: 1.33}}
  cfargateprofilewebC7D41C08 Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: cD9631AF4}, selectors: [{namespace: web}]}}
"
    );
}

#[test]
fn what_is_not_known_is_said_and_leaves_capacity_unknown() {
    let got = run(
        "const app = new cdk.App();\n\
         const extra = process.env.PROFILES as any;\n\
         blueprints.EksBlueprint.builder()\n\
           .clusterProvider(new blueprints.FargateClusterProvider({ version: eks.KubernetesVersion.V1_33, fargateProfiles: extra }))\n\
           .addOns(...(process.env.ADDONS as any))\n\
           .build(app, 'd');\n\
         blueprints.EksBlueprint.builder().clusterProvider(makeProvider()).build(app, 'e');\n",
        false,
    );
    assert_eq!(
        got,
        "stack d
  d67C70DEA Custom::AWSCDK-EKS-Cluster {Config: {name: d, version: 1.33}}
  dfargateprofiledefault202DD59C Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: d67C70DEA}, selectors: [{namespace: default}, {namespace: kube-system}]}}
  dCoreDnsComputeTypePatch7502A651 Custom::AWSCDK-EKS-KubernetesPatch {ResourceName: deployment/coredns, ResourceNamespace: kube-system, ApplyPatchJson: {\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"eks.amazonaws.com/compute-type\":\"fargate\"}}}}}, ClusterName: {Ref: d67C70DEA}, PatchType: strategic} <- [dKubectlReadyBarrierF6202A78]
  dfargateprofile184430342D9 Custom::AWSCDK-EKS-FargateProfile {Config: {clusterName: {Ref: d67C70DEA}, selectors: ?}} <- [dfargateprofiledefault202DD59C]
  dAddOnsUnreadDAA3BBEF AWS::AutoScaling::AutoScalingGroup 
gap: the EKS Blueprints Fargate profiles are not all known
gap: EKS Blueprints add-ons or teams are not all known
gap: the EKS Blueprints cluster provider is not known
"
    );
}
