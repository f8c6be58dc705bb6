//! Issue 26, items 8 to 13, against the real binary: what a new user reads.
//! Chart templates are not manifests; long lines are shown as a window;
//! wrapping keeps keys and code whole; messages say what happened;
//! standard input is never a silent pass; near-misses in walked folders are
//! counted.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str], cwd: &Path, env: &[(&str, &str)], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fplint"));
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .env_remove("TERM");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    if let Some(mut input) = child.stdin.take() {
        if let Some(text) = stdin {
            let _ = input.write_all(text.as_bytes());
        }
    }
    match child.wait_with_output() {
        Ok(o) => o,
        Err(e) => panic!("fplint: {e}"),
    }
}

fn fplint(args: &[&str], cwd: &Path) -> Output {
    run(args, cwd, &[], None)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    match serde_json::from_slice(&o.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}):\n{}", stdout(o)),
    }
}

fn tmp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&p, text) {
        panic!("write {}: {e}", p.display());
    }
}

fn repo_file(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) => panic!("read {}: {e}", p.display()),
    }
}

fn longest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

// ---- 8. chart templates ----

const CHART: &str = "apiVersion: v2\nname: shop\nversion: 0.1.0\n";

/// Plain YAML first, Go template after: the first document alone would
/// pass for a manifest.
const TEMPLATE: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
---
{{- if .Values.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
{{- end }}
";

fn chart(dir: &Path) {
    write(dir, "shop/Chart.yaml", CHART);
    write(dir, "shop/templates/deploy.yaml", TEMPLATE);
    write(dir, "shop/templates/jobs/job.yaml", TEMPLATE);
    write(dir, "shop/charts/db/Chart.yaml", CHART);
    write(dir, "shop/charts/db/templates/db.yaml", TEMPLATE);
    write(dir, "shop/values.yaml", "enabled: true\n");
}

#[test]
fn a_walked_chart_is_rendered_not_parsed() {
    let d = tmp();
    chart(d.path());
    let o = fplint(&["check", "."], d.path());
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("FP000"), "{out}");
    // The chart is a unit: its templates are its own, not files to note.
    assert!(!out.contains("chart template"), "{out}");
    let o = fplint(&["check", "--format", "json", "."], d.path());
    let v = json(&o);
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{v:#}");
    assert!(v.get("notices").is_none(), "{v:#}");
}

#[test]
fn a_templates_folder_without_a_chart_is_still_linted() {
    let d = tmp();
    write(
        d.path(),
        "templates/deploy.yaml",
        TEMPLATE
            .replace("{{- if .Values.enabled }}", "- : [")
            .as_str(),
    );
    let o = fplint(&["check", "--format", "concise", "."], d.path());
    assert!(
        stdout(&o).contains("templates/deploy.yaml:7:1: FP000 [error] invalid YAML"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_named_chart_template_is_not_a_manifest() {
    // What pre-commit does: every changed file by name.
    let d = tmp();
    chart(d.path());
    let o = fplint(
        &[
            "check",
            "shop/templates/deploy.yaml",
            "shop/charts/db/templates/db.yaml",
        ],
        d.path(),
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("FP000"), "{out}");
    assert!(
        out.contains("2 chart templates linted as their charts render them"),
        "{out}"
    );
    assert!(out.contains("`fplint render shop`"), "{out}");
}

#[test]
fn the_language_server_leaves_chart_templates_alone() {
    let d = tmp();
    chart(d.path());
    let linter = match fplint::Linter::discover(&[d.path()]) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    let mut ws = linter.open(&[d.path()]);
    let report = ws.check();
    assert!(
        report.diagnostics().is_empty(),
        "{:?}",
        report.diagnostics()
    );
    // As `check` says it: a walked chart is a unit, nothing to note.
    assert!(report.notices.is_empty(), "{:?}", report.notices);
    // A template the editor has open but not yet saved.
    ws.set_overlay(&d.path().join("shop/templates/new.yaml"), TEMPLATE);
    let report = ws.check();
    assert!(
        report.diagnostics().is_empty(),
        "{:?}",
        report.diagnostics()
    );
}

// ---- 9. long lines ----

/// A minified CloudFormation template with a finding in the middle of its
/// one line.
fn minified() -> String {
    let text = repo_file("tests/fixtures/FP003/fire_two_profiles.json");
    let mut v: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    v["Description"] = serde_json::Value::String("a".repeat(7000));
    v.to_string()
}

#[test]
fn a_minified_template_is_shown_as_a_window() {
    let d = tmp();
    write(d.path(), "stack.json", &minified());
    let o = fplint(&["check", "stack.json"], d.path());
    let out = stdout(&o);
    assert!(out.contains("FP003"), "{out}");
    assert!(out.contains("╭─[stack.json:1:"), "{out}");
    assert!(out.contains(" 1 │ …"), "{out}");
    assert!(longest_line(&out) < 300, "{}", longest_line(&out));
    // Lines as a reader sees them: GitHub shows `%0A` and `<br>` as breaks.
    for format in ["concise", "github", "summary"] {
        let o = fplint(&["check", "--format", format, "stack.json"], d.path());
        let shown = stdout(&o).replace("%0A", "\n").replace("<br>", "\n");
        assert!(longest_line(&shown) < 300, "{format}: {shown}");
    }
}

#[test]
fn a_one_line_terraform_file_is_not_printed_whole() {
    let d = tmp();
    let text = format!("locals {{ a = \"{}\" }} }}\n", "y".repeat(200_000));
    write(d.path(), "big/main.tf", &text);
    let o = fplint(&["check", "big"], d.path());
    let out = stdout(&o);
    assert!(out.contains("FP000"), "{}", &out[..out.len().min(2000)]);
    assert!(
        out.contains("╭─[big/main.tf:1:200"),
        "{}",
        &out[..out.len().min(2000)]
    );
    assert!(longest_line(&out) < 300, "{}", longest_line(&out));
    for format in ["concise", "github"] {
        let o = fplint(&["check", "--format", format, "big"], d.path());
        assert!(longest_line(&stdout(&o)) < 300, "{format}");
    }
}

#[test]
fn short_lines_are_shown_as_they_are() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/FP003");
    let o = fplint(
        &["check", "--no-config", "fire_two_profiles.json"],
        &fixture,
    );
    assert!(!stdout(&o).contains('…'), "{}", stdout(&o));
}

// ---- 10. wrapping and terminals ----

const TAINT: &str = "eks.amazonaws.com/compute-type=fargate:NoSchedule";

#[test]
fn wrapping_keeps_the_taint_whole() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/FP002/fire_dynamic_set");
    for width in (40..=100).step_by(3) {
        let cols = width.to_string();
        let o = run(
            &["check", "--no-config", "."],
            &fixture,
            &[("COLUMNS", &cols)],
            None,
        );
        let out = stdout(&o);
        assert!(out.contains(TAINT), "width {width}:\n{out}");
        for line in out.lines() {
            let l = line.trim_end();
            assert!(
                !(l.ends_with("compute-")
                    || l.ends_with("amazonaws.com/")
                    || l.ends_with("=fargate:")),
                "width {width}: a word broken at the end of {line:?}\n{out}"
            );
        }
    }
}

/// A folder whose one cluster has an FP001 with an unsafe fix.
fn labelled_selector() -> tempfile::TempDir {
    let d = tmp();
    let text = repo_file("tests/fixtures/FP001/fire_kube_system_labels.yaml");
    write(d.path(), "cluster.yaml", &text);
    d
}

#[test]
fn a_dumb_terminal_gets_ascii_frames() {
    let d = labelled_selector();
    let o = run(
        &["check", "--no-config", "cluster.yaml"],
        d.path(),
        &[("TERM", "dumb")],
        None,
    );
    let out = stdout(&o);
    assert!(out.contains("FP001"), "{out}");
    assert!(out.contains("x error:"), "{out}");
    for ch in ['│', '╭', '─', '×', '⚠', '…'] {
        assert!(!out.contains(ch), "{ch:?} in\n{out}");
    }
}

#[test]
fn the_summary_fits_the_columns() {
    let d = labelled_selector();
    for width in [60usize, 78] {
        let cols = width.to_string();
        let o = run(
            &["check", "--no-config", "cluster.yaml"],
            d.path(),
            &[("COLUMNS", &cols)],
            None,
        );
        let out = stdout(&o);
        let summary: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("Found "))
            .collect();
        assert!(
            summary.iter().any(|l| l.contains("--fix --unsafe-fixes")),
            "{out}"
        );
        for line in &summary {
            assert!(line.chars().count() <= width, "{width}: {line:?}\n{out}");
        }
    }
}

// ---- 11. messages ----

#[test]
fn an_unreadable_config_is_named() {
    let d = tmp();
    let o = fplint(&["check", "--config", "nowhere/fplint.toml", "."], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nowhere/fplint.toml"), "{}", stderr(&o));
}

#[test]
fn a_missing_path_is_not_a_clean_pass() {
    let d = tmp();
    let o = fplint(&["check", "nope"], d.path());
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.contains("No problems found"), "{out}");
    assert_eq!(
        out,
        "error: nope: No such file or directory (os error 2)\nfplint could not read 1 path: nothing was linted.\n"
    );
}

const CLUSTER: &str = "\
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
fargateProfiles:
  - name: apps
    selectors:
      - namespace: apps
";

fn help_of(o: &Output) -> String {
    let v = json(o);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "FP000", "{v:#}");
    format!("{} | {}", d["message"], d["help"])
}

#[test]
fn limit_errors_name_the_key_that_raises_them() {
    let d = tmp();
    write(d.path(), "cluster.yaml", CLUSTER);
    write(
        d.path(),
        "deep.yaml",
        &format!(
            "apiVersion: v1\nkind: ConfigMap\ndata: {}1{}\n",
            "[".repeat(20),
            "]".repeat(20)
        ),
    );
    write(
        d.path(),
        "bomb.yaml",
        "apiVersion: v1\nkind: ConfigMap\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n",
    );
    let cases = [
        ("max-file-size = 100", "cluster.yaml", "max-file-size"),
        ("max-depth = 8", "deep.yaml", "max-depth"),
        ("max-alias-nodes = 50", "bomb.yaml", "max-alias-nodes"),
    ];
    for (limit, file, key) in cases {
        write(d.path(), "fplint.toml", &format!("[limits]\n{limit}\n"));
        let o = fplint(&["check", "--format", "json", file], d.path());
        let text = help_of(&o);
        assert!(!text.contains("fix the syntax"), "{key}: {text}");
        assert!(
            text.contains(&format!("raise `{key}` in the `[limits]` table")),
            "{key}: {text}"
        );
    }
}

#[test]
fn placement_speaks_of_fargate_sizes_only_for_fargate_pods() {
    let d = tmp();
    write(
        d.path(),
        "cluster.yaml",
        &format!("{CLUSTER}managedNodeGroups:\n  - name: ng\n"),
    );
    let pod = |name: &str, ns: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: x\n")
    };
    write(d.path(), "on-fargate.yaml", &pod("web", "apps"));
    write(d.path(), "on-nodes.yaml", &pod("batch", "jobs"));
    let o = fplint(&["placement", "--format", "json", "."], d.path());
    let text = stdout(&o);
    let v: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => panic!("{e}: {text}"),
    };
    let rows: Vec<&serde_json::Value> = v
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["rows"].as_array().into_iter().flatten())
        .collect();
    let notes = |w: &str| -> String {
        rows.iter()
            .find(|r| r["workload"] == w)
            .map(|r| r["notes"].to_string())
            .unwrap_or_else(|| panic!("no {w} in {text}"))
    };
    assert!(
        notes("Deployment/web").contains("Fargate gives 0.25 vCPU"),
        "{text}"
    );
    assert!(
        !notes("Deployment/batch").contains("Fargate gives"),
        "{text}"
    );
}

