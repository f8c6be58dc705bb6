//! Helm releases and manifests declared for a controller or a deployment
//! tool: Argo CD `Application`s, Flux `HelmRelease`s, helmfiles and CDK's
//! chart and manifest resources, through the real binary; and malformed
//! declarations, which give FP000 or nothing, never a crash.

mod common;

use common::{stdout, tmp, write};
use fplint::lint::{lint_bytes, Options};
use proptest::prelude::*;
use std::path::Path;
use std::process::{Command, Output};

fn fplint(args: &[&str], cwd: &Path) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("RAYON_NUM_THREADS")
        .output();
    match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    }
}

fn check(cwd: &Path) -> String {
    stdout(&fplint(
        &["check", "--no-config", "--format", "concise", "."],
        cwd,
    ))
}

/// A Fargate-only cluster whose profiles select `kube-system` and `argocd`.
const CLUSTER: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
availabilityZones: [eu-west-1a, eu-west-1b]
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
      - namespace: argocd
";

fn app(source: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: keda
  namespace: argocd
spec:
  project: default
  source:
{source}  destination:
    server: https://kubernetes.default.svc
    namespace: keda
"
    )
}

const REMOTE_KEDA: &str = "    repoURL: https://kedacore.github.io/charts
    chart: keda
    targetRevision: 2.14.0
";

#[test]
fn argocd_remote_chart_is_judged_and_local_chart_is_not() {
    let dir = tmp();
    std::fs::create_dir_all(dir.path().join(".git")).ok();
    write(dir.path(), "clusters/shop.yaml", CLUSTER);
    write(dir.path(), "apps/keda.yaml", &app(REMOTE_KEDA));
    assert_eq!(
        check(dir.path()),
        "apps/keda.yaml:14:16: FP011 [error] Helm release `keda` installs into namespace `keda`, which no Fargate profile of cluster `shop` (clusters/shop.yaml) selects, and the cluster has no nodes: its pods stay Pending\n"
    );
    // The same chart from a folder of this repository: its templates decide.
    write(
        dir.path(),
        "charts/keda/Chart.yaml",
        "apiVersion: v2\nname: keda\nversion: 0.1.0\n",
    );
    write(
        dir.path(),
        "apps/keda.yaml",
        &app("    repoURL: https://github.com/example/platform.git\n    path: charts/keda\n"),
    );
    assert_eq!(check(dir.path()), "");
    // A Git path that is not in this repository is not judged either.
    write(
        dir.path(),
        "apps/keda.yaml",
        &app("    repoURL: https://github.com/example/other.git\n    path: charts/absent\n"),
    );
    assert_eq!(check(dir.path()), "");
}

#[test]
fn argocd_release_shows_in_placement() {
    let dir = tmp();
    write(dir.path(), "cluster.yaml", CLUSTER);
    write(dir.path(), "keda-app.yaml", &app(REMOTE_KEDA));
    let out = stdout(&fplint(&["placement", "--no-config", "."], dir.path()));
    assert!(
        out.contains("HelmRelease/keda keda"),
        "placement lists the release:\n{out}"
    );
}

