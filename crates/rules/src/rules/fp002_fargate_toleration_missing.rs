//! FP002 fargate-toleration-missing.
//!
//! Fargate nodes carry the taint `eks.amazonaws.com/compute-type=fargate:NoSchedule`.
//! Pods created before their profile is ACTIVE are handed to the
//! default-scheduler, which rejects them for that taint. The root fix is to
//! order the release after the profile; a toleration is the workaround.
//! Quiet on anything unknown: the cluster's capacity, the namespace, the
//! values, a selector with labels (a chart's pod labels are not known).

use crate::{Context, Rule};
use fplint_core::glob;
use fplint_core::model::{Cluster, FargateProfile, HelmRelease, Known, Selector};
use fplint_core::value::{Value, ValueKind};
use fplint_core::{Diagnostic, Severity, Span};

pub struct FargateTolerationMissing;

const CODE: &str = "FP002";
const TAINT_KEY: &str = "eks.amazonaws.com/compute-type";
const TAINT: &str = "eks.amazonaws.com/compute-type=fargate:NoSchedule";

impl Rule for FargateTolerationMissing {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in &ctx.project.clusters {
            if cluster.fargate_only() != Known::Known(true) {
                continue;
            }
            // Nodes Karpenter provisions can take other releases' pods, but
            // not Karpenter's own: it has to run before it makes any node.
            let karpenter = cluster.karpenter();
            for rel in &cluster.helm_releases {
                let own = rel.chart_name() == Some("karpenter");
                if !own && karpenter != Known::Known(false) {
                    continue;
                }
                if let Some(d) = check_release(ctx, cluster, rel) {
                    out.push(d);
                }
            }
        }
    }
}

fn check_release(ctx: &Context<'_>, cluster: &Cluster, rel: &HelmRelease) -> Option<Diagnostic> {
    let ns = rel.namespace.known()?;
    let rres = rel.resource?;
    let mut serving: Option<(&FargateProfile, &Selector)> = None;
    for p in &cluster.fargate_profiles {
        let Some(sels) = p.selectors.known() else {
            continue;
        };
        for s in sels {
            let Some(pat) = s.namespace.known() else {
                continue;
            };
            if !glob::matches(pat, ns) {
                continue;
            }
            // Ordered after any profile that can take the pods: once it is
            // ACTIVE, the Fargate scheduler owns them.
            match p.resource {
                Some(pres) if !ctx.project.depends_on(rres, pres) => {}
                _ => return None,
            }
            if serving.is_none() && s.labels.known().is_some_and(Vec::is_empty) {
                serving = Some((p, s));
            }
        }
    }
    let (profile, selector) = serving?;
    let values = rel.values.known()?;
    let missing = uncovered(rel.chart_name().unwrap_or(""), values);
    let (first, tol_span) = missing.first()?.clone();
    let mut span = tol_span.unwrap_or(rel.loc.span);
    // Findings are reported in the .tf: a values file is shown as related.
    let mut in_values_file = None;
    if span.file != rel.loc.span.file {
        in_values_file = Some(span);
        span = rel
            .value_sources
            .iter()
            .find(|s| s.origin.is_some_and(|o| o.file == span.file))
            .map_or(rel.loc.span, |s| s.loc.span);
    }
    let release = rel
        .name
        .known()
        .cloned()
        .unwrap_or_else(|| rel.loc.path.clone());
    let pname = profile.name.known().map_or("?", String::as_str);
    let target = depends_on_target(ctx, profile);
    let what = if missing.len() == 1 && first.is_empty() {
        "its pods do not tolerate".to_string()
    } else {
        let names: Vec<&str> = missing
            .iter()
            .map(|(c, _)| {
                if c.is_empty() {
                    "tolerations"
                } else {
                    c.as_str()
                }
            })
            .collect();
        format!("its pods ({}) do not tolerate", names.join(", "))
    };
    let path = if first.is_empty() {
        format!("{}.values.tolerations", rel.loc.path)
    } else {
        format!("{}.values.{first}.tolerations", rel.loc.path)
    };
    Some(
        Diagnostic::new(
            CODE,
            Severity::Warning,
            format!(
                "Helm release `{release}` is not ordered after Fargate profile `{pname}` and {what} the Fargate taint `{TAINT}`"
            ),
            span,
        )
        .with_label(if in_values_file.is_some() {
            "values file whose tolerations miss the Fargate taint".to_string()
        } else if span == rel.loc.span {
            "no toleration for the Fargate taint".to_string()
        } else {
            "these tolerations miss the Fargate taint".to_string()
        })
        .with_path(path)
        .with_related(
            selector.namespace.loc.span,
            format!("Fargate profile `{pname}` selects namespace `{ns}` here"),
        )
        .with_related(cluster.loc.span, "cluster without EC2 capacity")
        .with_related_opt(in_values_file, "these tolerations in the values file miss the Fargate taint")
        .with_help(format!(
            "order the release after the profile so its pods are created once the profile is ACTIVE: \
             add `depends_on = [{target}]`; \
             as a workaround, add the toleration `{{key: {TAINT_KEY}, operator: Equal, value: fargate, effect: NoSchedule}}` \
             to the chart's tolerations (the toleration alone can leave pods failing with `Too many pods`)"
        )),
    )
}

