//! FP021 instance-metadata-on-fargate.
//!
//! Fargate pods cannot reach the EC2 instance metadata service. Some charts'
//! controllers fall back to it for what the release did not set, and fail
//! at start on Fargate: the AWS Load Balancer Controller looks up its VPC
//! there. Fires on a release of such a chart (from any declaration) whose
//! pods a Fargate profile selects by namespace alone, so they run on Fargate
//! whatever EC2 capacity the cluster also has, when its values set none of
//! the values that stand in for the lookup. Quiet when the values, the
//! namespace or the chart's source are unknown, and on charts of this
//! repository (their templates say what they read, not their name).

use crate::charts::{metadata_need, MetadataNeed};
use crate::common::{profile_label, release_name, release_pod_namespace, weighed_note};
use crate::{Context, Rule};
use fplint_core::model::{Cluster, HelmRelease, Known};
use fplint_core::placement::selector_matches;
use fplint_core::value::{Value, ValueKind};
use fplint_core::{Diagnostic, Severity};

/// The FP021 rule, `instance-metadata-on-fargate`: the module documentation says what it finds.
pub struct InstanceMetadataOnFargate;

const CODE: &str = "FP021";

impl Rule for InstanceMetadataOnFargate {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            for rel in &cluster.helm_releases {
                let Some(need) = rel.chart_name().and_then(metadata_need) else {
                    continue;
                };
                if let Some(d) = check_release(ctx, cluster, rel, need) {
                    out.push(d);
                }
            }
        }
    }
}

/// Whether a value stands in for the lookup: Helm templates test it for
/// truth, so `null`, `""`, `false` and empty maps and lists do not.
/// Unknown counts as set.
fn is_set(v: &Value) -> bool {
    match &v.kind {
        ValueKind::Null | ValueKind::Bool(false) => false,
        ValueKind::String(s) => !s.is_empty(),
        ValueKind::List(l) => !l.is_empty(),
        ValueKind::Map(m) => !m.is_empty(),
        _ => true,
    }
}

fn check_release(
    ctx: &Context<'_>,
    cluster: &Cluster,
    rel: &HelmRelease,
    need: &MetadataNeed,
) -> Option<Diagnostic> {
    let ns = release_pod_namespace(rel)?;
    let values = rel.values.known()?;
    if !matches!(values.kind, ValueKind::Map(_) | ValueKind::Null) {
        return None;
    }
    if need
        .any_of
        .iter()
        .any(|k| values.get(k).is_some_and(is_set))
    {
        return None;
    }
    let (profile, selector) = cluster.fargate_profiles.iter().find_map(|p| {
        p.selectors
            .known()?
            .iter()
            .find(|s| selector_matches(s, ns, None) == Known::Known(true))
            .map(|s| (p, s))
    })?;
    let release = release_name(rel);
    let pname = profile_label(ctx.project, profile);
    let chart = if release == need.chart {
        String::new()
    } else {
        format!(" of chart `{}`", need.chart)
    };
    let keys: Vec<String> = need.any_of.iter().map(|k| format!("`{k}`")).collect();
    let first = need.any_of.first().copied().unwrap_or_default();
    Some(
        Diagnostic::new(
            CODE,
            Severity::Error,
            format!(
                "Helm release `{release}`{chart} runs on Fargate profile `{pname}` of cluster {} without {}: its controller would learn {} from the EC2 instance metadata service, which Fargate pods cannot reach, and fails at start{}",
                cluster.reference(rel.loc.span.file),
                keys.join(" or "),
                need.looks_up,
                weighed_note(rel),
            ),
            rel.loc.span,
        )
        .with_label(format!("no {} in this release's values", keys.join(" or ")))
        .with_path(format!("{}.values.{first}", rel.loc.path))
        .with_related(
            selector.namespace.loc.span,
            format!("Fargate profile `{pname}` selects namespace `{ns}` here"),
        )
        .with_help(format!(
            "set `{first}` in the release's values (the EKS user guide also sets `region` for Fargate)"
        )),
    )
}
