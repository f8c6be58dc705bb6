//! Helm chart rendering without helm: Go `text/template`, Sprig and Helm's
//! built-ins, shaped like Helm's `pkg/engine`.
//!
//! Every output byte maps back to the template bytes that produced it, and a
//! value that cannot be known renders as [`UNKNOWN_MARKER`]: the crate knows
//! nothing of Kubernetes objects, only text, values and spans.
//!
//! ```
//! use fplint_helm::{render, Chart, ChartFile, Limits, Release};
//! let limits = Limits::default();
//! let files = vec![
//!     ChartFile { path: "Chart.yaml".into(), data: b"name: app\nversion: 1.0.0\n".to_vec() },
//!     ChartFile { path: "values.yaml".into(), data: b"replicas: 2\n".to_vec() },
//!     ChartFile { path: "templates/d.yaml".into(), data: b"replicas: {{ .Values.replicas }}\nname: {{ .Release.Name }}\n".to_vec() },
//! ];
//! let chart = Chart::from_files(files, &limits, 0).unwrap();
//! let out = render(&chart, &Release::default(), &limits);
//! assert_eq!(out.manifests[0].text, "replicas: 2\nname: __FPLINT_UNKNOWN__\n");
//! ```

mod archive;
mod chart;
pub mod digest;
mod exec;
mod funcs;
mod parse;
mod schema;
mod strvals;
mod value;

use std::ops::Range;
use std::rc::Rc;

pub use chart::{Chart, ChartError, ChartFile, Dependency, ImportValue};
pub use value::{parse_yaml, to_json, to_yaml, Map, Value, ValueSpan, YamlError, UNKNOWN_MARKER};

/// Bounds on a render. Exceeding one is an error naming it, never a crash
/// or a hang.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `include`/`template`/`tpl` nesting.
    pub max_include_depth: usize,
    /// Template nodes and function calls evaluated in one render.
    pub max_steps: u64,
    /// Bytes of output of one render, all templates together.
    pub max_output_bytes: usize,
    /// Largest string a function may build (`repeat`, `indent`, `replace`).
    pub max_string_bytes: usize,
    /// Largest list `until`/`untilStep`/`seq` may build.
    pub max_list_items: usize,
    /// Nesting of values and of YAML read by `fromYaml`.
    pub max_values_depth: usize,
    /// YAML nodes in one values file or `fromYaml` text.
    pub max_values_nodes: usize,
    /// Bytes of a chart, after decompression.
    pub max_chart_bytes: usize,
    /// Files in a chart archive.
    pub max_chart_files: usize,
    /// Subcharts within subcharts.
    pub max_subchart_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_include_depth: 100,
            max_steps: 5_000_000,
            max_output_bytes: 64 << 20,
            max_string_bytes: 16 << 20,
            max_list_items: 1_000_000,
            max_values_depth: 100,
            max_values_nodes: 1_000_000,
            max_chart_bytes: 64 << 20,
            max_chart_files: 10_000,
            max_subchart_depth: 10,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderErrorKind {
    /// The template does not parse.
    Parse,
    /// Execution failed as Go's would (nil pointer, bad comparison, ...).
    Template,
    /// `required` with a missing value: the message names it.
    Required,
    /// `fail` in the chart.
    Fail,
    /// A limit was exceeded; the name is its `[limits]` key.
    Limit(&'static str),
    /// Values could not be read or merged.
    Values,
    /// A rendered document is not valid YAML ([`yaml_errors`]).
    Yaml,
}

/// An error of one template (the render of other templates goes on).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{template}: {message}")]
pub struct RenderError {
    pub kind: RenderErrorKind,
    /// Template path (`chart/templates/x.yaml`), or values file name.
    pub template: String,
    /// Byte range in that template.
    pub span: Range<usize>,
    pub message: String,
}

/// One layer of release values, in the order Helm merges them.
#[derive(Debug, Clone)]
pub enum ValuesLayer {
    /// A values file (`-f`, Terraform `values = [...]`): its name and text.
    Yaml { file: String, text: String },
    /// Values already read.
    Value(Value),
    /// A values file fplint cannot read: every value may be overridden, so
    /// all of `.Values` is unknown.
    Unknown,
}

/// A `--set` value.
#[derive(Debug, Clone)]
pub struct SetValue {
    /// `a.b[0].c=value`, as `--set` takes it.
    pub expr: String,
    /// `--set-string`: values stay strings.
    pub string: bool,
}

/// What a release gives the chart: Helm's install options.
#[derive(Debug, Clone)]
pub struct Release {
    /// `None`: unknown (a chart rendered for any release).
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub values: Vec<ValuesLayer>,
    pub set: Vec<SetValue>,
    /// `--kube-version`; Helm's default when `None`.
    pub kube_version: Option<String>,
    /// Extra `--api-versions`.
    pub api_versions: Vec<String>,
    pub is_upgrade: bool,
    pub revision: i64,
}

impl Default for Release {
    fn default() -> Self {
        Release {
            name: None,
            namespace: None,
            values: Vec::new(),
            set: Vec::new(),
            kube_version: None,
            api_versions: Vec::new(),
            is_upgrade: false,
            revision: 1,
        }
    }
}

/// The Kubernetes version `helm template` assumes without `--kube-version`
/// (Helm v4.1.4: the version of its Kubernetes client).
pub const DEFAULT_KUBE_VERSION: &str = "v1.35.0";

/// Where a piece of output came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanEntry {
    /// Output byte range.
    pub output: Range<usize>,
    /// Template path (`chart/templates/x.yaml`, `chart/templates/_helpers.tpl`).
    pub template: String,
    /// Byte range in that template: the literal text, or the action.
    pub source: Range<usize>,
}