/// Components whose effective tolerations miss the taint, with the span of the
/// tolerations they have. `""` is the chart's top-level `tolerations`.
fn uncovered(chart: &str, values: &Value) -> Vec<(String, Option<Span>)> {
    let global = values.get("tolerations");
    if chart != "keda" {
        // Charts that nest their pods' tolerations (`controller.tolerations`)
        // are not known here: any nested list that may cover keeps it quiet.
        let nested_may_cover = chart != "karpenter" && nested_covers(values, 0);
        return match covered(global) {
            Known::Known(false) if !nested_may_cover => {
                vec![(String::new(), key_span(values, "tolerations"))]
            }
            _ => Vec::new(),
        };
    }
    let mut out = Vec::new();
    for comp in ["operator", "metricsServer", "webhooks"] {
        let c = values.get(comp);
        if comp == "webhooks" {
            let enabled = c.and_then(|w| w.get("enabled"));
            if matches!(enabled.map(|e| &e.kind), Some(ValueKind::Bool(false))) {
                continue;
            }
        }
        if c.is_some_and(Value::is_unknown) {
            continue;
        }
        // The chart falls back to the global value when the component's is empty.
        let own = c.and_then(|c| c.get("tolerations"));
        let own_set = match own.map(|o| &o.kind) {
            None | Some(ValueKind::Null) => false,
            Some(ValueKind::List(items)) => !items.is_empty(),
            Some(_) => true,
        };
        let (eff, span) = if own_set {
            (own, c.and_then(|c| key_span(c, "tolerations")))
        } else {
            (global, key_span(values, "tolerations"))
        };
        if covered(eff) == Known::Known(false) {
            out.push((comp.to_string(), span));
        }
    }
    out
}

/// What to write in `depends_on` to wait for the profile: the module that
/// makes it, or the profile resource itself.
fn depends_on_target(ctx: &Context<'_>, profile: &FargateProfile) -> String {
    let name = profile
        .resource
        .and_then(|r| {
            ctx.project
                .graphs
                .get(r.graph as usize)?
                .nodes
                .get(r.node as usize)
        })
        .map(|n| n.name.clone())
        .unwrap_or_default();
    if let Some(rest) = name.strip_prefix("module.") {
        let module = rest.split(['.', '[']).next().unwrap_or(rest);
        return format!("module.{module}");
    }
    if name.is_empty() {
        "module.eks".to_string()
    } else {
        name
    }
}

trait RelatedOpt {
    fn with_related_opt(self, span: Option<Span>, message: &str) -> Self;
}

impl RelatedOpt for Diagnostic {
    fn with_related_opt(self, span: Option<Span>, message: &str) -> Self {
        match span {
            Some(s) => self.with_related(s, message),
            None => self,
        }
    }
}

/// Whether some `tolerations` below the top level covers the taint or is unknown.
fn nested_covers(v: &Value, depth: usize) -> bool {
    let ValueKind::Map(entries) = &v.kind else {
        return false;
    };
    if depth > 32 {
        return true;
    }
    entries.iter().any(|(k, x)| {
        (depth > 0 && k.name == "tolerations" && covered(Some(x)) != Known::Known(false))
            || x.is_unknown()
            || nested_covers(x, depth + 1)
    })
}

fn key_span(map: &Value, key: &str) -> Option<Span> {
    match &map.kind {
        ValueKind::Map(entries) => entries
            .iter()
            .rev()
            .find(|(k, _)| k.name == key)
            .and_then(|(k, v)| k.span.or(v.span)),
        _ => None,
    }
}

