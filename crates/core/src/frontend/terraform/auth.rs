//! Who a pod execution role is across a module, and the `aws-auth` ConfigMap
//! as Terraform writes it: `kubernetes_config_map*` whose `mapRoles` comes
//! from `yamlencode` or a heredoc, and terraform-aws-eks v17-v19 managing it
//! from its inputs. Also the cluster's authentication mode, which decides
//! whether `aws-auth` matters at all.

use super::eval::{self, Env};
use super::graph::refs_of_expr;
use super::{text, Ctx};
use crate::model::{Cluster, Known, Loc, Located};
use crate::source::FileId;
use crate::value::{Value, ValueKind};
use crate::workload::{AwsAuth, RoleMapping};
use hcl_edit::expr::Expression;
use hcl_edit::structure::Body;
use hcl_edit::Span as _;

/// The groups EKS gives a pod execution role in `aws-auth`.
const FARGATE_GROUPS: [&str; 3] = [
    "system:bootstrappers",
    "system:nodes",
    "system:node-proxier",
];

/// The user name the module maps pod execution roles to.
const FARGATE_USERNAME: &str = "system:node:{{SessionName}}";

/// What defines the role an ARN expression names: `aws_iam_role.NAME` or
/// `module.NAME`, when every reference in it points there. An index names
/// one instance of a `for_each`/`count` role (`aws_iam_role.NAME["key"]`),
/// and is evaluated in `scope`; one that cannot be is no known reference.
pub fn role_ref(
    env: &Env<'_>,
    e: &Expression,
    file: FileId,
    scope: &eval::Scope,
    prefix: &str,
) -> Option<String> {
    let index = instance_index(e);
    // What the index refers to (`each.key`) is not the role.
    let mut in_index = match index {
        Index::One(i) => refs_of_expr(i),
        _ => Vec::new(),
    };
    let mut found: Option<String> = None;
    for r in refs_of_expr(e) {
        if let Some(k) = in_index.iter().position(|x| *x == r) {
            in_index.swap_remove(k);
            continue;
        }
        let target = match (r.root.as_str(), r.attrs.first()) {
            ("aws_iam_role", Some(n)) => format!("{prefix}aws_iam_role.{n}"),
            ("module", Some(n)) => format!("{prefix}module.{n}"),
            _ => return None,
        };
        match &found {
            Some(f) if *f != target => return None,
            _ => found = Some(target),
        }
    }
    let mut found = found?;
    match index {
        Index::None => {}
        Index::Many => return None,
        Index::One(i) => {
            let v = env.eval(i, file, scope).ok()?;
            match &v.kind {
                ValueKind::String(k) => found.push_str(&format!("[\"{k}\"]")),
                ValueKind::Number(n) => found.push_str(&format!("[{n}]")),
                _ => return None,
            }
        }
    }
    Some(found)
}

/// The index written after `aws_iam_role.NAME` or `module.NAME` in an
/// expression.
enum Index<'a> {
    None,
    One(&'a Expression),
    /// Several, or one in a shape not read: no single instance is known.
    Many,
}

fn instance_index(e: &Expression) -> Index<'_> {
    use hcl_edit::expr::TraversalOperator as Op;
    use hcl_edit::template::Element;
    let mut out = Index::None;
    fn walk<'a>(e: &'a Expression, out: &mut Index<'a>, depth: usize) {
        if depth > 64 || matches!(out, Index::Many) {
            return;
        }
        let put = |i: &'a Expression, out: &mut Index<'a>| {
            *out = match out {
                Index::None => Index::One(i),
                Index::One(x) if *x == i => Index::One(i),
                _ => Index::Many,
            }
        };
        match e {
            Expression::Traversal(t) => {
                let ops: Vec<&Op> = t.operators.iter().map(|o| o.value()).collect();
                match (&t.expr, ops.as_slice()) {
                    (Expression::Variable(_), [Op::GetAttr(_), Op::Index(i), ..]) => put(i, out),
                    (
                        Expression::Variable(_),
                        [Op::GetAttr(_), Op::LegacyIndex(_) | Op::AttrSplat(_) | Op::FullSplat(_), ..],
                    ) => *out = Index::Many,
                    (Expression::Variable(_), _) => {}
                    (inner, _) => walk(inner, out, depth + 1),
                }
            }
            Expression::StringTemplate(t) => {
                for el in t.iter() {
                    if let Element::Interpolation(i) = el {
                        walk(&i.expr, out, depth + 1);
                    }
                }
            }
            Expression::HeredocTemplate(h) => {
                for el in h.template.iter() {
                    if let Element::Interpolation(i) = el {
                        walk(&i.expr, out, depth + 1);
                    }
                }
            }
            Expression::Parenthesis(p) => walk(p.inner(), out, depth + 1),
            Expression::FuncCall(f) => f.args.iter().for_each(|x| walk(x, out, depth + 1)),
            Expression::Conditional(c) => {
                walk(&c.true_expr, out, depth + 1);
                walk(&c.false_expr, out, depth + 1);
            }
            _ => {}
        }
    }
    walk(e, &mut out, 0);
    out
}

