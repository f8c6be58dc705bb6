//! CloudFormation templates (YAML with short-form tags, or JSON), including
//! the templates CDK synthesises.
//!
//! CloudFormation creates resources in parallel unless a dependency orders
//! them, so the frontend builds the template's dependency graph (DependsOn,
//! Ref, GetAtt, Sub) and marks Fargate profiles as created concurrently.
//! Parameters with a `Default` resolve to it; conditions, imports and
//! anything else that depends on the deployment are unknown. Nested stacks are
//! not followed.

mod cdk;
mod iam;
pub mod intrinsic;
mod template;

use super::UnitOutput;
use crate::diagnostic::Diagnostic;
use crate::model::{
    Addon, Capacity, Cluster, FargateProfile, Known, Label, Loc, Located, NodeGroup, Provisioner,
    ResourceRef, Selector, SubnetRef,
};
use crate::source::{SourceFile, Span};
use crate::tree::{Node, NodeKind};
use crate::workload::PodIdentityAssociation;
use rustc_hash::FxHashMap as HashMap;
use template::{ClusterId, Template};

/// A top-level `Resources` map with a typed entry, or a format version.
pub fn recognise(doc: &Node) -> bool {
    if doc.as_map().is_none() {
        return false;
    }
    if doc.get("AWSTemplateFormatVersion").is_some() {
        return true;
    }
    let Some(resources) = doc.get("Resources").and_then(Node::as_map) else {
        return false;
    };
    resources.iter().any(|e| {
        e.value
            .get("Type")
            .and_then(Node::as_str)
            .is_some_and(|t| t.starts_with("AWS::") || t.starts_with("Custom::"))
    })
}

/// Read a CloudFormation template into the unit.
pub fn load(file: &SourceFile, doc: &Node, out: &mut UnitOutput) {
    if intrinsic::has_tags(doc) {
        load_mut(file, &mut doc.clone(), out);
    } else {
        load_normalised(doc, out);
    }
}

/// [`load`], rewriting the short forms of `doc` in place.
pub fn load_mut(file: &SourceFile, doc: &mut Node, out: &mut UnitOutput) {
    if intrinsic::has_tags(doc) {
        let mut unknown = Vec::new();
        intrinsic::normalise_in_place(doc, &file.text, &mut unknown);
        for u in unknown {
            out.diagnostics.push(
                Diagnostic::parse_error(format!("unknown CloudFormation tag `{}`", u.tag), u.span)
                    .with_label("not an intrinsic function")
                    .with_help(
                        "use one of the short forms CloudFormation knows (`!Ref`, `!GetAtt`, \
                         `!Sub`, `!Join`, `!If`, ...) or the long form `Fn::Name`",
                    ),
            );
        }
    }
    load_normalised(doc, out);
}

fn load_normalised(doc: &Node, out: &mut UnitOutput) {
    let t = Template::new(doc);
    build(&t, out);
    if !out.clusters.is_empty() || out.graph.is_some() {
        crate::schema::check_template(doc, &mut out.schema);
    }
}

/// A `Metadata: {fplint: {ignore: [FP003]}}` suppression, the comment-free
/// form that JSON templates need (cli.md, inline suppression).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataIgnore {
    /// The resource's entry (its key to the end of its body); `None` for the
    /// template's top-level `Metadata`, which covers the whole file.
    pub scope: Option<Span>,
    /// Each code as written (upper-cased), with its span.
    pub codes: Vec<(String, Span)>,
}

/// The fplint suppressions a template declares in `Metadata`.
pub fn metadata_ignores(doc: &Node) -> Vec<MetadataIgnore> {
    fn codes(meta: Option<&Node>) -> Vec<(String, Span)> {
        let Some(ignore) = meta
            .and_then(|m| m.get("fplint"))
            .and_then(|f| f.get("ignore"))
        else {
            return Vec::new();
        };
        let items = match ignore.as_seq() {
            Some(items) => items.iter().collect(),
            None => vec![ignore],
        };
        items
            .into_iter()
            .filter_map(|n| Some((n.as_str()?.trim().to_ascii_uppercase(), n.span)))
            .filter(|(c, _)| !c.is_empty())
            .collect()
    }
    let mut out = Vec::new();
    let top = codes(doc.get("Metadata"));
    if !top.is_empty() {
        out.push(MetadataIgnore {
            scope: None,
            codes: top,
        });
    }
    for e in doc.get("Resources").and_then(Node::as_map).unwrap_or(&[]) {
        let c = codes(e.value.get("Metadata"));
        if !c.is_empty() {
            out.push(MetadataIgnore {
                scope: Some(e.key.span.cover(e.value.span)),
                codes: c,
            });
        }
    }
    out
}

const CLUSTER: &str = "AWS::EKS::Cluster";
const CDK_CLUSTER: &str = "Custom::AWSCDK-EKS-Cluster";
const PROFILE: &str = "AWS::EKS::FargateProfile";
const CDK_PROFILE: &str = "Custom::AWSCDK-EKS-FargateProfile";
const NODEGROUP: &str = "AWS::EKS::Nodegroup";
const ADDON: &str = "AWS::EKS::Addon";
const POD_IDENTITY: &str = "AWS::EKS::PodIdentityAssociation";

const MAX_CONDITIONAL_PROFILES: usize = 64;

const ASG: &str = "AWS::AutoScaling::AutoScalingGroup";

/// The cluster an Auto Scaling group's owner tag names
/// (`kubernetes.io/cluster/<cluster>` joined with a `Ref` to it, as CDK
/// writes it), with `owned` or `shared` as its value.
fn owner_tag<'a>(r: &template::Resource<'a>) -> Option<&'a Node> {
    r.prop("Tags")?.as_seq()?.iter().find_map(|tag| {
        let value = tag.get("Value")?.as_str()?;
        if value != "owned" && value != "shared" {
            return None;
        }
        let (f, arg) = intrinsic::as_fn(tag.get("Key")?)?;
        let [delim, parts] = arg.as_seq()? else {
            return None;
        };
        match (f, delim.as_str(), parts.as_seq()?) {
            ("Fn::Join", Some(""), [prefix, cluster])
                if prefix.as_str() == Some("kubernetes.io/cluster/") =>
            {
                Some(cluster)
            }
            _ => None,
        }
    })
}

