//! Kubernetes objects, wherever they come from (a manifest, a rendered
//! chart, a kustomization, a Terraform `kubernetes_manifest`, a CDK
//! manifest): pod templates of workloads, the `aws-auth` ConfigMap and
//! Karpenter's objects. A manifest without `metadata.namespace` has an
//! unknown namespace: `kubectl -n` or kustomize decides it, not fplint.

use super::{is_placeholder, join, loc_of, located_str, text};
use crate::frontend::UnitOutput;
use crate::model::{Known, Loc, Located};
use crate::tree::Node;
use crate::value::{Value, ValueKind};
use crate::workload::{
    parse_cpu, parse_memory, AwsAuth, Container, Pair, PodTemplate, Resources, RoleMapping,
    Toleration, Workload, WorkloadKind,
};

/// Whether [`load_object`] reads anything of an object with this
/// `apiVersion` and `kind` (each empty when absent): only those need be
/// turned into values.
pub fn reads(api: &str, kind: &str) -> bool {
    kind.ends_with("List")
        || kind == "ConfigMap"
        || api.starts_with("karpenter.sh/")
        || api.starts_with("karpenter.k8s.aws/")
        || WorkloadKind::from_kind(kind).is_some()
}

/// Read one object (or a `List` of objects) already turned into a [`Value`].
pub fn load_object(obj: &Value, path: &str, out: &mut UnitOutput) {
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind == "List" || kind.ends_with("List") {
        if let Some(items) = obj.get("items").and_then(Value::as_list) {
            for (i, item) in items.iter().enumerate() {
                load_object(item, &join(path, &format!("items[{i}]")), out);
            }
        }
        return;
    }
    if kind == "ConfigMap" {
        if let Some(auth) = read_aws_auth(obj, path) {
            out.aws_auth.push(auth);
        }
        return;
    }
    let api = obj
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if api.starts_with("karpenter.sh/") || api.starts_with("karpenter.k8s.aws/") {
        read_karpenter(obj, kind, path, out);
        return;
    }
    let Some(wk) = WorkloadKind::from_kind(kind) else {
        return;
    };
    let template_path: &[&str] = match wk {
        WorkloadKind::Pod => &[],
        WorkloadKind::CronJob => &["spec", "jobTemplate", "spec", "template"],
        _ => &["spec", "template"],
    };
    let mut template = Some(obj);
    for key in template_path {
        template = template.and_then(|t| t.get(key));
    }
    let Some(template) = template else { return };
    let tpath = join(path, &template_path.join("."));
    // A pod spec without containers is a kustomize patch or a fragment.
    if template
        .get("spec")
        .and_then(|s| s.get("containers"))
        .is_none()
    {
        return;
    }
    let meta = obj.get("metadata");
    let name = meta
        .and_then(|m| m.get("name"))
        .map(|n| located_str(n, &join(path, "metadata.name")))
        .unwrap_or_else(|| Located::new(Known::Unknown, loc_of(obj, path)));
    let namespace = match meta.and_then(|m| m.get("namespace")) {
        Some(n) => located_str(n, &join(path, "metadata.namespace")),
        None => Located::new(
            Known::Unknown,
            loc_of(meta.unwrap_or(obj), &join(path, "metadata")),
        ),
    };
    let loc = obj
        .get("kind")
        .map_or_else(|| loc_of(obj, path), |k| loc_of(k, &join(path, "kind")));
    out.workloads.push(Workload {
        kind: wk,
        name,
        namespace,
        loc,
        pod: read_pod_template(template, &tpath),
        resource: None,
        cluster_key: None,
        variant: None,
        coredns_patch: crate::workload::object_patches_coredns(obj),
    });
}