/// One rendered template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    /// `chart/templates/x.yaml` (subcharts: `chart/charts/sub/templates/x.yaml`).
    pub path: String,
    pub text: String,
    /// Sorted by output range; covers every output byte.
    pub spans: Vec<SpanEntry>,
    /// Output ranges that are not known: under an unknown condition, or an
    /// unknown value's marker.
    pub unknown: Vec<Range<usize>>,
}

impl RenderedFile {
    /// The template bytes that produced output byte `at`.
    pub fn source_of(&self, at: usize) -> Option<&SpanEntry> {
        let i = self.spans.partition_point(|s| s.output.end <= at);
        self.spans.get(i).filter(|s| s.output.start <= at)
    }

    /// Whether any output in `range` is unknown.
    pub fn is_unknown(&self, range: Range<usize>) -> bool {
        self.unknown
            .iter()
            .any(|u| u.start < range.end && range.start < u.end)
    }
}

/// The result of a render: manifests, CRDs, and errors per template.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// Non-empty rendered templates, by path.
    pub manifests: Vec<RenderedFile>,
    /// Files under `crds/` (not templated), by path.
    pub crds: Vec<ChartFile>,
    pub errors: Vec<RenderError>,
    /// Dependencies `Chart.yaml` lists that `charts/` does not hold (helm
    /// refuses to render then; here their output is simply absent).
    pub missing_dependencies: Vec<String>,
    /// The values the root chart saw (after merging).
    pub values: Value,
}

