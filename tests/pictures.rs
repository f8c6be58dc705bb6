//! `fplint placement --format mermaid|dot` and `check --format summary`:
//! snapshots on the examples and on the projects in `tests/pictures/`
//! (several clusters, workloads that land nowhere or on no known cluster,
//! names that Mermaid and DOT would read as syntax).

use fplint::render::diagram;
use fplint::render::summary::{self, SummaryOptions};
use fplint::{ConfigChoice, Linter, Options};
use std::path::PathBuf;
use std::process::Command;

fn options() -> Options {
    Options {
        config: ConfigChoice::Disabled,
        project_context: true,
        ..Options::default()
    }
}

fn linter(path: &str) -> Linter {
    match Linter::with_choice(&[path], &ConfigChoice::Disabled) {
        Ok(l) => l.with_options(options()),
        Err(e) => panic!("linter for {path}: {}", e.message),
    }
}

fn mermaid(path: &str) -> String {
    let loaded = linter(path).load(&[path]);
    diagram::mermaid(&loaded.project, &loaded.sources)
}

fn dot(path: &str) -> String {
    let loaded = linter(path).load(&[path]);
    diagram::dot(&loaded.project, &loaded.sources)
}

fn github() -> SummaryOptions {
    SummaryOptions {
        blob_url: Some("https://github.com/acme/infra/blob/0123abc".into()),
        workspace: None,
        cwd_in_workspace: PathBuf::new(),
    }
}

fn summary(path: &str) -> String {
    summary::render(&linter(path).check_paths(&[path]), &github())
}

const PROJECTS: [&str; 5] = [
    "examples",
    "examples/eksctl/fixed",
    "tests/pictures/several",
    "tests/pictures/unassigned",
    "tests/pictures/awkward",
];

fn snapshot_name(path: &str) -> String {
    path.replace('/', "_")
}

#[test]
fn mermaid_snapshots() {
    for p in PROJECTS {
        insta::assert_snapshot!(format!("mermaid_{}", snapshot_name(p)), mermaid(p));
    }
}

#[test]
fn dot_snapshots() {
    for p in PROJECTS {
        insta::assert_snapshot!(format!("dot_{}", snapshot_name(p)), dot(p));
    }
}

#[test]
fn summary_snapshots() {
    for p in [
        "examples",
        "examples/eksctl/fixed",
        "tests/pictures/awkward",
    ] {
        insta::assert_snapshot!(format!("summary_{}", snapshot_name(p)), summary(p));
    }
}

/// Red means known to land nowhere; a landing that cannot be told is grey.
#[test]
fn only_workloads_known_to_land_nowhere_are_red() {
    let m = mermaid("tests/pictures/several");
    let red: Vec<&str> = m
        .lines()
        .filter_map(|l| l.trim().strip_prefix("class "))
        .filter_map(|l| l.strip_suffix(" nowhere"))
        .collect();
    // prod is Fargate only: payments-api matches no profile, log-agent is a DaemonSet.
    assert_eq!(red, ["c2w1,c2w2"]);
    assert!(
        m.contains("c2w1(\"Deployment/payments-api<br/>ns payments<br/>lands nowhere: Pending\")")
    );
    assert!(m.contains(
        "c2w2(\"DaemonSet/log-agent<br/>ns web<br/>lands nowhere: no node for a DaemonSet\")"
    ));
    // The fragment's capacity is unknown: its unmatched worker may run on nodes.
    assert!(m.contains("c1w0 -.-> c1n"));
    assert!(m.contains("c1n[(\"other capacity unknown\")]"));
    // The namespace is set at apply time: placement unknown, grey.
    assert!(m.contains("placement unknown"));
    let d = dot("tests/pictures/several");
    assert_eq!(d.matches("fillcolor=\"#fde8e8\"").count(), 2);
}

