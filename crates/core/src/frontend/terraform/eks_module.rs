//! The terraform-aws-modules/eks module (v13 to v21) and its sub-modules,
//! read from their inputs. Input names changed across versions: v21 uses
//! `name`/`addons`/`kubernetes_version`, v18-v20 `cluster_name`/
//! `cluster_addons`/`cluster_version`, v17 also `node_groups`/`worker_groups`;
//! before v17 a profile names its pods itself (see [`ProfileForm`]).
//! The module's profiles are `aws_eks_fargate_profile` inside it, which the
//! AWS provider creates one at a time per cluster.

use super::eval::{self, span_of};
use super::{located_str, text, Builder, Ctx};
use crate::model::{
    Addon, Capacity, Cluster, FargateProfile, Known, Label, Loc, Located, NodeGroup, Provisioner,
    ResourceRef, Selector,
};
use crate::source::{FileId, Span};
use crate::value::{Value, ValueKind};
use hcl_edit::structure::Block;
use hcl_edit::Span as _;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `terraform-aws-modules/eks/aws`: a cluster with profiles, node groups, add-ons.
    Root,
    /// `//modules/fargate-profile`: one profile.
    FargateProfile,
    /// v17 `//modules/fargate`: a map of profiles.
    FargateV17,
    /// `//modules/eks-managed-node-group`, `//modules/self-managed-node-group`.
    NodeGroup,
    /// `./modules/x`: followed with its inputs.
    Local(String),
    Other,
}

impl Kind {
    pub fn has_profiles(&self) -> bool {
        matches!(self, Kind::Root | Kind::FargateProfile | Kind::FargateV17)
    }
}

/// How a call's Fargate profiles name their pods. terraform-aws-eks v13 to
/// v16 write one selector from the profile's own `namespace` and `labels`;
/// v17 on loop over a `selectors` list and ignore those keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileForm {
    /// `{ namespace, labels }` on the profile (v13 to v16).
    Direct,
    /// `{ selectors = [{ namespace, labels }] }` (v17 on).
    Selectors,
    /// The version is not known: a profile written in the old form has
    /// unknown selectors.
    Unknown,
}

impl ProfileForm {
    /// From the call's `version` constraint (`"14.0.0"`, `"~> 16.1"`,
    /// `">= 18, < 21"`): known only when every version it allows is on the
    /// same side of v17.
    pub fn of_version(constraint: &str) -> ProfileForm {
        let (mut lowest, mut highest) = (0u64, u64::MAX);
        for clause in constraint.split(',') {
            let c = clause.trim();
            let (op, v) = match c.find(|ch: char| ch.is_ascii_digit()) {
                Some(i) => (c[..i].trim(), c[i..].trim()),
                None => return ProfileForm::Unknown,
            };
            let parts: Vec<u64> = v
                .split(['.', '-', '+'])
                .take(3)
                .map_while(|x| x.parse().ok())
                .collect();
            let Some(&major) = parts.first() else {
                return ProfileForm::Unknown;
            };
            let rest_zero = parts.iter().skip(1).all(|x| *x == 0);
            match op {
                "" | "=" | "~>" => {
                    lowest = lowest.max(major);
                    highest = highest.min(major);
                }
                ">=" | ">" => lowest = lowest.max(major),
                "<=" => highest = highest.min(major),
                "<" if rest_zero => highest = highest.min(major.saturating_sub(1)),
                "<" => highest = highest.min(major),
                "!=" => {}
                _ => return ProfileForm::Unknown,
            }
        }
        if highest < 17 {
            ProfileForm::Direct
        } else if lowest >= 17 {
            ProfileForm::Selectors
        } else {
            ProfileForm::Unknown
        }
    }
}

/// Whether a source is terraform-aws-eks or one of its sub-modules.
pub fn is_terraform_aws_eks(source: &str) -> bool {
    !matches!(kind(source), Kind::Local(_) | Kind::Other)
        || source.contains("terraform-aws-modules/eks/aws")
        || source.contains("terraform-aws-modules/terraform-aws-eks")
}

