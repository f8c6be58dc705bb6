from aws_cdk import Stack
from aws_cdk import aws_eks as eks
from aws_cdk import aws_iam as iam
from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer
from constructs import Construct


class CfnProfileStack(Stack):
    """An L2 cluster whose application profile is an L1 resource: CDK does
    not order the chart after it, and the chart has no Fargate toleration."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        cluster = eks.Cluster(
            self,
            "Cluster",
            cluster_name="mixed-levels",
            version=eks.KubernetesVersion.V1_33,
            kubectl_layer=KubectlV33Layer(self, "Kubectl"),
            default_capacity=0,
            core_dns_compute_type=eks.CoreDnsComputeType.FARGATE,
        )

        cluster.add_fargate_profile("System", selectors=[eks.Selector(namespace="kube-system")])

        pod_role = iam.Role(
            self,
            "PodRole",
            assumed_by=iam.ServicePrincipal("eks-fargate-pods.amazonaws.com"),
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name("AmazonEKSFargatePodExecutionRolePolicy")],
        )

        eks.CfnFargateProfile(
            self,
            "AppsProfile",
            cluster_name=cluster.cluster_name,
            fargate_profile_name="apps",
            pod_execution_role_arn=pod_role.role_arn,
            subnets=[s.subnet_id for s in cluster.vpc.private_subnets],
            selectors=[eks.CfnFargateProfile.SelectorProperty(namespace="apps")],
        )

        cluster.add_helm_chart(
            "Podinfo",
            chart="podinfo",
            repository="https://stefanprodan.github.io/podinfo",
            version="6.14.1",
            namespace="apps",
            values={"resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}},
        )
