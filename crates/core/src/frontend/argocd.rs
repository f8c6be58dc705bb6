//! Argo CD `Application`s: each Helm source is a release that Argo CD, a
//! controller in the cluster, applies once the cluster and its profiles
//! exist. A chart from a Helm repository is named by `chart`; a source
//! `path` that exists in this repository and holds a `Chart.yaml` is a local
//! chart, whose content is unknown until rendered. Other sources (a remote
//! Git path, a folder of manifests read on its own) add no release.

use super::shared::release::{self, from_yaml_string, typed};
use super::shared::{join, loc_of, located_str};
use super::UnitOutput;
use crate::model::{AppliedBy, DirectorySource, HelmRelease, Known, Located, ValuesPart};
use crate::source::SourceFile;
use crate::value::{Value, ValueKind};
use std::path::Path;

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
        let parts = helm_values(file, helm, &refs, rel.chart_dir.clone().as_deref());
        release::settle(&mut rel, parts);
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
        changes_pods: src.get("kustomize").is_some_and(|k| {
            [
                "patches",
                "commonLabels",
                "commonAnnotations",
                "components",
                "labels",
            ]
            .iter()
            .any(|key| k.get(key).is_some())
        }),
    })
}

/// A values file that a source names, as a part of its values: relative to
/// the chart's folder when the chart is in this repository, or `$ref/path`
/// of a `ref:` source whose file exists in this repository. Any other (a
/// file of a remote chart, a URL) is unknown.
fn value_file(
    file: &SourceFile,
    entry: &Value,
    refs: &[&str],
    chart_dir: Option<&Path>,
    skip_missing: bool,
) -> ValuesPart {
    let unknown = ValuesPart::Given(Known::Unknown);
    let (Some(text), Some(at)) = (entry.as_str(), entry.span) else {
        return unknown;
    };
    let path = match text.strip_prefix('$') {
        Some(t) => {
            let Some((r, rel)) = t.split_once('/') else {
                return unknown;
            };
            if !refs.contains(&r) {
                return unknown;
            }
            // `$values` is the root of the `ref:` source's repository: taken
            // as this one when the file exists in it.
            match release::local_file(file, rel) {
                Some(p) => p,
                None => return unknown,
            }
        }
        None => match chart_dir.and_then(|d| release::values_file(d, text)) {
            Some(p) => p,
            None => return unknown,
        },
    };
    ValuesPart::File {
        path,
        at,
        skip_missing,
    }
}

/// Argo CD's order: value files, then `values` (or `valuesObject`, which
/// wins over it), then `parameters`.
fn helm_values(
    file: &SourceFile,
    helm: Option<&Value>,
    refs: &[&str],
    chart_dir: Option<&Path>,
) -> Vec<ValuesPart> {
    let unknown = vec![ValuesPart::Given(Known::Unknown)];
    let mut parts = Vec::new();
    let Some(helm) = helm else { return parts };
    if !matches!(helm.kind, ValueKind::Map(_)) {
        return unknown;
    }
    let skip_missing = helm
        .get("ignoreMissingValueFiles")
        .is_some_and(|b| matches!(b.kind, ValueKind::Bool(true)));
    if let Some(files) = helm.get("valueFiles") {
        let Some(list) = files.as_list() else {
            return unknown;
        };
        for f in list {
            parts.push(value_file(file, f, refs, chart_dir, skip_missing));
        }
    }
    match (helm.get("valuesObject"), helm.get("values")) {
        (Some(obj), _) => parts.push(ValuesPart::Given(Known::Known(obj.clone()))),
        (None, Some(text)) => parts.push(ValuesPart::Given(from_yaml_string(file, text))),
        (None, None) => {}
    }
    if let Some(params) = helm.get("parameters") {
        let Some(list) = params.as_list() else {
            return unknown;
        };
        for p in list {
            let (Some(name), Some(value)) = (p.get("name").and_then(Value::as_str), p.get("value"))
            else {
                return unknown;
            };
            let force_string = p
                .get("forceString")
                .is_some_and(|f| matches!(f.kind, ValueKind::Bool(true)));
            let leaf = match value.as_str() {
                Some(s) if !force_string => typed(s, value.span),
                _ => value.clone(),
            };
            parts.push(ValuesPart::Set {
                path: name.to_string(),
                leaf,
                at: p.get("name").and_then(|n| n.span),
            });
        }
    }
    parts
}
