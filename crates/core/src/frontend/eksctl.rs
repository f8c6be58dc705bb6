//! eksctl `ClusterConfig` (`apiVersion: eksctl.io/v1alpha5`).
//!
//! eksctl reads YAML the Go way into typed fields, so scalars are kept as
//! text: `version: "1.30"` stays the version 1.30. Values holding an envsubst
//! placeholder (`$EKS_CLUSTER_NAME`) are unknown.

use super::UnitOutput;
use crate::model::{
    Addon, Capacity, Cluster, FargateProfile, Known, Label, Loc, Located, NodeGroup, Provisioner,
    Selector, SubnetRef, SubnetVisibility,
};
use crate::source::SourceFile;
use crate::tree::{Node, NodeKind};
use crate::value::Value;
use crate::workload::PodIdentityAssociation;
use rustc_hash::FxHashMap as HashMap;

/// Whether a document is an eksctl `ClusterConfig`.
pub fn recognise(doc: &Node) -> bool {
    let api = doc.get("apiVersion").and_then(Node::as_str);
    let kind = doc.get("kind").and_then(Node::as_str);
    // Any eksctl version: one eksctl does not read is FP020 (invalid-value).
    matches!(api, Some(a) if a.starts_with("eksctl.io/")) && kind == Some("ClusterConfig")
}

fn loc(node: &Node, path: &str) -> Loc {
    Loc::new(node.span, path)
}

/// A string field as eksctl reads it; placeholders and non-scalars are unknown.
fn text(node: &Node) -> Known<String> {
    match node.as_str() {
        Some(s) if !is_placeholder(s) => Known::Known(s.to_string()),
        _ => Known::Unknown,
    }
}

use super::shared::is_placeholder;

fn located(node: &Node, path: &str) -> Located<String> {
    Located::new(text(node), loc(node, path))
}

fn field(parent: &Node, key: &str, path: &str) -> Option<Located<String>> {
    let n = parent.get(key)?;
    if n.is_null() {
        return None;
    }
    Some(located(n, &crate::path::dot(path, key)))
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        crate::path::dot(path, key)
    }
}

/// Read a `ClusterConfig` into the unit.
pub fn load(_file: &SourceFile, doc: &Node, out: &mut UnitOutput) {
    crate::schema::check_eksctl(doc, &mut out.schema);
    let meta = doc.get("metadata");
    let name = match meta.and_then(|m| m.get("name")) {
        Some(n) => located(n, "metadata.name"),
        None => Located::new(Known::Unknown, loc(meta.unwrap_or(doc), "metadata")),
    };
    // An unresolved name keeps its placeholder text as the key, for messages.
    let key = match (
        name.known(),
        meta.and_then(|m| m.get("name")).and_then(Node::as_str),
    ) {
        (Some(n), _) => n.clone(),
        (None, Some(raw)) => raw.to_string(),
        (None, None) => format!("eksctl:{}", doc.span.start),
    };
    let cluster_loc = match (meta, &name.value) {
        (Some(_), Known::Known(_)) => name.loc.clone(),
        (Some(m), Known::Unknown) => loc(m, "metadata"),
        (None, _) => loc(doc, ""),
    };
    let mut cluster = Cluster::new(name, key, cluster_loc, Provisioner::Eksctl);
    if let Some(m) = meta {
        cluster.region = field(m, "region", "metadata");
        cluster.version = field(m, "version", "metadata");
    }
    // eksctl's own default (`API_AND_CONFIG_MAP` since access entries) depends
    // on its version: unknown unless written.
    if let Some(m) = doc
        .get("accessConfig")
        .and_then(|a| field(a, "authenticationMode", "accessConfig"))
    {
        cluster.authentication_mode = m.value;
    }
    if let Some(k) = doc.get("karpenter") {
        cluster.karpenter_version = field(k, "version", "karpenter");
    }

    read_node_groups(doc, &mut cluster);
    if matches!(cluster.capacity, Capacity::None) {
        cluster.capacity = auto_mode(doc);
    }
    // A config for an unnamed (templated) cluster, or one that says nothing
    // but which profiles to add, is a fragment for `eksctl create
    // fargateprofile` against a cluster defined elsewhere.
    if (!cluster.name.value.is_known() || is_fragment(doc))
        && matches!(cluster.capacity, Capacity::None)
    {
        cluster.capacity = Capacity::Unknown;
    }
    read_addons(doc, &mut cluster);
    // Joined to its cluster's config when that is in the run (`crate::join`).
    if partial(doc) {
        cluster.defined = false;
    }

    let subnets = subnet_visibility(doc);
    let default_role = doc
        .get("iam")
        .and_then(|iam| field(iam, "fargatePodExecutionRoleARN", "iam"));
    match doc.get("fargateProfiles") {
        None => {}
        Some(n) if n.is_null() => {}
        Some(n) => match n.as_seq() {
            Some(items) => {
                for (i, p) in items.iter().enumerate() {
                    let path = crate::path::index("fargateProfiles", i);
                    cluster.fargate_profiles.push(read_profile(
                        p,
                        &path,
                        &subnets,
                        default_role.as_ref(),
                    ));
                }
            }
            None => cluster.profiles_incomplete = true,
        },
    }
    read_pod_identities(doc, &cluster.key, out);
    out.clusters.push(cluster);
}

