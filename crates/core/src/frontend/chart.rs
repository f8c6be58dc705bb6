//! Helm charts of the repository, rendered into the model. One entry point,
//! [`render_release`], serves every declaration of a release (Terraform's
//! `helm_release`, Argo CD, Flux, helmfile) and a chart no release uses,
//! rendered with its defaults for any release. The template engine
//! (`fplint-helm`) knows nothing of Kubernetes: here its output is read as
//! manifests are, each value's span mapped back to the template bytes that
//! produced it: the literal text byte for byte, or the whole action.

use super::shared::objects;
use super::{load_declaration, UnitOutput};
use crate::diagnostic::Diagnostic;
use crate::model::{Known, Loc, Located};
use crate::source::{FileId, SourceFile, Span};
use crate::sources::Sources;
use crate::tree::{self, Limits};
use crate::value::{Value, ValueKind};
use crate::workload::{Variant, VariantKind};
use fplint_helm as helm;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A release of a chart of the repository: what goes into a render.
#[derive(Clone, Debug)]
pub struct ChartRelease {
    /// The chart's folder (it holds `Chart.yaml`).
    pub dir: PathBuf,
    /// The release name; unknown for a chart rendered for any release.
    pub name: Known<String>,
    /// The namespace it installs into; unknown for any release.
    pub namespace: Known<String>,
    /// The release's values, merged in Helm's order, with spans; unknown
    /// makes all of `.Values` unknown.
    pub values: Known<Value>,
    /// Values files given by path and text, merged after `values`
    /// (`fplint render -f`).
    pub values_files: Vec<(String, String)>,
    /// `--set` expressions, merged after the values files.
    pub set: Vec<String>,
    /// `--set-string` expressions (values stay strings), merged last.
    pub set_string: Vec<String>,
    /// `--kube-version`; Helm's default when `None`.
    pub kube_version: Option<String>,
    /// The release's name for findings and placement, and where it is
    /// declared; `None` for a chart rendered with its defaults.
    pub declared: Option<(String, Loc)>,
    /// Where the declaration gives the namespace.
    pub namespace_loc: Option<Loc>,
    /// A post-renderer changes what is rendered: the pods are unknown.
    pub post_rendered: bool,
    /// Who installs the release, and its node in the deployment's graph:
    /// the dependencies of an umbrella chart that are not vendored are
    /// releases installed with it, so ordered as it is.
    pub applied_by: crate::model::AppliedBy,
    pub resource: Option<crate::model::ResourceRef>,
}

impl ChartRelease {
    /// What a declared release of a local chart renders with: its name,
    /// namespace and values; `None` when its chart is no local folder.
    pub fn of(rel: &crate::model::HelmRelease) -> Option<ChartRelease> {
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
            namespace_loc: Some(rel.namespace.loc.clone()),
            post_rendered: rel.post_rendered,
            applied_by: rel.applied_by,
            resource: rel.resource,
            ..ChartRelease::new(dir)
        })
    }

    /// A release of the chart in `dir` with nothing known but the chart:
    /// name, namespace and values unknown until set.
    pub fn new(dir: impl Into<PathBuf>) -> ChartRelease {
        ChartRelease {
            dir: dir.into(),
            name: Known::Unknown,
            namespace: Known::Unknown,
            values: Known::Known(Value::new(ValueKind::Map(Vec::new()), None)),
            values_files: Vec::new(),
            set: Vec::new(),
            set_string: Vec::new(),
            kube_version: None,
            declared: None,
            namespace_loc: None,
            post_rendered: false,
            applied_by: crate::model::AppliedBy::Controller,
            resource: None,
        }
    }
}

/// One manifest of a render, as `helm template` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedDocument {
    /// `CHART/templates/FILE`.
    pub source: String,
    /// The YAML, with unknown values as [`helm::UNKNOWN_MARKER`]; empty
    /// when it could not be rendered.
    pub text: String,
    /// Why it is not what the cluster gets: parts unknown, or not rendered.
    pub note: Option<String>,
}

/// What a render gives the model, and what `fplint render` prints.
#[derive(Debug, Default)]
pub struct RenderedChart {
    /// The chart's name (`Chart.yaml`), when it could be read.
    pub chart: Option<String>,
    /// Workloads, aws-auth maps, Karpenter objects, and FP000 findings for
    /// templates that do not parse or hit a limit.
    pub unit: UnitOutput,
    /// Every manifest, in Helm's order.
    pub documents: Vec<RenderedDocument>,
}

/// Whether `dir` is a chart: it holds `Chart.yaml`.
pub fn is_chart(dir: &Path) -> bool {
    dir.join("Chart.yaml").is_file()
}

