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

/// One module, called from `envs/prod` (Fargate only, no kube-system
/// profile) and `envs/dev` (with a node group).
const SHARED: &str = "tests/fixtures/FP005/fire_tf_shared_module_at_the_call";

fn shared_findings() -> Vec<(String, u64, String, Vec<String>)> {
    let prod = format!("{SHARED}/envs/prod/main.tf");
    let module = format!("{SHARED}/modules/eks/main.tf");
    vec![
        (
            prod.clone(),
            2,
            "FP005 no Fargate selector of cluster `shop-prod` matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up".into(),
            vec![format!("{module}:7 inside `module.eks`")],
        ),
        (
            prod,
            2,
            "FP006 the CoreDNS add-on of cluster `shop-prod` does not set `computeType` to `Fargate`: the add-on schedules CoreDNS for EC2 nodes (annotation `eks.amazonaws.com/compute-type: ec2`), and the cluster has none".into(),
            vec![
                format!("{module}:43 inside `module.eks`"),
                format!("{module}:7 cluster without node groups"),
            ],
        ),
    ]
}

#[test]
fn a_finding_one_call_gives_is_at_that_call() {
    let v = json(&[SHARED]);
    assert_eq!(findings(&v), shared_findings());
    // A fix of the module's code would change the dev cluster's add-on too.
    assert!(v["diagnostics"][1]["fix"].is_null(), "{v}");
}

#[test]
fn a_root_linted_alone_reads_its_module_outside_the_folder() {
    for given in [
        format!("{SHARED}/envs/prod"),
        format!("{SHARED}/envs/prod/main.tf"),
    ] {
        assert_eq!(findings(&json(&[&given])), shared_findings(), "{given}");
    }
    assert_eq!(findings(&json(&[&format!("{SHARED}/envs/dev")])), []);
}

#[test]
fn a_finding_every_call_gives_stays_in_the_module() {
    let dir = "tests/fixtures/FP016/fire_tf_shared_module_own_code";
    let message = "FP016 `Shop_Apps` is not a valid namespace name or pattern";
    assert_eq!(
        findings(&json(&[dir])),
        [(
            format!("{dir}/modules/eks/main.tf"),
            18,
            message.to_string(),
            vec![
                format!("{dir}/envs/dev/main.tf:1 `module.eks` is called here"),
                format!("{dir}/envs/prod/main.tf:1 `module.eks` is called here"),
            ],
        )]
    );
    // The module not linted, each root gets it at its call.
    for env in ["prod", "dev"] {
        assert_eq!(
            findings(&json(&[&format!("{dir}/envs/{env}")])),
            [(
                format!("{dir}/envs/{env}/main.tf"),
                1,
                message.to_string(),
                vec![format!("{dir}/modules/eks/main.tf:18 inside `module.eks`")],
            )]
        );
    }
}

#[test]
fn a_finding_in_a_nested_module_goes_to_the_roots_call() {
    let dir = "tests/fixtures/FP005/fire_tf_shared_module_nested_at_the_call";
    let got = findings(&json(&[dir]));
    let prod = format!("{dir}/envs/prod/main.tf");
    let at: Vec<(&str, u64, &str)> = got.iter().map(|g| (g.0.as_str(), g.1, &g.2[..5])).collect();
    assert_eq!(
        at,
        [(prod.as_str(), 2, "FP005"), (prod.as_str(), 2, "FP006")]
    );
    // Through the cluster module's call of the profiles module.
    assert_eq!(
        got[1].3[..2],
        [
            format!("{dir}/modules/cluster/main.tf:14 inside `module.cluster`"),
            format!("{dir}/modules/profiles/main.tf:19 inside `module.cluster.module.profiles`"),
        ]
    );
    for given in [
        format!("{dir}/envs/prod"),
        format!("{dir}/envs/prod/main.tf"),
    ] {
        assert_eq!(findings(&json(&[&given])), got, "{given}");
    }
}

