CLUSTER_NAME = "observability"
GRAFANA = {
    "chart": "grafana",
    "repository": "https://grafana.github.io/helm-charts",
    "version": "10.5.15",
}
