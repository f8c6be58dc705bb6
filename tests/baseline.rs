//! `--write-baseline` and `--baseline` against the real binary: a baseline
//! round-trips, its findings are recognised after lines move and the file is
//! reformatted, identical findings are counted, a new finding is reported,
//! an entry that matches nothing is FP100, and SARIF says each result's
//! baseline state.

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

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
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

fn read(dir: &Path, name: &str) -> String {
    match std::fs::read_to_string(dir.join(name)) {
        Ok(t) => t,
        Err(e) => panic!("read {name}: {e}"),
    }
}

/// A Fargate-only eksctl cluster whose one profile selects `apps`, and two
/// Deployments without requests in it: two FP015 warnings, and FP005.
const CLUSTER: &str = "\
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
availabilityZones: [eu-west-1a, eu-west-1b]
fargateProfiles:
  - name: apps
    selectors:
      - namespace: apps
";

fn deployment(name: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: apps\nspec:\n  template:\n    spec:\n      containers:\n        - name: {name}\n          image: nginx:1.27\n"
    )
}

fn project() -> tempfile::TempDir {
    let d = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let _ = std::fs::create_dir_all(d.path().join(".git"));
    write(d.path(), "cluster.yaml", CLUSTER);
    write(
        d.path(),
        "apps/web.yaml",
        &format!("{}---\n{}", deployment("web"), deployment("api")),
    );
    d
}

fn concise(o: &Output) -> String {
    text(&o.stdout)
}

#[test]
fn a_baseline_round_trips_and_hides_what_it_holds() {
    let d = project();
    let before = fplint(
        &["check", "--no-config", "--format", "concise", "."],
        d.path(),
    );
    assert_eq!(before.status.code(), Some(1), "{}", concise(&before));
    let w = fplint(
        &[
            "check",
            "--no-config",
            "--write-baseline",
            "fplint-baseline.json",
        ],
        d.path(),
    );
    assert_eq!(w.status.code(), Some(0), "{}", text(&w.stderr));
    assert_eq!(
        text(&w.stderr),
        "Wrote 3 findings to the baseline fplint-baseline.json.\n"
    );
    assert_eq!(text(&w.stdout), "");
    let first = read(d.path(), "fplint-baseline.json");
    // Written again, it is the same file: stable and sorted.
    fplint(
        &[
            "check",
            "--no-config",
            "--write-baseline",
            "fplint-baseline.json",
        ],
        d.path(),
    );
    assert_eq!(read(d.path(), "fplint-baseline.json"), first);
    let v: serde_json::Value = match serde_json::from_str(&first) {
        Ok(v) => v,
        Err(e) => panic!("{e}\n{first}"),
    };
    let rows: Vec<(String, String)> = v["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["file"].as_str().unwrap_or_default().to_string(),
                e["code"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("apps/web.yaml".to_string(), "FP015".to_string()),
            ("apps/web.yaml".to_string(), "FP015".to_string()),
            ("cluster.yaml".to_string(), "FP005".to_string()),
        ]
    );
    let o = fplint(
        &["check", "--no-config", "--baseline", "fplint-baseline.json"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stdout).lines().next(),
        Some("3 findings hidden by the baseline `fplint-baseline.json`.")
    );
    let j = fplint(
        &[
            "check",
            "--no-config",
            "--format",
            "json",
            "--baseline",
            "fplint-baseline.json",
        ],
        d.path(),
    );
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap_or_default();
    assert_eq!(v["baseline"]["hidden"], 3);
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(0));
}

