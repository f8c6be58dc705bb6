//! Loading a chart from a folder or a `.tgz` archive, as Helm's loader does.

use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

use crate::value::{parse_yaml, Map, Value, ValueSpan};
use crate::Limits;

/// A chart file: its path inside the chart (`templates/x.yaml`) and text.
#[derive(Debug, Clone)]
pub struct ChartFile {
    pub path: String,
    pub data: Vec<u8>,
}

/// A dependency as `Chart.yaml` declares it.
#[derive(Debug, Clone, Default)]
pub struct Dependency {
    pub name: String,
    pub alias: Option<String>,
    pub condition: Option<String>,
    pub tags: Vec<String>,
    pub import_values: Vec<ImportValue>,
    pub version: String,
    pub repository: String,
}

#[derive(Debug, Clone)]
pub struct ImportValue {
    pub child: String,
    pub parent: String,
}

/// A loaded chart (Helm's `chart.Chart`).
#[derive(Debug, Clone)]
pub struct Chart {
    /// `Chart.yaml` as read.
    pub metadata: Value,
    pub name: String,
    pub is_library: bool,
    /// `values.yaml`, and where each of its values was written.
    pub values: Value,
    pub values_spans: Vec<ValueSpan>,
    pub values_text: String,
    pub templates: Vec<ChartFile>,
    /// Files other than templates, Chart.yaml, values.yaml and charts/ (`.Files`).
    pub files: BTreeMap<String, Vec<u8>>,
    pub crds: Vec<ChartFile>,
    pub dependencies: Vec<Dependency>,
    pub subcharts: Vec<Chart>,
    /// `values.schema.json`, when present and readable.
    pub schema: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
pub struct ChartError {
    /// The file at fault, relative to the chart (`charts/x.tgz: values.yaml`
    /// inside an archive), or empty.
    pub path: String,
    pub message: String,
    /// Byte offset of the fault in that file, when known.
    pub offset: Option<usize>,
    /// The limit exceeded, if that is the cause.
    pub limit: Option<&'static str>,
}

fn cerr(path: &str, message: impl Into<String>) -> ChartError {
    ChartError {
        path: path.to_string(),
        message: message.into(),
        offset: None,
        limit: None,
    }
}

/// A YAML file of the chart that does not read; too deep or too large
/// for fplint's limits names the limit.
fn yaml_err(path: &str, e: crate::value::YamlError) -> ChartError {
    let limit = if e.message.contains("nested deeper than") {
        Some("max-values-depth")
    } else if e.message.contains("more than") && e.message.contains("nodes") {
        Some("max-values-nodes")
    } else {
        None
    };
    ChartError {
        path: path.to_string(),
        message: e.message,
        offset: Some(e.offset),
        limit,
    }
}

impl Chart {
    /// Loads a chart folder.
    pub fn load_dir(dir: &Path, limits: &Limits) -> Result<Chart, ChartError> {
        let mut files = Vec::new();
        let mut total = 0usize;
        read_dir(dir, "", &mut files, &mut total, limits, 0)?;
        Chart::from_files(files, limits, 0)
    }

    /// Loads a chart archive (`.tgz`), bounded by the limits.
    pub fn load_archive(bytes: &[u8], limits: &Limits) -> Result<Chart, ChartError> {
        Chart::from_archive(bytes, limits, 0)
    }

    fn from_archive(bytes: &[u8], limits: &Limits, depth: usize) -> Result<Chart, ChartError> {
        let tar = crate::archive::gunzip(bytes, limits.max_chart_bytes)?;
        let entries = crate::archive::untar(&tar, limits)?;
        // Archives hold one top folder named after the chart.
        let mut files = Vec::new();
        for (path, data) in entries {
            let Some((_, rest)) = path.split_once('/') else {
                continue;
            };
            if !rest.is_empty() {
                files.push(ChartFile {
                    path: rest.to_string(),
                    data,
                });
            }
        }
        Chart::from_files(files, limits, depth)
    }

