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
