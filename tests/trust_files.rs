//! Issue 38, items 11 to 13, against the real binary: files that are not
//! what their name says. A shell script with a YAML name is never a parse
//! error; the manifests its heredocs write are linted when the script sets
//! every variable they expand, and skipped with a note otherwise.

use std::path::Path;
use std::process::{Command, Output};

fn fplint(args: &[&str], cwd: &Path) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    match serde_json::from_slice(&o.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}):\n{}", stdout(o)),
    }
}

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let _ = std::fs::create_dir_all(d.path().join(".git"));
    for (name, text) in files {
        if let Err(e) = std::fs::write(d.path().join(name), text) {
            panic!("write {name}: {e}");
        }
    }
    d
}

const CLUSTER: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: edge
  region: eu-west-1
iam:
  withOIDC: true
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
  - name: fp-web
    selectors:
      - namespace: web
";

fn proxy_script(set: &str) -> String {
    format!(
        "#!/bin/bash\nset -e\n{set}cat <<EOF | kubectl apply -f -\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: proxy\n  namespace: ${{NAMESPACE}}\nspec:\n  template:\n    metadata:\n      labels: {{app: proxy}}\n    spec:\n      hostNetwork: true\n      containers:\n        - name: envoy\n          image: envoy\n          resources:\n            requests: {{cpu: 250m, memory: 512Mi}}\nEOF\n"
    )
}

#[test]
fn a_heredoc_manifest_is_linted_where_it_is_written() {
    let d = project(&[
        ("cluster.yaml", CLUSTER),
        ("deploy.yaml", &proxy_script("NAMESPACE=web\n")),
    ]);
    let o = fplint(&["check", "--format", "concise", "."], d.path());
    let out = stdout(&o);
    // `hostNetwork: true` is line 15 of the script, column 20 of it.
    assert!(out.contains("deploy.yaml:15:20: FP014"), "{out}");
    assert!(!out.contains("FP000"), "{out}");
}

#[test]
fn a_heredoc_with_a_variable_set_nowhere_is_skipped_with_a_note() {
    let d = project(&[
        ("cluster.yaml", CLUSTER),
        ("deploy.yaml", &proxy_script("")),
        (
            "wait.yaml",
            "#!/bin/sh\nkubectl wait --for=condition=Ready pod -l app=proxy\n",
        ),
    ]);
    let o = fplint(&["check", "--format", "json", "."], d.path());
    let v = json(&o);
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(0), "{v}");
    let skipped = v["skipped"].as_array().cloned().unwrap_or_default();
    // The walked script without a manifest is someone else's: not named.
    assert_eq!(skipped.len(), 1, "{v}");
    assert_eq!(skipped[0]["file"], "deploy.yaml");
    let reason = skipped[0]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("`$NAMESPACE`"), "{reason}");
    assert_eq!(o.status.code(), Some(0));
    let human = stdout(&fplint(&["check", "deploy.yaml", "wait.yaml"], d.path()));
    assert!(
        human.contains("skipped: deploy.yaml:3: a shell script"),
        "{human}"
    );
    assert!(
        human.contains("skipped: wait.yaml: a shell script, not YAML: no heredoc"),
        "{human}"
    );
}

#[test]
fn a_script_that_is_not_yaml_is_never_a_parse_error() {
    let d = project(&[(
        "ns.yaml",
        "cat <<EOF | kubectl apply -f -\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\nEOF\n",
    )]);
    let o = fplint(&["check", "--format", "concise", "ns.yaml"], d.path());
    assert!(!stdout(&o).contains("FP000"), "{}", stdout(&o));
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn a_heredoc_that_kubectl_deletes_is_not_read() {
    let d = project(&[
        ("cluster.yaml", CLUSTER),
        (
            "teardown.yaml",
            &proxy_script("NAMESPACE=web\n").replace("kubectl apply", "kubectl delete"),
        ),
    ]);
    let o = fplint(&["check", "--format", "json", "."], d.path());
    let v = json(&o);
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(0), "{v}");
    assert_eq!(v["skipped"].as_array().map_or(0, Vec::len), 0, "{v}");
}
