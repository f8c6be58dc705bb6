//! Flux `HelmRelease`s (`helm.toolkit.fluxcd.io` v2 and v2beta*): a release
//! the helm-controller in the cluster applies once the cluster and its
//! profiles exist. A chart from a `HelmRepository` or `OCIRepository` is
//! named by `chart.spec.chart`; a `GitRepository` chart path that exists in
//! this repository is a local chart, whose content is unknown until
//! rendered. `valuesFiles` of such a chart and `valuesFrom` ConfigMaps and
//! Secrets beside the declaration are read once files can be; `kubeConfig`
//! names another cluster.

use super::shared::release;
use super::shared::{join, loc_of, located_str};
use super::UnitOutput;
use crate::model::{AppliedBy, ChartRef, DirectorySource, HelmRelease, Known, Located, ValuesPart};
use crate::source::SourceFile;
use crate::value::{Value, ValueKind};
use std::path::Path;

/// Whether an object is a Flux `HelmRelease`.
pub fn recognise(api: &str, kind: &str) -> bool {
    api.starts_with("helm.toolkit.fluxcd.io/") && kind == "HelmRelease"
}

/// Read a `HelmRelease` at `path` into the unit's declared releases.
pub fn load(file: &SourceFile, obj: &Value, path: &str, out: &mut UnitOutput) {
    let Some(spec) = obj.get("spec") else { return };
    let spec_path = join(path, "spec");
    let null = Value::new(ValueKind::Null, None);
    let (mut rel, repo_base, chart_spec) = match (
        spec.get("chart").and_then(|c| c.get("spec")),
        spec.get("chartRef"),
    ) {
        (Some(chart_spec), _) => {
            let Some((rel, base)) = chart_spec_release(file, obj, chart_spec, path) else {
                return;
            };
            (rel, base, chart_spec)
        }
        (None, Some(r)) => {
            let Some(rel) = chart_ref_release(file, obj, r, path) else {
                return;
            };
            (rel, None, &null)
        }
        (None, None) => return,
    };
    let meta = obj.get("metadata");
    let own_ns = meta.and_then(|m| m.get("namespace"));
    let target = spec.get("targetNamespace");
    rel.namespace = match (target, own_ns) {
        (Some(t), _) => located_str(t, &join(&spec_path, "targetNamespace")),
        (None, Some(n)) => located_str(n, &join(path, "metadata.namespace")),
        // `kubectl -n` or a Flux Kustomization decides it.
        (None, None) => Located::new(Known::Unknown, loc_of(meta.unwrap_or(obj), path)),
    };
    rel.name = match (spec.get("releaseName"), meta.and_then(|m| m.get("name"))) {
        (Some(r), _) => located_str(r, &join(&spec_path, "releaseName")),
        (None, Some(n)) => {
            let mut l = located_str(n, &join(path, "metadata.name"));
            // Flux names it `<targetNamespace>-<name>` when a target is set.
            if let (Some(t), Known::Known(name)) = (target.and_then(Value::as_str), &l.value) {
                l.value = Known::Known(format!("{t}-{name}"));
            }
            l
        }
        (None, None) => Located::new(Known::Unknown, rel.loc.clone()),
    };
    rel.destination = kube_config(spec, &spec_path);
    rel.post_rendered = spec.get("postRenderers").is_some_and(|p| {
        !matches!(&p.kind, ValueKind::Null) && p.as_list().is_none_or(|l| !l.is_empty())
    });
    let parts = values_parts(file, obj, spec, chart_spec, &rel, repo_base.as_deref());
    release::settle(&mut rel, parts);
    out.releases.push(rel);
}

/// The release a `chart.spec` declares, and the root of this repository
/// when the chart is a folder of it.
fn chart_spec_release(
    file: &SourceFile,
    obj: &Value,
    chart_spec: &Value,
    path: &str,
) -> Option<(HelmRelease, Option<std::path::PathBuf>)> {
    let cs_path = join(path, "spec.chart.spec");
    let chart = chart_spec.get("chart")?;
    let source_kind = chart_spec
        .get("sourceRef")
        .and_then(|s| s.get("kind"))
        .and_then(Value::as_str)
        .unwrap_or("HelmRepository");
    let chart_path = join(&cs_path, "chart");
    let mut rel = HelmRelease::new(
        located_str(chart, &chart_path),
        loc_of(obj.get("kind").unwrap_or(obj), &join(path, "kind")),
        AppliedBy::Controller,
    );
    // The root of the source the chart is in, when it is this repository.
    let mut repo_base = None;
    match source_kind {
        "HelmRepository" | "OCIRepository" => {}
        "GitRepository" | "Bucket" => {
            let local = chart
                .as_str()
                .and_then(|c| release::local_base(file, c))
                .map(|(base, c)| (base.join(c), base))
                .filter(|(d, _)| d.join("Chart.yaml").is_file());
            let (dir, base) = local?;
            repo_base = Some(base);
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            rel.chart = Located::new(Known::Known(name), loc_of(chart, &chart_path));
            rel.local_chart = true;
            rel.chart_dir = Some(dir);
        }
        _ => return None,
    }
    rel.version = chart_spec
        .get("version")
        .map(|v| located_str(v, &join(&cs_path, "version")));
    rel.repository = chart_spec
        .get("sourceRef")
        .and_then(|s| s.get("name"))
        .map(|v| located_str(v, &join(&cs_path, "sourceRef.name")));
    Some((rel, repo_base))
}

