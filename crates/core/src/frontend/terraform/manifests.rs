//! Kubernetes objects declared in Terraform: `kubectl_manifest` (`yaml_body`)
//! and `kubernetes_manifest` (`manifest`), read as Kubernetes objects
//! from values that keep their spans into the `.tf`.

use super::eval::span_of;
use super::{text, Builder, Ctx};
use crate::frontend::shared::objects;
use crate::frontend::UnitOutput;
use crate::model::{Known, ResourceRef};
use crate::source::FileId;
use crate::value::{MapKey, Value, ValueKind};
use hcl_edit::structure::Block;
use hcl_edit::Span as _;

pub fn read(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    rtype: &str,
    name: &str,
    prefix: &str,
) {
    let addr = format!("{prefix}{rtype}.{name}");
    let resource = b
        .graph
        .node(&addr)
        .map(|node| ResourceRef { graph: 0, node });
    let Known::Known(insts) = ctx.instances(block, file) else {
        b.coredns_unknown = true;
        return;
    };
    let header = span_of(file, block.span()).unwrap_or_default();
    for inst in insts {
        let path = format!("{addr}{}", inst.suffix);
        let sc = &inst.scope;
        let obj = match rtype {
            "kubectl_manifest" => {
                let Some(body) = ctx.eval_attr(&block.body, "yaml_body", file, sc) else {
                    b.coredns_unknown = true;
                    continue;
                };
                let Some(mut obj) = text::decode(ctx.env, &body) else {
                    b.coredns_unknown = true;
                    continue;
                };
                // `override_namespace` wins over the manifest's own.
                if let Some(ns) = ctx.eval_attr(&block.body, "override_namespace", file, sc) {
                    set_namespace(&mut obj, ns);
                }
                obj
            }
            _ => match ctx.eval_attr(&block.body, "manifest", file, sc) {
                Some(m) => m,
                None => {
                    b.coredns_unknown = true;
                    continue;
                }
            },
        };
        note_coredns_patch(b, &obj, &path, header);
        if obj.is_unknown() {
            continue;
        }
        let mut unit = UnitOutput::default();
        if application(b, ctx, file, &obj, &path, resource) {
            continue;
        }
        objects::load_object(&obj, &path, &mut unit);
        for mut w in unit.workloads {
            w.resource = resource;
            if w.loc.span == Default::default() {
                w.loc.span = span_of(file, block.span()).unwrap_or_default();
            }
            b.workloads.push(w);
        }
        for mut a in unit.aws_auth {
            super::auth::refine(ctx.env, &obj, &mut a, prefix);
            b.aws_auth.push(a);
        }
        b.karpenter.append(&mut unit.karpenter);
    }
}

/// An Argo CD `Application` created in this apply (a manifest resource,
/// `argocd_application`): Argo CD syncs it at once, so its releases are
/// ordered as the resource that creates it is, not as a controller's work
/// that waits for the profiles. `false` for any other object.
pub(super) fn application(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    file: FileId,
    obj: &Value,
    path: &str,
    resource: Option<ResourceRef>,
) -> bool {
    let api = obj
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
    if !crate::frontend::argocd::recognise(api, kind) {
        return false;
    }
    let mut unit = UnitOutput::default();
    if let Some(f) = ctx.env.file(file) {
        crate::frontend::argocd::load(&f, obj, path, &mut unit);
    }
    for mut rel in unit.releases {
        rel.applied_by = crate::model::AppliedBy::Deployment;
        rel.resource = resource;
        b.releases.push(rel);
    }
    true
}

/// `argocd_application`: its blocks in the provider's snake_case schema,
/// read as the `Application` object they create.
pub fn read_application(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    name: &str,
    prefix: &str,
) {
    let addr = format!("{prefix}argocd_application.{name}");
    let resource = b
        .graph
        .node(&addr)
        .map(|node| ResourceRef { graph: 0, node });
    let header = span_of(file, block.span()).unwrap_or_default();
    let Known::Known(insts) = ctx.instances(block, file) else {
        return;
    };
    for inst in insts {
        let path = format!("{addr}{}", inst.suffix);
        let mut obj = block_value(ctx, inst.body, file, &inst.scope, "", 0);
        argocd_keys(&mut obj, 0);
        let ValueKind::Map(entries) = &mut obj.kind else {
            continue;
        };
        for (k, v) in [
            ("apiVersion", "argoproj.io/v1alpha1"),
            ("kind", "Application"),
        ] {
            entries.insert(
                0,
                (
                    MapKey {
                        name: k.into(),
                        span: Some(header),
                    },
                    Value::new(ValueKind::String(v.into()), Some(header)),
                ),
            );
        }
        application(b, ctx, file, &obj, &path, resource);
    }
}

