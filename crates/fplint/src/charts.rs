//! Helm charts of the repository in a run: a chart alone is rendered with
//! its defaults for any release; the releases a controller applies (Argo
//! CD, Flux, helmfile) render their local chart; a chart some release of
//! the run uses is judged through that release only. Terraform's
//! `helm_release` renders in its module (it orders the workloads). All go
//! through [`fplint_core::frontend::chart::render_release`].

use fplint_core::frontend::chart::{self, ChartRelease};
use fplint_core::frontend::{Format, UnitOutput};
use fplint_core::model::{AppliedBy, HelmRelease, Project};
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use fplint_core::workload::VariantKind;
use fplint_core::FileId;
use std::collections::HashSet;
use std::path::Path;

/// The cluster key of a chart's defaults once a release of the run renders
/// the chart: no cluster has it, so no rule sees them twice.
const SUPERSEDED: &str = "superseded:chart-defaults";

/// Whether a walked file is a chart's `Chart.yaml` (not a subchart's).
pub(crate) fn is_chart_file(path: &Path) -> bool {
    if path.file_name().is_none_or(|n| n != "Chart.yaml") {
        return false;
    }
    let dir = match path.parent() {
        Some(d) if d.as_os_str().is_empty() => Path::new("."),
        Some(d) => d,
        None => return false,
    };
    !chart::is_subchart(dir)
}

/// The chart of `chart_yaml`, rendered with its defaults for any release.
pub(crate) fn render_defaults(chart_yaml: &Path, sources: &Sources, limits: Limits) -> UnitOutput {
    let dir = match chart_yaml.parent() {
        Some(d) if d.as_os_str().is_empty() => Path::new("."),
        Some(d) => d,
        None => Path::new("."),
    };
    let mut unit = chart::render_release(&ChartRelease::new(dir), sources, limits).unit;
    unit.formats.push(Format::Kubernetes);
    unit
}

/// A release's input to the render.
pub fn release_input(rel: &HelmRelease) -> Option<ChartRelease> {
    let dir = rel.chart_dir.clone()?;
    let name = rel
        .name
        .known()
        .cloned()
        .unwrap_or_else(|| rel.loc.path.to_string());
    Some(ChartRelease {
        name: rel.name.value.clone(),
        namespace: rel.namespace.value.clone(),
        values: rel.values.clone(),
        declared: Some((name, rel.loc.clone())),
        ..ChartRelease::new(dir)
    })
}

/// Charts a rendered chart declares, rendered in turn, at most this deep
/// (an "app of apps" of apps).
const MAX_NESTING: usize = 4;

/// Render the local charts of the releases a controller applies that a
/// unit declares, and of the releases those charts declare in turn. Their
/// workloads have no resource: nothing orders them against the IaC, and
/// the controller applies them once the cluster runs.
pub(crate) fn render_declared(unit: &mut UnitOutput, sources: &Sources, limits: Limits) {
    let mut from = 0;
    for _ in 0..MAX_NESTING {
        let inputs: Vec<ChartRelease> = unit.releases[from..]
            .iter()
            .filter(|r| r.applied_by == AppliedBy::Controller)
            .filter_map(release_input)
            .collect();
        from = unit.releases.len();
        if inputs.is_empty() {
            return;
        }
        for input in inputs {
            let mut r = chart::render_release(&input, sources, limits);
            unit.workloads.append(&mut r.unit.workloads);
            unit.aws_auth.append(&mut r.unit.aws_auth);
            unit.karpenter.append(&mut r.unit.karpenter);
            unit.diagnostics.append(&mut r.unit.diagnostics);
            unit.releases.append(&mut r.unit.releases);
            unit.directory_sources.append(&mut r.unit.directory_sources);
        }
    }
}

/// Every release of the project, wherever it was put.
fn all_releases(project: &Project) -> impl Iterator<Item = &HelmRelease> {
    project
        .releases
        .iter()
        .chain(project.clusters.iter().flat_map(|c| c.helm_releases.iter()))
}

/// A chart a release of the run renders is judged through the release:
/// its defaults' workloads leave every cluster. Idempotent.
pub(crate) fn retire_used_defaults(project: &mut Project, sources: &Sources) {
    let used: HashSet<FileId> = all_releases(project)
        .filter_map(|r| r.chart_dir.as_ref())
        .filter_map(|d| sources.load(&d.join("Chart.yaml")).ok())
        .map(|f| f.id)
        .collect();
    if used.is_empty() {
        return;
    }
    for w in &mut project.workloads {
        let Some(v) = &w.variant else { continue };
        if matches!(v.kind, VariantKind::ChartDefaults { .. }) && used.contains(&v.loc.span.file) {
            w.cluster_key = Some(SUPERSEDED.to_string());
        }
    }
}

/// The rendered workloads of a declared release run where the release
/// does (its declaration may name another cluster).
pub(crate) fn follow_releases(project: &mut Project) {
    let keys: Vec<(fplint_core::Span, Option<String>)> = project
        .releases
        .iter()
        .filter(|r| r.chart_dir.is_some() && r.applied_by == AppliedBy::Controller)
        .map(|r| (r.loc.span, r.cluster_key.clone()))
        .collect();
    if keys.is_empty() {
        return;
    }
    for w in &mut project.workloads {
        let Some(v) = &w.variant else { continue };
        if !matches!(v.kind, VariantKind::Release { .. }) {
            continue;
        }
        if let Some((_, k)) = keys.iter().find(|(s, _)| *s == v.loc.span) {
            w.cluster_key.clone_from(k);
        }
    }
}
