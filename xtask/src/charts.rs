//! `cargo run -p xtask -- charts [--corpus DIR] [--out FILE]`
//!
//! Learns what each chart of the corpus (scripts/chart-corpus) deploys by
//! rendering it with its defaults and under probe values, and writes the
//! facts as `crates/rules/src/charts/known.json`. Only facts are written: the
//! charts' templates are not copied.

use fplint_helm::{Chart, Limits, Release, ValuesLayer};
use fplint_rules::charts::{
    known, ChartWorkload, Field as Known, FieldSource, Join, KnownChart, Pin, Switch,
};
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The release namespace of every probe render.
pub const NAMESPACE: &str = "fplint-probe-ns";
const OTHER_NAMESPACE: &str = "fplint-probe-other";
const KUBE_VERSION: &str = "1.33.0";
const WORKLOAD_KINDS: &[&str] = &[
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicaSet",
];

/// A pod field the rules judge (the rules crate's `Field`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    Tolerations,
    NodeSelector,
    Affinity,
    Resources,
    HostNetwork,
    PriorityClassName,
    Replicas,
    Privileged,
    HostPorts,
}

/// Every field, in the order they are written.
pub const FIELDS: [Field; 9] = [
    Field::Tolerations,
    Field::NodeSelector,
    Field::Affinity,
    Field::Resources,
    Field::HostNetwork,
    Field::PriorityClassName,
    Field::Replicas,
    Field::Privileged,
    Field::HostPorts,
];

impl Field {
    fn index(self) -> usize {
        self as usize
    }

    /// The field as the chart knowledge names it.
    fn known(self) -> Known {
        match self {
            Field::Tolerations => Known::Tolerations,
            Field::NodeSelector => Known::NodeSelector,
            Field::Affinity => Known::Affinity,
            Field::Resources => Known::Resources,
            Field::HostNetwork => Known::HostNetwork,
            Field::PriorityClassName => Known::PriorityClassName,
            Field::Replicas => Known::Replicas,
            Field::Privileged => Known::Privileged,
            Field::HostPorts => Known::HostPorts,
        }
    }

    /// Whether a value whose last key is `key` may set the field.
    fn matches_key(self, key: &str) -> bool {
        match self {
            Field::Tolerations => key == "tolerations",
            Field::NodeSelector => key == "nodeSelector",
            Field::Affinity => key == "affinity",
            Field::Resources => key == "resources",
            Field::HostNetwork => key == "hostNetwork" || key == "useHostNetwork",
            Field::PriorityClassName => key == "priorityClassName",
            Field::Replicas => key == "replicas" || key == "replicaCount",
            Field::Privileged => key == "privileged",
            Field::HostPorts => key.to_ascii_lowercase().ends_with("hostport"),
        }
    }

    /// The key that renders the field, to tell whether a template may set it.
    fn rendered_key(self) -> &'static str {
        match self {
            Field::Tolerations => "tolerations",
            Field::NodeSelector => "nodeSelector",
            Field::Affinity => "affinity",
            Field::Resources => "resources",
            Field::HostNetwork => "hostNetwork",
            Field::PriorityClassName => "priorityClassName",
            Field::Replicas => "replicas",
            Field::Privileged => "privileged",
            Field::HostPorts => "hostPort",
        }
    }

    fn is_bool(self) -> bool {
        matches!(self, Field::HostNetwork | Field::Privileged)
    }

    /// Whether the field is the pod's own (not one per container).
    fn pod_level(self) -> bool {
        !matches!(
            self,
            Field::Resources | Field::Privileged | Field::HostPorts
        )
    }

    /// The probe value of candidate `n`; booleans are the default's opposite.
    fn marker(self, n: usize, default: &Json) -> Json {
        let key = format!("fplint.probe/{n}");
        let text = format!("fplint-probe-{n}");
        match self {
            Field::Tolerations => json!([{ "key": key, "operator": "Exists" }]),
            Field::NodeSelector => json!({ key: "x" }),
            Field::Affinity => {
                json!({ "nodeAffinity": { "requiredDuringSchedulingIgnoredDuringExecution": { "nodeSelectorTerms": [{ "matchExpressions": [{ "key": key, "operator": "Exists" }] }] } } })
            }
            Field::Resources => json!({ "limits": { "memory": text } }),
            Field::PriorityClassName => json!(text),
            Field::Replicas => json!(17 + n),
            Field::HostPorts => json!(31000 + n),
            Field::HostNetwork | Field::Privileged => json!(!truthy(default)),
        }
    }

    /// What sets the field to nothing, for Helm's `default` and `with`.
    fn empty(self) -> Json {
        match self {
            Field::Tolerations => json!([]),
            Field::NodeSelector | Field::Affinity | Field::Resources => json!({}),
            Field::HostNetwork | Field::Privileged => json!(false),
            Field::PriorityClassName | Field::Replicas | Field::HostPorts => Json::Null,
        }
    }

    /// Whether `rendered` carries candidate `n`'s marker (`base`: the
    /// field's render without it, for booleans).
    fn carries(self, rendered: &Json, n: usize, base: &Json) -> bool {
        match self {
            Field::HostNetwork | Field::Privileged => rendered != base,
            Field::Replicas => contains_number(rendered, 17 + n as u64),
            Field::HostPorts => contains_number(rendered, 31000 + n as u64),
            Field::Tolerations | Field::NodeSelector | Field::Affinity => rendered
                .to_string()
                .contains(&format!("\"fplint.probe/{n}\"")),
            Field::Resources | Field::PriorityClassName => rendered
                .to_string()
                .contains(&format!("\"fplint-probe-{n}\"")),
        }
    }

    /// Whether a document path (`spec.template.spec.tolerations[0].key`)
    /// lies in the field.
    fn is_path(self, kind: &str, path: &str) -> bool {
        let pod = if kind == "CronJob" {
            "spec.jobTemplate.spec.template.spec."
        } else {
            "spec.template.spec."
        };
        let under = |p: &str, prefix: &str| {
            p.strip_prefix(prefix)
                .is_some_and(|r| r.is_empty() || r.starts_with(['.', '[']))
        };
        if self == Field::Replicas {
            return under(path, "spec.replicas");
        }
        let Some(rest) = path.strip_prefix(pod) else {
            return false;
        };
        if self.pod_level() {
            return under(rest, self.rendered_key());
        }
        let Some(c) = rest
            .strip_prefix("containers[")
            .or_else(|| rest.strip_prefix("initContainers["))
        else {
            return false;
        };
        let Some((_, c)) = c.split_once("].") else {
            return false;
        };
        match self {
            Field::Resources => under(c, "resources"),
            Field::Privileged => under(c, "securityContext.privileged"),
            _ => c.starts_with("ports[") && c.ends_with("].hostPort"),
        }
    }

    /// The field of a rendered workload: pod fields as rendered (`null` when
    /// absent); container fields as one entry per container, then per init
    /// container.
    fn extract(self, kind: &str, doc: &Json) -> Json {
        let pod = if kind == "CronJob" {
            &doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        } else {
            &doc["spec"]["template"]["spec"]
        };
        let containers = || {
            ["containers", "initContainers"]
                .iter()
                .filter_map(|k| pod[*k].as_array())
                .flatten()
        };
        match self {
            Field::Replicas => doc["spec"]["replicas"].clone(),
            Field::Resources => Json::Array(containers().map(|c| c["resources"].clone()).collect()),
            Field::Privileged => Json::Array(
                containers()
                    .map(|c| c["securityContext"]["privileged"].clone())
                    .collect(),
            ),
            Field::HostPorts => Json::Array(
                containers()
                    .map(|c| {
                        Json::Array(
                            c["ports"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .filter(|p| !p["hostPort"].is_null())
                                .map(|p| p["hostPort"].clone())
                                .collect(),
                        )
                    })
                    .collect(),
            ),
            f => pod[f.rendered_key()].clone(),
        }
    }
}