#[test]
fn cdk_chart_without_dependency_on_its_profile_fires_fp002() {
    let dir = tmp();
    let template = r#"{"Resources": {
  "Cluster": {"Type": "Custom::AWSCDK-EKS-Cluster", "Properties": {"Config": {"name": "shop"}}},
  "Profile": {"Type": "Custom::AWSCDK-EKS-FargateProfile", "Properties": {"Config": {
    "clusterName": {"Ref": "Cluster"}, "fargateProfileName": "keda",
    "selectors": [{"namespace": "keda"}, {"namespace": "kube-system"}]}}},
  "Keda": {"Type": "Custom::AWSCDK-EKS-HelmChart", "Properties": {
    "ClusterName": {"Ref": "Cluster"}, "Chart": "keda", "Release": "keda",
    "Namespace": "keda", "Repository": "https://kedacore.github.io/charts",
    "Values": "{\"operator\":{\"replicaCount\":1}}"}}
}}
"#;
    write(dir.path(), "cdk.out/Shop.template.json", template);
    assert_eq!(
        check(dir.path()),
        "cdk.out/Shop.template.json:6:3: FP002 [warning] Helm release `keda` is not ordered after Fargate profile `keda` and its pods (operator, metricsServer, webhooks) do not tolerate the Fargate taint `eks.amazonaws.com/compute-type=fargate:NoSchedule`\n"
    );
    let ordered = template.replace(
        r#""Keda": {"Type": "Custom::AWSCDK-EKS-HelmChart", "#,
        r#""Keda": {"Type": "Custom::AWSCDK-EKS-HelmChart", "DependsOn": ["Profile"], "#,
    );
    write(dir.path(), "cdk.out/Shop.template.json", &ordered);
    assert_eq!(check(dir.path()), "");
}

#[test]
fn flux_and_helmfile_releases_meet_the_cluster_of_their_folder() {
    let dir = tmp();
    write(dir.path(), "cluster.yaml", CLUSTER);
    write(
        dir.path(),
        "helmfile.yaml",
        "repositories:\n  - name: kedacore\n    url: https://kedacore.github.io/charts\nreleases:\n  - name: keda\n    namespace: keda\n    chart: kedacore/keda\n",
    );
    write(
        dir.path(),
        "flux/cert-manager.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2beta2\nkind: HelmRelease\nmetadata:\n  name: cert-manager\n  namespace: cert-manager\nspec:\n  chart:\n    spec:\n      chart: cert-manager\n      sourceRef: {kind: HelmRepository, name: jetstack}\n",
    );
    assert_eq!(
        check(dir.path()),
        "flux/cert-manager.yaml:5:14: FP011 [error] Helm release `cert-manager` installs into namespace `cert-manager`, which no Fargate profile of cluster `shop` (cluster.yaml) selects, and the cluster has no nodes: its pods stay Pending\n\
         helmfile.yaml:6:16: FP011 [error] Helm release `keda` installs into namespace `keda`, which no Fargate profile of cluster `shop` (cluster.yaml) selects, and the cluster has no nodes: its pods stay Pending\n"
    );
}

/// Values of the wrong type, templated strings and text that is not JSON.
fn wrong() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "3",
        "true",
        "null",
        "[a, 1]",
        "{a: {b: [1]}}",
        "'{{ .Values.x }}'",
        "'not json ['",
        "'[{\"kind\": 3}]'",
        "'[{\"kind\": \"Deployment\", \"spec\": 3}]'",
        "''",
        "'$values/x.yaml'",
    ])
}

/// Lints a folder: the first file a finding's span runs out of, if any.
fn span_outside_its_file(dir: &std::path::Path) -> Option<String> {
    let out = common::lint(&[dir.to_path_buf()]);
    out.diagnostics().iter().find_map(|diag| {
        let f = out.sources.get(diag.span.file)?;
        let r = diag.span.start as usize..diag.span.end as usize;
        (r.start > r.end || r.end > f.text.len()).then(|| f.path.to_string())
    })
}

