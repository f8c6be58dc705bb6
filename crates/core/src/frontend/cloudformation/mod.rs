//! CloudFormation templates (YAML with short-form tags, or JSON), including
//! the templates CDK synthesises.
//!
//! CloudFormation creates resources in parallel unless a dependency orders
//! them, so the frontend builds the template's dependency graph (DependsOn,
//! Ref, GetAtt, Sub) and marks Fargate profiles as created concurrently.
//! Parameters with a `Default` resolve to it; conditions, imports and
//! anything else that depends on the deployment are unknown. Nested stacks are
//! not followed.

pub mod intrinsic;
mod template;

use super::UnitOutput;
use crate::diagnostic::Diagnostic;
use crate::model::{
    Addon, Capacity, Cluster, FargateProfile, Known, Label, Loc, Located, NodeGroup, Provisioner,
    ResourceRef, Selector, SubnetRef,
};
use crate::source::SourceFile;
use crate::tree::{Node, NodeKind};
use std::borrow::Cow;
use std::collections::HashMap;
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

pub fn load(file: &SourceFile, doc: &Node, out: &mut UnitOutput) {
    let doc: Cow<'_, Node> = if intrinsic::has_tags(doc) {
        let mut unknown = Vec::new();
        let n = intrinsic::normalise(doc, &file.text, &mut unknown);
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
        Cow::Owned(n)
    } else {
        Cow::Borrowed(doc)
    };
    let t = Template::new(&doc);
    build(&t, out);
}

