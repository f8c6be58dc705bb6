//! `helmfile.yaml`: each release of `releases:` is a Helm release that
//! helmfile applies to a cluster that already exists (it is run by hand or
//! by a pipeline after the cluster), so ordering against profiles never
//! applies. `chart` is `repo/name` with the repository from
//! `repositories:`, or a local folder (unknown content). Values files
//! (relative to the helmfile), inline values and `set` are merged in
//! helmfile's order; values files are read once files can be. Templated parts (`{{ ... }}`) are unknown; a file
//! that only parses once rendered is skipped.

use super::shared::release::{self, typed};
use super::shared::{join, loc_of, located_str};
use super::UnitOutput;
use crate::model::{AppliedBy, HelmRelease, Known, Located, ValuesPart};
use crate::source::SourceFile;
use crate::tree::Parsed;
use crate::value::{Value, ValueKind};

/// Whether a file is a helmfile, by its name.
pub fn is_helmfile(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    matches!(name, "helmfile.yaml" | "helmfile.yml")
}

/// Read every release of every document (helmfile's layers) into the unit.
pub fn load(file: &SourceFile, parsed: &Parsed, out: &mut UnitOutput) {
    for doc in &parsed.documents {
        let v = Value::from_node(doc);
        let repos: Vec<(String, Option<&Value>)> = v
            .get("repositories")
            .and_then(Value::as_list)
            .unwrap_or_default()
            .iter()
            .filter_map(|r| Some((r.get("name")?.as_str()?.to_string(), r.get("url"))))
            .collect();
        let Some(releases) = v.get("releases").and_then(Value::as_list) else {
            continue;
        };
        for (i, r) in releases.iter().enumerate() {
            if let Some(rel) = read_release(file, r, &format!("releases[{i}]"), &repos) {
                out.releases.push(rel);
            }
        }
    }
}

fn read_release(
    file: &SourceFile,
    r: &Value,
    path: &str,
    repos: &[(String, Option<&Value>)],
) -> Option<HelmRelease> {
    let chart = r.get("chart")?;
    // `installed: false` uninstalls it.
    if r.get("installed")
        .is_some_and(|i| matches!(i.kind, ValueKind::Bool(false)))
    {
        return None;
    }
    let chart_path = join(path, "chart");
    let mut rel = HelmRelease::new(
        located_str(chart, &chart_path),
        loc_of(r, path),
        AppliedBy::Controller,
    );
    let text = chart.as_str().unwrap_or_default();
    let prefix = text.split_once('/').map(|(p, _)| p);
    let repo = repos
        .iter()
        .find(|(n, _)| Some(n.as_str()) == prefix)
        .map(|(_, url)| url);
    match repo {
        Some(url) => {
            rel.repository = url.map(|u| located_str(u, &join(path, "repository")));
        }
        None if text.starts_with("oci://") => {}
        None => {
            // Not from a declared repository: a folder of this repository,
            // or a chart fplint cannot tell.
            let dir = release::local_folder(file, text)
                .or_else(|| {
                    let here = std::path::Path::new(&file.path).parent()?.join(text);
                    here.is_dir().then_some(here)
                })
                .filter(|d| d.join("Chart.yaml").is_file())?;
            let name = dir.file_name()?.to_string_lossy().into_owned();
            rel.chart = Located::new(Known::Known(name), loc_of(chart, &chart_path));
            rel.local_chart = true;
            rel.chart_dir = Some(dir);
        }
    }
    if let Some(n) = r.get("name") {
        rel.name = located_str(n, &join(path, "name"));
    }
    rel.namespace = match r.get("namespace") {
        Some(n) => located_str(n, &join(path, "namespace")),
        // helmfile's `--namespace` or the kube context decides it.
        None => Located::new(Known::Unknown, rel.loc.clone()),
    };
    rel.version = r
        .get("version")
        .map(|v| located_str(v, &join(path, "version")));
    let parts = values(file, r);
    release::settle(&mut rel, parts);
    Some(rel)
}

/// `values` in order (files relative to the helmfile, inline maps), then
/// `set`. A templated values file (`.gotmpl`), `secrets`, a templated entry
/// or a value of the wrong type makes them unknown.
fn values(file: &SourceFile, r: &Value) -> Vec<ValuesPart> {
    let unknown = vec![ValuesPart::Given(Known::Unknown)];
    let mut parts = Vec::new();
    // sops-encrypted files: their content is not in the repository's text.
    if r.get("secrets").is_some() || r.get("valuesTemplate").is_some() {
        return unknown;
    }
    let dir = std::path::Path::new(&file.path)
        .parent()
        .map(|p| match p.as_os_str().is_empty() {
            true => std::path::PathBuf::from("."),
            false => p.to_path_buf(),
        });
    if let Some(list) = r.get("values") {
        let Some(items) = list.as_list() else {
            return unknown;
        };
        for it in items {
            match &it.kind {
                ValueKind::Map(_) => {
                    let mut v = it.clone();
                    templated_unknown(&mut v, 0);
                    parts.push(ValuesPart::Given(Known::Known(v)));
                }
                ValueKind::String(p) if !p.contains("{{") && !p.ends_with(".gotmpl") => {
                    let path = dir.as_deref().and_then(|d| release::values_file(d, p));
                    let (Some(path), Some(at)) = (path, it.span) else {
                        return unknown;
                    };
                    parts.push(ValuesPart::File {
                        path,
                        at,
                        skip_missing: false,
                    });
                }
                _ => return unknown,
            }
        }
    }
    if let Some(set) = r.get("set") {
        let Some(items) = set.as_list() else {
            return unknown;
        };
        for s in items {
            let (Some(name), Some(value)) = (s.get("name").and_then(Value::as_str), s.get("value"))
            else {
                return unknown;
            };
            if name.contains("{{") {
                return unknown;
            }
            let leaf = match value.as_str() {
                Some(v) if v.contains("{{") => Value::unknown(value.span),
                Some(v) => typed(v, value.span),
                None => value.clone(),
            };
            parts.push(ValuesPart::Set {
                path: name.to_string(),
                leaf,
                at: s.get("name").and_then(|n| n.span),
            });
        }
    }
    parts
}

/// Strings helmfile renders are unknown.
fn templated_unknown(v: &mut Value, depth: usize) {
    if depth > 256 {
        return;
    }
    match &mut v.kind {
        ValueKind::String(s) if s.contains("{{") => v.kind = ValueKind::Unknown,
        ValueKind::List(items) => items
            .iter_mut()
            .for_each(|x| templated_unknown(x, depth + 1)),
        ValueKind::Map(entries) => entries
            .iter_mut()
            .for_each(|(_, x)| templated_unknown(x, depth + 1)),
        _ => {}
    }
}
