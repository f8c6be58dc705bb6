//! The incremental `Workspace`: after any change it reports exactly what a
//! fresh run over the same files reports, and reads only what changed.

use fplint::{ConfigChoice, Linter, Options, Workspace};
use std::path::{Path, PathBuf};

const CLUSTER: &str = "\
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
iam:
  withOIDC: true
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
  - name: fp-shop
    selectors:
      - namespace: shop
";

fn deployment(namespace: &str) -> String {
    format!(
        "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {namespace}
spec:
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
        - name: web
          image: public.ecr.aws/nginx/nginx:1.27
          resources:
            requests: {{cpu: 250m, memory: 512Mi}}
"
    )
}

const MODULE_MAIN: &str = r#"resource "kubernetes_deployment_v1" "api" {
  metadata {
    name      = "api"
    namespace = var.namespace
  }
  spec {
    template {
      metadata {
        labels = { app = "api" }
      }
      spec {
        container {
          name  = "api"
          image = "public.ecr.aws/nginx/nginx:1.27"
          resources {
            requests = { cpu = "250m", memory = "512Mi" }
          }
        }
      }
    }
  }
}
"#;

fn module_vars(namespace: &str) -> String {
    format!("variable \"namespace\" {{\n  default = \"{namespace}\"\n}}\n")
}

fn linter() -> Linter {
    Linter::default().with_options(Options {
        config: ConfigChoice::Disabled,
        ..Options::default()
    })
}

fn json(report: &fplint::Report) -> String {
    fplint::render::json::render(report)
}

fn codes(report: &fplint::Report) -> Vec<(String, &'static str)> {
    report
        .diagnostics()
        .iter()
        .map(|d| {
            let file = report.file(d).map(|f| f.path.clone()).unwrap_or_default();
            let name = Path::new(&file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, d.code)
        })
        .collect()
}

/// A project of every kind of unit: an eksctl cluster, a manifest, a
/// Terraform module of two files.
fn project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    std::fs::write(root.join("cluster.yaml"), CLUSTER).unwrap();
    std::fs::write(root.join("web.yaml"), deployment("shop")).unwrap();
    std::fs::create_dir(root.join("tf")).unwrap();
    std::fs::write(root.join("tf/main.tf"), MODULE_MAIN).unwrap();
    std::fs::write(root.join("tf/variables.tf"), module_vars("shop")).unwrap();
    (tmp, root)
}

/// The workspace's report against a fresh run over the files on disk.
fn assert_fresh(ws: &Workspace, root: &Path) -> std::sync::Arc<fplint::Report> {
    let report = ws.check();
    let fresh = linter().check_paths(&[root]);
    assert_eq!(json(&report), json(&fresh));
    report
}

#[test]
fn opened_reports_as_a_run_does() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["../../examples", "../../tests/fixtures"] {
        let dir = here.join(dir);
        let ws = linter().open(&[&dir]);
        let report = assert_fresh(&ws, &dir);
        assert!(report.diagnostics().len() > 3, "{dir:?}");
    }
}

#[test]
fn edits_on_disk_match_a_fresh_run() {
    let (_tmp, root) = project();
    let mut ws = linter().open(&[&root]);
    assert_eq!(codes(&assert_fresh(&ws, &root)), []);

    // A manifest moves to a namespace no profile selects.
    std::fs::write(root.join("web.yaml"), deployment("other")).unwrap();
    assert!(ws.file_changed(&root.join("web.yaml")));
    assert_eq!(
        codes(&assert_fresh(&ws, &root)),
        [("web.yaml".to_string(), "FP011")]
    );

    // One file of a module changes: the module is modelled again, and its
    // other file's deployment lands in a namespace no profile selects.
    std::fs::write(root.join("tf/variables.tf"), module_vars("keda")).unwrap();
    assert!(ws.file_changed(&root.join("tf/variables.tf")));
    assert_eq!(
        codes(&assert_fresh(&ws, &root)),
        [
            ("variables.tf".to_string(), "FP011"),
            ("web.yaml".to_string(), "FP011")
        ]
    );

    // Files created and deleted.
    std::fs::remove_file(root.join("tf/main.tf")).unwrap();
    assert!(ws.file_changed(&root.join("tf/main.tf")));
    assert_eq!(
        codes(&assert_fresh(&ws, &root)),
        [("web.yaml".to_string(), "FP011")]
    );
    std::fs::write(root.join("more.yaml"), deployment("elsewhere")).unwrap();
    assert!(ws.file_changed(&root.join("more.yaml")));
    assert_eq!(
        codes(&assert_fresh(&ws, &root)),
        [
            ("more.yaml".to_string(), "FP011"),
            ("web.yaml".to_string(), "FP011")
        ]
    );
    assert_eq!(ws.files().count(), 4);

    // Outside the project, or not a name fplint reads.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("x.yaml"), CLUSTER).unwrap();
    assert!(!ws.file_changed(&elsewhere.path().join("x.yaml")));
    std::fs::write(root.join("notes.txt"), "hello").unwrap();
    assert!(!ws.file_changed(&root.join("notes.txt")));
    assert_fresh(&ws, &root);
}

