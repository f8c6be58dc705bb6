from aws_cdk import Stack
from aws_cdk import aws_eks as eks
from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer
from constructs import Construct

PROFILES = [("System", "kube-system"), ("Apps", "apps"), ("Jobs", "jobs")]


class ServerlessStack(Stack):
    """No EC2 capacity and a profile for kube-system, but nothing patches
    CoreDNS's `compute-type: ec2` annotation."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        cluster = eks.Cluster(
            self,
            "Cluster",
            cluster_name="serverless",
            version=eks.KubernetesVersion.V1_33,
            kubectl_layer=KubectlV33Layer(self, "Kubectl"),
            default_capacity=0,
        )

        for profile_id, namespace in PROFILES:
            cluster.add_fargate_profile(
                profile_id,
                fargate_profile_name=namespace,
                selectors=[eks.Selector(namespace=namespace)],
            )
