//! `fplint placement --diff REV` against the real binary, over two commits
//! of a repository made here: workloads added, removed, resized, and moved
//! to a namespace no profile selects (capacity lost), in text, JSON and the
//! pull-request summary; the revision is read from git's objects, so the
//! work tree is left as it is.

use std::path::Path;
use std::process::{Command, Output};

fn run(cmd: &str, args: &[&str], cwd: &Path) -> Output {
    match Command::new(cmd)
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run {cmd}: {e}"),
    }
}

fn git(args: &[&str], cwd: &Path) {
    let o = run("git", args, cwd);
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn fplint(args: &[&str], cwd: &Path) -> Output {
    run(env!("CARGO_BIN_EXE_fplint"), args, cwd)
}

fn write(dir: &Path, name: &str, body: &str) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&p, body) {
        panic!("write {}: {e}", p.display());
    }
}

fn deployment(name: &str, namespace: &str, requests: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: {namespace}\nspec:\n  template:\n    spec:\n      containers:\n        - name: {name}\n          image: nginx:1.27\n          resources:\n            requests: {requests}\n"
    )
}

/// A cluster with profiles for `kube-system` and `apps`, three workloads
/// committed, then: `old` removed, `web` moved to `web` (no profile), `api`
/// given more, `jobs` added.
fn repository() -> tempfile::TempDir {
    let d = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let p = d.path();
    git(&["init", "-q"], p);
    write(
        p,
        "cluster.yaml",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: shop\n  region: eu-west-1\navailabilityZones: [eu-west-1a, eu-west-1b]\nfargateProfiles:\n  - name: system\n    selectors:\n      - namespace: kube-system\n  - name: apps\n    selectors:\n      - namespace: apps\n",
    );
    for n in ["web", "api", "old"] {
        write(
            p,
            &format!("k8s/{n}.yaml"),
            &deployment(n, "apps", "{cpu: 500m, memory: 1Gi}"),
        );
    }
    git(&["add", "-A"], p);
    git(&["commit", "-q", "-m", "one"], p);
    let _ = std::fs::remove_file(p.join("k8s/old.yaml"));
    write(
        p,
        "k8s/web.yaml",
        &deployment("web", "web", "{cpu: 500m, memory: 1Gi}"),
    );
    write(
        p,
        "k8s/api.yaml",
        &deployment("api", "apps", "{cpu: '1', memory: 3Gi}"),
    );
    write(
        p,
        "k8s/jobs.yaml",
        &deployment("jobs", "apps", "{cpu: 250m, memory: 256Mi}"),
    );
    d
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_change_is_compared_with_the_revision() {
    let d = repository();
    let o = fplint(
        &["placement", "--no-config", "--diff", "HEAD", "."],
        d.path(),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        out(&o),
        "\
placement at HEAD → work tree

cluster shop
  Deployment/api in apps: resized: 0.5 vCPU / 2 GB → 1 vCPU / 4 GB (k8s/api.yaml:2)
  Deployment/jobs in apps: added: profile apps, 0.25 vCPU / 0.5 GB (k8s/jobs.yaml:2)
  Deployment/old in apps: removed: was profile apps, 0.5 vCPU / 2 GB (k8s/old.yaml:2)
  Deployment/web in apps → web: capacity lost: profile apps → no profile matches, its pods stay Pending (k8s/web.yaml:2)
  before: 3 workloads, 1.5 vCPU / 6 GB per pod set
  after:  3 workloads, 1.25 vCPU / 4.5 GB per pod set
"
    );
    // From a folder below the repository's root, paths read as from there.
    let o = fplint(
        &["placement", "--no-config", "--diff", "HEAD", ".."],
        &d.path().join("k8s"),
    );
    assert_eq!(
        out(&o).lines().nth(3),
        Some("  Deployment/api in apps: resized: 0.5 vCPU / 2 GB → 1 vCPU / 4 GB (../k8s/api.yaml:2)")
    );
    // The work tree is as it was: the revision was read from objects.
    assert!(!d.path().join("k8s/old.yaml").exists());
    let status = run("git", &["status", "--porcelain"], d.path());
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        " M k8s/api.yaml\n D k8s/old.yaml\n M k8s/web.yaml\n?? k8s/jobs.yaml\n"
    );
}

#[test]
fn json_and_summary_carry_the_same_changes() {
    let d = repository();
    let o = fplint(
        &[
            "placement",
            "--no-config",
            "--diff",
            "HEAD",
            "--format",
            "json",
            ".",
        ],
        d.path(),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    let kinds: Vec<&str> = v["clusters"][0]["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["resized", "added", "removed", "capacity-lost"]);
    assert_eq!(v["clusters"][0]["before"]["billed_vcpu"], 1.5);
    assert_eq!(v["clusters"][0]["changes"][3]["after"]["profile"], "");
    let o = fplint(
        &[
            "placement",
            "--no-config",
            "--diff",
            "HEAD",
            "--format",
            "summary",
            ".",
        ],
        d.path(),
    );
    let md = out(&o);
    assert!(
        md.starts_with("## fplint placement: `HEAD` → this change\n\n### Cluster `shop`\n"),
        "{md}"
    );
    assert!(md.contains("| `Deployment/web` | apps → web | capacity lost: profile apps → no profile matches, its pods stay Pending (k8s/web.yaml:2) |\n"), "{md}");
}

#[test]
fn no_change_and_a_bad_revision() {
    let d = repository();
    git(&["add", "-A"], d.path());
    git(&["commit", "-q", "-m", "two"], d.path());
    let o = fplint(
        &["placement", "--no-config", "--diff", "HEAD", "."],
        d.path(),
    );
    assert_eq!(
        out(&o),
        "placement at HEAD → work tree\nno change in placement\n\nunchanged: shop\n"
    );
    let o = fplint(
        &["placement", "--no-config", "--diff", "no-such-rev", "."],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: git rev-parse no-such-rev: `no-such-rev` names no revision of this repository\n"
    );
    let o = fplint(
        &[
            "placement",
            "--no-config",
            "--diff",
            "HEAD~1",
            "--format",
            "mermaid",
            ".",
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(2));
}