/// Auto Scaling groups tied to a cluster by their owner tag, and the launch
/// configurations and templates they use: capacity of that cluster, not
/// capacity fplint cannot attribute.
fn tied_capacity<'a>(t: &Template<'a>) -> Vec<&'a str> {
    let mut out = Vec::new();
    for r in t.resources.iter().filter(|r| r.ty == ASG) {
        if owner_tag(r).is_none() {
            continue;
        }
        out.push(r.id);
        let refs = [
            r.prop("LaunchConfigurationName"),
            r.prop("LaunchTemplate")
                .and_then(|l| l.get("LaunchTemplateId")),
        ];
        for n in refs.into_iter().flatten() {
            if let Some(("Ref", target)) = intrinsic::as_fn(n) {
                if let Some(id) = target.as_str() {
                    if let Some(res) = t.resources.iter().find(|x| x.id == id) {
                        out.push(res.id);
                    }
                }
            }
        }
    }
    out
}

/// Resource types that bring EC2 capacity fplint cannot attribute to a cluster.
const SELF_MANAGED_CAPACITY: &[&str] = &[
    "AWS::AutoScaling::AutoScalingGroup",
    "AWS::AutoScaling::LaunchConfiguration",
    "AWS::EC2::Instance",
    "AWS::EC2::LaunchTemplate",
    "AWS::EC2::SpotFleet",
    "AWS::EC2::EC2Fleet",
];

