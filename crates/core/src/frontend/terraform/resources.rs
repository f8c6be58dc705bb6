//! Raw resources: `aws_eks_cluster`, `aws_eks_fargate_profile` (`selector`
//! blocks), `awscc_eks_fargate_profile` (`selectors` list), `aws_eks_node_group`,
//! `aws_eks_addon`.

use super::eks_module::{labels_of, selectors_from_list};
use super::eval::span_of;
use super::network::subnet_refs;
use super::{located_str, text, Builder, Ctx, Inst};
use crate::model::{
    Addon, Capacity, Cluster, FargateProfile, Known, Loc, Located, NodeGroup, Provisioner,
    ResourceRef, Selector,
};
use crate::source::FileId;
use hcl_edit::structure::Block;
use hcl_edit::Span as _;

#[allow(clippy::too_many_arguments)]
pub fn read(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    rtype: &str,
    name: &str,
    prefix: &str,
) {
    let addr = crate::path::concat(&[prefix, rtype, ".", name]);
    let bspan = span_of(file, block.span()).unwrap_or_default();
    let resource = b
        .graph
        .node(&addr)
        .map(|node| ResourceRef { graph: 0, node });
    let body = &block.body;
    // On a provider of its own (an alias): not the root's default provider.
    if let (Some(r), true) = (resource, body.has_attribute("provider")) {
        b.own_provider.push(r.node);
    }
    let file_text = ctx.env.file(file).map(|f| f.text.clone());
    let file_text = file_text.as_deref().unwrap_or("");
    let cexpr = body.get_attribute("cluster_name").map(|a| &a.value);
    match rtype {
        "aws_eks_cluster" => {
            let Known::Known(insts) = ctx.instances(block, file) else {
                return;
            };
            for inst in insts {
                let path = crate::path::concat(&[&addr, &inst.suffix]);
                let nv = ctx.eval_attr(body, "name", file, &inst.scope);
                let cname = located_str(nv.as_ref(), bspan, &crate::path::dot(&path, "name"));
                let key = match cname.known() {
                    Some(n) => n.clone(),
                    None => format!("terraform:{}:{path}", b.tag),
                };
                let mut c = Cluster::new(
                    cname,
                    key,
                    Loc::new(bspan, path.clone()),
                    Provisioner::Terraform,
                );
                c.version = ctx
                    .eval_attr(body, "version", file, &inst.scope)
                    .map(|v| located_str(Some(&v), bspan, &crate::path::dot(&path, "version")));
                c.authentication_mode =
                    super::auth::cluster_authentication_mode(ctx, body, file, &inst.scope);
                c.self_managed_addons =
                    match ctx.eval_attr(body, "bootstrap_self_managed_addons", file, &inst.scope) {
                        None => Known::Known(true),
                        Some(v) => super::eval::as_bool(&v).into(),
                    };
                let capacity = auto_mode(ctx, &inst, &path);
                let i = b.add_cluster(c, addr.clone());
                b.note_capacity(Some(i), capacity);
            }
        }
        "aws_eks_fargate_profile" | "awscc_eks_fargate_profile" => {
            let awscc = rtype.starts_with("awscc");
            let insts = match ctx.instances(block, file) {
                Known::Known(i) => i,
                Known::Unknown => {
                    let cval = ctx.eval_attr(body, "cluster_name", file, &Vec::new());
                    let loc = Loc::new(bspan, addr.clone());
                    let ci = match b.cluster_of(cexpr, cval.as_ref(), prefix) {
                        Some(i) => i,
                        None => {
                            match b.cluster_elsewhere(ctx, cexpr, cval.as_ref(), &loc, prefix) {
                                Some(i) => i,
                                None => b.cluster_for_profile(
                                    cexpr,
                                    cval.as_ref(),
                                    &loc,
                                    prefix,
                                    file_text,
                                ),
                            }
                        }
                    };
                    b.clusters[ci].profiles_incomplete = true;
                    return;
                }
            };
            for inst in insts {
                let path = crate::path::concat(&[&addr, &inst.suffix]);
                let sc = &inst.scope;
                let cval = ctx.eval_attr(body, "cluster_name", file, sc);
                let loc = Loc::new(inst.span, path.clone());
                let ci = match b.cluster_of(cexpr, cval.as_ref(), prefix) {
                    Some(i) => i,
                    None => match b.cluster_elsewhere(ctx, cexpr, cval.as_ref(), &loc, prefix) {
                        Some(i) => i,
                        None => {
                            b.cluster_for_profile(cexpr, cval.as_ref(), &loc, prefix, file_text)
                        }
                    },
                };
                let pname = ctx.eval_attr(body, "fargate_profile_name", file, sc);
                let (selectors, selectors_loc) = if awscc {
                    let s = ctx.eval_attr(body, "selectors", file, sc);
                    let sl = Loc::new(
                        s.as_ref().and_then(|s| s.span).unwrap_or(bspan),
                        crate::path::dot(&path, "selectors"),
                    );
                    (
                        s.map_or(Known::Known(Vec::new()), |s| {
                            selectors_from_list(&s, &crate::path::dot(&path, "selectors"))
                        }),
                        sl,
                    )
                } else {
                    raw_selectors(ctx, &inst, &path, bspan)
                };
                let subnets = ctx
                    .eval_attr(body, if awscc { "subnets" } else { "subnet_ids" }, file, sc)
                    .map_or(Known::Unknown, |s| {
                        subnet_refs(ctx.env, &s, &crate::path::dot(&path, "subnet_ids"))
                    });
                let role = ctx
                    .eval_attr(body, "pod_execution_role_arn", file, sc)
                    .map(|r| {
                        located_str(
                            Some(&r),
                            bspan,
                            &crate::path::dot(&path, "pod_execution_role_arn"),
                        )
                    });
                let arn = body
                    .get_attribute("pod_execution_role_arn")
                    .map(|a| &a.value);
                let pi = b.clusters[ci].fargate_profiles.len();
                b.clusters[ci].fargate_profiles.push(FargateProfile {
                    name: located_str(
                        pname.as_ref(),
                        inst.span,
                        &crate::path::dot(&path, "fargate_profile_name"),
                    ),
                    loc,
                    selectors,
                    selectors_loc,
                    subnets,
                    pod_execution_role: role,
                    role_ref: arn.and_then(|e| super::auth::role_ref(ctx.env, e, file, sc, prefix)),
                    resource,
                    created_concurrently: awscc,
                });
                super::iam::link(b, ctx.env, ci, pi, arn, prefix);
            }
        }
        "aws_eks_node_group" => {
            let cval = ctx.eval_attr(body, "cluster_name", file, &Vec::new());
            let ci = b.cluster_of(cexpr, cval.as_ref(), prefix).or_else(|| {
                let loc = Loc::new(bspan, addr.clone());
                b.cluster_elsewhere(ctx, cexpr, cval.as_ref(), &loc, prefix)
            });
            if ci.is_none() {
                let name = cval.as_ref().and_then(super::eval::scalar_text);
                b.note_unattributed(name, Loc::new(bspan, addr.clone()));
            }
            match ctx.instances(block, file) {
                Known::Unknown => b.note_capacity(ci, Capacity::Unknown),
                Known::Known(insts) => {
                    for inst in insts {
                        let path = crate::path::concat(&[&addr, &inst.suffix]);
                        let loc = Loc::new(inst.span, path.clone());
                        if let Some(i) = ci {
                            let n = ctx.eval_attr(body, "node_group_name", file, &inst.scope);
                            b.clusters[i].node_groups.push(NodeGroup {
                                name: located_str(
                                    n.as_ref(),
                                    inst.span,
                                    &crate::path::dot(&path, "node_group_name"),
                                ),
                                loc: loc.clone(),
                                managed: true,
                            });
                        }
                        b.note_capacity(ci, Capacity::Declared(loc));
                    }
                }
            }
        }
        // Self-managed EC2 capacity fplint does not model: the clusters'
        // capacity becomes unknown rather than Fargate-only. An instance
        // whose user data is known and joins no cluster (a bastion) is none.
        "aws_instance" if !may_join_cluster(ctx, body, file) => {}
        "aws_autoscaling_group" | "aws_instance" => b.note_capacity(None, Capacity::Unknown),
        "aws_eks_addon" => {
            let cval = ctx.eval_attr(body, "cluster_name", file, &Vec::new());
            let loc = Loc::new(bspan, addr.clone());
            let found = b
                .cluster_of(cexpr, cval.as_ref(), prefix)
                .or_else(|| b.cluster_elsewhere(ctx, cexpr, cval.as_ref(), &loc, prefix));
            let Some(ci) = found else {
                b.addons_stray = true;
                return;
            };
            let Known::Known(insts) = ctx.instances(block, file) else {
                b.clusters[ci].addons_incomplete = true;
                return;
            };
            for inst in insts {
                let path = crate::path::concat(&[&addr, &inst.suffix]);
                let sc = &inst.scope;
                let n = ctx.eval_attr(body, "addon_name", file, sc);
                let configuration = ctx
                    .eval_attr(body, "configuration_values", file, sc)
                    // Null, as a module passes an absent one on: not set.
                    .filter(|cv| !matches!(cv.kind, crate::value::ValueKind::Null))
                    .map(|cv| {
                        Located::new(
                            text::decode(ctx.env, &cv).into(),
                            Loc::new(
                                cv.span.unwrap_or(bspan),
                                crate::path::dot(&path, "configuration_values"),
                            ),
                        )
                    });
                b.clusters[ci].addons.push(Addon {
                    name: located_str(
                        n.as_ref(),
                        inst.span,
                        &crate::path::dot(&path, "addon_name"),
                    ),
                    loc: Loc::new(inst.span, path.clone()),
                    version: ctx.eval_attr(body, "addon_version", file, sc).map(|v| {
                        located_str(Some(&v), bspan, &crate::path::dot(&path, "addon_version"))
                    }),
                    configuration,
                    before_compute: false,
                    resource,
                });
            }
        }
        "null_resource" | "terraform_data" => {
            // A provisioner runs a command: `kubectl patch deployment coredns`
            // is the usual way to move CoreDNS onto Fargate without the add-on.
            if !body.blocks().any(|p| p.ident.as_str() == "provisioner") {
                return;
            }
            // Only what the provisioners run, not the block's other text
            // (`depends_on` on the CoreDNS add-on).
            let commands: String = body
                .blocks()
                .filter(|p| p.ident.as_str() == "provisioner")
                .flat_map(|p| p.body.iter())
                .filter_map(|s| match s {
                    hcl_edit::structure::Structure::Attribute(a)
                        if matches!(a.key.as_str(), "command" | "inline") =>
                    {
                        let r = span_of(file, a.span())?;
                        file_text.get(r.start as usize..r.end as usize)
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(" ");
            if mentions_coredns(&commands) {
                b.coredns_patches.push(Loc::new(bspan, addr));
            } else if !commands_known(ctx, block, file) {
                b.coredns_unknown = true;
            }
        }
        "helm_release" => {
            // A chart of its own CoreDNS replaces EKS's; any other chart
            // leaves it alone, whatever its values.
            match ctx
                .eval_attr(body, "chart", file, &Vec::new())
                .as_ref()
                .and_then(super::eval::scalar_text)
            {
                Some(c) if mentions_coredns(&c) => b.coredns_patches.push(Loc::new(bspan, addr)),
                Some(_) => {}
                None => b.coredns_unknown = true,
            }
        }
        // Manifests and workloads are judged on their objects where they are read.
        "kubernetes_annotations" | "kubernetes_labels" => {
            let text = file_text
                .get(bspan.start as usize..bspan.end as usize)
                .unwrap_or("");
            if mentions_coredns(text) {
                b.coredns_patches.push(Loc::new(bspan, addr));
            } else if reads_elsewhere(text) {
                b.coredns_unknown = true;
            }
        }
        _ => {}
    }
}

/// Whether an `aws_instance` may be a node: its user data runs a node's
/// bootstrap (`/etc/eks/bootstrap.sh`, nodeadm's `NodeConfig`, Bottlerocket's
/// `settings.kubernetes`, a kubelet) or cannot be read, or a launch template
/// gives it. Without user data an EKS AMI joins no cluster.
fn may_join_cluster(ctx: &Ctx<'_, '_>, body: &hcl_edit::structure::Body, file: FileId) -> bool {
    if body.has_blocks("launch_template") || body.has_attribute("launch_template") {
        return true;
    }
    let mut joins = false;
    for (key, encoded) in [("user_data", false), ("user_data_base64", true)] {
        let Some(v) = ctx.eval_attr(body, key, file, &Vec::new()) else {
            continue;
        };
        let Some(text) = v.as_str() else {
            return !matches!(v.kind, crate::value::ValueKind::Null);
        };
        if encoded {
            // Encoded text is not read: it may be a node's.
            return true;
        }
        let lower = text.to_ascii_lowercase();
        // Words of every node bootstrap (AL2, AL2023, Bottlerocket, Windows);
        // tools a jump host installs (`eksctl`, `kubectl`) are none of them.
        joins |= [
            "bootstrap",
            "nodeadm",
            "nodeconfig",
            "node.eks.aws",
            "settings.kubernetes",
            "kubelet",
        ]
        .iter()
        .any(|m| lower.contains(m));
    }
    joins
}

fn mentions_coredns(text: &str) -> bool {
    text.to_ascii_lowercase().contains("coredns")
}

/// Whether a block takes values from somewhere fplint does not read here
/// (a variable, a file, another resource), which might name CoreDNS.
fn reads_elsewhere(text: &str) -> bool {
    [
        "var.",
        "local.",
        "each.",
        "data.",
        "module.",
        "file(",
        "templatefile(",
        "for_each",
    ]
    .iter()
    .any(|k| text.contains(k))
}

/// Whether every provisioner command of a block is known text that runs no
/// script (a script might patch CoreDNS).
fn commands_known(ctx: &Ctx<'_, '_>, block: &Block, file: FileId) -> bool {
    block
        .body
        .blocks()
        .filter(|p| p.ident.as_str() == "provisioner")
        .all(|p| {
            if p.body.blocks().next().is_some() && p.body.get_attribute("command").is_none() {
                return false;
            }
            match ctx.eval_attr(&p.body, "command", file, &Vec::new()) {
                None => !p.body.has_attribute("inline") && !p.body.has_attribute("script"),
                Some(v) => super::eval::scalar_text(&v).is_some_and(|c| {
                    ![".sh", ".py", ".ps1", "bash", "sh ", "python", "${"]
                        .iter()
                        .any(|k| c.contains(k))
                }),
            }
        })
}

/// EKS Auto Mode (`compute_config { enabled = true }`) runs EC2 nodes for
/// the cluster, and hybrid nodes (`remote_network_config`) may run what
/// Fargate does not; a block or value that cannot be resolved is unknown.
fn auto_mode(ctx: &Ctx<'_, '_>, inst: &Inst<'_>, path: &str) -> Capacity {
    match ctx.blocks(inst.body, "remote_network_config", inst.file, &inst.scope) {
        Known::Known(b) if b.is_empty() => {}
        _ => return Capacity::Unknown,
    }
    let Known::Known(blocks) = ctx.blocks(inst.body, "compute_config", inst.file, &inst.scope)
    else {
        return Capacity::Unknown;
    };
    let mut capacity = Capacity::None;
    for cc in &blocks {
        // `enabled` left out is false.
        let Some(v) = ctx.eval_attr(cc.body, "enabled", cc.file, &cc.scope) else {
            continue;
        };
        match super::eval::as_bool(&v) {
            Some(true) => {
                return Capacity::Declared(Loc::new(
                    v.span.unwrap_or(cc.span),
                    crate::path::dot(path, "compute_config.enabled"),
                ))
            }
            Some(false) => {}
            None => capacity = Capacity::Unknown,
        }
    }
    capacity
}

/// `selector { namespace, labels }` blocks, static or `dynamic "selector"`.
fn raw_selectors(
    ctx: &Ctx<'_, '_>,
    inst: &Inst<'_>,
    path: &str,
    fallback: crate::source::Span,
) -> (Known<Vec<Selector>>, Loc) {
    let blocks = ctx.blocks(inst.body, "selector", inst.file, &inst.scope);
    let first = blocks
        .known()
        .and_then(|b| b.first())
        .map_or(inst.span, |b| b.span);
    let sloc = Loc::new(
        if first == Default::default() {
            fallback
        } else {
            first
        },
        crate::path::dot(path, "selector"),
    );
    let Known::Known(blocks) = blocks else {
        return (Known::Unknown, sloc);
    };
    let mut out = Vec::new();
    for (i, sb) in blocks.iter().enumerate() {
        let spath = crate::path::index(&crate::path::dot(path, "selector"), i);
        let ns = ctx.eval_attr(sb.body, "namespace", sb.file, &sb.scope);
        let (labels, labels_loc) = match ctx.eval_attr(sb.body, "labels", sb.file, &sb.scope) {
            None => (Known::Known(Vec::new()), None),
            Some(l) => {
                let lpath = crate::path::dot(&spath, "labels");
                let loc = Loc::new(l.span.unwrap_or(sb.span), lpath.clone());
                (labels_of(&l, &lpath, sb.span), Some(loc))
            }
        };
        out.push(Selector {
            loc: Loc::new(sb.span, spath.clone()),
            namespace: located_str(ns.as_ref(), sb.span, &crate::path::dot(&spath, "namespace")),
            labels,
            labels_loc,
        });
    }
    (Known::Known(out), sloc)
}