/// The release a `chartRef` declares: the chart is named by an
/// `OCIRepository` or `HelmChart` object, found by the run in the folder of
/// this file.
fn chart_ref_release(file: &SourceFile, obj: &Value, r: &Value, path: &str) -> Option<HelmRelease> {
    let ref_path = join(path, "spec.chartRef");
    let kind = r.get("kind").and_then(Value::as_str)?;
    if !matches!(kind, "OCIRepository" | "HelmChart") {
        return None;
    }
    let name = r.get("name").and_then(Value::as_str)?.to_string();
    let namespace = match r.get("namespace") {
        Some(n) => Some(n.as_str()?.to_string()),
        None => match obj.get("metadata").and_then(|m| m.get("namespace")) {
            Some(n) => Some(n.as_str()?.to_string()),
            None => None,
        },
    };
    // A HelmRelease a chart renders: the objects beside it are templates.
    if in_chart_templates(&file.path) {
        return None;
    }
    let folder = file_folder(file)?;
    let at = r.span?;
    let mut rel = HelmRelease::new(
        Located::new(Known::Unknown, loc_of(r, &ref_path)),
        loc_of(obj.get("kind").unwrap_or(obj), &join(path, "kind")),
        AppliedBy::Controller,
    );
    rel.chart_ref = Some(ChartRef {
        kind: kind.to_string(),
        name,
        namespace,
        folder,
        at,
    });
    Some(rel)
}

/// Whether an object is a Flux `Kustomization` (not kustomize's own).
pub fn recognise_kustomization(api: &str, kind: &str) -> bool {
    api.starts_with("kustomize.toolkit.fluxcd.io/") && kind == "Kustomization"
}

/// A Flux `Kustomization` whose `path` is a folder of this repository and
/// that sets `targetNamespace`: the namespace of every object it applies.
/// Without a target it changes nothing fplint reads.
pub fn load_kustomization(file: &SourceFile, obj: &Value, path: &str, out: &mut UnitOutput) {
    let Some(spec) = obj.get("spec") else { return };
    let spec_path = join(path, "spec");
    let target = spec.get("targetNamespace");
    // Patches and common labels change the pods in ways not followed.
    let changes_pods = [
        "patches",
        "patchesStrategicMerge",
        "patchesJson6902",
        "components",
    ]
    .iter()
    .any(|k| {
        spec.get(k)
            .is_some_and(|v| !matches!(v.kind, ValueKind::Null))
    }) || spec.get("commonMetadata").is_some();
    if target.is_none() && !changes_pods {
        return;
    }
    let Some(folder) = spec
        .get("path")
        .and_then(Value::as_str)
        .and_then(|p| release::local_folder(file, p))
    else {
        return;
    };
    out.directory_sources.push(DirectorySource {
        folder,
        recurse: true,
        include: Vec::new(),
        exclude: Vec::new(),
        namespace: match target {
            Some(t) => located_str(t, &join(&spec_path, "targetNamespace")),
            None => Located::new(Known::Unknown, loc_of(spec, &spec_path)),
        },
        override_namespace: target.is_some(),
        destination: kube_config(spec, &spec_path),
        changes_pods,
    });
}