    /// Builds a chart from its files (paths relative to the chart folder).
    pub fn from_files(
        files: Vec<ChartFile>,
        limits: &Limits,
        depth: usize,
    ) -> Result<Chart, ChartError> {
        if depth > limits.max_subchart_depth {
            return Err(ChartError {
                path: "charts".into(),
                message: format!(
                    "subcharts nested deeper than {} levels",
                    limits.max_subchart_depth
                ),
                offset: None,
                limit: Some("max-subchart-depth"),
            });
        }
        let ignore = files
            .iter()
            .find(|f| f.path == ".helmignore")
            .map(|f| HelmIgnore::new(&String::from_utf8_lossy(&f.data)))
            .unwrap_or_default();
        let Some(chart_yaml) = files.iter().find(|f| f.path == "Chart.yaml") else {
            return Err(cerr("Chart.yaml", "Chart.yaml file is missing"));
        };
        let text = String::from_utf8_lossy(&chart_yaml.data).into_owned();
        let metadata = parse_yaml(&text, limits.max_values_depth, limits.max_values_nodes)
            .map_err(|e| yaml_err("Chart.yaml", e))?
            .0
            .into_iter()
            .next()
            .unwrap_or_default();
        let Value::Map(meta) = &metadata else {
            return Err(cerr("Chart.yaml", "Chart.yaml is not a mapping"));
        };
        // A chart of apiVersion v1 lists its dependencies in requirements.yaml,
        // which Helm's loader reads over Chart.yaml's fields (any apiVersion).
        if let Some(req) = files.iter().find(|f| f.path == "requirements.yaml") {
            let text = String::from_utf8_lossy(&req.data);
            let doc = parse_yaml(&text, limits.max_values_depth, limits.max_values_nodes)
                .map_err(|e| yaml_err("requirements.yaml", e))?
                .0
                .into_iter()
                .next();
            if let Some(Value::Map(r)) = doc {
                if let Some(d) = r.borrow().get("dependencies") {
                    meta.borrow_mut().insert("dependencies".into(), d.clone());
                }
            }
        }
        let meta = meta.borrow().clone();
        let get_str = |k: &str| meta.get(k).and_then(go_string);
        // Helm takes a Chart.yaml without apiVersion for a v1 chart.
        let v1 = matches!(get_str("apiVersion").as_deref(), None | Some("v1"));
        let Some(name) = get_str("name") else {
            return Err(cerr("Chart.yaml", "chart.metadata.name is required"));
        };
        let is_library = get_str("type").as_deref() == Some("library");
        let dependencies = match meta.get("dependencies") {
            Some(Value::List(l)) => l.iter().filter_map(dependency).collect(),
            _ => Vec::new(),
        };

        let mut values = Value::empty_map();
        let mut values_spans = Vec::new();
        let mut values_text = String::new();
        let mut templates = Vec::new();
        let mut crds = Vec::new();
        let mut other = BTreeMap::new();
        let mut sub_files: BTreeMap<String, Vec<ChartFile>> = BTreeMap::new();
        let mut sub_archives: Vec<(String, Vec<u8>)> = Vec::new();
        let mut schema = None;
        for f in files {
            if ignore.ignored(&f.path) {
                continue;
            }
            if f.path == "Chart.yaml" {
                continue;
            }
            if f.path == "values.yaml" {
                values_text = String::from_utf8_lossy(&f.data).into_owned();
                let (docs, spans) = parse_yaml(
                    &values_text,
                    limits.max_values_depth,
                    limits.max_values_nodes,
                )
                .map_err(|e| yaml_err("values.yaml", e))?;
                values = match docs.into_iter().next() {
                    Some(v @ Value::Map(_)) => v,
                    Some(Value::Nil) | None => Value::empty_map(),
                    Some(_) => return Err(cerr("values.yaml", "values.yaml is not a mapping")),
                };
                values_spans = spans;
                continue;
            }
            if let Some(rest) = f.path.strip_prefix("charts/") {
                match rest.split_once('/') {
                    Some((sub, inner)) => {
                        sub_files
                            .entry(sub.to_string())
                            .or_default()
                            .push(ChartFile {
                                path: inner.to_string(),
                                data: f.data,
                            })
                    }
                    None if rest.ends_with(".tgz") || rest.ends_with(".tar.gz") => {
                        sub_archives.push((f.path.clone(), f.data))
                    }
                    None => {}
                }
                continue;
            }
            if f.path.starts_with("templates/") {
                templates.push(f);
            } else {
                if f.path.starts_with("crds/") {
                    crds.push(f.clone());
                }
                if f.path == "values.schema.json" {
                    // JSON is read as YAML; a schema that does not read is not checked.
                    let text = String::from_utf8_lossy(&f.data).replace('\t', " ");
                    schema = parse_yaml(&text, limits.max_values_depth, limits.max_values_nodes)
                        .ok()
                        .and_then(|(d, _)| d.into_iter().next());
                } else if v1 || (f.path != "requirements.yaml" && f.path != "requirements.lock") {
                    // A v1 chart keeps its requirements files among `.Files`.
                    other.insert(f.path, f.data);
                }
            }
        }
        let mut subcharts = Vec::new();
        for (sub, fs) in sub_files {
            if fs.iter().any(|f| f.path == "Chart.yaml") {
                let c = Chart::from_files(fs, limits, depth + 1).map_err(|mut e| {
                    e.path = if e.path.is_empty() || e.path.contains(": ") {
                        format!("charts/{sub}: {}", e.path)
                    } else {
                        format!("charts/{sub}/{}", e.path)
                    };
                    e
                })?;
                subcharts.push(c);
            }
        }
        for (path, data) in sub_archives {
            let c = Chart::from_archive(&data, limits, depth + 1).map_err(|mut e| {
                // The archive's own bytes cannot be pointed into.
                e.path = if e.path.is_empty() {
                    path.clone()
                } else {
                    format!("{path}: {}", e.path)
                };
                e.offset = None;
                e
            })?;
            subcharts.push(c);
        }
        templates.sort_by(|a, b| a.path.cmp(&b.path));
        crds.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Chart {
            metadata,
            name,
            is_library,
            values,
            values_spans,
            values_text,
            templates,
            files: other,
            crds,
            dependencies,
            subcharts,
            schema,
        })
    }