/// Renders a chart for a release (Helm's `engine.Render` after
/// `chartutil.ToRenderValues`).
pub fn render(chart: &Chart, release: &Release, limits: &Limits) -> Rendered {
    let mut out = Rendered::default();
    // Release values: files in order, then --set.
    let mut user = value::Map::new();
    let mut all_unknown = false;
    for layer in &release.values {
        match layer {
            ValuesLayer::Yaml { file, text } => {
                match parse_yaml(text, limits.max_values_depth, limits.max_values_nodes) {
                    // Helm reads every document of a values file, each
                    // merged over the ones before it.
                    Ok((docs, _)) => {
                        for doc in docs {
                            match doc {
                                Value::Map(m) => merge_maps(&mut user, &m.borrow(), 0),
                                Value::Nil => {}
                                _ => out.errors.push(values_error(
                                    file,
                                    0..0,
                                    "values are not a mapping",
                                )),
                            }
                        }
                    }
                    Err(e) => out
                        .errors
                        .push(values_error(file, e.offset..e.offset, &e.message)),
                }
            }
            ValuesLayer::Value(Value::Map(m)) => merge_maps(&mut user, &m.borrow(), 0),
            ValuesLayer::Value(_) => {}
            ValuesLayer::Unknown => all_unknown = true,
        }
    }
    for s in &release.set {
        if let Err(e) = strvals::parse_into(&s.expr, &mut user, s.string) {
            out.errors.push(values_error(
                "--set",
                0..0,
                &format!("failed parsing --set data: {e}"),
            ));
        }
    }
    if !out.errors.is_empty() {
        return out;
    }
    missing_dependencies(chart, "", &mut out.missing_dependencies);
    // Dependencies enabled by condition and tags, then defaults coalesced.
    let chart = enabled_chart(chart, &user, limits);
    let chart = import_values(&chart);
    let mut vals = user.clone();
    coalesce(&chart, &mut vals, 0);
    let top = if all_unknown {
        Value::Unknown
    } else {
        Value::map(vals)
    };
    let mut violations = String::new();
    schema_errors(&chart, &top, &mut violations, 0);
    if !violations.is_empty() {
        out.errors.push(values_error(
            "values.schema.json",
            0..0,
            &format!("values don't meet the specifications of the schema(s) in the following chart(s):\n{violations}"),
        ));
        return out;
    }
    out.values = top.clone();
    out.crds = collect_crds(&chart, "");

    let kube = release
        .kube_version
        .clone()
        .unwrap_or_else(|| DEFAULT_KUBE_VERSION.into());
    let kube = if kube.starts_with('v') {
        kube
    } else {
        format!("v{kube}")
    };
    let ver = funcs::semver_parse(&kube);
    let (major, minor) = ver.as_ref().map_or(("1".into(), "20".into()), |v| {
        (v.major.to_string(), v.minor.to_string())
    });
    let mut api = default_api_versions();
    api.extend(release.api_versions.iter().cloned());
    let capabilities = {
        let mut m = value::Map::new();
        m.insert(
            "KubeVersion".into(),
            Value::Object(Rc::new(value::Object::KubeVersion {
                version: kube.clone(),
                major,
                minor,
            })),
        );
        m.insert(
            "APIVersions".into(),
            Value::Object(Rc::new(value::Object::ApiVersions(Rc::new(api)))),
        );
        let mut hv = value::Map::new();
        hv.insert("Version".into(), Value::str("v4.1.4"));
        hv.insert("GitCommit".into(), Value::str(""));
        hv.insert("GitTreeState".into(), Value::str(""));
        hv.insert("GoVersion".into(), Value::str(""));
        m.insert("HelmVersion".into(), Value::map(hv));
        Value::map(m)
    };
    let release_obj = {
        let mut m = value::Map::new();
        let opt = |o: &Option<String>| {
            o.as_ref()
                .map_or(Value::Unknown, |s| Value::str(s.as_str()))
        };
        m.insert("Name".into(), opt(&release.name));
        m.insert("Namespace".into(), opt(&release.namespace));
        m.insert("Service".into(), Value::str("Helm"));
        m.insert("IsInstall".into(), Value::Bool(!release.is_upgrade));
        m.insert("IsUpgrade".into(), Value::Bool(release.is_upgrade));
        m.insert("Revision".into(), Value::Int(release.revision));
        Value::map(m)
    };

    // Every template of the tree, with the values its chart sees.
    let mut jobs: Vec<Job> = Vec::new();
    let shared = (release_obj.clone(), capabilities.clone());
    collect(&chart, &chart.name, &top, true, &shared, &mut jobs);
    // Helm parses deeper paths first so a parent's define wins (sortTemplates).
    jobs.sort_by(|a, b| {
        let (ca, cb) = (a.path.matches('/').count(), b.path.matches('/').count());
        cb.cmp(&ca).then_with(|| b.path.cmp(&a.path))
    });
    let mut engine = exec::Engine::new(limits);
    let mut parsed = Vec::new();
    for job in &jobs {
        let text: Rc<str> = String::from_utf8_lossy(&job.data).into();
        match engine.add(job.path.clone(), text) {
            Ok((src, p)) => parsed.push(Some((src, p))),
            Err(e) => {
                out.errors.push(e);
                parsed.push(None);
            }
        }
    }
    // Templates run in Helm's order (the parse order above), and the templates
    // of a chart share one top-level object, as in Helm: a template that sets
    // `$.Values` (istio's zzz_profile.yaml, named to run first) changes what
    // the later ones see. Output and errors still come in path order.
    let mut done: Vec<(usize, Result<RenderedFile, RenderError>)> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let Some((src, p)) = &parsed[i] else { continue };
        let base = job.path.rsplit('/').next().unwrap_or("");
        if base.starts_with('_') || job.library {
            continue;
        }
        // NOTES.txt renders (its errors fail the release, as in Helm) but is no manifest.
        let notes = base == "NOTES.txt";
        let mut tmpl = value::Map::new();
        tmpl.insert("Name".into(), Value::str(job.path.as_str()));
        // The chart's templates folder, whatever subfolder the file is in.
        tmpl.insert("BasePath".into(), Value::str(job.base_path.as_str()));
        if let Value::Map(m) = &job.dot {
            m.borrow_mut().insert("Template".into(), Value::map(tmpl));
        }
        match engine.execute(*src, &p.root, &job.dot, &job.dot) {
            Ok(o) => {
                if notes || o.text.trim().is_empty() {
                    continue;
                }
                done.push((i, Ok(finish(&engine, job.path.clone(), o))));
            }
            Err(e) => {
                let fatal = matches!(
                    e.kind,
                    RenderErrorKind::Limit("max-steps" | "max-output-bytes")
                );
                done.push((i, Err(e)));
                if fatal {
                    break;
                }
            }
        }
    }
    done.sort_by(|a, b| jobs[a.0].path.cmp(&jobs[b.0].path));
    for (_, r) in done {
        match r {
            Ok(f) => out.manifests.push(f),
            Err(e) => out.errors.push(e),
        }
    }
    out
}

