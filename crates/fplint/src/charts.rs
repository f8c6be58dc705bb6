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
    if fplint_core::path::file_name_bytes(path).is_none_or(|n| n != b"Chart.yaml") {
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
        // Values files and ConfigMaps the declarations name, read now that
        // files can be.
        for r in &mut unit.releases[from..] {
            fplint_core::frontend::shared::release::resolve_chart_ref(r, sources, limits);
            fplint_core::frontend::shared::release::read_values_parts(r, sources, limits);
        }
        let inputs: Vec<ChartRelease> = unit.releases[from..]
            .iter()
            .filter(|r| r.applied_by == AppliedBy::Controller)
            .filter_map(ChartRelease::of)
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

/// What `fplint render` is asked for, beside the path.
#[derive(Debug, Clone, Default)]
pub struct RenderRequest {
    /// `--release`: the release name (unknown when not given).
    pub release: Option<String>,
    /// `--namespace` (unknown when not given).
    pub namespace: Option<String>,
    /// `-f`: values files, in order.
    pub values_files: Vec<std::path::PathBuf>,
    /// `--set KEY=VALUE`, in order.
    pub set: Vec<String>,
    /// `--set-string KEY=VALUE`, in order, after `set`.
    pub set_string: Vec<String>,
    /// `--kube-version`.
    pub kube_version: Option<String>,
}

/// Why a path cannot be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A values file that cannot be read.
    #[error("{path}: {reason}")]
    ValuesFile {
        /// The file as given.
        path: String,
        /// Why it cannot be read.
        reason: String,
    },
    /// Nothing under the path renders manifests.
    #[error("{0}: no chart, kustomization or release of a local chart here")]
    Nothing(String),
    /// Release options given for a path that is no chart.
    #[error("{0}: --release, --namespace, -f and --set are for a chart folder; a declaration gives its releases their own")]
    NotAChart(String),
}

/// The manifests fplint builds from `path`, as `helm template` prints them:
/// a chart folder rendered for the release asked for (name and namespace
/// unknown when not given), a kustomization folder built, or each release
/// of a local chart that the files under `path` declare, as `check` reads
/// them.
pub fn render(
    linter: &crate::Linter,
    path: &Path,
    req: &RenderRequest,
) -> Result<String, RenderError> {
    render_unescaped(linter, path, req).map(|text| escape_comments(&text))
}

/// fplint's comment lines (`# Source:`, `# fplint:`) with their control
/// characters escaped, as the human formats are; the manifests stay as
/// rendered, byte for byte, to compare with `helm template`.
fn escape_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.starts_with("# Source: ") || line.starts_with("# fplint:") {
            true => out.push_str(&crate::render::escape_controls(line)),
            false => out.push_str(line),
        }
    }
    out
}