/// Every span of every finding lies inside the text, on char boundaries.
fn spans_inside(text: &str, out: &fplint::lint::Report) -> bool {
    out.diagnostics().iter().all(|d| {
        let r = d.span.start as usize..d.span.end as usize;
        r.start <= r.end && r.end <= text.len() && text.is_char_boundary(r.start)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn malformed_argocd_applications_never_crash(slot in 0usize..9, w in wrong()) {
        let keys = ["chart", "repoURL", "targetRevision", "releaseName", "values",
                    "valuesObject", "parameters", "valueFiles", "namespace"];
        let key = keys[slot];
        let doc = format!("{CLUSTER}---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: a}}\nspec:\n  source:\n    chart: keda\n    helm:\n      {key}: {w}\n  destination:\n    namespace: {w}\n");
        let out = lint_bytes("app.yaml", doc.as_bytes(), &Options::default());
        prop_assert!(spans_inside(&doc, &out));
        let spec = format!("{CLUSTER}---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: a}}\nspec: {w}\n");
        let out = lint_bytes("app.yaml", spec.as_bytes(), &Options::default());
        prop_assert!(spans_inside(&spec, &out));
    }

    #[test]
    fn malformed_argocd_applicationsets_never_crash(slot in 0usize..8, w in wrong()) {
        let keys = ["goTemplate", "elements", "directories", "path", "exclude",
                    "selector", "template", "namespace"];
        let key = keys[slot];
        let doc = format!("{CLUSTER}---\napiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {{name: a}}\nspec:\n  {key}: {w}\n  generators:\n    - list:\n        {key}: {w}\n        elements: [{{ns: {w}}}, {w}]\n    - git:\n        directories: [{{path: {w}, {key}: {w}}}, {w}]\n  template:\n    metadata: {{name: '{{{{ns}}}}'}}\n    spec:\n      source: {{chart: keda, {key}: {w}}}\n      destination: {{namespace: '{{{{ns}}}}-{{{{ path[0] }}}}', {key}: {w}}}\n");
        let out = lint_bytes("set.yaml", doc.as_bytes(), &Options::default());
        prop_assert!(spans_inside(&doc, &out));
        let spec = format!("{CLUSTER}---\napiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {{name: a}}\nspec: {w}\n");
        let out = lint_bytes("set.yaml", spec.as_bytes(), &Options::default());
        prop_assert!(spans_inside(&spec, &out));
    }

    #[test]
    fn malformed_flux_helmreleases_never_crash(slot in 0usize..6, w in wrong()) {
        let keys = ["chart", "version", "sourceRef", "values", "valuesFrom", "targetNamespace"];
        let key = keys[slot];
        let doc = format!("{CLUSTER}---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: a, namespace: keda}}\nspec:\n  {key}: {w}\n  chart:\n    spec:\n      chart: keda\n      {key}: {w}\n  values: {w}\n");
        let out = lint_bytes("hr.yaml", doc.as_bytes(), &Options::default());
        prop_assert!(spans_inside(&doc, &out));
    }

    #[test]
    fn malformed_helmfiles_never_crash(slot in 0usize..7, w in wrong()) {
        let keys = ["name", "namespace", "chart", "values", "set", "installed", "needs"];
        let key = keys[slot];
        let doc = format!("repositories: {w}\nreleases:\n  - name: keda\n    chart: kedacore/keda\n    {key}: {w}\n  - {w}\n");
        let out = lint_bytes("helmfile.yaml", doc.as_bytes(), &Options::default());
        prop_assert!(spans_inside(&doc, &out));
    }

    #[test]
    fn malformed_cdk_resources_never_crash(slot in 0usize..6, w in wrong()) {
        let keys = ["Chart", "Values", "Namespace", "Release", "Manifest", "ClusterName"];
        let key = keys[slot];
        let doc = format!("Resources:\n  C:\n    Type: Custom::AWSCDK-EKS-Cluster\n    Properties: {{Config: {{name: shop}}}}\n  H:\n    Type: Custom::AWSCDK-EKS-HelmChart\n    Properties:\n      ClusterName: {{Ref: C}}\n      Chart: keda\n      {key}: {w}\n  M:\n    Type: Custom::AWSCDK-EKS-KubernetesResource\n    Properties:\n      ClusterName: {{Ref: C}}\n      Manifest: {{'Fn::Join': ['', ['[', {w}, ']']]}}\n      {key}: {w}\n");
        let out = lint_bytes("t.template.yaml", doc.as_bytes(), &Options::default());
        prop_assert!(spans_inside(&doc, &out));
    }

    /// A Flux `chartRef` and the source object it names holding anything:
    /// the chart is read or unknown, never a crash.
    #[test]
    fn malformed_flux_chart_refs_never_crash(slot in 0usize..6, w in wrong()) {
        let keys = ["url", "ref", "tag", "semver", "chart", "version"];
        let key = keys[slot];
        let d = tmp();
        write(d.path(), "cluster.yaml", CLUSTER);
        write(d.path(), "hr.yaml", &format!("apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\nmetadata: {{name: k, namespace: flux-system}}\nspec:\n  url: oci://r.example.com/charts/keda\n  {key}: {w}\n  ref: {{tag: {w}, {key}: {w}}}\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata: {{name: h, namespace: flux-system}}\nspec: {{chart: keda, {key}: {w}, sourceRef: {w}}}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: a, namespace: flux-system}}\nspec:\n  targetNamespace: keda\n  chartRef: {{kind: OCIRepository, name: k, {key}: {w}}}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: b, namespace: flux-system}}\nspec:\n  targetNamespace: keda\n  chartRef: {{kind: HelmChart, name: {w}}}\n  postRenderers: {w}\n"));
        let bad = span_outside_its_file(d.path());
        prop_assert!(bad.is_none(), "{:?}", bad);
    }

    /// An umbrella chart whose dependencies and values hold anything: its
    /// remote dependencies are releases or unknown, never a crash.
    #[test]
    fn malformed_umbrella_dependencies_never_crash(slot in 0usize..5, w in wrong()) {
        let keys = ["name", "version", "condition", "alias", "tags"];
        let key = keys[slot];
        let d = tmp();
        write(d.path(), "cluster.yaml", CLUSTER);
        write(d.path(), "charts/p/Chart.yaml", &format!("apiVersion: v2\nname: p\nversion: 0.1.0\ndependencies:\n  - name: keda\n    version: 2.16.1\n    repository: https://kedacore.github.io/charts\n    {key}: {w}\n  - {w}\n"));
        write(d.path(), "charts/p/values.yaml", &format!("keda: {w}\nglobal: {w}\n"));
        write(d.path(), "app.yaml", "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: p}\nspec:\n  source: {repoURL: https://git.example.com/r.git, path: charts/p}\n  destination: {namespace: keda}\n");
        let bad = span_outside_its_file(d.path());
        prop_assert!(bad.is_none(), "{:?}", bad);
    }

    /// A values file, ConfigMap or Secret holding anything: the values are
    /// read or unknown, never a crash, and every finding's span lies in
    /// its own file.
    #[test]
    fn malformed_values_files_and_objects_never_crash(kind in 0usize..3, w in wrong()) {
        let d = tmp();
        write(d.path(), "cluster.yaml", CLUSTER);
        write(d.path(), "values.yaml", &format!("vpcId: {w}\nregion: {w}\n"));
        write(d.path(), "other.yaml", &format!("{w}\n"));
        write(d.path(), "cm.yaml", &format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: v, namespace: kube-system}}\ndata:\n  values.yaml: {w}\n---\napiVersion: v1\nkind: Secret\nmetadata: {{name: s, namespace: kube-system}}\ndata: {{values.yaml: {w}, flag: {w}}}\n"));
        let (name, doc) = match kind {
            0 => ("app.yaml", format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: lbc}}\nspec:\n  sources:\n    - chart: aws-load-balancer-controller\n      repoURL: https://aws.github.io/eks-charts\n      helm:\n        ignoreMissingValueFiles: {w}\n        valueFiles: [$v/values.yaml, $v/other.yaml, {w}]\n    - {{repoURL: https://example.com/r.git, ref: v}}\n  destination: {{namespace: kube-system}}\n")),
            1 => ("hr.yaml", format!("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: lbc, namespace: kube-system}}\nspec:\n  chart:\n    spec:\n      chart: aws-load-balancer-controller\n      sourceRef: {{kind: HelmRepository, name: eks}}\n  valuesFrom:\n    - {{kind: ConfigMap, name: v}}\n    - {{kind: Secret, name: s, valuesKey: flag, targetPath: {w}}}\n    - {{kind: Secret, name: s}}\n    - {w}\n")),
            _ => ("helmfile.yaml", format!("repositories: [{{name: eks, url: https://aws.github.io/eks-charts}}]\nreleases:\n  - name: lbc\n    namespace: kube-system\n    chart: eks/aws-load-balancer-controller\n    values: [values.yaml, other.yaml, {w}]\n")),
        };
        write(d.path(), name, &doc);
        let bad = span_outside_its_file(d.path());
        prop_assert!(bad.is_none(), "{:?}", bad);
    }
}

