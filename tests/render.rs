//! `fplint render`, the real binary: what fplint builds from a chart, a
//! kustomization or a declaration, printed as `helm template` prints it.

mod common;

use common::{repo, stdout, tmp, write};

use std::path::Path;
use std::process::{Command, Output};

fn fplint(args: &[&str], cwd: &Path) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output();
    match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const WEB: &str = "tests/fixtures/FP011/fire_tf_local_chart_namespace_not_selected";

#[test]
fn a_chart_renders_for_the_release_asked_for() {
    let d = tmp();
    write(d.path(), "prod.yaml", "replicas: 5\n");
    let chart = repo().join(WEB).join("charts/web");
    let chart = chart.to_string_lossy();
    let values = d.path().join("prod.yaml");
    let values = values.to_string_lossy();
    let o = fplint(
        &[
            "render",
            &chart,
            "--release",
            "shop",
            "-n",
            "apps",
            "-f",
            &values,
            "--set",
            "replicas=7",
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("render_chart_release", stdout(&o));
}

#[test]
fn a_chart_alone_renders_for_any_release_with_the_marker() {
    let o = fplint(&["render", &format!("{WEB}/charts/web")], repo());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("render_chart_any_release", stdout(&o));
}

#[test]
fn a_terraform_file_renders_each_release_of_a_local_chart() {
    let o = fplint(
        &[
            "render",
            "--no-config",
            "tests/fixtures/FP012/fire_tf_local_chart_release/main.tf",
        ],
        repo(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("render_terraform_release", stdout(&o));
}

#[test]
fn a_kustomization_renders_its_build() {
    let o = fplint(
        &[
            "render",
            "tests/fixtures/FP014/fire_kustomize_json6902_arm64/overlays/graviton",
        ],
        repo(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("render_kustomization", stdout(&o));
}

#[test]
fn a_document_that_cannot_be_rendered_says_why() {
    let d = tmp();
    write(
        d.path(),
        "app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    );
    write(
        d.path(),
        "app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  tag: {{ required \"image.tag is required\" .Values.image.tag }}\n",
    );
    write(
        d.path(),
        "app/templates/ds.yaml",
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  template:\n    spec:\n{{- if .Values.host }}\n      hostNetwork: true\n{{- end }}\n      containers:\n        - name: a\n          image: x\n",
    );
    let o = fplint(&["render", "app", "--release", "r"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("render_not_rendered", stdout(&o));
}

#[test]
fn a_path_with_nothing_to_render_is_an_error() {
    let d = tmp();
    write(
        d.path(),
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    );
    let o = fplint(&["render", "--no-config", "cm.yaml"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: cm.yaml: no chart, kustomization or release of a local chart here\n"
    );
    assert_eq!(stdout(&o), "");
    let o = fplint(
        &["render", "--no-config", "cm.yaml", "--set", "a=1"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("are for a chart folder"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn placement_names_the_chart_and_release_of_rendered_workloads() {
    let o = fplint(
        &["placement", "--no-config", "--format", "json", WEB],
        repo(),
    );
    let v: serde_json::Value = match serde_json::from_slice(&o.stdout) {
        Ok(v) => v,
        Err(e) => panic!("{e}: {}", stdout(&o)),
    };
    let row = &v[0]["rows"][0];
    assert_eq!(row["workload"], "Deployment/web", "{v:#}");
    assert_eq!(row["chart"], "web", "{v:#}");
    assert_eq!(row["release"], "web", "{v:#}");
    assert_eq!(row["namespace"], "storefront", "{v:#}");
    assert_eq!(
        row["file"],
        format!("{WEB}/charts/web/templates/deployment.yaml"),
        "{v:#}"
    );
    assert_eq!(row["line"], 2, "{v:#}");
}

#[test]
fn render_help_says_what_it_prints() {
    let o = fplint(&["render", "--help"], repo());
    assert_eq!(o.status.code(), Some(0));
    insta::assert_snapshot!("render_help", stdout(&o));
}

#[test]
fn the_language_server_renders_a_chart_again_when_a_template_changes() {
    let d = tmp();
    write(
        d.path(),
        "cluster.yaml",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: shop\n  region: eu-west-1\nfargateProfiles:\n  - name: fp-system\n    selectors:\n      - namespace: kube-system\n",
    );
    write(
        d.path(),
        "agent/Chart.yaml",
        "apiVersion: v2\nname: agent\nversion: 0.1.0\n",
    );
    let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  namespace: kube-system\nspec:\n  template:\n    spec:\n      containers:\n        - name: a\n          image: x\n";
    write(d.path(), "agent/templates/ds.yaml", ds);
    let linter = match fplint::Linter::discover(&[d.path()]) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    let mut ws = linter.open(&[d.path()]);
    let codes = |ws: &mut fplint::Workspace| -> Vec<String> {
        ws.check()
            .diagnostics()
            .iter()
            .map(|d| d.code.to_string())
            .filter(|c| c == "FP014")
            .collect()
    };
    assert_eq!(codes(&mut ws), ["FP014"]);
    let template = d.path().join("agent/templates/ds.yaml");
    write(
        d.path(),
        "agent/templates/ds.yaml",
        &ds.replace("kube-system", "{{ .Release.Namespace }}"),
    );
    ws.file_changed(&template);
    assert_eq!(codes(&mut ws), Vec::<String>::new());
}

/// `fplint check --select FP014` of a fixture case, as JSON.
fn fp014_json(case: &str) -> serde_json::Value {
    let o = fplint(
        &[
            "check",
            "--no-config",
            "--format",
            "json",
            "--select",
            "FP014",
            case,
        ],
        repo(),
    );
    match serde_json::from_slice(&o.stdout) {
        Ok(v) => v,
        Err(e) => panic!("{e}: {}", stdout(&o)),
    }
}

#[test]
fn a_rendered_finding_relates_the_release_and_the_values_line() {
    let case = "tests/fixtures/FP014/fire_tf_local_chart_host_network_value";
    let v = fp014_json(case);
    let d = &v["diagnostics"][0];
    assert_eq!(
        d["file"],
        format!("{case}/charts/proxy/templates/deployment.yaml"),
        "{v:#}"
    );
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(14), Some(20)),
        "{v:#}"
    );
    let related: Vec<(String, u64, String)> = d["related"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["file"].as_str().unwrap_or_default().to_string(),
                r["line"].as_u64().unwrap_or_default(),
                r["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let main = format!("{case}/main.tf");
    assert_eq!(
        related,
        [
            (
                main.clone(),
                14,
                "release `proxy` renders it here".to_string()
            ),
            (main, 20, "the value is set here".to_string()),
        ],
        "{v:#}"
    );
}

/// A finding's related spans: file, line and message.
fn related_of(case: &str) -> Vec<(String, u64, String)> {
    let v = fp014_json(case);
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(1), "{v:#}");
    v["diagnostics"][0]["related"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["file"].as_str().unwrap_or_default().to_string(),
                r["line"].as_u64().unwrap_or_default(),
                r["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_finding_relates_the_line_of_the_values_file_a_declaration_names() {
    let set = "the value is set here".to_string();
    for (case, declaration, line, values, at) in [
        (
            "tests/fixtures/FP014/fire_argocd_local_chart_values_file",
            "proxy-app.yaml",
            9,
            "charts/proxy/values-edge.yaml",
            1,
        ),
        (
            "tests/fixtures/FP014/fire_flux_values_files",
            "proxy-release.yaml",
            2,
            "charts/proxy/values-edge.yaml",
            1,
        ),
        (
            "tests/fixtures/FP014/fire_flux_values_from_configmap",
            "proxy-release.yaml",
            2,
            "proxy-values.yaml",
            8,
        ),
        (
            "tests/fixtures/FP014/fire_flux_values_from_secret_target_path",
            "proxy-release.yaml",
            2,
            "proxy-flags.yaml",
            7,
        ),
        (
            "tests/fixtures/FP014/fire_helmfile_values_file",
            "helmfile.yaml",
            2,
            "values/edge.yaml",
            2,
        ),
    ] {
        assert_eq!(
            related_of(case),
            [
                (
                    format!("{case}/{declaration}"),
                    line,
                    "release `proxy` renders it here".to_string()
                ),
                (format!("{case}/{values}"), at, set.clone()),
            ],
            "{case}"
        );
    }
}

#[test]
fn render_shows_the_value_a_values_file_sets_and_unknown_for_one_it_cannot_read() {
    let mut shown = String::new();
    for file in [
        "tests/fixtures/FP014/fire_argocd_local_chart_values_file/proxy-app.yaml",
        "tests/fixtures/FP014/quiet_argocd_missing_value_file/proxy-app.yaml",
        "tests/fixtures/FP014/fire_flux_values_from_configmap/proxy-release.yaml",
        "tests/fixtures/FP014/quiet_flux_values_from_elsewhere/proxy-release.yaml",
        "tests/fixtures/FP014/fire_helmfile_values_file/helmfile.yaml",
        "tests/fixtures/FP014/quiet_helmfile_gotmpl_values_file/helmfile.yaml",
    ] {
        let o = fplint(&["render", "--no-config", file], repo());
        assert_eq!(o.status.code(), Some(0), "{file}: {}", stderr(&o));
        let out = stdout(&o);
        let host = out
            .lines()
            .find(|l| l.trim_start().starts_with("hostNetwork:"))
            .unwrap_or_default()
            .trim()
            .to_string();
        let want = if file.contains("/fire_") {
            "hostNetwork: true"
        } else {
            "hostNetwork: __FPLINT_UNKNOWN__"
        };
        assert_eq!(host, want, "{file}:\n{out}");
        shown.push_str(&out);
    }
    insta::assert_snapshot!("render_values_files", shown);
}

#[test]
fn a_release_whose_version_is_unknown_shows_every_range_weighed() {
    let case = "tests/fixtures/FP002/fire_karpenter_version_unknown/main.tf";
    let o = fplint(&["render", case], repo());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let ranges = crate_ranges("karpenter");
    assert!(ranges > 1);
    assert!(
        out.contains(&format!(
            "# fplint: its version leaves {ranges} ranges of the chart knowledge of karpenter (0.5.0 to before 0.38.0, 1.0.0 to before 1.15.0): rules report only what all of them agree on\n"
        )),
        "{out}"
    );
    assert_eq!(
        out.matches("# fplint: from the chart knowledge of karpenter ")
            .count(),
        ranges,
        "{out}"
    );
}

fn crate_ranges(chart: &str) -> usize {
    fplint_rules::charts::known::charts()
        .iter()
        .filter(|c| c.name == chart)
        .count()
}

/// A template that renders only comments is valid YAML holding nothing:
/// printed as `helm template` prints it, with no note.
#[test]
fn a_comment_only_document_is_not_called_invalid() {
    let d = tmp();
    write(
        d.path(),
        "ch/Chart.yaml",
        "apiVersion: v2\nname: ch\nversion: 0.1.0\n",
    );
    write(d.path(), "ch/templates/a.yaml", "# switched off\n");
    write(d.path(), "ch/templates/b.yaml", "a: [\n");
    let o = fplint(&["render", "ch", "--release", "r", "-n", "d"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("---\n# Source: ch/templates/a.yaml\n# switched off\n---\n"),
        "{out}"
    );
    // What is not YAML still says so.
    assert!(
        out.contains("# Source: ch/templates/b.yaml\n# fplint: not read: not valid YAML\na: [\n"),
        "{out}"
    );
}
