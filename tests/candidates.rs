//! Workloads no cluster claims, weighed on every cluster of the run: one
//! finding naming the candidates when they all agree, else the note that
//! the workloads have no cluster. The real binary, on four look-alike roots.

mod common;

use common::{stdout, tmp, write};
use std::path::Path;
use std::process::Command;

const WEB: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: web
          image: nginx:1.27
";

/// Four roots `dev`, `qa`, `uat`, `prod` with the same profiles (`extra`
/// namespaces added to `prod`'s), and a folder of manifests none claims.
fn four_roots(dir: &Path, prod_extra: &str) {
    for env in ["dev", "qa", "uat", "prod"] {
        let extra = if env == "prod" { prod_extra } else { "" };
        write(
            dir,
            &format!("{env}/main.tf"),
            &format!(
                "module \"eks\" {{
  source       = \"terraform-aws-modules/eks/aws\"
  version      = \"~> 20.0\"
  cluster_name = \"{env}\"

  fargate_profiles = {{
    system = {{
      selectors = [{{ namespace = \"kube-system\" }}, {{ namespace = \"apps\" }}{extra}]
    }}
  }}
}}
"
            ),
        );
    }
    write(dir, "k8s/web.yaml", WEB);
}

/// `fplint check . --select FP011`, in the `format` given (`concise`
/// shows findings alone, `human` the notes too).
fn check(dir: &Path, format: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", ".", "--format", format, "--select", "FP011"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output();
    match out {
        Ok(o) => stdout(&o) + &String::from_utf8_lossy(&o.stderr),
        Err(e) => panic!("cannot run fplint: {e}"),
    }
}

#[test]
fn a_finding_every_candidate_cluster_gives_is_reported_once_naming_them() {
    let d = tmp();
    four_roots(d.path(), "");
    let out = check(d.path(), "concise");
    assert!(
        out.contains(
            "k8s/web.yaml:5:14: FP011 [error] Deployment `web` in namespace `shop` matches no Fargate profile of the cluster, which has no nodes: its pods stay Pending (on every candidate cluster: `dev`, `prod`, `qa`, `uat`)\n"
        ),
        "{out}"
    );
    assert_eq!(out.matches("FP011").count(), 1, "{out}");
    let full = check(d.path(), "human");
    assert!(!full.contains("no cluster"), "{full}");
}

#[test]
fn candidate_clusters_that_disagree_keep_the_note() {
    let d = tmp();
    four_roots(d.path(), ", { namespace = \"shop\" }");
    let out = check(d.path(), "human");
    assert!(!out.contains("FP011"), "{out}");
    assert!(
        out.contains("1 workload has no cluster, so no workload check ran on them"),
        "{out}"
    );
}