/// A NodePool's startup taints and node class, or whether a node class uses
/// a custom AMI. v1 and v1beta1 nest the node template under
/// `spec.template.spec`; v1alpha5 `Provisioner`s have it under `spec`.
fn read_karpenter(obj: &Value, kind: &str, path: &str, out: &mut UnitOutput) {
    let spec = obj.get("spec");
    let name = obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .map(|n| located_str(n, &join(path, "metadata.name")))
        .unwrap_or_else(|| Located::new(Known::Unknown, loc_of(obj, path)));
    match kind {
        "NodePool" | "Provisioner" => {
            let (node, node_path, class_key) = if kind == "NodePool" {
                (
                    spec.and_then(|s| s.get("template"))
                        .and_then(|t| t.get("spec")),
                    join(path, "spec.template.spec"),
                    "nodeClassRef",
                )
            } else {
                (spec, join(path, "spec"), "providerRef")
            };
            let taints_path = join(&node_path, "startupTaints");
            let taints = node.and_then(|n| n.get("startupTaints"));
            let startup_taints = match taints.map(|t| &t.kind) {
                None | Some(ValueKind::Null) => Known::Known(Vec::new()),
                Some(ValueKind::List(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let p = join(&taints_path, &format!("[{i}].key"));
                        match t.get("key") {
                            Some(k) => Some(located_str(k, &p)),
                            None if t.is_unknown() => None,
                            None => Some(Located::new(Known::Unknown, loc_of(t, &p))),
                        }
                    })
                    .collect::<Option<Vec<_>>>()
                    .map_or(Known::Unknown, Known::Known),
                Some(_) => Known::Unknown,
            };
            let node_class = node
                .and_then(|n| n.get(class_key))
                .and_then(|r| r.get("name"))
                .map(|n| located_str(n, &join(&node_path, &crate::path::dot(class_key, "name"))));
            out.karpenter.node_pools.push(crate::workload::NodePool {
                name,
                startup_taints,
                startup_taints_loc: taints.map(|t| loc_of(t, &taints_path)),
                node_class,
            });
        }
        "EC2NodeClass" | "AWSNodeTemplate" => {
            let spec_path = join(path, "spec");
            let family = spec.and_then(|s| s.get("amiFamily"));
            // Karpenter takes `amiFamily` first, then the family of an
            // `amiSelectorTerms` alias (never Custom).
            let alias = spec
                .and_then(|s| s.get("amiSelectorTerms"))
                .and_then(Value::as_list)
                .and_then(|terms| {
                    terms
                        .iter()
                        .enumerate()
                        .find_map(|(i, t)| t.get("alias").map(|a| (i, a)))
                });
            let custom_ami = match (family, alias) {
                (Some(f), _) if !matches!(f.kind, ValueKind::Null) => Located::new(
                    text(f).map(|v| v == "Custom"),
                    loc_of(f, &join(&spec_path, "amiFamily")),
                ),
                (_, Some((i, a))) => Located::new(
                    Known::Known(false),
                    loc_of(
                        a,
                        &join(&spec_path, &format!("amiSelectorTerms[{i}].alias")),
                    ),
                ),
                _ => Located::new(Known::Unknown, loc_of(obj, path)),
            };
            out.karpenter
                .node_classes
                .push(crate::workload::NodeClass { name, custom_ami });
        }
        _ => {}
    }
}

fn pairs(v: Option<&Value>, path: &str) -> Known<Vec<Pair>> {
    match v.map(|v| &v.kind) {
        None | Some(ValueKind::Null) => Known::Known(Vec::new()),
        Some(ValueKind::Map(entries)) => Known::Known(
            entries
                .iter()
                .map(|(k, val)| {
                    let span = match (k.span, val.span) {
                        (Some(a), Some(b)) => a.cover(b),
                        (a, b) => a.or(b).unwrap_or_default(),
                    };
                    Pair {
                        key: k.name.clone(),
                        value: if matches!(val.kind, ValueKind::Null) {
                            Known::Known(String::new())
                        } else {
                            text(val)
                        },
                        loc: Loc::new(span, join(path, &k.name)),
                    }
                })
                .collect(),
        ),
        Some(_) => Known::Unknown,
    }
}

fn opt_text(v: Option<&Value>) -> Known<Option<String>> {
    match v {
        None => Known::Known(None),
        Some(v) if matches!(v.kind, ValueKind::Null) => Known::Known(None),
        Some(v) => text(v).map(Some),
    }
}

fn bool_of(v: &Value, path: &str) -> Option<Located<bool>> {
    let b = match &v.kind {
        ValueKind::Bool(b) => Known::Known(*b),
        ValueKind::Null => return None,
        _ => Known::Unknown,
    };
    Some(Located::new(b, loc_of(v, path)))
}

