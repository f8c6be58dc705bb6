//! Facts several rules share.

use crate::charts::{self, ChartWorkload, Field, FieldSource, KnownChart};
use fplint_core::glob;
use fplint_core::model::{
    AppliedBy, Cluster, FargateProfile, HelmRelease, Known, Project, Selector,
};
use fplint_core::placement::{self, Placement};
use fplint_core::value::{Value, ValueKind};
use fplint_core::workload::Workload;
use fplint_core::Span;

/// A cluster that runs only on Fargate: no EC2 capacity is declared, no
/// Karpenter provisions nodes, and it has at least one profile (a cluster with
/// none has its compute elsewhere).
pub fn fargate_only(cluster: &Cluster) -> bool {
    cluster.fargate_only() == Known::Known(true)
        && cluster.karpenter() == Known::Known(false)
        && !cluster.fargate_profiles.is_empty()
}

/// The workloads that run on `cluster`.
pub fn workloads_of<'a>(
    project: &'a Project,
    cluster: &'a Cluster,
) -> impl Iterator<Item = &'a Workload> {
    project.workloads_for(&cluster.key)
}

/// Where a workload's pods go.
pub fn place(cluster: &Cluster, w: &Workload) -> Placement {
    let labels = w.pod.known_labels();
    placement::place(
        cluster,
        w.namespace.known().map(String::as_str),
        labels.as_deref(),
    )
}

/// The profile a workload's pods certainly run on.
pub fn on_fargate(cluster: &Cluster, w: &Workload) -> Option<usize> {
    match place(cluster, w).chosen {
        Known::Known(Some(p)) => Some(p),
        _ => None,
    }
}

/// The profile's name, or where it is defined when the name is generated or
/// cannot be resolved (the CloudFormation logical id, the Terraform address).
pub fn profile_label<'a>(_project: &'a Project, profile: &'a FargateProfile) -> &'a str {
    profile.display_name()
}

/// The name shown for the `i`th Fargate profile of `cluster`.
pub fn profile_name<'a>(project: &'a Project, cluster: &'a Cluster, i: usize) -> &'a str {
    cluster
        .fargate_profiles
        .get(i)
        .map_or("?", |p| profile_label(project, p))
}

/// Two profiles that cannot both exist (resources under exclusive conditions).
pub fn exclusive(project: &Project, a: &FargateProfile, b: &FargateProfile) -> bool {
    matches!((a.resource, b.resource), (Some(x), Some(y)) if project.mutually_exclusive(x, y))
}

/// How a workload is named in messages: its kind and name.
pub fn workload_name(w: &Workload) -> String {
    let name = format!(
        "{} `{}`",
        w.kind.as_str(),
        w.name.known().map_or("?", String::as_str)
    );
    match &w.variant {
        Some(v) => format!("{name} ({})", variant_label(v)),
        None => name,
    }
}

/// What built a workload, for messages: `overlay `prod``, `release `web` of
/// chart `app``, `chart `app` for any release`.
pub fn variant_label(v: &fplint_core::workload::Variant) -> String {
    use fplint_core::workload::VariantKind;
    match &v.kind {
        VariantKind::Overlay => format!("overlay `{}`", v.name),
        VariantKind::Release { chart } => format!("release `{}` of chart `{chart}`", v.name),
        VariantKind::ChartDefaults { chart } => format!("chart `{chart}` for any release"),
    }
}

/// A finding on a workload built by an overlay names the overlay's file too.
pub fn with_variant(mut d: fplint_core::Diagnostic, w: &Workload) -> fplint_core::Diagnostic {
    add_variant(&mut d, w);
    d
}

/// Name the kustomize overlay or the Helm release a built workload comes
/// from in its finding.
pub fn add_variant(d: &mut fplint_core::Diagnostic, w: &Workload) {
    use fplint_core::workload::VariantKind;
    if let Some(v) = &w.variant {
        let message = match &v.kind {
            VariantKind::Overlay => format!("overlay `{}` builds it here", v.name),
            VariantKind::Release { .. } => format!("release `{}` renders it here", v.name),
            VariantKind::ChartDefaults { chart } => {
                format!("chart `{chart}`, rendered with its defaults for any release")
            }
        };
        d.related.push(fplint_core::Related {
            span: v.loc.span,
            message,
        });
        // A value a template action prints: where it is set.
        if let Some((_, origin)) = v.origins.iter().find(|(action, _)| *action == d.span) {
            d.related.push(fplint_core::Related {
                span: *origin,
                message: "the value is set here".into(),
            });
        }
    }
}

