//! The real binary as people use it (issue 21): options ruff, tflint and
//! cfn-lint users expect, rule names, stdin, help texts, and the human
//! output at two terminal widths, with and without colour.

mod common;

use common::{stdout, tmp, write};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run fplint in `cwd` with `env` set (NO_COLOR and COLUMNS cleared unless
/// given) and `input` on stdin.
fn run(args: &[&str], cwd: &Path, env: &[(&str, &str)], input: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fplint"));
    cmd.args(args)
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .env_remove("TERM")
        .env_remove("RAYON_NUM_THREADS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    if let Some(mut stdin) = child.stdin.take() {
        if let Some(text) = input {
            // A usage error exits before reading stdin; the closed pipe is
            // then expected, and the exit code tells the test what happened.
            match stdin.write_all(text.as_bytes()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("stdin: {e}"),
                _ => {}
            }
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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    match serde_json::from_slice(&o.stdout) {
        Ok(v) => v,
        Err(e) => panic!("stdout is not JSON ({e}): {}", stdout(o)),
    }
}

fn codes(o: &Output) -> Vec<String> {
    json(o)["diagnostics"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| d["code"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The summary line ends with a time; tests compare what comes before it.
fn without_time(s: &str) -> String {
    s.lines()
        .map(|l| match l.rfind(" (") {
            Some(i) if l.ends_with(" ms).") => format!("{} (TIME).", &l[..i]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// FP001 (error; its related cluster name is above it in the file) and
/// FP004 (error, too many selectors), FP010 (warning).
const CLUSTER: &str = "apiVersion: eksctl.io/v1alpha5
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
  - name: fp-apps
    selectors:
      - namespace: a
      - namespace: b
      - namespace: c
      - namespace: d
      - namespace: e
      - namespace: f
  - name: fp-more
    selectors:
      - namespace: a
availabilityZones: [eu-west-1a, eu-west-1b]
";

/// Only a warning: FP001's component label (eksctl 0.208.0 and later).
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

/// A Fargate-only cluster that runs CoreDNS and nothing else.
const SYSTEM_ONLY: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
iam: {withOIDC: true}
";

/// A Fargate-only cluster whose one selector is not CoreDNS's: FP005 on
/// the 9-line `aws_eks_cluster` block.
const TERRAFORM: &str = r#"resource "aws_eks_cluster" "this" {
  name     = "shop"
  role_arn = "arn:aws:iam::111122223333:role/eks-cluster"

  vpc_config {
    subnet_ids = ["subnet-0aa1111111111111a", "subnet-0bb2222222222222b"]
  }
}

resource "aws_eks_fargate_profile" "apps" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "apps"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/fargate-pods"
  subnet_ids             = ["subnet-0aa1111111111111a"]

  selector {
    namespace = "apps"
  }
}
"#;

#[test]
fn exit_zero_and_fail_on_never_keep_findings_but_exit_0() {
    let d = tmp();
    write(d.path(), "c.yaml", CLUSTER);
    let o = fplint(&["check", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(1));
    for flags in [&["--exit-zero"][..], &["--fail-on", "never"]] {
        let args: Vec<&str> = ["check", "--format", "json"]
            .into_iter()
            .chain(flags.iter().copied())
            .chain(["c.yaml"])
            .collect();
        let o = fplint(&args, d.path());
        assert_eq!(o.status.code(), Some(0), "{flags:?}");
        assert_eq!(codes(&o), ["FP001", "FP004", "FP010"], "{flags:?}");
    }
    // The same from fplint.toml; a level on the command line overrides it.
    write(d.path(), "fplint.toml", "fail-on = \"never\"\n");
    let o = fplint(&["check", "--format", "json", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(codes(&o), ["FP001", "FP004", "FP010"]);
    let o = fplint(&["check", "--fail-on", "warning", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let _ = std::fs::remove_file(d.path().join("fplint.toml"));
    // 2 still means fplint could not do its job.
    write(
        d.path(),
        "broken.yaml",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: [\n",
    );
    let o = fplint(&["check", "--exit-zero", "c.yaml", "broken.yaml"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let o = fplint(&["check", "--exit-zero", "missing.yaml"], d.path());
    assert_eq!(o.status.code(), Some(2));
    // --diff says "there is something to fix" with 1, which --exit-zero drops too.
    let o = fplint(&["check", "--diff", "--unsafe-fixes", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let o = fplint(
        &["check", "--diff", "--unsafe-fixes", "--exit-zero", "c.yaml"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("-          k8s-app: kube-dns"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn statistics_count_each_code_most_first() {
    let d = tmp();
    write(d.path(), "c.yaml", CLUSTER);
    write(
        d.path(),
        "d.yaml",
        &CLUSTER.replace("name: shop", "name: shop2"),
    );
    write(
        d.path(),
        "w.yaml",
        &WARNING_ONLY.replace("name: shop", "name: other"),
    );
    let o = fplint(&["check", "--statistics", "--quiet", "."], d.path());
    assert_eq!(o.status.code(), Some(1));
    insta::assert_snapshot!(
        stdout(&o),
        @r"
        3  FP001  coredns-selector-labels
        2  FP004  fargate-quota-exceeded
        2  FP010  fargate-profile-overlap
    "
    );
    let o = fplint(&["check", "--statistics", "."], d.path());
    let out = without_time(&stdout(&o));
    assert!(
        out.ends_with("Found 7 problems (4 errors, 3 warnings) in 3 files (TIME)."),
        "{out}"
    );
    let o = fplint(
        &["check", "--statistics", "--format", "json", "."],
        d.path(),
    );
    let v = json(&o);
    assert_eq!(v[0]["code"], "FP001");
    assert_eq!(v[0]["name"], "coredns-selector-labels");
    assert_eq!(v[0]["count"], 3);
    assert_eq!(v.as_array().map(Vec::len), Some(3));
}

#[test]
fn stdin_is_linted_as_the_named_file() {
    let d = tmp();
    // Without a name: YAML and JSON are recognised by content, shown as `-`.
    let o = run(
        &["check", "--format", "json", "-"],
        d.path(),
        &[],
        Some(CLUSTER),
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["diagnostics"][0]["file"], "-");
    assert_eq!(v["diagnostics"][0]["line"], 10);
    // The name shows in the report and decides the format: HCL is read
    // only as a `.tf` file.
    let args = ["check", "--format", "concise", "-", "--stdin-filename"];
    let o = run(
        &[&args[..], &["infra/main.tf"]].concat(),
        d.path(),
        &[],
        Some(TERRAFORM),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with("infra/main.tf:1:1: FP005 [error]"),
        "{}",
        stdout(&o)
    );
    let o = run(
        &[&args[..], &["infra/main.yaml"]].concat(),
        d.path(),
        &[],
        Some(TERRAFORM),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // A file of a project: its clusters are the context, and findings are
    // only the named file's.
    write(
        d.path(),
        "fplint.toml",
        "[severity]\nfargate-pod-size = \"error\"\n",
    );
    write(d.path(), "cluster.yaml", SYSTEM_ONLY);
    let manifest = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: web
spec:
  template:
    spec:
      containers:
        - name: api
          image: nginx
";
    write(d.path(), "k8s/api.yaml", "");
    let o = run(
        &[&args[..], &["k8s/api.yaml"]].concat(),
        d.path(),
        &[],
        Some(manifest),
    );
    assert_eq!(
        stdout(&o),
        "k8s/api.yaml:5:14: FP011 [error] Deployment `api` in namespace `web` matches no Fargate profile of cluster `shop` (cluster.yaml), which has no nodes: its pods stay Pending\n"
    );
    // A Terraform file is read with the other files of its module, the
    // stdin text in its place: its profile overlaps the sibling's (FP010),
    // and the sibling's own finding (FP005, no CoreDNS selector) is not
    // the named file's.
    write(d.path(), "infra/cluster.tf", TERRAFORM);
    write(
        d.path(),
        "infra/profiles.tf",
        "# the text on stdin takes its place\n",
    );
    let more = TERRAFORM
        .split_at(
            TERRAFORM
                .find("resource \"aws_eks_fargate_profile\"")
                .unwrap_or(0),
        )
        .1
        .replace("\"apps\" {", "\"more\" {")
        .replace("= \"apps\"\n  pod", "= \"more\"\n  pod");
    let o = run(
        &[&args[..], &["infra/profiles.tf"]].concat(),
        d.path(),
        &[],
        Some(&more),
    );
    assert_eq!(
        stdout(&o),
        "infra/profiles.tf:7:3: FP010 [warning] profiles `apps` and `more` can both match the same pods, and EKS does not document which one it uses for them\n"
    );
    let o = run(
        &[&args[..], &["elsewhere/profiles.tf"]].concat(),
        d.path(),
        &[],
        Some(&more),
    );
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
    // Alone, the same text has no cluster to run on.
    let o = run(
        &["check", "--format", "concise", "--no-config", "-"],
        d.path(),
        &[],
        Some(manifest),
    );
    assert_eq!(stdout(&o), "");
    // `-` stands alone, and a name needs `-`.
    let o = run(
        &["check", "-", "cluster.yaml"],
        d.path(),
        &[],
        Some(manifest),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`-` (stdin) is linted alone"),
        "{}",
        stderr(&o)
    );
    let o = fplint(
        &["check", "--stdin-filename", "x.yaml", "cluster.yaml"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["check", "--fix", "-"], d.path(), &[], Some(manifest));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn rule_names_work_wherever_codes_do() {
    let d = tmp();
    let by_code = stdout(&fplint(&["rule", "FP001"], d.path()));
    let by_name = fplint(&["rule", "coredns-selector-labels"], d.path());
    assert_eq!(by_name.status.code(), Some(0));
    assert_eq!(stdout(&by_name), by_code);
    let o = fplint(&["rule", "coredns"], d.path());
    assert_eq!(o.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&o), @r"
    error: unknown rule code or name `coredns`; did you mean one of `FP001` (coredns-selector-labels), `FP005` (coredns-without-capacity), `FP006` (coredns-compute-type)?
    `fplint rules` lists every rule
    ");

    write(d.path(), "c.yaml", CLUSTER);
    let check = |args: &[&str]| {
        let all: Vec<&str> = ["check", "--format", "json"]
            .iter()
            .chain(args)
            .chain(&["c.yaml"])
            .copied()
            .collect();
        fplint(&all, d.path())
    };
    assert_eq!(
        codes(&check(&["--select", "coredns-selector-labels"])),
        ["FP001"]
    );
    assert_eq!(
        codes(&check(&["--select", "FP004, FP010"])),
        ["FP004", "FP010"]
    );
    assert_eq!(
        codes(&check(&["--select", "fp001 ,Fargate-Quota-Exceeded"])),
        ["FP001", "FP004"]
    );
    assert_eq!(
        codes(&check(&["--ignore", "FP001, fargate-profile-overlap"])),
        ["FP004"]
    );
    let o = check(&["--ignore", "fargate-quota-exceded"]);
    assert_eq!(o.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&o), @r"
    error: unknown rule code, prefix or name `fargate-quota-exceded`; did you mean `FP004` (fargate-quota-exceeded)?
    `fplint rules` lists every rule
    ");

    // The configuration takes names too: select, ignore, [severity], per-file ignores.
    write(
        d.path(),
        "fplint.toml",
        "select = [\"coredns-selector-labels\", \"FP004\"]\n\
         [severity]\ncoredns-selector-labels = \"warning\"\n\
         [[per-file-ignores]]\npath = \"c.yaml\"\nignore = [\"fargate-quota-exceeded\"]\n",
    );
    let o = fplint(&["check", "--format", "json", "c.yaml"], d.path());
    let v = json(&o);
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["diagnostics"][0]["code"], "FP001");
    assert_eq!(v["diagnostics"][0]["severity"], "warning");
    write(
        d.path(),
        "fplint.toml",
        "ignore = [\"coredns-selector-label\"]\n",
    );
    let o = fplint(&["check", "c.yaml"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("× invalid config: unknown rule code, prefix or name `coredns-selector-label`; did you mean `FP001` (coredns-selector-labels)?\n"),
        "{err}"
    );
    assert!(err.contains("fplint.toml:1:11]"), "{err}");
}

#[test]
fn rules_is_a_table_and_json_is_unchanged() {
    let d = tmp();
    let o = fplint(&["rules"], d.path());
    let text = stdout(&o);
    let mut lines = text.lines();
    assert_eq!(
        lines.next().map(str::trim_end),
        Some("CODE   NAME                               SEVERITY  FORMATS                                             SUMMARY")
    );
    assert_eq!(
        lines.next(),
        Some("FP000  parse-error                        error     eksctl,cloudformation,terraform,kubernetes,program  A recognised file cannot be parsed")
    );
    assert_eq!(text.lines().count(), fplint_rules::REGISTRY.len() + 1);
    let v = json(&fplint(&["rules", "--format", "json"], d.path()));
    let keys: Vec<&String> = v[1]
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        ["code", "default_severity", "formats", "name", "summary"]
    );
    assert_eq!(v[1]["formats"], serde_json::json!(["eksctl"]));
}

#[test]
fn help_texts() {
    let d = tmp();
    let help = |args: &[&str]| {
        let o = run(args, d.path(), &[("COLUMNS", "100")], None);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let text = stdout(&o);
        // clap adds `[default: ...]`; a description must not say it again.
        assert!(
            !text.contains("(default:"),
            "doubled default in {args:?}:\n{text}"
        );
        text
    };
    insta::assert_snapshot!("help", help(&["--help"]));
    insta::assert_snapshot!("help_check", help(&["check", "--help"]));
    insta::assert_snapshot!("help_check_short", help(&["check", "-h"]));
    insta::assert_snapshot!("help_placement", help(&["placement", "--help"]));
    insta::assert_snapshot!("help_rules", help(&["rules", "--help"]));
    insta::assert_snapshot!("help_rule", help(&["rule", "--help"]));
    let top = help(&["--help"]);
    assert!(top.contains("Terraform and Kubernetes manifests"), "{top}");
    let check = help(&["check", "--help"]);
    for want in [
        "--fail-on <SEVERITY>",
        "[default: warning, or fail-on in fplint.toml]",
        "- sarif:",
        "- concise:",
        "Exit codes:",
        "  2  usage error",
    ] {
        assert!(
            check.contains(want),
            "`{want}` missing from check --help:\n{check}"
        );
    }
}

#[test]
fn pre_commit_hook_names_kubernetes_manifests() {
    for file in [
        ".pre-commit-hooks.yaml",
        "packaging/pre-commit/.pre-commit-hooks.yaml",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(text.contains("Kubernetes manifests"), "{file}");
        // Terragrunt units are `.hcl` files; program sources are read
        // through their CDK app or Pulumi project.
        assert!(
            text.contains("types_or: [yaml, json, terraform, hcl, ts, tsx, javascript, python]"),
            "{file}"
        );
    }
}

/// Every name fplint reads in a walk, and the tag pre-commit's `identify`
/// gives it (`identify.tags_from_filename`; `.ci/run` checks this table
/// against the real `identify`). Each tag must be selected by both hook
/// definitions, or a commit that changes only such files never reaches
/// fplint (as `terragrunt.hcl`, tagged `hcl`, did not). `None`: identify
/// tags the name only `text`, which no hook can select without passing
/// every text file.
const IDENTIFY_TAGS: &[(&str, Option<&str>)] = &[
    ("cluster.yaml", Some("yaml")),
    ("cluster.yml", Some("yaml")),
    ("template.json", Some("json")),
    ("main.tf", Some("terraform")),
    ("terragrunt.hcl", Some("hcl")),
    ("terragrunt.stack.hcl", Some("hcl")),
    ("stack.template", None),
    // Program sources: read through their CDK app or Pulumi project.
    ("app.ts", Some("ts")),
    ("app.tsx", Some("tsx")),
    ("app.js", Some("javascript")),
    ("app.mjs", Some("javascript")),
    ("app.cjs", Some("javascript")),
    ("app.mts", None),
    ("app.cts", None),
    ("app.py", Some("python")),
];

#[test]
fn pre_commit_hooks_select_every_file_fplint_reads() {
    // The table covers every name a walk reads.
    let read: Vec<&str> = IDENTIFY_TAGS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| {
            fplint::walk::is_lintable_name(Path::new(n))
                || fplint_core::frontend::program::is_source(n)
        })
        .collect();
    assert_eq!(read.len(), IDENTIFY_TAGS.len(), "{read:?}");
    for ext in fplint::walk::EXTENSIONS {
        assert!(
            IDENTIFY_TAGS
                .iter()
                .any(|(n, _)| n.ends_with(&format!(".{ext}"))),
            "`.{ext}` is read but not in the table"
        );
    }
    assert!(!fplint::walk::is_lintable_name(Path::new("README.md")));
    for file in [
        ".pre-commit-hooks.yaml",
        "packaging/pre-commit/.pre-commit-hooks.yaml",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let line = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("types_or:"))
            .unwrap_or_else(|| panic!("{file}: no types_or"));
        let selected: Vec<&str> = line
            .trim()
            .trim_matches(['[', ']'])
            .split(',')
            .map(str::trim)
            .collect();
        for (name, tag) in IDENTIFY_TAGS {
            if let Some(tag) = tag {
                assert!(
                    selected.contains(tag),
                    "{file}: {name} is tagged `{tag}`, which types_or {selected:?} leaves out"
                );
            }
        }
    }
}

/// Human output at `width` columns, without or with colour.
fn human(d: &Path, width: &str, color: &str, file: &str) -> String {
    let o = run(
        &["check", "--quiet", "--color", color, file],
        d,
        &[("COLUMNS", width)],
        None,
    );
    stdout(&o)
}

#[test]
fn human_output_at_two_widths_with_and_without_colour() {
    let d = tmp();
    write(d.path(), "c.yaml", CLUSTER);
    write(d.path(), "main.tf", TERRAFORM);
    for file in ["c.yaml", "main.tf"] {
        for width in ["70", "120"] {
            for color in ["never", "always"] {
                let out = human(d.path(), width, color, file);
                let name = format!("human_{}_{width}_{color}", file.replace('.', "_"));
                insta::assert_snapshot!(name.clone(), out);
                let widest = out
                    .lines()
                    .filter(|l| !l.contains('│') && !l.contains('·'))
                    .map(|l| strip_ansi(l).chars().count())
                    .max()
                    .unwrap_or(0);
                assert!(
                    widest <= width.parse().unwrap_or(0),
                    "{name}: {widest} columns"
                );
                assert_eq!(out.contains("\u{1b}["), color == "always", "{name}");
            }
        }
    }
    let plain = human(d.path(), "100", "never", "c.yaml");
    // The severity as a word, beside the glyph.
    assert!(
        plain.contains("  × error: CoreDNS stays Pending"),
        "{plain}"
    );
    assert!(
        plain.contains("  ⚠ warning: profiles `fp-apps` and `fp-more`"),
        "{plain}"
    );
    // The primary snippet (line 10) comes before the related one (line 4).
    let primary = plain.find("[c.yaml:10:9]");
    let related = plain.find("[c.yaml:4:9]");
    assert!(
        primary.is_some() && related.is_some() && primary < related,
        "{plain}"
    );
    // A Terraform block is underlined on its header line only.
    let tf = human(d.path(), "100", "never", "main.tf");
    assert!(tf.contains(" 1 │ resource \"aws_eks_cluster\" \"this\" {\n   · ────────────────┬────────────────\n"), "{tf}");
    assert!(!tf.contains("╭─▶"), "{tf}");
}

#[test]
fn piped_output_wraps_at_100_columns() {
    let d = tmp();
    write(d.path(), "c.yaml", CLUSTER);
    let o = run(&["check", "--quiet", "c.yaml"], d.path(), &[], None);
    let out = stdout(&o);
    assert!(
        out.contains("  × error: CoreDNS stays Pending: eksctl moves CoreDNS to Fargate only when a `kube-system`\n  │ selector has no labels\n"),
        "{out}"
    );
}

/// `script` gives fplint a terminal: colour then follows NO_COLOR and TERM.
#[test]
fn on_a_terminal_term_dumb_and_no_color_switch_colour_off() {
    let d = tmp();
    write(d.path(), "c.yaml", CLUSTER);
    let bin = env!("CARGO_BIN_EXE_fplint");
    let tty = |env: &[(&str, &str)]| {
        let mut cmd = Command::new("script");
        cmd.args(["-qec", &format!("{bin} check --quiet c.yaml"), "/dev/null"])
            .current_dir(d.path())
            .env_remove("NO_COLOR")
            .env("COLUMNS", "100");
        for (k, v) in env {
            cmd.env(k, v);
        }
        match cmd.output() {
            Ok(o) => stdout(&o),
            Err(e) => panic!("`script` (util-linux) runs fplint on a terminal: {e}"),
        }
    };
    let coloured = tty(&[("TERM", "xterm-256color")]);
    assert!(coloured.contains("error:"), "{coloured}");
    assert!(coloured.contains("\u{1b}["), "a terminal gets colour");
    assert!(!tty(&[("TERM", "dumb")]).contains("\u{1b}["), "TERM=dumb");
    assert!(
        !tty(&[("TERM", "xterm"), ("NO_COLOR", "1")]).contains("\u{1b}["),
        "NO_COLOR"
    );
}

#[test]
fn placement_says_unknown_size_once() {
    let d = tmp();
    write(
        d.path(),
        "cluster.yaml",
        &SYSTEM_ONLY.replace(
            "namespace: kube-system\n",
            "namespace: kube-system\n      - namespace: web\n",
        ),
    );
    write(
        d.path(),
        "app.yaml",
        "apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: web}
spec:
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: nginx
          resources:
            requests: {cpu: $CPU, memory: $MEMORY}
",
    );
    let o = fplint(&["placement", "."], d.path());
    let out = stdout(&o);
    let row = out
        .lines()
        .find(|l| l.contains("Deployment/api"))
        .unwrap_or_default();
    assert!(row.contains(" unknown size "), "{out}");
    assert!(!out.contains("unknown vCPU"), "{out}");
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A tree whose only Terraform is in a hidden folder: the walk skips it and
/// says how many files and how to read them; `--hidden` lints them, and
/// `.git` stays out either way.
#[test]
fn hidden_folders_are_counted_and_read_with_hidden() {
    let d = tmp();
    let tf = "resource \"aws_eks_fargate_profile\" \"a\" {\n  cluster_name = \"c\"\n  fargate_profile_name = \"a\"\n  pod_execution_role_arn = \"arn:aws:iam::1:role/r\"\n  subnet_ids = [\"s\"]\n  selector {\n    namespace = \"Bad_Namespace\"\n  }\n}\n";
    write(d.path(), ".workshop/main.tf", tf);
    write(d.path(), ".workshop/notes.md", "# not read\n");
    write(d.path(), ".pre-commit-config.yaml", "repos: []\n");
    write(d.path(), ".git/config.yaml", "x: 1\n");
    let o = fplint(&["check", "--no-config", "--color", "never", "."], d.path());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o).lines().take(3).collect::<Vec<_>>(),
        [
            "note: .: no YAML, JSON or Terraform file here to lint",
            "note: 2 YAML, JSON or Terraform files in hidden files or folders not linted",
            "  help: `fplint check --hidden` reads hidden files and folders (`.git` excepted)",
        ]
    );
    let o = fplint(
        &[
            "check",
            "--no-config",
            "--hidden",
            "--format",
            "concise",
            ".",
        ],
        d.path(),
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains(".workshop/main.tf:7:17: FP016"), "{out}");
    assert!(!out.contains(".git/"), "{out}");
    assert!(!out.contains("hidden"), "{out}");
    let help = stdout(&fplint(&["check", "--help"], d.path()));
    assert!(help.contains("--hidden"), "{help}");
}