#[test]
fn two_calls_in_one_root_are_told_apart() {
    let dir = "tests/fixtures/FP005/fire_tf_module_called_twice_in_one_root";
    let got = findings(&json(&[dir]));
    let at: Vec<(&str, u64, &str)> = got
        .iter()
        .map(|g| (g.0.as_str(), g.1, g.3[0].as_str()))
        .collect();
    let main = format!("{dir}/main.tf");
    let module = format!("{dir}/modules/eks/main.tf");
    assert_eq!(
        at,
        [
            (
                main.as_str(),
                3,
                format!("{module}:7 inside `module.prod`").as_str()
            ),
            (
                main.as_str(),
                3,
                format!("{module}:43 inside `module.prod`").as_str()
            ),
        ]
    );
}

#[test]
fn terragrunt_units_of_one_module_get_their_own_findings() {
    let dir = "tests/fixtures/FP005/fire_tg_units_share_a_local_module";
    let got = findings(&json(&[dir]));
    let unit = format!("{dir}/live/prod/terragrunt.hcl");
    let at: Vec<(&str, u64, &str)> = got
        .iter()
        .map(|g| (g.0.as_str(), g.1, g.3[0].as_str()))
        .collect();
    let module = format!("{dir}/modules/eks/main.tf");
    assert_eq!(
        at,
        [
            (
                unit.as_str(),
                2,
                format!("{module}:7 inside `module.terragrunt`").as_str()
            ),
            (
                unit.as_str(),
                2,
                format!("{module}:43 inside `module.terragrunt`").as_str()
            ),
        ]
    );
    assert_eq!(findings(&json(&[&format!("{dir}/live/prod")])), got);
}

/// The shared-module tree copied into a project of its own, `prod`'s call
/// written as given.
fn shared_copy(prod: &str) -> tempfile::TempDir {
    let tmp = match tempfile::tempdir() {
        Ok(t) => t,
        Err(e) => panic!("no temporary folder: {e}"),
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join(SHARED);
    for (from, text) in [
        ("modules/eks/main.tf", None),
        ("envs/dev/main.tf", None),
        ("envs/prod/main.tf", Some(prod)),
    ] {
        let to = tmp.path().join(from);
        let text = match text {
            Some(t) => t.to_string(),
            None => std::fs::read_to_string(repo.join(from)).unwrap_or_default(),
        };
        if let Some(dir) = to.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(&to, text) {
            panic!("cannot write {to:?}: {e}");
        }
    }
    let _ = std::fs::create_dir_all(tmp.path().join(".git"));
    tmp
}

fn codes_at(dir: &Path, path: &str) -> Vec<(String, u64, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "--format", "json", path])
        .current_dir(dir)
        .env_remove("RAYON_NUM_THREADS")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    let v: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)),
    };
    findings(&v)
        .into_iter()
        .map(|(f, l, m, _)| (f, l, m[..5].to_string()))
        .collect()
}

#[test]
fn a_suppression_at_the_call_silences_that_calls_finding() {
    let prod = "# fplint: ignore[FP005]\nmodule \"eks\" {\n  source = \"../../modules/eks\"\n\n  name               = \"shop-prod\"\n  fargate_namespaces = [\"shop\"]\n  node_group         = false\n}\n";
    let tmp = shared_copy(prod);
    let want = [("envs/prod/main.tf".to_string(), 2, "FP006".to_string())];
    assert_eq!(codes_at(tmp.path(), "."), want);
    assert_eq!(codes_at(tmp.path(), "envs/prod"), want);
}

#[test]
fn without_a_project_marker_a_root_alone_still_reads_its_module() {
    let prod = "module \"eks\" {\n  source = \"../../modules/eks\"\n\n  name               = \"shop-prod\"\n  fargate_namespaces = [\"shop\"]\n  node_group         = false\n}\n";
    let tmp = shared_copy(prod);
    let all = [
        ("envs/prod/main.tf".to_string(), 1, "FP005".to_string()),
        ("envs/prod/main.tf".to_string(), 1, "FP006".to_string()),
    ];
    assert_eq!(codes_at(tmp.path(), "envs/prod"), all);
    // Without `.git` or `fplint.toml` above it (a tarball, a CI workspace
    // without history) the module source is followed as `terraform init`
    // follows it: the same findings.
    let _ = std::fs::remove_dir(tmp.path().join(".git"));
    assert!(!tmp.path().join(".git").exists());
    assert_eq!(codes_at(tmp.path(), "envs/prod"), all);
}