/// Modules known to make no nodes, whose code is not needed to say so:
/// IAM roles (terraform-aws-iam), and terraform-aws-eks's Karpenter
/// sub-module (the controller's role and queue; its nodes come from the
/// Karpenter release, read on its own) as a local copy whose folder is not
/// there, told by the inputs only it takes.
pub fn may_make_nodes(source: &str, call: &hcl_edit::structure::Body) -> bool {
    let s = source.trim().trim_end_matches('/');
    if s.starts_with("terraform-aws-modules/iam/aws")
        || s.contains("terraform-aws-modules/terraform-aws-iam")
    {
        return false;
    }
    let karpenter_inputs = [
        "irsa_oidc_provider_arn",
        "irsa_namespace_service_accounts",
        "enable_irsa",
        "enable_pod_identity",
        "create_pod_identity_association",
        "create_node_iam_role",
        "node_iam_role_additional_policies",
        "enable_v1_permissions",
        "enable_spot_termination",
    ];
    !(s.ends_with("modules/karpenter") && karpenter_inputs.iter().any(|n| call.has_attribute(n)))
}

/// For an add-on module that makes nodes only when asked (it installs
/// Karpenter), the input that asks.
pub fn nodes_input(source: &str) -> Option<&'static str> {
    let s = without_public_registry(source)
        .split('?')
        .next()
        .unwrap_or_default();
    let repo = s.split("//").find(|p| !p.ends_with(':')).unwrap_or(s);
    (repo == "aws-ia/eks-blueprints-addons/aws"
        || repo
            .trim_end_matches(".git")
            .ends_with("aws-ia/terraform-aws-eks-blueprints-addons"))
    .then_some("enable_karpenter")
}

/// A registry source without the public registry's host: Terraform reads
/// `registry.terraform.io/terraform-aws-modules/eks/aws` as the short form.
pub fn without_public_registry(source: &str) -> &str {
    const HOST: &str = "registry.terraform.io/";
    let s = source.trim();
    match s.get(..HOST.len()) {
        Some(host) if host.eq_ignore_ascii_case(HOST) => &s[HOST.len()..],
        _ => s,
    }
}

