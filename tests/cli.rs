//! The real binary against the CLI contract: exit codes, JSON shape, human
//! output, determinism across thread counts, config and rule docs.

mod common;

use common::{stdout, tmp, write};

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

const LABELLED: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
        labels:
          k8s-app: kube-dns
availabilityZones: [eu-west-1a, eu-west-1b]
";

const CLEAN: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
availabilityZones: [eu-west-1a, eu-west-1b]
";

const WARNING_ONLY: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
fargateProfiles:
  - name: fp-coredns
    selectors:
      - namespace: kube-system
        labels:
          eks.amazonaws.com/component: coredns
iam: {withOIDC: true}
";

fn json(o: &Output) -> serde_json::Value {
    match serde_json::from_slice(&o.stdout) {
        Ok(v) => v,
        Err(e) => panic!("stdout is not JSON ({e}): {}", stdout(o)),
    }
}

#[test]
fn exit_codes() {
    let d = tmp();
    write(d.path(), "clean.yaml", CLEAN);
    assert_eq!(
        fplint(&["check", "clean.yaml"], d.path()).status.code(),
        Some(0)
    );
    write(d.path(), "bad.yaml", LABELLED);
    assert_eq!(
        fplint(&["check", "bad.yaml"], d.path()).status.code(),
        Some(1)
    );
    assert_eq!(
        fplint(&["check", "does-not-exist"], d.path()).status.code(),
        Some(2)
    );
    assert_eq!(
        fplint(&["check", "--format", "nope", "."], d.path())
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        fplint(&["check", "--select", "XX9", "."], d.path())
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn fail_on_decides_what_fails() {
    let d = tmp();
    write(d.path(), "warn.yaml", WARNING_ONLY);
    assert_eq!(
        fplint(&["check", "warn.yaml"], d.path()).status.code(),
        Some(1)
    );
    assert_eq!(
        fplint(&["check", "--fail-on", "error", "warn.yaml"], d.path())
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn parse_error_exits_2_and_keeps_other_findings() {
    let d = tmp();
    write(
        d.path(),
        "a-broken.yaml",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: [x\n",
    );
    write(d.path(), "b-cluster.yaml", LABELLED);
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert_eq!(o.status.code(), Some(2));
    let v = json(&o);
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    let codes: Vec<(&str, &str, i64, i64)> = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default(),
                d["file"].as_str().unwrap_or_default(),
                d["line"].as_i64().unwrap_or_default(),
                d["column"].as_i64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            ("FP000", "a-broken.yaml", 5, 1),
            ("FP001", "b-cluster.yaml", 10, 9)
        ]
    );
}

#[test]
fn json_contract() {
    let d = tmp();
    write(d.path(), "infra/cluster.yaml", LABELLED);
    let o = fplint(&["check", "--format", "json", "infra"], d.path());
    let v = json(&o);
    assert_eq!(v["version"], 1);
    assert_eq!(v["files_scanned"], 1);
    let diag = &v["diagnostics"][0];
    let expected = serde_json::json!({
        "code": "FP001",
        "name": "coredns-selector-labels",
        "severity": "error",
        "message": "CoreDNS stays Pending: eksctl moves CoreDNS to Fargate only when a `kube-system` selector has no labels",
        "help": "add a selector `namespace: kube-system` with no labels (or remove the labels from this one); with eksctl 0.208.0 or later, the label `eks.amazonaws.com/component: coredns` also works",
        "file": "infra/cluster.yaml",
        "line": 10,
        "column": 9,
        "end_line": 11,
        "end_column": 28,
        "path": "fargateProfiles[0].selectors[0].labels",
        "related": [
            {"file": "infra/cluster.yaml", "line": 4, "column": 9,
             "message": "cluster `shop` declares no node groups, so CoreDNS can only run on Fargate"}
        ],
        "fix": {
            "title": "remove the labels from the `kube-system` selector",
            "applicability": "unsafe",
            "edits": [{"file": "infra/cluster.yaml", "line": 10, "column": 1,
                       "end_line": 12, "end_column": 1, "content": ""}]
        }
    });
    assert_eq!(diag, &expected);
}

#[test]
fn columns_count_characters() {
    let d = tmp();
    let text = LABELLED.replace(
        "k8s-app: kube-dns",
        "k8s-app: kube-dns\n          \"clé\": \"välue\"",
    );
    write(d.path(), "c.yaml", &text);
    let v = json(&fplint(&["check", "--format", "json", "c.yaml"], d.path()));
    assert_eq!(v["diagnostics"][0]["code"], "FP005");
    assert_eq!(v["diagnostics"][0]["column"], 9);
    assert_eq!(v["diagnostics"][0]["end_line"], 12);
    assert_eq!(v["diagnostics"][0]["end_column"], 25);
}

#[test]
fn human_output() {
    let d = tmp();
    write(d.path(), "cluster.yaml", LABELLED);
    let o = fplint(&["check", "--quiet", "cluster.yaml"], d.path());
    insta::assert_snapshot!("human_fp001", stdout(&o));
    let o = fplint(&["check", "cluster.yaml"], d.path());
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().rev().take(2).collect();
    assert!(
        lines[1].starts_with("Found 1 problem (1 error) in 1 file ("),
        "{out}"
    );
    assert_eq!(
        lines[0],
        "1 fixable with `--fix --unsafe-fixes` (unsafe: it changes what gets deployed)."
    );
    let o = fplint(
        &["check", "--color", "always", "--quiet", "cluster.yaml"],
        d.path(),
    );
    assert!(stdout(&o).contains("\u{1b}["), "colour was asked for");
    let o = fplint(&["check", "--quiet", "cluster.yaml"], d.path());
    assert!(
        !stdout(&o).contains("\u{1b}["),
        "no colour when not a terminal"
    );
}

#[test]
fn select_and_ignore() {
    let d = tmp();
    write(d.path(), "c.yaml", LABELLED);
    let o = fplint(&["check", "--ignore", "FP001", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(0));
    let o = fplint(&["check", "--select", "FP004", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(0));
    let o = fplint(&["check", "--select", "FP0", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn config_file_is_found_and_applied() {
    let d = tmp();
    // More profiles, before the cluster-only section CLEAN ends with.
    let (profiles, cluster_only) = CLEAN.split_at(CLEAN.find("availabilityZones").unwrap_or(0));
    let mut many = String::from(profiles);
    for i in 0..11 {
        many.push_str(&format!(
            "  - name: fp-{i}\n    selectors:\n      - namespace: ns-{i}\n"
        ));
    }
    many.push_str(cluster_only);
    write(d.path(), "infra/c.yaml", &many);
    assert_eq!(fplint(&["check", "infra"], d.path()).status.code(), Some(1));
    write(
        d.path(),
        "fplint.toml",
        "[quotas]\nprofiles-per-cluster = 12\n",
    );
    assert_eq!(fplint(&["check", "infra"], d.path()).status.code(), Some(0));
    assert_eq!(
        fplint(&["check", "--no-config", "infra"], d.path())
            .status
            .code(),
        Some(1)
    );
    // The closest config wins.
    write(
        d.path(),
        "infra/.fplint.toml",
        "[severity]\nFP004 = \"info\"\n",
    );
    let o = fplint(&["check", "--format", "json", "infra"], d.path());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json(&o)["diagnostics"][0]["severity"], "info");
}

#[test]
fn per_file_ignores_and_cluster_capacity() {
    let d = tmp();
    write(d.path(), "legacy/c.yaml", LABELLED);
    // Another region: the same config twice would be one cluster, one finding.
    write(
        d.path(),
        "new/c.yaml",
        &LABELLED.replace("eu-west-1", "us-east-1"),
    );
    write(
        d.path(),
        "fplint.toml",
        "[[per-file-ignores]]\npath = \"legacy/**\"\nignore = [\"FP001\"]\n",
    );
    let v = json(&fplint(&["check", "--format", "json", "."], d.path()));
    let files: Vec<&str> = v["diagnostics"]
        .as_array()
        .map(|a| a.iter().filter_map(|d| d["file"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(files, vec!["new/c.yaml"]);
    write(
        d.path(),
        "fplint.toml",
        "[clusters.shop]\nec2-capacity = true\n",
    );
    assert_eq!(fplint(&["check", "."], d.path()).status.code(), Some(0));
}

#[test]
fn unknown_config_key_is_an_error_with_a_frame() {
    let d = tmp();
    write(d.path(), "c.yaml", CLEAN);
    write(
        d.path(),
        "fplint.toml",
        "select = [\"FP\"]\nfial-on = \"error\"\n",
    );
    let o = fplint(&["check", "."], d.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown field `fial-on`"), "{err}");
    assert!(err.contains("fplint.toml:2:1"), "{err}");
}

#[test]
fn output_is_identical_across_thread_counts() {
    let examples = common::repo().join("examples");
    let run = |threads: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_fplint"))
            .args(["check", "--format", "json", "--no-config", "."])
            .current_dir(&examples)
            .env("RAYON_NUM_THREADS", threads)
            .output();
        match o {
            Ok(o) => o.stdout,
            Err(e) => panic!("{e}"),
        }
    };
    let one = run("1");
    assert!(!one.is_empty());
    assert_eq!(one, run("4"));
}

/// A file reached two ways in one run (a link to it, a linked folder, its
/// own path) is read once and shown under one path, the same in every run
/// and on any number of threads: the path without a link, else the first
/// in path order. It was the path of whichever thread read the file first.
#[cfg(unix)]
#[test]
fn a_file_reached_two_ways_is_shown_under_one_path() {
    let d = tmp();
    write(d.path(), "real/c.yaml", LABELLED);
    for (target, name) in [("real/c.yaml", "alias.yaml"), ("real", "linked")] {
        if let Err(e) = std::os::unix::fs::symlink(target, d.path().join(name)) {
            panic!("symlink: {e}");
        }
    }
    fn files(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(serde_json::Value::String(f)) = m.get("file") {
                    out.insert(f.clone());
                }
                m.values().for_each(|v| files(v, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| files(v, out)),
            _ => {}
        }
    }
    let absolute = d.path().join("real/c.yaml").to_string_lossy().into_owned();
    let cases: [(&[&str], &str); 5] = [
        // The walk lists the link to the file and the file.
        (&["."], "real/c.yaml"),
        // Two walks: through the linked folder and the real one.
        (&["linked", "real"], "real/c.yaml"),
        (
            &["real/c.yaml", "linked/c.yaml", "alias.yaml"],
            "real/c.yaml",
        ),
        // A relative path before an absolute one.
        (&[&absolute, "./real/c.yaml", "linked"], "real/c.yaml"),
        // Every path goes through a link: the first in path order.
        (&["linked/c.yaml", "alias.yaml", "linked"], "alias.yaml"),
    ];
    for (paths, shown) in cases {
        let concise = format!(
            "{shown}:10:9: FP001 [error] CoreDNS stays Pending: eksctl moves CoreDNS to Fargate only when a `kube-system` selector has no labels\n"
        );
        let mut first: Option<Vec<u8>> = None;
        for threads in ["1", "4"] {
            for run in 0..30 {
                let format = if run % 2 == 0 { "json" } else { "concise" };
                let o = Command::new(env!("CARGO_BIN_EXE_fplint"))
                    .args(["check", "--no-config", "--format", format])
                    .args(paths)
                    .current_dir(d.path())
                    .env("NO_COLOR", "1")
                    .env("RAYON_NUM_THREADS", threads)
                    .output();
                let o = match o {
                    Ok(o) => o,
                    Err(e) => panic!("cannot run fplint: {e}"),
                };
                assert_eq!(o.status.code(), Some(1), "{paths:?}: {}", stdout(&o));
                if format == "concise" {
                    assert_eq!(stdout(&o), concise, "{paths:?} on {threads} threads");
                    continue;
                }
                // The finding, its related place and its fix all name it so.
                let mut shown_as = std::collections::BTreeSet::new();
                files(&json(&o), &mut shown_as);
                assert_eq!(
                    shown_as.into_iter().collect::<Vec<_>>(),
                    [shown],
                    "{paths:?} on {threads} threads"
                );
                match &first {
                    Some(f) => assert_eq!(*f, o.stdout, "{paths:?} on {threads} threads"),
                    None => first = Some(o.stdout),
                }
            }
        }
    }
}

/// A Terraform module walked through a linked folder and through its own:
/// its files are shown under their own folder, in every run.
#[cfg(unix)]
#[test]
fn a_module_reached_through_a_linked_folder_is_shown_under_its_own() {
    let d = tmp();
    write(
        d.path(),
        "real/main.tf",
        r#"resource "aws_eks_cluster" "this" {
  name     = "catalog"
  role_arn = "arn:aws:iam::111122223333:role/eks-cluster"
  vpc_config {
    subnet_ids = ["subnet-0c1", "subnet-0c2"]
  }
}

resource "aws_eks_fargate_profile" "apps" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "apps"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/eks-fargate"
  subnet_ids             = ["subnet-0c1", "subnet-0c2"]
  selector {
    namespace = "apps"
  }
}
"#,
    );
    if let Err(e) = std::os::unix::fs::symlink("real", d.path().join("linked")) {
        panic!("symlink: {e}");
    }
    let mut first: Option<String> = None;
    for threads in ["1", "4"] {
        for _ in 0..20 {
            let o = Command::new(env!("CARGO_BIN_EXE_fplint"))
                .args([
                    "check",
                    "--no-config",
                    "--format",
                    "concise",
                    "linked",
                    "real",
                ])
                .current_dir(d.path())
                .env("NO_COLOR", "1")
                .env("RAYON_NUM_THREADS", threads)
                .output();
            let out = match o {
                Ok(o) => stdout(&o),
                Err(e) => panic!("cannot run fplint: {e}"),
            };
            assert!(out.contains(": FP005 [error] "), "{out}");
            for line in out.lines() {
                assert!(line.starts_with("real/main.tf:1:1: FP005 "), "{line}");
            }
            match &first {
                Some(f) => assert_eq!(*f, out, "on {threads} threads"),
                None => first = Some(out),
            }
        }
    }
}

/// `fplint rule CODE` shows each rule's sources, for every registered rule.
#[test]
fn rule_output_shows_sources() {
    let d = tmp();
    for rule in fplint_rules::REGISTRY {
        let o = fplint(&["rule", rule.code], d.path());
        assert_eq!(o.status.code(), Some(0), "{}", rule.code);
        let text = stdout(&o);
        let at = text
            .find("\n## Sources\n")
            .unwrap_or_else(|| panic!("{}: `fplint rule` shows no Sources", rule.code));
        assert!(
            text[at..].lines().skip(2).any(|l| l.starts_with("- ")),
            "{}: the Sources section is empty",
            rule.code
        );
    }
}

/// `[tools] karpenter-version` stands in for a version the files do not say.
#[test]
fn tools_karpenter_version_decides_fp013() {
    let pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: shared\n      startupTaints:\n        - key: ebs.csi.aws.com/agent-not-ready\n          effect: NoExecute\n";
    for (version, fires) in [("1.4.2", true), ("1.5.0", false)] {
        let d = tmp();
        write(d.path(), "nodepool.yaml", pool);
        write(
            d.path(),
            "fplint.toml",
            &format!("[tools]\nkarpenter-version = \"{version}\"\n"),
        );
        let o = fplint(&["check", "--format", "concise", "."], d.path());
        let text = stdout(&o);
        if fires {
            assert_eq!(o.status.code(), Some(1), "{text}");
            assert_eq!(
                text.trim_end(),
                "nodepool.yaml:13:9: FP013 [warning] Karpenter 1.4.2 copies the startup taints of NodePool `general` onto each node at registration and can put back `ebs.csi.aws.com/agent-not-ready` after its daemon removed it, so the node stays unschedulable (fixed in 1.5.0 for the built-in AMI families)"
            );
        } else {
            assert!(!text.contains("FP013"), "{text}");
        }
    }
    let d = tmp();
    write(
        d.path(),
        "fplint.toml",
        "[tools]\nkarpenter-version = \"latest\"\n",
    );
    let o = fplint(&["check", "."], d.path());
    assert_eq!(o.status.code(), Some(2));
}

/// `[tools] eksctl-version` settles FP001's version-dependent case.
#[test]
fn tools_eksctl_version_decides_fp001() {
    let cluster = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: shop\n  region: eu-west-1\nfargateProfiles:\n  - name: fp-coredns\n    selectors:\n      - namespace: kube-system\n        labels:\n          eks.amazonaws.com/component: coredns\niam:\n  withOIDC: true\n";
    let run = |tools: &str| {
        let d = tmp();
        write(d.path(), "cluster.yaml", cluster);
        write(d.path(), "fplint.toml", tools);
        let o = fplint(&["check", "--format", "concise", "."], d.path());
        (o.status.code(), stdout(&o).trim_end().to_string())
    };
    assert_eq!(
        run("[tools]\neksctl-version = \"0.207.0\"\n"),
        (Some(1), "cluster.yaml:11:11: FP001 [error] eksctl 0.207.0 (from `[tools] eksctl-version`) ignores a labelled `kube-system` selector and leaves CoreDNS Pending: only 0.208.0 and later accept `eks.amazonaws.com/component: coredns`".to_string())
    );
    assert_eq!(
        run("[tools]\neksctl-version = \"v0.208.0\"\n"),
        (Some(0), String::new())
    );
    let (code, text) = run("");
    assert_eq!(code, Some(1));
    assert!(
        text.contains("FP001 [warning] CoreDNS moves to Fargate only with eksctl 0.208.0"),
        "{text}"
    );
}

#[test]
fn rule_docs_and_list() {
    let d = tmp();
    let o = fplint(&["rule", "FP001"], d.path());
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("# FP001 coredns-selector-labels"));
    assert_eq!(fplint(&["rule", "FP999"], d.path()).status.code(), Some(2));
    let o = fplint(&["rules", "--format", "json"], d.path());
    let v = json(&o);
    let first = &v[0];
    assert_eq!(first["code"], "FP000");
    assert_eq!(first["name"], "parse-error");
    assert_eq!(first["default_severity"], "error");
    let text = stdout(&fplint(&["rules"], d.path()));
    assert!(
        text.lines()
            .any(|l| l.starts_with("FP001  coredns-selector-labels")),
        "{text}"
    );
}

#[test]
fn unrecognised_files_are_skipped() {
    let d = tmp();
    write(d.path(), "values.yaml", "replicaCount: [1\n");
    write(d.path(), "package.json", "{\"name\": \"x\"}");
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json(&o)["diagnostics"], serde_json::json!([]));
}

#[test]
fn github_and_concise_formats() {
    let d = tmp();
    write(d.path(), "infra/c.yaml", LABELLED);
    let o = fplint(&["check", "--format", "github", "infra"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let line = stdout(&o);
    assert!(
        line.starts_with("::error file=infra/c.yaml,line=10,col=9,endLine=11,endColumn=28,title=FP001 coredns-selector-labels::CoreDNS stays Pending"),
        "{line}"
    );
    assert!(line.contains("%0Ahelp: add a selector"), "{line}");
    assert_eq!(line.lines().count(), 1);
    let o = fplint(&["check", "--format", "concise", "infra"], d.path());
    assert_eq!(
        stdout(&o),
        "infra/c.yaml:10:9: FP001 [error] CoreDNS stays Pending: eksctl moves CoreDNS to Fargate only when a `kube-system` selector has no labels\n"
    );
}

#[test]
fn sarif_format_and_output_file() {
    let d = tmp();
    write(
        d.path(),
        "c.yaml",
        &LABELLED.replace(
            "k8s-app: kube-dns",
            "k8s-app: kube-dns\n          \"clé\": \"𝒳\"",
        ),
    );
    let o = fplint(
        &[
            "check",
            "--format",
            "sarif",
            "--output",
            "out.sarif",
            "c.yaml",
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let text = std::fs::read_to_string(d.path().join("out.sarif")).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["columnKind"], "utf16CodeUnits");
    let rules = run["tool"]["driver"]["rules"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(rules, fplint_rules::REGISTRY.len());
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "FP005");
    assert_eq!(r["level"], "error");
    let region = &r["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 10);
    assert_eq!(region["startColumn"], 9);
    assert_eq!(region["endLine"], 12);
    assert_eq!(region["endLine"], 12);
    // `"clé": "𝒳"` is 10 characters but 11 UTF-16 code units.
    assert_eq!(region["endColumn"], 11 + 11);
    assert_eq!(
        run["tool"]["driver"]["rules"][1]["helpUri"],
        "https://github.com/fplint/fplint/blob/main/rules/FP001.md"
    );
}

#[test]
fn inline_suppressions() {
    let d = tmp();
    let suppressed = LABELLED.replace(
        "        labels:\n",
        "        # fplint: ignore[FP001]\n        labels:\n",
    );
    write(d.path(), "c.yaml", &suppressed);
    let o = fplint(&["check", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(0));
    write(
        d.path(),
        "c.yaml",
        &CLEAN.replace(
            "kind: ClusterConfig",
            "kind: ClusterConfig # fplint: ignore-file[FP004]",
        ),
    );
    let o = fplint(&["check", "--format", "concise", "c.yaml"], d.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "an unused suppression is info only"
    );
    assert_eq!(
        stdout(&o),
        "c.yaml:2:43: FP100 [info] suppression of `FP004` suppresses nothing\n"
    );
    let o = fplint(&["check", "--fail-on", "info", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let o = fplint(
        &[
            "check", "--select", "FP001", "--format", "concise", "c.yaml",
        ],
        d.path(),
    );
    assert_eq!(
        stdout(&o),
        "",
        "FP004 did not run, so its suppression is not unused"
    );
}

#[test]
fn placement_table() {
    let fixed = common::repo().join("examples/eksctl/fixed");
    let o = fplint(&["placement", "--no-config", "."], &fixed);
    assert_eq!(o.status.code(), Some(0));
    insta::assert_snapshot!("placement_fixed_example", stdout(&o));
    let o = fplint(
        &["placement", "--no-config", "--format", "json", "."],
        &fixed,
    );
    let v = json(&o);
    let rows = &v[0]["rows"];
    assert_eq!(v[0]["cluster"], "shop-prod");
    assert_eq!(rows[0]["workload"], "Deployment/storefront");
    assert_eq!(rows[0]["chosen"], "fp-apps");
    // 0.75 vCPU + 1.25 GiB + 256 MiB overhead is billed as 1 vCPU / 2 GB.
    assert_eq!(rows[0]["billed_vcpu"], 1.0);
    assert_eq!(rows[0]["billed_memory_gb"], 2.0);
    // The init container (1 vCPU, 7 GiB) outweighs the regular one: 1 vCPU / 8 GB.
    assert_eq!(rows[1]["workload"], "CronJob/nightly-report");
    assert_eq!(rows[1]["billed_vcpu"], 1.0);
    assert_eq!(rows[1]["billed_memory_gb"], 8.0);
}

/// Every output format on the examples, snapshotted.
#[test]
fn every_format_on_the_examples() {
    let examples = common::repo().join("examples");
    for format in ["json", "sarif", "github", "concise"] {
        let o = fplint(
            &["check", "--no-config", "--format", format, "."],
            &examples,
        );
        assert_eq!(o.status.code(), Some(1), "{format}");
        insta::assert_snapshot!(format!("examples_{format}"), stdout(&o));
    }
}

/// A file's text is released once modelled and read again for its findings.
/// If it changed in between, its findings cannot be placed: the run says so
/// and exits 2 instead of pointing at the wrong lines.
#[test]
fn a_file_changed_during_the_run_is_an_error_not_a_wrong_line() {
    use fplint::lint::{self, ConfigChoice, Options};
    let dir = tmp();
    let original = match std::fs::read_to_string(
        common::repo().join("examples/eksctl/problem/cluster.yaml"),
    ) {
        Ok(t) => t,
        Err(e) => panic!("example: {e}"),
    };
    write(dir.path(), "cluster.yaml", &original);
    let opts = Options {
        config: ConfigChoice::Disabled,
        ..Options::default()
    };
    let cfg = fplint::config::Config::default();
    let paths = vec![dir.path().to_path_buf()];

    // Unchanged: the findings' lines come from the text read back.
    let same = lint::check_loaded(lint::load(&paths, &opts, &cfg), &opts, &cfg);
    assert!(same.errors.is_empty(), "{:?}", same.errors);
    assert!(common::concise(&same).contains("cluster.yaml:"));

    let loaded = lint::load(&paths, &opts, &cfg);
    write(dir.path(), "cluster.yaml", &format!("# edited\n{original}"));
    let outcome = lint::check_loaded(loaded, &opts, &cfg);
    assert!(!outcome.diagnostics.is_empty());
    assert_eq!(outcome.exit_code(), 2);
    assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
    assert!(
        outcome.errors[0].ends_with("cluster.yaml: changed while fplint was reading it; run again"),
        "{:?}",
        outcome.errors
    );
    // Every renderer still works without the text.
    let human = fplint::render::human::render(
        &outcome,
        &fplint::render::human::HumanOptions {
            color: false,
            width: 100,
            ascii: false,
        },
    );
    assert!(human.contains("FP001"));
    assert!(fplint::render::json::render(&outcome).contains("\"FP001\""));
    assert!(fplint::render::sarif::render(&outcome).contains("FP001"));
}

#[test]
fn fix_diff_and_show_fixes() {
    let d = tmp();
    write(d.path(), "infra/cluster.yaml", LABELLED);
    let original = std::fs::read_to_string(d.path().join("infra/cluster.yaml")).unwrap();
    // Only an unsafe fix exists: --fix alone changes nothing.
    let o = fplint(
        &["check", "--fix", "--format", "concise", "infra"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(d.path().join("infra/cluster.yaml")).unwrap(),
        original
    );
    // --diff prints the change, writes nothing and exits 1.
    let o = fplint(&["check", "--diff", "--unsafe-fixes", "infra"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let diff = stdout(&o);
    assert!(
        diff.starts_with("--- a/infra/cluster.yaml\n+++ b/infra/cluster.yaml\n"),
        "{diff}"
    );
    assert!(diff.contains("\n-        labels:\n"), "{diff}");
    assert_eq!(
        std::fs::read_to_string(d.path().join("infra/cluster.yaml")).unwrap(),
        original
    );
    // --fix --unsafe-fixes writes it, lists it, and reports what remains.
    let o = fplint(
        &[
            "check",
            "--fix",
            "--unsafe-fixes",
            "--show-fixes",
            "--format",
            "concise",
            "infra",
        ],
        d.path(),
    );
    let out = stdout(&o);
    assert!(
        out.starts_with("Fixed 1 finding:\n- infra/cluster.yaml:\n    FP001 remove the labels from the `kube-system` selector (line 10, unsafe)\n"),
        "{out}"
    );
    assert!(!out.contains("FP001 [error]"), "{out}");
    assert_eq!(o.status.code(), Some(0), "{out}");
    let fixed = std::fs::read_to_string(d.path().join("infra/cluster.yaml")).unwrap();
    assert!(!fixed.contains("labels:"), "{fixed}");
    // Nothing left: a second --diff is empty and exits 0.
    let o = fplint(&["check", "--diff", "--unsafe-fixes", "infra"], d.path());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "");
}

#[test]
fn placement_shows_a_cluster_once_with_every_file_describing_it() {
    let case = common::repo().join("tests/fixtures/FP011/quiet_cluster_and_profile_file");
    let o = fplint(&["placement", "--no-config", "."], &case);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert_eq!(text.matches("cluster shop").count(), 1, "{text}");
    assert!(
        text.starts_with(
            "cluster shop (Fargate only), cluster.yaml:4 (also fargate-profile.yaml:5)\n"
        ),
        "{text}"
    );
    assert!(text.contains("Deployment/web"), "{text}");
    assert!(text.contains("fp-apps"), "{text}");
}

#[test]
fn placement_lists_one_row_per_overlay_and_workload() {
    let case = common::repo().join("tests/fixtures/FP011/fire_kustomize_labels_without_templates");
    let o = fplint(&["placement", "--no-config", "."], &case);
    insta::assert_snapshot!("placement_kustomize_overlays", stdout(&o));
    let o = fplint(
        &["placement", "--no-config", "--format", "json", "."],
        &case,
    );
    let v = json(&o);
    let rows = v[0]["rows"].as_array().cloned().unwrap_or_default();
    let overlays: Vec<&str> = rows.iter().filter_map(|r| r["overlay"].as_str()).collect();
    assert_eq!(
        overlays,
        [
            "overlays/common",
            "overlays/metadata-only",
            "overlays/templates"
        ]
    );
    assert_eq!(rows[1]["chosen"], "");
    assert_eq!(rows[2]["chosen"], "fp-apps");
    assert_eq!(rows[2]["file"], "base/deployment.yaml");
}

#[test]
fn a_finding_on_a_built_workload_relates_the_overlay() {
    let case = common::repo().join("tests/fixtures/FP011/fire_kustomize_overlay_namespace");
    let o = fplint(&["check", "--no-config", "--format", "json", "."], &case);
    let v = json(&o);
    let d = &v["diagnostics"][0];
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(1));
    assert_eq!(d["file"], "overlays/dev/kustomization.yaml");
    assert_eq!(d["line"], 6);
    let r = &d["related"][1];
    assert_eq!(r["file"], "overlays/dev/kustomization.yaml");
    assert_eq!(r["line"], 2);
    assert_eq!(r["message"], "overlay `overlays/dev` builds it here");
}

/// A kustomize project with its cluster: one base, a `prod` overlay in a
/// namespace a profile selects and a `dev` overlay in one none does, and a
/// manifest no kustomization includes.
fn kustomize_repo(dir: &Path) {
    write(dir, "fplint.toml", "");
    write(
        dir,
        "cluster.yaml",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: shop, region: eu-west-1}\niam:\n  withOIDC: true\nfargateProfiles:\n  - name: apps\n    selectors:\n      - namespace: shop\n",
    );
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          resources:\n            requests: {cpu: 250m, memory: 512Mi}\n";
    write(dir, "base/deployment.yaml", deployment);
    write(
        dir,
        "base/kustomization.yaml",
        "resources: [deployment.yaml]\n",
    );
    for (env, ns) in [("prod", "shop"), ("dev", "dev")] {
        write(
            dir,
            &format!("overlays/{env}/kustomization.yaml"),
            &format!("resources: [../../base]\nnamespace: {ns}\n"),
        );
    }
    write(
        dir,
        "other/web.yaml",
        &deployment.replace("  name: web\n", "  name: other\n  namespace: shop\n"),
    );
}

#[test]
fn a_named_base_file_is_checked_as_its_overlays_build_it() {
    let dir = tmp();
    kustomize_repo(dir.path());
    // Named alone, the base has no namespace; its overlays give it one.
    let o = fplint(
        &["check", "--format", "concise", "base/deployment.yaml"],
        dir.path(),
    );
    assert_eq!(
        stdout(&o),
        "overlays/dev/kustomization.yaml:2:12: FP011 [error] Deployment `web` (overlay `overlays/dev`) in namespace `dev` matches no Fargate profile of cluster `shop` (cluster.yaml), which has no nodes: its pods stay Pending\n"
    );
    assert_eq!(o.status.code(), Some(1));
    // Paths are shown as given, from a folder below the project.
    let o = fplint(
        &["check", "--format", "concise", "../base/deployment.yaml"],
        &dir.path().join("overlays"),
    );
    assert!(
        stdout(&o).starts_with(
            "dev/kustomization.yaml:2:12: FP011 [error] Deployment `web` (overlay `dev`)"
        ),
        "{}",
        stdout(&o)
    );
    // A file no kustomization includes builds no overlay.
    let o = fplint(&["check", "--format", "json", "other/web.yaml"], dir.path());
    let out = stdout(&o);
    assert!(!out.contains("overlay"), "{out}");
    assert_eq!(o.status.code(), Some(0), "{out}");
}

#[test]
fn a_kustomization_without_extension_is_built_when_walked_and_when_named() {
    let dir = tmp();
    kustomize_repo(dir.path());
    // The dev overlay's kustomization spelt `Kustomization`, as kustomize allows.
    let dev = dir.path().join("overlays/dev");
    std::fs::rename(dev.join("kustomization.yaml"), dev.join("Kustomization")).unwrap();
    let want = "overlays/dev/Kustomization:2:12: FP011 [error] Deployment `web` (overlay `overlays/dev`) in namespace `dev` matches no Fargate profile of cluster `shop` (cluster.yaml), which has no nodes: its pods stay Pending\n";
    // The walk reports the folder, which holds no other file: before, only
    // folders with files to lint were looked in, and this build was missed.
    let o = fplint(&["check", "--format", "concise", "."], dir.path());
    assert_eq!(
        stdout(&o),
        format!("cluster.yaml:3:18: FP005 [error] no Fargate selector of cluster `shop` matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up\n{want}")
    );
    // A named file's folders are still looked in.
    let o = fplint(
        &["check", "--format", "concise", "base/deployment.yaml"],
        dir.path(),
    );
    assert_eq!(stdout(&o), want);
}

/// FP002's help writes the ordering in the format of the release: a CDK
/// HelmChart in a synthesized template is ordered with `DependsOn`.
#[test]
fn fp002_help_orders_a_cloudformation_release_with_depends_on() {
    let d = tmp();
    let template = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/FP002/fire_cdk_helm_chart_keda_not_ordered.json"),
    )
    .unwrap_or_default();
    write(d.path(), "cdk.out/Shop.template.json", &template);
    let o = fplint(
        &[
            "check",
            "--no-config",
            "--format",
            "json",
            "--select",
            "FP002",
            ".",
        ],
        d.path(),
    );
    let v = json(&o);
    let helps: Vec<&str> = v["diagnostics"]
        .as_array()
        .map(|a| a.iter().filter_map(|d| d["help"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(helps.len(), 1, "{v}");
    assert!(helps[0].contains("add `DependsOn: "), "{}", helps[0]);
    assert!(!helps[0].contains("depends_on ="), "{}", helps[0]);
}