/// Helm's `ValidateAgainstSchema`: each chart's schema against its values.
fn schema_errors(chart: &Chart, values: &Value, out: &mut String, depth: usize) {
    if depth > value::MAX_NEST {
        return;
    }
    if let Some(s) = &chart.schema {
        let errs = schema::validate(s, values);
        if !errs.is_empty() {
            out.push_str(&chart.name);
            out.push_str(":\n");
            for e in errs {
                out.push_str("- ");
                out.push_str(&e);
                out.push('\n');
            }
        }
    }
    for sub in &chart.subcharts {
        let sv = match values {
            Value::Map(m) => m
                .borrow()
                .get(&sub.name)
                .cloned()
                .unwrap_or_else(Value::empty_map),
            _ => Value::Unknown,
        };
        schema_errors(sub, &sv, out, depth + 1);
    }
}

fn missing_dependencies(chart: &Chart, prefix: &str, out: &mut Vec<String>) {
    for d in &chart.dependencies {
        if !chart.subcharts.iter().any(|s| s.name == d.name) {
            out.push(format!("{prefix}{}", d.name));
        }
    }
    for s in &chart.subcharts {
        missing_dependencies(s, &format!("{prefix}{}/", s.name), out);
    }
}

struct Job {
    path: String,
    data: Vec<u8>,
    /// The chart's top-level object (`$`), one map shared by its templates.
    dot: Value,
    library: bool,
    base_path: String,
}

/// Adds the chart's templates (and its subcharts') to `jobs`, and returns the
/// chart's top-level object as its parent's `.Subcharts` holds it (Helm's
/// `recAllTpls`: Chart, Files, Release, Capabilities, Values, Subcharts).
fn collect(
    chart: &Chart,
    prefix: &str,
    values: &Value,
    root: bool,
    shared: &(Value, Value),
    jobs: &mut Vec<Job>,
) -> Value {
    let chart_obj = chart.chart_object();
    if !root {
        if let Value::Map(m) = &chart_obj {
            m.borrow_mut().insert("IsRoot".into(), Value::Bool(false));
        }
    }
    let files = chart::files_object(chart);
    let mut subs = value::Map::new();
    for sub in &chart.subcharts {
        let sv = match values {
            Value::Map(m) => m
                .borrow()
                .get(&sub.name)
                .cloned()
                .unwrap_or_else(Value::empty_map),
            Value::Unknown => Value::Unknown,
            _ => Value::empty_map(),
        };
        let obj = collect(
            sub,
            &format!("{prefix}/charts/{}", sub.name),
            &sv,
            false,
            shared,
            jobs,
        );
        subs.insert(sub.name.clone(), obj);
    }
    let mut obj = value::Map::new();
    obj.insert("Chart".into(), chart_obj);
    obj.insert("Files".into(), files);
    obj.insert("Release".into(), shared.0.clone());
    obj.insert("Capabilities".into(), shared.1.clone());
    obj.insert("Values".into(), values.clone());
    obj.insert("Subcharts".into(), Value::map(subs));
    let dot = Value::map(obj);
    for t in &chart.templates {
        jobs.push(Job {
            path: format!("{prefix}/{}", t.path),
            data: t.data.clone(),
            dot: dot.clone(),
            library: chart.is_library,
            base_path: format!("{prefix}/templates"),
        });
    }
    dot
}

fn collect_crds(chart: &Chart, prefix: &str) -> Vec<ChartFile> {
    let here = if prefix.is_empty() {
        chart.name.clone()
    } else {
        format!("{prefix}/charts/{}", chart.name)
    };
    let mut out: Vec<ChartFile> = chart
        .crds
        .iter()
        .map(|f| ChartFile {
            path: format!("{here}/{}", f.path),
            data: f.data.clone(),
        })
        .collect();
    for s in &chart.subcharts {
        out.extend(collect_crds(s, &here));
    }
    out
}

fn finish(engine: &exec::Engine, path: String, o: exec::Out) -> RenderedFile {
    let spans = o
        .segs
        .into_iter()
        .map(|(output, src, source)| SpanEntry {
            output,
            template: engine.sources[src].name.clone(),
            source,
        })
        .collect();
    let mut unknown = o.unknown;
    let mut from = 0;
    while let Some(i) = o.text[from..].find(UNKNOWN_MARKER) {
        let s = from + i;
        unknown.push(s..s + UNKNOWN_MARKER.len());
        from = s + UNKNOWN_MARKER.len();
    }
    unknown.sort_by_key(|r| (r.start, r.end));
    RenderedFile {
        path,
        text: o.text,
        spans,
        unknown,
    }
}

fn values_error(file: &str, span: Range<usize>, message: &str) -> RenderError {
    RenderError {
        kind: RenderErrorKind::Values,
        template: file.to_string(),
        span,
        message: message.to_string(),
    }
}