pub fn kind(source: &str) -> Kind {
    let s = without_public_registry(source);
    if s.starts_with("./") || s.starts_with("../") {
        return Kind::Local(s.to_string());
    }
    let s = s.split('?').next().unwrap_or(s);
    let (repo, sub) = match s.split_once("//") {
        // `git::https://...` keeps its scheme's `//`; look for the sub-path after it.
        Some((a, b)) if a.ends_with(':') => match b.split_once("//") {
            Some((r, sub)) => (r, Some(sub)),
            None => (b, None),
        },
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let eks = repo == "terraform-aws-modules/eks/aws"
        || repo.ends_with("terraform-aws-modules/terraform-aws-eks")
        || repo.ends_with("terraform-aws-modules/terraform-aws-eks.git");
    if !eks {
        return Kind::Other;
    }
    match sub.map(|x| x.trim_end_matches('/')) {
        None | Some("") => Kind::Root,
        Some("modules/fargate-profile") => Kind::FargateProfile,
        Some("modules/fargate") => Kind::FargateV17,
        Some("modules/eks-managed-node-group")
        | Some("modules/self-managed-node-group")
        | Some("modules/node_groups") => Kind::NodeGroup,
        Some(_) => Kind::Other,
    }
}

/// A local module: a copy of terraform-aws-eks (its own examples use
/// `source = "../.."`) or of one of its sub-modules is recognised by the
/// variables and outputs it declares, whatever its path or contents; any
/// other module on disk is followed as code. When the folder declares no
/// variable at all (its code is not there, or only part of it), the call
/// itself must be unmistakable: `fargate_profiles` with at least two inputs
/// only terraform-aws-eks takes. Otherwise a module whose code is not on
/// disk is opaque: what it builds is unknown, so nothing is guessed.
pub fn local_kind(
    dir: &std::path::Path,
    rel: &str,
    call: &hcl_edit::structure::Body,
    sources: &crate::sources::Sources,
) -> Kind {
    let shape = Shape::read(dir, sources);
    if let Some(s) = shape.as_ref().filter(|s| !s.variables.is_empty()) {
        return s.kind().unwrap_or_else(|| Kind::Local(rel.to_string()));
    }
    let rel_t = rel.trim_end_matches('/');
    if rel_t.ends_with("modules/fargate-profile")
        && call.has_attribute("selectors")
        && call.has_attribute("cluster_name")
    {
        return Kind::FargateProfile;
    }
    let distinctive = EKS_ONLY_INPUTS
        .iter()
        .filter(|n| call.has_attribute(n))
        .count();
    if call.has_attribute("fargate_profiles") && distinctive >= 2 {
        return Kind::Root;
    }
    match shape {
        Some(_) => Kind::Local(rel.to_string()),
        None => Kind::Other,
    }
}

/// Inputs of terraform-aws-eks (v17 to v21) that other EKS modules do not
/// take under these names.
const EKS_ONLY_INPUTS: &[&str] = &[
    "fargate_profile_defaults",
    "eks_managed_node_groups",
    "eks_managed_node_group_defaults",
    "self_managed_node_groups",
    "self_managed_node_group_defaults",
    "cluster_addons",
    "manage_aws_auth_configmap",
    "create_aws_auth_configmap",
    "manage_aws_auth",
    "aws_auth_roles",
    "cluster_endpoint_public_access",
    "cluster_endpoint_private_access",
    "control_plane_subnet_ids",
    "create_cluster_security_group",
    "create_node_security_group",
    "fargate_subnets",
    "worker_groups",
    "worker_groups_launch_template",
    "node_groups",
    "cluster_version",
    "kubernetes_version",
    "enable_cluster_creator_admin_permissions",
];

/// The variables and outputs a module folder declares.
#[derive(Default)]
pub struct Shape {
    variables: std::collections::HashSet<String>,
    outputs: std::collections::HashSet<String>,
}

impl Shape {
    /// `None` when the folder holds no `.tf` file.
    pub fn read(dir: &std::path::Path, sources: &crate::sources::Sources) -> Option<Shape> {
        let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "tf")
                    && !p
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with('.'))
            })
            .collect();
        if paths.is_empty() {
            return None;
        }
        paths.sort();
        let mut shape = Shape::default();
        for p in paths.into_iter().take(500) {
            let Ok(f) = sources.load(&p) else { continue };
            let Ok(body) = hcl_edit::parser::parse_body(&f.text) else {
                continue;
            };
            for s in body.iter() {
                let hcl_edit::structure::Structure::Block(b) = s else {
                    continue;
                };
                let Some(l) = super::label(b, 0) else {
                    continue;
                };
                match b.ident.as_str() {
                    "variable" => shape.variables.insert(l.to_string()),
                    "output" => shape.outputs.insert(l.to_string()),
                    _ => false,
                };
            }
        }
        Some(shape)
    }

    fn has(&self, variables: &[&str], outputs: &[&str]) -> bool {
        variables.iter().all(|v| self.variables.contains(*v))
            && outputs.iter().all(|o| self.outputs.contains(*o))
    }

    /// How profiles name their pods in a copy of the root module: only
    /// v13 to v16 declare `config_output_path` (v17 renamed it).
    pub fn profile_form(&self) -> ProfileForm {
        if self.variables.contains("config_output_path") {
            ProfileForm::Direct
        } else {
            ProfileForm::Selectors
        }
    }

    /// Which part of terraform-aws-eks (v13 to v21) this is a copy of, if any.
    pub fn kind(&self) -> Option<Kind> {
        if self.has(
            &[
                "fargate_profiles",
                "eks_managed_node_groups",
                "self_managed_node_groups",
            ],
            &[
                "fargate_profiles",
                "eks_managed_node_groups",
                "oidc_provider_arn",
                "cluster_arn",
            ],
        ) || self.has(
            &[
                "fargate_profiles",
                "node_groups",
                "worker_groups",
                "cluster_name",
            ],
            &[
                "fargate_profile_ids",
                "node_groups",
                "oidc_provider_arn",
                "cluster_arn",
            ],
        ) {
            return Some(Kind::Root);
        }
        if self.has(
            &[
                "cluster_name",
                "name",
                "selectors",
                "subnet_ids",
                "create_iam_role",
            ],
            &["fargate_profile_arn", "fargate_profile_id", "iam_role_arn"],
        ) {
            return Some(Kind::FargateProfile);
        }
        if self.has(
            &["create_eks", "cluster_name", "fargate_profiles", "subnets"],
            &[
                "fargate_profile_ids",
                "fargate_profile_arns",
                "aws_auth_roles",
            ],
        ) {
            return Some(Kind::FargateV17);
        }
        if self.has(
            &["cluster_name", "min_size", "max_size", "desired_size"],
            &["node_group_arn", "node_group_id"],
        ) || self.has(
            &["cluster_name", "instance_type", "min_size", "max_size"],
            &["autoscaling_group_arn", "autoscaling_group_id"],
        ) || self.has(
            &[
                "create_eks",
                "cluster_name",
                "node_groups",
                "node_groups_defaults",
            ],
            &["node_groups", "aws_auth_roles"],
        ) {
            return Some(Kind::NodeGroup);
        }
        None
    }
}