/// [`render`] before fplint's comments are escaped.
fn render_unescaped(
    linter: &crate::Linter,
    path: &Path,
    req: &RenderRequest,
) -> Result<String, RenderError> {
    let (limits, _) = linter.options().effective_limits(linter.config());
    let shown = fplint_core::sources::display_path(path);
    let mut out = String::new();
    if path.is_dir() && chart::is_chart(path) {
        let sources = Sources::new(Vec::new());
        let mut input = ChartRelease::new(path);
        input.name = req.release.clone().into();
        input.namespace = req.namespace.clone().into();
        input.kube_version.clone_from(&req.kube_version);
        input.set.clone_from(&req.set);
        input.set_string.clone_from(&req.set_string);
        for f in &req.values_files {
            let text = std::fs::read_to_string(f).map_err(|e| RenderError::ValuesFile {
                path: fplint_core::sources::display_path(f),
                reason: e.to_string(),
            })?;
            input
                .values_files
                .push((fplint_core::sources::display_path(f), text));
        }
        print_documents(
            &mut out,
            &chart::render_release(&input, &sources, limits).documents,
        );
        return Ok(out);
    }
    let asked = req.release.is_some()
        || req.namespace.is_some()
        || !req.values_files.is_empty()
        || !req.set.is_empty()
        || !req.set_string.is_empty();
    if asked {
        return Err(RenderError::NotAChart(shown));
    }
    if path.is_dir() && fplint_core::frontend::kustomize::kustomization_in(path).is_some() {
        let sources = Sources::new(Vec::new());
        let (objects, diagnostics) =
            fplint_core::frontend::kustomize::build_objects(path, &sources, limits);
        for d in &diagnostics {
            let at = sources
                .peek(d.span.file)
                .map(|f| format!("{}:{}: ", f.path, f.line_col(d.span.start as usize).line))
                .unwrap_or_default();
            out.push_str(&format!("# fplint: {at}{}\n", d.message));
        }
        let docs: Vec<chart::RenderedDocument> = objects
            .iter()
            .map(|(obj, opaque)| chart::object_document(obj, *opaque, &sources))
            .collect();
        print_documents(&mut out, &docs);
        return Ok(out);
    }
    // Declarations: the releases `check` reads, rendered the same way.
    let loaded = linter.load(&[path]);
    let under = path.canonicalize().ok();
    let mut seen = HashSet::new();
    let mut any = false;
    let mut releases: Vec<&HelmRelease> = all_releases(&loaded.project)
        .filter(|r| r.chart_dir.is_some() || !r.local_chart)
        // One declaration may make several releases (a loop): by name too.
        .filter(|r| seen.insert((r.loc.span, r.name.known().cloned())))
        .filter(|r| {
            let file = loaded.sources.disk_path(r.loc.span.file);
            match (&under, file) {
                (Some(u), Some(f)) => f.starts_with(u),
                _ => true,
            }
        })
        .collect();
    releases.sort_by_key(|r| (r.loc.span.file, r.loc.span.start, r.name.known().cloned()));
    for rel in releases {
        let at = loaded
            .sources
            .get(rel.loc.span.file)
            .map(|f| {
                format!(
                    "{}:{}",
                    f.path,
                    f.line_col(rel.loc.span.start as usize).line
                )
            })
            .unwrap_or_default();
        let name = rel.name.known().map_or("?", String::as_str);
        let ns = rel.namespace.known().map_or("?", String::as_str);
        let Some(mut input) = ChartRelease::of(rel) else {
            if rel.chart_dir.is_none() {
                any = true;
                remote_note(&mut out, rel, name, ns, &at);
            }
            continue;
        };
        input.kube_version.clone_from(&req.kube_version);
        any = true;
        out.push_str(&format!(
            "# fplint: release {name} (namespace {ns}) of chart {}, declared at {at}\n",
            fplint_core::sources::display_path(&input.dir)
        ));
        let r = chart::render_release(&input, &loaded.sources, limits);
        print_documents(&mut out, &r.documents);
    }
    any |= render_programs(&mut out, &loaded, under.as_deref(), limits);
    if !any {
        return Err(RenderError::Nothing(shown));
    }
    Ok(out)
}

/// What fplint read from each program (CDK app, Pulumi project) under
/// `under`: each resource of the template it wrote, with the line of the
/// program that declares it as its `# Source:`.
fn render_programs(
    out: &mut String,
    loaded: &crate::Loaded,
    under: Option<&Path>,
    limits: fplint_core::tree::Limits,
) -> bool {
    use fplint_core::frontend::program;
    let mut any = false;
    for i in 0..loaded.sources.len() {
        let id = fplint_core::source::FileId(i as u32);
        let Some(f) = loaded.sources.get(id) else {
            continue;
        };
        if !program::is_project_file(Path::new(&f.path)) {
            continue;
        }
        if let (Some(u), Some(disk)) = (under, loaded.sources.disk_path(id)) {
            if !disk.starts_with(u) {
                continue;
            }
        }
        let p = program::load_program(&f, &loaded.sources, limits);
        for (stack, template) in &p.templates {
            any = true;
            out.push_str(&format!(
                "# fplint: program {}, stack {stack}: what fplint read, written as CloudFormation\n",
                f.path
            ));
            let resources = template.get("Resources").and_then(|r| r.as_map());
            for e in resources.unwrap_or(&[]) {
                let one = fplint_core::tree::Node {
                    kind: fplint_core::tree::NodeKind::Map(vec![fplint_core::tree::Entry {
                        key: e.key.clone(),
                        value: program::shown(&e.value),
                    }]),
                    span: e.value.span,
                    tag: None,
                };
                let value = fplint_core::value::Value::from_node(&one);
                let mut doc = chart::object_document(&value, false, &loaded.sources);
                if let Some(src) = loaded.sources.get(e.value.span.file) {
                    let line = src.line_col(e.value.span.start as usize).line;
                    doc.source = format!("{}:{line}", src.path);
                }
                print_documents(out, std::slice::from_ref(&doc));
            }
        }
    }
    any
}