/// A partial config: what `eksctl create fargateprofile -f` (profiles) or
/// `eksctl create nodegroup -f` (node groups) reads, for a cluster whose
/// whole definition is elsewhere. Every other top-level key (`vpc`,
/// `addons`, `iam.withOIDC`, `availabilityZones`, ...) is read only by
/// `eksctl create cluster`, so a config holding one is a whole definition;
/// `iam.fargatePodExecutionRoleARN` is read by `create fargateprofile` too.
fn partial(doc: &Node) -> bool {
    let Some(entries) = doc.as_map() else {
        return false;
    };
    entries.iter().any(|e| {
        matches!(
            e.key.scalar(),
            Some("fargateProfiles" | "nodeGroups" | "managedNodeGroups")
        )
    }) && entries.iter().all(|e| match e.key.scalar() {
        Some("apiVersion" | "kind" | "metadata" | "fargateProfiles") => true,
        // An empty list of node groups is nothing `create nodegroup` makes:
        // the config says the cluster has none.
        Some("nodeGroups" | "managedNodeGroups") => {
            e.value.as_seq().is_some_and(|items| !items.is_empty())
        }
        Some("iam") => e.value.as_map().is_some_and(|iam| {
            iam.iter()
                .all(|i| i.key.scalar() == Some("fargatePodExecutionRoleARN"))
        }),
        _ => false,
    })
}

/// `iam.podIdentityAssociations` and each add-on's `podIdentityAssociations`.
/// An add-on entry without `namespace` leaves it to the add-on: unknown.
fn read_pod_identities(doc: &Node, key: &str, out: &mut UnitOutput) {
    let mut lists: Vec<(String, &Node)> = Vec::new();
    if let Some(n) = doc
        .get("iam")
        .and_then(|i| i.get("podIdentityAssociations"))
    {
        lists.push(("iam.podIdentityAssociations".to_string(), n));
    }
    if let Some(addons) = doc.get("addons").and_then(Node::as_seq) {
        for (i, a) in addons.iter().enumerate() {
            if let Some(n) = a.get("podIdentityAssociations") {
                lists.push((format!("addons[{i}].podIdentityAssociations"), n));
            }
        }
    }
    for (base, list) in lists {
        let Some(items) = list.as_seq() else { continue };
        for (i, item) in items.iter().enumerate() {
            let path = crate::path::index(&base, i);
            let get = |k: &str| match item.get(k) {
                Some(n) if !n.is_null() => located(n, &join(&path, k)),
                _ => Located::new(Known::Unknown, loc(item, &path)),
            };
            out.pod_identities.push(PodIdentityAssociation {
                namespace: get("namespace"),
                service_account: get("serviceAccountName"),
                loc: loc(item, &path),
                cluster_key: Some(key.to_string()),
            });
        }
    }
}