pub(crate) fn is_false(x: Option<&Value>) -> bool {
    x.is_some_and(|x| {
        matches!(x.kind, ValueKind::Bool(false))
            || matches!(&x.kind, ValueKind::String(s) if s == "false")
    })
}

#[allow(clippy::too_many_arguments)]
pub fn read(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    name: &str,
    kind: &Kind,
    prefix: &str,
    form: ProfileForm,
) {
    let Known::Known(insts) = ctx.instances(block, file) else {
        return;
    };
    // `count = 0` or `create = false` makes nothing. A sub-module called
    // per instance makes a profile or node group each; the cluster, one.
    let take = if matches!(kind, Kind::Root) {
        1
    } else {
        insts.len()
    };
    for inst in insts.iter().take(take) {
        let path = match insts.len() {
            1 => format!("module.{name}"),
            _ => format!("module.{name}{}", inst.suffix),
        };
        read_instance(b, ctx, block, file, (name, &path), kind, prefix, inst, form);
    }
}

#[allow(clippy::too_many_arguments)]
fn read_instance(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    (name, module_path): (&str, &str),
    kind: &Kind,
    prefix: &str,
    inst: &super::Inst<'_>,
    form: ProfileForm,
) {
    let addr = format!("{prefix}module.{name}");
    let bspan = span_of(file, block.span()).unwrap_or_default();
    let body = &block.body;
    let sc = &inst.scope;
    let attr = |n: &str| ctx.eval_attr(body, n, file, sc);
    if is_false(attr("create").as_ref()) || is_false(attr("create_eks").as_ref()) {
        return;
    }
    let profiles_node = b.graph.node(&super::graph::profiles_node(&addr));
    let resource = profiles_node.map(|node| ResourceRef { graph: 0, node });
    let module_path = module_path.to_string();
    let file_text = ctx.env.file(file).map(|f| f.text.clone());
    let file_text = file_text.as_deref().unwrap_or("");
    match kind {
        Kind::Root => {
            let name_attr = if body.has_attribute("name") {
                "name"
            } else {
                "cluster_name"
            };
            let nv = attr(name_attr);
            let cname = located_str(
                nv.as_ref(),
                bspan,
                &crate::path::dot(&module_path, name_attr),
            );
            let key = match cname.known() {
                Some(n) => n.clone(),
                None => format!("terraform:{}:{addr}", b.tag),
            };
            let cloc = Loc::new(
                body.get_attribute(name_attr)
                    .and_then(|a| span_of(file, a.span()))
                    .unwrap_or(bspan),
                module_path.clone(),
            );
            let mut c = Cluster::new(cname, key, cloc, Provisioner::Terraform);
            let ver = attr("kubernetes_version").or_else(|| attr("cluster_version"));
            c.version = ver
                .map(|v| located_str(Some(&v), bspan, &crate::path::dot(&module_path, "version")));
            read_addons(ctx, body, file, sc, &module_path, &mut c);
            c.authentication_mode = super::auth::module_authentication_mode(ctx, body, file, sc);
            // v20.x and later pass it on to the cluster; true unless set.
            if let Some(v) = ctx.eval_attr(body, "bootstrap_self_managed_addons", file, sc) {
                c.self_managed_addons = eval::as_bool(&v).into();
            }
            let i = b.add_cluster(c, addr.clone());
            b.note_capacity(Some(i), node_groups(ctx, block, file, sc, &module_path));
            b.note_capacity(Some(i), auto_mode(ctx, block, file, sc, &module_path));
            let defaults = attr("fargate_profile_defaults");
            // v18+ fall back to the cluster's `subnet_ids`; v17 to
            // `coalescelist(fargate_subnets, subnets)`.
            let module_subnets = attr("subnet_ids").or_else(|| match attr("fargate_subnets") {
                Some(f) if !matches!(&f.kind, ValueKind::List(l) if l.is_empty()) => Some(f),
                _ => attr("subnets"),
            });
            let first = b.clusters[i].fargate_profiles.len();
            match attr("fargate_profiles") {
                None => {}
                Some(fp) => read_profile_map(
                    ctx.env,
                    b,
                    i,
                    &fp,
                    (defaults.as_ref(), module_subnets.as_ref()),
                    (&module_path, prefix),
                    resource,
                    bspan,
                    form,
                ),
            }
            // The module maps each of its profiles' roles itself, whatever they are.
            let own = first..b.clusters[i].fargate_profiles.len();
            if let Some(a) = super::auth::module_aws_auth(
                ctx,
                body,
                file,
                sc,
                &module_path,
                prefix,
                &b.clusters[i],
                own,
            ) {
                b.aws_auth.push(a);
            }
        }
        Kind::FargateProfile => {
            let cexpr = body.get_attribute("cluster_name").map(|a| &a.value);
            let cval = attr("cluster_name");
            let loc = Loc::new(bspan, module_path.clone());
            let ci = b.cluster_for_profile(cexpr, cval.as_ref(), &loc, prefix, file_text);
            let mut m: Vec<(crate::value::MapKey, Value)> = Vec::new();
            for k in ["name", "selectors", "subnet_ids"] {
                if let Some(x) = attr(k) {
                    m.push((
                        crate::value::MapKey {
                            name: k.to_string(),
                            span: x.span,
                        },
                        x,
                    ));
                }
            }
            let entry = Value::new(ValueKind::Map(m), Some(bspan));
            let mut p = profile(
                ctx.env,
                name,
                &entry,
                (None, None),
                &module_path,
                resource,
                bspan,
                ProfileForm::Selectors,
            );
            // The sub-module's role, or the one it is given.
            let given = body.get_attribute("iam_role_arn").map(|a| &a.value);
            p.role_ref = match (is_false(attr("create_iam_role").as_ref()), given) {
                (true, Some(e)) => {
                    p.pod_execution_role = attr("iam_role_arn").map(|v| {
                        located_str(
                            Some(&v),
                            bspan,
                            &crate::path::dot(&module_path, "iam_role_arn"),
                        )
                    });
                    super::auth::role_ref(ctx.env, e, file, sc, prefix)
                }
                (true, None) => None,
                (false, _) => Some(format!("{prefix}module.{name}{}", super::auth::CREATED)),
            };
            b.clusters[ci].fargate_profiles.push(p);
        }
        Kind::FargateV17 => {
            let cexpr = body.get_attribute("cluster_name").map(|a| &a.value);
            let cval = attr("cluster_name");
            let loc = Loc::new(bspan, module_path.clone());
            let ci = b.cluster_for_profile(cexpr, cval.as_ref(), &loc, prefix, file_text);
            if let Some(fp) = attr("fargate_profiles") {
                let subnets = attr("subnets");
                read_profile_map(
                    ctx.env,
                    b,
                    ci,
                    &fp,
                    (None, subnets.as_ref()),
                    (&module_path, prefix),
                    resource,
                    bspan,
                    form,
                );
            }
        }
        Kind::NodeGroup => {
            let cexpr = body.get_attribute("cluster_name").map(|a| &a.value);
            let cval = attr("cluster_name");
            let loc = Loc::new(bspan, module_path.clone());
            let ci = b
                .cluster_of(cexpr, cval.as_ref(), prefix)
                .or_else(|| b.cluster_elsewhere(ctx, cexpr, cval.as_ref(), &loc, prefix));
            if ci.is_none() {
                let name = cval.as_ref().and_then(super::eval::scalar_text);
                b.note_unattributed(name, loc.clone());
            }
            if let Some(i) = ci {
                b.clusters[i].node_groups.push(NodeGroup {
                    name: located_str(attr("name").as_ref(), bspan, &module_path),
                    loc: loc.clone(),
                    managed: true,
                });
            }
            b.note_capacity(ci, Capacity::Declared(loc));
        }
        Kind::Local(_) | Kind::Other => {}
    }
}