/// A release of a remote chart is not rendered: what the chart knowledge
/// says it deploys, or why that is unknown.
fn remote_note(out: &mut String, rel: &HelmRelease, name: &str, ns: &str, at: &str) {
    let chart = rel.chart.known().map_or("?", String::as_str);
    let version = rel.version.as_ref().map_or("any version".to_string(), |v| {
        format!("version {}", v.known().map_or("?", String::as_str))
    });
    out.push_str(&format!(
        "# fplint: release {name} (namespace {ns}) of remote chart {chart}, {version}, declared at {at}: not rendered\n"
    ));
    match fplint_rules::common::knowledge_note(rel) {
        Err(why) => out.push_str(&format!("# fplint: unknown: {why}\n")),
        Ok(ranges) => {
            // A version that leaves several ranges: rules report only what
            // all of them agree on, so each is shown.
            if let (Some(first), true) = (ranges.first(), ranges.len() > 1) {
                out.push_str(&format!(
                    "# fplint: its version leaves {} ranges of the chart knowledge of {} ({}): rules report only what all of them agree on\n",
                    ranges.len(),
                    first.name,
                    fplint_rules::charts::show_ranges(&ranges)
                ));
            }
            for known in ranges {
                known_range(out, rel, known, ns);
            }
        }
    }
}

/// What one range of the chart knowledge says the release deploys.
fn known_range(
    out: &mut String,
    rel: &HelmRelease,
    known: &fplint_rules::charts::KnownChart,
    ns: &str,
) {
    let pins: Vec<String> = known
        .pins
        .iter()
        .map(|p| format!("{} at {}", p.version, p.repo))
        .collect();
    out.push_str(&format!(
        "# fplint: from the chart knowledge of {} {}.{}.{} to before {}.{}.{} (rendered: {}):\n",
        known.name,
        known.from.0,
        known.from.1,
        known.from.2,
        known.until.0,
        known.until.1,
        known.until.2,
        pins.join(", ")
    ));
    let values = rel.values.known();
    for w in known.workloads {
        let rendered = values.map_or(fplint_core::model::Known::Unknown, |v| w.rendered(v));
        let state = match rendered {
            fplint_core::model::Known::Known(true) => "",
            fplint_core::model::Known::Known(false) => " (not rendered with these values)",
            fplint_core::model::Known::Unknown => " (may be rendered)",
        };
        let place = w.namespace.unwrap_or(ns);
        out.push_str(&format!(
            "# fplint:   {} {} in namespace {place}{state}\n",
            w.kind, w.name
        ));
    }
}

/// Helm's install order by kind (`pkg/release/v1/util/kind_sorter.go`,
/// helm v4.1.4); other kinds come after, by name.
const INSTALL_ORDER: [&str; 38] = [
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// The documents in the order `helm template` prints them: templates by
/// path, each file's documents in order, then stably by kind in Helm's
/// install order, hooks (`helm.sh/hook`) after everything else.
fn install_order(docs: &[chart::RenderedDocument]) -> Vec<&chart::RenderedDocument> {
    let head = |d: &chart::RenderedDocument| {
        let v = fplint_core::value::Value::parse_embedded(&d.text);
        let v = v.known();
        let kind = v
            .and_then(|v| v.get("kind"))
            .and_then(fplint_core::value::Value::as_str)
            .unwrap_or_default()
            .to_string();
        let hook = v
            .and_then(|v| v.get("metadata"))
            .and_then(|m| m.get("annotations"))
            .and_then(|a| a.get("helm.sh/hook"))
            .is_some();
        (hook, kind)
    };
    let mut keyed: Vec<_> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let (hook, kind) = head(d);
            let rank = INSTALL_ORDER.iter().position(|k| *k == kind);
            // Known kinds by rank; unknown ones after them, by name.
            let by_kind = match rank {
                Some(r) => (0, r, String::new()),
                None => (1, 0, kind),
            };
            ((hook, by_kind, d.source.clone(), i), d)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, d)| d).collect()
}

/// Documents as `helm template` prints them, with fplint's notes.
fn print_documents(out: &mut String, docs: &[chart::RenderedDocument]) {
    for d in install_order(docs) {
        out.push_str("---\n# Source: ");
        out.push_str(&d.source);
        out.push('\n');
        if let Some(note) = &d.note {
            out.push_str("# fplint: ");
            out.push_str(note);
            out.push('\n');
        }
        if !d.text.is_empty() {
            out.push_str(&d.text);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn comments_are_escaped_and_manifests_kept() {
        let text = "---\n# Source: c/templates/a\u{1b}.yaml\n# fplint: x\u{7}\nkind: \"a\u{1b}\"\n";
        assert_eq!(
            super::escape_comments(text),
            "---\n# Source: c/templates/a\\x1b.yaml\n# fplint: x\\x07\nkind: \"a\u{1b}\"\n"
        );
    }
}