fn truthy(v: &Json) -> bool {
    match v {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.as_f64() != Some(0.0),
        Json::String(s) => !s.is_empty(),
        Json::Array(a) => !a.is_empty(),
        Json::Object(o) => !o.is_empty(),
    }
}

fn contains_number(v: &Json, want: u64) -> bool {
    match v {
        Json::Number(n) => n.as_f64() == Some(want as f64),
        Json::Array(a) => a.iter().any(|x| contains_number(x, want)),
        Json::Object(o) => o.values().any(|x| contains_number(x, want)),
        _ => false,
    }
}

/// A workload's identity across renders: a name change is not a new workload.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id {
    /// Template path inside the chart (`templates/x.yaml`).
    pub template: String,
    pub kind: String,
    /// Its place among the workloads of that kind in that template.
    pub ordinal: usize,
}

/// A rendered workload.
#[derive(Debug, Clone, PartialEq)]
struct Pod {
    name: String,
    namespace: Option<String>,
    fields: Vec<Json>,
    /// Per field: whether every rendered byte of it is template text, not
    /// an action's output (only in the defaults' render).
    literal: Vec<bool>,
}

type Workloads = BTreeMap<Id, Pod>;

/// Values set on top of the defaults: dotted path to value.
type Overrides = Vec<(String, Json)>;

/// Renders one chart under probe values.
pub struct Prober {
    chart: Chart,
    name: String,
    /// Values every render starts from (a cluster name for charts that need one).
    base: Option<Json>,
    limits: Limits,
    cache: HashMap<String, Option<Workloads>>,
    /// Template texts by path inside the chart (`charts/sub/templates/x.yaml`).
    texts: BTreeMap<String, String>,
    /// Value paths the templates read.
    paths: BTreeSet<String>,
    /// Renders made.
    pub renders: usize,
}

impl Prober {
    /// Loads the chart in `dir`; `base` is applied under every probe.
    pub fn load(dir: &Path, base: Option<Json>) -> Result<Prober, String> {
        let limits = Limits::default();
        let mut full = Chart::load_dir(dir, &limits).map_err(|e| e.to_string())?;
        let mut chart = full.clone();
        drop_quiet_templates(&mut chart);
        let mut texts = BTreeMap::new();
        let mut paths = BTreeSet::new();
        template_paths(&full, "", "", &mut paths, &mut texts);
        let mut p = Prober {
            texts,
            paths,
            name: chart.name.clone(),
            chart,
            base,
            limits,
            cache: HashMap::new(),
            renders: 0,
        };
        // Keep the dropped templates when that changes the defaults' render.
        let pruned = p.render_values(&p.base_json(), false);
        std::mem::swap(&mut p.chart, &mut full);
        let whole = p.render_values(&p.base_json(), false);
        if pruned == whole {
            std::mem::swap(&mut p.chart, &mut full);
        }
        Ok(p)
    }

    fn base_json(&self) -> String {
        self.base.clone().unwrap_or_else(|| json!({})).to_string()
    }

    /// The workloads rendered under `overrides`; `None` when the render fails.
    fn render(&mut self, overrides: &[(String, Json)]) -> Option<Workloads> {
        let mut root = self.base.clone().unwrap_or_else(|| json!({}));
        for (path, v) in overrides {
            set_path(&mut root, path, v.clone());
        }
        let key = root.to_string();
        if let Some(hit) = self.cache.get(&key) {
            return hit.clone();
        }
        self.renders += 1;
        let out = self.render_values(&key, overrides.is_empty());
        self.cache.insert(key, out.clone());
        out
    }