/// The provider's names that are not the object's in camel case.
fn argocd_keys(v: &mut Value, depth: usize) {
    if depth > 16 {
        return;
    }
    match &mut v.kind {
        ValueKind::Map(entries) => {
            for (k, x) in entries.iter_mut() {
                if k.name == "repoUrl" {
                    k.name = "repoURL".into();
                }
                argocd_keys(x, depth + 1);
            }
        }
        ValueKind::List(items) => items.iter_mut().for_each(|x| argocd_keys(x, depth + 1)),
        _ => {}
    }
}

/// A change of CoreDNS's Deployment the object makes, or may make.
fn note_coredns_patch(b: &mut Builder, obj: &Value, path: &str, header: crate::source::Span) {
    match crate::workload::object_patches_coredns(obj) {
        Known::Known(true) => b.coredns_patches.push(crate::model::Loc::new(header, path)),
        Known::Known(false) => {}
        Known::Unknown => b.coredns_unknown = true,
    }
}

fn set_namespace(obj: &mut Value, ns: Value) {
    let ValueKind::Map(entries) = &mut obj.kind else {
        return;
    };
    let meta = match entries.iter().position(|(k, _)| k.name == "metadata") {
        Some(i) => &mut entries[i].1,
        None => {
            entries.push((
                MapKey {
                    name: "metadata".into(),
                    span: ns.span,
                },
                Value::new(ValueKind::Map(Vec::new()), ns.span),
            ));
            let last = entries.len() - 1;
            &mut entries[last].1
        }
    };
    if let ValueKind::Map(m) = &mut meta.kind {
        m.retain(|(k, _)| k.name != "namespace");
        m.push((
            MapKey {
                name: "namespace".into(),
                span: ns.span,
            },
            ns,
        ));
    }
}

/// `kubernetes_deployment(_v1)` and friends: HCL blocks in the provider's
/// snake_case schema, turned into the Kubernetes object the frontend reads.
pub fn read_typed(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    rtype: &str,
    name: &str,
    prefix: &str,
) {
    let base = rtype
        .trim_start_matches("kubernetes_")
        .trim_end_matches("_v1")
        .trim_end_matches("_v2");
    let kind = match base {
        "deployment" => "Deployment",
        "stateful_set" => "StatefulSet",
        "daemonset" | "daemon_set" => "DaemonSet",
        "replica_set" => "ReplicaSet",
        "job" => "Job",
        "cron_job" => "CronJob",
        "pod" => "Pod",
        "config_map" | "config_map_v1_data" => "ConfigMap",
        _ => return,
    };
    let addr = format!("{prefix}{rtype}.{name}");
    let resource = b
        .graph
        .node(&addr)
        .map(|node| ResourceRef { graph: 0, node });
    let header = span_of(file, block.span()).unwrap_or_default();
    let Known::Known(insts) = ctx.instances(block, file) else {
        if matches!(kind, "Deployment" | "Job" | "CronJob" | "Pod") {
            b.coredns_unknown = true;
        }
        return;
    };
    for inst in insts {
        let path = format!("{addr}{}", inst.suffix);
        let mut obj = block_value(ctx, inst.body, file, &inst.scope, "", 0);
        let ValueKind::Map(entries) = &mut obj.kind else {
            continue;
        };
        entries.insert(
            0,
            (
                MapKey {
                    name: "kind".into(),
                    span: Some(header),
                },
                Value::new(ValueKind::String(kind.into()), Some(header)),
            ),
        );
        // The provider's default namespace.
        let has_ns = obj
            .get("metadata")
            .is_some_and(|m| m.get("namespace").is_some() || m.is_unknown());
        if !has_ns {
            set_namespace(
                &mut obj,
                Value::new(ValueKind::String("default".into()), Some(header)),
            );
        }
        if matches!(kind, "Deployment" | "Job" | "CronJob" | "Pod") {
            note_coredns_patch(b, &obj, &path, header);
        }
        let mut unit = UnitOutput::default();
        objects::load_object(&obj, &path, &mut unit);
        for mut w in unit.workloads {
            w.resource = resource;
            b.workloads.push(w);
        }
        for mut a in unit.aws_auth {
            super::auth::refine(ctx.env, &obj, &mut a, prefix);
            // `kubernetes_config_map(_v1)` owns the whole `data`: without
            // `mapRoles` it writes none. `_v1_data` leaves other keys alone.
            if a.map_roles_loc.is_none() && base == "config_map" && !obj_data_unknown(&obj) {
                a.roles = Known::Known(Vec::new());
            }
            b.aws_auth.push(a);
        }
        b.karpenter.append(&mut unit.karpenter);
    }
}