/// Whether a tolerations list covers the Fargate taint; unknown parts cover.
fn covered(tols: Option<&Value>) -> Known<bool> {
    let Some(t) = tols else {
        return Known::Known(false);
    };
    match &t.kind {
        ValueKind::Null => Known::Known(false),
        ValueKind::List(items) => {
            let mut unknown = false;
            for it in items {
                match tolerates(it) {
                    Known::Known(true) => return Known::Known(true),
                    Known::Unknown => unknown = true,
                    Known::Known(false) => {}
                }
            }
            if unknown {
                Known::Unknown
            } else {
                Known::Known(false)
            }
        }
        _ => Known::Unknown,
    }
}

fn tolerates(t: &Value) -> Known<bool> {
    if !matches!(t.kind, ValueKind::Map(_)) {
        return if t.is_unknown() {
            Known::Unknown
        } else {
            Known::Known(false)
        };
    }
    let field = |k: &str| -> Known<Option<String>> {
        match t.get(k) {
            None => Known::Known(None),
            Some(v) => match &v.kind {
                ValueKind::Null => Known::Known(None),
                ValueKind::Unknown => Known::Unknown,
                _ => Known::Known(v.as_str().map(str::to_string).or(Some(String::new()))),
            },
        }
    };
    let (Known::Known(key), Known::Known(op), Known::Known(value), Known::Known(effect)) = (
        field("key"),
        field("operator"),
        field("value"),
        field("effect"),
    ) else {
        return Known::Unknown;
    };
    let effect_ok = matches!(effect.as_deref(), None | Some("") | Some("NoSchedule"));
    let op = op.unwrap_or_else(|| "Equal".into());
    let ok = effect_ok
        && match key.as_deref() {
            None | Some("") => op == "Exists",
            Some(TAINT_KEY) => {
                op == "Exists" || (op == "Equal" && value.as_deref() == Some("fargate"))
            }
            _ => false,
        };
    Known::Known(ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fplint_core::value::MapKey;

    fn s(t: &str) -> Value {
        Value::new(ValueKind::String(t.into()), None)
    }

    fn map(entries: &[(&str, Value)]) -> Value {
        Value::new(
            ValueKind::Map(
                entries
                    .iter()
                    .map(|(k, v)| {
                        (
                            MapKey {
                                name: k.to_string(),
                                span: None,
                            },
                            v.clone(),
                        )
                    })
                    .collect(),
            ),
            None,
        )
    }

    #[test]
    fn toleration_forms() {
        let key = ("key", s(TAINT_KEY));
        assert_eq!(
            tolerates(&map(&[key.clone(), ("operator", s("Exists"))])),
            Known::Known(true)
        );
        assert_eq!(
            tolerates(&map(&[key.clone(), ("value", s("fargate"))])),
            Known::Known(true)
        );
        assert_eq!(
            tolerates(&map(&[
                key.clone(),
                ("value", s("fargate")),
                ("effect", s("NoExecute"))
            ])),
            Known::Known(false)
        );
        assert_eq!(
            tolerates(&map(&[key.clone(), ("value", s("ec2"))])),
            Known::Known(false)
        );
        assert_eq!(
            tolerates(&map(&[("operator", s("Exists"))])),
            Known::Known(true)
        );
        assert_eq!(
            tolerates(&map(&[
                ("key", s("CriticalAddonsOnly")),
                ("operator", s("Exists"))
            ])),
            Known::Known(false)
        );
        assert_eq!(
            tolerates(&map(&[key, ("value", Value::unknown(None))])),
            Known::Unknown
        );
    }

    #[test]
    fn keda_components_fall_back_to_global() {
        let tol = Value::new(
            ValueKind::List(vec![map(&[("operator", s("Exists"))])]),
            None,
        );
        let empty = Value::new(ValueKind::List(Vec::new()), None);
        let values = map(&[
            ("tolerations", tol.clone()),
            ("operator", map(&[("tolerations", empty)])),
        ]);
        assert!(uncovered("keda", &values).is_empty());
        let values = map(&[("operator", map(&[("tolerations", tol)]))]);
        let missing: Vec<String> = uncovered("keda", &values)
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        assert_eq!(missing, vec!["metricsServer", "webhooks"]);
    }
}
