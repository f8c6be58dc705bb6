use super::*;
use crate::model::Known;

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    for (name, text) in files {
        let p = dir.path().join(name);
        if let Some(parent) = p.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = std::fs::write(&p, text) {
            panic!("write {}: {e}", p.display());
        }
    }
    dir
}

fn load(dir: &Path, unit: &str) -> UnitOutput {
    let sources = Sources::new(vec![dir.to_path_buf()]);
    let f = match sources.load(&dir.join(unit)) {
        Ok(f) => f,
        Err(e) => panic!("load {unit}: {e}"),
    };
    load_unit(&f, &sources, Limits::default())
}

/// Each cluster as `name: profile[namespace,...] ...`, `?` where unknown.
fn clusters(out: &UnitOutput) -> Vec<String> {
    let text = |k: &Known<String>| k.known().cloned().unwrap_or_else(|| "?".into());
    out.clusters
        .iter()
        .map(|c| {
            let mut profiles: Vec<String> = c
                .fargate_profiles
                .iter()
                .map(|p| {
                    let ns = match &p.selectors {
                        Known::Known(s) => s
                            .iter()
                            .map(|s| text(&s.namespace.value))
                            .collect::<Vec<_>>()
                            .join(","),
                        Known::Unknown => "?".into(),
                    };
                    format!("{}[{ns}]", text(&p.name.value))
                })
                .collect();
            profiles.sort();
            format!("{}: {}", text(&c.name.value), profiles.join(" "))
        })
        .collect()
}

const EKS: &str = "tfr:///terraform-aws-modules/eks/aws?version=20.8.4";

fn unit(include: &str, inputs: &str) -> String {
    format!("{include}\nterraform {{\n  source = \"{EKS}\"\n}}\n\ninputs = {inputs}\n")
}

const PARENT: &str = r#"
inputs = {
  cluster_name = "parent"
  fargate_profiles = {
    system = { selectors = [{ namespace = "kube-system" }] }
  }
}
"#;

const CHILD_INPUTS: &str = r#"{
  fargate_profiles = {
    apps = { selectors = [{ namespace = "shop" }] }
  }
}"#;

