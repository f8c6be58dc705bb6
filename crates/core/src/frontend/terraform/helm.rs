//! `helm_release`: the values Helm will install with, merged in Helm's order
//! (each `values` entry, then `set`/`set_list`/`set_sensitive`), keeping the
//! span of every key and value: into the heredoc, the HCL object given to
//! `yamlencode`, or the values file.

use super::eval::span_of;
use super::{located_str, text, Builder, Ctx};
use crate::frontend::shared::values::{insert, merge, parse_path};
use crate::model::{HelmRelease, Known, Loc, Located, ResourceRef, ValueSource, ValueSourceKind};
use crate::source::{FileId, Span};
use crate::value::{MapKey, Value, ValueKind};
use hcl_edit::structure::Block;
use hcl_edit::Span as _;

pub fn read(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    name: &str,
    prefix: &str,
) {
    let addr = crate::path::concat(&[prefix, "helm_release.", name]);
    let resource = b
        .graph
        .node(&addr)
        .map(|node| ResourceRef { graph: 0, node });
    // The header `resource "helm_release" "x"`: where a missing value is reported.
    let header = header_span(ctx, block, file);
    let Known::Known(insts) = ctx.instances(block, file) else {
        return;
    };
    let body = &block.body;
    for inst in insts {
        let path = crate::path::concat(&[&addr, &inst.suffix]);
        let sc = &inst.scope;
        let attr = |n: &str| ctx.eval_attr(body, n, file, sc);
        let namespace = match attr("namespace") {
            Some(ns) => located_str(Some(&ns), header, &crate::path::dot(&path, "namespace")),
            None => Located::new(
                Known::Known("default".to_string()),
                Loc::new(header, crate::path::dot(&path, "namespace")),
            ),
        };
        let mut sources = Vec::new();
        let values = merged_values(ctx, block, file, sc, &path, &mut sources);
        let repository = attr("repository");
        let chart = located_str(
            attr("chart").as_ref(),
            header,
            &crate::path::dot(&path, "chart"),
        );
        let chart_dir = repository
            .is_none()
            .then(|| local_chart(ctx, chart.known()?))
            .flatten();
        let rel = HelmRelease {
            name: located_str(
                attr("name").as_ref(),
                header,
                &crate::path::dot(&path, "name"),
            ),
            chart,
            repository: repository
                .map(|r| located_str(Some(&r), header, &crate::path::dot(&path, "repository"))),
            version: attr("version")
                .map(|r| located_str(Some(&r), header, &crate::path::dot(&path, "version"))),
            namespace,
            values,
            value_sources: sources,
            resource,
            loc: Loc::new(header, path),
            applied_by: crate::model::AppliedBy::Deployment,
            local_chart: chart_dir.is_some(),
            chart_dir,
            cluster_key: None,
            destination: None,
            values_parts: Vec::new(),
            chart_ref: None,
            post_rendered: false,
        };
        render_local(b, ctx, &rel);
        applications(b, ctx, file, &rel);
        b.releases.push(rel);
    }
}

/// The Argo CD `Application`s a release of the `argocd-apps` chart
/// creates, one per entry of its `applications` value (a map by name from
/// 1.0, a list of entries with `name` before): created in this apply, so
/// ordered as the release is.
fn applications(b: &mut Builder, ctx: &Ctx<'_, '_>, file: FileId, rel: &HelmRelease) {
    let is_apps = rel
        .chart
        .known()
        .is_some_and(|c| c.rsplit('/').next() == Some("argocd-apps"));
    let Some(apps) = rel
        .values
        .known()
        .filter(|_| is_apps)
        .and_then(|v| v.get("applications"))
    else {
        return;
    };
    let at = crate::path::dot(&rel.loc.path, "applications");
    let entries: Vec<(Option<Value>, &Value, String)> = match &apps.kind {
        ValueKind::Map(m) => m
            .iter()
            .map(|(k, v)| {
                let name = Value::new(ValueKind::String(k.name.clone()), k.span);
                (Some(name), v, crate::path::dot(&at, &k.name))
            })
            .collect(),
        ValueKind::List(l) => l
            .iter()
            .enumerate()
            .map(|(i, v)| (v.get("name").cloned(), v, crate::path::index(&at, i)))
            .collect(),
        _ => return,
    };
    let key = |n: &str, span| MapKey {
        name: n.into(),
        span,
    };
    for (name, spec, path) in entries {
        let span = spec.span;
        let text = |t: &str| Value::new(ValueKind::String(t.into()), span);
        let mut meta = Vec::new();
        if let Some(n) = name {
            meta.push((key("name", n.span), n));
        }
        let obj = Value::new(
            ValueKind::Map(vec![
                (key("apiVersion", span), text("argoproj.io/v1alpha1")),
                (key("kind", span), text("Application")),
                (
                    key("metadata", span),
                    Value::new(ValueKind::Map(meta), span),
                ),
                (key("spec", span), spec.clone()),
            ]),
            span,
        );
        super::manifests::application(b, ctx, file, &obj, &path, rel.resource);
    }
}

/// A `chart` that is a folder of the repository holding `Chart.yaml`
/// (`"${path.module}/charts/app"`, `"./charts/app"`), relative to the module.
fn local_chart(ctx: &Ctx<'_, '_>, chart: &str) -> Option<std::path::PathBuf> {
    if chart.contains("://") || chart.starts_with('/') || chart.is_empty() {
        return None;
    }
    let dir = ctx.env.dir.join(chart);
    crate::frontend::chart::is_chart(&dir).then_some(dir)
}

