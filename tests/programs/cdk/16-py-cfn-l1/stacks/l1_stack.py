from aws_cdk import Stack
from aws_cdk import aws_eks as eks
from constructs import Construct

ROLE_ARN = "arn:aws:iam::111122223333:role/eks-cluster"
NODE_ROLE_ARN = "arn:aws:iam::111122223333:role/eks-nodes"
POD_ROLE_ARN = "arn:aws:iam::111122223333:role/eks-fargate-pods"
SUBNETS = ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]


class L1Stack(Stack):
    """L1 constructs: a managed node group beside two profiles created one
    after the other, and the CoreDNS add-on on the nodes."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        cluster = eks.CfnCluster(
            self,
            "Cluster",
            name="l1-mixed",
            version="1.33",
            role_arn=ROLE_ARN,
            resources_vpc_config=eks.CfnCluster.ResourcesVpcConfigProperty(subnet_ids=SUBNETS),
        )

        eks.CfnNodegroup(
            self,
            "Nodes",
            cluster_name=cluster.ref,
            nodegroup_name="general",
            node_role=NODE_ROLE_ARN,
            subnets=SUBNETS,
            scaling_config=eks.CfnNodegroup.ScalingConfigProperty(min_size=2, max_size=4, desired_size=2),
        )

        first = eks.CfnFargateProfile(
            self,
            "Batch",
            cluster_name=cluster.ref,
            fargate_profile_name="batch",
            pod_execution_role_arn=POD_ROLE_ARN,
            subnets=SUBNETS,
            selectors=[eks.CfnFargateProfile.SelectorProperty(namespace="batch")],
        )
        second = eks.CfnFargateProfile(
            self,
            "Reports",
            cluster_name=cluster.ref,
            fargate_profile_name="reports",
            pod_execution_role_arn=POD_ROLE_ARN,
            subnets=SUBNETS,
            selectors=[
                eks.CfnFargateProfile.SelectorProperty(
                    namespace="reports",
                    labels=[eks.CfnFargateProfile.LabelProperty(key="compute", value="fargate")],
                )
            ],
        )
        second.add_dependency(first)

        eks.CfnAddon(self, "CoreDns", cluster_name=cluster.ref, addon_name="coredns")
