use super::load_module;
use crate::frontend::UnitOutput;
use crate::model::{Capacity, Known};
use crate::sources::Sources;
use crate::tree::Limits;
use crate::value::{Value, ValueKind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

static N: AtomicUsize = AtomicUsize::new(0);

/// Write a module folder and load it, every `.tf` given.
pub(super) fn load(files: &[(&str, &str)]) -> (UnitOutput, Sources, PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "fplint-tf-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for (name, text) in files {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(p, text).unwrap();
    }
    let sources = Sources::new(vec![dir.clone()]);
    let given: Vec<_> = files
        .iter()
        .filter(|(n, _)| (n.ends_with(".tf") || n.ends_with(".tf.json")) && !n.contains('/'))
        .map(|(n, _)| sources.load(&dir.join(n)).unwrap())
        .collect();
    let out = load_module(&dir, &given, &sources, Limits::default());
    (out, sources, dir)
}

fn slice(sources: &Sources, v: &Value) -> String {
    let s = v.span.unwrap();
    sources.get(s.file).unwrap().slice(s).to_string()
}

fn tolerations(out: &UnitOutput) -> Value {
    let r = &out.clusters[0].helm_releases[0];
    r.values
        .known()
        .unwrap()
        .get("tolerations")
        .unwrap()
        .clone()
}

const CLUSTER: &str = r#"
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
  cluster_name = local.name
  fargate_profiles = {
    karpenter = {
      selectors = [{ namespace = "karpenter" }]
    }
  }
}
locals {
  name = "demo-${local.env}"
  env  = "prod"
}
"#;

#[test]
fn invalid_hcl_is_fp000_with_location() {
    let (out, sources, _) = load(&[("main.tf", "resource \"a\" \"b\" {\n  x = \n}\n")]);
    let d = &out.diagnostics[0];
    assert_eq!(d.code, "FP000");
    let f = sources.get(d.span.file).unwrap();
    assert!(f.line_col(d.span.start as usize).line >= 2);
}

#[test]
fn eks_module_profiles_and_locals_in_any_order() {
    let (out, _, _) = load(&[("main.tf", CLUSTER)]);
    let c = &out.clusters[0];
    assert_eq!(c.name.known().map(String::as_str), Some("demo-prod"));
    assert_eq!(c.capacity, Capacity::None);
    assert_eq!(c.fargate_profiles.len(), 1);
    let p = &c.fargate_profiles[0];
    assert_eq!(p.name.known().map(String::as_str), Some("karpenter"));
    let sel = &p.selectors.known().unwrap()[0];
    assert_eq!(sel.namespace.known().map(String::as_str), Some("karpenter"));
    assert_eq!(
        &*sel.loc.path,
        "module.eks.fargate_profiles.karpenter.selectors[0]"
    );
    assert!(!p.created_concurrently);
}

#[test]
fn heredoc_values_keep_spans_with_dedent_and_interpolation() {
    let tf = format!(
        "{CLUSTER}\nresource \"helm_release\" \"karpenter\" {{\n  namespace = \"karpenter\"\n  chart = \"karpenter\"\n  values = [\n    <<-EOT\n    settings:\n      clusterName: ${{module.eks.cluster_name}}\n    tolerations:\n      - key: eks.amazonaws.com/compute-type\n        operator: Exists\n    EOT\n  ]\n}}\n"
    );
    let (out, sources, _) = load(&[("main.tf", &tf)]);
    let tol = tolerations(&out);
    let item = &tol.as_list().unwrap()[0];
    let key = item.get("key").unwrap();
    assert_eq!(slice(&sources, key), "eks.amazonaws.com/compute-type");
    let v = out.clusters[0].helm_releases[0].values.known().unwrap();
    let cn = v.get("settings").unwrap().get("clusterName").unwrap();
    assert!(cn.is_unknown());
}

#[test]
fn yamlencode_values_point_at_hcl_keys() {
    let tf = format!(
        "{CLUSTER}\nresource \"helm_release\" \"k\" {{\n  namespace = \"karpenter\"\n  chart = \"karpenter\"\n  values = [yamlencode({{\n    tolerations = [{{ key = \"CriticalAddonsOnly\", operator = \"Exists\" }}]\n  }})]\n}}\n"
    );
    let (out, sources, _) = load(&[("main.tf", &tf)]);
    let r = &out.clusters[0].helm_releases[0];
    let v = r.values.known().unwrap();
    let ValueKind::Map(entries) = &v.kind else {
        panic!()
    };
    let (k, _) = &entries[0];
    let f = sources.get(k.span.unwrap().file).unwrap();
    assert_eq!(f.slice(k.span.unwrap()), "tolerations");
    let key = tolerations(&out).as_list().unwrap()[0]
        .get("key")
        .unwrap()
        .clone();
    assert_eq!(slice(&sources, &key), "\"CriticalAddonsOnly\"");
}

#[test]
fn file_values_point_into_the_values_file() {
    let tf = format!(
        "{CLUSTER}\nresource \"helm_release\" \"k\" {{\n  namespace = \"karpenter\"\n  chart = \"karpenter\"\n  values = [file(\"${{path.module}}/values.yaml\")]\n}}\n"
    );
    let values =
        "replicas: 1\ntolerations:\n  - key: eks.amazonaws.com/compute-type\n    value: fargate\n";
    let (out, sources, _) = load(&[("main.tf", &tf), ("values.yaml", values)]);
    let key = tolerations(&out).as_list().unwrap()[0]
        .get("value")
        .unwrap()
        .clone();
    let f = sources.get(key.span.unwrap().file).unwrap();
    assert!(f.path.ends_with("values.yaml"));
    assert_eq!(f.slice(key.span.unwrap()), "fargate");
}

#[test]
fn set_blocks_build_paths_with_escaped_dots() {
    let tf = format!(
        "{CLUSTER}\nresource \"helm_release\" \"k\" {{\n  namespace = \"karpenter\"\n  chart = \"karpenter\"\n  set {{\n    name  = \"tolerations[0].key\"\n    value = \"eks.amazonaws.com/compute-type\"\n  }}\n  set {{\n    name  = \"serviceAccount.annotations.eks\\\\.amazonaws\\\\.com/role-arn\"\n    value = \"arn\"\n  }}\n}}\n"
    );
    let (out, sources, _) = load(&[("main.tf", &tf)]);
    let key = tolerations(&out).as_list().unwrap()[0]
        .get("key")
        .unwrap()
        .clone();
    assert_eq!(slice(&sources, &key), "\"eks.amazonaws.com/compute-type\"");
    let v = out.clusters[0].helm_releases[0].values.known().unwrap();
    let ann = v.get("serviceAccount").unwrap().get("annotations").unwrap();
    assert!(ann.get("eks.amazonaws.com/role-arn").is_some());
}

