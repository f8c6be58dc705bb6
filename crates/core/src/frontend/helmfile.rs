//! `helmfile.yaml`: each release of `releases:` is a Helm release that
//! helmfile applies to a cluster that already exists (it is run by hand or
//! by a pipeline after the cluster), so ordering against profiles never
//! applies. `chart` is `repo/name` with the repository from
//! `repositories:`, or a local folder (unknown content). Values files are
//! not read (the values are unknown); inline values and `set` are merged in
//! helmfile's order. Templated parts (`{{ ... }}`) are unknown; a file
//! that only parses once rendered is skipped.

use super::kubernetes::{join, loc_of, located_str};
use super::release::{self, merge_into, set_path, typed};
use super::UnitOutput;
use crate::model::{AppliedBy, HelmRelease, Known, Located};
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
    rel.values = values(r);
    Some(rel)
}

/// Inline values in order, then `set`; a values file, a templated entry
/// or a value of the wrong type makes them unknown.
fn values(r: &Value) -> Known<Value> {
    let mut acc = Known::Known(release::empty());
    if let Some(list) = r.get("values") {
        let Some(items) = list.as_list() else {
            return Known::Unknown;
        };
        for it in items {
            match it.kind {
                ValueKind::Map(_) => merge_into(&mut acc, Known::Known(it.clone())),
                _ => return Known::Unknown,
            }
        }
    }
    if let Some(set) = r.get("set") {
        let Some(items) = set.as_list() else {
            return Known::Unknown;
        };
        for s in items {
            let (Some(name), Some(value)) = (s.get("name").and_then(Value::as_str), s.get("value"))
            else {
                return Known::Unknown;
            };
            if name.contains("{{") {
                return Known::Unknown;
            }
            let leaf = match value.as_str() {
                Some(v) if v.contains("{{") => Value::unknown(value.span),
                Some(v) => typed(v, value.span),
                None => value.clone(),
            };
            set_path(&mut acc, name, leaf, s.get("name").and_then(|n| n.span));
        }
    }
    if let Known::Known(v) = &mut acc {
        templated_unknown(v, 0);
    }
    acc
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