    fn render_values(&self, values_json: &str, literal: bool) -> Option<Workloads> {
        let release = self.release(vec![values_json.into()]);
        let out = fplint_helm::render(&self.chart, &release, &self.limits);
        if !out.errors.is_empty() {
            return None;
        }
        let mut workloads = Workloads::new();
        for file in &out.manifests {
            // `chart/templates/x.yaml` -> `templates/x.yaml`.
            let template = file
                .path
                .split_once('/')
                .map_or(file.path.as_str(), |(_, rest)| rest);
            let mut ordinals: HashMap<String, usize> = HashMap::new();
            for range in fplint_helm::document_ranges(&file.text) {
                let doc = &file.text[range.clone()];
                let (docs, spans) = fplint_helm::parse_yaml(
                    doc,
                    self.limits.max_values_depth,
                    self.limits.max_values_nodes,
                )
                .ok()?;
                for value in docs {
                    let json: Json =
                        serde_json::from_str(&fplint_helm::to_json(&value, false).ok()?).ok()?;
                    let Some(kind) = json["kind"].as_str() else {
                        continue;
                    };
                    if !WORKLOAD_KINDS.contains(&kind) {
                        continue;
                    }
                    let ordinal = ordinals.entry(kind.to_string()).or_default();
                    let id = Id {
                        template: template.to_string(),
                        kind: kind.to_string(),
                        ordinal: *ordinal,
                    };
                    *ordinal += 1;
                    let namespace = json["metadata"]["namespace"]
                        .as_str()
                        .filter(|ns| *ns != NAMESPACE)
                        .map(str::to_string);
                    let pod = Pod {
                        name: json["metadata"]["name"].as_str().unwrap_or("").to_string(),
                        namespace,
                        fields: FIELDS.iter().map(|f| f.extract(kind, &json)).collect(),
                        literal: FIELDS
                            .iter()
                            .map(|f| {
                                literal
                                    && self.is_literal(file, range.start, &spans, |p| {
                                        f.is_path(kind, p)
                                    })
                            })
                            .collect(),
                    };
                    workloads.insert(id, pod);
                }
            }
        }
        Some(workloads)
    }

    /// Whether the values at paths `want` of a document at `offset` are
    /// template text alone (and there is one).
    fn is_literal(
        &self,
        file: &fplint_helm::RenderedFile,
        offset: usize,
        spans: &[fplint_helm::ValueSpan],
        want: impl Fn(&str) -> bool,
    ) -> bool {
        let mut any = false;
        for v in spans
            .iter()
            .filter(|v| want(&v.path) && !v.range.is_empty())
        {
            let (start, end) = (offset + v.range.start, offset + v.range.end);
            let mut at = start;
            while at < end {
                let Some(src) = file.source_of(at) else {
                    return false;
                };
                let template = src
                    .template
                    .split_once('/')
                    .map_or(src.template.as_str(), |(_, rest)| rest);
                let text = self
                    .texts
                    .get(template)
                    .and_then(|t| t.get(src.source.clone()));
                if text.is_none_or(|t| t.trim_start().starts_with("{{")) {
                    return false;
                }
                at = src.output.end.max(at + 1);
            }
            any = true;
        }
        any
    }

    /// The first error of the defaults' render.
    fn first_error(&self) -> String {
        let release = self.release(self.base.iter().map(|b| b.to_string()).collect());
        let out = fplint_helm::render(&self.chart, &release, &self.limits);
        out.errors
            .first()
            .map(|e| e.to_string().chars().take(300).collect())
            .unwrap_or_else(|| "a rendered document is not YAML".into())
    }

    fn release(&self, layers: Vec<String>) -> Release {
        Release {
            name: Some(self.name.clone()),
            namespace: Some(NAMESPACE.into()),
            values: layers
                .into_iter()
                .map(|text| ValuesLayer::Yaml {
                    file: "probe.yaml".into(),
                    text,
                })
                .collect(),
            kube_version: Some(KUBE_VERSION.into()),
            ..Release::default()
        }
    }

    /// The merged default values (with the base), as JSON.
    fn defaults(&self, overrides: &[(String, Json)]) -> Option<Json> {
        let mut root = self.base.clone().unwrap_or_else(|| json!({}));
        for (path, v) in overrides {
            set_path(&mut root, path, v.clone());
        }
        let release = self.release(vec![root.to_string()]);
        let out = fplint_helm::render(&self.chart, &release, &self.limits);
        serde_json::from_str(&fplint_helm::to_json(&out.values, false).ok()?).ok()
    }
}

/// Drops templates that cannot write a workload: no `kind:` of one, no
/// templated `kind:`, and no `set`/`merge` that could change what later
/// templates see. Rules, dashboards and CRDs are most of some charts' text.
fn drop_quiet_templates(chart: &mut Chart) {
    chart.templates.retain(|t| {
        let text = String::from_utf8_lossy(&t.data);
        let name = t.path.rsplit('/').next().unwrap_or("");
        name.starts_with('_')
            || text.contains("kind: {{")
            || text.contains("set ")
            || text.contains("merge")
            || WORKLOAD_KINDS
                .iter()
                .any(|k| text.contains(&format!("kind: {k}")))
    });
    for sub in &mut chart.subcharts {
        drop_quiet_templates(sub);
    }
}

/// Sets `path` (dotted) in `root`, making maps on the way.
fn set_path(root: &mut Json, path: &str, v: Json) {
    let mut cur = root;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        if !cur.is_object() {
            *cur = json!({});
        }
        let Json::Object(map) = cur else { return };
        if i + 1 == parts.len() {
            map.insert(part.to_string(), v);
            return;
        }
        cur = map.entry(part.to_string()).or_insert_with(|| json!({}));
    }
}

fn get_path<'a>(root: &'a Json, path: &str) -> Option<&'a Json> {
    path.split('.').try_fold(root, |cur, part| cur.get(part))
}

/// Leaves and maps of the values, by dotted path. Keys that a dotted path
/// cannot spell, lists' items and subcharts' copies of `global` are left out.
fn walk(v: &Json, prefix: &str, out: &mut Vec<(String, Json)>) {
    let Json::Object(map) = v else { return };
    for (k, child) in map {
        let plain = !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !plain || (!prefix.is_empty() && k == "global") {
            continue;
        }
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        out.push((path.clone(), child.clone()));
        walk(child, &path, out);
    }
}