/// Whether a ConfigMap's `data` (or the object) could not be read.
fn obj_data_unknown(obj: &Value) -> bool {
    obj.get("data").is_some_and(Value::is_unknown)
}

/// Repeated blocks that are lists in Kubernetes' schema, with their list name.
const LIST_BLOCKS: &[(&str, &str)] = &[
    ("container", "containers"),
    ("init_container", "initContainers"),
    ("toleration", "tolerations"),
    ("volume", "volumes"),
    ("port", "ports"),
    ("env", "env"),
    ("env_from", "envFrom"),
    ("volume_mount", "volumeMounts"),
    ("image_pull_secrets", "imagePullSecrets"),
    ("topology_spread_constraint", "topologySpreadConstraints"),
    ("host_aliases", "hostAliases"),
    ("match_expressions", "matchExpressions"),
    ("match_fields", "matchFields"),
    ("node_selector_term", "nodeSelectorTerms"),
    (
        "preferred_during_scheduling_ignored_during_execution",
        "preferredDuringSchedulingIgnoredDuringExecution",
    ),
    ("readiness_gate", "readinessGates"),
    ("volume_device", "volumeDevices"),
    ("sysctl", "sysctls"),
    ("option", "options"),
    ("http_header", "httpHeaders"),
    ("items", "items"),
    // `argocd_application`'s Helm parameters.
    ("parameter", "parameters"),
];

/// The list a repeated block becomes. Under `pod_affinity` and
/// `pod_anti_affinity` the required rules are a list of terms; under
/// `node_affinity` the same block is one node selector.
fn list_name(parent: &str, id: &str) -> Option<&'static str> {
    if id == "required_during_scheduling_ignored_during_execution"
        && matches!(parent, "pod_affinity" | "pod_anti_affinity")
    {
        return Some("requiredDuringSchedulingIgnoredDuringExecution");
    }
    LIST_BLOCKS.iter().find(|(b, _)| *b == id).map(|(_, l)| *l)
}

fn camel(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut up = false;
    for c in s.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn block_value(
    ctx: &Ctx<'_, '_>,
    body: &hcl_edit::structure::Body,
    file: FileId,
    scope: &super::eval::Scope,
    parent: &str,
    depth: usize,
) -> Value {
    use hcl_edit::structure::Structure;
    let span = span_of(file, body.span());
    if depth > 32 {
        return Value::unknown(span);
    }
    let mut entries: Vec<(MapKey, Value)> = Vec::new();
    let mut idents: Vec<&str> = Vec::new();
    for s in body.iter() {
        match s {
            Structure::Attribute(a) => {
                let k = a.key.as_str();
                if matches!(
                    k,
                    "count" | "for_each" | "depends_on" | "provider" | "lifecycle"
                ) {
                    continue;
                }
                let val = ctx
                    .env
                    .eval(&a.value, file, scope)
                    .unwrap_or_else(|_| Value::unknown(span_of(file, a.value.span())));
                entries.push((
                    MapKey {
                        name: camel(k),
                        span: span_of(file, a.key.span()),
                    },
                    val,
                ));
            }
            Structure::Block(bl) => {
                let id = if bl.ident.as_str() == "dynamic" {
                    super::label(bl, 0).unwrap_or("")
                } else {
                    bl.ident.as_str()
                };
                if !id.is_empty()
                    && !matches!(id, "lifecycle" | "timeouts")
                    && !idents.contains(&id)
                {
                    idents.push(id);
                }
            }
        }
    }
    for id in idents {
        let list_name = list_name(parent, id);
        let key = list_name.map_or_else(|| camel(id), str::to_string);
        let val = match ctx.blocks(body, id, file, scope) {
            Known::Unknown => Value::unknown(span),
            Known::Known(insts) => {
                let items: Vec<Value> = insts
                    .iter()
                    .map(|i| {
                        let mut x = block_value(ctx, i.body, i.file, &i.scope, id, depth + 1);
                        x.span = Some(i.span);
                        x
                    })
                    .collect();
                let first_span = insts.first().map(|i| i.span);
                match list_name {
                    Some(_) => Value::new(ValueKind::List(items), first_span.or(span)),
                    None => match items.into_iter().next() {
                        Some(x) => x,
                        None => continue,
                    },
                }
            }
        };
        let kspan = val.span;
        entries.push((
            MapKey {
                name: key,
                span: kspan,
            },
            val,
        ));
    }
    Value::new(ValueKind::Map(entries), span)
}