#[test]
fn raw_resources_for_each_dynamic_and_awscc() {
    let tf = r#"
resource "aws_eks_cluster" "this" {
  name = var.name
}
variable "name" { default = "c1" }
locals {
  profiles = { a = ["ns-a"], b = ["ns-b1", "ns-b2"] }
}
resource "aws_eks_fargate_profile" "p" {
  for_each     = local.profiles
  cluster_name = aws_eks_cluster.this.name
  fargate_profile_name = each.key
  dynamic "selector" {
    for_each = each.value
    content {
      namespace = selector.value
    }
  }
}
resource "awscc_eks_fargate_profile" "x" {
  cluster_name = "c1"
  selectors = [{ namespace = "x", labels = [{ key = "a", value = "b" }] }]
}
"#;
    let (out, _, _) = load(&[("main.tf", tf)]);
    assert_eq!(out.clusters.len(), 1);
    let c = &out.clusters[0];
    assert_eq!(c.fargate_profiles.len(), 3);
    let b = &c.fargate_profiles[1];
    assert_eq!(b.name.known().map(String::as_str), Some("b"));
    assert_eq!(b.selectors.known().unwrap().len(), 2);
    let x = &c.fargate_profiles[2];
    assert!(x.created_concurrently);
    assert_eq!(
        x.selectors.known().unwrap()[0].known_labels(),
        Some(vec![("a", "b")])
    );
}

#[test]
fn ordering_through_module_outputs() {
    let tf = format!(
        "{CLUSTER}\nresource \"helm_release\" \"a\" {{\n  chart = \"x\"\n  depends_on = [module.eks]\n}}\nresource \"helm_release\" \"b\" {{\n  chart = \"x\"\n  name = module.eks.cluster_name\n}}\nresource \"helm_release\" \"c\" {{\n  chart = \"x\"\n  name = local.n\n}}\nlocals {{ n = length(module.eks.fargate_profiles) }}\n"
    );
    let (out, _, _) = load(&[("main.tf", &tf)]);
    assert_eq!(releases_after_profile(&out), [true, false, true]);
}

#[test]
fn node_groups_make_capacity() {
    let tf = CLUSTER.replace(
        "  fargate_profiles",
        "  eks_managed_node_groups = { a = {} }\n  fargate_profiles",
    );
    let (out, _, _) = load(&[("main.tf", &tf)]);
    assert!(matches!(out.clusters[0].capacity, Capacity::Declared(_)));
    let tf = CLUSTER.replace(
        "  fargate_profiles",
        "  eks_managed_node_groups = var.ngs\n  fargate_profiles",
    ) + "variable \"ngs\" {}\n";
    let (out, _, _) = load(&[("main.tf", &tf)]);
    assert_eq!(out.clusters[0].capacity, Capacity::Unknown);
}

#[test]
fn tfvars_override_defaults_and_unknown_functions_are_unknown() {
    let tf = "variable \"ns\" { default = \"a\" }\nresource \"aws_eks_cluster\" \"c\" { name = \"c\" }\nresource \"aws_eks_fargate_profile\" \"p\" {\n  cluster_name = aws_eks_cluster.c.name\n  selector { namespace = var.ns }\n  selector { namespace = nosuch(var.ns) }\n}\n";
    let (out, _, _) = load(&[("main.tf", tf), ("terraform.tfvars", "ns = \"b\"\n")]);
    let s = out.clusters[0].fargate_profiles[0]
        .selectors
        .known()
        .unwrap()
        .clone();
    assert_eq!(s[0].namespace.known().map(String::as_str), Some("b"));
    assert_eq!(s[1].namespace.value, Known::Unknown);
}