/// Every label is one quoted string: escaping leaves no stray delimiter.
#[test]
fn awkward_names_stay_inside_their_labels() {
    let m = mermaid("tests/pictures/awkward");
    for line in m.lines().filter(|l| l.contains("[\"") || l.contains("(\"")) {
        assert_eq!(line.matches('"').count(), 2, "{line}");
        assert!(!line.contains('<') || line.matches('<').count() == line.matches("<br/>").count());
    }
    assert!(m.contains("shop.prod-ü #34;β#34; #60;eu#62; #38; #35;1"));
    assert!(m.contains("Deployment/サービス"));
    let d = dot("tests/pictures/awkward");
    for line in d.lines().filter(|l| l.contains("label=")) {
        let unescaped = line
            .replace("\\\\", "")
            .replace("\\\"", "")
            .matches('"')
            .count();
        assert_eq!(unescaped % 2, 0, "{line}");
    }
    assert!(d.contains(r#"fp \"quoted\" `tick` \\back\\ {x} [y] | end"#));
}

/// The same pictures whatever the number of threads.
#[test]
fn pictures_do_not_depend_on_threads() {
    let run = |threads: usize| {
        let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(p) => p,
            Err(e) => panic!("pool: {e}"),
        };
        pool.install(|| {
            (
                mermaid("examples"),
                dot("tests/pictures/several"),
                summary("examples"),
            )
        })
    };
    assert!(run(1) == run(4));
}

#[test]
fn summary_of_a_clean_run_says_so_and_still_draws_placement() {
    let s = summary("examples/eksctl/fixed");
    assert!(
        s.starts_with("## fplint\n\nNo findings in 2 files.\n"),
        "{s}"
    );
    assert!(s.contains("```mermaid\n"));
}

#[test]
fn summary_links_each_finding_to_its_line() {
    let s = summary("examples");
    assert!(s.contains("| error | [examples/eksctl/problem/cluster.yaml:37](https://github.com/acme/infra/blob/0123abc/examples/eksctl/problem/cluster.yaml#L37) |"));
    assert!(s.contains("### FP003 fargate-profile-parallel-creation\n"));
}

fn fplint(args: &[&str]) -> (String, i32) {
    let out = match Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(args)
        .env_remove("RAYON_NUM_THREADS")
        .env("GITHUB_REPOSITORY", "acme/infra")
        .env("GITHUB_SHA", "0123abc")
        .env_remove("GITHUB_SERVER_URL")
        .env_remove("GITHUB_WORKSPACE")
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn cli_prints_the_library_pictures() {
    let p = "tests/pictures/several";
    let (m, code) = fplint(&["placement", "--no-config", "--format", "mermaid", p]);
    assert_eq!((m.as_str(), code), (mermaid(p).as_str(), 0));
    let (d, code) = fplint(&["placement", "--no-config", "--format", "dot", p]);
    assert_eq!((d.as_str(), code), (dot(p).as_str(), 0));
    let (help, _) = fplint(&["placement", "--help"]);
    assert!(help.contains("mermaid") && help.contains("dot"), "{help}");
}

#[test]
fn cli_summary_links_from_the_github_variables() {
    let (s, code) = fplint(&["check", "--no-config", "--format", "summary", "examples"]);
    assert_eq!(code, 1);
    assert_eq!(s, summary("examples"));
}

/// A rule with more findings than a summary shows says how many more.
#[test]
fn summary_caps_the_rows_of_a_rule() {
    let d = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let cluster = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: big\n  region: eu-west-1\niam:\n  withOIDC: true\nfargateProfiles:\n  - name: fp\n    selectors:\n      - namespace: kube-system\n      - namespace: apps\n";
    let mut apps = String::new();
    for i in 0..103 {
        apps.push_str(&format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\n  namespace: apps\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: app\n"));
    }
    for (name, text) in [("cluster.yaml", cluster), ("apps.yaml", apps.as_str())] {
        if let Err(e) = std::fs::write(d.path().join(name), text) {
            panic!("write {name}: {e}");
        }
    }
    let path = d.path().to_string_lossy().into_owned();
    let s = summary(&path);
    assert!(s.contains("| FP015 | fargate-pod-size | 103 |"), "{s}");
    let section = s.split("### FP015").nth(1).unwrap_or_default();
    let rows = section
        .lines()
        .take_while(|l| !l.starts_with("###"))
        .filter(|l| l.starts_with("| warning |"))
        .count();
    assert_eq!(rows, 100);
    assert!(
        section.contains("\n3 more: `fplint check --select FP015` lists them all.\n"),
        "{section}"
    );
}