#[test]
fn rescan_finds_added_and_removed_files() {
    let (_tmp, root) = project();
    let mut ws = linter().open(&[&root]);
    std::fs::write(root.join("web.yaml"), deployment("other")).unwrap();
    std::fs::write(root.join(".gitignore"), "ignored.yaml\n").unwrap();
    std::fs::write(root.join("ignored.yaml"), deployment("other")).unwrap();
    std::fs::remove_file(root.join("cluster.yaml")).unwrap();
    ws.file_changed(&root.join("web.yaml"));
    ws.rescan();
    assert_eq!(ws.files().count(), 3);
    assert_fresh(&ws, &root);
}

#[test]
fn an_edit_reads_only_the_changed_file() {
    let (_tmp, root) = project();
    let mut ws = linter().open(&[&root]);
    let before = ws.check().sources.len();
    assert_eq!(before, 4);
    // A module file: its sibling comes from the cache, not the disk.
    assert!(ws.set_overlay(&root.join("tf/main.tf"), MODULE_MAIN.replace("api", "api2")));
    assert_eq!(ws.check().sources.len(), before + 1);
    assert!(ws.set_overlay(&root.join("web.yaml"), deployment("x")));
    assert_eq!(ws.check().sources.len(), before + 2);
}

#[test]
fn overlays_stand_in_for_the_disk() {
    let (_tmp, root) = project();
    let mut ws = linter().open(&[&root]);
    let web = root.join("web.yaml");
    assert!(ws.set_overlay(&web, deployment("other")));
    assert_eq!(codes(&ws.check()), [("web.yaml".to_string(), "FP011")]);
    // The disk is untouched; written, the same text gives the same report.
    assert_eq!(std::fs::read_to_string(&web).unwrap(), deployment("shop"));
    let with_overlay = json(&ws.check());
    std::fs::write(&web, deployment("other")).unwrap();
    assert_eq!(with_overlay, json(&linter().check_paths(&[&root])));
    std::fs::write(&web, deployment("shop")).unwrap();

    ws.remove_overlay(&web);
    assert_eq!(codes(&assert_fresh(&ws, &root)), []);

    // A buffer never saved joins the project, and leaves with its overlay.
    let new = root.join("new.yaml");
    assert!(ws.set_overlay(&new, deployment("nowhere")));
    assert_eq!(codes(&ws.check()), [("new.yaml".to_string(), "FP011")]);
    ws.remove_overlay(&new);
    assert_eq!(codes(&assert_fresh(&ws, &root)), []);

    assert!(!ws.set_overlay(&root.join("notes.txt"), "x"));
    assert!(!ws.set_overlay(&root.join("missing/x.yaml"), "x"));
}

#[test]
fn a_file_added_to_a_local_module_reaches_its_callers() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("modules/fargate")).unwrap();
    std::fs::write(
        root.join("main.tf"),
        "resource \"aws_eks_cluster\" \"c\" { name = \"c\" }\nmodule \"fargate\" {\n  source  = \"./modules/fargate\"\n  cluster = aws_eks_cluster.c.name\n}\n",
    )
    .unwrap();
    let profile = |name: &str, namespace: &str| {
        format!("resource \"aws_eks_fargate_profile\" \"{name}\" {{\n  cluster_name = var.cluster\n  selector {{ namespace = \"{namespace}\" }}\n}}\n")
    };
    std::fs::write(
        root.join("modules/fargate/main.tf"),
        format!("variable \"cluster\" {{}}\n{}", profile("p", "x")),
    )
    .unwrap();
    let profiles = |r: &fplint::Report| -> usize {
        r.project
            .clusters
            .iter()
            .map(|c| c.fargate_profiles.len())
            .sum()
    };
    let mut ws = linter().open(&[root]);
    let before = profiles(&assert_fresh(&ws, root));
    assert!(before >= 1);
    std::fs::write(root.join("modules/fargate/extra.tf"), profile("q", "y")).unwrap();
    assert!(ws.file_changed(&root.join("modules/fargate/extra.tf")));
    let report = assert_fresh(&ws, root);
    assert!(profiles(&report) > before);
    assert_eq!(profiles(&report), profiles(&linter().check_paths(&[root])));

    // The caller stops calling the folder: it is a root module of its own.
    std::fs::write(
        root.join("main.tf"),
        "resource \"aws_eks_cluster\" \"c\" { name = \"c\" }\n",
    )
    .unwrap();
    assert!(ws.file_changed(&root.join("main.tf")));
    assert_fresh(&ws, root);
}