/// Whether `dir` is a subchart of the chart above it (`PARENT/charts/DIR`):
/// rendered with its parent, never alone.
pub fn is_subchart(dir: &Path) -> bool {
    let parent = dir.parent();
    parent
        .and_then(Path::file_name)
        .is_some_and(|n| n == "charts")
        && parent.and_then(Path::parent).is_some_and(is_chart)
}

/// Render a release of a chart of the repository and read its manifests
/// into the model. Workloads without a namespace get the release's; every
/// workload carries the release as its variant.
pub fn render_release(rel: &ChartRelease, sources: &Sources, limits: Limits) -> RenderedChart {
    let mut out = RenderedChart::default();
    let chart_yaml = rel.dir.join("Chart.yaml");
    let chart_at = sources
        .load(&chart_yaml)
        .ok()
        .map(|f| Span::new(f.id, 0, 0))
        .unwrap_or_default();
    let at = rel.declared.as_ref().map_or(chart_at, |(_, loc)| loc.span);
    let hl = limits.helm;
    let chart = match helm::Chart::load_dir(&rel.dir, &hl) {
        Ok(c) => c,
        Err(e) => {
            // A YAML file of the chart's own folder is pointed into; an
            // archive or a file not read is the chart as a whole.
            let file = (!e.path.is_empty() && !e.path.contains(": ") && e.offset.is_some())
                .then(|| sources.load(&rel.dir.join(&e.path)).ok())
                .flatten();
            let mut d = match (file, e.offset) {
                (Some(f), Some(off)) if off <= f.text.len() => Diagnostic::parse_error(
                    format!("chart cannot be read: {}", e.message),
                    Span::new(f.id, off, off),
                ),
                _ => Diagnostic::parse_error(format!("chart cannot be read: {e}"), at)
                    .with_label("this chart"),
            };
            if let Some(name) = e.limit {
                d = d.with_help(limit_help("read", name));
            }
            out.unit.diagnostics.push(d);
            out.documents.push(RenderedDocument {
                source: crate::sources::display_path(&chart_yaml),
                text: String::new(),
                note: Some(format!("not rendered: {e}")),
            });
            return out;
        }
    };
    out.chart = Some(chart.name.clone());
    let mut values = Vec::new();
    match &rel.values {
        Known::Known(v) => values.push(helm::ValuesLayer::Value(to_helm(v, 0))),
        Known::Unknown => values.push(helm::ValuesLayer::Unknown),
    }
    for (file, text) in &rel.values_files {
        values.push(helm::ValuesLayer::Yaml {
            file: file.clone(),
            text: text.clone(),
        });
    }
    let release = helm::Release {
        name: rel.name.known().cloned(),
        namespace: rel.namespace.known().cloned(),
        values,
        set: rel
            .set
            .iter()
            .map(|s| (s, false))
            .chain(rel.set_string.iter().map(|s| (s, true)))
            .map(|(s, string)| helm::SetValue {
                expr: s.clone(),
                string,
            })
            .collect(),
        kube_version: rel.kube_version.clone(),
        ..helm::Release::default()
    };
    let rendered = helm::render(&chart, &release, &hl);
    let mut templates = Templates {
        dir: &rel.dir,
        sources,
        files: HashMap::new(),
    };
    let origins = value_origins(&rendered, &chart, rel, &release, &mut templates, &hl);
    let variant = Some(Box::new(match &rel.declared {
        Some((name, loc)) => Variant {
            name: name.clone(),
            loc: loc.clone(),
            kind: VariantKind::Release {
                chart: chart.name.clone(),
            },
            origins: origins.clone(),
        },
        None => Variant {
            name: chart.name.clone(),
            loc: Loc::new(chart_at, "Chart.yaml"),
            kind: VariantKind::ChartDefaults {
                chart: chart.name.clone(),
            },
            origins,
        },
    }));
    // Documents helm would refuse as YAML: only one that fplint's own read
    // refuses, or finds keys twice in, or finds deeper or larger than the
    // engine's bounds, is read again the engine's way (reading every
    // document twice was most of a large chart's time).
    let mut yaml_errors = Vec::new();
    let mut reads = Vec::new();
    for (i, m) in rendered.manifests.iter().enumerate() {
        for range in helm::document_ranges(&m.text) {
            let parsed = tree::yaml::parse(&m.text[range.clone()], FileId(u32::MAX), limits);
            let suspect = parsed.error.is_some()
                || !parsed.duplicates.is_empty()
                || parsed
                    .documents
                    .iter()
                    // Half the bounds: the two readers count a little apart.
                    .any(|d| {
                        beyond(
                            d,
                            1,
                            hl.max_values_depth / 2,
                            &mut 0,
                            hl.max_values_nodes / 2,
                        )
                    });
            if suspect {
                yaml_errors.extend(helm::yaml_error(m, range.clone(), &hl));
            }
            reads.push((i, range, parsed));
        }
    }
    for e in rendered.errors.iter().chain(yaml_errors.iter()) {
        let line = templates
            .file(&e.template)
            .filter(|f| e.span.start <= f.text.len())
            .map(|f| format!(" (line {})", f.line_col(e.span.start).line))
            .unwrap_or_default();
        out.documents.push(RenderedDocument {
            source: e.template.clone(),
            text: String::new(),
            note: Some(format!("not rendered{line}: {}", e.message)),
        });
        // A chart that does not parse or runs away is the repository's
        // error; a value a release must give (`required`, `fail`) is not,
        // for a chart rendered with its defaults.
        let limit = match e.kind {
            helm::RenderErrorKind::Parse => None,
            helm::RenderErrorKind::Limit(name) => Some(name),
            _ => continue,
        };
        let span = templates
            .file(&e.template)
            .map_or(at, |f| span_in(&f, e.span.clone(), at));
        let mut d = Diagnostic::parse_error(e.message.clone(), span);
        if let Some(name) = limit {
            d = d.with_help(limit_help("render", name));
        }
        out.unit.diagnostics.push(d);
    }
    let mut reads = reads.into_iter().peekable();
    for (i, m) in rendered.manifests.iter().enumerate() {
        let literal = std::cell::RefCell::new(HashMap::new());
        while let Some((range, parsed)) = reads.next_if(|(j, ..)| *j == i).map(|(_, r, p)| (r, p)) {
            let text = &m.text[range.clone()];
            let unknown: Vec<Range<usize>> = m
                .unknown
                .iter()
                .filter(|u| u.start <= range.end && range.start <= u.end)
                .map(|u| u.start.saturating_sub(range.start)..u.end.min(range.end) - range.start)
                .collect();
            let has_marker = text.contains(helm::UNKNOWN_MARKER);
            let mut doc = RenderedDocument {
                source: m.path.clone(),
                text: text.to_string(),
                note: (!unknown.is_empty() || has_marker).then(|| {
                    "parts are unknown (marked `__FPLINT_UNKNOWN__`, or under a condition fplint cannot decide)".to_string()
                }),
            };
            let Some(node) = parsed.documents.first().filter(|_| parsed.error.is_none()) else {
                // Only comments (a template switched off) is valid YAML holding nothing.
                if parsed.error.is_some() {
                    doc.note = Some("not read: not valid YAML".into());
                }
                out.documents.push(doc);
                continue;
            };
            out.documents.push(doc);
            // Objects the model reads nothing of are not turned into values:
            // a chart's CRDs and RBAC are most of what some charts render.
            // Unknown parts change nothing: an object they touch is read as
            // unknown, which reads nothing either.
            if model_reads_nothing(node) {
                continue;
            }
            let mut value = Value::from_node(node);
            mark_unknown(&mut value, &unknown, 0);
            let mapper = Mapper {
                m,
                base: range.start,
                fallback: at,
                literal: &literal,
            };
            each_span(&mut value, &mut |s| {
                *s = s.map(|s| mapper.map(s.start as usize..s.end as usize, &mut templates));
            });
            // An Argo CD or Flux declaration the chart renders ("app of
            // apps"): read as the file would be, from the template's place.
            if let Some(file) = templates.file(&m.path) {
                if load_declaration(&file, &value, &mut out.unit) {
                    continue;
                }
            }
            let unsure = unsure_pod(&mut value);
            let before = out.unit.workloads.len();
            objects::load_object(&value, "", &mut out.unit);
            for w in &mut out.unit.workloads[before..] {
                if let Some(whole) = unsure {
                    unknown_pod(&mut w.pod, whole);
                }
                if rel.post_rendered {
                    unknown_pod(&mut w.pod, true);
                }
                if w.namespace.value == Known::Unknown && !has_namespace(&value) {
                    w.namespace = Located::new(rel.namespace.clone(), w.namespace.loc.clone());
                }
                w.variant = variant.clone();
            }
        }
    }
    dependency_releases(&chart, &rendered, rel, sources, chart_at, &mut out);
    out
}