/// A partial config with profiles and no node groups: what `eksctl create
/// fargateprofile -f` takes for an existing cluster. `eksctl create cluster
/// -f` takes it too, so it cannot tell whether the cluster has nodes. Any
/// section only `create cluster` reads (`vpc`, `addons`, `iam.withOIDC`,
/// `availabilityZones`, even an empty `nodeGroups`) makes it the cluster's
/// own definition.
fn is_fragment(doc: &Node) -> bool {
    partial(doc) && doc.get("nodeGroups").is_none() && doc.get("managedNodeGroups").is_none()
}

/// EKS Auto Mode (`autoModeConfig.enabled: true`) runs EC2 nodes for the
/// cluster; a placeholder leaves it unknown.
fn auto_mode(doc: &Node) -> Capacity {
    let Some(enabled) = doc.get("autoModeConfig").and_then(|a| a.get("enabled")) else {
        return Capacity::None;
    };
    match enabled.as_bool() {
        Some(true) => Capacity::Declared(loc(enabled, "autoModeConfig.enabled")),
        Some(false) => Capacity::None,
        None if enabled.is_null() => Capacity::None,
        None => Capacity::Unknown,
    }
}

fn read_node_groups(doc: &Node, cluster: &mut Cluster) {
    let mut unknown = false;
    for (key, managed) in [("nodeGroups", false), ("managedNodeGroups", true)] {
        let Some(n) = doc.get(key) else { continue };
        if n.is_null() {
            continue;
        }
        let Some(items) = n.as_seq() else {
            unknown = true;
            continue;
        };
        for (i, ng) in items.iter().enumerate() {
            let path = crate::path::index(key, i);
            let name = match ng.get("name") {
                Some(n) => located(n, &join(&path, "name")),
                None => Located::new(Known::Unknown, loc(ng, &path)),
            };
            cluster.node_groups.push(NodeGroup {
                name,
                loc: loc(ng, &path),
                managed,
            });
        }
    }
    cluster.capacity = match cluster.node_groups.first() {
        Some(ng) => Capacity::Declared(ng.loc.clone()),
        None if unknown => Capacity::Unknown,
        None => Capacity::None,
    };
}

fn read_addons(doc: &Node, cluster: &mut Cluster) {
    let Some(items) = doc.get("addons").and_then(Node::as_seq) else {
        return;
    };
    for (i, a) in items.iter().enumerate() {
        let path = crate::path::index("addons", i);
        let name = match a.get("name") {
            Some(n) => located(n, &join(&path, "name")),
            None => Located::new(Known::Unknown, loc(a, &path)),
        };
        let configuration = a.get("configurationValues").and_then(|cv| {
            let p = join(&path, "configurationValues");
            let s = cv.as_str()?;
            Some(Located::new(parse_embedded(s), loc(cv, &p)))
        });
        cluster.addons.push(Addon {
            name,
            loc: loc(a, &path),
            version: field(a, "version", &path),
            configuration,
            before_compute: false,
            resource: None,
        });
    }
}

/// Add-on configuration values are a JSON or YAML document in a string.
fn parse_embedded(s: &str) -> Known<Value> {
    if is_placeholder(s) {
        return Known::Unknown;
    }
    Value::parse_embedded(s)
}

/// Subnet ids listed under `vpc.subnets.public` / `.private`, with their entry.
fn subnet_visibility(doc: &Node) -> HashMap<String, (SubnetVisibility, Loc)> {
    let mut map: HashMap<String, (SubnetVisibility, Loc)> = HashMap::default();
    let mut ambiguous = Vec::new();
    let Some(subnets) = doc.get("vpc").and_then(|v| v.get("subnets")) else {
        return map;
    };
    for (key, vis) in [
        ("public", SubnetVisibility::Public),
        ("private", SubnetVisibility::Private),
    ] {
        let Some(entries) = subnets.get(key).and_then(Node::as_map) else {
            continue;
        };
        for e in entries {
            let az = e.key.scalar().unwrap_or_default();
            let path = crate::path::concat(&["vpc.subnets.", key, ".", az]);
            let id = e.value.get("id").and_then(Node::as_str);
            for name in std::iter::once(az).chain(id) {
                // A name (an AZ) under both `public` and `private` says nothing.
                if map.get(name).is_some_and(|(v, _)| *v != vis) {
                    ambiguous.push(name.to_string());
                }
                map.insert(name.to_string(), (vis, loc(&e.key, &path)));
            }
        }
    }
    for name in ambiguous {
        map.remove(&name);
    }
    map
}