const OVERLAY: &str = "resources: [../../base]\nnamespace: NS\n";

/// A kustomize project: one base, two overlays, one cluster.
fn kustomize_project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    std::fs::write(root.join("cluster.yaml"), CLUSTER).unwrap();
    for dir in ["base", "overlays/prod", "overlays/dev"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let base = deployment("x").replace("  namespace: x\n", "");
    std::fs::write(root.join("base/deployment.yaml"), base).unwrap();
    std::fs::write(
        root.join("base/kustomization.yaml"),
        "resources: [deployment.yaml]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("overlays/prod/kustomization.yaml"),
        OVERLAY.replace("NS", "shop"),
    )
    .unwrap();
    std::fs::write(
        root.join("overlays/dev/kustomization.yaml"),
        OVERLAY.replace("NS", "dev"),
    )
    .unwrap();
    (tmp, root)
}

#[test]
fn kustomize_builds_follow_their_files() {
    let (_tmp, root) = kustomize_project();
    let mut ws = linter().open(&[&root]);
    // dev lands in a namespace no profile selects (where its overlay says so).
    assert_eq!(
        codes(&assert_fresh(&ws, &root)),
        [("kustomization.yaml".to_string(), "FP011")]
    );

    // The overlay's kustomization changes: its build is made again.
    let dev = root.join("overlays/dev/kustomization.yaml");
    std::fs::write(&dev, OVERLAY.replace("NS", "shop")).unwrap();
    assert!(ws.file_changed(&dev));
    assert_eq!(codes(&assert_fresh(&ws, &root)), []);

    // A base file both builds read: both are made again.
    let base = root.join("base/deployment.yaml");
    let text = std::fs::read_to_string(&base).unwrap();
    assert!(ws.set_overlay(&base, text.replace("requests", "limits")));
    let edited = json(&ws.check());
    std::fs::write(&base, text.replace("requests", "limits")).unwrap();
    assert_eq!(edited, json(&linter().check_paths(&[&root])));
    ws.remove_overlay(&base);
    assert_fresh(&ws, &root);

    // A patch file created and named by the overlay.
    std::fs::write(
        root.join("overlays/dev/patch.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      nodeSelector: {disk: ssd}\n",
    )
    .unwrap();
    assert!(ws.file_changed(&root.join("overlays/dev/patch.yaml")));
    assert_fresh(&ws, &root);
    std::fs::write(
        &dev,
        "resources: [../../base]\nnamespace: dev\npatches: [{path: patch.yaml}]\n",
    )
    .unwrap();
    assert!(ws.file_changed(&dev));
    assert_fresh(&ws, &root);

    // The base's kustomization is deleted: the overlays no longer build it.
    std::fs::remove_file(root.join("base/kustomization.yaml")).unwrap();
    assert!(ws.file_changed(&root.join("base/kustomization.yaml")));
    assert_fresh(&ws, &root);
}

#[test]
fn a_named_file_reads_its_project_as_context() {
    let (_tmp, root) = project();
    std::fs::write(root.join("fplint.toml"), "").unwrap();
    std::fs::create_dir(root.join("apps")).unwrap();
    let web = root.join("apps/web.yaml");
    std::fs::write(&web, deployment("other")).unwrap();
    let linter = Linter::discover(&[&web]).unwrap().with_options(Options {
        project_context: true,
        ..Options::default()
    });
    let mut ws = linter.open(&[&web]);
    let fresh = |ws: &Workspace| {
        let report = ws.check();
        assert_eq!(json(&report), json(&linter.check_paths(&[&web])));
        report
    };
    // The cluster at the project root runs it.
    assert_eq!(codes(&fresh(&ws)), [("web.yaml".to_string(), "FP011")]);
    // The context's cluster learns the namespace.
    let cluster = root.join("cluster.yaml");
    std::fs::write(
        &cluster,
        CLUSTER.replace("namespace: shop", "namespace: other"),
    )
    .unwrap();
    assert!(ws.file_changed(&cluster));
    assert_eq!(codes(&fresh(&ws)), []);
    // The named file itself.
    assert!(ws.set_overlay(&web, deployment("shop")));
    assert_eq!(codes(&ws.check()), [("web.yaml".to_string(), "FP011")]);
    ws.remove_overlay(&web);
    fresh(&ws);
}

#[test]
fn an_unchanged_project_gives_the_kept_report() {
    let (_tmp, root) = project();
    let mut ws = linter().open(&[&root]);
    let first = ws.check();
    assert!(std::sync::Arc::ptr_eq(&first, &ws.check()));
    // Any change drops it, even one back to the same text.
    let text = std::fs::read_to_string(root.join("web.yaml")).unwrap();
    assert!(ws.set_overlay(&root.join("web.yaml"), text));
    let second = assert_fresh(&ws, &root);
    assert!(!std::sync::Arc::ptr_eq(&first, &second));
    assert!(std::sync::Arc::ptr_eq(&second, &ws.check()));
    ws.rescan();
    assert!(!std::sync::Arc::ptr_eq(&second, &ws.check()));
}

/// The texts each file of [`mixed_project`] takes in turn; `None` deletes it.
fn variants(file: &str) -> Vec<Option<String>> {
    let eksctl = |name: &str, shop_labels: &str, region: &str| {
        Some(format!(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: {name}\n  region: {region}\niam:\n  withOIDC: true\nfargateProfiles:\n  - name: fp-system\n    selectors:\n      - namespace: kube-system\n  - name: fp-shop\n    selectors:\n      - namespace: shop{shop_labels}\n"
        ))
    };
    let fragment = |ns: &str| {
        Some(format!(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: alpha\n  region: eu-west-1\nfargateProfiles:\n  - name: fp-batch\n    selectors:\n      - namespace: {ns}\n"
        ))
    };
    let module = |ns: &str| {
        Some(MODULE_MAIN.replace("var.namespace", ns).replace(
            "resource \"kubernetes_deployment_v1\"",
            "variable \"namespace\" {}\n\nresource \"kubernetes_deployment_v1\"",
        ))
    };
    let root = |ns: &str| {
        Some(format!(
            "module \"app\" {{\n  source    = \"../../mods/app\"\n  namespace = \"{ns}\"\n}}\n"
        ))
    };
    match file {
        "a/cluster.yaml" => vec![
            eksctl("alpha", "", "eu-west-1"),
            eksctl("alpha", "\n        labels: { tier: web }", "eu-west-1"),
            // Renamed: its workloads lose the cluster their folder gave them.
            eksctl("gamma", "", "eu-west-1"),
            // Same name as b's cluster: one cluster described twice?
            eksctl("beta", "", "eu-west-1"),
            Some("apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: [broken\n".into()),
            None,
        ],
        "a/profiles.yaml" => vec![fragment("batch"), fragment("shop"), None],
        "a/web.yaml" => vec![
            Some(deployment("shop")),
            Some(deployment("other")),
            Some(deployment("batch")),
            Some(format!(
                "# fplint: ignore-file[FP011]\n{}",
                deployment("other")
            )),
            Some(format!(
                "# fplint: ignore-file[FP011]\n{}",
                deployment("shop")
            )),
        ],
        "b/cluster.yaml" => vec![
            eksctl("beta", "", "eu-west-1"),
            eksctl("beta", "", "us-east-1"),
            eksctl("beta", "\n        labels: { tier: web }", "eu-west-1"),
            None,
        ],
        "b/web.yaml" => vec![Some(deployment("shop")), Some(deployment("nowhere")), None],
        "k8s/web.yaml" => vec![Some(deployment("other")), Some(deployment("shop"))],
        "mods/app/main.tf" => vec![module("var.namespace"), module("\"other\"")],
        "a/r1/main.tf" => vec![root("shop"), root("other")],
        "b/r2/main.tf" => vec![root("shop"), root("kube-system"), None],
        _ => vec![None],
    }
}

const MIXED: [&str; 9] = [
    "a/cluster.yaml",
    "a/profiles.yaml",
    "a/web.yaml",
    "b/cluster.yaml",
    "b/web.yaml",
    "k8s/web.yaml",
    "mods/app/main.tf",
    "a/r1/main.tf",
    "b/r2/main.tf",
];

/// Two clusters in their folders, a profile-only file joined to one, a
/// manifest `[clusters]` assigns, and a module called by a root in each
/// cluster's folder; with a configuration.
fn mixed_project() -> (tempfile::TempDir, PathBuf, Linter) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    for f in MIXED {
        let p = root.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        if let Some(text) = &variants(f)[0] {
            std::fs::write(p, text).unwrap();
        }
    }
    let config = root.join("fplint.toml");
    std::fs::write(
        &config,
        "[clusters.alpha]\npaths = [\"mods/**\"]\n\n[clusters.beta]\npaths = [\"k8s/**\"]\n\n[[per-file-ignores]]\npath = \"b/web.yaml\"\nignore = [\"FP015\"]\n",
    )
    .unwrap();
    let linter = Linter::with_choice(&[&root], &ConfigChoice::File(config)).unwrap();
    (tmp, root, linter)
}