/// Dependencies of an umbrella chart that are not vendored in `charts/`
/// (a remote chart such as `keda`): each enabled one is a release of that
/// chart, in the release's namespace, with the values under its key (or
/// alias) and `global`, so that chart knowledge can judge it. A condition
/// or tag fplint cannot decide leaves it out.
fn dependency_releases(
    chart: &helm::Chart,
    rendered: &helm::Rendered,
    rel: &ChartRelease,
    sources: &Sources,
    chart_at: Span,
    out: &mut RenderedChart,
) {
    let chart_file = sources.load(&rel.dir.join("Chart.yaml")).ok();
    for dep in &chart.dependencies {
        if !rendered.missing_dependencies.contains(&dep.name) || !dep.tags.is_empty() {
            continue;
        }
        let key = dep.alias.as_deref().unwrap_or(&dep.name);
        let lookup = |path: &str| {
            let mut at = rendered.values.clone();
            for k in path.split('.') {
                let next = match &at {
                    helm::Value::Map(m) => m.borrow().get(k).cloned(),
                    helm::Value::Unknown => return Some(helm::Value::Unknown),
                    _ => None,
                };
                at = next?;
            }
            Some(at)
        };
        // Helm: the first condition path that is a boolean decides.
        let mut enabled = Some(true);
        for c in dep.condition.iter().flat_map(|c| c.split(',')) {
            match lookup(c.trim()) {
                Some(helm::Value::Bool(b)) => {
                    enabled = Some(b);
                    break;
                }
                Some(helm::Value::Unknown) => {
                    enabled = None;
                    break;
                }
                _ => {}
            }
        }
        if enabled != Some(true) {
            continue;
        }
        let mut values = match lookup(key) {
            Some(v @ helm::Value::Map(_)) => from_helm(&v, 0),
            None | Some(helm::Value::Nil) => Value::new(ValueKind::Map(Vec::new()), None),
            Some(_) => Value::unknown(None),
        };
        if let (ValueKind::Map(entries), Some(g)) = (&mut values.kind, lookup("global")) {
            entries.retain(|(k, _)| k.name != "global");
            entries.push((
                crate::value::MapKey {
                    name: "global".into(),
                    span: None,
                },
                from_helm(&g, 0),
            ));
        }
        // The dependency's entry in Chart.yaml, else the chart.
        let at = chart_file
            .as_ref()
            .and_then(|f| {
                let deps = f.text.find("dependencies:")?;
                let needle = format!("name: {}", dep.name);
                let i = f.text[deps..].find(&needle)? + deps;
                Some(Span::new(f.id, i, i + needle.len()))
            })
            .unwrap_or(chart_at);
        let path = format!("Chart.yaml.dependencies.{}", dep.name);
        let loc = Loc::new(at, path.clone());
        let mut r = crate::model::HelmRelease::new(
            Located::new(Known::Known(dep.name.clone()), loc.clone()),
            loc.clone(),
            rel.applied_by,
        );
        r.resource = rel.resource;
        r.name = Located::new(
            match (&rel.name, &rel.declared) {
                (Known::Known(n), _) => Known::Known(format!("{n}/{key}")),
                (_, Some((n, _))) => Known::Known(format!("{n}/{key}")),
                _ => Known::Unknown,
            },
            loc.clone(),
        );
        r.namespace = Located::new(
            rel.namespace.clone(),
            rel.declared
                .as_ref()
                .map_or(loc.clone(), |(_, l)| l.clone()),
        );
        r.version = (!dep.version.is_empty())
            .then(|| Located::new(Known::Known(dep.version.clone()), loc.clone()));
        r.repository = (!dep.repository.is_empty())
            .then(|| Located::new(Known::Known(dep.repository.clone()), loc.clone()));
        r.post_rendered = rel.post_rendered;
        r.values = match rel.values {
            Known::Known(_) => Known::Known(values),
            Known::Unknown => Known::Unknown,
        };
        out.documents.push(RenderedDocument {
            source: format!("{}/charts/{}", chart.name, dep.name),
            text: String::new(),
            note: Some(format!(
                "not rendered: dependency `{}` {} is not in charts/; fplint judges it from its chart knowledge",
                dep.name, dep.version
            )),
        });
        out.unit.releases.push(r);
    }
}

