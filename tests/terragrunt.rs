//! Terragrunt units through the real binary: a unit linted alone reads the
//! files it includes above it and gives the findings the whole tree gives;
//! findings in included files are placed at the unit, and those in the
//! unit's module code stay there however the unit is named; a root
//! configuration and a module folder a unit calls are not linted as units
//! of their own; bad and cyclic trees end with FP000 or nothing, never a
//! crash.

use std::path::Path;
use std::process::Command;

fn run(args: &[&str]) -> (serde_json::Value, Option<i32>) {
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
        Ok(v) => (v, out.status.code()),
        Err(e) => panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)),
    }
}

/// Each finding as `file:line CODE`, with its related places as `file:line message`.
fn findings(args: &[&str]) -> Vec<(String, Vec<String>)> {
    let (v, _) = run(args);
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
                format!(
                    "{}:{} {}",
                    d["file"].as_str().unwrap_or(""),
                    d["line"],
                    d["code"].as_str().unwrap_or("")
                ),
                related,
            )
        })
        .collect()
}

const REGISTRY: &str = "tests/fixtures/FP005/fire_tg_registry_eks_labels_not_on_coredns";

#[test]
fn a_unit_alone_reads_its_includes_above_it() {
    let unit = format!("{REGISTRY}/live/prod/eks");
    let alone = findings(&[&unit]);
    assert_eq!(
        alone,
        [(
            format!("{unit}/terragrunt.hcl:20 FP005"),
            vec![format!(
                "{unit}/terragrunt.hcl:14 cluster defined here, with no node groups"
            )]
        )]
    );
    assert_eq!(findings(&[REGISTRY]), alone);
    // Named as a file, too.
    assert_eq!(findings(&[&format!("{unit}/terragrunt.hcl")]), alone);
}

#[test]
fn the_unit_reports_the_cluster_under_its_computed_name() {
    let (v, code) = run(&[REGISTRY]);
    assert_eq!(code, Some(1));
    let message = v["diagnostics"][0]["message"].as_str().unwrap_or("");
    // `shop-${local.env.locals.environment}`, through read_terragrunt_config.
    assert!(message.contains("cluster `shop-prod`"), "{message}");
}

#[test]
fn a_finding_in_an_included_file_is_placed_at_the_include() {
    let dir = "tests/fixtures/FP006/fire_tg_git_source_deep_include";
    assert_eq!(
        findings(&[dir]),
        [(
            format!("{dir}/live/prod/eks/terragrunt.hcl:5 FP006"),
            vec![
                format!("{dir}/_envcommon/eks.hcl:11 inside `include.envcommon`"),
                format!("{dir}/live/prod/eks/terragrunt.hcl:11 cluster without node groups"),
            ]
        )]
    );
}

#[test]
fn module_code_on_disk_is_linted_through_the_unit() {
    let dir = "tests/fixtures/FP005/fire_tg_local_source_no_kube_system";
    let unit = format!("{dir}/live/prod/eks/terragrunt.hcl");
    let module = format!("{dir}/modules/eks/main.tf");
    // The whole tree: once, in the module's code, the unit related; the
    // module's folder is not linted again as a root.
    assert_eq!(
        findings(&[dir]),
        [(
            format!("{module}:9 FP005"),
            vec![format!("{unit}:1 `module.terragrunt` is called here")]
        )]
    );
    // The module's code is the unit's own: the unit alone, named as a
    // folder or a file, and the module's folder or file alone, report the
    // same finding in the same place.
    for named in [
        format!("{dir}/live/prod/eks"),
        unit.clone(),
        format!("{dir}/modules/eks"),
        module.clone(),
    ] {
        assert_eq!(findings(&[&named]), findings(&[dir]), "{named}");
    }
}

#[test]
fn a_root_configuration_is_not_a_unit_that_runs_a_module() {
    let dir = "tests/terragrunt/legacy_root";
    assert_eq!(
        findings(&[dir]),
        [(
            format!("{dir}/live/eks/terragrunt.hcl:10 FP005"),
            Vec::new()
        )]
    );
}

#[test]
fn invalid_hcl_is_fp000_at_the_error() {
    let dir = "tests/terragrunt/broken";
    let (v, code) = run(&[dir]);
    assert_eq!(code, Some(2));
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "FP000");
    assert_eq!(d["file"], format!("{dir}/live/eks/terragrunt.hcl"));
    assert_eq!(d["line"], 8);
}

#[test]
fn cyclic_includes_and_dependencies_end() {
    let (v, code) = run(&["tests/terragrunt/cycle"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(0));
}

#[test]
fn stack_units_are_ordered_by_their_dependencies() {
    let fire = "tests/fixtures/FP003/fire_tg_stack_units_unordered";
    let got = findings(&[fire]);
    assert_eq!(got.len(), 1, "{got:?}");
    // Only unit `batch`'s profile is the later one: the finding is that
    // unit's, at its block in the stack (the module's code is shared).
    assert_eq!(
        got[0].0,
        format!("{fire}/live/prod/terragrunt.stack.hcl:7 FP003")
    );
    let quiet = "tests/fixtures/FP003/quiet_tg_stack_units_ordered_by_dependency";
    assert_eq!(findings(&[quiet]), []);
}

#[test]
fn a_units_clusters_live_in_the_units_folder() {
    // Both units run the same module: the manifest beside unit `a` belongs
    // to cluster `a`, not to the folder of the module's code.
    let dir = "tests/terragrunt/homes";
    let (v, _) = run(&[dir]);
    let d = &v["diagnostics"];
    assert_eq!(d.as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(d[0]["code"], "FP011");
    assert_eq!(d[0]["file"], format!("{dir}/live/a/app.yaml"));
    let message = d[0]["message"].as_str().unwrap_or("");
    assert!(message.contains("cluster `a`"), "{message}");
}