fn read_profile(
    p: &Node,
    path: &str,
    subnets: &HashMap<String, (SubnetVisibility, Loc)>,
    default_role: Option<&Located<String>>,
) -> FargateProfile {
    let name = match p.get("name") {
        Some(n) => located(n, &join(path, "name")),
        None => Located::new(Known::Unknown, loc(p, path)),
    };
    let profile_loc = match p.entry("name") {
        Some(e) => loc(&e.value, path),
        None => loc(p, path),
    };
    let sel_path = join(path, "selectors");
    let (selectors, selectors_loc) = match p.get("selectors") {
        None => (Known::Known(Vec::new()), profile_loc.clone()),
        Some(s) if s.is_null() => (Known::Known(Vec::new()), loc(s, &sel_path)),
        Some(s) => match s.as_seq() {
            Some(items) => (
                Known::Known(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, sel)| read_selector(sel, &crate::path::index(&sel_path, i)))
                        .collect(),
                ),
                loc(s, &sel_path),
            ),
            None => (Known::Unknown, loc(s, &sel_path)),
        },
    };
    let subnet_path = join(path, "subnets");
    let subnet_refs = match p.get("subnets") {
        None => Known::Known(Vec::new()),
        Some(s) if s.is_null() => Known::Known(Vec::new()),
        Some(s) => match s.as_seq() {
            Some(items) => Known::Known(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let id = located(n, &crate::path::index(&subnet_path, i));
                        let found = id.known().and_then(|k| subnets.get(k));
                        SubnetRef {
                            visibility: found.map(|(v, _)| *v).into(),
                            evidence: found.map(|(_, l)| l.clone()),
                            id,
                        }
                    })
                    .collect(),
            ),
            None => Known::Unknown,
        },
    };
    let role = field(p, "podExecutionRoleARN", path).or_else(|| default_role.cloned());
    FargateProfile {
        name,
        loc: profile_loc,
        selectors,
        selectors_loc,
        subnets: subnet_refs,
        pod_execution_role: role,
        role_ref: None,
        resource: None,
        created_concurrently: false,
    }
}

fn read_selector(sel: &Node, path: &str) -> Selector {
    let namespace = match sel.get("namespace") {
        Some(n) if !n.is_null() => located(n, &join(path, "namespace")),
        Some(n) => Located::new(
            Known::Known(String::new()),
            loc(n, &join(path, "namespace")),
        ),
        None => Located::new(Known::Known(String::new()), loc(sel, path)),
    };
    let labels_path = join(path, "labels");
    // The labels location covers the key too, so a finding starts on `labels:`.
    let labels_entry = sel.entry("labels");
    let labels_span = labels_entry.map(|e| e.key.span.cover(e.value.span));
    let (labels, labels_loc) = match labels_entry.map(|e| &e.value) {
        None => (Known::Known(Vec::new()), None),
        Some(_) if labels_entry.is_some_and(|e| e.value.is_null()) => (
            Known::Known(Vec::new()),
            labels_span.map(|s| Loc::new(s, &labels_path)),
        ),
        Some(l) => match &l.kind {
            NodeKind::Map(entries) => (
                Known::Known(
                    entries
                        .iter()
                        .map(|e| {
                            let k = e.key.scalar().unwrap_or_default();
                            Label {
                                key: text(&e.key),
                                value: if e.value.is_null() {
                                    Known::Known(String::new())
                                } else {
                                    text(&e.value)
                                },
                                loc: Loc::new(
                                    e.key.span.cover(e.value.span),
                                    join(&labels_path, k),
                                ),
                            }
                        })
                        .collect(),
                ),
                labels_span.map(|s| Loc::new(s, &labels_path)),
            ),
            _ => (
                Known::Unknown,
                labels_span.map(|s| Loc::new(s, &labels_path)),
            ),
        },
    };
    Selector {
        loc: loc(sel, path),
        namespace,
        labels,
        labels_loc,
    }
}