/// Value paths the chart's templates read (`.Values.a.b`), with subcharts'
/// paths under their key.
fn template_paths(
    chart: &Chart,
    prefix: &str,
    dir: &str,
    out: &mut BTreeSet<String>,
    texts: &mut BTreeMap<String, String>,
) {
    for t in &chart.templates {
        let s = String::from_utf8_lossy(&t.data);
        texts.insert(format!("{dir}{}", t.path), s.to_string());
        let mut rest: &str = &s;
        while let Some(at) = rest.find(".Values.") {
            rest = &rest[at + ".Values.".len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len());
            let path = rest[..end].trim_end_matches('.');
            if !path.is_empty() && !path.contains("..") {
                if path.starts_with("global.") || prefix.is_empty() {
                    out.insert(path.to_string());
                } else {
                    out.insert(format!("{prefix}{path}"));
                }
            }
        }
    }
    for sub in &chart.subcharts {
        let key = chart
            .dependencies
            .iter()
            .find(|d| d.name == sub.name)
            .and_then(|d| d.alias.clone())
            .unwrap_or_else(|| sub.name.clone());
        template_paths(
            sub,
            &format!("{prefix}{key}."),
            &format!("{dir}charts/{}/", sub.name),
            out,
            texts,
        );
    }
}

/// Whether a template reads a field named `key` (`.key` not followed by
/// more of a name).
fn reads_key(text: &str, key: &str) -> bool {
    let pat = format!(".{key}");
    text.match_indices(&pat).any(|(at, _)| {
        !text[at + pat.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A boolean value a workload needs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SwitchFact {
    pub value: String,
    pub default: bool,
    pub needs: bool,
}

/// How one field of a workload is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFact {
    pub field: Field,
    pub values: Vec<String>,
    pub defaults: Vec<String>,
    /// `true`: all are rendered; `false`: the first set wins.
    pub all: bool,
    /// The field's render with the defaults, as compact JSON.
    pub rendered: String,
}

/// What one workload is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadFact {
    pub id: Id,
    pub name: String,
    pub namespace: Option<String>,
    pub namespace_values: BTreeSet<String>,
    pub when: Vec<SwitchFact>,
    pub fields: Vec<FieldFact>,
}

/// What one chart version deploys.
#[derive(Debug, Clone)]
pub struct ChartFacts {
    pub name: String,
    pub version: String,
    pub guards: BTreeSet<String>,
    pub workloads: Vec<WorkloadFact>,
}

impl ChartFacts {
    /// Whether two versions' facts are the same, names aside.
    pub fn same_facts(&self, other: &ChartFacts) -> bool {
        self.guards == other.guards
            && self.workloads.len() == other.workloads.len()
            && self.workloads.iter().zip(&other.workloads).all(|(a, b)| {
                a.id.template == b.id.template
                    && a.id.kind == b.id.kind
                    && a.namespace == b.namespace
                    && a.namespace_values == b.namespace_values
                    && a.when == b.when
                    && a.fields == b.fields
            })
    }
}

/// Learns a chart's facts. `base` holds values every render starts from.
pub fn learn(dir: &Path, base: Option<Json>) -> Result<(ChartFacts, usize), String> {
    let mut p = Prober::load(dir, base)?;
    let version = fplint_helm::to_json(&p.chart.metadata, false)
        .ok()
        .and_then(|t| serde_json::from_str::<Json>(&t).ok())
        .and_then(|m| m["version"].as_str().map(str::to_string))
        .or_else(|| chart_version(dir))
        .unwrap_or_default();
    let Some(defaults_base) = p.render(&[]) else {
        return Err(format!(
            "does not render with its defaults: {}",
            p.first_error()
        ));
    };
    if defaults_base.is_empty() {
        return Err("renders no workload with its defaults".into());
    }
    let defaults = p.defaults(&[]).ok_or("values do not read")?;
    let mut leaves = Vec::new();
    walk(&defaults, "", &mut leaves);
    let paths = p.paths.clone();
    let texts = p.texts.clone();
    // Whether the workload's template or a helper may write `key`.
    let may_write = |template: &str, key: &str| {
        texts.iter().any(|(path, text)| {
            (path == template || path.rsplit('/').next().is_some_and(|n| n.starts_with('_')))
                && text.contains(key)
        })
    };

    let mut guards: BTreeSet<String> = BTreeSet::new();
    // Every field render a workload showed in any probe, to tell a fixed
    // field from one that values set.
    let mut moved: BTreeSet<(Id, usize)> = BTreeSet::new();
    let note_moves = |moved: &mut BTreeSet<(Id, usize)>, r: &Workloads| {
        for (id, pod) in r {
            if let Some(b) = defaults_base.get(id) {
                for (i, f) in pod.fields.iter().enumerate() {
                    if *f != b.fields[i] {
                        moved.insert((id.clone(), i));
                    }
                }
            }
        }
    };

    let trace = std::env::var_os("FPLINT_CHARTS_TRACE").is_some();
    let clock = Instant::now();
    let phase = |p: &Prober, what: &str| {
        if trace {
            eprintln!(
                "  {what}: {} renders, {:.1}s",
                p.renders,
                clock.elapsed().as_secs_f64()
            );
        }
    };
    phase(&p, "defaults");
    // 2. Switches.
    let bools: Vec<(String, bool)> = leaves
        .iter()
        .filter_map(|(path, v)| v.as_bool().map(|b| (path.clone(), b)))
        .collect();
    let mut when: BTreeMap<Id, Vec<SwitchFact>> = BTreeMap::new();
    let mut appeared: BTreeMap<Id, Vec<(String, bool)>> = BTreeMap::new();
    for (path, d) in &bools {
        let Some(r) = p.render(&[(path.clone(), json!(!d))]) else {
            guards.insert(path.clone());
            continue;
        };
        note_moves(&mut moved, &r);
        if r.iter().any(|(id, w)| {
            defaults_base
                .get(id)
                .is_some_and(|b| b.namespace != w.namespace)
        }) {
            guards.insert(path.clone());
            continue;
        }
        for id in defaults_base.keys().filter(|id| !r.contains_key(*id)) {
            when.entry(id.clone()).or_default().push(SwitchFact {
                value: path.clone(),
                default: *d,
                needs: *d,
            });
        }
        for id in r.keys().filter(|id| !defaults_base.contains_key(*id)) {
            appeared
                .entry(id.clone())
                .or_default()
                .push((path.clone(), *d));
        }
    }

    phase(&p, "switches");
    // 3. Guards; 4. namespace values.
    let is_ns = |path: &str| {
        path.rsplit('.')
            .next()
            .is_some_and(|k| k.contains("amespace"))
    };
    let mut ns_values: BTreeMap<Id, BTreeSet<String>> = BTreeMap::new();
    for (path, v) in &leaves {
        let probes: Vec<Json> = match v {
            Json::String(_) if is_ns(path) => vec![json!(OTHER_NAMESPACE)],
            Json::String(_) => vec![json!("fplint-probe")],
            Json::Number(n) => {
                let f = n.as_f64().unwrap_or(0.0);
                vec![json!(f + 1.0), json!(0)]
            }
            _ => continue,
        };
        for probe in probes {
            let Some(r) = p.render(&[(path.clone(), probe)]) else {
                guards.insert(path.clone());
                break;
            };
            note_moves(&mut moved, &r);
            let ids_same = r.keys().eq(defaults_base.keys());
            if !ids_same {
                guards.insert(path.clone());
                break;
            }
            for (id, w) in &r {
                if defaults_base
                    .get(id)
                    .is_some_and(|b| b.namespace != w.namespace)
                {
                    if is_ns(path) {
                        ns_values
                            .entry(id.clone())
                            .or_default()
                            .insert(path.clone());
                    } else {
                        guards.insert(path.clone());
                    }
                }
            }
        }
    }

    phase(&p, "guards");
    // 5. Fields of the default workloads.
    let candidates = field_candidates(&leaves, &paths);
    let mut workloads = Vec::new();
    let fields = learn_fields(
        &mut p,
        &[],
        &defaults_base,
        &candidates,
        &defaults,
        &mut moved,
    );
    for (id, pod) in &defaults_base {
        let mut fields = fields.get(id).cloned().unwrap_or_default();
        // A field no value sets is written only when the chart fixes it.
        for f in FIELDS {
            if fields.iter().any(|x| x.field == f) || moved.contains(&(id.clone(), f.index())) {
                continue;
            }
            let rendered = &pod.fields[f.index()];
            let absent = match rendered {
                Json::Null => true,
                Json::Array(a) => a.iter().all(|x| x.is_null() || x == &json!([])),
                _ => false,
            };
            // A container field may come from a security context or an
            // extra container written whole from values: only a value the
            // template writes for every container is fixed.
            let every_container = match rendered {
                Json::Array(a) => a.iter().all(|x| !x.is_null() && x != &json!([])),
                _ => true,
            };
            let fixed = if f.pod_level() {
                (absent && !may_write(&id.template, f.rendered_key()))
                    || (!absent && pod.literal[f.index()])
            } else {
                every_container && pod.literal[f.index()]
            };
            if fixed {
                fields.push(FieldFact {
                    field: f,
                    values: vec![],
                    defaults: vec![],
                    all: false,
                    rendered: rendered.to_string(),
                });
            }
        }
        fields.sort_by_key(|f| f.field);
        let mut sw = when.remove(id).unwrap_or_default();
        sw.sort();
        workloads.push(WorkloadFact {
            id: id.clone(),
            name: pod.name.clone(),
            namespace: pod.namespace.clone(),
            namespace_values: ns_values.remove(id).unwrap_or_default(),
            when: sw,
            fields,
        });
    }

    phase(&p, "fields");
    // Workloads that one flip makes appear: rendered under it to learn them.
    let mut by_flip: BTreeMap<(String, bool), Vec<Id>> = BTreeMap::new();
    for (id, flips) in appeared {
        if flips.len() == 1 {
            by_flip.entry(flips[0].clone()).or_default().push(id);
        } else {
            // More than one value renders it: any of them changes the set.
            guards.extend(flips.into_iter().map(|f| f.0));
        }
    }
    for ((path, d), ids) in by_flip {
        let flip: Overrides = vec![(path.clone(), json!(!d))];
        let Some(under) = p.render(&flip) else {
            continue;
        };
        let mut extra_when: BTreeMap<Id, Vec<SwitchFact>> = BTreeMap::new();
        // Values the flipped-in workloads' templates or helpers may read.
        let read = |key: &str| {
            ids.iter().any(|id| {
                texts.iter().any(|(file, text)| {
                    (*file == id.template
                        || file.rsplit('/').next().is_some_and(|n| n.starts_with('_')))
                        && reads_key(text, key)
                })
            })
        };
        for (other, od) in &bools {
            if *other == path || !read(other.rsplit('.').next().unwrap_or(other)) {
                continue;
            }
            let mut o = flip.clone();
            o.push((other.clone(), json!(!od)));
            let Some(r) = p.render(&o) else { continue };
            for id in ids.iter().filter(|id| !r.contains_key(*id)) {
                extra_when.entry(id.clone()).or_default().push(SwitchFact {
                    value: other.clone(),
                    default: *od,
                    needs: *od,
                });
            }
        }
        let sub: Workloads = under
            .iter()
            .filter(|(id, _)| ids.contains(id))
            .map(|(id, w)| (id.clone(), w.clone()))
            .collect();
        let mut no_moves = BTreeSet::new();
        // Subcharts a flip enables bring their defaults only then.
        let flipped_defaults = p.defaults(&flip).unwrap_or_else(|| defaults.clone());
        let fields = learn_fields(
            &mut p,
            &flip,
            &sub,
            &candidates,
            &flipped_defaults,
            &mut no_moves,
        );
        for (id, pod) in &sub {
            let mut sw = extra_when.remove(id).unwrap_or_default();
            sw.push(SwitchFact {
                value: path.clone(),
                default: d,
                needs: !d,
            });
            sw.sort();
            let mut namespace_values = BTreeSet::new();
            for (leaf, v) in &leaves {
                if v.is_string() && is_ns(leaf) {
                    let mut o = flip.clone();
                    o.push((leaf.clone(), json!(OTHER_NAMESPACE)));
                    if let Some(r) = p.render(&o) {
                        if r.get(id).is_some_and(|w| w.namespace != pod.namespace) {
                            namespace_values.insert(leaf.clone());
                        }
                    }
                }
            }
            workloads.push(WorkloadFact {
                id: id.clone(),
                name: pod.name.clone(),
                namespace: pod.namespace.clone(),
                namespace_values,
                when: sw,
                fields: fields.get(id).cloned().unwrap_or_default(),
            });
        }
    }
    phase(&p, "flipped workloads");
    // A switch is not a guard; neither is a namespace value.
    for w in &workloads {
        for s in &w.when {
            guards.remove(&s.value);
        }
        for n in &w.namespace_values {
            guards.remove(n);
        }
    }
    workloads.sort_by(|a, b| a.id.cmp(&b.id));
    let renders = p.renders;
    Ok((
        ChartFacts {
            name: p.name,
            version,
            guards,
            workloads,
        },
        renders,
    ))
}

fn chart_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("Chart.yaml")).ok()?;
    text.lines().find_map(|l| {
        l.strip_prefix("version:")
            .map(|v| v.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// Candidate value paths per field: values and template reads whose last
/// key names the field.
fn field_candidates(leaves: &[(String, Json)], paths: &BTreeSet<String>) -> Vec<Vec<String>> {
    FIELDS
        .iter()
        .map(|f| {
            let mut c: BTreeSet<String> = BTreeSet::new();
            for path in leaves.iter().map(|(p, _)| p).chain(paths.iter()) {
                if path.rsplit('.').next().is_some_and(|k| f.matches_key(k)) {
                    c.insert(path.clone());
                }
            }
            c.into_iter().collect()
        })
        .collect()
}

/// Which values set each field of `targets`, rendered under `flip`.
fn learn_fields(
    p: &mut Prober,
    flip: &[(String, Json)],
    targets: &Workloads,
    candidates: &[Vec<String>],
    defaults: &Json,
    moved: &mut BTreeSet<(Id, usize)>,
) -> BTreeMap<Id, Vec<FieldFact>> {
    let mut out: BTreeMap<Id, Vec<FieldFact>> = BTreeMap::new();
    let default_of = |path: &str| get_path(defaults, path).cloned().unwrap_or(Json::Null);
    for f in FIELDS {
        let fi = f.index();
        let cands = &candidates[fi];
        // Alone, then with the others that set anything emptied.
        let mut sets: Vec<BTreeSet<Id>> = vec![BTreeSet::new(); cands.len()];
        for (n, c) in cands.iter().enumerate() {
            let mut o = flip.to_vec();
            o.push((c.clone(), f.marker(n, &default_of(c))));
            if let Some(r) = p.render(&o) {
                for (id, w) in &r {
                    if let Some(t) = targets.get(id) {
                        if w.fields[fi] != t.fields[fi] {
                            moved.insert((id.clone(), fi));
                        }
                        if f.carries(&w.fields[fi], n, &t.fields[fi]) {
                            sets[n].insert(id.clone());
                        }
                    }
                }
            }
        }
        if !f.is_bool() {
            let active: Vec<usize> = (0..cands.len()).filter(|n| !sets[*n].is_empty()).collect();
            for (n, c) in cands.iter().enumerate() {
                let others: Vec<usize> = active.iter().copied().filter(|m| *m != n).collect();
                if others.is_empty() {
                    continue;
                }
                let mut o = flip.to_vec();
                for m in &others {
                    o.push((cands[*m].clone(), f.empty()));
                }
                o.push((c.clone(), f.marker(n, &default_of(c))));
                if let Some(r) = p.render(&o) {
                    for (id, w) in &r {
                        if targets.contains_key(id) && f.carries(&w.fields[fi], n, &Json::Null) {
                            sets[n].insert(id.clone());
                        }
                    }
                }
            }
        }
        for (id, t) in targets {
            let sources: Vec<usize> = (0..cands.len()).filter(|n| sets[*n].contains(id)).collect();
            if sources.is_empty() {
                continue;
            }
            let Some((order, all)) = precedence(p, flip, f, id, &sources, cands, &default_of)
            else {
                if std::env::var_os("FPLINT_CHARTS_TRACE").is_some() {
                    let names: Vec<&String> = sources.iter().map(|n| &cands[*n]).collect();
                    eprintln!(
                        "  {} {:?}: no precedence among {names:?}",
                        id.template,
                        f.known()
                    );
                }
                continue;
            };
            out.entry(id.clone()).or_default().push(FieldFact {
                field: f,
                values: order.iter().map(|n| cands[*n].clone()).collect(),
                defaults: order
                    .iter()
                    .map(|n| default_of(&cands[*n]).to_string())
                    .collect(),
                all,
                rendered: t.fields[fi].to_string(),
            });
        }
    }
    out
}

/// The order in which `sources` set field `f` of workload `id`, and whether
/// all of them render. `None`: neither Helm's `default` nor a plain join.
fn precedence(
    p: &mut Prober,
    flip: &[(String, Json)],
    f: Field,
    id: &Id,
    sources: &[usize],
    cands: &[String],
    default_of: &dyn Fn(&str) -> Json,
) -> Option<(Vec<usize>, bool)> {
    let fi = f.index();
    let marker = |n: usize| f.marker(n, &default_of(&cands[n]));
    if f.is_bool() {
        return (sources.len() == 1).then(|| (sources.to_vec(), false));
    }
    let mut remaining = sources.to_vec();
    let mut order: Vec<usize> = Vec::new();
    while !remaining.is_empty() {
        let mut o = flip.to_vec();
        for n in &order {
            o.push((cands[*n].clone(), f.empty()));
        }
        for n in &remaining {
            o.push((cands[*n].clone(), marker(*n)));
        }
        let r = p.render(&o)?;
        let rendered = &r.get(id)?.fields[fi];
        let shown: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|n| f.carries(rendered, *n, &Json::Null))
            .collect();
        if shown.len() == 1 {
            // The winner alone, nothing of the chart's own beside it.
            if f.pod_level() && *rendered != marker(shown[0]) {
                return None;
            }
            order.push(shown[0]);
            remaining.retain(|n| *n != shown[0]);
        } else if order.is_empty() && shown.len() == remaining.len() && remaining.len() > 1 {
            if !only_markers(
                f,
                rendered,
                &remaining.iter().map(|n| marker(*n)).collect::<Vec<_>>(),
            ) {
                return None;
            }
            return Some((remaining, true));
        } else {
            return None;
        }
    }
    Some((order, false))
}

/// Whether `rendered` is made of the markers' parts alone.
fn only_markers(f: Field, rendered: &Json, markers: &[Json]) -> bool {
    match (f, rendered) {
        (Field::Tolerations, Json::Array(items)) => items.iter().all(|i| {
            markers
                .iter()
                .any(|m| m.as_array().is_some_and(|a| a.contains(i)))
        }),
        (Field::NodeSelector, Json::Object(map)) => map
            .iter()
            .all(|(k, v)| markers.iter().any(|m| m.get(k) == Some(v))),
        _ => false,
    }
}

/// A pin of the corpus: where a chart folder came from.
#[derive(Debug, Clone)]
pub struct PinInfo {
    pub repo: String,
    pub commit: String,
    pub folder: String,
}

/// The pin of cache folder `name` (`owner__repo__last[@short]`), from its
/// stamp and `charts.tsv`.
fn pin_of(corpus: &Path, name: &str, tsv: &str) -> Option<PinInfo> {
    let (base, short) = match name.split_once('@') {
        Some((b, s)) => (b, Some(s)),
        None => (name, None),
    };
    let mut parts = base.splitn(3, "__");
    let (owner, repo, last) = (parts.next()?, parts.next()?, parts.next()?);
    let repo = format!("{owner}/{repo}");
    let stamp = std::fs::read_to_string(corpus.join(format!("{name}.stamp"))).ok();
    let from_stamp = stamp.as_deref().and_then(|s| {
        let mut f = s.trim_end().split('\t');
        Some((f.next()?.to_string(), f.next()?.to_string()))
    });
    let from_tsv = tsv.lines().find_map(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        (f.len() >= 3
            && f[0] == repo
            && f[2].trim_end_matches('/').rsplit('/').next() == Some(last)
            && short.is_none_or(|s| f[1].starts_with(s)))
        .then(|| (f[1].to_string(), f[2].trim_end_matches('/').to_string()))
    });
    let (commit, folder) = from_stamp.or(from_tsv)?;
    Some(PinInfo {
        repo,
        commit,
        folder,
    })
}

/// The version a pin's row in `charts.tsv` gives with `chart-version=X` in
/// its note: for charts whose Chart.yaml holds a placeholder the release
/// tooling replaces (cert-manager's `v0.0.0`, istio's `1.0.0`), the release
/// tag at the pinned commit.
fn release_version(tsv: &str, pin: &PinInfo) -> Option<String> {
    tsv.lines().find_map(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() < 5
            || f[0] != pin.repo
            || f[1] != pin.commit
            || f[2].trim_end_matches('/') != pin.folder
        {
            return None;
        }
        f[4].split_whitespace()
            .find_map(|w| w.strip_prefix("chart-version="))
            .map(|v| v.trim_end_matches([',', ';', '.']).to_string())
    })
}

/// `(major, minor, patch)` of a chart version.
pub fn parse_version(v: &str) -> Option<(u64, u64, u64)> {
    let v = v.trim().trim_start_matches('v');
    let core = v.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    Some((major, minor, patch))
}

/// The chart knowledge for the learned pins, as `known.json` holds it:
/// consecutive versions of a chart with the same facts share one range.
pub fn known_charts(mut pins: Vec<(ChartFacts, PinInfo)>) -> Vec<KnownChart> {
    pins.sort_by(|a, b| {
        (a.0.name.as_str(), parse_version(&a.0.version), &a.1.commit).cmp(&(
            b.0.name.as_str(),
            parse_version(&b.0.version),
            &b.1.commit,
        ))
    });
    let mut ranges: Vec<Vec<(ChartFacts, PinInfo)>> = Vec::new();
    for pin in pins {
        match ranges.last_mut() {
            Some(r) if r[0].0.name == pin.0.name && r[r.len() - 1].0.same_facts(&pin.0) => {
                r.push(pin)
            }
            _ => ranges.push(vec![pin]),
        }
    }
    let mut out = Vec::new();
    // Ranges cover whole minor versions (a chart's patch releases keep its
    // layout), except where facts change inside a minor: there the range
    // starts at its pinned patch.
    let froms: Vec<(u64, u64, u64)> = ranges
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let oldest = parse_version(&r[0].0.version).unwrap_or_default();
            let prev = i
                .checked_sub(1)
                .and_then(|p| ranges.get(p))
                .filter(|p| p[0].0.name == r[0].0.name)
                .and_then(|p| parse_version(&p[p.len() - 1].0.version));
            match prev {
                Some(p) if (p.0, p.1) == (oldest.0, oldest.1) => oldest,
                _ => (oldest.0, oldest.1, 0),
            }
        })
        .collect();
    for (i, r) in ranges.iter().enumerate() {
        let newest = &r[r.len() - 1].0;
        let from = froms[i];
        let top = parse_version(&newest.version).unwrap_or_default();
        // After the newest pinned minor, or where the next facts begin.
        let mut until = (top.0, top.1 + 1, 0);
        if ranges
            .get(i + 1)
            .is_some_and(|n| n[0].0.name == newest.name)
        {
            until = until.min(froms[i + 1]);
        }
        if until <= from {
            eprintln!(
                "charts: {} {}: left out: another pin of the same version has other facts",
                newest.name, newest.version
            );
            continue;
        }
        let w = |t: &str| -> &'static str { t.to_string().leak() };
        let ws = |ts: &mut dyn Iterator<Item = &String>| -> &'static [&'static str] {
            ts.map(|t| w(t)).collect::<Vec<_>>().leak()
        };
        let pins: Vec<Pin> = r
            .iter()
            .map(|(facts, pin)| Pin {
                version: w(&facts.version),
                repo: w(&pin.repo),
                commit: w(&pin.commit),
                folder: w(&pin.folder),
            })
            .collect();
        let workloads: Vec<ChartWorkload> = newest
            .workloads
            .iter()
            .map(|wl| ChartWorkload {
                kind: w(&wl.id.kind),
                name: w(&wl.name),
                template: w(&wl.id.template),
                namespace: wl.namespace.as_deref().map(w),
                namespace_values: ws(&mut wl.namespace_values.iter()),
                when: wl
                    .when
                    .iter()
                    .map(|sw| Switch {
                        value: w(&sw.value),
                        default: sw.default,
                        needs: sw.needs,
                    })
                    .collect::<Vec<_>>()
                    .leak(),
                fields: wl
                    .fields
                    .iter()
                    .map(|f| FieldSource {
                        field: f.field.known(),
                        values: ws(&mut f.values.iter()),
                        defaults: ws(&mut f.defaults.iter()),
                        join: if f.all { Join::All } else { Join::First },
                        rendered: w(&f.rendered),
                    })
                    .collect::<Vec<_>>()
                    .leak(),
            })
            .collect();
        out.push(KnownChart {
            name: w(&newest.name),
            from,
            until,
            pins: pins.leak(),
            guards: ws(&mut newest.guards.iter()),
            workloads: workloads.leak(),
        });
    }
    out
}