/// Marks the reference of a role a module creates for its profile: no
/// other reference names it, but the module's outputs (`module.NAME.*`).
pub const CREATED: &str = "#pod-execution-role";

/// The role of a profile of terraform-aws-eks's `fargate_profiles`: the one
/// the module creates for it (reference `PATH#pod-execution-role`), or the
/// `iam_role_arn` it is given with `create_iam_role = false`.
pub fn module_profile_role(
    env: &Env<'_>,
    entry: &Value,
    defaults: Option<&Value>,
    path: &str,
    prefix: &str,
) -> (Option<Located<String>>, Option<String>) {
    let get = |k: &str| entry.get(k).or_else(|| defaults.and_then(|d| d.get(k)));
    let created = !matches!(
        get("create_iam_role").map(|v| &v.kind),
        Some(ValueKind::Bool(false))
    );
    if created {
        return (None, Some(format!("{prefix}{path}{CREATED}")));
    }
    match get("iam_role_arn") {
        Some(v) => (
            Some(super::located_str(
                Some(v),
                v.span.unwrap_or_default(),
                &crate::path::dot(path, "iam_role_arn"),
            )),
            expr_at(env, v).and_then(|e| role_ref(env, &e, file_of(v), &Vec::new(), prefix)),
        ),
        None => (None, None),
    }
}

/// The expression written where a value came from (an interpolation in a
/// heredoc counts as its expression).
fn expr_at(env: &Env<'_>, v: &Value) -> Option<Expression> {
    let span = v.span?;
    let f = env.file(span.file)?;
    let text = f.slice(span).trim();
    let text = text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text);
    hcl_edit::parser::parse_expr(text).ok()
}

/// The file a value was read from, to evaluate what is written there.
fn file_of(v: &Value) -> FileId {
    v.span.map(|s| s.file).unwrap_or_default()
}

/// The written name of `aws_iam_role.NAME` in this module.
fn role_name(env: &Env<'_>, role_ref: &str, prefix: &str) -> Option<String> {
    let key = role_ref.strip_prefix(prefix)?;
    if !key.starts_with("aws_iam_role.") {
        return None;
    }
    let &(file, body, repeated) = env.decls.resources.get(key)?;
    if repeated {
        return None;
    }
    let a = body.get_attribute("name")?;
    eval::scalar_text(&env.eval(&a.value, file, &Vec::new()).ok()?)
}

/// A managed policy ARN that is only partly known, such as
/// `arn:${data.aws_partition.current.partition}:iam::aws:policy/NAME`: its
/// text when everything after the last interpolation is written out.
pub fn policy_arn_text(env: &Env<'_>, v: &Value) -> Option<String> {
    let span = v.span?;
    let f = env.file(span.file)?;
    let text = f.slice(span).trim();
    let body = text.strip_prefix('"')?.strip_suffix('"')?;
    let tail = body.rsplit_once('}').map_or(body, |(_, t)| t);
    (tail.contains(":policy/") && !tail.contains("${")).then(|| body.to_string())
}

