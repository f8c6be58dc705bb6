//! Argo CD `Application`s: each Helm source is a release that Argo CD, a
//! controller in the cluster, applies once the cluster and its profiles
//! exist. A chart from a Helm repository is named by `chart`; a source
//! `path` that exists in this repository and holds a `Chart.yaml` is a local
//! chart, whose content is unknown until rendered. Other sources (a remote
//! Git path, a folder of manifests read on its own) add no release.

use super::kubernetes::{join, loc_of, located_str};
use super::release::{self, from_yaml_string, merge_into, set_path, typed};
use super::UnitOutput;
use crate::model::{AppliedBy, DirectorySource, HelmRelease, Known, Located};
use crate::source::SourceFile;
use crate::value::{Value, ValueKind};

/// Whether an object is an Argo CD `Application`.
pub fn recognise(api: &str, kind: &str) -> bool {
    api.starts_with("argoproj.io/") && kind == "Application"
}

/// Read an `Application` at `path` into the unit's declared releases.
pub fn load(file: &SourceFile, obj: &Value, path: &str, out: &mut UnitOutput) {
    let Some(spec) = obj.get("spec") else { return };
    let spec_path = join(path, "spec");
    let app_name = obj.get("metadata").and_then(|m| m.get("name"));
    let dest = spec.get("destination");
    let dest_path = join(&spec_path, "destination");
    let namespace = match dest.and_then(|d| d.get("namespace")) {
        Some(n) => located_str(n, &join(&dest_path, "namespace")),
        None => Located::new(Known::Unknown, loc_of(dest.unwrap_or(spec), &dest_path)),
    };
    let destination = dest.and_then(|d| {
        let (k, v) = match (d.get("name"), d.get("server")) {
            (Some(n), _) => ("name", n),
            (None, Some(s)) => ("server", s),
            (None, None) => return None,
        };
        Some(located_str(v, &join(&dest_path, k)))
    });
    let mut sources: Vec<(&Value, String)> = Vec::new();
    if let Some(s) = spec.get("source") {
        sources.push((s, join(&spec_path, "source")));
    }
    if let Some(list) = spec.get("sources").and_then(Value::as_list) {
        for (i, s) in list.iter().enumerate() {
            sources.push((s, join(&spec_path, &format!("sources[{i}]"))));
        }
    }
    // `ref:` sources whose files other sources name as `$ref/path`.
    let refs: Vec<&str> = sources
        .iter()
        .filter_map(|(s, _)| s.get("ref").and_then(Value::as_str))
        .collect();
    for (src, src_path) in &sources {
        let (src, src_path) = (*src, src_path.as_str());
        let Some(mut rel) = chart_of(file, src, src_path) else {
            if let Some(d) = directory_of(file, src, src_path, &namespace, &destination) {
                out.directory_sources.push(d);
            }
            continue;
        };
        let helm = src.get("helm");
        let helm_path = join(src_path, "helm");
        rel.name = match helm.and_then(|h| h.get("releaseName")).or(app_name) {
            Some(n) => located_str(
                n,
                &if helm.and_then(|h| h.get("releaseName")).is_some() {
                    join(&helm_path, "releaseName")
                } else {
                    join(path, "metadata.name")
                },
            ),
            None => Located::new(Known::Unknown, rel.loc.clone()),
        };
        rel.namespace = namespace.clone();
        rel.destination = destination.clone();
        rel.values = helm_values(file, helm, &refs);
        out.releases.push(rel);
    }
}

/// The release a source installs, with its chart, repository and version;
/// `None` for a source that is no Helm chart fplint can name.
fn chart_of(file: &SourceFile, src: &Value, path: &str) -> Option<HelmRelease> {
    let loc = loc_of(src, path);
    if let Some(chart) = src.get("chart") {
        let mut rel = HelmRelease::new(
            located_str(chart, &join(path, "chart")),
            loc,
            AppliedBy::Controller,
        );
        rel.repository = src
            .get("repoURL")
            .map(|r| located_str(r, &join(path, "repoURL")));
        rel.version = src
            .get("targetRevision")
            .map(|r| located_str(r, &join(path, "targetRevision")));
        return Some(rel);
    }
    let p = src.get("path")?;
    let dir = release::local_folder(file, p.as_str()?)?;
    if !dir.join("Chart.yaml").is_file() {
        return None;
    }
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let mut rel = HelmRelease::new(
        Located::new(Known::Known(name), loc_of(p, &join(path, "path"))),
        loc,
        AppliedBy::Controller,
    );
    rel.local_chart = true;
    rel.chart_dir = Some(dir);
    Some(rel)
}

