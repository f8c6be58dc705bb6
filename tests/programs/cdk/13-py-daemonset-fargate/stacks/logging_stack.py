from aws_cdk import Stack
from aws_cdk import aws_eks as eks
from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer
from constructs import Construct

SHIPPER_LABELS = {"app": "log-shipper"}


class LoggingStack(Stack):
    """A Fargate-only cluster given a DaemonSet manifest and a DaemonSet chart."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        cluster = eks.FargateCluster(
            self,
            "Cluster",
            cluster_name="logging",
            version=eks.KubernetesVersion.V1_33,
            kubectl_layer=KubectlV33Layer(self, "Kubectl"),
        )

        cluster.add_manifest(
            "LogShipper",
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "metadata": {"name": "log-shipper", "namespace": "default"},
                "spec": {
                    "selector": {"matchLabels": SHIPPER_LABELS},
                    "template": {
                        "metadata": {"labels": SHIPPER_LABELS},
                        "spec": {
                            "containers": [
                                {
                                    "name": "shipper",
                                    "image": "public.ecr.aws/aws-observability/aws-for-fluent-bit:stable",
                                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                                }
                            ]
                        },
                    },
                },
            },
        )

        eks.HelmChart(
            self,
            "FluentBit",
            cluster=cluster,
            chart="fluent-bit",
            repository="https://fluent.github.io/helm-charts",
            version="0.58.1",
            namespace="kube-system",
            release="fluent-bit",
        )