/// The key of the taint Fargate nodes carry.
pub const TAINT_KEY: &str = "eks.amazonaws.com/compute-type";
/// The taint Fargate nodes carry, as `key=value:effect`.
pub const TAINT: &str = "eks.amazonaws.com/compute-type=fargate:NoSchedule";

/// The Fargate profile that takes a Helm release's pods, when the release is
/// not ordered after it: a label-less selector matches the release's
/// namespace, and no profile that can take its pods is ordered before it.
/// `None` when ordered, or when anything needed is unknown.
pub fn unordered_fargate_profile<'a>(
    project: &Project,
    cluster: &'a Cluster,
    rel: &HelmRelease,
) -> Option<(&'a FargateProfile, &'a Selector)> {
    // A controller in the cluster applies it once the profiles exist.
    if rel.applied_by == AppliedBy::Controller {
        return None;
    }
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
            // ACTIVE, the Fargate scheduler owns them. A profile of another
            // unit (another Terraform root) has no order known against it.
            match p.resource {
                Some(pres) if pres.graph == rres.graph && !project.depends_on(rres, pres) => {}
                _ => return None,
            }
            if serving.is_none() && s.labels.known().is_some_and(Vec::is_empty) {
                serving = Some((p, s));
            }
        }
    }
    serving
}

/// A release of a chart the data knows, with known values that change
/// nothing the data cannot follow, and the ranges of the chart's facts its
/// version may lie in. A chart of this repository deploys what its templates
/// say, not what its name says.
#[derive(Debug)]
pub struct KnownRelease<'a> {
    /// Every range the release may be read with, oldest first; at least one.
    pub ranges: Vec<&'static KnownChart>,
    /// The release's values.
    pub values: &'a Value,
    /// What was weighed, for messages, when the version leaves more than
    /// one range or cannot be read.
    pub weighed: Option<String>,
}

impl KnownRelease<'_> {
    /// What every range gives, when they all give the same: an answer that
    /// depends on which range holds the release is unknown.
    pub fn agree<T: PartialEq>(&self, mut f: impl FnMut(&'static KnownChart) -> T) -> Option<T> {
        let mut ranges = self.ranges.iter();
        let first = f(ranges.next()?);
        for c in ranges {
            if f(c) != first {
                return None;
            }
        }
        Some(first)
    }

    /// The items every range gives, in the first range's order.
    pub fn in_every<T: PartialEq>(
        &self,
        mut f: impl FnMut(&'static KnownChart) -> Vec<T>,
    ) -> Vec<T> {
        let mut ranges = self.ranges.iter();
        let Some(first) = ranges.next() else {
            return Vec::new();
        };
        let mut out = f(first);
        for c in ranges {
            let other = f(c);
            out.retain(|x| other.contains(x));
        }
        out
    }
}

/// The release [`KnownRelease`] describes, when it is one.
pub fn known_release(rel: &HelmRelease) -> Option<KnownRelease<'_>> {
    if rel.local_chart || rel.chart_dir.is_some() || rel.post_rendered {
        return None;
    }
    let name = rel.chart_name()?;
    let version = rel.version.as_ref().map(|v| {
        v.known()
            .map_or(Known::Unknown, |v| Known::Known(v.as_str()))
    });
    let ranges = charts::candidate_ranges(name, version.clone())?;
    let values = rel.values.known()?;
    if !matches!(values.kind, ValueKind::Map(_) | ValueKind::Null) {
        return None;
    }
    // A value that changes what one range renders leaves that range unknown,
    // so no answer can be common to all.
    if ranges
        .iter()
        .any(|c| c.guards.iter().any(|g| charts::lookup(values, g).is_some()))
    {
        return None;
    }
    let shown = charts::show_ranges(&ranges);
    let weighed = match version {
        Some(Known::Unknown) => Some(format!(
            "its version is unknown: the same in every known range of chart `{name}`, {shown}"
        )),
        Some(Known::Known(v)) if ranges.len() > 1 => Some(format!(
            "the same in every range of chart `{name}` its version `{v}` spans, {shown}"
        )),
        _ => None,
    };
    Some(KnownRelease {
        ranges,
        values,
        weighed,
    })
}