/// Values the template engine merged, back in the model's terms (without
/// spans: they are merged from several files).
fn from_helm(v: &helm::Value, depth: usize) -> Value {
    let kind = if depth > 256 {
        ValueKind::Unknown
    } else {
        match v {
            helm::Value::Nil => ValueKind::Null,
            helm::Value::Bool(b) => ValueKind::Bool(*b),
            helm::Value::Int(i) => ValueKind::Number(i.to_string()),
            helm::Value::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => {
                ValueKind::Number(format!("{}", *f as i64))
            }
            helm::Value::Float(f) => ValueKind::Number(f.to_string()),
            helm::Value::Str(s) => ValueKind::String(s.to_string()),
            helm::Value::List(items) => {
                ValueKind::List(items.iter().map(|x| from_helm(x, depth + 1)).collect())
            }
            helm::Value::Map(m) => ValueKind::Map(
                m.borrow()
                    .iter()
                    .map(|(k, x)| {
                        (
                            crate::value::MapKey {
                                name: k.clone(),
                                span: None,
                            },
                            from_helm(x, depth + 1),
                        )
                    })
                    .collect(),
            ),
            helm::Value::Unknown | helm::Value::Object(_) => ValueKind::Unknown,
        }
    };
    Value::new(kind, None)
}