fn build(t: &Template<'_>, out: &mut UnitOutput) {
    let has_eks = t.resources.iter().any(|r| {
        matches!(
            r.ty,
            CLUSTER
                | CDK_CLUSTER
                | PROFILE
                | CDK_PROFILE
                | NODEGROUP
                | ADDON
                | POD_IDENTITY
                | cdk::HELM_CHART
                | cdk::MANIFEST
        )
    });
    if !has_eks {
        return;
    }

    // The graph of this document; a second document of the same file adds to it.
    let mut graph = out.graph.take().unwrap_or_default();
    let base = u32::try_from(graph.nodes.len()).unwrap_or(u32::MAX);
    for r in &t.resources {
        graph.add_node(
            r.id,
            Loc::new(r.key.span, crate::path::dot("Resources", r.id)),
        );
    }
    for i in 0..t.resources.len() {
        let from = base + i as u32;
        for dep in t.dependencies(i) {
            graph.add_edge(from, base + dep as u32);
        }
    }
    let node_of = |i: usize| ResourceRef {
        graph: 0,
        node: base + i as u32,
    };

    let mut clusters: Vec<Cluster> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::default();
    for (i, r) in t.resources.iter().enumerate() {
        if !matches!(r.ty, CLUSTER | CDK_CLUSTER) {
            continue;
        }
        let id = t.cluster_of_resource(i);
        if by_key.contains_key(&id.key) {
            continue;
        }
        let path = crate::path::dot("Resources", r.id);
        let (name_node, name_path, version_node, version_path) = if r.ty == CLUSTER {
            (
                r.prop("Name"),
                crate::path::dot(&path, "Properties.Name"),
                r.prop("Version"),
                crate::path::dot(&path, "Properties.Version"),
            )
        } else {
            let config = r.prop("Config");
            (
                config.and_then(|c| c.get("name")),
                crate::path::dot(&path, "Properties.Config.name"),
                config.and_then(|c| c.get("version")),
                crate::path::dot(&path, "Properties.Config.version"),
            )
        };
        let name = Located::new(
            id.name.clone(),
            Loc::new(name_node.map_or(r.key.span, |n| n.span), name_path),
        );
        let mut c = Cluster::new(
            name,
            id.key.clone(),
            Loc::new(r.key.span, path.clone()),
            Provisioner::CloudFormation,
        );
        c.version =
            version_node.map(|v| Located::new(t.eval_str(v), Loc::new(v.span, version_path)));
        c.capacity = auto_mode_capacity(t, r, &path);
        if r.ty == CLUSTER {
            c.self_managed_addons = match t.present(r.prop("BootstrapSelfManagedAddons")) {
                None => Known::Known(true),
                Some(b) => match t.eval_str(b) {
                    Known::Known(s) if s.eq_ignore_ascii_case("true") => Known::Known(true),
                    Known::Known(s) if s.eq_ignore_ascii_case("false") => Known::Known(false),
                    _ => Known::Unknown,
                },
            };
            // Without `AccessConfig`, the EKS API's default.
            c.authentication_mode = match r
                .prop("AccessConfig")
                .and_then(|a| t.present(a.get("AuthenticationMode")))
            {
                Some(m) => t.eval_str(m),
                None if r
                    .prop("AccessConfig")
                    .is_some_and(|a| intrinsic::as_fn(a).is_some()) =>
                {
                    Known::Unknown
                }
                None => Known::Known("CONFIG_MAP".into()),
            };
        }
        by_key.insert(id.key, clusters.len());
        clusters.push(c);
    }

    let mut unattributed_capacity = false;
    let mut orphan_named_capacity = false;
    for (i, r) in t.resources.iter().enumerate() {
        let path = crate::path::dot("Resources", r.id);
        let (cluster_node, cluster_path) = match r.ty {
            PROFILE | NODEGROUP | ADDON | cdk::HELM_CHART | cdk::MANIFEST => (
                r.prop("ClusterName"),
                crate::path::dot(&path, "Properties.ClusterName"),
            ),
            CDK_PROFILE => (
                r.prop("Config").and_then(|c| c.get("clusterName")),
                crate::path::dot(&path, "Properties.Config.clusterName"),
            ),
            ASG => match owner_tag(r) {
                Some(n) => (Some(n), crate::path::dot(&path, "Properties.Tags")),
                None => continue,
            },
            _ => continue,
        };
        let id = match cluster_node {
            Some(n) => t.cluster_of(n),
            None => ClusterId::unknown(format!("unknown:{}", r.id)),
        };
        let idx = match by_key.get(&id.key) {
            Some(&idx) => idx,
            None => {
                let at = cluster_node.map_or(r.key.span, |n| n.span);
                let mut c = Cluster::new(
                    Located::new(id.name.clone(), Loc::new(at, cluster_path.clone())),
                    id.key.clone(),
                    Loc::new(at, cluster_path),
                    Provisioner::CloudFormation,
                );
                c.defined = false;
                c.capacity = Capacity::Unknown;
                by_key.insert(id.key.clone(), clusters.len());
                clusters.push(c);
                clusters.len() - 1
            }
        };
        let cluster = &mut clusters[idx];
        match r.ty {
            // Self-managed nodes of the cluster its owner tag names (what CDK
            // writes for `addAutoScalingGroupCapacity`).
            ASG => {
                let loc = Loc::new(r.key.span, path.clone());
                if cluster.node_groups.is_empty() {
                    cluster.capacity = Capacity::Declared(loc.clone());
                }
                if !cluster.defined {
                    unattributed_capacity = true;
                }
                cluster.node_groups.push(NodeGroup {
                    name: Located::new(Known::Known(r.id.to_string()), loc.clone()),
                    loc,
                    managed: false,
                });
            }
            NODEGROUP => {
                let ng_loc = Loc::new(r.key.span, path.clone());
                let name = match r.prop("NodegroupName") {
                    Some(n) => Located::new(
                        t.eval_str(n),
                        Loc::new(n.span, crate::path::dot(&path, "Properties.NodegroupName")),
                    ),
                    None => Located::new(Known::Unknown, ng_loc.clone()),
                };
                // Known EC2 capacity, whether or not the cluster is defined here.
                if cluster.node_groups.is_empty() {
                    cluster.capacity = Capacity::Declared(ng_loc.clone());
                }
                // A node group of a cluster not defined here may still be
                // one of ours when its name, or ours, is unknown.
                if !cluster.defined {
                    if id.name.is_known() {
                        orphan_named_capacity = true;
                    } else {
                        unattributed_capacity = true;
                    }
                }
                cluster.node_groups.push(NodeGroup {
                    name,
                    loc: ng_loc,
                    managed: true,
                });
            }
            ADDON => cluster.addons.push(read_addon(t, r, &path, node_of(i))),
            PROFILE => {
                cluster
                    .fargate_profiles
                    .push(read_profile(t, r, &path, node_of(i)));
                let pi = cluster.fargate_profiles.len() - 1;
                iam::link(t, r.prop("PodExecutionRoleArn"), cluster, pi);
            }
            CDK_PROFILE => {
                cluster
                    .fargate_profiles
                    .push(read_cdk_profile(t, r, &path, node_of(i)));
                let pi = cluster.fargate_profiles.len() - 1;
                let arn = r.prop("Config").and_then(|c| c.get("podExecutionRoleArn"));
                iam::link(t, arn, cluster, pi);
            }
            cdk::HELM_CHART => {
                cluster
                    .helm_releases
                    .push(cdk::read_helm_chart(t, r, &path, node_of(i)))
            }
            cdk::MANIFEST => {
                let key = cluster.key.clone();
                cdk::read_manifest(t, r, &path, node_of(i), &key, out);
            }
            _ => {}
        }
    }

    // Capacity the template declares but that fplint cannot tie to a cluster
    // makes "Fargate-only" unknown for every cluster the template defines.
    let tied = tied_capacity(t);
    let self_managed = t
        .resources
        .iter()
        .any(|r| SELF_MANAGED_CAPACITY.contains(&r.ty) && !tied.contains(&r.id));
    for c in &mut clusters {
        let maybe_ours = orphan_named_capacity && !c.name.value.is_known();
        if c.defined
            && c.capacity == Capacity::None
            && (self_managed || unattributed_capacity || maybe_ours || t.generated_resources)
        {
            c.capacity = Capacity::Unknown;
        }
        if t.generated_resources {
            c.profiles_incomplete = true;
        }
    }

    // Profiles under mutually exclusive conditions never coexist. Past a
    // size no real template reaches (EKS allows 10 profiles a cluster) the
    // pairs are not recorded, which can only make FP003 report more.
    let conditional: Vec<(usize, &str)> = t
        .resources
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.ty, PROFILE | CDK_PROFILE))
        .filter_map(|(i, r)| Some((i, r.condition?)))
        .take(MAX_CONDITIONAL_PROFILES + 1)
        .collect();
    let conditional = if conditional.len() > MAX_CONDITIONAL_PROFILES {
        &[][..]
    } else {
        &conditional[..]
    };
    for (k, &(i, ci)) in conditional.iter().enumerate() {
        for &(j, cj) in &conditional[..k] {
            if t.conditions_exclusive(ci, cj) {
                graph.add_exclusive(node_of(i).node, node_of(j).node);
            }
        }
    }

    for r in t.resources.iter().filter(|r| r.ty == POD_IDENTITY) {
        out.pod_identities.push(read_pod_identity(t, r));
    }

    let patch = coredns_patch(t);
    // An add-on whose cluster is not one defined here may be theirs.
    let stray_addon = clusters.iter().any(|c| !c.defined && !c.addons.is_empty());
    out.stray_addons |= clusters
        .iter()
        .any(|c| !c.defined && !c.name.value.is_known() && !c.addons.is_empty());
    for c in clusters.iter_mut().filter(|c| c.defined) {
        c.coredns_patch = patch.clone();
        c.addons_incomplete |= stray_addon || t.generated_resources;
    }

    out.clusters.append(&mut clusters);
    out.graph = Some(graph);
}