const CLUSTER: &str = "AWS::EKS::Cluster";
const CDK_CLUSTER: &str = "Custom::AWSCDK-EKS-Cluster";
const PROFILE: &str = "AWS::EKS::FargateProfile";
const CDK_PROFILE: &str = "Custom::AWSCDK-EKS-FargateProfile";
const NODEGROUP: &str = "AWS::EKS::Nodegroup";
const ADDON: &str = "AWS::EKS::Addon";

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
            CLUSTER | CDK_CLUSTER | PROFILE | CDK_PROFILE | NODEGROUP | ADDON
        )
    });
    if !has_eks {
        return;
    }

    // The graph of this document; a second document of the same file adds to it.
    let mut graph = out.graph.take().unwrap_or_default();
    let base = u32::try_from(graph.nodes.len()).unwrap_or(u32::MAX);
    for r in &t.resources {
        graph.add_node(r.id, Loc::new(r.key.span, format!("Resources.{}", r.id)));
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
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for (i, r) in t.resources.iter().enumerate() {
        if !matches!(r.ty, CLUSTER | CDK_CLUSTER) {
            continue;
        }
        let id = t.cluster_of_resource(i);
        if by_key.contains_key(&id.key) {
            continue;
        }
        let path = format!("Resources.{}", r.id);
        let (name_node, name_path, version_node, version_path) = if r.ty == CLUSTER {
            (
                r.prop("Name"),
                format!("{path}.Properties.Name"),
                r.prop("Version"),
                format!("{path}.Properties.Version"),
            )
        } else {
            let config = r.prop("Config");
            (
                config.and_then(|c| c.get("name")),
                format!("{path}.Properties.Config.name"),
                config.and_then(|c| c.get("version")),
                format!("{path}.Properties.Config.version"),
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
        by_key.insert(id.key, clusters.len());
        clusters.push(c);
    }

    let mut unattributed_capacity = false;
    for (i, r) in t.resources.iter().enumerate() {
        let path = format!("Resources.{}", r.id);
        let (cluster_node, cluster_path) = match r.ty {
            PROFILE | NODEGROUP | ADDON => (
                r.prop("ClusterName"),
                format!("{path}.Properties.ClusterName"),
            ),
            CDK_PROFILE => (
                r.prop("Config").and_then(|c| c.get("clusterName")),
                format!("{path}.Properties.Config.clusterName"),
            ),
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
            NODEGROUP => {
                let ng_loc = Loc::new(r.key.span, path.clone());
                let name = match r.prop("NodegroupName") {
                    Some(n) => Located::new(
                        t.eval_str(n),
                        Loc::new(n.span, format!("{path}.Properties.NodegroupName")),
                    ),
                    None => Located::new(Known::Unknown, ng_loc.clone()),
                };
                if cluster.defined && cluster.node_groups.is_empty() {
                    cluster.capacity = Capacity::Declared(ng_loc.clone());
                }
                if !cluster.defined && !id.name.is_known() {
                    unattributed_capacity = true;
                }
                cluster.node_groups.push(NodeGroup {
                    name,
                    loc: ng_loc,
                    managed: true,
                });
            }
            ADDON => cluster.addons.push(read_addon(t, r, &path, node_of(i))),
            PROFILE => cluster
                .fargate_profiles
                .push(read_profile(t, r, &path, node_of(i))),
            CDK_PROFILE => cluster
                .fargate_profiles
                .push(read_cdk_profile(t, r, &path, node_of(i))),
            _ => {}
        }
    }

    // Capacity the template declares but that fplint cannot tie to a cluster
    // makes "Fargate-only" unknown for every cluster the template defines.
    let self_managed = t
        .resources
        .iter()
        .any(|r| SELF_MANAGED_CAPACITY.contains(&r.ty));
    for c in &mut clusters {
        if c.defined
            && c.capacity == Capacity::None
            && (self_managed || unattributed_capacity || t.generated_resources)
        {
            c.capacity = Capacity::Unknown;
        }
        if t.generated_resources {
            c.profiles_incomplete = true;
        }
    }

    out.clusters.append(&mut clusters);
    out.graph = Some(graph);
}

/// EKS Auto Mode (`ComputeConfig.Enabled: true`) runs EC2 nodes for the cluster.
fn auto_mode_capacity(t: &Template<'_>, r: &template::Resource<'_>, path: &str) -> Capacity {
    let Some(enabled) = r.prop("ComputeConfig").and_then(|c| c.get("Enabled")) else {
        return Capacity::None;
    };
    match t.eval_str(enabled).known().map(|s| s.to_ascii_lowercase()) {
        Some(s) if s == "true" => Capacity::Declared(Loc::new(
            enabled.span,
            format!("{path}.Properties.ComputeConfig.Enabled"),
        )),
        Some(s) if s == "false" => Capacity::None,
        _ => Capacity::Unknown,
    }
}

fn located(t: &Template<'_>, node: &Node, path: String) -> Located<String> {
    Located::new(t.eval_str(node), Loc::new(node.span, path))
}

fn read_profile(
    t: &Template<'_>,
    r: &template::Resource<'_>,
    path: &str,
    resource: ResourceRef,
) -> FargateProfile {
    let props = format!("{path}.Properties");
    let profile_loc = Loc::new(r.key.span, path.to_string());
    let name = match r.prop("FargateProfileName") {
        Some(n) => located(t, n, format!("{props}.FargateProfileName")),
        // CloudFormation generates a name.
        None => Located::new(Known::Unknown, profile_loc.clone()),
    };
    let sel_path = format!("{props}.Selectors");
    let (selectors, selectors_loc) = match r.prop("Selectors") {
        None => (Known::Known(Vec::new()), profile_loc.clone()),
        Some(s) => (
            read_list(s, |item, i| {
                read_selector(t, item, &format!("{sel_path}[{i}]"), "Namespace", "Labels")
            }),
            Loc::new(s.span, sel_path),
        ),
    };
    FargateProfile {
        name,
        loc: profile_loc,
        selectors,
        selectors_loc,
        subnets: read_subnets(t, r.prop("Subnets"), &format!("{props}.Subnets")),
        pod_execution_role: r
            .prop("PodExecutionRoleArn")
            .map(|n| located(t, n, format!("{props}.PodExecutionRoleArn"))),
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
    let cfg_path = format!("{path}.Properties.Config");
    let config = r.prop("Config");
    let get = |k: &str| config.and_then(|c| t.present(c.get(k)));
    let profile_loc = Loc::new(r.key.span, path.to_string());
    let name = match get("fargateProfileName") {
        Some(n) => located(t, n, format!("{cfg_path}.fargateProfileName")),
        None => Located::new(Known::Unknown, profile_loc.clone()),
    };
    let sel_path = format!("{cfg_path}.selectors");
    let (selectors, selectors_loc) = match (config, get("selectors")) {
        (Some(_), None) => (Known::Known(Vec::new()), profile_loc.clone()),
        (None, _) => (Known::Unknown, profile_loc.clone()),
        (Some(_), Some(s)) => (
            read_list(s, |item, i| {
                read_selector(t, item, &format!("{sel_path}[{i}]"), "namespace", "labels")
            }),
            Loc::new(s.span, sel_path),
        ),
    };
    FargateProfile {
        name,
        loc: profile_loc,
        selectors,
        selectors_loc,
        subnets: read_subnets(t, get("subnets"), &format!("{cfg_path}.subnets")),
        pod_execution_role: get("podExecutionRoleArn")
            .map(|n| located(t, n, format!("{cfg_path}.podExecutionRoleArn"))),
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
        Some(n) => located(t, n, format!("{path}.{ns_key}")),
        None => Located::new(
            Known::Known(String::new()),
            Loc::new(sel.span, path.to_string()),
        ),
    };
    let labels_path = format!("{path}.{labels_key}");
    let (labels, labels_loc) = match t.present(sel.get(labels_key)) {
        None => (Known::Known(Vec::new()), None),
        Some(l) => {
            let labels = match &l.kind {
                // AWS::EKS::FargateProfile: a list of {Key, Value}.
                NodeKind::Seq(_) => read_list(l, |item, i| {
                    let p = format!("{labels_path}[{i}]");
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
                                    format!("{labels_path}.{k}"),
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
        loc: Loc::new(sel.span, path.to_string()),
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
                .map(|(i, n)| t.subnet(n, format!("{path}[{i}]")))
                .collect(),
        );
    }
    // A list parameter: its default, split on commas.
    match t.eval_list(node) {
        Some(ids) => Known::Known(
            ids.into_iter()
                .map(|id| SubnetRef {
                    id: Located::new(Known::Known(id), Loc::new(node.span, path.to_string())),
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
    let props = format!("{path}.Properties");
    let addon_loc = Loc::new(r.key.span, path.to_string());
    let name = match r.prop("AddonName") {
        Some(n) => located(t, n, format!("{props}.AddonName")),
        None => Located::new(Known::Unknown, addon_loc.clone()),
    };
    let configuration = t.present(r.prop("ConfigurationValues")).map(|cv| {
        let value = match t.eval_str(cv) {
            Known::Known(s) => parse_embedded(&s),
            Known::Unknown => Known::Unknown,
        };
        Located::new(
            value,
            Loc::new(cv.span, format!("{props}.ConfigurationValues")),
        )
    });
    Addon {
        name,
        loc: addon_loc,
        version: t
            .present(r.prop("AddonVersion"))
            .map(|v| located(t, v, format!("{props}.AddonVersion"))),
        configuration,
        before_compute: false,
        resource: Some(resource),
    }
}

/// Add-on configuration values are a JSON or YAML document in a string; the
/// parts keep no spans of their own (the string's span is used).
fn parse_embedded(s: &str) -> Known<crate::value::Value> {
    let file = crate::source::FileId(u32::MAX);
    let parsed = crate::tree::yaml::parse(s, file, crate::tree::Limits::default());
    if parsed.error.is_some() {
        return Known::Unknown;
    }
    match parsed.documents.first() {
        Some(doc) => {
            let mut v = crate::value::Value::from_node(doc);
            strip_spans(&mut v);
            Known::Known(v)
        }
        None => Known::Unknown,
    }
}

fn strip_spans(v: &mut crate::value::Value) {
    use crate::value::ValueKind;
    v.span = None;
    match &mut v.kind {
        ValueKind::List(items) => items.iter_mut().for_each(strip_spans),
        ValueKind::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            k.span = None;
            strip_spans(v);
        }),
        _ => {}
    }
}