/// Capacity from the module's node group inputs.
fn node_groups(
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    sc: &eval::Scope,
    module_path: &str,
) -> Capacity {
    let mut unknown = false;
    for key in [
        "eks_managed_node_groups",
        "self_managed_node_groups",
        "node_groups",
        "worker_groups",
        "worker_groups_launch_template",
    ] {
        let Some(x) = ctx.eval_attr(&block.body, key, file, sc) else {
            continue;
        };
        let first = match &x.kind {
            ValueKind::Null => continue,
            ValueKind::Map(e) => e.first().map(|(k, _)| k.span),
            ValueKind::List(i) => i.first().map(|v| v.span),
            _ => {
                unknown = true;
                continue;
            }
        };
        if let Some(span) = first {
            let span = span.or(x.span).unwrap_or_default();
            return Capacity::Declared(Loc::new(span, crate::path::dot(module_path, key)));
        }
    }
    if unknown {
        Capacity::Unknown
    } else {
        Capacity::None
    }
}

/// EKS Auto Mode from the module's input: `compute_config` (v21) or
/// `cluster_compute_config` (v20), both off unless `enabled = true`.
fn auto_mode(
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    sc: &eval::Scope,
    module_path: &str,
) -> Capacity {
    for key in ["compute_config", "cluster_compute_config"] {
        let Some(x) = ctx.eval_attr(&block.body, key, file, sc) else {
            continue;
        };
        return match &x.kind {
            ValueKind::Null => Capacity::None,
            ValueKind::Map(_) => match x.get("enabled").map(|e| (e, eval::as_bool(e))) {
                None => Capacity::None,
                Some((e, Some(true))) => Capacity::Declared(Loc::new(
                    e.span.or(x.span).unwrap_or_default(),
                    format!("{module_path}.{key}.enabled"),
                )),
                Some((_, Some(false))) => Capacity::None,
                Some((_, None)) => Capacity::Unknown,
            },
            _ => Capacity::Unknown,
        };
    }
    Capacity::None
}