/// An object of a build as a document: YAML as `helm template` writes it,
/// headed by the file it came from; unknown values as the marker.
pub fn object_document(obj: &Value, opaque: bool, sources: &Sources) -> RenderedDocument {
    let source = obj
        .span
        .and_then(|s| sources.peek(s.file))
        .map_or_else(|| "?".to_string(), |f| f.path.clone());
    match helm::to_yaml(&to_helm(obj, 0)) {
        Ok(text) => RenderedDocument {
            source,
            text: text.trim_end().to_string(),
            note: opaque.then(|| {
                "a transformer fplint does not model may change it: its namespace, labels and pod spec are unknown".to_string()
            }),
        },
        Err(e) => RenderedDocument {
            source,
            text: String::new(),
            note: Some(format!("not printed: {e}")),
        },
    }
}

/// A workload whose pod template (`whole`) or pod spec is unknown (an
/// unknown condition around some of its keys) is still a workload: its spec
/// is given a stand-in to be read, and [`unknown_pod`] makes it unknown.
fn unsure_pod(obj: &mut Value) -> Option<bool> {
    let kind = obj.get("kind").and_then(Value::as_str)?;
    let wk = crate::workload::WorkloadKind::from_kind(kind)?;
    let path: &[&str] = match wk {
        crate::workload::WorkloadKind::Pod => &[],
        crate::workload::WorkloadKind::CronJob => &["spec", "jobTemplate", "spec", "template"],
        _ => &["spec", "template"],
    };
    let mut at = obj;
    for key in path {
        at = entry(at, key)?;
    }
    let whole = at.is_unknown();
    if whole {
        *at = Value::new(ValueKind::Map(Vec::new()), at.span);
    }
    let spec = entry(at, "spec");
    let spec = match spec {
        Some(s) if s.is_unknown() => s,
        Some(_) if !whole => return None,
        _ if whole => {
            let span = at.span;
            if let ValueKind::Map(entries) = &mut at.kind {
                entries.push((
                    crate::value::MapKey {
                        name: "spec".into(),
                        span,
                    },
                    Value::unknown(span),
                ));
            }
            entry(at, "spec")?
        }
        _ => return None,
    };
    let span = spec.span;
    *spec = Value::new(
        ValueKind::Map(vec![(
            crate::value::MapKey {
                name: "containers".into(),
                span,
            },
            Value::unknown(span),
        )]),
        span,
    );
    Some(whole)
}

fn entry<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    match &mut v.kind {
        ValueKind::Map(entries) => entries
            .iter_mut()
            .rev()
            .find(|(k, _)| k.name == key)
            .map(|(_, x)| x),
        _ => None,
    }
}

/// What an unknown pod spec leaves unknown (its labels too when the whole
/// template is).
fn unknown_pod(p: &mut crate::workload::PodTemplate, whole: bool) {
    p.make_unknown(whole);
}

/// The template actions that print one value of `.Values` (`{{
/// .Values.hostNetwork }}`, `{{ toYaml .Values.resources | nindent 12 }}`),
/// each with where the release or the chart sets that value.
fn value_origins(
    rendered: &helm::Rendered,
    chart: &helm::Chart,
    rel: &ChartRelease,
    release: &helm::Release,
    templates: &mut Templates<'_>,
    limits: &helm::Limits,
) -> Vec<(Span, Span)> {
    let mut out: Vec<(Span, Span)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for m in &rendered.manifests {
        for e in &m.spans {
            if !seen.insert((e.template.clone(), e.source.clone())) {
                continue;
            }
            let Some(f) = templates.file(&e.template) else {
                continue;
            };
            let Some(action) = f.text.get(e.source.clone()) else {
                continue;
            };
            if !action.starts_with("{{") {
                continue;
            }
            let Some(path) = values_path(action) else {
                continue;
            };
            let at = span_in(&f, e.source.clone(), Span::default());
            if let Some(origin) = origin_of(&path, chart, rel, release, templates, limits) {
                out.push((at, origin));
            }
        }
    }
    out
}