/// API versions `helm template` reports without a cluster: Helm v4.1.4's
/// built-in set (its Kubernetes client's scheme), whatever `--kube-version`.
fn default_api_versions() -> Vec<String> {
    [
        "v1",
        "admissionregistration.k8s.io/v1",
        "admissionregistration.k8s.io/v1alpha1",
        "admissionregistration.k8s.io/v1beta1",
        "internal.apiserver.k8s.io/v1alpha1",
        "apps/v1",
        "apps/v1beta1",
        "apps/v1beta2",
        "authentication.k8s.io/v1",
        "authentication.k8s.io/v1alpha1",
        "authentication.k8s.io/v1beta1",
        "authorization.k8s.io/v1",
        "authorization.k8s.io/v1beta1",
        "autoscaling/v1",
        "autoscaling/v2",
        "autoscaling/v2beta1",
        "autoscaling/v2beta2",
        "batch/v1",
        "batch/v1beta1",
        "certificates.k8s.io/v1",
        "certificates.k8s.io/v1beta1",
        "certificates.k8s.io/v1alpha1",
        "coordination.k8s.io/v1alpha2",
        "coordination.k8s.io/v1beta1",
        "coordination.k8s.io/v1",
        "discovery.k8s.io/v1",
        "discovery.k8s.io/v1beta1",
        "events.k8s.io/v1",
        "events.k8s.io/v1beta1",
        "extensions/v1beta1",
        "flowcontrol.apiserver.k8s.io/v1",
        "flowcontrol.apiserver.k8s.io/v1beta1",
        "flowcontrol.apiserver.k8s.io/v1beta2",
        "flowcontrol.apiserver.k8s.io/v1beta3",
        "networking.k8s.io/v1",
        "networking.k8s.io/v1beta1",
        "node.k8s.io/v1",
        "node.k8s.io/v1alpha1",
        "node.k8s.io/v1beta1",
        "policy/v1",
        "policy/v1beta1",
        "rbac.authorization.k8s.io/v1",
        "rbac.authorization.k8s.io/v1beta1",
        "rbac.authorization.k8s.io/v1alpha1",
        "resource.k8s.io/v1",
        "resource.k8s.io/v1beta2",
        "resource.k8s.io/v1beta1",
        "resource.k8s.io/v1alpha3",
        "scheduling.k8s.io/v1alpha1",
        "scheduling.k8s.io/v1beta1",
        "scheduling.k8s.io/v1",
        "storage.k8s.io/v1beta1",
        "storage.k8s.io/v1",
        "storage.k8s.io/v1alpha1",
        "storagemigration.k8s.io/v1beta1",
        "apiextensions.k8s.io/v1beta1",
        "apiextensions.k8s.io/v1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Helm's `mergeMaps` for values files: later files win, maps merge deeply.
fn merge_maps(dst: &mut value::Map, src: &value::Map, depth: usize) {
    for (k, v) in src {
        if depth < value::MAX_NEST {
            if let (Value::Map(sv), Some(Value::Map(dv))) = (v, dst.get(k)) {
                let mut merged = dv.borrow().clone();
                merge_maps(&mut merged, &sv.borrow(), depth + 1);
                dst.insert(k.clone(), Value::map(merged));
                continue;
            }
        }
        dst.insert(k.clone(), v.clone());
    }
}

/// Helm's `coalesceValues` + `coalesceDeps`: chart defaults fill what the
/// user did not set; a user `null` deletes a default.
fn coalesce(chart: &Chart, dest: &mut value::Map, depth: usize) {
    if depth > value::MAX_NEST {
        return;
    }
    if let Value::Map(defaults) = &chart.values {
        coalesce_table(dest, &defaults.borrow(), depth);
    }
    for sub in &chart.subcharts {
        let mut sv = match dest.get(&sub.name) {
            Some(Value::Map(m)) => m.borrow().clone(),
            _ => value::Map::new(),
        };
        coalesce_globals(&mut sv, dest);
        coalesce(sub, &mut sv, depth + 1);
        dest.insert(sub.name.clone(), Value::map(sv));
    }
}

fn coalesce_table(dest: &mut value::Map, src: &value::Map, depth: usize) {
    for (k, sv) in src {
        match dest.get(k) {
            Some(Value::Nil) => {
                dest.remove(k);
            }
            Some(Value::Map(dm)) => {
                if let Value::Map(sm) = sv {
                    if depth < value::MAX_NEST {
                        let mut merged = dm.borrow().clone();
                        coalesce_table(&mut merged, &sm.borrow(), depth + 1);
                        dest.insert(k.clone(), Value::map(merged));
                    }
                }
            }
            Some(_) => {}
            None => {
                dest.insert(k.clone(), sv.deep_copy());
            }
        }
    }
    // A null default stays a key (`hasKey` finds it), as in Helm; a null
    // given over a default removed the key above.
}

fn coalesce_globals(dest: &mut value::Map, parent: &value::Map) {
    let Some(Value::Map(pg)) = parent.get("global") else {
        if !dest.contains_key("global") {
            dest.insert("global".into(), Value::empty_map());
        }
        return;
    };
    let mut dg = match dest.get("global") {
        Some(Value::Map(m)) => m.borrow().clone(),
        _ => value::Map::new(),
    };
    for (k, v) in pg.borrow().iter() {
        match (v, dg.get(k)) {
            (Value::Map(pv), Some(Value::Map(dv))) => {
                let mut merged = pv.borrow().clone();
                coalesce_table(&mut merged, &dv.borrow(), 0);
                dg.insert(k.clone(), Value::map(merged));
            }
            (Value::Map(pv), None) => {
                dg.insert(k.clone(), Value::map(pv.borrow().clone()));
            }
            (_, Some(Value::Map(_))) => {}
            _ => {
                dg.insert(k.clone(), v.clone());
            }
        }
    }
    dest.insert("global".into(), Value::map(dg));
}

fn lookup_path(vals: &value::Map, path: &str) -> Option<Value> {
    let mut cur: Option<Value> = None;
    for (i, part) in path.split('.').enumerate() {
        let next = if i == 0 {
            vals.get(part).cloned()
        } else {
            match &cur {
                Some(Value::Map(m)) => m.borrow().get(part).cloned(),
                _ => None,
            }
        };
        cur = Some(next?);
    }
    cur
}

/// Helm's `ProcessDependencies`: subcharts renamed by alias, dropped by
/// `condition` (first path that holds a bool) or `tags`.
fn enabled_chart(chart: &Chart, user: &value::Map, limits: &Limits) -> Chart {
    enabled_in(chart, user, "", limits, 0)
}

/// Helm's `processDependencyEnabled` for one chart. `vals` are the values it
/// is given (the user's at the top, the parent's coalesced ones below) and
/// `path` the chart's place in them (`sub.` for a subchart).
fn enabled_in(
    chart: &Chart,
    vals: &value::Map,
    path: &str,
    limits: &Limits,
    depth: usize,
) -> Chart {
    let mut c = chart.clone();
    if depth > limits.max_subchart_depth {
        c.subcharts.clear();
        return c;
    }
    // Helm leaves a chart that declares no dependency as it is, subcharts and all.
    if chart.dependencies.is_empty() {
        return c;
    }
    // A subchart is matched to a dependency by name and by a version that
    // meets the dependency's constraint: a matched one is taken once per
    // dependency, under its alias; one that no dependency matches stays
    // under its own name.
    let matches = |d: &Dependency, s: &Chart| {
        d.name == s.name && funcs::version_in_range(&d.version, &s.version())
    };
    let mut subs: Vec<Chart> = chart
        .subcharts
        .iter()
        .filter(|s| !chart.dependencies.iter().any(|d| matches(d, s)))
        .cloned()
        .collect();
    for d in &chart.dependencies {
        let Some(sub) = chart.subcharts.iter().find(|s| matches(d, s)) else {
            continue;
        };
        let mut s = sub.clone();
        if let Some(alias) = &d.alias {
            s.name = alias.clone();
            if let Value::Map(m) = &s.metadata {
                let mut m = m.borrow().clone();
                m.insert("name".into(), Value::str(alias.as_str()));
                s.metadata = Value::map(m);
            }
        }
        subs.push(s);
    }
    c.subcharts = subs;
    let mut cvals = vals.clone();
    coalesce(&c, &mut cvals, 0);
    // A dependency is off when its tags are all false or its condition says
    // so; what it names (its alias, if any) is then dropped.
    let mut off = Vec::new();
    for d in &chart.dependencies {
        let mut enabled = true;
        if let (false, Some(Value::Map(tags))) = (d.tags.is_empty(), cvals.get("tags")) {
            let tags = tags.borrow();
            let set: Vec<bool> = d
                .tags
                .iter()
                .filter_map(|t| match tags.get(t) {
                    Some(Value::Bool(b)) => Some(*b),
                    _ => None,
                })
                .collect();
            if !set.is_empty() {
                enabled = set.iter().any(|b| *b);
            }
        }
        if let Some(cond) = &d.condition {
            for p in cond.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                if let Some(Value::Bool(b)) = lookup_path(&cvals, &format!("{path}{p}")) {
                    enabled = b;
                    break;
                }
            }
        }
        if !enabled {
            off.push(d.alias.clone().unwrap_or_else(|| d.name.clone()));
        }
    }
    // `.Chart.Dependencies` then lists the enabled ones, under their aliases.
    if let Value::Map(m) = &c.metadata {
        let mut meta = m.borrow().clone();
        if let Some(Value::List(deps)) = meta.get("dependencies") {
            let kept: Vec<Value> = deps
                .iter()
                .filter_map(|d| {
                    let Value::Map(dm) = d else {
                        return Some(d.clone());
                    };
                    let mut dm = dm.borrow().clone();
                    if let Some(alias) = dm
                        .get("alias")
                        .filter(|a| a.as_str().is_some_and(|a| !a.is_empty()))
                    {
                        dm.insert("name".into(), alias.clone());
                    }
                    let name = dm.get("name").and_then(|n| n.as_str().map(str::to_string));
                    if name.is_some_and(|n| off.contains(&n)) {
                        return None;
                    }
                    dm.insert("enabled".into(), Value::Bool(true));
                    Some(Value::map(dm))
                })
                .collect();
            meta.insert("dependencies".into(), Value::list(kept));
        }
        c.metadata = Value::map(meta);
    }
    c.subcharts = c
        .subcharts
        .iter()
        .filter(|s| !off.contains(&s.name))
        .map(|s| enabled_in(s, &cvals, &format!("{path}{}.", s.name), limits, depth + 1))
        .collect();
    c
}

/// Helm's `processImportValues`: a child's values copied into the parent,
/// under the parent's own values.
fn import_values(chart: &Chart) -> Chart {
    let mut c = chart.clone();
    c.subcharts = c.subcharts.iter().map(import_values).collect();
    let mut imported = value::Map::new();
    for d in &chart.dependencies {
        let name = d.alias.clone().unwrap_or_else(|| d.name.clone());
        let Some(sub) = c.subcharts.iter().find(|s| s.name == name) else {
            continue;
        };
        let Value::Map(sv) = &sub.values else {
            continue;
        };
        let mut child_vals = sv.borrow().clone();
        if let Some(Value::Map(pv)) = chart.values_map().get(&name) {
            merge_maps(&mut child_vals, &pv.borrow(), 0);
        }
        for iv in &d.import_values {
            let Some(v) = lookup_path(&child_vals, &iv.child) else {
                continue;
            };
            if iv.parent == "." || iv.parent.is_empty() {
                if let Value::Map(m) = &v {
                    merge_maps(&mut imported, &m.borrow(), 0);
                }
            } else {
                let mut nested = v;
                for part in iv.parent.rsplit('.') {
                    let mut m = value::Map::new();
                    m.insert(part.to_string(), nested);
                    nested = Value::map(m);
                }
                if let Value::Map(m) = &nested {
                    merge_maps(&mut imported, &m.borrow(), 0);
                }
            }
        }
    }
    if !imported.is_empty() {
        merge_maps(&mut imported, &chart.values_map(), 0);
        c.values = Value::map(imported);
    }
    c
}

impl Chart {
    fn values_map(&self) -> value::Map {
        match &self.values {
            Value::Map(m) => m.borrow().clone(),
            _ => value::Map::new(),
        }
    }
}

/// Renders a manifest list the way `helm template` prints it
/// (`---\n# Source: PATH\n` before each document).
pub fn to_helm_output(r: &Rendered) -> String {
    let mut out = String::new();
    for m in &r.manifests {
        for doc in split_documents(&m.text) {
            out.push_str("---\n# Source: ");
            out.push_str(&m.path);
            out.push('\n');
            out.push_str(doc);
            out.push('\n');
        }
    }
    out
}

/// Splits a rendered file into documents as Helm's `SplitManifests` does:
/// at `---` after a line break (whatever follows it on the line), each
/// document trimmed, empty ones dropped.
pub fn split_documents(text: &str) -> Vec<&str> {
    document_ranges(text)
        .into_iter()
        .map(|r| &text[r])
        .collect()
}

/// Byte ranges of [`split_documents`].
pub fn document_ranges(text: &str) -> Vec<Range<usize>> {
    const WS: &[char] = &['\t', '\n', '\x0c', '\r', ' '];
    let start = text.len() - text.trim_start_matches(WS).len();
    let end = text.trim_end_matches(WS).len().max(start);
    let body = &text[start..end];
    let mut out = Vec::new();
    let mut doc_start = 0;
    let mut i = 0;
    let b = body.as_bytes();
    let push = |from: usize, to: usize, out: &mut Vec<Range<usize>>| {
        let d = &body[from..to];
        let lead = d.len() - d.trim_start_matches(WS).len();
        let t = d.trim_matches(WS);
        if !t.is_empty() {
            out.push(start + from + lead..start + from + lead + t.len());
        }
    };
    if body.starts_with("---") {
        let mut k = 3;
        while k < b.len() && WS.contains(&(b[k] as char)) {
            k += 1;
        }
        doc_start = k;
        i = k;
    }
    while i < b.len() {
        if b[i] == b'\n' && body[i + 1..].starts_with("---") {
            // The separator takes the blanks before the line break too.
            let mut s0 = i;
            while s0 > doc_start && WS.contains(&(b[s0 - 1] as char)) {
                s0 -= 1;
            }
            push(doc_start, s0, &mut out);
            let mut k = i + 4;
            while k < b.len() && WS.contains(&(b[k] as char)) {
                k += 1;
            }
            doc_start = k;
            i = k;
            continue;
        }
        i += 1;
    }
    push(doc_start, b.len(), &mut out);
    out
}

/// Documents of the rendered manifests that are not valid YAML, as
/// `helm template` reports them ("YAML parse error on ..."). The render
/// itself does not parse its output: its consumer does. Documents with an
/// unknown region are left out: their consumer treats them as unknown.
pub fn yaml_errors(r: &Rendered, limits: &Limits) -> Vec<RenderError> {
    let mut errors = Vec::new();
    for m in &r.manifests {
        for range in document_ranges(&m.text) {
            errors.extend(yaml_error(m, range, limits));
        }
    }
    errors
}

/// [`yaml_errors`] for the document at `range` of one rendered file.
pub fn yaml_error(m: &RenderedFile, range: Range<usize>, limits: &Limits) -> Option<RenderError> {
    // A document with unknown parts may be invalid only for them: it is
    // unknown, not an error.
    if m.is_unknown(range.clone()) {
        return None;
    }
    let doc = &m.text[range.clone()];
    let e = parse_yaml(doc, limits.max_values_depth, limits.max_values_nodes).err()?;
    let at = range.start + e.offset.min(doc.len());
    let (template, span) = m.source_of(at).map_or((m.path.clone(), 0..0), |s| {
        (s.template.clone(), s.source.clone())
    });
    Some(RenderError {
        kind: RenderErrorKind::Yaml,
        template,
        span,
        message: format!("YAML parse error on {}: {}", m.path, e.message),
    })
}

/// Where a value of the root chart's `.Values` was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueOrigin {
    /// A values file of the release (`ValuesLayer::Yaml`'s name), or the
    /// chart's own (`values.yaml`, `charts/SUB/values.yaml`), and the byte
    /// range of the value in it.
    File { file: String, range: Range<usize> },
    /// The release's `set` entry with this index.
    Set { index: usize },
}