fn assert_same(ws: &Workspace, linter: &Linter, root: &Path, step: &str) {
    let fresh = linter.check_paths(&[root]);
    assert_eq!(json(&ws.check()), json(&fresh), "after {step}");
}

/// Set `file` to its variant `v` on disk, and tell the workspace (as a
/// change on disk, or as an editor's overlay of the same text).
fn apply(ws: &mut Workspace, root: &Path, file: &str, v: usize, overlay: bool) -> String {
    let path = root.join(file);
    let text = variants(file)[v].clone();
    match &text {
        Some(t) => std::fs::write(&path, t).unwrap(),
        None => {
            let _ = std::fs::remove_file(&path);
        }
    }
    match (&text, overlay) {
        (Some(t), true) => {
            assert!(ws.set_overlay(&path, t.as_str()));
            ws.remove_overlay(&path);
        }
        _ => {
            ws.file_changed(&path);
        }
    }
    format!(
        "{file} = variant {v}{}",
        if overlay { " (overlay)" } else { "" }
    )
}

#[test]
fn named_edits_match_a_fresh_run() {
    let (_tmp, root, linter) = mixed_project();
    let mut ws = linter.open(&[&root]);
    assert_same(&ws, &linter, &root, "open");
    let builds = ws.full_builds();
    for (file, v) in [
        // Taken in place: a manifest changes namespace, then back.
        ("a/web.yaml", 1),
        ("a/web.yaml", 3),
        ("a/web.yaml", 4),
        ("k8s/web.yaml", 1),
        ("b/cluster.yaml", 2),
        // A module called by two roots.
        ("mods/app/main.tf", 1),
        ("mods/app/main.tf", 0),
        ("a/r1/main.tf", 1),
        ("b/r2/main.tf", 1),
    ] {
        let step = apply(&mut ws, &root, file, v, false);
        assert_same(&ws, &linter, &root, &step);
    }
    assert_eq!(
        ws.full_builds(),
        builds,
        "edits that change no cluster's identity are taken in place"
    );
    for (file, v) in [
        // A rename moves the folder's workloads off the cluster.
        ("a/cluster.yaml", 2),
        ("a/cluster.yaml", 0),
        // The fragment joins, then leaves, its cluster.
        ("a/profiles.yaml", 2),
        ("a/profiles.yaml", 0),
        ("a/profiles.yaml", 1),
        // A second config of the same name in another region, then the same.
        ("b/cluster.yaml", 1),
        ("a/cluster.yaml", 3),
        ("a/cluster.yaml", 4),
        // The file that defines a cluster deleted.
        ("b/cluster.yaml", 3),
        ("b/cluster.yaml", 0),
        ("b/r2/main.tf", 2),
    ] {
        let step = apply(&mut ws, &root, file, v, false);
        assert_same(&ws, &linter, &root, &step);
    }
}