/// Flux's order: `valuesFrom` in order, then `values`, over the chart's
/// values, which `valuesFiles` replace.
fn values_parts(
    file: &SourceFile,
    obj: &Value,
    spec: &Value,
    chart_spec: &Value,
    rel: &HelmRelease,
    repo_base: Option<&Path>,
) -> Vec<ValuesPart> {
    let unknown = vec![ValuesPart::Given(Known::Unknown)];
    let mut parts = Vec::new();
    let files: Vec<&Value> = match (chart_spec.get("valuesFiles"), chart_spec.get("valuesFile")) {
        (None, None) => Vec::new(),
        (Some(list), None) => match list.as_list() {
            Some(l) => l.iter().collect(),
            None => return unknown,
        },
        (None, Some(one)) => vec![one],
        (Some(_), Some(_)) => return unknown,
    };
    if !files.is_empty() {
        // Paths are from the source's root. They replace the chart's own
        // values: read only when the first is the chart's `values.yaml`,
        // so that layering them over it is what Flux builds.
        let (Some(base), Some(dir)) = (repo_base, rel.chart_dir.as_deref()) else {
            return unknown;
        };
        let skip_missing = chart_spec
            .get("ignoreMissingValuesFiles")
            .is_some_and(|b| matches!(b.kind, ValueKind::Bool(true)));
        let own = std::fs::canonicalize(dir.join("values.yaml")).ok();
        for (i, f) in files.iter().enumerate() {
            let (Some(text), Some(at)) = (f.as_str(), f.span) else {
                return unknown;
            };
            let Some(path) = release::values_file(base, text) else {
                return unknown;
            };
            if i == 0 {
                if own.is_none() || std::fs::canonicalize(&path).ok() != own {
                    return unknown;
                }
                continue;
            }
            parts.push(ValuesPart::File {
                path,
                at,
                skip_missing,
            });
        }
    }
    if let Some(from) = spec.get("valuesFrom") {
        let Some(list) = from.as_list() else {
            return unknown;
        };
        // A HelmRelease a chart renders: the objects beside it are
        // templates, not what the chart renders.
        if in_chart_templates(&file.path) {
            return unknown;
        }
        let namespace = obj
            .get("metadata")
            .and_then(|m| m.get("namespace"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let folder = file_folder(file);
        for item in list {
            let text = |k: &str| item.get(k).and_then(Value::as_str);
            let secret = match text("kind") {
                Some("ConfigMap") => false,
                Some("Secret") => true,
                _ => return unknown,
            };
            let (Some(name), Some(folder)) = (text("name"), folder.clone()) else {
                return unknown;
            };
            parts.push(ValuesPart::Object {
                secret,
                name: name.to_string(),
                namespace: namespace.clone(),
                key: text("valuesKey").unwrap_or("values.yaml").to_string(),
                target_path: text("targetPath").map(str::to_string),
                folder,
                at: item.span.unwrap_or(rel.loc.span),
            });
        }
    }
    if let Some(v) = spec.get("values") {
        match v.kind {
            ValueKind::Map(_) | ValueKind::Null => {
                parts.push(ValuesPart::Given(Known::Known(v.clone())))
            }
            _ => return unknown,
        }
    }
    parts
}

/// Whether `path` is a template of a chart (`CHART/templates/...`).
/// The folder of the declaring file, where the objects it names are looked for.
fn file_folder(file: &SourceFile) -> Option<std::path::PathBuf> {
    Path::new(&file.path)
        .parent()
        .map(|p| match p.as_os_str().is_empty() {
            true => Path::new(".").to_path_buf(),
            false => p.to_path_buf(),
        })
}

fn in_chart_templates(path: &str) -> bool {
    Path::new(path).ancestors().skip(1).any(|a| {
        a.file_name().is_some_and(|n| n == "templates")
            && a.parent().is_some_and(|c| c.join("Chart.yaml").is_file())
    })
}

fn kube_config(spec: &Value, spec_path: &str) -> Option<Located<String>> {
    spec.get("kubeConfig")
        .map(|k| match k.get("secretRef").and_then(|s| s.get("name")) {
            Some(n) => located_str(n, &join(spec_path, "kubeConfig.secretRef.name")),
            None => Located::new(Known::Unknown, loc_of(k, &join(spec_path, "kubeConfig"))),
        })
}

#[cfg(test)]
mod tests {
    use crate::frontend::load_document_file;
    use crate::source::{FileId, SourceFile};
    use crate::tree::Limits;

    #[test]
    fn release_name_and_namespace_follow_the_target() {
        let text = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: keda, namespace: flux-system}\nspec:\n  targetNamespace: keda\n  chart:\n    spec:\n      chart: keda\n      sourceRef: {kind: HelmRepository, name: kedacore}\n  valuesFrom:\n    - {kind: ConfigMap, name: keda-values}\n";
        let file = SourceFile::new(FileId(0), "hr.yaml", text);
        let out = load_document_file(&file, Limits::default());
        let rel = &out.releases[0];
        assert_eq!(rel.name.known().map(String::as_str), Some("keda-keda"));
        assert_eq!(rel.namespace.known().map(String::as_str), Some("keda"));
        assert!(!rel.values.is_known());
        assert!(out.workloads.is_empty());
    }
}
