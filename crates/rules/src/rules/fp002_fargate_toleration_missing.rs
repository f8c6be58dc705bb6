//! FP002 fargate-toleration-missing.
//!
//! Fargate nodes carry the taint `eks.amazonaws.com/compute-type=fargate:NoSchedule`.
//! Pods created before their profile is ACTIVE are handed to the
//! default-scheduler, which rejects them for that taint. The root fix is to
//! order the release after the profile; a toleration is the workaround.
//! Quiet on anything unknown: the cluster's capacity, the namespace, the
//! values, a selector with labels (a chart's pod labels are not known). A
//! release of a chart of the repository is left to FP012, which judges the
//! pods the chart renders.

use crate::common::{
    add_dependency_fix, depends_on_target, uncovered, unordered_fargate_profile, weighed_note,
    TAINT, TAINT_KEY,
};
use crate::{Context, Rule};
use fplint_core::model::{Cluster, HelmRelease, Known, Provisioner, ValueSource, ValueSourceKind};
use fplint_core::value::{Value, ValueKind};
use fplint_core::{Change, Diagnostic, Fix, Severity, Span};

/// The FP002 rule, `fargate-toleration-missing`: the module documentation says what it finds.
pub struct FargateTolerationMissing;

const CODE: &str = "FP002";

impl Rule for FargateTolerationMissing {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
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
    // A chart of the repository is rendered: its pods are judged as the
    // workloads they are (FP012 at the template line), not from its values.
    if rel.chart_dir.is_some() {
        return None;
    }
    let ns = rel.namespace.known()?;
    let (profile, selector) = unordered_fargate_profile(ctx.project, cluster, rel)?;
    let values = rel.values.known()?;
    let missing = uncovered(rel)?;
    // Empty: every range of the chart's facts misses the taint, in parts
    // that differ between them.
    let (first, tol_span) = missing.first().cloned().unwrap_or_default();
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
        .unwrap_or_else(|| rel.loc.path.to_string());
    let pname = profile.name.known().map_or("?", String::as_str);
    let target = depends_on_target(ctx.project, profile);
    let what = if missing.len() <= 1 && first.is_empty() {
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
    let path = if missing.is_empty() {
        format!("{}.values", rel.loc.path)
    } else if first.is_empty() {
        format!("{}.values.tolerations", rel.loc.path)
    } else {
        format!("{}.values.{first}.tolerations", rel.loc.path)
    };
    Some(
        Diagnostic::new(
            CODE,
            Severity::Warning,
            format!(
                "Helm release `{release}` is not ordered after Fargate profile `{pname}` and {what} the Fargate taint `{TAINT}`{}",
                weighed_note(rel)
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
             add {}; \
             as a workaround, add the toleration `{{key: {TAINT_KEY}, operator: Equal, value: fargate, effect: NoSchedule}}` \
             to the chart's tolerations (the toleration alone can leave pods failing with `Too many pods`)",
            match cluster.provisioner {
                Provisioner::CloudFormation => format!("`DependsOn: {target}`"),
                Provisioner::Cdk => format!("a dependency on `{target}` (`node.addDependency`; Python: `node.add_dependency`)"),
                Provisioner::Pulumi => format!("the profile `{target}` to the release's `dependsOn` (Python: `depends_on`)"),
                _ => format!("`depends_on = [{target}]`"),
            }
        ))
        .with_fix_opt(
            rel.resource
                .and_then(|r| add_dependency_fix(ctx.project, cluster.provisioner, r, &target))
                .or_else(|| toleration_fix(ctx, rel, &missing, values)),
        ),
    )
}

/// When the ordering cannot be written (the release sits in a module), the
/// toleration itself, as an unsafe fix: it changes the pods. Only where the
/// path is known (Karpenter's top-level `tolerations`) and the values are
/// written in the release itself, as a heredoc or a `yamlencode({..})`, in
/// a file the user linted (not module code `terraform init` installed).
fn toleration_fix(
    ctx: &Context<'_>,
    rel: &HelmRelease,
    missing: &[(String, Option<Span>)],
    values: &Value,
) -> Option<Fix> {
    let [(component, tolerations)] = missing else {
        return None;
    };
    if rel.chart_name() != Some("karpenter") || !component.is_empty() {
        return None;
    }
    let file = rel.loc.span.file;
    if ctx.project.is_context_only(file) {
        return None;
    }
    let literal = |s: &ValueSource| {
        matches!(s.kind, ValueSourceKind::Text | ValueSourceKind::Encoded)
            && s.origin.is_none()
            && s.loc.span.file == file
    };
    if !rel.value_sources.iter().all(literal) {
        return None;
    }
    let inside = |s: &ValueSource, at: Span| {
        at.file == s.loc.span.file && at.start >= s.loc.span.start && at.end <= s.loc.span.end
    };
    let source = match tolerations {
        Some(at) => rel.value_sources.iter().rev().find(|s| inside(s, *at))?,
        None => {
            // Keys written inside the entry show that it is the document itself.
            let source = rel.value_sources.last()?;
            let ValueKind::Map(entries) = &values.kind else {
                return None;
            };
            if !entries
                .iter()
                .any(|(k, _)| k.span.is_some_and(|at| inside(source, at)))
            {
                return None;
            }
            source
        }
    };
    let item = [
        ("key", TAINT_KEY),
        ("operator", "Equal"),
        ("value", "fargate"),
        ("effect", "NoSchedule"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    Some(Fix::unsafe_(
        format!(
            "add the Fargate toleration to the values of `{}`",
            rel.loc.path
        ),
        vec![Change::AppendValuesItem {
            at: source.loc.span,
            key: "tolerations".to_string(),
            item,
        }],
    ))
}

trait RelatedOpt {
    fn with_related_opt(self, span: Option<Span>, message: &str) -> Self;
    fn with_fix_opt(self, fix: Option<fplint_core::Fix>) -> Self;
}

impl RelatedOpt for Diagnostic {
    fn with_related_opt(self, span: Option<Span>, message: &str) -> Self {
        match span {
            Some(s) => self.with_related(s, message),
            None => self,
        }
    }

    fn with_fix_opt(self, fix: Option<fplint_core::Fix>) -> Self {
        match fix {
            Some(f) => self.with_fix(f),
            None => self,
        }
    }
}