/// CDK's patch of CoreDNS's Deployment (`Custom::AWSCDK-EKS-KubernetesPatch`
/// of `deployment/coredns`, which writes the compute-type annotation for
/// Fargate), or a resource that says CoreDNS; unknown when a custom resource
/// or a nested stack might do it out of sight.
fn coredns_patch(t: &Template<'_>) -> Known<Option<Loc>> {
    const HARMLESS: &[&str] = &[
        CDK_CLUSTER,
        CDK_PROFILE,
        "Custom::AWSCDKOpenIdConnectProvider",
        "Custom::AWSCDK-EKS-OpenIdConnectProvider",
        "Custom::CDKBucketDeployment",
        "Custom::S3AutoDeleteObjects",
        "Custom::LogRetention",
    ];
    let mut unknown = t.generated_resources;
    for r in &t.resources {
        let custom = r.ty.starts_with("Custom::")
            || matches!(
                r.ty,
                "AWS::CloudFormation::CustomResource"
                    | "AWS::CloudFormation::Stack"
                    | "AWS::Serverless::Application"
            );
        if !custom || HARMLESS.contains(&r.ty) || cdk::is_provider_stack(r) {
            continue;
        }
        if mentions(r.body, "coredns", 0) {
            return Known::Known(Some(Loc::new(
                r.key.span,
                crate::path::dot("Resources", r.id),
            )));
        }
        // A manifest that does not say CoreDNS and is read here (CDK's
        // `aws-auth` ConfigMap, the program's own objects) does not patch it.
        if r.ty == cdk::MANIFEST && cdk::manifest_read(t, r) {
            continue;
        }
        unknown = true;
    }
    if unknown {
        Known::Unknown
    } else {
        Known::Known(None)
    }
}

/// Whether a string in the node says `needle`.
fn mentions(n: &crate::tree::Node, needle: &str, depth: usize) -> bool {
    use crate::tree::NodeKind;
    if depth > 64 {
        return false;
    }
    match &n.kind {
        NodeKind::Scalar(s, _) => s.to_ascii_lowercase().contains(needle),
        NodeKind::Seq(items) => items.iter().any(|i| mentions(i, needle, depth + 1)),
        NodeKind::Map(entries) => entries
            .iter()
            .any(|e| mentions(&e.value, needle, depth + 1)),
    }
}

/// `AWS::EKS::PodIdentityAssociation`: its cluster by the same identity as
/// profiles use, so that both meet on [`Cluster::key`].
fn read_pod_identity(t: &Template<'_>, r: &template::Resource<'_>) -> PodIdentityAssociation {
    let path = crate::path::dot("Resources", r.id);
    let whole = Loc::new(r.key.span, path.clone());
    let prop = |k: &str| {
        located_or_unknown(
            t,
            t.present(r.prop(k)),
            || format!("{path}.Properties.{k}"),
            &whole,
        )
    };
    PodIdentityAssociation {
        namespace: prop("Namespace"),
        service_account: prop("ServiceAccount"),
        loc: whole.clone(),
        cluster_key: r.prop("ClusterName").map(|n| t.cluster_of(n).key),
    }
}

/// EKS Auto Mode (`ComputeConfig.Enabled: true`) runs EC2 nodes for the cluster.
fn auto_mode_capacity(t: &Template<'_>, r: &template::Resource<'_>, path: &str) -> Capacity {
    // Hybrid nodes can run what Fargate does not.
    if t.present(r.prop("RemoteNetworkConfig")).is_some() {
        return Capacity::Unknown;
    }
    let Some(enabled) = r.prop("ComputeConfig").and_then(|c| c.get("Enabled")) else {
        return Capacity::None;
    };
    match t.eval_str(enabled).known().map(|s| s.to_ascii_lowercase()) {
        Some(s) if s == "true" => Capacity::Declared(Loc::new(
            enabled.span,
            crate::path::dot(path, "Properties.ComputeConfig.Enabled"),
        )),
        Some(s) if s == "false" => Capacity::None,
        _ => Capacity::Unknown,
    }
}

fn located(t: &Template<'_>, node: &Node, path: String) -> Located<String> {
    Located::new(t.eval_str(node), Loc::new(node.span, path))
}

/// A property's string where written; unknown at `whole` when it is not
/// (CloudFormation generates names that are left out).
fn located_or_unknown(
    t: &Template<'_>,
    node: Option<&Node>,
    path: impl FnOnce() -> String,
    whole: &Loc,
) -> Located<String> {
    match node {
        Some(n) => located(t, n, path()),
        None => Located::new(Known::Unknown, whole.clone()),
    }
}

fn read_profile(
    t: &Template<'_>,
    r: &template::Resource<'_>,
    path: &str,
    resource: ResourceRef,
) -> FargateProfile {
    let props = crate::path::dot(path, "Properties");
    let profile_loc = Loc::new(r.key.span, path);
    let name = located_or_unknown(
        t,
        r.prop("FargateProfileName"),
        || crate::path::dot(&props, "FargateProfileName"),
        &profile_loc,
    );
    let sel_path = crate::path::dot(&props, "Selectors");
    let (selectors, selectors_loc) = match r.prop("Selectors") {
        None => (Known::Known(Vec::new()), profile_loc.clone()),
        Some(s) => (
            read_list(s, |item, i| {
                read_selector(
                    t,
                    item,
                    &crate::path::index(&sel_path, i),
                    "Namespace",
                    "Labels",
                )
            }),
            Loc::new(s.span, sel_path),
        ),
    };
    FargateProfile {
        name,
        loc: profile_loc,
        selectors,
        selectors_loc,
        subnets: read_subnets(t, r.prop("Subnets"), &crate::path::dot(&props, "Subnets")),
        pod_execution_role: r
            .prop("PodExecutionRoleArn")
            .map(|n| located(t, n, crate::path::dot(&props, "PodExecutionRoleArn"))),
        role_ref: None,
        resource: Some(resource),
        created_concurrently: true,
    }
}