#[test]
fn moved_lines_and_reformatting_keep_a_finding_hidden() {
    let d = project();
    fplint(
        &["check", "--no-config", "--write-baseline", "b.json"],
        d.path(),
    );
    // Comments above, another indentation, quotes, a document moved up.
    let api = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n    name: api\n    namespace: 'apps'\nspec:\n    template:\n        spec:\n            containers:\n            -   name: api\n                image: \"nginx:1.27\"\n";
    let moved = format!("# web and api\n\n{api}---\n{}", deployment("web"));
    write(d.path(), "apps/web.yaml", &moved);
    write(
        d.path(),
        "cluster.yaml",
        &format!("# the cluster\n{CLUSTER}"),
    );
    let o = fplint(
        &[
            "check",
            "--no-config",
            "--format",
            "concise",
            "--baseline",
            "b.json",
        ],
        d.path(),
    );
    assert_eq!(concise(&o), "");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_new_finding_is_reported_and_a_gone_one_is_fp100() {
    let d = project();
    fplint(
        &["check", "--no-config", "--write-baseline", "b.json"],
        d.path(),
    );
    // `api` gets requests (its finding is gone); `jobs` is new.
    let api = deployment("api").replace(
        "          image: nginx:1.27\n",
        "          image: nginx:1.27\n          resources:\n            requests: {cpu: 250m, memory: 512Mi}\n",
    );
    write(
        d.path(),
        "apps/web.yaml",
        &format!("{}---\n{api}", deployment("web")),
    );
    write(d.path(), "apps/jobs.yaml", &deployment("jobs"));
    let o = fplint(
        &[
            "check",
            "--no-config",
            "--format",
            "concise",
            "--baseline",
            "b.json",
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<String> = concise(&o)
        .lines()
        .map(|l| l.split(": ").take(2).collect::<Vec<_>>().join(": "))
        .collect();
    assert_eq!(
        lines,
        [
            "apps/jobs.yaml:10:11: FP015 [warning] Deployment `jobs` runs on Fargate (profile `apps`) without CPU or memory requests",
            "b.json:14:22: FP100 [info] baseline entry for FP015 in `apps/web.yaml` matches no finding",
        ]
    );
    // A selection without FP100 leaves the stale entry unsaid.
    let o = fplint(
        &[
            "check",
            "--no-config",
            "--format",
            "concise",
            "--ignore",
            "FP100",
            "--baseline",
            "b.json",
        ],
        d.path(),
    );
    assert!(!concise(&o).contains("FP100"), "{}", concise(&o));
}

#[test]
fn identical_findings_are_counted_not_merged() {
    let d = project();
    // The same Deployment twice in one file: one finding text, twice.
    write(
        d.path(),
        "apps/web.yaml",
        &format!("{}---\n{}", deployment("web"), deployment("web")),
    );
    fplint(
        &["check", "--no-config", "--write-baseline", "b.json"],
        d.path(),
    );
    let once = read(d.path(), "b.json");
    // A third copy is one finding more than the baseline holds.
    write(
        d.path(),
        "apps/web.yaml",
        &format!(
            "{}---\n{}---\n{}",
            deployment("web"),
            deployment("web"),
            deployment("web")
        ),
    );
    let o = fplint(
        &[
            "check",
            "--no-config",
            "--format",
            "concise",
            "--baseline",
            "b.json",
        ],
        d.path(),
    );
    assert_eq!(concise(&o).lines().count(), 1, "{}\n{once}", concise(&o));
}

#[test]
fn sarif_gives_each_result_its_baseline_state_and_fingerprint() {
    let d = project();
    fplint(
        &["check", "--no-config", "--write-baseline", "b.json"],
        d.path(),
    );
    write(d.path(), "apps/jobs.yaml", &deployment("jobs"));
    let o = fplint(
        &[
            "check",
            "--no-config",
            "--format",
            "sarif",
            "--baseline",
            "b.json",
        ],
        d.path(),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    let results = v["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let states: Vec<(String, String, String)> = results
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap_or_default().to_string(),
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                r["baselineState"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        states,
        [
            s("FP015", "apps/jobs.yaml", "new"),
            s("FP015", "apps/web.yaml", "unchanged"),
            s("FP015", "apps/web.yaml", "unchanged"),
            s("FP005", "cluster.yaml", "unchanged"),
        ]
    );
    for r in &results {
        let fp = r["partialFingerprints"]["fplintFingerprint/v1"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(fp.len(), 16, "{r}");
    }
    // Without a baseline: fingerprints, and no state.
    let o = fplint(&["check", "--no-config", "--format", "sarif"], d.path());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    let first = &v["runs"][0]["results"][0];
    assert!(first.get("baselineState").is_none(), "{first}");
    assert!(first["partialFingerprints"]["fplintFingerprint/v1"].is_string());
}

#[test]
fn the_config_names_the_baseline_and_the_command_line_wins() {
    let d = project();
    fplint(
        &[
            "check",
            "--no-config",
            "--write-baseline",
            "ci/accepted.json",
        ],
        d.path(),
    );
    write(d.path(), "fplint.toml", "baseline = \"ci/accepted.json\"\n");
    let o = fplint(&["check", "--format", "concise"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", concise(&o));
    write(
        d.path(),
        "empty.json",
        "{\"version\": 1, \"findings\": []}\n",
    );
    let o = fplint(
        &["check", "--format", "concise", "--baseline", "empty.json"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(concise(&o).lines().count(), 3);
    // A file that is not a baseline is a usage error, not a pass.
    write(d.path(), "bad.json", "{\"findings\": 3}\n");
    let o = fplint(&["check", "--baseline", "bad.json"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).starts_with("error: bad.json is not an fplint baseline: "),
        "{}",
        text(&o.stderr)
    );
}