/// A source `path` of this repository that holds manifests or a
/// kustomization (no chart, no plugin): Argo CD applies them, giving
/// `destination.namespace` to objects without one; `kustomize.namespace`
/// replaces every object's.
fn directory_of(
    file: &SourceFile,
    src: &Value,
    src_path: &str,
    namespace: &Located<String>,
    destination: &Option<Located<String>>,
) -> Option<DirectorySource> {
    if src.get("chart").is_some() || src.get("plugin").is_some() || src.get("helm").is_some() {
        return None;
    }
    let folder = release::local_folder(file, src.get("path")?.as_str()?)?;
    if folder.join("Chart.yaml").is_file() {
        return None;
    }
    let kustomized = ["kustomization.yaml", "kustomization.yml", "Kustomization"]
        .iter()
        .any(|k| folder.join(k).is_file());
    if !kustomized && src.get("kustomize").is_some() {
        return None;
    }
    let dir = src.get("directory");
    let globs = |k: &str| -> Vec<String> {
        let v = dir.and_then(|d| d.get(k)).and_then(Value::as_str);
        // `{a.yaml,b.yaml}` or a single glob.
        v.map(|s| vec![s.to_string()]).unwrap_or_default()
    };
    let own_ns = src.get("kustomize").and_then(|k| k.get("namespace"));
    Some(DirectorySource {
        folder,
        recurse: kustomized
            || dir
                .and_then(|d| d.get("recurse"))
                .is_some_and(|r| matches!(r.kind, ValueKind::Bool(true))),
        include: if kustomized {
            Vec::new()
        } else {
            globs("include")
        },
        exclude: if kustomized {
            Vec::new()
        } else {
            globs("exclude")
        },
        namespace: match own_ns {
            Some(n) => located_str(n, &join(src_path, "kustomize.namespace")),
            None => namespace.clone(),
        },
        override_namespace: own_ns.is_some(),
        destination: destination.clone(),
    })
}

/// A `$ref/path` values file of another source of the Application, when
/// the file is in this repository: its values, located at the entry that
/// names it. Any other value file is the chart's own: unknown.
fn ref_values(file: &SourceFile, entry: &Value, refs: &[&str]) -> Known<Value> {
    let Some(text) = entry.as_str() else {
        return Known::Unknown;
    };
    let Some((r, rel)) = text.strip_prefix('$').and_then(|t| t.split_once('/')) else {
        return Known::Unknown;
    };
    if !refs.contains(&r) {
        return Known::Unknown;
    }
    let (dir, name) = rel.rsplit_once('/').unwrap_or((".", rel));
    let Some(folder) = release::local_folder(file, dir) else {
        return Known::Unknown;
    };
    let path = folder.join(name);
    // A values file is small; anything else is not read.
    if std::fs::metadata(&path).map_or(true, |m| m.len() > 4 << 20) {
        return Known::Unknown;
    }
    match std::fs::read_to_string(path) {
        Ok(t) => release::from_embedded(&t, entry.span),
        Err(_) => Known::Unknown,
    }
}

/// Argo CD's order: value files, then `values` (or `valuesObject`, which
/// wins over it), then `parameters`.
fn helm_values(file: &SourceFile, helm: Option<&Value>, refs: &[&str]) -> Known<Value> {
    let mut acc = Known::Known(release::empty());
    let Some(helm) = helm else { return acc };
    if !matches!(helm.kind, ValueKind::Map(_)) {
        return Known::Unknown;
    }
    if let Some(files) = helm.get("valueFiles") {
        let Some(list) = files.as_list() else {
            return Known::Unknown;
        };
        for f in list {
            merge_into(&mut acc, ref_values(file, f, refs));
        }
    }
    match (helm.get("valuesObject"), helm.get("values")) {
        (Some(obj), _) => merge_into(&mut acc, Known::Known(obj.clone())),
        (None, Some(text)) => merge_into(&mut acc, from_yaml_string(file, text)),
        (None, None) => {}
    }
    if let Some(params) = helm.get("parameters") {
        let Some(list) = params.as_list() else {
            return Known::Unknown;
        };
        for p in list {
            let (Some(name), Some(value)) = (p.get("name").and_then(Value::as_str), p.get("value"))
            else {
                return Known::Unknown;
            };
            let force_string = p
                .get("forceString")
                .is_some_and(|f| matches!(f.kind, ValueKind::Bool(true)));
            let leaf = match value.as_str() {
                Some(s) if !force_string => typed(s, value.span),
                _ => value.clone(),
            };
            set_path(&mut acc, name, leaf, p.get("name").and_then(|n| n.span));
        }
    }
    acc
}