/// A pod's `tolerations`, `path` being where they are written.
pub fn read_tolerations(v: Option<&Value>, path: &str) -> Known<Vec<Toleration>> {
    match v.map(|v| &v.kind) {
        None | Some(ValueKind::Null) => Known::Known(Vec::new()),
        Some(ValueKind::List(items)) => Known::Known(
            items
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let operator = match t.get("operator") {
                        None => Known::Known("Equal".to_string()),
                        Some(o) => text(o),
                    };
                    Toleration {
                        key: opt_text(t.get("key")),
                        operator,
                        value: opt_text(t.get("value")),
                        effect: opt_text(t.get("effect")),
                        loc: loc_of(t, &crate::path::index(path, i)),
                    }
                })
                .collect(),
        ),
        Some(_) => Known::Unknown,
    }
}

fn resources(v: Option<&Value>, path: &str) -> Resources {
    let Some(v) = v else {
        return Resources {
            cpu: Known::Known(None),
            memory: Known::Known(None),
            loc: None,
        };
    };
    // A map that cannot be resolved (`limits = var.x`) may set anything.
    if v.is_unknown() {
        return Resources {
            cpu: Known::Unknown,
            memory: Known::Unknown,
            loc: Some(loc_of(v, path)),
        };
    }
    let qty = |key: &str, parse: fn(&str) -> Option<u64>| match v.get(key) {
        None => Known::Known(None),
        Some(q) => match text(&q.clone()).known().and_then(|s| parse(s)) {
            Some(n) => Known::Known(Some(n)),
            None => Known::Unknown,
        },
    };
    Resources {
        cpu: qty("cpu", parse_cpu),
        memory: qty("memory", parse_memory),
        loc: Some(loc_of(v, path)),
    }
}

