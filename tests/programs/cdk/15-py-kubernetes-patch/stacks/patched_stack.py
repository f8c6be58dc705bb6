from aws_cdk import Stack
from aws_cdk import aws_eks as eks
from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer
from constructs import Construct


class PatchedStack(Stack):
    """No EC2 capacity; the stack patches CoreDNS onto Fargate itself, the
    way FargateCluster does."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        cluster = eks.Cluster(
            self,
            "Cluster",
            cluster_name="patched",
            version=eks.KubernetesVersion.V1_33,
            kubectl_layer=KubectlV33Layer(self, "Kubectl"),
            default_capacity=0,
        )

        system = cluster.add_fargate_profile(
            "System",
            fargate_profile_name="system",
            selectors=[eks.Selector(namespace="kube-system"), eks.Selector(namespace="default")],
        )

        patch = eks.KubernetesPatch(
            self,
            "CoreDnsOnFargate",
            cluster=cluster,
            resource_name="deployment/coredns",
            resource_namespace="kube-system",
            apply_patch={
                "spec": {"template": {"metadata": {"annotations": {"eks.amazonaws.com/compute-type": "fargate"}}}}
            },
            restore_patch={
                "spec": {"template": {"metadata": {"annotations": {"eks.amazonaws.com/compute-type": "ec2"}}}}
            },
        )
        patch.node.add_dependency(system)

        eks.KubernetesManifest(
            self,
            "Web",
            cluster=cluster,
            manifest=[
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "web", "namespace": "default"},
                    "spec": {
                        "replicas": 3,
                        "selector": {"matchLabels": {"app": "web"}},
                        "template": {
                            "metadata": {"labels": {"app": "web"}},
                            "spec": {
                                "containers": [
                                    {
                                        "name": "web",
                                        "image": "public.ecr.aws/nginx/nginx:1.27",
                                        "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}},
                                    }
                                ]
                            },
                        },
                    },
                }
            ],
        )