fn default_corpus() -> PathBuf {
    if let Some(dir) = std::env::var_os("FPLINT_CHART_CORPUS") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("fplint").join("chart-corpus")
}

/// `charts [--corpus DIR] [--out FILE]`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut corpus = default_corpus();
    let mut out = root.join("crates/rules/src/charts/known.json");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--corpus", Some(v)) => corpus = PathBuf::from(v),
            ("--out", Some(v)) => out = PathBuf::from(v),
            _ => {
                eprintln!("usage: cargo run -p xtask -- charts [--corpus DIR] [--out FILE]");
                return 2;
            }
        }
    }
    let tsv = std::fs::read_to_string(root.join("scripts/charts.tsv")).unwrap_or_default();
    let cluster = std::fs::read_to_string(root.join("scripts/chart-cases/cluster-values.yaml"))
        .ok()
        .and_then(|t| yaml_to_json(&t));
    let mut names: Vec<String> = match std::fs::read_dir(&corpus) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("Chart.yaml").is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect(),
        Err(e) => {
            eprintln!("charts: {}: {e}", corpus.display());
            return 1;
        }
    };
    names.sort();
    let start = Instant::now();
    let mut learned = Vec::new();
    let mut renders = 0;
    for name in &names {
        let Some(pin) = pin_of(&corpus, name, &tsv) else {
            eprintln!("charts: {name}: skipped: no stamp and no row in scripts/charts.tsv");
            continue;
        };
        let t = Instant::now();
        let dir = corpus.join(name);
        let release_tag = release_version(&tsv, &pin);
        let got = learn(&dir, None).or_else(|e| match &cluster {
            Some(c) => learn(&dir, Some(c.clone())),
            None => Err(e),
        });
        match got {
            Ok((mut facts, n)) => {
                if let Some(tag) = &release_tag {
                    facts.version = tag.clone();
                } else if parse_version(&facts.version).is_none_or(|v| v == (0, 0, 0)) {
                    match &release_tag {
                        Some(tag) => facts.version = tag.clone(),
                        None => {
                            eprintln!(
                                "charts: {name}: skipped: Chart.yaml's version {:?} is a placeholder and no release is tagged at {}",
                                facts.version, pin.commit
                            );
                            continue;
                        }
                    }
                }
                eprintln!(
                    "charts: {name}: {} {}: {} workloads, {} guards, {n} renders, {:.1}s",
                    facts.name,
                    facts.version,
                    facts.workloads.len(),
                    facts.guards.len(),
                    t.elapsed().as_secs_f64()
                );
                renders += n;
                learned.push((facts, pin));
            }
            Err(e) => eprintln!("charts: {name}: skipped: {e}"),
        }
    }
    let text = match known::to_json(&known_charts(learned)) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("charts: {e}");
            return 1;
        }
    };
    let tmp = out.with_extension("json.tmp");
    if let Err(e) = std::fs::write(&tmp, &text).and_then(|_| std::fs::rename(&tmp, &out)) {
        eprintln!("charts: {}: {e}", out.display());
        return 1;
    }
    eprintln!(
        "charts: wrote {} ({} renders, {:.1}s)",
        out.display(),
        renders,
        start.elapsed().as_secs_f64()
    );
    0
}

fn yaml_to_json(text: &str) -> Option<Json> {
    let limits = Limits::default();
    let (docs, _) =
        fplint_helm::parse_yaml(text, limits.max_values_depth, limits.max_values_nodes).ok()?;
    serde_json::from_str(&fplint_helm::to_json(docs.first()?, false).ok()?).ok()
}
