//! Terraform module calls through the real binary: findings inside a local
//! module relate the call; linted without the module's folder, they move to
//! the call; a called folder is not linted again as a root.

use std::path::Path;
use std::process::Command;

fn json(args: &[&str]) -> serde_json::Value {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "--format", "json"])
        .args(args)
        .current_dir(repo)
        .env_remove("RAYON_NUM_THREADS")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)),
    }
}

/// (file, line, message, related as "file:line message")
fn findings(v: &serde_json::Value) -> Vec<(String, u64, String, Vec<String>)> {
    let empty = Vec::new();
    v["diagnostics"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(|d| {
            let related = d["related"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .map(|r| {
                    format!(
                        "{}:{} {}",
                        r["file"].as_str().unwrap_or(""),
                        r["line"],
                        r["message"].as_str().unwrap_or("")
                    )
                })
                .collect();
            (
                d["file"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["code"].as_str().unwrap_or("").to_string()
                    + " "
                    + d["message"].as_str().unwrap_or(""),
                related,
            )
        })
        .collect()
}

const DIR: &str = "tests/fixtures/FP005/fire_tf_local_module_per_environment";

#[test]
fn findings_in_a_module_relate_the_call_once_per_instance() {
    let got = findings(&json(&[DIR]));
    let module = format!("{DIR}/modules/cluster/main.tf");
    let call = format!("{DIR}/main.tf:3 `module.cluster` is called here");
    let messages: Vec<&str> = got.iter().map(|g| g.2.as_str()).collect();
    assert_eq!(
        messages,
        [
            "FP005 no Fargate selector of cluster `payments-prod` matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up",
            "FP005 no Fargate selector of cluster `payments-staging` matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up",
        ]
    );
    for (file, line, _, related) in &got {
        assert_eq!((file.as_str(), *line), (module.as_str(), 5));
        assert_eq!(related, std::slice::from_ref(&call));
    }
}

#[test]
fn a_module_outside_the_named_files_is_reported_at_its_call() {
    let main = format!("{DIR}/main.tf");
    let got = findings(&json(&[&main]));
    assert_eq!(got.len(), 2, "{got:?}");
    for (file, line, _, related) in &got {
        assert_eq!((file.as_str(), *line), (main.as_str(), 3));
        assert_eq!(
            related.first().map(String::as_str),
            Some(format!("{DIR}/modules/cluster/main.tf:5 inside `module.cluster`").as_str())
        );
    }
}

#[test]
fn a_called_folder_is_not_a_root_of_its_own() {
    // Alone, the module's folder is a root: its variables are unknown, so
    // the cluster's name is too and nothing names `payments-*`.
    let alone = findings(&json(&[&format!("{DIR}/modules/cluster")]));
    assert!(alone.iter().all(|g| !g.2.contains("payments")), "{alone:?}");
    // With its caller, it is read only through the calls: two findings, not three.
    assert_eq!(findings(&json(&[DIR])).len(), 2);
}

#[test]
fn placement_shows_module_addresses() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["placement", DIR])
        .current_dir(repo)
        .env("NO_COLOR", "1")
        .output();
    let out = match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    let clusters: Vec<&str> = out.lines().filter(|l| l.starts_with("cluster ")).collect();
    assert_eq!(
        clusters,
        [
            format!("cluster payments-prod (Fargate only), {DIR}/modules/cluster/main.tf:5, in module.cluster[\"prod\"]"),
            format!("cluster payments-staging (Fargate only), {DIR}/modules/cluster/main.tf:5, in module.cluster[\"staging\"]"),
        ]
    );
}

/// A plan linted with the `.tf` it was made from: the finding is at the
/// profile's block, the plan's entry related; alone, the plan keeps it.
#[test]
fn plan_findings_move_to_the_tf_block_and_relate_the_plan() {
    let dir = "tests/fixtures/FP005/fire_tf_plan_at_tf_block";
    let got = findings(&json(&[dir]));
    let profile = got
        .iter()
        .find(|f| f.0.ends_with("main.tf") && f.1 == 23)
        .unwrap_or_else(|| panic!("no finding at the profile's block: {got:?}"));
    assert_eq!(
        profile.3.first().map(String::as_str),
        Some(
            "tests/fixtures/FP005/fire_tf_plan_at_tf_block/plan.json:39 planned as `aws_eks_fargate_profile.system`"
        ),
        "{got:?}"
    );
    assert!(got.iter().all(|f| f.0.ends_with("main.tf")), "{got:?}");
    let alone = findings(&json(&[&format!("{dir}/plan.json")]));
    assert_eq!(alone.len(), 1, "{alone:?}");
    assert_eq!(alone[0].0, format!("{dir}/plan.json"));
    assert_eq!(alone[0].1, 39);
}

/// A resource of a module whose code is not on disk: at the module's call.
#[test]
fn plan_findings_inside_a_module_not_on_disk_go_to_the_call() {
    let dir = "tests/fixtures/FP005/fire_tf_plan_module_at_call";
    let got = findings(&json(&[dir]));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1),
        (&*format!("{dir}/main.tf"), 11)
    );
    assert_eq!(
        got[0].3,
        vec![format!(
            "{dir}/tfplan.json:11 planned as `module.eks.aws_eks_cluster.this[0]`"
        )]
    );
}

/// A local module shaped like terraform-aws-eks whose code models the same
/// cluster as its inputs is read as code: the finding is at the cluster
/// inside it, the call related (its inputs would put it at the call).
#[test]
fn an_eks_shaped_module_on_disk_is_read_as_code() {
    let dir = "tests/fixtures/FP005/fire_tf_eks_shaped_module_read_as_code";
    let got = findings(&json(&[dir]));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1),
        (&*format!("{dir}/eks/main.tf"), 1)
    );
    assert_eq!(
        got[0].3,
        vec![format!("{dir}/main.tf:7 `module.eks` is called here")]
    );
}

/// The same module installed by `terraform init`: read as code through
/// `modules.json`, the finding at the call, the module's line related.
#[test]
fn an_installed_eks_module_is_read_as_code() {
    let dir = "tests/fixtures/FP005/fire_tf_eks_installed_read_as_code";
    let got = findings(&json(&[dir]));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1),
        (&*format!("{dir}/main.tf"), 7)
    );
    assert_eq!(
        got[0].3,
        vec![format!(
            "{dir}/.terraform/modules/eks/main.tf:1 inside `module.eks`"
        )]
    );
}