fn read_cdk_profile(
    t: &Template<'_>,
    r: &template::Resource<'_>,
    path: &str,
    resource: ResourceRef,
) -> FargateProfile {
    let cfg_path = crate::path::dot(path, "Properties.Config");
    let config = r.prop("Config");
    let get = |k: &str| config.and_then(|c| t.present(c.get(k)));
    let profile_loc = Loc::new(r.key.span, path);
    let name = located_or_unknown(
        t,
        get("fargateProfileName"),
        || crate::path::dot(&cfg_path, "fargateProfileName"),
        &profile_loc,
    );
    let sel_path = crate::path::dot(&cfg_path, "selectors");
    let (selectors, selectors_loc) = match (config, get("selectors")) {
        (Some(_), None) => (Known::Known(Vec::new()), profile_loc.clone()),
        (None, _) => (Known::Unknown, profile_loc.clone()),
        (Some(_), Some(s)) => (
            read_list(s, |item, i| {
                read_selector(
                    t,
                    item,
                    &crate::path::index(&sel_path, i),
                    "namespace",
                    "labels",
                )
            }),
            Loc::new(s.span, sel_path),
        ),
    };
    FargateProfile {
        name,
        loc: profile_loc,
        selectors,
        selectors_loc,
        subnets: read_subnets(t, get("subnets"), &crate::path::dot(&cfg_path, "subnets")),
        pod_execution_role: get("podExecutionRoleArn")
            .map(|n| located(t, n, crate::path::dot(&cfg_path, "podExecutionRoleArn"))),
        role_ref: None,
        resource: Some(resource),
        created_concurrently: true,
    }
}

/// A literal list read item by item; an intrinsic in place of the list or of
/// an item (`Fn::If` may drop it) makes the whole list unknown.
fn read_list<T>(node: &Node, mut item: impl FnMut(&Node, usize) -> T) -> Known<Vec<T>> {
    let Some(items) = node.as_seq() else {
        return Known::Unknown;
    };
    if items.iter().any(|n| intrinsic::as_fn(n).is_some()) {
        return Known::Unknown;
    }
    Known::Known(items.iter().enumerate().map(|(i, n)| item(n, i)).collect())
}

fn read_selector(
    t: &Template<'_>,
    sel: &Node,
    path: &str,
    ns_key: &str,
    labels_key: &str,
) -> Selector {
    let namespace = match t.present(sel.get(ns_key)) {
        Some(n) => located(t, n, crate::path::dot(path, ns_key)),
        None => Located::new(Known::Known(String::new()), Loc::new(sel.span, path)),
    };
    let labels_path = crate::path::dot(path, labels_key);
    let (labels, labels_loc) = match t.present(sel.get(labels_key)) {
        None => (Known::Known(Vec::new()), None),
        Some(l) => {
            let labels = match &l.kind {
                // AWS::EKS::FargateProfile: a list of {Key, Value}.
                NodeKind::Seq(_) => read_list(l, |item, i| {
                    let p = crate::path::index(&labels_path, i);
                    Label {
                        key: item.get("Key").map_or(Known::Unknown, |k| t.eval_str(k)),
                        value: item.get("Value").map_or(Known::Unknown, |v| t.eval_str(v)),
                        loc: Loc::new(item.span, p),
                    }
                }),
                // CDK custom resource: a map of key to value.
                NodeKind::Map(entries) if intrinsic::as_fn(l).is_none() => Known::Known(
                    entries
                        .iter()
                        .map(|e| {
                            let k = e.key.scalar().unwrap_or_default();
                            Label {
                                key: Known::Known(k.to_string()),
                                value: t.eval_str(&e.value),
                                loc: Loc::new(
                                    e.key.span.cover(e.value.span),
                                    crate::path::dot(&labels_path, k),
                                ),
                            }
                        })
                        .collect(),
                ),
                _ => Known::Unknown,
            };
            (labels, Some(Loc::new(l.span, labels_path)))
        }
    };
    Selector {
        loc: Loc::new(sel.span, path),
        namespace,
        labels,
        labels_loc,
    }
}

fn read_subnets(t: &Template<'_>, node: Option<&Node>, path: &str) -> Known<Vec<SubnetRef>> {
    let Some(node) = t.present(node) else {
        // EKS then uses the cluster's private subnets.
        return Known::Known(Vec::new());
    };
    if let Some(items) = node.as_seq() {
        if items
            .iter()
            .any(|n| intrinsic::as_fn(n).is_some_and(|(f, _)| !matches!(f, "Ref" | "Fn::GetAtt")))
        {
            return Known::Unknown;
        }
        return Known::Known(
            items
                .iter()
                .enumerate()
                .map(|(i, n)| t.subnet(n, crate::path::index(path, i)))
                .collect(),
        );
    }
    // A list parameter: its default, split on commas.
    match t.eval_list(node) {
        Some(ids) => Known::Known(
            ids.into_iter()
                .map(|id| SubnetRef {
                    id: Located::new(Known::Known(id), Loc::new(node.span, path)),
                    visibility: Known::Unknown,
                    evidence: None,
                })
                .collect(),
        ),
        None => Known::Unknown,
    }
}

