//! Terraform through the command line: a folder is one module, and a `.tf`
//! file named alone is read with its siblings for context while only its own
//! findings are reported.

use std::path::Path;
use std::process::Command;

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&p, text) {
        panic!("write {}: {e}", p.display());
    }
}

fn concise(args: &[&str], cwd: &Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "--format", "concise", "--no-config", "--quiet"])
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output();
    match o {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => panic!("{e}"),
    }
}

const EKS: &str = r#"module "eks" {
  source       = "terraform-aws-modules/eks/aws"
  cluster_name = "demo"
  fargate_profiles = {
    karpenter = { selectors = [{ namespace = "karpenter" }] }
    spare     = { selectors = [{ namespace = "karpenter" }] }
  }
}
"#;

const KARPENTER: &str = r#"resource "helm_release" "karpenter" {
  name      = "karpenter"
  namespace = "karpenter"
  chart     = "karpenter"
}
"#;

#[test]
fn a_named_file_is_read_with_its_siblings_and_reported_alone() {
    let d = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    write(d.path(), "infra/eks.tf", EKS);
    write(d.path(), "infra/karpenter.tf", KARPENTER);
    // The whole folder: FP002 (karpenter.tf) and FP010 (eks.tf, two profiles
    // select `karpenter`).
    let all = concise(&["infra"], d.path());
    assert!(all.contains("infra/karpenter.tf:1:1: FP002"), "{all}");
    assert!(
        all.contains("infra/eks.tf:") && all.contains("FP010"),
        "{all}"
    );
    // karpenter.tf alone still sees the module in eks.tf, but reports only itself.
    let one = concise(&["infra/karpenter.tf"], d.path());
    assert!(one.contains("infra/karpenter.tf:1:1: FP002"), "{one}");
    assert!(!one.contains("eks.tf"), "{one}");
    // eks.tf alone: nothing of karpenter.tf.
    let other = concise(&["infra/eks.tf"], d.path());
    assert!(!other.contains("karpenter.tf"), "{other}");
}