#[test]
fn local_modules_are_followed() {
    let root = "resource \"aws_eks_cluster\" \"c\" { name = \"c\" }\nmodule \"fp\" {\n  source = \"./modules/fp\"\n  cluster = aws_eks_cluster.c.name\n  namespaces = [\"a\", \"b\"]\n}\n";
    let child = "variable \"cluster\" {}\nvariable \"namespaces\" {}\nresource \"aws_eks_fargate_profile\" \"p\" {\n  cluster_name = var.cluster\n  dynamic \"selector\" {\n    for_each = var.namespaces\n    content { namespace = selector.value }\n  }\n}\n";
    let (out, _, _) = load(&[("main.tf", root), ("modules/fp/main.tf", child)]);
    assert_eq!(out.clusters.len(), 1);
    assert_eq!(
        out.clusters[0].fargate_profiles[0]
            .selectors
            .known()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn hostile_recursion_stays_bounded() {
    let tf = "locals {\n  a = local.b\n  b = local.a\n  c = [for i in range(100000) : i]\n}\nresource \"aws_eks_cluster\" \"c\" { name = local.a }\n";
    let (out, _, _) = load(&[("main.tf", tf)]);
    assert_eq!(out.clusters[0].name.value, Known::Unknown);
}

fn fixture(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(rel);
    std::fs::read_to_string(p).unwrap()
}

/// A project holding only the unit's dependency graph, to ask it questions.
fn project_of(out: &UnitOutput) -> crate::model::Project {
    crate::model::Project {
        graphs: vec![out.graph.clone().unwrap()],
        ..Default::default()
    }
}

/// For each Helm release of the first cluster: whether it is ordered after
/// the cluster's first Fargate profile.
fn releases_after_profile(out: &UnitOutput) -> Vec<bool> {
    let g = project_of(out);
    let c = &out.clusters[0];
    let p = c.fargate_profiles[0].resource.unwrap();
    c.helm_releases
        .iter()
        .map(|h| g.depends_on(h.resource.unwrap(), p))
        .collect()
}

/// What FP003 reads: which profiles may be created together.
fn parallel_pairs(out: &UnitOutput) -> usize {
    let project = project_of(out);
    let ps = &out.clusters[0].fargate_profiles;
    let mut n = 0;
    for (i, a) in ps.iter().enumerate() {
        for b in &ps[i + 1..] {
            let (Some(ra), Some(rb)) = (a.resource, b.resource) else {
                continue;
            };
            if a.created_concurrently
                && b.created_concurrently
                && !project.depends_on(ra, rb)
                && !project.depends_on(rb, ra)
            {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn awscc_profiles_are_concurrent_unless_ordered() {
    let (out, _, _) = load(&[("main.tf", &fixture("FP003/fire_awscc_parallel/main.tf"))]);
    assert_eq!(parallel_pairs(&out), 1);
    let (out, _, _) = load(&[("main.tf", &fixture("FP003/quiet_awscc_chained/main.tf"))]);
    assert_eq!(out.clusters[0].fargate_profiles.len(), 2);
    assert_eq!(parallel_pairs(&out), 0);
    let (out, _, _) = load(&[(
        "main.tf",
        &fixture("FP003/quiet_aws_provider_serialised/main.tf"),
    )]);
    assert_eq!(out.clusters[0].fargate_profiles.len(), 2);
    assert_eq!(parallel_pairs(&out), 0);
}

#[test]
fn for_each_profiles_count_one_each() {
    let (out, _, _) = load(&[("main.tf", &fixture("FP004/fire_for_each_profiles/main.tf"))]);
    assert_eq!(out.clusters[0].fargate_profiles.len(), 11);
    let (out, _, _) = load(&[("main.tf", &fixture("FP004/quiet_unknown_for_each/main.tf"))]);
    assert!(out.clusters[0].profiles_incomplete);
    assert!(out.clusters[0].fargate_profiles.is_empty());
}

#[test]
fn long_local_chains_fit_a_small_stack() {
    let mut tf = String::from("locals {\n");
    for i in 0..3000 {
        tf.push_str(&format!(
            "  l{i} = merge(local.l{}, {{ a = [for x in [1] : x] }})\n",
            i + 1
        ));
    }
    tf.push_str("  l3000 = {}\n}\nresource \"aws_eks_cluster\" \"c\" { name = local.l0.a[0] }\n");
    let h = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let (out, _, _) = load(&[("main.tf", &tf)]);
            out.clusters.len()
        })
        .unwrap();
    assert_eq!(h.join().unwrap(), 1);
}

/// Truncated and spliced corpus files must not panic (run with --ignored).
#[test]
#[ignore]
fn mangled_corpus_does_not_panic() {
    let root = std::path::PathBuf::from("/work/shared/corpus/files");
    let mut stack = vec![root];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "tf") {
                files.push(std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("fplint-mangle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for text in &files {
        let step = (text.len() / 40).max(1);
        let mut cut = 0;
        while cut < text.len() {
            if text.is_char_boundary(cut) {
                let mangled = format!(
                    "{}{}",
                    &text[..cut],
                    &text[text.len() - (text.len() - cut) / 2..]
                        .chars()
                        .rev()
                        .collect::<String>()
                );
                std::fs::write(dir.join("main.tf"), &mangled[..]).unwrap();
                let sources = Sources::new(vec![dir.clone()]);
                let f = sources.load(&dir.join("main.tf")).unwrap();
                let _ = super::load_module_here(&dir, &[f], &sources, Limits::default());
                std::fs::write(dir.join("main.tf"), &text[..cut]).unwrap();
                let sources = Sources::new(vec![dir.clone()]);
                let f = sources.load(&dir.join("main.tf")).unwrap();
                let _ = super::load_module_here(&dir, &[f], &sources, Limits::default());
            }
            cut += step;
        }
    }
}

/// Parse and load speed on the corpus's large.tf:
/// `cargo test --release -p fplint-core large_tf_speed -- --ignored --nocapture`
#[test]
#[ignore]
fn large_tf_speed() {
    let p = std::path::Path::new(
        "/work/shared/corpus/files/martinohmann__hcl-rs/crates/testdata/data/large.tf",
    );
    let text = std::fs::read_to_string(p).unwrap();
    let mb = text.len() as f64 / 1e6;
    let n = 50;
    let t = std::time::Instant::now();
    for _ in 0..n {
        assert!(hcl_edit::parser::parse_body(&text).is_ok());
    }
    let parse = t.elapsed().as_secs_f64() / n as f64;
    let dir = p.parent().unwrap().to_path_buf();
    let t = std::time::Instant::now();
    for _ in 0..n {
        let sources = Sources::new(vec![dir.clone()]);
        let f = sources.load(p).unwrap();
        let out = super::load_module_here(&dir, &[f], &sources, Limits::default());
        assert!(out.diagnostics.is_empty());
    }
    let load = t.elapsed().as_secs_f64() / n as f64;
    eprintln!(
        "large.tf {} bytes: parse {:.2} ms ({:.1} MB/s), parse+evaluate+model {:.2} ms ({:.1} MB/s)",
        text.len(),
        parse * 1e3,
        mb / parse,
        load * 1e3,
        mb / load
    );
}

#[test]
fn subnet_visibility_from_routes_ips_and_vpc_module() {
    use crate::model::SubnetVisibility::{Private, Public};
    let tf = r#"
resource "aws_eks_cluster" "c" { name = "c" }
resource "aws_internet_gateway" "igw" {}
resource "aws_subnet" "pub" { map_public_ip_on_launch = true }
resource "aws_subnet" "routed" {}
resource "aws_subnet" "priv" {}
resource "aws_route_table" "public" {}
resource "aws_route" "out" {
  route_table_id = aws_route_table.public.id
  gateway_id     = aws_internet_gateway.igw.id
}
resource "aws_route_table" "private" {
  route {
    cidr_block     = "0.0.0.0/0"
    nat_gateway_id = "nat-1"
  }
}
resource "aws_route_table_association" "a" {
  subnet_id      = aws_subnet.routed.id
  route_table_id = aws_route_table.public.id
}
resource "aws_route_table_association" "b" {
  subnet_id      = aws_subnet.priv.id
  route_table_id = aws_route_table.private.id
}
resource "aws_eks_fargate_profile" "p" {
  cluster_name = aws_eks_cluster.c.name
  subnet_ids   = [aws_subnet.pub.id, aws_subnet.routed.id, aws_subnet.priv.id]
  selector { namespace = "a" }
}
resource "aws_eks_fargate_profile" "q" {
  cluster_name = aws_eks_cluster.c.name
  subnet_ids   = module.vpc.public_subnets
  selector { namespace = "b" }
}
"#;
    let (out, _, _) = load(&[("main.tf", tf)]);
    let ps = &out.clusters[0].fargate_profiles;
    let vis = |i: usize| -> Vec<Known<crate::model::SubnetVisibility>> {
        ps[i]
            .subnets
            .known()
            .unwrap()
            .iter()
            .map(|s| s.visibility.clone())
            .collect()
    };
    assert_eq!(
        vis(0),
        vec![
            Known::Known(Public),
            Known::Known(Public),
            Known::Known(Private)
        ]
    );
    assert_eq!(vis(1), vec![Known::Known(Public)]);
}

#[test]
fn local_module_outputs_are_tracked_one_by_one() {
    let root = r#"
resource "aws_eks_cluster" "c" { name = "c" }
module "fargate" {
  source  = "./modules/fargate"
  cluster = aws_eks_cluster.c.name
}
resource "helm_release" "after" {
  chart = "x"
  name  = module.fargate.profile_arn
}
resource "helm_release" "not_after" {
  chart = "x"
  name  = module.fargate.cluster
}
resource "helm_release" "whole" {
  chart      = "x"
  depends_on = [module.fargate]
}
"#;
    let child = r#"
variable "cluster" {}
resource "aws_eks_fargate_profile" "p" {
  cluster_name = var.cluster
  selector { namespace = "x" }
}
output "profile_arn" { value = aws_eks_fargate_profile.p.arn }
output "cluster" { value = var.cluster }
"#;
    let (out, _, _) = load(&[("main.tf", root), ("modules/fargate/main.tf", child)]);
    assert_eq!(releases_after_profile(&out), [true, false, true]);
}

#[test]
fn templatefile_values_keep_structure_and_spans() {
    let tf = format!(
        "{CLUSTER}\nresource \"helm_release\" \"k\" {{\n  namespace = \"karpenter\"\n  chart = \"karpenter\"\n  values = [templatefile(\"${{path.module}}/v.tpl\", {{ c = module.eks.cluster_name }})]\n}}\n"
    );
    let tpl = "settings:\n  clusterName: ${c}\ntolerations:\n  - key: eks.amazonaws.com/compute-type\n    operator: Exists\n";
    let (out, sources, _) = load(&[("main.tf", &tf), ("v.tpl", tpl)]);
    let v = out.clusters[0].helm_releases[0]
        .values
        .known()
        .unwrap()
        .clone();
    assert!(v
        .get("settings")
        .unwrap()
        .get("clusterName")
        .unwrap()
        .is_unknown());
    let op = tolerations(&out).as_list().unwrap()[0]
        .get("operator")
        .unwrap()
        .clone();
    let f = sources.get(op.span.unwrap().file).unwrap();
    assert!(f.path.ends_with("v.tpl"));
    assert_eq!(f.slice(op.span.unwrap()), "Exists");
    let src = &out.clusters[0].helm_releases[0].value_sources[0];
    assert_eq!(src.kind, crate::model::ValueSourceKind::File);
    let mf = sources.get(src.loc.span.file).unwrap();
    assert!(mf.slice(src.loc.span).starts_with("templatefile("));
}

#[test]
fn templatefile_renders_known_variables_where_they_are_written() {
    let tf = format!(
        "{CLUSTER}\nvariable \"ns\" {{ default = \"karpenter\" }}\nresource \"helm_release\" \"k\" {{\n  namespace = \"karpenter\"\n  chart = \"karpenter\"\n  values = [templatefile(\"${{path.module}}/v.tpl\", {{ ns = var.ns, n = 2, c = module.eks.cluster_name }})]\n}}\n"
    );
    let tpl = "a: ${ns}\nb: \"${ns}-x\"\nc: ${n}\nd: ${c}\ne: ${ns}${c}\nf: $${ns}\n";
    let (out, sources, _) = load(&[("main.tf", &tf), ("v.tpl", tpl)]);
    let v = out.clusters[0].helm_releases[0]
        .values
        .known()
        .unwrap()
        .clone();
    let a = v.get("a").unwrap();
    assert_eq!(a.as_str(), Some("karpenter"));
    assert_eq!(slice(&sources, a), "${ns}");
    assert_eq!(v.get("b").unwrap().as_str(), Some("karpenter-x"));
    assert_eq!(v.get("c").unwrap().kind, ValueKind::Number("2".into()));
    for unknown in ["d", "e", "f"] {
        assert!(v.get(unknown).unwrap().is_unknown(), "{unknown}");
    }
}

#[test]
fn one_template_for_two_calls_keeps_only_what_they_agree_on() {
    let tf = format!(
        "{CLUSTER}\nresource \"helm_release\" \"a\" {{\n  namespace = \"a\"\n  chart = \"x\"\n  values = [templatefile(\"v.tpl\", {{ ns = \"a\", k = \"same\" }})]\n}}\nresource \"helm_release\" \"b\" {{\n  namespace = \"b\"\n  chart = \"x\"\n  values = [templatefile(\"v.tpl\", {{ ns = \"b\", k = \"same\" }})]\n}}\n"
    );
    let tpl = "ns: ${ns}\nk: ${k}\n";
    let (out, _, _) = load(&[("main.tf", &tf), ("v.tpl", tpl)]);
    for r in &out.clusters[0].helm_releases {
        let v = r.values.known().unwrap();
        assert_eq!(v.get("k").unwrap().as_str(), Some("same"));
        let ns = v.get("ns").unwrap();
        assert!(ns.is_unknown() || ns.as_str() == r.namespace.value.known().map(String::as_str));
    }
}

#[test]
fn plain_heredoc_with_crlf_keeps_spans() {
    let tf = format!(
        "{CLUSTER}\r\nresource \"helm_release\" \"k\" {{\r\n  namespace = \"karpenter\"\r\n  chart = \"karpenter\"\r\n  values = [<<EOT\r\ntolerations:\r\n  - operator: Exists\r\nEOT\r\n  ]\r\n}}\r\n"
    );
    let (out, sources, _) = load(&[("main.tf", &tf)]);
    let op = tolerations(&out).as_list().unwrap()[0]
        .get("operator")
        .unwrap()
        .clone();
    assert_eq!(slice(&sources, &op), "Exists");
}

#[test]
fn repeated_local_modules_are_read_once_per_instance() {
    let root = "resource \"aws_eks_cluster\" \"c\" { name = \"c\" }\nmodule \"fp\" {\n  source   = \"./fp\"\n  for_each = { a = [\"ns-a\"], b = [\"ns-b\", \"ns-c\"] }\n  cluster  = aws_eks_cluster.c.name\n  name     = each.key\n  namespaces = each.value\n}\n";
    let child = "variable \"cluster\" {}\nvariable \"name\" {}\nvariable \"namespaces\" {}\nresource \"aws_eks_fargate_profile\" \"p\" {\n  cluster_name = var.cluster\n  fargate_profile_name = var.name\n  dynamic \"selector\" {\n    for_each = var.namespaces\n    content { namespace = selector.value }\n  }\n}\n";
    let (out, _, _) = load(&[("main.tf", root), ("fp/main.tf", child)]);
    let ps = &out.clusters[0].fargate_profiles;
    assert_eq!(ps.len(), 2);
    assert_eq!(ps[1].name.known().map(String::as_str), Some("b"));
    assert_eq!(ps[1].selectors.known().unwrap().len(), 2);
    assert_ne!(ps[0].resource, ps[1].resource);
}

#[test]
fn copying_large_values_is_bounded() {
    let tf = "locals {\n  big = { for i in range(5000) : \"k${i}\" => [i, i, i] }\n  all = [for i in range(5000) : local.big]\n  name = length(local.all) > 0 ? \"c\" : \"d\"\n}\nresource \"aws_eks_cluster\" \"c\" { name = local.name }\n";
    let t = std::time::Instant::now();
    let (out, _, _) = load(&[("main.tf", tf)]);
    assert!(t.elapsed().as_secs() < 20);
    assert_eq!(out.clusters[0].name.value, Known::Unknown);
}

#[test]
fn kubectl_and_kubernetes_manifests_become_workloads() {
    let tf = format!(
        "{CLUSTER}\nresource \"kubectl_manifest\" \"app\" {{\n  yaml_body = <<-YAML\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: app\n      namespace: ${{var.ns}}\n    spec:\n      template:\n        spec:\n          containers:\n            - name: app\n              image: nginx\n  YAML\n  override_namespace = \"karpenter\"\n  depends_on = [module.eks]\n}}\nresource \"kubernetes_manifest\" \"job\" {{\n  manifest = {{\n    apiVersion = \"batch/v1\"\n    kind = \"Job\"\n    metadata = {{ name = \"j\", namespace = \"jobs\" }}\n    spec = {{ template = {{ spec = {{ containers = [{{ name = \"j\", image = \"busybox\" }}] }} }} }}\n  }}\n}}\n"
    );
    let (out, sources, _) = load(&[("main.tf", &tf)]);
    assert_eq!(out.workloads.len(), 2);
    let w = &out.workloads[0];
    assert_eq!(w.namespace.known().map(String::as_str), Some("karpenter"));
    assert_eq!(w.cluster_key.as_deref(), Some("demo-prod"));
    let f = sources.get(w.loc.span.file).unwrap();
    assert_eq!(f.slice(w.loc.span), "Deployment");
    let g = project_of(&out);
    let p = out.clusters[0].fargate_profiles[0].resource.unwrap();
    assert!(g.depends_on(w.resource.unwrap(), p));
    assert_eq!(
        out.workloads[1].namespace.known().map(String::as_str),
        Some("jobs")
    );
}

#[test]
fn kubernetes_deployment_blocks_become_workloads() {
    let tf = format!(
        r#"{CLUSTER}
resource "kubernetes_deployment_v1" "app" {{
  metadata {{
    name = "app"
  }}
  spec {{
    replicas = 2
    template {{
      metadata {{
        labels = {{ app = "x" }}
      }}
      spec {{
        node_selector = {{ "kubernetes.io/os" = "linux" }}
        toleration {{
          key      = "eks.amazonaws.com/compute-type"
          operator = "Equal"
          value    = "fargate"
          effect   = "NoSchedule"
        }}
        container {{
          name  = "app"
          image = "nginx"
          resources {{
            requests = {{ cpu = "250m", memory = "512Mi" }}
          }}
        }}
      }}
    }}
  }}
}}
"#
    );
    let (out, sources, _) = load(&[("main.tf", &tf)]);
    assert_eq!(out.workloads.len(), 1);
    let w = &out.workloads[0];
    assert_eq!(w.kind, crate::workload::WorkloadKind::Deployment);
    assert_eq!(w.namespace.known().map(String::as_str), Some("default"));
    let tols = w.pod.tolerations.known().unwrap();
    assert_eq!(
        tols[0].tolerates("eks.amazonaws.com/compute-type", "fargate", "NoSchedule"),
        Known::Known(true)
    );
    let f = sources.get(tols[0].loc.span.file).unwrap();
    assert!(f.slice(tols[0].loc.span).starts_with("toleration {"));
    let c = &w.pod.containers.known().unwrap()[0];
    assert_eq!(c.requests.cpu, Known::Known(Some(250)));
    assert_eq!(w.pod.known_labels(), Some(vec![("app", "x")]));
}

#[test]
fn namespace_from_a_kubernetes_namespace_block() {
    let tf = format!(
        "{CLUSTER}\nresource \"kubernetes_namespace_v1\" \"k\" {{\n  metadata {{\n    name = \"karpenter\"\n  }}\n}}\nresource \"helm_release\" \"k\" {{\n  chart     = \"karpenter\"\n  namespace = kubernetes_namespace_v1.k.metadata[0].name\n}}\n"
    );
    let (out, _, _) = load(&[("main.tf", &tf)]);
    let r = &out.clusters[0].helm_releases[0];
    assert_eq!(r.namespace.known().map(String::as_str), Some("karpenter"));
}

#[test]
fn pod_execution_role_policies_and_trust() {
    let tf = r#"
resource "aws_eks_cluster" "c" { name = "c" }
resource "aws_iam_role" "fargate" {
  name = "fargate-pods"
  path = "/eks/"
  assume_role_policy = jsonencode({
    Statement = [{
      Action    = "sts:AssumeRole"
      Effect    = "Allow"
      Principal = { Service = "eks-fargate-pods.amazonaws.com" }
    }]
    Version = "2012-10-17"
  })
}
resource "aws_iam_role_policy_attachment" "fargate" {
  role       = aws_iam_role.fargate.name
  policy_arn = "arn:aws:iam::aws:policy/AmazonEKSFargatePodExecutionRolePolicy"
}
resource "aws_eks_fargate_profile" "a" {
  cluster_name           = aws_eks_cluster.c.name
  pod_execution_role_arn = aws_iam_role.fargate.arn
  selector { namespace = "a" }
}
resource "aws_eks_fargate_profile" "b" {
  cluster_name           = aws_eks_cluster.c.name
  pod_execution_role_arn = aws_iam_role.fargate.arn
  selector { namespace = "b" }
}
"#;
    let (out, sources, _) = load(&[("main.tf", tf)]);
    let roles = &out.clusters[0].execution_roles;
    assert_eq!(roles.len(), 1);
    let r = &roles[0];
    assert_eq!(r.profiles, vec![0, 1]);
    assert_eq!(r.path.known().map(String::as_str), Some("/eks/"));
    let p = r.policies.known().unwrap();
    assert!(p[0]
        .known()
        .unwrap()
        .ends_with("AmazonEKSFargatePodExecutionRolePolicy"));
    let t = r.trusted_services.known().unwrap();
    assert_eq!(
        t[0].known().map(String::as_str),
        Some("eks-fargate-pods.amazonaws.com")
    );
    let f = sources.get(r.loc.span.file).unwrap();
    assert_eq!(f.slice(r.loc.span), "resource \"aws_iam_role\" \"fargate\"");
}

#[test]
fn releases_in_a_local_module_inherit_its_depends_on() {
    let root = format!(
        "{CLUSTER}\nmodule \"addons\" {{\n  source = \"./addons\"\n  cluster = module.eks.cluster_name\n  depends_on = [module.eks]\n}}\nmodule \"early\" {{\n  source = \"./addons\"\n  cluster = module.eks.cluster_name\n}}\n"
    );
    let child = "variable \"cluster\" {}\nresource \"helm_release\" \"k\" {\n  chart = \"karpenter\"\n  namespace = \"karpenter\"\n}\n";
    let (out, _, _) = load(&[("main.tf", &root), ("addons/main.tf", child)]);
    assert_eq!(releases_after_profile(&out), [true, false]);
}

#[test]
fn json_tfvars_are_read_after_hcl_ones() {
    let tf = "variable \"ns\" { default = \"a\" }\nresource \"aws_eks_cluster\" \"c\" { name = \"c\" }\nresource \"aws_eks_fargate_profile\" \"p\" {\n  cluster_name = aws_eks_cluster.c.name\n  selector { namespace = var.ns }\n}\n";
    let (out, _, _) = load(&[
        ("main.tf", tf),
        ("terraform.tfvars", "ns = \"b\"\n"),
        ("z.auto.tfvars.json", "{\"ns\": \"c\"}\n"),
    ]);
    let s = out.clusters[0].fargate_profiles[0]
        .selectors
        .known()
        .unwrap()
        .clone();
    assert_eq!(s[0].namespace.known().map(String::as_str), Some("c"));
}

#[test]
fn eks_module_inputs_across_versions() {
    // v17: cluster_name, fargate_profiles with selectors, node_groups.
    let v17 = "module \"eks\" {\n  source = \"terraform-aws-modules/eks/aws\"\n  version = \"17.24.0\"\n  cluster_name = \"old\"\n  node_groups = {}\n  fargate_profiles = {\n    default = {\n      name = \"default\"\n      selectors = [{ namespace = \"kube-system\", labels = { k8s-app = \"kube-dns\" } }]\n      subnets = [\"subnet-1\"]\n    }\n  }\n}\n";
    let (out, _, _) = load(&[("main.tf", v17)]);
    let c = &out.clusters[0];
    assert_eq!(c.name.known().map(String::as_str), Some("old"));
    assert_eq!(c.capacity, Capacity::None);
    let sel = &c.fargate_profiles[0].selectors.known().unwrap()[0];
    assert_eq!(sel.known_labels(), Some(vec![("k8s-app", "kube-dns")]));
    assert_eq!(c.fargate_profiles[0].subnets.known().map(Vec::len), Some(1));
    // v21: name, addons with before_compute, fargate-profile sub-module.
    let v21 = "module \"eks\" {\n  source = \"terraform-aws-modules/eks/aws\"\n  version = \"~> 21.0\"\n  name = \"new\"\n  addons = {\n    coredns = {\n      before_compute = true\n      configuration_values = jsonencode({ computeType = \"fargate\" })\n    }\n  }\n}\nmodule \"fp\" {\n  source = \"terraform-aws-modules/eks/aws//modules/fargate-profile\"\n  name = \"separate\"\n  cluster_name = module.eks.cluster_name\n  selectors = [{ namespace = \"kube-system\" }]\n}\nmodule \"off\" {\n  source = \"terraform-aws-modules/eks/aws//modules/fargate-profile\"\n  create = false\n  cluster_name = module.eks.cluster_name\n}\n";
    let (out, sources, _) = load(&[("main.tf", v21)]);
    let c = &out.clusters[0];
    assert_eq!(out.clusters.len(), 1);
    assert_eq!(c.name.known().map(String::as_str), Some("new"));
    assert_eq!(c.fargate_profiles.len(), 1);
    assert_eq!(
        c.fargate_profiles[0].name.known().map(String::as_str),
        Some("separate")
    );
    let a = &c.addons[0];
    assert!(a.before_compute);
    let cfg = a.configuration.as_ref().unwrap().known().unwrap();
    let ct = cfg.get("computeType").unwrap();
    assert_eq!(slice(&sources, ct), "\"fargate\"");
}

#[test]
fn empty_defaults_of_a_module_meant_to_be_called_are_unknown() {
    let module = "variable \"cluster_name\" { default = \"\" }\nvariable \"selectors\" { default = [] }\nresource \"aws_eks_fargate_profile\" \"this\" {\n  cluster_name = var.cluster_name\n  dynamic \"selector\" {\n    for_each = var.selectors\n    content { namespace = selector.value.namespace }\n  }\n}\n";
    let (out, _, _) = load(&[("main.tf", module)]);
    assert_eq!(
        out.clusters[0].fargate_profiles[0]
            .selectors
            .known()
            .map(Vec::len),
        None
    );
    // With a provider configured the folder is a root module: defaults hold.
    let root = format!("provider \"aws\" {{}}\n{module}");
    let (out, _, _) = load(&[("main.tf", &root)]);
    assert_eq!(
        out.clusters[0].fargate_profiles[0]
            .selectors
            .known()
            .map(Vec::len),
        Some(0)
    );
}

#[test]
fn repeated_object_keys_parse_and_the_last_wins() {
    let tf = "locals {\n  ng = {\n    min_size = 2\n    \"max\" = 1\n    min_size = 4\n    \"max\" = 5\n  }\n}\nresource \"aws_eks_cluster\" \"c\" { name = \"c-${local.ng.min_size}-${local.ng.max}\" }\n";
    let (out, _, _) = load(&[("main.tf", tf)]);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(
        out.clusters[0].name.known().map(String::as_str),
        Some("c-4-5")
    );
    // Repeated attributes of a block stay an error, as in Terraform.
    let (out, _, _) = load(&[("main.tf", "resource \"a\" \"b\" {\n  x = 1\n  x = 2\n}\n")]);
    assert_eq!(out.diagnostics[0].code, "FP000");
}

#[test]
fn many_short_repeated_keys_terminate() {
    let mut tf = String::from("locals {\n  o = {\n");
    for i in 0..300 {
        tf.push_str(&format!("    a = {i}\n    b = {i}\n"));
    }
    tf.push_str("  }\n}\nresource \"aws_eks_cluster\" \"c\" { name = \"c-${local.o.a}\" }\n");
    let (out, _, _) = load(&[("main.tf", &tf)]);
    // Either read (the last `a` wins) or reported, never stuck.
    match out.clusters.first() {
        Some(c) => assert_eq!(c.name.known().map(String::as_str), Some("c-299")),
        None => assert_eq!(out.diagnostics[0].code, "FP000"),
    }
}

#[test]
fn repeated_affinity_blocks_are_lists() {
    let tf = r#"
resource "kubernetes_deployment_v1" "api" {
  metadata {
    name      = "api"
    namespace = "apps"
  }
  spec {
    template {
      spec {
        affinity {
          node_affinity {
            required_during_scheduling_ignored_during_execution {
              node_selector_term {
                match_expressions {
                  key      = "a"
                  operator = "Exists"
                }
              }
              node_selector_term {
                match_fields {
                  key      = "metadata.name"
                  operator = "In"
                  values   = ["n1"]
                }
              }
            }
          }
          pod_anti_affinity {
            required_during_scheduling_ignored_during_execution {
              topology_key = "kubernetes.io/hostname"
            }
            required_during_scheduling_ignored_during_execution {
              topology_key = "topology.kubernetes.io/zone"
            }
          }
        }
        container {
          name  = "api"
          image = "nginx"
        }
      }
    }
  }
}
"#;
    let (out, _s, _d) = load(&[("main.tf", tf)]);
    let affinity = out.workloads[0]
        .pod
        .affinity
        .as_ref()
        .and_then(|a| a.known())
        .unwrap();
    let len = |v: Option<&Value>| v.and_then(Value::as_list).map(<[Value]>::len);
    let node = affinity
        .get("nodeAffinity")
        .and_then(|n| n.get("requiredDuringSchedulingIgnoredDuringExecution"));
    // One node selector (a map) holding a list of terms.
    assert_eq!(len(node), None);
    let terms = node.and_then(|n| n.get("nodeSelectorTerms"));
    assert_eq!(len(terms), Some(2));
    let second = terms.and_then(Value::as_list).map(|t| &t[1]);
    assert_eq!(len(second.and_then(|t| t.get("matchFields"))), Some(1));
    // Pod (anti-)affinity's required rules are a list of terms.
    let anti = affinity
        .get("podAntiAffinity")
        .and_then(|n| n.get("requiredDuringSchedulingIgnoredDuringExecution"));
    assert_eq!(len(anti), Some(2));
}

#[test]
fn a_module_called_a_thousand_times_stays_bounded() {
    let root = "module \"c\" {\n  source = \"./c\"\n  count  = 1000\n  name   = \"c${count.index}\"\n}\nmodule \"d\" {\n  source = \"./c\"\n  name   = \"d\"\n}\nmodule \"e\" {\n  source = \"./c\"\n  name   = \"e\"\n}\n";
    let child = "variable \"name\" {}\nlocals { big = [for i in range(5000) : { n = i }] }\nresource \"aws_eks_cluster\" \"c\" { name = var.name }\noutput \"n\" { value = length(local.big) }\n";
    let (out, _, _) = load(&[("main.tf", root), ("c/main.tf", child)]);
    // A bounded number of copies, and FP000 says once why the rest (the
    // later calls too) are not read.
    assert_eq!(out.clusters.len(), super::MAX_MODULE_COPIES);
    let notices: Vec<_> = out
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("local module copies"))
        .collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
}

#[test]
fn module_outputs_resolve_per_instance() {
    let root = "module \"c\" {\n  source   = \"./c\"\n  for_each = toset([\"a\", \"b\"])\n  name     = \"shop-${each.key}\"\n}\nresource \"aws_eks_fargate_profile\" \"p\" {\n  cluster_name = module.c[\"b\"].cluster_name\n  selector { namespace = \"kube-system\" }\n}\n";
    let child = "variable \"name\" {}\nresource \"aws_eks_cluster\" \"this\" { name = var.name }\noutput \"cluster_name\" { value = aws_eks_cluster.this.name }\n";
    let (out, _, _) = load(&[("main.tf", root), ("c/main.tf", child)]);
    let names: Vec<(String, usize)> = out
        .clusters
        .iter()
        .map(|c| {
            (
                c.name.known().cloned().unwrap_or_default(),
                c.fargate_profiles.len(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [("shop-a".to_string(), 0), ("shop-b".to_string(), 1)]
    );
    assert_eq!(
        &*out.clusters[1].loc.path,
        "module.c[\"b\"].aws_eks_cluster.this"
    );
}

#[test]
fn tf_json_orders_by_references_and_depends_on() {
    let json = r#"{
  "resource": {
    "helm_release": {
      "a": { "chart": "x", "depends_on": ["module.eks"] },
      "b": { "chart": "x", "name": "${module.eks.cluster_name}" },
      "c": { "chart": "x", "name": "${length(module.eks.fargate_profiles)}" }
    }
  }
}"#;
    let (out, sources, _) = load(&[("main.tf", CLUSTER), ("releases.tf.json", json)]);
    assert_eq!(releases_after_profile(&out), [true, false, true]);
    // Each release is located at its name in the JSON, as a header.
    let h = &out.clusters[0].helm_releases[1];
    let f = sources.get(h.loc.span.file).unwrap();
    assert!(f.path.ends_with("releases.tf.json"));
    assert_eq!(f.slice(h.loc.span), "\"b\":");
}

#[test]
fn plan_json_orders_by_configuration() {
    let plan = r#"{
  "format_version": "1.2",
  "planned_values": { "root_module": { "resources": [
    { "address": "aws_eks_cluster.c", "mode": "managed", "type": "aws_eks_cluster", "name": "c",
      "values": { "name": "c" } },
    { "address": "aws_eks_fargate_profile.p[\"a\"]", "mode": "managed", "type": "aws_eks_fargate_profile", "name": "p", "index": "a",
      "values": { "cluster_name": "c", "fargate_profile_name": "a", "selector": [{ "namespace": "karpenter" }] } },
    { "address": "helm_release.after", "mode": "managed", "type": "helm_release", "name": "after",
      "values": { "chart": "x", "namespace": "karpenter" } },
    { "address": "helm_release.not_after", "mode": "managed", "type": "helm_release", "name": "not_after",
      "values": { "chart": "x", "namespace": "karpenter" } }
  ] } },
  "configuration": { "root_module": { "resources": [
    { "address": "helm_release.after", "depends_on": ["aws_eks_fargate_profile.p"] },
    { "address": "helm_release.not_after", "expressions": { "name": { "references": ["aws_eks_cluster.c.name", "aws_eks_cluster.c"] } } }
  ] } }
}"#;
    let file = crate::source::SourceFile::new(crate::source::FileId(0), "plan.json", plan);
    let out = crate::frontend::load_document_file(&file, Limits::default());
    assert_eq!(out.clusters.len(), 1);
    assert_eq!(out.clusters[0].fargate_profiles.len(), 1);
    assert_eq!(releases_after_profile(&out), [true, false]);
}

#[test]
fn instances_of_repeated_resources_are_read_by_index() {
    // The shape terraform-aws-eks v19-v21 uses: a counted cluster, its name
    // passed on through a counted `time_sleep`'s triggers and `id`.
    let tf = r#"
provider "aws" {}
resource "aws_eks_cluster" "this" {
  count = 1
  name  = "shop"
}
resource "time_sleep" "this" {
  count = 1
  triggers = {
    cluster_name = aws_eks_cluster.this[0].id
  }
}
resource "aws_iam_role" "none" {
  count = 0
  name  = "never"
}
resource "aws_iam_role" "named" {
  for_each = { a = "x", b = "y" }
  name     = "role-${each.value}-${each.key}"
}
resource "aws_eks_fargate_profile" "first" {
  cluster_name         = time_sleep.this[0].triggers["cluster_name"]
  fargate_profile_name = try(aws_iam_role.none[0].name, "fallback")
  selector {
    namespace = "kube-system"
  }
}
resource "aws_eks_fargate_profile" "second" {
  cluster_name         = "shop"
  fargate_profile_name = aws_iam_role.named["b"].name
  selector {
    namespace = try(aws_iam_role.named["c"].name, "apps")
  }
}
"#;
    let (out, _, _) = load(&[("main.tf", tf)]);
    assert_eq!(out.clusters.len(), 1, "{:?}", out.clusters);
    let c = &out.clusters[0];
    assert_eq!(c.name.known().map(String::as_str), Some("shop"));
    let names: Vec<_> = c
        .fargate_profiles
        .iter()
        .map(|p| p.name.known().cloned())
        .collect();
    assert_eq!(
        names,
        vec![Some("fallback".to_string()), Some("role-y-b".to_string())]
    );
    let ns = c.fargate_profiles[1].selectors.known().unwrap()[0]
        .namespace
        .known()
        .cloned();
    assert_eq!(ns.as_deref(), Some("apps"));
}

#[test]
fn an_instance_whose_count_is_unknown_stays_unknown() {
    let tf = r#"
provider "aws" {}
variable "n" {}
resource "aws_iam_role" "r" {
  count = var.n
  name  = "r"
}
resource "aws_eks_fargate_profile" "p" {
  cluster_name         = "shop"
  fargate_profile_name = try(aws_iam_role.r[0].name, "fallback")
  selector {
    namespace = "kube-system"
  }
}
"#;
    let (out, _, _) = load(&[("main.tf", tf)]);
    let p = &out.clusters[0].fargate_profiles[0];
    assert_eq!(p.name.value, Known::Unknown);
}

#[test]
fn optional_object_attributes_are_filled_from_the_variable_type() {
    // terraform-aws-eks v21 reads `each.value.name` of profiles that leave
    // it out: the variable's type makes it null, or its default.
    let tf = r#"
provider "aws" {}
variable "profiles" {
  type = map(object({
    name      = optional(string)
    namespace = optional(string, "kube-system")
  }))
  default = {
    system = {}
    apps   = { name = "apps-profile", namespace = "apps" }
  }
}
resource "aws_eks_cluster" "this" {
  name = "shop"
}
resource "aws_eks_fargate_profile" "p" {
  for_each             = var.profiles
  cluster_name         = aws_eks_cluster.this.name
  fargate_profile_name = coalesce(each.value.name, each.key)
  selector {
    namespace = each.value.namespace
  }
}
"#;
    let (out, _, _) = load(&[("main.tf", tf)]);
    let c = &out.clusters[0];
    let got: Vec<(Option<String>, Option<String>)> = c
        .fargate_profiles
        .iter()
        .map(|p| {
            let ns = p.selectors.known().unwrap()[0].namespace.known().cloned();
            (p.name.known().cloned(), ns)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (Some("apps-profile".into()), Some("apps".into())),
            (Some("system".into()), Some("kube-system".into())),
        ]
    );
}