/// The one `.Values.a.b` an action reads, when it reads one.
fn values_path(action: &str) -> Option<String> {
    let mut found = action.match_indices(".Values.").map(|(i, _)| {
        let rest = &action[i + ".Values.".len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        rest[..end].trim_end_matches('.').to_string()
    });
    let first = found.next().filter(|p| !p.is_empty())?;
    found.all(|p| p == first).then_some(first)
}

/// Where the value at `path` is set: the release's values (with their own
/// spans), else Helm's layers (`-f` files are not in the model), else the
/// chart's `values.yaml`.
fn origin_of(
    path: &str,
    chart: &helm::Chart,
    rel: &ChartRelease,
    release: &helm::Release,
    templates: &mut Templates<'_>,
    limits: &helm::Limits,
) -> Option<Span> {
    // Unknown release values may set anything.
    let Known::Known(v) = &rel.values else {
        return None;
    };
    {
        let mut at = v;
        let mut key = None;
        let mut ok = true;
        for part in path.split('.') {
            match &at.kind {
                ValueKind::Map(entries) => match entries.iter().rev().find(|(k, _)| k.name == part)
                {
                    Some((k, x)) => {
                        key = k.span;
                        at = x;
                    }
                    None => {
                        ok = false;
                        break;
                    }
                },
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            if let Some(s) = key.or(at.span) {
                return Some(s);
            }
        }
    }
    match helm::value_origin(chart, release, path, limits)? {
        helm::ValueOrigin::File { file, range }
            if file.ends_with("values.yaml") && !file.contains('/') =>
        {
            let f = templates.file(&format!("{}/{file}", chart.name))?;
            Some(span_in(&f, range, Span::default())).filter(|s| *s != Span::default())
        }
        _ => None,
    }
}

/// Whether an object writes `metadata.namespace` (known or not).
fn has_namespace(obj: &Value) -> bool {
    obj.get("metadata")
        .is_some_and(|m| m.get("namespace").is_some() || m.is_unknown())
}

/// The template files of one chart, read once each.
struct Templates<'a> {
    dir: &'a Path,
    sources: &'a Sources,
    files: HashMap<String, Option<Arc<SourceFile>>>,
}

impl Templates<'_> {
    /// `CHART/templates/x.yaml`, `CHART/charts/SUB/templates/_helpers.tpl`:
    /// the file under the chart's folder, when it is there (a subchart in an
    /// archive has none).
    fn file(&mut self, template: &str) -> Option<Arc<SourceFile>> {
        if let Some(f) = self.files.get(template) {
            return f.clone();
        }
        let f = template
            .split_once('/')
            .map(|(_, rest)| self.dir.join(rest))
            .filter(|p| p.is_file())
            .and_then(|p| self.sources.load(&p).ok());
        self.files.insert(template.to_string(), f.clone());
        f
    }
}

/// Kinds of object that no frontend reads anything of (no pods, no
/// `aws-auth`, no Karpenter or declaration), as `load_object` and
/// `load_declaration` show.
const UNREAD_KINDS: &[&str] = &[
    "APIService",
    "Certificate",
    "ClusterIssuer",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "HorizontalPodAutoscaler",
    "Ingress",
    "IngressClass",
    "Issuer",
    "MutatingWebhookConfiguration",
    "NetworkPolicy",
    "PersistentVolumeClaim",
    "PodDisruptionBudget",
    "PodMonitor",
    "PriorityClass",
    "PrometheusRule",
    "Role",
    "RoleBinding",
    "Secret",
    "Service",
    "ServiceAccount",
    "ServiceMonitor",
    "StorageClass",
    "ValidatingWebhookConfiguration",
];

/// A rendered object of one of [`UNREAD_KINDS`], not of Karpenter's groups.
fn model_reads_nothing(node: &tree::Node) -> bool {
    let tree::NodeKind::Map(entries) = &node.kind else {
        return false;
    };
    let field = |k: &str| {
        entries
            .iter()
            .find(|e| e.key.scalar() == Some(k))
            .and_then(|e| e.value.scalar())
    };
    let karpenter = field("apiVersion").is_some_and(|a| a.starts_with("karpenter."));
    !karpenter && field("kind").is_some_and(|k| UNREAD_KINDS.contains(&k))
}

/// Whether a document nests deeper than `depth_max` or holds more than
/// `nodes_max` nodes, the bounds of the engine's own YAML reader.
fn beyond(
    n: &tree::Node,
    depth: usize,
    depth_max: usize,
    nodes: &mut usize,
    nodes_max: usize,
) -> bool {
    *nodes += 1;
    if depth > depth_max || *nodes > nodes_max {
        return true;
    }
    match &n.kind {
        tree::NodeKind::Seq(items) => items
            .iter()
            .any(|i| beyond(i, depth + 1, depth_max, nodes, nodes_max)),
        tree::NodeKind::Map(entries) => entries.iter().any(|e| {
            beyond(&e.key, depth + 1, depth_max, nodes, nodes_max)
                || beyond(&e.value, depth + 1, depth_max, nodes, nodes_max)
        }),
        _ => false,
    }
}

/// The help for a chart that ran into a limit: the engine's
/// `max-include-depth` is `[limits] helm-include-depth`.
fn limit_help(what: &str, name: &str) -> String {
    let key = name.strip_prefix("max-").unwrap_or(name);
    format!("the {what} stopped at `[limits] helm-{key}`")
}

fn span_in(f: &SourceFile, r: Range<usize>, fallback: Span) -> Span {
    if r.end > f.text.len() || r.start > r.end {
        return fallback;
    }
    Span::new(f.id, r.start, r.end)
}

