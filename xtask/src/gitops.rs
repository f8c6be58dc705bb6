//! A synthetic GitOps repository for benchmarks: one Fargate-only cluster
//! and N Argo CD Applications, the layout of a platform team that deploys
//! every service and add-on through Argo CD.

use crate::{write, Stats};
use std::path::Path;

/// Remote charts the rules know, installed in turn.
const CHARTS: [(&str, &str, &str); 4] = [
    ("keda", "https://kedacore.github.io/charts", "2.14.0"),
    (
        "external-dns",
        "https://kubernetes-sigs.github.io/external-dns",
        "1.14.4",
    ),
    (
        "metrics-server",
        "https://kubernetes-sigs.github.io/metrics-server",
        "3.12.1",
    ),
    ("cert-manager", "https://charts.jetstack.io", "v1.14.5"),
];

/// Write `apps` Applications under `root/apps`: a third deploy remote
/// charts, a third directories of manifests under `root/services`, a third
/// a local chart under `root/charts/service`. Every tenth Application
/// sends its pods to a namespace no profile selects: one FP011 each.
pub fn generate_gitops(root: &Path, apps: u64) -> std::io::Result<Stats> {
    let mut stats = Stats::default();
    write(&mut stats, &root.join("cluster.yaml"), CLUSTER)?;
    write(&mut stats, &root.join("charts/service/Chart.yaml"), CHART)?;
    write(&mut stats, &root.join("charts/service/values.yaml"), VALUES)?;
    write(
        &mut stats,
        &root.join("charts/service/templates/_helpers.tpl"),
        HELPERS,
    )?;
    write(
        &mut stats,
        &root.join("charts/service/templates/deployment.yaml"),
        DEPLOYMENT_TEMPLATE,
    )?;
    write(
        &mut stats,
        &root.join("charts/service/templates/service.yaml"),
        SERVICE_TEMPLATE,
    )?;
    for i in 0..apps {
        let stray = i % 10 == 9;
        // `team-*` namespaces are selected by the profile's wildcard.
        let ns = if stray {
            format!("stray-{i:04}")
        } else {
            format!("team-{i:04}")
        };
        let name = format!("app-{i:04}");
        let source = match i % 3 {
            0 => {
                let (chart, repo, version) = CHARTS[(i / 3) as usize % CHARTS.len()];
                format!(
                    "  source:\n    repoURL: {repo}\n    chart: {chart}\n    targetRevision: {version}\n    helm:\n      releaseName: {name}\n      valuesObject:\n        replicaCount: 2\n"
                )
            }
            1 => {
                let dir = format!("services/{name}");
                write(
                    &mut stats,
                    &root.join(&dir).join("deployment.yaml"),
                    &manifest(&name),
                )?;
                format!(
                    "  source:\n    repoURL: https://git.example.com/platform/gitops.git\n    targetRevision: main\n    path: {dir}\n"
                )
            }
            _ => format!(
                "  source:\n    repoURL: https://git.example.com/platform/gitops.git\n    targetRevision: main\n    path: charts/service\n    helm:\n      releaseName: {name}\n      valuesObject:\n        image:\n          tag: \"1.{}.0\"\n",
                i % 40
            ),
        };
        let app = format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\n  labels:\n    team: team-{team}\nspec:\n  project: default\n{source}  destination:\n    server: https://kubernetes.default.svc\n    namespace: {ns}\n  syncPolicy:\n    automated:\n      prune: true\n      selfHeal: true\n    syncOptions:\n      - CreateNamespace=true\n",
            team = i % 25
        );
        write(
            &mut stats,
            &root.join("apps").join(format!("{name}.yaml")),
            &app,
        )?;
        if stray {
            stats.findings += 1;
        }
    }
    Ok(stats)
}

fn manifest(name: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  labels:\n    app: {name}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n        - name: app\n          image: registry.example.com/{name}:1.0.0\n          ports:\n            - containerPort: 8080\n          resources:\n            requests:\n              cpu: 250m\n              memory: 512Mi\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  selector:\n    app: {name}\n  ports:\n    - port: 80\n      targetPort: 8080\n"
    )
}

const CLUSTER: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: platform
  region: eu-west-1
availabilityZones: [eu-west-1a, eu-west-1b]
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
      - namespace: argocd
  - name: fp-teams
    selectors:
      - namespace: team-*
";

const CHART: &str = "apiVersion: v2
name: service
description: A web service of the platform
type: application
version: 0.3.0
appVersion: \"1.0.0\"
";

const VALUES: &str = "replicaCount: 2
image:
  repository: registry.example.com/service
  tag: \"\"
resources:
  requests:
    cpu: 250m
    memory: 512Mi
service:
  port: 80
";

const HELPERS: &str = r#"{{- define "service.fullname" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "service.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
"#;

const DEPLOYMENT_TEMPLATE: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "service.fullname" . }}
  labels:
    {{- include "service.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      {{- include "service.labels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "service.labels" . | nindent 8 }}
    spec:
      containers:
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          ports:
            - containerPort: 8080
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"#;

const SERVICE_TEMPLATE: &str = r#"apiVersion: v1
kind: Service
metadata:
  name: {{ include "service.fullname" . }}
spec:
  selector:
    {{- include "service.labels" . | nindent 4 }}
  ports:
    - port: {{ .Values.service.port }}
      targetPort: 8080
"#;