    /// The chart's `version` from Chart.yaml, empty when it has none.
    pub fn version(&self) -> String {
        match &self.metadata {
            Value::Map(m) => match m.borrow().get("version") {
                Some(v) => go_string(v).unwrap_or_default(),
                None => String::new(),
            },
            _ => String::new(),
        }
    }

    /// `.Chart` as templates see it: Helm's `chart.Metadata` field names.
    pub fn chart_object(&self) -> Value {
        let meta = match &self.metadata {
            Value::Map(m) => m.borrow().clone(),
            _ => Map::new(),
        };
        let mut m = Map::new();
        let fields: [(&str, &str, Value); 17] = [
            ("Name", "name", Value::str("")),
            ("Home", "home", Value::str("")),
            ("Sources", "sources", Value::Nil),
            ("Version", "version", Value::str("")),
            ("Description", "description", Value::str("")),
            ("Keywords", "keywords", Value::Nil),
            ("Maintainers", "maintainers", Value::Nil),
            ("Icon", "icon", Value::str("")),
            ("APIVersion", "apiVersion", Value::str("")),
            ("Condition", "condition", Value::str("")),
            ("Tags", "tags", Value::str("")),
            ("AppVersion", "appVersion", Value::str("")),
            ("Deprecated", "deprecated", Value::Bool(false)),
            ("Annotations", "annotations", Value::Nil),
            ("KubeVersion", "kubeVersion", Value::str("")),
            ("Dependencies", "dependencies", Value::Nil),
            ("Type", "type", Value::str("")),
        ];
        for (go, yaml, zero) in fields {
            let v = match (meta.get(yaml), &zero) {
                (Some(Value::Nil) | None, _) => zero,
                // A string field reads a number or boolean as its text
                // (`name: 2048` is "2048", `version: 1.0` is "1").
                (Some(v), Value::Str(_)) => go_string(v).map_or_else(|| v.clone(), Value::str),
                // `sources` and `keywords` hold strings, `annotations` maps to them.
                (Some(Value::List(l)), _) if matches!(yaml, "sources" | "keywords") => {
                    Value::list(l.iter().map(as_go_string).collect())
                }
                (Some(Value::Map(a)), _) if yaml == "annotations" => Value::map(
                    a.borrow()
                        .iter()
                        .map(|(k, v)| (k.clone(), as_go_string(v)))
                        .collect(),
                ),
                (Some(v), _) => rename_fields(v),
            };
            m.insert(go.into(), v);
        }
        m.insert("IsRoot".into(), Value::Bool(true));
        Value::map(m)
    }
}

