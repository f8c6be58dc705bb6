export const CLUSTER_NAME = 'observability';
export const GRAFANA_CHART = 'grafana';
export const GRAFANA_REPOSITORY = 'https://grafana.github.io/helm-charts';
export const GRAFANA_VERSION = '10.5.15';