fn read_addons(
    ctx: &Ctx<'_, '_>,
    body: &hcl_edit::structure::Body,
    file: FileId,
    sc: &eval::Scope,
    module_path: &str,
    c: &mut Cluster,
) {
    let key = if body.has_attribute("addons") {
        "addons"
    } else {
        "cluster_addons"
    };
    let Some(x) = ctx.eval_attr(body, key, file, sc) else {
        return;
    };
    let ValueKind::Map(entries) = &x.kind else {
        c.addons_incomplete |= !matches!(x.kind, ValueKind::Null);
        return;
    };
    for (k, a) in entries {
        let path = format!("{module_path}.{key}.{}", k.name);
        let span = k.span.or(a.span).unwrap_or_default();
        let aname = match a.get("name") {
            Some(n) => located_str(Some(n), span, &path),
            None => Located::new(Known::Known(k.name.clone()), Loc::new(span, path.clone())),
        };
        // An entry that is unknown as a whole may set anything.
        let whole = a.is_unknown().then(|| {
            Located::new(
                Known::Unknown,
                Loc::new(
                    a.span.unwrap_or(span),
                    crate::path::dot(&path, "configuration_values"),
                ),
            )
        });
        let configuration = whole.or_else(|| {
            a.get("configuration_values").map(|cv| {
                let decoded = text::decode(ctx.env, cv);
                Located::new(
                    decoded.into(),
                    Loc::new(
                        cv.span.unwrap_or(span),
                        crate::path::dot(&path, "configuration_values"),
                    ),
                )
            })
        });
        c.addons.push(Addon {
            name: aname,
            loc: Loc::new(span, path.clone()),
            version: a
                .get("addon_version")
                .map(|v| located_str(Some(v), span, &crate::path::dot(&path, "addon_version"))),
            configuration,
            before_compute: matches!(
                a.get("before_compute").map(|v| &v.kind),
                Some(ValueKind::Bool(true))
            ),
            resource: None,
        });
    }
}