#[test]
fn random_edit_sequences_match_a_fresh_run() {
    for seed in [1u64, 7, 42] {
        let (_tmp, root, linter) = mixed_project();
        let mut ws = linter.open(&[&root]);
        let mut state = seed;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % n
        };
        for _ in 0..30 {
            let file = MIXED[next(MIXED.len())];
            let v = next(variants(file).len());
            let overlay = next(2) == 0;
            let step = apply(&mut ws, &root, file, v, overlay);
            assert_same(&ws, &linter, &root, &format!("seed {seed}: {step}"));
        }
    }
}

#[test]
fn plain_manifests_created_or_deleted_need_no_walk() {
    let (_tmp, root) = project();
    let mut ws = linter().open(&[&root]);
    let stray = root.join("stray.yaml");
    std::fs::write(&stray, deployment("other")).unwrap();
    assert!(ws.walk_unneeded(std::slice::from_ref(&stray)));
    assert!(ws.file_changed(&stray));
    assert_eq!(
        codes(&assert_fresh(&ws, &root)),
        [("stray.yaml".to_string(), "FP011")]
    );
    std::fs::remove_file(&stray).unwrap();
    assert!(ws.walk_unneeded(std::slice::from_ref(&stray)));
    assert!(ws.file_changed(&stray));
    assert!(codes(&assert_fresh(&ws, &root)).is_empty());
    // A deleted file the project never had, a folder, a Terraform file, a
    // hidden folder: the walk decides.
    assert!(!ws.walk_unneeded(&[root.join("never.yaml")]));
    assert!(!ws.walk_unneeded(&[root.join("tf")]));
    std::fs::write(root.join("tf/extra.tf"), "locals {}\n").unwrap();
    assert!(!ws.walk_unneeded(&[root.join("tf/extra.tf")]));
    std::fs::create_dir(root.join(".hidden")).unwrap();
    std::fs::write(root.join(".hidden/x.yaml"), deployment("other")).unwrap();
    assert!(!ws.walk_unneeded(&[root.join(".hidden/x.yaml")]));
    // An ignore file with a rule: it might name the new file.
    std::fs::write(&stray, deployment("other")).unwrap();
    std::fs::write(root.join(".gitignore"), "# nothing\n\n").unwrap();
    assert!(ws.walk_unneeded(std::slice::from_ref(&stray)));
    std::fs::write(root.join(".gitignore"), "stray.yaml\n").unwrap();
    assert!(!ws.walk_unneeded(std::slice::from_ref(&stray)));
    ws.rescan();
    assert_fresh(&ws, &root);
}

