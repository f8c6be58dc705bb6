from aws_cdk import Stack
from aws_cdk import aws_eks as eks
from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer
from constructs import Construct


class PlatformStack(Stack):
    """A Fargate-only cluster: the default profile serves `default` and
    `kube-system`, one more profile serves the applications."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        cluster = eks.FargateCluster(
            self,
            "Cluster",
            version=eks.KubernetesVersion.V1_33,
            kubectl_layer=KubectlV33Layer(self, "Kubectl"),
        )

        cluster.add_fargate_profile(
            "Apps",
            selectors=[eks.Selector(namespace="apps")],
        )

        cluster.add_helm_chart(
            "Podinfo",
            chart="podinfo",
            repository="https://stefanprodan.github.io/podinfo",
            version="6.14.1",
            namespace="apps",
            values={
                "replicaCount": 2,
                "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}},
            },
        )

        cluster.add_manifest(
            "Api",
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "api", "namespace": "apps"},
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "api"}},
                    "template": {
                        "metadata": {"labels": {"app": "api"}},
                        "spec": {
                            "containers": [
                                {
                                    "name": "api",
                                    "image": "public.ecr.aws/nginx/nginx:1.27",
                                    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
                                }
                            ]
                        },
                    },
                },
            },
        )
