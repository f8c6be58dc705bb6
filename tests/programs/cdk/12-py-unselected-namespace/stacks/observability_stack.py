from aws_cdk import Stack
from aws_cdk import aws_eks as eks
from aws_cdk.lambda_layer_kubectl_v33 import KubectlV33Layer
from constructs import Construct

from .config import CLUSTER_NAME, GRAFANA


class ObservabilityStack(Stack):
    """Grafana installed into a namespace that the entry point names and no
    Fargate profile selects."""

    def __init__(self, scope: Construct, construct_id: str, *, monitoring_namespace: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        cluster = eks.FargateCluster(
            self,
            "Cluster",
            cluster_name=CLUSTER_NAME,
            version=eks.KubernetesVersion.V1_33,
            kubectl_layer=KubectlV33Layer(self, "Kubectl"),
        )

        cluster.add_fargate_profile(
            "Apps",
            fargate_profile_name="apps",
            selectors=[eks.Selector(namespace="apps", labels={"team": "web"})],
        )

        cluster.add_service_account("GrafanaAccount", name="grafana", namespace=monitoring_namespace)

        cluster.add_helm_chart(
            "Grafana",
            chart=GRAFANA["chart"],
            repository=GRAFANA["repository"],
            version=GRAFANA["version"],
            namespace=monitoring_namespace,
            values={
                "serviceAccount": {"create": False, "name": "grafana"},
                "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}},
            },
        )