/// pre-commit names the Application alone: the manifests of the folder it
/// applies are read for their workloads, so the namespace it gives them is
/// judged, and a finding inside those manifests (not named) is not shown.
#[test]
fn a_named_application_reads_the_folder_it_applies() {
    let d = tmp();
    let root = d.path();
    let _ = std::fs::create_dir(root.join(".git"));
    write(root, "cluster.yaml", CLUSTER);
    write(
        root,
        "apps/web.yaml",
        &app("    repoURL: https://git.example.com/shop.git\n    path: services/web\n"),
    );
    write(
        root,
        "services/web/deployment.yaml",
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: web:1
",
    );
    write(
        root,
        "services/web/broken.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec: [1, 2\n",
    );
    let named = stdout(&fplint(
        &["check", "--format", "concise", "apps/web.yaml"],
        root,
    ));
    assert_eq!(
        named,
        "apps/web.yaml:13:16: FP011 [error] Deployment `web` in namespace `keda` matches no Fargate profile of cluster `shop` (cluster.yaml), which has no nodes: its pods stay Pending\n"
    );
    let all = check(root);
    assert!(all.contains("apps/web.yaml:13:16: FP011"), "{all}");
    assert!(all.contains("services/web/broken.yaml:6:1: FP000"), "{all}");
}