/// Render a release of a local chart: its workloads are the module's,
/// created by the release, so ordered by its `depends_on`.
fn render_local(b: &mut Builder, ctx: &Ctx<'_, '_>, rel: &HelmRelease) {
    let Some(input) = crate::frontend::chart::ChartRelease::of(rel) else {
        return;
    };
    let mut rendered =
        crate::frontend::chart::render_release(&input, ctx.env.sources, ctx.env.limits);
    for mut w in rendered.unit.workloads {
        w.resource = rel.resource;
        b.workloads.push(w);
    }
    b.aws_auth.append(&mut rendered.unit.aws_auth);
    b.karpenter.append(&mut rendered.unit.karpenter);
    b.limit_hits.append(&mut rendered.unit.diagnostics);
    // Dependencies installed with the release are placed as it is; what a
    // controller applies is declared.
    for r in rendered.unit.releases {
        if r.applied_by == crate::model::AppliedBy::Deployment {
            b.releases.push(r);
        } else {
            b.declared.push(r);
        }
    }
    b.directory_sources
        .append(&mut rendered.unit.directory_sources);
}

fn header_span(ctx: &Ctx<'_, '_>, block: &Block, file: FileId) -> Span {
    let whole = span_of(file, block.span()).unwrap_or_default();
    let Some(f) = ctx.env.file(file) else {
        return whole;
    };
    let text = f.slice(whole);
    let end = text.find('{').map_or(text.len(), |i| i);
    let header = text[..end].trim_end();
    Span::new(
        file,
        whole.start as usize,
        whole.start as usize + header.len(),
    )
}

fn merged_values(
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    sc: &super::eval::Scope,
    path: &str,
    sources: &mut Vec<ValueSource>,
) -> Known<Value> {
    let body = &block.body;
    let mut acc = Value::new(ValueKind::Map(Vec::new()), None);
    if let Some(list) = ctx.eval_attr(body, "values", file, sc) {
        let ValueKind::List(items) = &list.kind else {
            return Known::Unknown;
        };
        // The written entries, for locations in the .tf itself.
        let written: Vec<Option<Span>> = match body.get_attribute("values").map(|a| &a.value) {
            Some(hcl_edit::expr::Expression::Array(a)) => {
                a.iter().map(|e| span_of(file, e.span())).collect()
            }
            _ => Vec::new(),
        };
        let attr_span = body
            .get_attribute("values")
            .and_then(|a| span_of(file, a.span()));
        for (i, item) in items.iter().enumerate() {
            let kind = match item.span {
                Some(s) if ctx.env.encoded.borrow().contains_key(&s) => ValueSourceKind::Encoded,
                Some(s) if s.file != file => ValueSourceKind::File,
                _ => ValueSourceKind::Text,
            };
            let Some(doc) = text::decode(ctx.env, item) else {
                return Known::Unknown;
            };
            let at = written
                .get(i)
                .copied()
                .flatten()
                .or(attr_span)
                .or(item.span)
                .unwrap_or_default();
            sources.push(ValueSource {
                kind,
                loc: Loc::new(at, format!("{path}.values[{i}]")),
                origin: item.span.filter(|s| s.file != file),
            });
            match doc.kind {
                ValueKind::Null => {}
                ValueKind::Map(_) => merge(&mut acc, doc, 0),
                _ => return Known::Unknown,
            }
        }
    }
    for kind in ["set", "set_list", "set_sensitive"] {
        // Provider 3.x: `set = [{ name, value }]`; 2.x: `set { ... }` blocks.
        let mut entries: Vec<(Option<Value>, Option<Value>, Option<Value>)> = Vec::new();
        if let Some(list) = ctx.eval_attr(body, kind, file, sc) {
            let ValueKind::List(items) = &list.kind else {
                return Known::Unknown;
            };
            for it in items {
                if it.is_unknown() {
                    return Known::Unknown;
                }
                entries.push((
                    it.get("name").cloned(),
                    it.get("value").cloned(),
                    it.get("type").cloned(),
                ));
            }
        }
        let Known::Known(blocks) = ctx.blocks(body, kind, file, sc) else {
            return Known::Unknown;
        };
        for sb in &blocks {
            entries.push((
                ctx.eval_attr(sb.body, "name", sb.file, &sb.scope),
                ctx.eval_attr(sb.body, "value", sb.file, &sb.scope),
                ctx.eval_attr(sb.body, "type", sb.file, &sb.scope),
            ));
        }
        for (n, val, ty) in entries {
            let Some(n) = n else { continue };
            let Some(name) = super::eval::scalar_text(&n) else {
                return Known::Unknown;
            };
            let Some(segs) = parse_path(&name) else {
                return Known::Unknown;
            };
            let val = val.unwrap_or_else(|| Value::new(ValueKind::Null, n.span));
            let typed_string =
                ty.as_ref().and_then(super::eval::scalar_text).as_deref() == Some("string");
            let leaf = if kind == "set_list" {
                val
            } else {
                set_value(val, typed_string)
            };
            sources.push(ValueSource {
                kind: ValueSourceKind::Set,
                loc: Loc::new(n.span.unwrap_or_default(), crate::path::dot(path, kind)),
                origin: None,
            });
            if !insert(&mut acc, &segs, leaf, n.span) {
                return Known::Unknown;
            }
        }
    }
    Known::Known(acc)
}

/// Helm's `--set` typing: `true`/`false` are booleans, integers numbers.
fn set_value(val: Value, typed_string: bool) -> Value {
    let ValueKind::String(s) = &val.kind else {
        return val;
    };
    if typed_string {
        return val;
    }
    let kind = match s.as_str() {
        "true" => ValueKind::Bool(true),
        "false" => ValueKind::Bool(false),
        "null" => ValueKind::Null,
        t if !t.is_empty() && t.parse::<i64>().is_ok() => ValueKind::Number(t.to_string()),
        _ => return val,
    };
    Value::new(kind, val.span)
}