fn read_addon(
    t: &Template<'_>,
    r: &template::Resource<'_>,
    path: &str,
    resource: ResourceRef,
) -> Addon {
    let props = crate::path::dot(path, "Properties");
    let addon_loc = Loc::new(r.key.span, path);
    let name = located_or_unknown(
        t,
        r.prop("AddonName"),
        || crate::path::dot(&props, "AddonName"),
        &addon_loc,
    );
    let configuration = t.present(r.prop("ConfigurationValues")).map(|cv| {
        let value = match t.eval_str(cv) {
            Known::Known(s) => crate::value::Value::parse_embedded(&s),
            Known::Unknown => Known::Unknown,
        };
        Located::new(
            value,
            Loc::new(cv.span, crate::path::dot(&props, "ConfigurationValues")),
        )
    });
    Addon {
        name,
        loc: addon_loc,
        version: t
            .present(r.prop("AddonVersion"))
            .map(|v| located(t, v, crate::path::dot(&props, "AddonVersion"))),
        configuration,
        before_compute: false,
        resource: Some(resource),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{load_document_file, Format};
    use crate::model::SubnetVisibility;
    use crate::source::FileId;
    use crate::tree::Limits;

    fn load_as(path: &str, text: &str) -> UnitOutput {
        let file = SourceFile::new(FileId(0), path, text);
        load_document_file(&file, Limits::default())
    }

    fn load(text: &str) -> UnitOutput {
        load_as("t.yaml", text)
    }

    fn slice<'a>(text: &'a str, loc: &Loc) -> &'a str {
        &text[loc.span.range()]
    }

    const TEMPLATE: &str = r#"AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Name:
    Type: String
    Default: shop
  SubnetIds:
    Type: List<AWS::EC2::Subnet::Id>
    Default: "subnet-1, subnet-2"
Resources:
  Igw:
    Type: AWS::EC2::InternetGateway
  Nat:
    Type: AWS::EC2::NatGateway
    Properties: {SubnetId: !Ref PublicSubnet}
  PublicSubnet:
    Type: AWS::EC2::Subnet
    Properties: {VpcId: vpc-1, CidrBlock: 10.0.0.0/24}
  PrivateSubnet:
    Type: AWS::EC2::Subnet
    Properties: {VpcId: vpc-1, CidrBlock: 10.0.1.0/24, MapPublicIpOnLaunch: false}
  OpenSubnet:
    Type: AWS::EC2::Subnet
    Properties: {VpcId: vpc-1, CidrBlock: 10.0.2.0/24, MapPublicIpOnLaunch: true}
  PublicRt:
    Type: AWS::EC2::RouteTable
    Properties: {VpcId: vpc-1}
  PublicRoute:
    Type: AWS::EC2::Route
    Properties: {RouteTableId: !Ref PublicRt, DestinationCidrBlock: 0.0.0.0/0, GatewayId: !Ref Igw}
  PublicAssoc:
    Type: AWS::EC2::SubnetRouteTableAssociation
    Properties: {SubnetId: !Ref PublicSubnet, RouteTableId: !Ref PublicRt}
  PrivateRt:
    Type: AWS::EC2::RouteTable
    Properties: {VpcId: vpc-1}
  PrivateRoute:
    Type: AWS::EC2::Route
    Properties: {RouteTableId: !Ref PrivateRt, DestinationCidrBlock: 0.0.0.0/0, NatGatewayId: !Ref Nat}
  PrivateAssoc:
    Type: AWS::EC2::SubnetRouteTableAssociation
    Properties: {SubnetId: !Ref PrivateSubnet, RouteTableId: !Ref PrivateRt}
  Cluster:
    Type: AWS::EKS::Cluster
    Properties:
      Name: !Ref Name
      Version: "1.30"
      RoleArn: arn:aws:iam::1:role/r
      ResourcesVpcConfig: {SubnetIds: [!Ref PrivateSubnet]}
  CoreDns:
    Type: AWS::EKS::Addon
    Properties:
      AddonName: coredns
      ClusterName: !Ref Cluster
      ConfigurationValues: '{"computeType": "fargate"}'
  ProfileA:
    Type: AWS::EKS::FargateProfile
    Properties:
      ClusterName: shop
      FargateProfileName: !Sub "${Name}-system"
      PodExecutionRoleArn: !GetAtt Role.Arn
      Subnets: [!Ref PrivateSubnet, !Ref PublicSubnet, !Ref OpenSubnet, subnet-9]
      Selectors:
        - Namespace: kube-system
          Labels:
            - Key: k8s-app
              Value: kube-dns
  ProfileB:
    Type: AWS::EKS::FargateProfile
    DependsOn: ProfileA
    Properties:
      ClusterName: !Ref Cluster
      Subnets: !Ref SubnetIds
      Selectors: [{Namespace: !Join ["-", [app, !Ref Name]]}]
  Role:
    Type: AWS::IAM::Role
    Properties: {AssumeRolePolicyDocument: {}}