/// Maps a range of one rendered document to template bytes.
struct Mapper<'a> {
    m: &'a helm::RenderedFile,
    /// Where the document starts in the rendered file.
    base: usize,
    fallback: Span,
    /// Whether a span entry (by its output range) copies template text byte
    /// for byte: asked once per entry, not once per YAML node inside it (a
    /// large literal chunk holds thousands of nodes).
    literal: &'a std::cell::RefCell<HashMap<(usize, usize), bool>>,
}

impl Mapper<'_> {
    fn map(&self, r: Range<usize>, t: &mut Templates<'_>) -> Span {
        let (a, b) = (self.base + r.start, self.base + r.end);
        let Some(first) = self.m.source_of(a) else {
            return self.fallback;
        };
        let Some(f) = t.file(&first.template) else {
            return self.fallback;
        };
        let literal = |e: &helm::SpanEntry| {
            *self
                .literal
                .borrow_mut()
                .entry((e.output.start, e.output.end))
                .or_insert_with(|| {
                    f.text.get(e.source.clone()) == self.m.text.get(e.output.clone())
                })
        };
        let start = if literal(first) {
            first.source.start + (a - first.output.start)
        } else {
            first.source.start
        };
        let end = match self.m.source_of(b.saturating_sub(1).max(a)) {
            Some(last)
                if last.template == first.template && last.output.start >= first.output.start =>
            {
                if literal(last) {
                    last.source.start + (b.max(last.output.start + 1) - 1 - last.output.start) + 1
                } else {
                    last.source.end
                }
            }
            _ if literal(first) => {
                first.source.start + (b.min(first.output.end) - first.output.start)
            }
            _ => first.source.end,
        };
        let end = if end < start {
            first.source.end.max(start)
        } else {
            end
        };
        span_in(&f, start..end, self.fallback)
    }
}

fn each_span(v: &mut Value, f: &mut impl FnMut(&mut Option<Span>)) {
    f(&mut v.span);
    match &mut v.kind {
        ValueKind::List(items) => items.iter_mut().for_each(|x| each_span(x, f)),
        ValueKind::Map(entries) => entries.iter_mut().for_each(|(k, x)| {
            f(&mut k.span);
            each_span(x, f);
        }),
        _ => {}
    }
}

fn range_of(s: Option<Span>) -> Option<Range<usize>> {
    s.map(|s| s.start as usize..s.end as usize)
}

/// Whether an unknown region touches a node's bytes (an empty region at
/// a node's edge touches it: what it leaves out might have been there).
fn touches(region: &Range<usize>, node: &Range<usize>) -> bool {
    region.start <= node.end && node.start <= region.end
}

/// Make unknown what the render could not know: scalars holding the
/// marker, collections with a key holding it, and whatever an unknown
/// region of the output (an `if` on an unknown value) touches. A region
/// inside one value makes that value unknown; a region over a key or
/// between entries makes the collection unknown, since entries may be
/// missing or extra.
fn mark_unknown(v: &mut Value, regions: &[Range<usize>], depth: usize) {
    if depth > 256 {
        v.kind = ValueKind::Unknown;
        return;
    }
    let Some(own) = range_of(v.span) else { return };
    let here: Vec<Range<usize>> = regions
        .iter()
        .filter(|r| touches(r, &own))
        .cloned()
        .collect();
    match &mut v.kind {
        ValueKind::String(s) if s.contains(helm::UNKNOWN_MARKER) => v.kind = ValueKind::Unknown,
        ValueKind::Map(entries) => {
            if entries
                .iter()
                .any(|(k, _)| k.name.contains(helm::UNKNOWN_MARKER))
            {
                v.kind = ValueKind::Unknown;
                return;
            }
            for r in &here {
                let keys = entries
                    .iter()
                    .filter(|(k, _)| range_of(k.span).is_some_and(|ks| touches(r, &ks)))
                    .count();
                let values = entries
                    .iter()
                    .filter(|(_, x)| range_of(x.span).is_some_and(|xs| touches(r, &xs)))
                    .count();
                if keys > 0 || values != 1 {
                    v.kind = ValueKind::Unknown;
                    return;
                }
            }
            for (_, x) in entries.iter_mut() {
                mark_unknown(x, &here, depth + 1);
            }
        }
        ValueKind::List(items) => {
            for r in &here {
                let hit = items
                    .iter()
                    .filter(|x| range_of(x.span).is_some_and(|xs| touches(r, &xs)))
                    .count();
                if hit != 1 {
                    v.kind = ValueKind::Unknown;
                    return;
                }
            }
            for x in items.iter_mut() {
                mark_unknown(x, &here, depth + 1);
            }
        }
        _ if !here.is_empty() => v.kind = ValueKind::Unknown,
        _ => {}
    }
}