#[test]
fn shallow_merge_replaces_the_parents_top_level_inputs() {
    let inc = "include \"root\" {\n  path = find_in_parent_folders(\"root.hcl\")\n}\n";
    let t = tree(&[
        ("root.hcl", PARENT),
        ("live/eks/terragrunt.hcl", &unit(inc, CHILD_INPUTS)),
    ]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    assert_eq!(clusters(&out), vec!["parent: apps[shop]"]);
}

#[test]
fn deep_merge_joins_the_parents_maps() {
    let inc = "include \"root\" {\n  path = find_in_parent_folders(\"root.hcl\")\n  merge_strategy = \"deep\"\n}\n";
    let t = tree(&[
        ("root.hcl", PARENT),
        ("live/eks/terragrunt.hcl", &unit(inc, CHILD_INPUTS)),
    ]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    assert_eq!(
        clusters(&out),
        vec!["parent: apps[shop] system[kube-system]"]
    );
}

#[test]
fn no_merge_only_exposes_the_parent() {
    let inc = "include \"root\" {\n  path = find_in_parent_folders(\"root.hcl\")\n  merge_strategy = \"no_merge\"\n  expose = true\n}\n";
    let inputs = r#"{
  cluster_name = "${include.root.inputs.cluster_name}-child"
  fargate_profiles = include.root.inputs.fargate_profiles
}"#;
    let t = tree(&[
        ("root.hcl", PARENT),
        ("live/eks/terragrunt.hcl", &unit(inc, inputs)),
    ]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    assert_eq!(clusters(&out), vec!["parent-child: system[kube-system]"]);
}

#[test]
fn an_included_file_is_evaluated_in_the_units_folder() {
    // `path_relative_to_include` in the parent: the unit's path below it.
    let parent = r#"
locals {
  parent_dir = get_parent_terragrunt_dir()
}
inputs = {
  cluster_name = replace(path_relative_to_include(), "/", "-")
}
"#;
    let inc =
        "include \"root\" {\n  path = find_in_parent_folders(\"root.hcl\")\n  expose = true\n}\n";
    let inputs = r#"{
  fargate_profiles = {
    apps = { selectors = [{ namespace = basename(include.root.locals.parent_dir) }] }
  }
}"#;
    let t = tree(&[
        ("infra/root.hcl", parent),
        ("infra/live/prod/eks/terragrunt.hcl", &unit(inc, inputs)),
    ]);
    let out = load(t.path(), "infra/live/prod/eks/terragrunt.hcl");
    assert_eq!(clusters(&out), vec!["live-prod-eks: apps[infra]"]);
}

#[test]
fn read_terragrunt_config_and_fallbacks() {
    let inputs = r#"{
  cluster_name = local.env.locals.name
  fargate_profiles = {
    apps = { selectors = [{ namespace = local.missing }] }
  }
}"#;
    let locals = "locals {\n  env = read_terragrunt_config(find_in_parent_folders(\"env.hcl\"))\n  missing = find_in_parent_folders(\"nowhere.hcl\", \"kube-system\")\n}\n";
    let t = tree(&[
        ("env.hcl", "locals {\n  name = \"shop\"\n}\n"),
        ("live/eks/terragrunt.hcl", &unit(locals, inputs)),
    ]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    assert_eq!(clusters(&out), vec!["shop: apps[kube-system]"]);
}

#[test]
fn a_missing_parent_leaves_the_inputs_unknown() {
    let inc = "include \"root\" {\n  path = find_in_parent_folders(\"root.hcl\")\n}\n";
    let t = tree(&[("live/eks/terragrunt.hcl", &unit(inc, CHILD_INPUTS))]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    // What the parent would add is unknown: no cluster is modelled.
    assert!(out.clusters.is_empty());
    assert!(out.diagnostics.is_empty());
}

#[test]
fn unknown_functions_and_env_without_default_are_unknown() {
    let inputs = r#"{
  cluster_name = get_env("CLUSTER")
  fargate_profiles = {
    apps = { selectors = [{ namespace = run_cmd("echo", "shop") }] }
  }
}"#;
    let t = tree(&[("live/eks/terragrunt.hcl", &unit("", inputs))]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    assert_eq!(clusters(&out), vec!["?: apps[?]"]);
}

#[test]
fn dependency_outputs_come_from_the_dependencys_module() {
    let module = r#"
variable "name" {}
output "cluster_name" { value = "${var.name}-eks" }
output "other" { value = data.aws_caller_identity.this.account_id }
"#;
    let dep =
        "terraform {\n  source = \"../../modules/name\"\n}\ninputs = {\n  name = \"shop\"\n}\n";
    let inputs = r#"{
  cluster_name = dependency.names.outputs.cluster_name
  fargate_profiles = {
    apps = { selectors = [{ namespace = dependency.names.outputs.other }] }
  }
}"#;
    let deps = "dependency \"names\" {\n  config_path = \"../names\"\n  mock_outputs = { other = \"mocked\" }\n}\n";
    let t = tree(&[
        ("modules/name/main.tf", module),
        ("live/names/terragrunt.hcl", dep),
        ("live/eks/terragrunt.hcl", &unit(deps, inputs)),
    ]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    // Mock outputs are never facts: `other` stays unknown.
    assert_eq!(clusters(&out), vec!["shop-eks: apps[?]"]);
}

#[test]
fn dependency_cycles_end_unknown() {
    let a = "dependency \"b\" {\n  config_path = \"../b\"\n}\nterraform {\n  source = \"tfr:///terraform-aws-modules/eks/aws?version=20.8.4\"\n}\ninputs = {\n  cluster_name = dependency.b.outputs.cluster_name\n}\n";
    let b = a
        .replace("\"b\"", "\"a\"")
        .replace("../b", "../a")
        .replace("dependency.b", "dependency.a");
    let inc = "include {\n  path = \"../a/terragrunt.hcl\"\n}\n";
    let t = tree(&[
        ("live/a/terragrunt.hcl", a),
        ("live/b/terragrunt.hcl", &b),
        ("live/c/terragrunt.hcl", &format!("{inc}{a}")),
    ]);
    for u in ["live/a/terragrunt.hcl", "live/c/terragrunt.hcl"] {
        let out = load(t.path(), u);
        assert_eq!(clusters(&out), vec!["?: "], "{u}");
    }
}

#[test]
fn invalid_hcl_is_a_parse_error() {
    let t = tree(&[("live/eks/terragrunt.hcl", "inputs = {\n  a = \n")]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    assert_eq!(out.diagnostics.len(), 1);
    assert_eq!(out.diagnostics[0].code, crate::diagnostic::PARSE_ERROR);
    assert!(out.clusters.is_empty());
}

#[test]
fn sources_as_terragrunt_fetches_them() {
    let dir = Path::new("/r/live/eks");
    assert_eq!(
        classify("../../modules//eks", dir),
        Source::Local(PathBuf::from("/r/modules/eks"))
    );
    assert_eq!(
        classify("/r/modules//eks?ref=x", dir),
        Source::Local(PathBuf::from("/r/modules/eks"))
    );
    assert_eq!(
        classify(EKS, dir),
        Source::Eks {
            source: "terraform-aws-modules/eks/aws".into(),
            version: Some("20.8.4".into())
        }
    );
    assert_eq!(
        classify(
            "tfr://registry.terraform.io/terraform-aws-modules/eks/aws//modules/fargate-profile?version=19.0.1",
            dir
        ),
        Source::Eks {
            source: "terraform-aws-modules/eks/aws//modules/fargate-profile".into(),
            version: Some("19.0.1".into())
        }
    );
    assert_eq!(
        classify(
            "git::https://github.com/terraform-aws-modules/terraform-aws-eks.git?ref=v17.24.0",
            dir
        ),
        Source::Eks {
            source: "git::https://github.com/terraform-aws-modules/terraform-aws-eks.git".into(),
            version: Some("17.24.0".into())
        }
    );
    assert_eq!(
        classify(
            "github.com/terraform-aws-modules/terraform-aws-eks//.?ref=v18.24.1",
            dir
        ),
        Source::Eks {
            source: "github.com/terraform-aws-modules/terraform-aws-eks".into(),
            version: Some("18.24.1".into())
        }
    );
    assert_eq!(
        classify("git::git@github.com:acme/eks.git//cluster?ref=main", dir),
        Source::Unknown
    );
    assert_eq!(
        classify("tfr:///terraform-aws-modules/vpc/aws?version=5.0.0", dir),
        Source::Unknown
    );
}

#[test]
fn stack_templates_are_not_units_alone() {
    assert!(reads_values("inputs = { a = values.name }"));
    assert!(!reads_values("inputs = { a = local.values.name }"));
    assert!(!reads_values("inputs = { a = my_values.name }"));
}

#[test]
fn a_repeated_input_takes_its_last_value() {
    let inputs = r#"{
  cluster_name = "first"
  fargate_profiles = {}
  cluster_name = "shop"
}"#;
    let t = tree(&[("live/eks/terragrunt.hcl", &unit("", inputs))]);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(clusters(&out), vec!["shop: "]);
}

#[test]
fn a_unit_that_may_be_skipped_builds_nothing_known() {
    let cases = [
        ("skip = true\n", 0),
        ("skip = get_env(\"SKIP\")\n", 0),
        ("exclude {\n  if = true\n  actions = [\"all\"]\n}\n", 0),
        ("skip = false\n", 1),
    ];
    for (head, n) in cases {
        let t = tree(&[("live/eks/terragrunt.hcl", &unit(head, CHILD_INPUTS))]);
        let out = load(t.path(), "live/eks/terragrunt.hcl");
        assert_eq!(out.clusters.len(), n, "{head}");
    }
}

#[test]
fn files_that_read_each_other_many_times_end() {
    // Each file reads the next one ten times: 10^8 reads unbounded.
    let mut files: Vec<(String, String)> = Vec::new();
    for i in 0..8 {
        let reads: String = (0..10)
            .map(|k| format!("  r{k} = read_terragrunt_config(\"f{}.hcl\")\n", i + 1))
            .collect();
        files.push((
            format!("live/eks/f{i}.hcl"),
            format!("locals {{\n{reads}}}\n"),
        ));
    }
    files.push((
        "live/eks/terragrunt.hcl".into(),
        unit(
            "locals {\n  x = read_terragrunt_config(\"f0.hcl\")\n}\n",
            "{\n  cluster_name = \"shop\"\n}",
        ),
    ));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let t = tree(&refs);
    let out = load(t.path(), "live/eks/terragrunt.hcl");
    assert_eq!(clusters(&out), vec!["shop: "]);
}