#[allow(clippy::too_many_arguments)]
fn read_profile_map(
    env: &eval::Env<'_>,
    b: &mut Builder,
    ci: usize,
    fp: &Value,
    defaults: Defaults<'_>,
    (module_path, prefix): (&str, &str),
    resource: Option<ResourceRef>,
    bspan: Span,
    form: ProfileForm,
) {
    let ValueKind::Map(entries) = &fp.kind else {
        if !matches!(fp.kind, ValueKind::Null) {
            b.clusters[ci].profiles_incomplete = true;
        }
        return;
    };
    for (k, entry) in entries {
        if entry.is_unknown() {
            b.clusters[ci].profiles_incomplete = true;
            continue;
        }
        if is_false(entry.get("create")) {
            continue;
        }
        let path = format!("{module_path}.fargate_profiles.{}", k.name);
        let span = k.span.unwrap_or(bspan);
        let mut p = profile(env, &k.name, entry, defaults, &path, resource, span, form);
        (p.pod_execution_role, p.role_ref) =
            super::auth::module_profile_role(env, entry, defaults.0, &path, prefix);
        b.clusters[ci].fargate_profiles.push(p);
    }
}

/// `fargate_profile_defaults`, and the subnets the module falls back to.
type Defaults<'a> = (Option<&'a Value>, Option<&'a Value>);

/// A profile from `{ name, selectors = [{namespace, labels}], subnet_ids }`,
/// or before v17 `{ name, namespace, labels, subnets }`.
#[allow(clippy::too_many_arguments)]
fn profile(
    env: &eval::Env<'_>,
    key: &str,
    entry: &Value,
    (defaults, module_subnets): Defaults<'_>,
    path: &str,
    resource: Option<ResourceRef>,
    span: Span,
    form: ProfileForm,
) -> FargateProfile {
    let name = match entry.get("name") {
        Some(n) => located_str(Some(n), span, &crate::path::dot(path, "name")),
        None => Located::new(Known::Known(key.to_string()), Loc::new(span, path)),
    };
    let sel_val = entry
        .get("selectors")
        .or_else(|| defaults.and_then(|d| d.get("selectors")));
    let selectors_loc = Loc::new(
        sel_val.and_then(|s| s.span).unwrap_or(span),
        crate::path::dot(path, "selectors"),
    );
    let selectors = match (sel_val, entry.get("namespace"), form) {
        (Some(s), _, _) => selectors_from_list(s, &crate::path::dot(path, "selectors")),
        (None, Some(_), ProfileForm::Direct) => Known::Known(vec![selector(entry, path, span)]),
        (None, Some(_), ProfileForm::Unknown) => Known::Unknown,
        (None, _, _) => Known::Known(Vec::new()),
    };
    let subnets = entry
        .get("subnet_ids")
        .or_else(|| entry.get("subnets"))
        .or_else(|| defaults.and_then(|d| d.get("subnet_ids")))
        .or(module_subnets);
    FargateProfile {
        name,
        loc: Loc::new(span, path),
        selectors,
        selectors_loc,
        subnets: subnets.map_or(Known::Unknown, |s| {
            super::network::subnet_refs(env, s, &crate::path::dot(path, "subnet_ids"))
        }),
        pod_execution_role: None,
        role_ref: None,
        resource,
        created_concurrently: false,
    }
}

/// `[{ namespace, labels }]`, labels as a map or as awscc's `[{key, value}]`.
pub fn selectors_from_list(s: &Value, path: &str) -> Known<Vec<Selector>> {
    let ValueKind::List(items) = &s.kind else {
        return Known::Unknown;
    };
    Known::Known(
        items
            .iter()
            .enumerate()
            .map(|(i, x)| selector(x, &crate::path::index(path, i), s.span.unwrap_or_default()))
            .collect(),
    )
}