#[test]
fn a_new_configuration_keeps_the_models() {
    let (_tmp, root) = project();
    std::fs::write(root.join("web.yaml"), deployment("other")).unwrap();
    let open_with = |root: &Path| {
        Linter::with_choice(&[root], &ConfigChoice::Discover)
            .unwrap()
            .with_options(Options {
                config: ConfigChoice::Discover,
                project_context: true,
                ..Options::default()
            })
    };
    let mut ws = open_with(&root).open(&[&root]);
    let read = ws.check().sources.len();
    assert_eq!(codes(&ws.check()), [("web.yaml".to_string(), "FP011")]);
    std::fs::write(root.join("fplint.toml"), "ignore = [\"FP011\"]\n").unwrap();
    ws.reconfigure(open_with(&root));
    let report = ws.check();
    assert!(codes(&report).is_empty());
    assert_eq!(json(&report), json(&open_with(&root).check_paths(&[&root])));
    // No file was read again.
    assert_eq!(report.sources.len(), read);
    std::fs::remove_file(root.join("fplint.toml")).unwrap();
    ws.reconfigure(open_with(&root));
    assert_eq!(codes(&ws.check()), [("web.yaml".to_string(), "FP011")]);
}

/// A file reached two ways (a link to it, and itself) is shown under the
/// path without a link, as a run shows it, on opening and after a change
/// made through either path.
#[cfg(unix)]
#[test]
fn a_file_reached_two_ways_keeps_its_path_across_changes() {
    let (_tmp, root) = project();
    let root = root.canonicalize().unwrap();
    std::os::unix::fs::symlink("web.yaml", root.join("alias.yaml")).unwrap();
    std::fs::write(root.join("web.yaml"), deployment("other")).unwrap();
    let shown = |r: &fplint::Report| -> Vec<String> {
        let files = r.diagnostics().iter().filter_map(|d| r.file(d));
        files.map(|f| f.path.clone()).collect()
    };
    let web = root.join("web.yaml").to_string_lossy().into_owned();
    let mut ws = linter().open(&[&root]);
    assert_eq!(shown(&assert_fresh(&ws, &root)), std::slice::from_ref(&web));
    for changed in ["alias.yaml", "web.yaml"] {
        std::fs::write(root.join("web.yaml"), deployment(changed)).unwrap();
        assert!(ws.file_changed(&root.join(changed)));
        assert_eq!(
            shown(&assert_fresh(&ws, &root)),
            [web.as_str()],
            "{changed}"
        );
    }
}