/// One `mapRoles` entry read from a value.
fn mapping(env: &Env<'_>, item: &Value, path: String, prefix: &str) -> RoleMapping {
    let arn = item.get("rolearn");
    let role_arn: Known<String> = arn
        .and_then(eval::scalar_text)
        .filter(|s| !s.contains("${"))
        .into();
    let role_ref = match (&role_arn, arn) {
        (Known::Unknown, Some(a)) => {
            expr_at(env, a).and_then(|e| role_ref(env, &e, file_of(a), &Vec::new(), prefix))
        }
        _ => None,
    };
    let role_name = role_ref.as_deref().and_then(|r| role_name(env, r, prefix));
    let groups = match item.get("groups").map(|g| &g.kind) {
        None => Known::Known(Vec::new()),
        Some(ValueKind::List(gs)) => gs
            .iter()
            .map(eval::scalar_text)
            .collect::<Option<Vec<_>>>()
            .into(),
        Some(_) => Known::Unknown,
    };
    let username = item
        .get("username")
        .and_then(eval::scalar_text)
        .filter(|s| !s.contains("${"))
        .into();
    RoleMapping {
        role_arn,
        role_ref,
        role_name,
        groups,
        username,
        loc: Loc::new(item.span.unwrap_or_default(), path),
    }
}

/// `mapRoles` entries from a list value; unknown when the list or an entry is.
fn mappings(env: &Env<'_>, list: &Value, path: &str, prefix: &str) -> Known<Vec<RoleMapping>> {
    let ValueKind::List(items) = &list.kind else {
        return Known::Unknown;
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if !matches!(item.kind, ValueKind::Map(_)) {
            return Known::Unknown;
        }
        out.push(mapping(env, item, crate::path::index(path, i), prefix));
    }
    Known::Known(out)
}

/// Re-read the `mapRoles` of an `aws-auth` ConfigMap declared in Terraform
/// from its structure (`yamlencode(...)`, a heredoc with interpolations), so
/// that entries whose ARN is computed still say which role they name.
pub fn refine(env: &Env<'_>, obj: &Value, auth: &mut AwsAuth, prefix: &str) {
    let Some(v) = obj.get("data").and_then(|d| d.get("mapRoles")) else {
        return;
    };
    let Some(decoded) = text::decode(env, v) else {
        return;
    };
    let path = auth
        .map_roles_loc
        .as_ref()
        .map_or_else(|| "data.mapRoles".to_string(), |l| l.path.to_string());
    auth.roles = mappings(env, &decoded, &path, prefix);
}

fn is_true(x: Option<&Value>) -> Known<bool> {
    match x.map(|x| &x.kind) {
        None => Known::Known(false),
        Some(ValueKind::Bool(b)) => Known::Known(*b),
        Some(ValueKind::String(s)) if s == "true" || s == "false" => Known::Known(s == "true"),
        Some(_) => Known::Unknown,
    }
}

/// The major version a module's `version` constraint pins (`~> 19.0`, `20.8.4`).
fn major_version(body: &Body) -> Option<u32> {
    let Some(Expression::String(s)) = body.get_attribute("version").map(|a| &a.value) else {
        return None;
    };
    let v = s.value().trim();
    // Only constraints that fix the major version: `~> X.Y`, `= X.Y.Z`, `X.Y.Z`.
    let v = v
        .strip_prefix("~>")
        .or_else(|| v.strip_prefix('='))
        .unwrap_or(v)
        .trim();
    let (major, rest) = v.split_once('.')?;
    if rest.is_empty() || v.contains(',') {
        return None;
    }
    major.parse().ok()
}

/// Inputs only terraform-aws-eks v19 and older take: they manage `aws-auth`.
const AWS_AUTH_INPUTS: &[&str] = &[
    "manage_aws_auth_configmap",
    "create_aws_auth_configmap",
    "aws_auth_roles",
    "manage_aws_auth",
    "map_roles",
];

/// The authentication mode terraform-aws-eks gives its cluster: the
/// `authentication_mode` input (v20+, default `API_AND_CONFIG_MAP`), or
/// `CONFIG_MAP` for v19 and older, which know no other.
pub fn module_authentication_mode(
    ctx: &Ctx<'_, '_>,
    body: &Body,
    file: FileId,
    sc: &eval::Scope,
) -> Known<String> {
    if let Some(m) = ctx.eval_attr(body, "authentication_mode", file, sc) {
        return eval::scalar_text(&m).into();
    }
    if AWS_AUTH_INPUTS.iter().any(|k| body.has_attribute(k)) {
        return Known::Known("CONFIG_MAP".into());
    }
    match major_version(body) {
        Some(v) if v >= 20 => Known::Known("API_AND_CONFIG_MAP".into()),
        Some(_) => Known::Known("CONFIG_MAP".into()),
        None => Known::Unknown,
    }
}