pub fn selector(x: &Value, path: &str, fallback: Span) -> Selector {
    let span = x.span.unwrap_or(fallback);
    let namespace = located_str(
        x.get("namespace"),
        span,
        &crate::path::dot(path, "namespace"),
    );
    let (labels, labels_loc) = match x.get("labels") {
        None => (
            if x.is_unknown() {
                Known::Unknown
            } else {
                Known::Known(Vec::new())
            },
            None,
        ),
        Some(l) => {
            let lpath = crate::path::dot(path, "labels");
            let loc = Loc::new(l.span.unwrap_or(span), lpath.clone());
            (labels_of(l, &lpath, span), Some(loc))
        }
    };
    Selector {
        loc: Loc::new(span, path),
        namespace,
        labels,
        labels_loc,
    }
}

pub fn labels_of(l: &Value, path: &str, fallback: Span) -> Known<Vec<Label>> {
    match &l.kind {
        ValueKind::Null => Known::Known(Vec::new()),
        ValueKind::Map(entries) => Known::Known(
            entries
                .iter()
                .map(|(k, val)| Label {
                    key: Known::Known(k.name.clone()),
                    value: eval::scalar_text(val).into(),
                    loc: Loc::new(
                        k.span.or(val.span).unwrap_or(fallback),
                        format!("{path}.{}", k.name),
                    ),
                })
                .collect(),
        ),
        ValueKind::List(items) => Known::Known(
            items
                .iter()
                .enumerate()
                .map(|(i, it)| Label {
                    key: it.get("key").and_then(eval::scalar_text).into(),
                    value: it.get("value").and_then(eval::scalar_text).into(),
                    loc: Loc::new(it.span.unwrap_or(fallback), crate::path::index(path, i)),
                })
                .collect(),
        ),
        _ => Known::Unknown,
    }
}

#[cfg(test)]
mod profile_form_tests {
    use super::ProfileForm::{self, Direct, Selectors, Unknown};

    #[test]
    fn version_constraints_decide_the_profile_form_only_on_one_side_of_v17() {
        let cases: &[(&str, ProfileForm)] = &[
            ("14.0.0", Direct),
            ("= 16.2.0", Direct),
            ("~> 13.2", Direct),
            ("~> 16", Direct),
            ("< 17", Direct),
            ("< 17.0.0", Direct),
            (">= 14, < 17.0", Direct),
            ("<= 16.9", Direct),
            ("17.0.0", Selectors),
            ("~> 20.0", Selectors),
            (">= 18.2, < 19", Selectors),
            ("> 17", Selectors),
            (">= 16", Unknown),
            ("< 17.1", Unknown),
            ("<= 17", Unknown),
            ("!= 16.0.0", Unknown),
            ("", Unknown),
            ("latest", Unknown),
            ("^ 16", Unknown),
        ];
        for (constraint, want) in cases {
            assert_eq!(ProfileForm::of_version(constraint), *want, "{constraint}");
        }
    }
}

#[cfg(test)]
mod source_tests {
    use super::{kind, nodes_input, Kind};

    #[test]
    fn the_public_registry_host_names_the_same_module() {
        for host in ["registry.terraform.io/", "Registry.Terraform.io/", ""] {
            assert_eq!(
                kind(&format!("{host}terraform-aws-modules/eks/aws")),
                Kind::Root,
                "{host}"
            );
            assert_eq!(
                kind(&format!(
                    "{host}terraform-aws-modules/eks/aws//modules/fargate-profile"
                )),
                Kind::FargateProfile,
                "{host}"
            );
            assert_eq!(
                nodes_input(&format!("{host}aws-ia/eks-blueprints-addons/aws")),
                Some("enable_karpenter")
            );
        }
        // A private registry's module of the same name is another module.
        assert_eq!(
            kind("app.terraform.io/terraform-aws-modules/eks/aws"),
            Kind::Other
        );
    }
}