/// The same for an `ApplicationSet` whose git directory generator selects
/// folders of the repository: each folder's workloads are placed by the
/// Application made for it.
#[test]
fn a_named_applicationset_reads_the_folders_it_applies() {
    let d = tmp();
    let root = d.path();
    let _ = std::fs::create_dir(root.join(".git"));
    write(root, "cluster.yaml", CLUSTER);
    write(
        root,
        "apps/services.yaml",
        "apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: services
  namespace: argocd
spec:
  generators:
    - git:
        repoURL: https://git.example.com/shop.git
        revision: HEAD
        directories:
          - path: services/*
  template:
    metadata:
      name: '{{path.basename}}'
    spec:
      project: default
      source:
        repoURL: https://git.example.com/shop.git
        targetRevision: HEAD
        path: '{{path}}'
      destination:
        server: https://kubernetes.default.svc
        namespace: '{{path.basename}}'
",
    );
    for svc in ["web", "argocd"] {
        write(
            root,
            &format!("services/{svc}/deployment.yaml"),
            &format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {svc}\nspec:\n  template:\n    spec:\n      containers:\n        - name: {svc}\n          image: {svc}:1\n"
            ),
        );
    }
    let named = stdout(&fplint(
        &["check", "--format", "concise", "apps/services.yaml"],
        root,
    ));
    assert_eq!(
        named,
        "apps/services.yaml:24:20: FP011 [error] Deployment `web` in namespace `web` matches no Fargate profile of cluster `shop` (cluster.yaml), which has no nodes: its pods stay Pending\n"
    );
    // The whole run also judges the manifests themselves, which the named
    // run reads without reporting.
    let all = check(root);
    assert!(all.starts_with(&named), "{all}");
    assert!(
        all.contains("services/argocd/deployment.yaml:9:11: FP015"),
        "{all}"
    );
    assert!(!named.contains("FP015"), "{named}");
}
