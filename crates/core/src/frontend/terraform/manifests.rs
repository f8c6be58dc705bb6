//! Kubernetes objects declared in Terraform: `kubectl_manifest` (`yaml_body`)
//! and `kubernetes_manifest` (`manifest`), read by the Kubernetes frontend
//! from values that keep their spans into the `.tf`.

use super::eval::span_of;
use super::{text, Builder, Ctx};
use crate::frontend::{kubernetes, UnitOutput};
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
        return;
    };
    for inst in insts {
        let path = format!("{addr}{}", inst.suffix);
        let sc = &inst.scope;
        let obj = match rtype {
            "kubectl_manifest" => {
                let Some(body) = ctx.eval_attr(&block.body, "yaml_body", file, sc) else {
                    continue;
                };
                let Some(mut obj) = text::decode(ctx.env, &body) else {
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
                None => continue,
            },
        };
        if obj.is_unknown() {
            continue;
        }
        let mut unit = UnitOutput::default();
        kubernetes::load_object(&obj, &path, &mut unit);
        for mut w in unit.workloads {
            w.resource = resource;
            if w.loc.span == Default::default() {
                w.loc.span = span_of(file, block.span()).unwrap_or_default();
            }
            b.workloads.push(w);
        }
        b.aws_auth.extend(unit.aws_auth);
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