/// A Chart.yaml scalar as Helm reads it into a string field: its loader
/// (`sigs.k8s.io/yaml`) turns a number or boolean into its text, so
/// `name: 2048` is the chart "2048". Anything else is not a string.
fn go_string(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.to_string()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(crate::value::go_float_g(*f)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A scalar read as a Go string; anything else as it is.
fn as_go_string(v: &Value) -> Value {
    go_string(v).map_or_else(|| v.clone(), Value::str)
}

/// The fields of maintainers and dependencies that are Go strings.
const STRING_FIELDS: [&str; 7] = [
    "name",
    "email",
    "url",
    "version",
    "repository",
    "condition",
    "alias",
];

/// Maintainers and dependencies as Go structs name their fields.
fn rename_fields(v: &Value) -> Value {
    match v {
        Value::List(l) => Value::list(
            l.iter()
                .map(|e| match e {
                    Value::Map(m) => {
                        let mut out = Map::new();
                        for (k, v) in m.borrow().iter() {
                            let go = match k.as_str() {
                                "name" => "Name",
                                "email" => "Email",
                                "url" => "URL",
                                "version" => "Version",
                                "repository" => "Repository",
                                "condition" => "Condition",
                                "tags" => "Tags",
                                "alias" => "Alias",
                                "import-values" => "ImportValues",
                                "enabled" => "Enabled",
                                other => other,
                            };
                            let v = if STRING_FIELDS.contains(&k.as_str()) {
                                as_go_string(v)
                            } else {
                                v.clone()
                            };
                            out.insert(go.to_string(), v);
                        }
                        Value::map(out)
                    }
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn dependency(v: &Value) -> Option<Dependency> {
    let Value::Map(m) = v else { return None };
    let m = m.borrow();
    let s = |k: &str| m.get(k).and_then(go_string);
    let tags = match m.get("tags") {
        Some(Value::List(l)) => l.iter().filter_map(go_string).collect(),
        _ => Vec::new(),
    };
    let import_values = match m.get("import-values") {
        Some(Value::List(l)) => l
            .iter()
            .filter_map(|iv| match iv {
                Value::Str(s) => Some(ImportValue {
                    child: format!("exports.{s}"),
                    parent: ".".into(),
                }),
                Value::Map(im) => {
                    let im = im.borrow();
                    Some(ImportValue {
                        child: im.get("child")?.as_str()?.to_string(),
                        parent: im.get("parent")?.as_str()?.to_string(),
                    })
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some(Dependency {
        name: s("name")?,
        alias: s("alias"),
        condition: s("condition"),
        tags,
        import_values,
        version: s("version").unwrap_or_default(),
        repository: s("repository").unwrap_or_default(),
    })
}

fn read_dir(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<ChartFile>,
    total: &mut usize,
    limits: &Limits,
    depth: usize,
) -> Result<(), ChartError> {
    if depth > 32 {
        return Err(cerr(prefix, "folders nested too deeply"));
    }
    let rd =
        std::fs::read_dir(dir).map_err(|e| cerr(prefix, format!("cannot read folder: {e}")))?;
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let Ok(mut ft) = e.file_type() else { continue };
        if ft.is_symlink() {
            // Helm follows links; a linked folder could loop, so only files.
            match std::fs::metadata(e.path()) {
                Ok(m) if m.is_file() => ft = m.file_type(),
                Ok(_) => continue,
                Err(err) => return Err(cerr(&rel, format!("error evaluating symlink: {err}"))),
            }
        }
        if ft.is_dir() {
            if name == ".git" {
                continue;
            }
            read_dir(&e.path(), &rel, out, total, limits, depth + 1)?;
        } else if ft.is_file() {
            let len = e.metadata().map(|m| m.len() as usize).unwrap_or(0);
            *total = total.saturating_add(len);
            if *total > limits.max_chart_bytes {
                return Err(ChartError {
                    path: rel,
                    message: format!("chart larger than {} bytes", limits.max_chart_bytes),
                    offset: None,
                    limit: Some("max-chart-bytes"),
                });
            }
            let data =
                std::fs::read(e.path()).map_err(|err| cerr(&rel, format!("cannot read: {err}")))?;
            out.push(ChartFile { path: rel, data });
        }
    }
    Ok(())
}

/// `.helmignore`: the common subset of its rules (globs, folders, `!`).
#[derive(Default)]
struct HelmIgnore {
    rules: Vec<(bool, String, bool)>,
}

impl HelmIgnore {
    fn new(text: &str) -> Self {
        let mut rules = Vec::new();
        for line in text.lines() {
            let l = line.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let (neg, l) = match l.strip_prefix('!') {
                Some(r) => (true, r),
                None => (false, l),
            };
            let (dir_only, l) = match l.strip_suffix('/') {
                Some(r) => (true, r),
                None => (false, l),
            };
            rules.push((neg, l.trim_start_matches('/').to_string(), dir_only));
        }
        HelmIgnore { rules }
    }

    fn ignored(&self, path: &str) -> bool {
        if path == "Chart.yaml" {
            return false;
        }
        let mut ignored = false;
        let parts: Vec<&str> = path.split('/').collect();
        for (neg, pat, dir_only) in &self.rules {
            let hit = (0..parts.len()).any(|i| {
                let is_dir = i + 1 < parts.len();
                if *dir_only && !is_dir {
                    return false;
                }
                let sub = parts[..=i].join("/");
                if pat.contains('/') {
                    crate::funcs::glob_match(pat, &sub)
                } else {
                    crate::funcs::glob_match(pat, parts[i])
                }
            });
            if hit {
                ignored = !neg;
            }
        }
        ignored
    }
}

/// Values of the `.Files` object, shared by all templates of a chart.
pub fn files_object(chart: &Chart) -> Value {
    Value::Object(Rc::new(crate::value::Object::Files(Rc::new(
        chart.files.clone(),
    ))))
}