// ---- 12. standard input ----

#[test]
fn terraform_on_stdin_is_told_by_its_blocks() {
    let d = tmp();
    let tf = repo_file("tests/fixtures/FP002/fire_dynamic_set/main.tf");
    let o = run(
        &["check", "--no-config", "--format", "concise", "-"],
        d.path(),
        &[],
        Some(&tf),
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(out.starts_with("stdin.tf:27:1: FP002 "), "{out}");
}

#[test]
fn unrecognised_stdin_asks_for_a_name() {
    let d = tmp();
    for text in ["replicas: 2\nimage: nginx\n", "", "just some words\n"] {
        let o = run(&["check", "--no-config", "-"], d.path(), &[], Some(text));
        assert_eq!(o.status.code(), Some(2), "{text:?}: {}", stdout(&o));
        assert!(!stdout(&o).contains("No problems found"), "{}", stdout(&o));
        assert!(stderr(&o).contains("--stdin-filename"), "{}", stderr(&o));
    }
    // Named, the same text is the user's call.
    let o = run(
        &[
            "check",
            "--no-config",
            "--stdin-filename",
            "values.yaml",
            "-",
        ],
        d.path(),
        &[],
        Some("replicas: 2\n"),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn manifests_on_stdin_are_linted_as_before() {
    let d = tmp();
    let o = run(&["check", "--no-config", "-"], d.path(), &[], Some(CLUSTER));
    assert!(stdout(&o).contains("in 1 file"), "{}", stdout(&o));
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
}

// ---- 13. near-misses in walked folders ----

fn near_miss(name: &str) -> String {
    format!("apiVersion: eksctl.io/v1alpha5\nkind: Clusterconfig\nmetadata:\n  name: {name}\n  region: eu-west-1\n")
}

#[test]
fn walked_near_misses_are_counted_in_one_line() {
    let d = tmp();
    write(d.path(), "a/cluster.yaml", &near_miss("a"));
    write(d.path(), "b/cluster.yaml", &near_miss("b"));
    write(d.path(), "c/cluster.yaml", CLUSTER);
    let o = run(&["check", "."], d.path(), &[("COLUMNS", "200")], None);
    let out = stdout(&o);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("almost one of fplint's formats"))
        .collect();
    assert_eq!(
        lines,
        ["note: 2 walked files are almost one of fplint's formats, so not linted: a/cluster.yaml, b/cluster.yaml"],
        "{out}"
    );
    assert!(
        out.contains("help: name a file to see why it was not linted: `fplint check a/cluster.yaml b/cluster.yaml`"),
        "{out}"
    );
    // A note, not a finding: the exit code is the findings'.
    let clean = fplint(&["check", "c"], d.path());
    assert_eq!(o.status.code(), clean.status.code(), "{out}");
}

#[test]
fn one_walked_near_miss_says_why() {
    let d = tmp();
    write(d.path(), "a/cluster.yaml", &near_miss("a"));
    let o = fplint(&["check", "."], d.path());
    let out = stdout(&o);
    assert!(
        out.starts_with("note: a/cluster.yaml:2: `kind: Clusterconfig` is not `ClusterConfig`, so this file was not linted\n"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(0), "{out}");
}

#[test]
fn counts_agree_with_their_nouns() {
    let d = tmp();
    let _ = std::fs::create_dir_all(d.path().join(".git"));
    write(
        d.path(),
        "prod/cluster.yaml",
        &CLUSTER.replace("shop", "prod"),
    );
    // Only `prod` selects its namespace: the candidates disagree, so the
    // workload keeps the note.
    write(
        d.path(),
        "staging/cluster.yaml",
        &CLUSTER
            .replace("shop", "staging")
            .replace("namespace: apps", "namespace: other"),
    );
    write(
        d.path(),
        "shared/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: x\n",
    );
    let text = stdout(&fplint(&["placement", "."], d.path()));
    assert!(
        text.contains("1 of 1 workload belongs to no cluster: the run has 2 clusters"),
        "{text}"
    );
    let human = stdout(&run(&["check", "."], d.path(), &[("COLUMNS", "300")], None));
    assert!(human.contains("note: 1 workload has no cluster"), "{human}");
}

#[test]
fn from_inside_a_chart_its_templates_are_still_templates() {
    let d = tmp();
    chart(d.path());
    let inside = d.path().join("shop/templates");
    for args in [&["check", "."][..], &["check", "deploy.yaml"][..]] {
        let o = fplint(args, &inside);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {out}");
        assert!(!out.contains("FP000"), "{args:?}: {out}");
        assert!(out.contains("chart template"), "{args:?}: {out}");
    }
}

#[test]
fn a_huge_value_is_not_quoted_whole() {
    let d = tmp();
    let ns = "n".repeat(20_000);
    write(
        d.path(),
        "cluster.yaml",
        &format!("apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: shop\n  region: eu-west-1\nfargateProfiles:\n  - name: {ns}\n    selectors:\n      - namespace: {ns}\n"),
    );
    for format in ["human", "concise", "github", "summary"] {
        let o = fplint(&["check", "--format", format, "."], d.path());
        let shown = stdout(&o).replace("%0A", "\n").replace("<br>", "\n");
        assert!(
            shown.contains("FP016"),
            "{format}: {}",
            &shown[..shown.len().min(1000)]
        );
        assert!(
            longest_line(&shown) < 300,
            "{format}: {}",
            longest_line(&shown)
        );
    }
    // Machines get the value whole.
    let o = fplint(&["check", "--format", "json", "."], d.path());
    assert!(stdout(&o).contains(&ns));
}