/// Which layer set the value at `path` (`image.tag`, `tolerations[0].key`):
/// `set` first, then the release's values files from the last, then the
/// chart's `values.yaml`, then a subchart's for `SUB.key`. `None` when no
/// layer writes that path (a value a template computed, or a missing one).
pub fn value_origin(
    chart: &Chart,
    release: &Release,
    path: &str,
    limits: &Limits,
) -> Option<ValueOrigin> {
    for (index, s) in release.set.iter().enumerate().rev() {
        let mut m = value::Map::new();
        if strvals::parse_into(&s.expr, &mut m, s.string).is_ok()
            && path_exists(&Value::map(m), path)
        {
            return Some(ValueOrigin::Set { index });
        }
    }
    for layer in release.values.iter().rev() {
        if let ValuesLayer::Yaml { file, text } = layer {
            if let Ok((_, spans)) =
                parse_yaml(text, limits.max_values_depth, limits.max_values_nodes)
            {
                if let Some(s) = spans.iter().find(|s| s.path == path) {
                    return Some(ValueOrigin::File {
                        file: file.clone(),
                        range: s.range.clone(),
                    });
                }
            }
        }
    }
    chart_origin(chart, path, "", 0)
}

fn chart_origin(chart: &Chart, path: &str, prefix: &str, depth: usize) -> Option<ValueOrigin> {
    if let Some(s) = chart.values_spans.iter().find(|s| s.path == path) {
        return Some(ValueOrigin::File {
            file: format!("{prefix}values.yaml"),
            range: s.range.clone(),
        });
    }
    if depth > 10 {
        return None;
    }
    for sub in &chart.subcharts {
        if let Some(rest) = path
            .strip_prefix(sub.name.as_str())
            .and_then(|r| r.strip_prefix('.'))
        {
            let found = chart_origin(
                sub,
                rest,
                &format!("{prefix}charts/{}/", sub.name),
                depth + 1,
            );
            if found.is_some() {
                return found;
            }
        }
    }
    None
}

/// Whether `path` (dots and `[i]`) names a value in `v`.
fn path_exists(v: &Value, path: &str) -> bool {
    let mut cur = v.clone();
    for part in path.split('.') {
        let (key, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        let next = match &cur {
            Value::Map(m) => m.borrow().get(key).cloned(),
            _ => None,
        };
        let Some(mut next) = next else { return false };
        for idx in indices.split('[').filter(|s| !s.is_empty()) {
            let Ok(i) = idx.trim_end_matches(']').parse::<usize>() else {
                return false;
            };
            next = match &next {
                Value::List(l) => match l.get(i) {
                    Some(e) => e.clone(),
                    None => return false,
                },
                _ => return false,
            };
        }
        cur = next;
    }
    true
}