/// The model's values as the template engine takes them: numbers as Go's
/// float64, as Helm reads YAML values.
pub fn to_helm(v: &Value, depth: usize) -> helm::Value {
    if depth > 256 {
        return helm::Value::Unknown;
    }
    match &v.kind {
        ValueKind::Unknown => helm::Value::Unknown,
        ValueKind::Null => helm::Value::Nil,
        ValueKind::Bool(b) => helm::Value::Bool(*b),
        ValueKind::Number(n) => match n.parse::<f64>() {
            Ok(f) => helm::Value::Float(f),
            Err(_) => helm::Value::str(n.as_str()),
        },
        ValueKind::String(s) => helm::Value::str(s.as_str()),
        ValueKind::List(items) => {
            helm::Value::list(items.iter().map(|x| to_helm(x, depth + 1)).collect())
        }
        ValueKind::Map(entries) => helm::Value::map(
            entries
                .iter()
                .map(|(k, x)| (k.name.clone(), to_helm(x, depth + 1)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOY: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  template:
    spec:
{{- if .Values.host }}
      hostNetwork: true
{{- end }}
      nodeSelector:
        {{- toYaml .Values.nodeSelector | nindent 8 }}
      containers:
        - name: web
          image: nginx
";

    fn chart(values: &str) -> tempfile::TempDir {
        let d = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let w = |p: &str, t: &str| {
            let p = d.path().join(p);
            let _ = std::fs::create_dir_all(p.parent().unwrap_or(d.path()));
            if let Err(e) = std::fs::write(&p, t) {
                panic!("{e}");
            }
        };
        w("Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n");
        w("values.yaml", values);
        w("templates/deploy.yaml", DEPLOY);
        d
    }

    fn render(dir: &Path, rel: ChartRelease) -> (RenderedChart, Sources) {
        let sources = Sources::new(Vec::new());
        let rel = ChartRelease {
            dir: dir.to_path_buf(),
            ..rel
        };
        (render_release(&rel, &sources, Limits::default()), sources)
    }

    fn text(sources: &Sources, s: Span) -> String {
        sources
            .get(s.file)
            .map(|f| f.slice(s).to_string())
            .unwrap_or_default()
    }

    #[test]
    fn spans_point_at_template_bytes_literal_or_action() {
        let d = chart("host: true\nnodeSelector:\n  disk: ssd\n");
        let mut rel = ChartRelease::new(d.path());
        rel.name = Known::Known("shop".into());
        rel.namespace = Known::Known("apps".into());
        let (r, sources) = render(d.path(), rel);
        let [w] = r.unit.workloads.as_slice() else {
            panic!("{:?}", r.unit.workloads);
        };
        assert_eq!(w.name.known().map(String::as_str), Some("shop-web"));
        // Written by two actions and a literal: from the first action on.
        assert_eq!(text(&sources, w.name.loc.span), "{{ .Release.Name }}-web");
        // No `metadata.namespace`: the release's.
        assert_eq!(w.namespace.known().map(String::as_str), Some("apps"));
        let host = w
            .pod
            .host_network
            .as_ref()
            .map(|h| (h.known().copied(), h.loc.span));
        let Some((Some(true), at)) = host else {
            panic!("{host:?}");
        };
        // A literal maps byte for byte.
        assert_eq!(text(&sources, at), "true");
        assert_eq!(
            sources
                .get(at.file)
                .map(|f| f.line_col(at.start as usize).line),
            Some(9)
        );
        let labels = format!("{:?}", w.pod.node_selector);
        assert!(labels.contains("ssd"), "{labels}");
    }

    #[test]
    fn an_unknown_condition_makes_what_it_touches_unknown() {
        let d = chart("nodeSelector: {}\n");
        let mut rel = ChartRelease::new(d.path());
        rel.values = Known::Unknown;
        let (r, _) = render(d.path(), rel);
        let [w] = r.unit.workloads.as_slice() else {
            panic!("{:?}", r.unit.workloads);
        };
        assert_eq!(w.name.value, Known::Unknown);
        assert_eq!(w.namespace.value, Known::Unknown);
        // `if .Values.host` on unknown values: the pod spec's keys are not known.
        assert!(
            w.pod
                .host_network
                .as_ref()
                .is_none_or(|h| h.known().is_none()),
            "{:?}",
            w.pod.host_network
        );
        assert!(
            r.documents.iter().all(|d| d.note.is_some()),
            "{:?}",
            r.documents
        );
    }

    #[test]
    fn a_chart_that_cannot_be_read_is_an_error_not_a_crash() {
        let d = chart("a: [\n");
        let (r, _) = render(d.path(), ChartRelease::new(d.path()));
        assert!(r.unit.workloads.is_empty());
        assert!(!r.documents.is_empty());
    }
}