/// What a finding from the chart knowledge adds to its message when the
/// release's version left several ranges to weigh: ` (its version is
/// unknown: the same in every known range ...)`, else nothing.
pub fn weighed_note(rel: &HelmRelease) -> String {
    known_release(rel)
        .and_then(|k| k.weighed)
        .map_or(String::new(), |w| format!(" ({w})"))
}

/// What the chart knowledge says of a remote release, for `fplint render`:
/// the ranges it is read with (several when its version leaves them all),
/// or why it is unknown.
pub fn knowledge_note(rel: &HelmRelease) -> Result<Vec<&'static KnownChart>, String> {
    let Some(name) = rel.chart_name() else {
        return Err("the chart cannot be read".into());
    };
    let version = rel.version.as_ref().map(|v| {
        v.known()
            .map_or(Known::Unknown, |v| Known::Known(v.as_str()))
    });
    let Some(ranges) = charts::candidate_ranges(name, version.clone()) else {
        let known: Vec<&KnownChart> = charts::known::charts()
            .iter()
            .filter(|c| c.name == name)
            .collect();
        return Err(if known.is_empty() {
            format!("chart `{name}` is not in the chart knowledge")
        } else {
            let version = match version {
                Some(Known::Known(v)) => v,
                _ => "?",
            };
            format!(
                "version `{version}` of chart `{name}` is not in the chart knowledge, which holds {}",
                known
                    .iter()
                    .map(|c| format!("{} to before {}", show(c.from), show(c.until)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
    };
    if rel.post_rendered {
        return Err("a post-renderer patches what the chart renders".into());
    }
    if known_release(rel).is_none() {
        return Err(format!(
            "chart `{name}` is known from {}, but the release's values cannot be read or set one that changes what it renders",
            charts::show_ranges(&ranges).replace(", ", " and from ")
        ));
    }
    Ok(ranges)
}

fn show(v: charts::Version) -> String {
    format!("{}.{}.{}", v.0, v.1, v.2)
}

/// The workloads of a known release that certainly make pods in its
/// namespace.
pub fn release_pod_workloads(
    chart: &'static KnownChart,
    values: &Value,
) -> Vec<&'static ChartWorkload> {
    chart
        .workloads
        .iter()
        .filter(|w| {
            w.makes_pods()
                && w.rendered(values) == Known::Known(true)
                && w.in_release_namespace(values) == Known::Known(true)
        })
        .collect()
}

/// Which part of a chart's values a workload's field belongs to: `operator`
/// for `operator.tolerations`, `""` for the top level, else the workload.
fn component(src: &FieldSource, w: &ChartWorkload) -> String {
    match src.values.first() {
        Some(p) => p
            .rsplit_once('.')
            .map_or(String::new(), |(c, _)| c.to_string()),
        None => w.name.to_string(),
    }
}

/// Components of a known release whose pods' tolerations miss the taint,
/// with the span of the tolerations the release wrote for them. `""` is
/// the chart's top-level `tolerations`. `None` when nothing is certain.
/// When the release may lie in several ranges of the chart's facts, each
/// must find pods that miss the taint; the components are given when all
/// name the same ones, else the list is empty (the pods miss it whichever
/// range holds the release, but which values to change depends on it).
pub fn uncovered(rel: &HelmRelease) -> Option<Vec<(String, Option<Span>)>> {
    let k = known_release(rel)?;
    let per_range: Vec<_> = k
        .ranges
        .iter()
        .map(|chart| uncovered_in(chart, k.values))
        .collect();
    if per_range.iter().any(Vec::is_empty) {
        return None;
    }
    Some(
        k.agree(|chart| uncovered_in(chart, k.values))
            .unwrap_or_default(),
    )
}

fn uncovered_in(chart: &'static KnownChart, values: &Value) -> Vec<(String, Option<Span>)> {
    let mut out: Vec<(String, Option<Span>)> = Vec::new();
    for w in release_pod_workloads(chart, values) {
        let Some(src) = w.field(Field::Tolerations) else {
            continue;
        };
        let Known::Known(eff) = src.effective(values) else {
            continue;
        };
        if covered(eff.value.as_ref()) != Known::Known(false) {
            continue;
        }
        let comp = component(src, w);
        let span = eff
            .set_at
            .and_then(|p| charts::key_span(values, p))
            .or_else(|| src.values.iter().find_map(|p| charts::key_span(values, p)));
        if !out.iter().any(|(c, _)| *c == comp) {
            out.push((comp, span));
        }
    }
    out
}

/// Whether every pod of a known release certainly tolerates the taint, in
/// every range the release may lie in.
pub fn certainly_tolerated(rel: &HelmRelease) -> bool {
    let Some(k) = known_release(rel) else {
        return false;
    };
    let values = k.values;
    k.agree(|chart| {
        let pods = release_pod_workloads(chart, values);
        !pods.is_empty()
            && pods.iter().all(|w| {
                w.field(Field::Tolerations).is_some_and(|src| {
                    matches!(src.effective(values), Known::Known(e) if covered(e.value.as_ref()) == Known::Known(true))
                })
            })
    }) == Some(true)
}

/// A safe fix that orders `from` after `on` (a logical id, or a Terraform
/// address): only the creation order changes. Inside a Terraform module the
/// address to write is not the one fplint knows, so only resources of the
/// linted module itself get a fix.
pub fn add_dependency_fix(
    project: &Project,
    provisioner: fplint_core::model::Provisioner,
    from: fplint_core::model::ResourceRef,
    on: &str,
) -> Option<fplint_core::Fix> {
    use fplint_core::model::Provisioner;
    let node = project
        .graphs
        .get(from.graph as usize)?
        .nodes
        .get(from.node as usize)?;
    let title = match provisioner {
        Provisioner::Terraform => {
            if node.name.starts_with("module.") || (on.starts_with("module.") && on.contains('[')) {
                return None;
            }
            format!("add `{on}` to `depends_on` of `{}`", node.name)
        }
        // A program's source is the author's to edit.
        Provisioner::Cdk | Provisioner::Pulumi => return None,
        _ => format!("add `DependsOn: {on}` to `{}`", node.name),
    };
    Some(fplint_core::Fix::safe(
        title,
        vec![fplint_core::Change::AddDependency {
            resource: node.loc.span,
            on: on.to_string(),
        }],
    ))
}

/// What to write in `depends_on` to wait for the profile: the module that
/// makes it, or the profile resource itself.
pub fn depends_on_target(project: &Project, profile: &FargateProfile) -> String {
    let name = profile
        .resource
        .and_then(|r| {
            project
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

/// Whether one toleration tolerates the Fargate taint.
pub fn tolerates(t: &Value) -> Known<bool> {
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

/// The namespace a known release's pods run in: some workload certainly
/// makes pods there.
pub fn release_pod_namespace(rel: &HelmRelease) -> Option<&str> {
    let k = known_release(rel)?;
    if k.agree(|chart| !release_pod_workloads(chart, k.values).is_empty()) != Some(true) {
        return None;
    }
    rel.namespace.known().map(String::as_str)
}

/// A release's name for messages.
pub fn release_name(rel: &HelmRelease) -> &str {
    rel.name.known().map_or(&*rel.loc.path, String::as_str)
}

/// `v1.4.2`, `1.4`, `0.37.0-rc.1` → (major, minor, patch); `latest` → `None`.
pub fn parse_version(v: &str) -> Option<(u64, u64, u64)> {
    let v = v.trim().trim_start_matches('v');
    let core = v.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    if parts.next().is_some() {
        return None;
    }
    Some((major, minor, patch))
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
}