fn containers(v: Option<&Value>, path: &str) -> Known<Vec<Container>> {
    match v.map(|v| &v.kind) {
        None | Some(ValueKind::Null) => Known::Known(Vec::new()),
        Some(ValueKind::List(items)) => Known::Known(
            items
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let cp = crate::path::index(path, i);
                    // `resources = var.x`: its requests and limits are unknown too.
                    let unknown = Value::unknown(None);
                    let res = c.get("resources");
                    let part = |k: &str| match res {
                        Some(r) if r.is_unknown() => Some(&unknown),
                        _ => res.and_then(|r| r.get(k)),
                    };
                    let mut gpus = Vec::new();
                    for part in ["requests", "limits"] {
                        if let Some(ValueKind::Map(entries)) =
                            res.and_then(|r| r.get(part)).map(|p| &p.kind)
                        {
                            for (k, _) in entries {
                                if k.name.ends_with("/gpu") {
                                    gpus.push(Loc::new(
                                        k.span.unwrap_or_default(),
                                        format!("{cp}.resources.{part}.{}", k.name),
                                    ));
                                }
                            }
                        }
                    }
                    let host_ports = c
                        .get("ports")
                        .and_then(Value::as_list)
                        .map(|ports| {
                            ports
                                .iter()
                                .enumerate()
                                .filter_map(|(j, p)| {
                                    let hp = p.get("hostPort")?;
                                    Some(loc_of(hp, &format!("{cp}.ports[{j}].hostPort")))
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    Container {
                        name: c.get("name").map_or(Known::Unknown, text),
                        loc: loc_of(c, &cp),
                        requests: resources(
                            part("requests"),
                            &crate::path::dot(&cp, "resources.requests"),
                        ),
                        limits: resources(
                            part("limits"),
                            &crate::path::dot(&cp, "resources.limits"),
                        ),
                        privileged: c
                            .get("securityContext")
                            .and_then(|s| s.get("privileged"))
                            .and_then(|p| {
                                bool_of(p, &crate::path::dot(&cp, "securityContext.privileged"))
                            }),
                        host_ports,
                        gpus,
                    }
                })
                .collect(),
        ),
        Some(_) => Known::Unknown,
    }
}

/// A pod template (`metadata` + `spec`) in Kubernetes' camelCase schema.
pub fn read_pod_template(t: &Value, path: &str) -> PodTemplate {
    let meta = t.get("metadata");
    let spec = t.get("spec");
    let sp = join(path, "spec");
    let get = |k: &str| spec.and_then(|s| s.get(k));
    let host_path_volumes = get("volumes")
        .and_then(Value::as_list)
        .map(|vols| {
            vols.iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    Some(loc_of(
                        v.get("hostPath")?,
                        &format!("{sp}.volumes[{i}].hostPath"),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    PodTemplate {
        loc: loc_of(t, path),
        labels: pairs(
            meta.and_then(|m| m.get("labels")),
            &join(path, "metadata.labels"),
        ),
        annotations: pairs(
            meta.and_then(|m| m.get("annotations")),
            &join(path, "metadata.annotations"),
        ),
        tolerations: read_tolerations(get("tolerations"), &join(&sp, "tolerations")),
        node_selector: pairs(get("nodeSelector"), &join(&sp, "nodeSelector")),
        affinity: get("affinity")
            .map(|a| Located::new(Known::Known(a.clone()), loc_of(a, &join(&sp, "affinity"))))
            .map(Box::new),
        scheduler_name: get("schedulerName")
            .map(|s| Box::new(located_str(s, &join(&sp, "schedulerName")))),
        host_network: get("hostNetwork")
            .and_then(|h| bool_of(h, &join(&sp, "hostNetwork")))
            .map(Box::new),
        host_path_volumes,
        init_containers: containers(get("initContainers"), &join(&sp, "initContainers")),
        containers: containers(get("containers"), &join(&sp, "containers")),
        service_account: get("serviceAccountName")
            .map(|s| located_str(s, &join(&sp, "serviceAccountName"))),
    }
}

/// `kube-system/aws-auth` with its `mapRoles` (a YAML document in a string).
fn read_aws_auth(obj: &Value, path: &str) -> Option<AwsAuth> {
    let meta = obj.get("metadata")?;
    if meta.get("name").and_then(Value::as_str) != Some("aws-auth") {
        return None;
    }
    if let Some(ns) = meta.get("namespace").and_then(Value::as_str) {
        if ns != "kube-system" {
            return None;
        }
    }
    let roles_path = join(path, "data.mapRoles");
    let map_roles = obj.get("data").and_then(|d| d.get("mapRoles"));
    let roles = match map_roles {
        // `kubectl apply` (and server-side apply) keeps keys the manifest
        // does not name: the `mapRoles` EKS wrote may survive. A writer that
        // owns the whole ConfigMap says so itself.
        None => Known::Unknown,
        Some(v) => match v.as_str() {
            // `{{SessionName}}` is aws-auth's own syntax: each rolearn is checked instead.
            Some(s) if !s.contains("${") => {
                parse_map_roles(s, v.span.unwrap_or_default(), &roles_path)
            }
            _ => Known::Unknown,
        },
    };
    Some(AwsAuth {
        loc: loc_of(obj.get("metadata").unwrap_or(obj), &join(path, "metadata")),
        map_roles_loc: map_roles.map(|v| loc_of(v, &roles_path)),
        roles,
        cluster_key: None,
    })
}

/// Role mappings from a `mapRoles` document; positions are those of the string.
pub fn parse_map_roles(s: &str, at: crate::source::Span, path: &str) -> Known<Vec<RoleMapping>> {
    let parsed = crate::tree::yaml::parse(s, at.file, crate::tree::Limits::default());
    if parsed.error.is_some() {
        return Known::Unknown;
    }
    let Some(doc) = parsed.documents.first() else {
        return Known::Known(Vec::new());
    };
    let Some(items) = doc.as_seq() else {
        return Known::Unknown;
    };
    Known::Known(
        items
            .iter()
            .enumerate()
            .map(|(i, item)| RoleMapping {
                role_arn: match item.get("rolearn").and_then(Node::as_str) {
                    Some(r) if !is_placeholder(r) => Known::Known(r.to_string()),
                    _ => Known::Unknown,
                },
                role_ref: None,
                role_name: None,
                groups: match item.get("groups").map(|g| g.as_seq()) {
                    Some(Some(gs)) => gs
                        .iter()
                        .map(|g| g.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .into(),
                    Some(None) => Known::Unknown,
                    None => Known::Known(Vec::new()),
                },
                username: match item.get("username").and_then(Node::as_str) {
                    Some(u) if !u.contains("${") => Known::Known(u.to_string()),
                    _ => Known::Unknown,
                },
                loc: Loc::new(at, crate::path::index(path, i)),
            })
            .collect(),
    )
}