/// `aws_eks_cluster`'s `access_config.authentication_mode`; without it the
/// EKS API's default, `CONFIG_MAP`.
pub fn cluster_authentication_mode(
    ctx: &Ctx<'_, '_>,
    body: &Body,
    file: FileId,
    sc: &eval::Scope,
) -> Known<String> {
    match ctx.blocks(body, "access_config", file, sc) {
        Known::Known(blocks) => match blocks.first() {
            None => Known::Known("CONFIG_MAP".into()),
            Some(b) => match ctx.eval_attr(b.body, "authentication_mode", b.file, &b.scope) {
                None => Known::Known("CONFIG_MAP".into()),
                Some(m) => eval::scalar_text(&m).into(),
            },
        },
        Known::Unknown => Known::Unknown,
    }
}

/// The `aws-auth` ConfigMap terraform-aws-eks v17-v19 writes when asked to
/// (`manage_aws_auth`, `manage_aws_auth_configmap`, `create_aws_auth_configmap`):
/// the module's own Fargate profiles' roles with the Fargate groups, then the
/// roles its inputs add. `profiles` are the indices of the module's profiles
/// in `cluster`.
#[allow(clippy::too_many_arguments)]
pub fn module_aws_auth(
    ctx: &Ctx<'_, '_>,
    body: &Body,
    file: FileId,
    sc: &eval::Scope,
    module_path: &str,
    prefix: &str,
    cluster: &Cluster,
    profiles: std::ops::Range<usize>,
) -> Option<AwsAuth> {
    let attr = |n: &str| ctx.eval_attr(body, n, file, sc);
    let (switch, extra) = [
        ("manage_aws_auth", "map_roles"),
        ("manage_aws_auth_configmap", "aws_auth_roles"),
        ("create_aws_auth_configmap", "aws_auth_roles"),
    ]
    .into_iter()
    .find(|(s, _)| is_true(attr(s).as_ref()) == Known::Known(true))?;
    let switch_attr = body.get_attribute(switch)?;
    let at = |a: &hcl_edit::structure::Attribute, path: String| {
        Loc::new(eval::span_of(file, a.span()).unwrap_or_default(), path)
    };
    let mut roles: Vec<RoleMapping> = cluster
        .fargate_profiles
        .get(profiles)
        .unwrap_or_default()
        .iter()
        .map(|p| RoleMapping {
            role_arn: p
                .pod_execution_role
                .as_ref()
                .map_or(Known::Unknown, |r| r.value.clone()),
            role_ref: p.role_ref.clone(),
            role_name: None,
            groups: Known::Known(FARGATE_GROUPS.iter().map(|g| g.to_string()).collect()),
            username: Known::Known(FARGATE_USERNAME.to_string()),
            loc: p.loc.clone(),
        })
        .collect();
    let mut known = true;
    if let Some(v) = attr(extra) {
        match mappings(ctx.env, &v, &crate::path::dot(module_path, extra), prefix) {
            Known::Known(mut m) => roles.append(&mut m),
            Known::Unknown => known = false,
        }
    }
    if let Some(v) = attr("aws_auth_fargate_profile_pod_execution_role_arns") {
        let path = crate::path::dot(
            module_path,
            "aws_auth_fargate_profile_pod_execution_role_arns",
        );
        match &v.kind {
            ValueKind::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    let role_arn: Known<String> = eval::scalar_text(item).into();
                    let role_ref = match role_arn {
                        Known::Unknown => expr_at(ctx.env, item).and_then(|e| {
                            role_ref(ctx.env, &e, file_of(item), &Vec::new(), prefix)
                        }),
                        Known::Known(_) => None,
                    };
                    let role_name = role_ref
                        .as_deref()
                        .and_then(|r| role_name(ctx.env, r, prefix));
                    roles.push(RoleMapping {
                        role_arn,
                        role_ref,
                        role_name,
                        groups: Known::Known(
                            FARGATE_GROUPS.iter().map(|g| g.to_string()).collect(),
                        ),
                        username: Known::Known(FARGATE_USERNAME.to_string()),
                        loc: Loc::new(item.span.unwrap_or_default(), crate::path::index(&path, i)),
                    });
                }
            }
            _ => known = false,
        }
    }
    let map_roles_loc = body
        .get_attribute(extra)
        .map(|a| at(a, crate::path::dot(module_path, extra)));
    Some(AwsAuth {
        loc: at(switch_attr, crate::path::dot(module_path, switch)),
        map_roles_loc,
        roles: if known {
            Known::Known(roles)
        } else {
            Known::Unknown
        },
        cluster_key: Some(cluster.key.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::load;
    use crate::model::Known;

    const RAW: &str = r#"
resource "aws_eks_cluster" "c" {
  name     = "shop"
  role_arn = "arn:aws:iam::111122223333:role/eks"
  vpc_config {
    subnet_ids = ["subnet-1"]
  }
}
resource "aws_iam_role" "fargate" {
  name               = "shop-fargate"
  assume_role_policy = "{}"
}
resource "aws_iam_role" "admins" {
  name_prefix        = "admins-"
  assume_role_policy = "{}"
}
resource "aws_eks_fargate_profile" "p" {
  cluster_name           = aws_eks_cluster.c.name
  fargate_profile_name   = "p"
  pod_execution_role_arn = aws_iam_role.fargate.arn
  selector {
    namespace = "kube-system"
  }
}
resource "kubernetes_config_map_v1_data" "aws_auth" {
  force = true
  metadata {
    name      = "aws-auth"
    namespace = "kube-system"
  }
  data = {
    mapRoles = yamlencode([
      { rolearn = aws_iam_role.fargate.arn, groups = ["system:nodes"] },
      { rolearn = aws_iam_role.admins.arn, groups = ["system:masters"] },
      { rolearn = "arn:aws:iam::111122223333:role/ci", groups = ["system:masters"] },
    ])
  }
}
"#;

    #[test]
    fn config_map_entries_name_their_role_resources() {
        let (out, _, _) = load(&[("main.tf", RAW)]);
        let c = &out.clusters[0];
        assert_eq!(c.authentication_mode, Known::Known("CONFIG_MAP".into()));
        assert_eq!(
            c.fargate_profiles[0].role_ref.as_deref(),
            Some("aws_iam_role.fargate")
        );
        let auth = &out.aws_auth[0];
        assert_eq!(auth.cluster_key.as_deref(), Some("shop"));
        let roles = auth.roles.known().unwrap();
        assert_eq!(roles.len(), 3);
        assert_eq!(roles[0].role_ref.as_deref(), Some("aws_iam_role.fargate"));
        assert_eq!(roles[0].role_name.as_deref(), Some("shop-fargate"));
        assert_eq!(roles[0].groups, Known::Known(vec!["system:nodes".into()]));
        // A name prefix is no name.
        assert_eq!(roles[1].role_ref.as_deref(), Some("aws_iam_role.admins"));
        assert_eq!(roles[1].role_name, None);
        assert_eq!(
            roles[2].role_arn,
            Known::Known("arn:aws:iam::111122223333:role/ci".into())
        );
        assert_eq!(roles[2].role_ref, None);
    }

    #[test]
    fn for_each_roles_are_named_per_instance() {
        let raw = r#"
resource "aws_eks_cluster" "c" {
  name     = "shop"
  role_arn = "arn:aws:iam::111122223333:role/eks"
  vpc_config {
    subnet_ids = ["subnet-1"]
  }
}
locals {
  profiles = { system = "kube-system", apps = "apps" }
}
resource "aws_iam_role" "pods" {
  for_each           = local.profiles
  name_prefix        = "shop-${each.key}-"
  assume_role_policy = "{}"
}
resource "aws_eks_fargate_profile" "p" {
  for_each               = local.profiles
  cluster_name           = aws_eks_cluster.c.name
  fargate_profile_name   = each.key
  pod_execution_role_arn = aws_iam_role.pods[each.key].arn
  selector {
    namespace = each.value
  }
}
resource "kubernetes_config_map" "aws_auth" {
  metadata {
    name      = "aws-auth"
    namespace = "kube-system"
  }
  data = {
    mapRoles = <<-YAML
      - rolearn: ${aws_iam_role.pods["system"].arn}
        username: system:node:{{SessionName}}
        groups: [system:bootstrappers, system:nodes, system:node-proxier]
      - rolearn: ${aws_iam_role.pods[local.unknown].arn}
        groups: [system:masters]
    YAML
  }
}
"#;
        let (out, _, _) = load(&[("main.tf", raw)]);
        let refs: Vec<_> = out.clusters[0]
            .fargate_profiles
            .iter()
            .map(|p| p.role_ref.as_deref())
            .collect();
        assert_eq!(
            refs,
            [
                Some("aws_iam_role.pods[\"apps\"]"),
                Some("aws_iam_role.pods[\"system\"]")
            ]
        );
        let roles = out.aws_auth[0].roles.known().unwrap();
        assert_eq!(
            roles[0].role_ref.as_deref(),
            Some("aws_iam_role.pods[\"system\"]")
        );
        // An index that cannot be evaluated names no one instance.
        assert_eq!(roles[1].role_ref, None);
    }

    #[test]
    fn authentication_modes() {
        let raw = RAW.replace(
            "role_arn = \"arn:aws:iam::111122223333:role/eks\"",
            "role_arn = \"arn:aws:iam::111122223333:role/eks\"\n  access_config {\n    authentication_mode = \"API\"\n  }",
        );
        let (out, _, _) = load(&[("main.tf", &raw)]);
        assert_eq!(
            out.clusters[0].authentication_mode,
            Known::Known("API".into())
        );
        let module = |inputs: &str| {
            format!("module \"eks\" {{\n  source = \"terraform-aws-modules/eks/aws\"\n  cluster_name = \"m\"\n{inputs}\n}}\n")
        };
        for (inputs, want) in [
            (
                "  version = \"~> 20.0\"",
                Known::Known("API_AND_CONFIG_MAP"),
            ),
            ("  version = \"19.21.0\"", Known::Known("CONFIG_MAP")),
            (
                "  manage_aws_auth_configmap = true",
                Known::Known("CONFIG_MAP"),
            ),
            (
                "  version = \"~> 21.0\"\n  authentication_mode = \"API\"",
                Known::Known("API"),
            ),
            ("  version = \">= 19.0, < 21.0\"", Known::Unknown),
            ("", Known::Unknown),
        ] {
            let (out, _, _) = load(&[("main.tf", &module(inputs))]);
            assert_eq!(
                out.clusters[0].authentication_mode,
                want.map(str::to_string),
                "{inputs}"
            );
        }
    }

    #[test]
    fn module_v19_maps_its_own_profiles() {
        let tf = r#"
module "eks" {
  source                    = "terraform-aws-modules/eks/aws"
  version                   = "~> 19.0"
  cluster_name              = "shop"
  manage_aws_auth_configmap = true
  aws_auth_roles = [
    { rolearn = module.extra.iam_role_arn, username = "x", groups = ["system:nodes"] },
  ]
  fargate_profiles = {
    system = { selectors = [{ namespace = "kube-system" }] }
    given = {
      selectors       = [{ namespace = "shop" }]
      create_iam_role = false
      iam_role_arn    = "arn:aws:iam::111122223333:role/given"
    }
  }
}
module "extra" {
  source       = "terraform-aws-modules/eks/aws//modules/fargate-profile"
  cluster_name = module.eks.cluster_name
  selectors    = [{ namespace = "extra" }]
}
"#;
        let (out, _, _) = load(&[("main.tf", tf)]);
        let c = &out.clusters[0];
        let refs: Vec<Option<&str>> = c
            .fargate_profiles
            .iter()
            .map(|p| p.role_ref.as_deref())
            .collect();
        assert_eq!(
            refs,
            [
                Some("module.eks.fargate_profiles.system#pod-execution-role"),
                None,
                Some("module.extra#pod-execution-role"),
            ]
        );
        assert_eq!(
            c.fargate_profiles[1]
                .pod_execution_role
                .as_ref()
                .and_then(|r| r.known())
                .map(String::as_str),
            Some("arn:aws:iam::111122223333:role/given")
        );
        let roles = out.aws_auth[0].roles.known().unwrap();
        // The module's two profiles, then `aws_auth_roles`.
        assert_eq!(roles.len(), 3);
        assert_eq!(roles[0].role_ref, c.fargate_profiles[0].role_ref);
        assert_eq!(roles[0].groups.known().map(Vec::len), Some(3));
        assert_eq!(roles[2].role_ref.as_deref(), Some("module.extra"));
    }
}