"#;

    #[test]
    fn template_into_the_model() {
        let out = load(TEMPLATE);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert_eq!(out.formats, [Format::CloudFormation]);
        assert_eq!(out.clusters.len(), 1);
        let c = &out.clusters[0];
        assert_eq!(c.key, "shop");
        assert!(c.defined);
        assert_eq!(c.capacity, Capacity::None);
        assert_eq!(slice(TEMPLATE, &c.loc), "Cluster");
        assert_eq!(c.version.as_ref().and_then(|v| v.known()).unwrap(), "1.30");
        let addon = &c.addons[0];
        assert_eq!(addon.name.known().unwrap(), "coredns");
        let cfg = addon.configuration.as_ref().unwrap().known().unwrap();
        assert!(format!("{cfg:?}").contains("fargate"));

        let [a, b] = &c.fargate_profiles[..] else {
            panic!("{:?}", c.fargate_profiles)
        };
        assert_eq!(a.name.known().unwrap(), "shop-system");
        assert_eq!(slice(TEMPLATE, &a.loc), "ProfileA");
        assert_eq!(&*a.loc.path, "Resources.ProfileA");
        assert!(a.created_concurrently);
        let sel = &a.selectors.known().unwrap()[0];
        assert_eq!(sel.namespace.known().unwrap(), "kube-system");
        assert_eq!(sel.known_labels().unwrap(), [("k8s-app", "kube-dns")]);
        assert_eq!(
            &*sel.labels.known().unwrap()[0].loc.path,
            "Resources.ProfileA.Properties.Selectors[0].Labels[0]"
        );
        let vis: Vec<Option<SubnetVisibility>> = a
            .subnets
            .known()
            .unwrap()
            .iter()
            .map(|s| s.visibility.known().copied())
            .collect();
        use SubnetVisibility::{Private, Public};
        assert_eq!(vis, [Some(Private), Some(Public), Some(Public), None]);
        let open = &a.subnets.known().unwrap()[2];
        assert_eq!(slice(TEMPLATE, open.evidence.as_ref().unwrap()), "true");
        let public = &a.subnets.known().unwrap()[1];
        assert_eq!(
            &*public.evidence.as_ref().unwrap().path,
            "Resources.PublicRoute.Properties.GatewayId"
        );

        assert_eq!(
            b.selectors.known().unwrap()[0].namespace.known().unwrap(),
            "app-shop"
        );
        let ids: Vec<&String> = b
            .subnets
            .known()
            .unwrap()
            .iter()
            .filter_map(|s| s.id.known())
            .collect();
        assert_eq!(ids, ["subnet-1", "subnet-2"]);

        let g = out.graph.as_ref().unwrap();
        let (ra, rb) = (a.resource.unwrap(), b.resource.unwrap());
        assert_eq!(g.nodes[ra.node as usize].name, "ProfileA");
        assert!(g.reaches(rb.node, ra.node));
        assert!(!g.reaches(ra.node, rb.node));
        // ProfileA reaches the cluster only through nothing: it names it literally.
        let cluster_node = g.nodes.iter().position(|n| n.name == "Cluster").unwrap() as u32;
        assert!(g.reaches(rb.node, cluster_node));
        assert!(!g.reaches(ra.node, cluster_node));
        assert!(g.reaches(
            ra.node,
            g.nodes.iter().position(|n| n.name == "Role").unwrap() as u32
        ));
    }

    #[test]
    fn json_reads_like_yaml() {
        let json = r#"{"Resources": {
            "C": {"Type": "AWS::EKS::Cluster", "Properties": {"Name": "x"}},
            "NG": {"Type": "AWS::EKS::Nodegroup", "Properties": {"ClusterName": {"Ref": "C"}, "NodegroupName": "ng"}},
            "P": {"Type": "AWS::EKS::FargateProfile", "Properties": {"ClusterName": "x",
                  "Selectors": [{"Namespace": "a", "Labels": [{"Key": "k", "Value": "v"}]}]}}}}"#;
        let out = load_as("t.json", json);
        assert!(out.diagnostics.is_empty());
        let c = &out.clusters[0];
        assert!(matches!(&c.capacity, Capacity::Declared(l) if &*l.path == "Resources.NG"));
        assert_eq!(c.node_groups[0].name.known().unwrap(), "ng");
        assert_eq!(
            c.fargate_profiles[0].selectors.known().unwrap()[0]
                .known_labels()
                .unwrap(),
            [("k", "v")]
        );
    }

    #[test]
    fn clusters_only_referenced_are_not_defined() {
        let t = "Parameters:\n  CN: {Type: String}\nResources:\n  \
                 P1:\n    Type: AWS::EKS::FargateProfile\n    Properties: {ClusterName: !Ref CN, Selectors: [{Namespace: a}]}\n  \
                 P2:\n    Type: AWS::EKS::FargateProfile\n    Properties: {ClusterName: {Ref: CN}, Selectors: [{Namespace: b}]}\n";
        let out = load(t);
        assert_eq!(out.clusters.len(), 1);
        let c = &out.clusters[0];
        assert_eq!(c.key, "Ref:CN");
        assert!(!c.defined);
        assert_eq!(c.capacity, Capacity::Unknown);
        assert!(!c.name.value.is_known());
        assert_eq!(c.fargate_profiles.len(), 2);
    }

    #[test]
    fn unresolved_values_are_unknown() {
        let t = "Conditions:\n  X: !Equals [a, b]\nResources:\n  \
                 P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: c\n      \
                 Subnets: !If [X, [a], [b]]\n      Selectors:\n        - Namespace: !ImportValue ns\n          \
                 Labels: !If [X, [], !Ref AWS::NoValue]\n        - Namespace: b\n          Labels:\n            \
                 - !If [X, {Key: a, Value: b}, !Ref AWS::NoValue]\n";
        let out = load(t);
        let p = &out.clusters[0].fargate_profiles[0];
        assert!(!p.subnets.is_known());
        let sels = p.selectors.known().unwrap();
        assert!(!sels[0].namespace.value.is_known());
        assert!(!sels[0].labels.is_known());
        assert!(!sels[1].labels.is_known());
    }

    #[test]
    fn cdk_custom_resources() {
        let json = r#"{"Resources": {
            "Cl": {"Type": "Custom::AWSCDK-EKS-Cluster", "Properties": {"Config": {"name": "cdk", "version": "1.29"}}},
            "Asg": {"Type": "AWS::AutoScaling::AutoScalingGroup", "Properties": {}},
            "P": {"Type": "Custom::AWSCDK-EKS-FargateProfile", "Properties": {"Config": {
                "clusterName": {"Ref": "Cl"}, "fargateProfileName": "fp",
                "selectors": [{"namespace": "kube-system", "labels": {"a": "b"}}]}}}}}"#;
        let out = load_as("t.json", json);
        let c = &out.clusters[0];
        assert_eq!(c.key, "cdk");
        // Self-managed nodes may serve the cluster.
        assert_eq!(c.capacity, Capacity::Unknown);
        let p = &c.fargate_profiles[0];
        assert_eq!(p.name.known().unwrap(), "fp");
        assert!(p.created_concurrently && p.resource.is_some());
        let sel = &p.selectors.known().unwrap()[0];
        assert_eq!(sel.known_labels().unwrap(), [("a", "b")]);
        assert_eq!(
            &*sel.labels_loc.as_ref().unwrap().path,
            "Resources.P.Properties.Config.selectors[0].labels"
        );
    }

    #[test]
    fn auto_mode_is_ec2_capacity() {
        let t = "Resources:\n  C:\n    Type: AWS::EKS::Cluster\n    Properties:\n      \
                 ComputeConfig: {Enabled: true}\n";
        let out = load(t);
        assert!(matches!(out.clusters[0].capacity, Capacity::Declared(_)));
    }

    #[test]
    fn unknown_tag_is_fp000_at_the_tag() {
        let t = "Resources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      \
                 ClusterName: !Reff C\n";
        let out = load(t);
        assert_eq!(out.diagnostics.len(), 1);
        let d = &out.diagnostics[0];
        assert_eq!(d.code, "FP000");
        assert_eq!(&t[d.span.range()], "!Reff");
        // The value is unknown, not the text after the tag.
        assert!(!out.clusters[0].name.value.is_known());
    }

    #[test]
    fn recognition() {
        let yes = [
            "AWSTemplateFormatVersion: '2010-09-09'\nResources: {}\n",
            "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n",
            "Resources:\n  Q:\n    Type: Custom::Thing\n",
        ];
        for t in yes {
            assert_eq!(load(t).formats, [Format::CloudFormation], "{t}");
        }
        let no = [
            "Resources:\n  cpu: 1\n",
            "resources:\n  Q:\n    Type: AWS::SQS::Queue\n",
            "- a\n",
        ];
        for t in no {
            assert!(load(t).formats.is_empty(), "{t}");
        }
        // Not an EKS template: recognised, no model.
        let out = load("Resources:\n  S:\n    Type: AWS::CloudFormation::Stack\n    Properties: {TemplateURL: x}\n");
        assert_eq!(out.formats, [Format::CloudFormation]);
        assert!(out.clusters.is_empty() && out.graph.is_none());
    }

    #[test]
    fn invalid_json_template_is_fp000() {
        let out = load_as(
            "t.json",
            "{\"AWSTemplateFormatVersion\": \"2010-09-09\", \"Resources\": {,}}",
        );
        assert_eq!(out.diagnostics.len(), 1);
        assert_eq!(out.diagnostics[0].code, "FP000");
    }

    #[test]
    fn hostile_input_does_not_panic() {
        let inputs = [
            "Resources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties: !Ref X\n",
            "Resources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: [a]\n      Selectors: {a: b}\n",
            "Resources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    DependsOn: {a: b}\n    Properties:\n      ClusterName: !Sub [x, y, z]\n      Selectors: [a, [b], {Labels: x}]\n",
            "Resources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: !Sub '${'\n      Subnets: !Select [99, [a]]\n",
            "Resources:\n  P:\n    Type: Custom::AWSCDK-EKS-FargateProfile\n    Properties: {Config: 3}\n",
            "Resources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: !GetAtt\n      Selectors: !Join\n",
        ];
        for t in inputs {
            let _ = load(t);
        }
    }

    #[test]
    fn metadata_suppressions() {
        let t = "Metadata:\n  fplint:\n    ignore: [fp004]\nResources:\n  A:\n    Type: AWS::SQS::Queue\n  \
                 B:\n    Type: AWS::EKS::FargateProfile\n    Metadata:\n      fplint:\n        ignore: FP003\n    \
                 Properties: {ClusterName: c}\n";
        let d = crate::tree::yaml::parse(t, FileId(0), Limits::default());
        let m = metadata_ignores(&d.documents[0]);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].scope, None);
        assert_eq!(m[0].codes[0].0, "FP004");
        assert_eq!(&t[m[0].codes[0].1.range()], "fp004");
        let scope = m[1].scope.unwrap();
        assert!(t[scope.range()].starts_with("B:"));
        assert!(t[scope.range()].ends_with("{ClusterName: c}"));
        assert_eq!(m[1].codes[0].0, "FP003");
        let j = r#"{"Resources": {"B": {"Type": "AWS::EKS::FargateProfile", "Metadata": {"fplint": {"ignore": ["FP003"]}}}}}"#;
        let d = crate::tree::json::parse(j, FileId(0), Limits::default());
        assert_eq!(metadata_ignores(&d.documents[0])[0].codes[0].0, "FP003");
    }

    #[test]
    fn node_groups_of_clusters_defined_elsewhere() {
        // The cluster's name is unknown: the node group may be its own.
        let t = "Resources:\n  C:\n    Type: AWS::EKS::Cluster\n    Properties: {Name: !Sub '${AWS::StackName}-c'}\n  \
                 NG:\n    Type: AWS::EKS::Nodegroup\n    Properties: {ClusterName: prod-c}\n";
        let out = load(t);
        assert_eq!(out.clusters[0].capacity, Capacity::Unknown);
        // Both names known and different: the node group is another cluster's.
        let t = "Resources:\n  C:\n    Type: AWS::EKS::Cluster\n    Properties: {Name: shop}\n  \
                 NG:\n    Type: AWS::EKS::Nodegroup\n    Properties: {ClusterName: other}\n";
        let out = load(t);
        assert_eq!(out.clusters[0].capacity, Capacity::None);
        assert!(matches!(out.clusters[1].capacity, Capacity::Declared(_)));
        // Hybrid nodes.
        let t = "Resources:\n  C:\n    Type: AWS::EKS::Cluster\n    Properties:\n      \
                 RemoteNetworkConfig: {RemoteNodeNetworks: [{Cidrs: [10.1.0.0/16]}]}\n";
        assert_eq!(load(t).clusters[0].capacity, Capacity::Unknown);
    }

    #[test]
    fn ssm_parameter_defaults_are_paths_not_values() {
        let t = "Parameters:\n  CN:\n    Type: AWS::SSM::Parameter::Value<String>\n    Default: /eks/name\n\
                 Resources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties: {ClusterName: !Ref CN}\n";
        let c = &load(t).clusters[0];
        assert_eq!(c.key, "Ref:CN");
        assert!(!c.name.value.is_known());
    }
}
