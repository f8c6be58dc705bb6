//! What declarations of Helm releases share (Argo CD, Flux, helmfile, CDK):
//! values written as a YAML string with spans into it, Helm's merge, and
//! `--set`-style parameters.

use super::values::{insert, merge, parse_path};
use crate::model::{HelmRelease, Known, Loc, Located, ValueSource, ValueSourceKind, ValuesPart};
use crate::source::{FileId, SourceFile, Span};
use crate::sources::{LoadError, Sources};
use crate::tree::{self, Limits};
use crate::value::{Value, ValueKind};
use std::path::{Path, PathBuf};

/// An empty values map.
pub fn empty() -> Value {
    Value::new(ValueKind::Map(Vec::new()), None)
}

/// Values written as a YAML string (`helm.values: |`): spans point into the
/// block when its text parses to the same values, else at the string.
/// Unknown when the string is not YAML or not a map.
pub fn from_yaml_string(file: &SourceFile, v: &Value) -> Known<Value> {
    let Some(text) = v.as_str() else {
        return if v.is_unknown() || matches!(v.kind, ValueKind::Null) {
            Known::Known(empty())
        } else {
            Known::Unknown
        };
    };
    let Some(mut decoded) = parse(text, file.id, 0) else {
        return Known::Unknown;
    };
    if matches!(decoded.kind, ValueKind::Null) {
        return Known::Known(empty());
    }
    if !matches!(decoded.kind, ValueKind::Map(_)) {
        return Known::Unknown;
    }
    if let Some(span) = v.span {
        // A block scalar's body starts on the line after `|`, or at the
        // span, whose line's indentation belongs to it.
        let line_start = file
            .text
            .get(..span.start as usize)
            .and_then(|before| {
                let ls = before.rfind('\n').map_or(0, |i| i + 1);
                before[ls..].bytes().all(|b| b == b' ').then_some(ls)
            })
            .unwrap_or(span.start as usize);
        let raw = file
            .text
            .get(line_start..span.end as usize)
            .unwrap_or_default();
        let skip = match raw.trim_start_matches(' ').starts_with(['|', '>']) {
            true => raw.find('\n').map(|nl| nl + 1),
            false => Some(0),
        };
        let span = Span::new(span.file, line_start, span.end as usize);
        if let Some(skip) = skip {
            let base = span.start as usize + skip;
            if let Some(exact) = parse(&raw[skip..], file.id, base) {
                if same(&exact, &decoded) {
                    return Known::Known(exact);
                }
            }
        }
        respan(&mut decoded, span);
    }
    Known::Known(decoded)
}

/// Values embedded in a string that is not in the file as written (a JSON
/// string in a template): every span is the string's.
pub fn from_embedded(text: &str, at: Option<Span>) -> Known<Value> {
    let Some(mut v) = parse(text, FileId(u32::MAX), 0) else {
        return Known::Unknown;
    };
    match at {
        Some(s) => respan(&mut v, s),
        None => strip(&mut v),
    }
    Known::Known(v)
}

fn parse(text: &str, file: FileId, base: usize) -> Option<Value> {
    let parsed = tree::yaml::parse(text, file, Limits::default());
    if parsed.error.is_some() {
        return None;
    }
    let mut v = match parsed.documents.first() {
        Some(doc) => Value::from_node(doc),
        None => Value::new(ValueKind::Null, None),
    };
    shift(&mut v, base as u32);
    Some(v)
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

fn shift(v: &mut Value, by: u32) {
    each_span(v, &mut |s| {
        if let Some(s) = s {
            s.start += by;
            s.end += by;
        }
    });
}

/// Point every span at `at`.
pub fn respan(v: &mut Value, at: Span) {
    each_span(v, &mut |s| *s = Some(at));
}

fn strip(v: &mut Value) {
    each_span(v, &mut |s| *s = None);
}

/// The same values, spans aside.
fn same(a: &Value, b: &Value) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    strip(&mut a);
    strip(&mut b);
    a == b
}

/// Merge `new` into `acc` the way Helm merges values files: maps key by
/// key, anything else replaces. A `new` that is not a map (or unknown)
/// makes the result unknown.
pub fn merge_into(acc: &mut Known<Value>, new: Known<Value>) {
    let Known::Known(a) = acc else { return };
    match new {
        Known::Known(n) if matches!(n.kind, ValueKind::Map(_)) => merge(a, n, 0),
        Known::Known(n) if matches!(n.kind, ValueKind::Null) => {}
        _ => *acc = Known::Unknown,
    }
}

/// Set one `--set`-style path (`a.b[0].c`) to `leaf`; a path that cannot be
/// read makes the values unknown.
pub fn set_path(acc: &mut Known<Value>, path: &str, leaf: Value, at: Option<Span>) {
    let Known::Known(a) = acc else { return };
    let ok = parse_path(path).is_some_and(|segs| insert(a, &segs, leaf, at));
    if !ok {
        *acc = Known::Unknown;
    }
}

/// Helm's typing of a `--set` string: booleans, integers, null.
pub fn typed(s: &str, at: Option<Span>) -> Value {
    let kind = match s {
        "true" => ValueKind::Bool(true),
        "false" => ValueKind::Bool(false),
        "null" => ValueKind::Null,
        t if !t.is_empty() && t.parse::<i64>().is_ok() => ValueKind::Number(t.to_string()),
        t => ValueKind::String(t.to_string()),
    };
    Value::new(kind, at)
}

/// Whether a folder `rel` (as a declaration writes it, relative to the
/// repository's root) exists under the repository holding `file`: the
/// nearest ancestor folder where it exists, up to the one holding `.git`.
pub fn local_folder(file: &SourceFile, rel: &str) -> Option<PathBuf> {
    let (base, rel) = local_base(file, rel)?;
    Some(base.join(rel))
}

/// The folder [`local_folder`] finds `rel` under (the repository's root as
/// the declaration sees it), and `rel` cleaned.
pub fn local_base<'a>(file: &SourceFile, rel: &'a str) -> Option<(PathBuf, &'a str)> {
    local_path(file, rel, Path::is_dir)
}

/// A file `rel` of the repository holding `file`, found as [`local_folder`]
/// finds folders.
pub fn local_file(file: &SourceFile, rel: &str) -> Option<PathBuf> {
    let (base, rel) = local_path(file, rel, Path::is_file)?;
    Some(base.join(rel))
}

fn local_path<'a>(
    file: &SourceFile,
    rel: &'a str,
    exists: fn(&Path) -> bool,
) -> Option<(PathBuf, &'a str)> {
    let rel = rel.trim().trim_start_matches("./").trim_end_matches('/');
    if rel.is_empty() || rel.contains("..") || rel.starts_with('/') || rel.contains("://") {
        return None;
    }
    let mut dir = Path::new(&file.path).parent();
    for _ in 0..32 {
        let d = dir?;
        let base = if d.as_os_str().is_empty() {
            Path::new(".")
        } else {
            d
        };
        if exists(&base.join(rel)) {
            return Some((base.to_path_buf(), rel));
        }
        if base.join(".git").exists() {
            return None;
        }
        dir = d.parent();
    }
    None
}

/// A values file path as a declaration writes it, joined to `base`; `None`
/// for a URL, an absolute path or one with variables the tool expands.
pub fn values_file(base: &Path, rel: &str) -> Option<PathBuf> {
    let rel = rel.trim();
    if rel.is_empty() || rel.starts_with('/') || rel.contains("://") || rel.contains('$') {
        return None;
    }
    Some(base.join(rel.trim_start_matches("./")))
}

/// Give a release its values parts: merged now when all are written in the
/// declaration, else kept for [`read_values_parts`] with the values unknown
/// until then.
pub fn settle(rel: &mut HelmRelease, parts: Vec<ValuesPart>) {
    let elsewhere = parts
        .iter()
        .any(|p| matches!(p, ValuesPart::File { .. } | ValuesPart::Object { .. }));
    rel.values_parts = parts;
    if elsewhere {
        rel.values = Known::Unknown;
    } else {
        read_values_parts(rel, &Sources::default(), Limits::default());
    }
}

/// Files of one folder looked through for a ConfigMap or Secret, at most.
const MAX_FOLDER_FILES: usize = 256;

/// Find the chart a Flux `chartRef` names: an `OCIRepository` (the chart is
/// the last part of its `url`, the version its `ref.tag` or `ref.semver`)
/// or a `HelmChart` of a Helm repository (`chart`, `version`). Not found, or
/// found more than once, the chart stays unknown.
pub fn resolve_chart_ref(rel: &mut HelmRelease, sources: &Sources, limits: Limits) {
    let Some(r) = rel.chart_ref.take() else {
        return;
    };
    let Some((f, obj)) = find_object(
        sources,
        limits,
        &r.folder,
        ("source.toolkit.fluxcd.io/", &r.kind),
        &r.name,
        r.namespace.as_deref(),
    ) else {
        return;
    };
    let Some(spec) = obj.get("spec") else { return };
    let base = format!("{}.spec", r.kind);
    let at = |v: &Value, key: &str| {
        let span = v.span.unwrap_or(Span::new(f.id, 0, 0));
        Loc::new(span, crate::path::dot(&base, key))
    };
    let text = |v: &Value, key: &str| -> Option<Located<String>> {
        let s = v.as_str()?;
        Some(Located::new(Known::Known(s.to_string()), at(v, key)))
    };
    match r.kind.as_str() {
        "OCIRepository" => {
            let Some(url) = spec.get("url") else { return };
            let Some(u) = url.as_str() else { return };
            let chart = u.trim_end_matches('/').rsplit('/').next().unwrap_or(u);
            rel.chart = Located::new(Known::Known(chart.to_string()), at(url, "url"));
            rel.repository = text(url, "url");
            let reference = spec.get("ref");
            // A digest or a commit says nothing of the chart's version.
            rel.version = match reference {
                None => None,
                Some(rf) => match (rf.get("tag"), rf.get("semver")) {
                    (Some(t), _) => Some(
                        text(t, "ref.tag")
                            .unwrap_or_else(|| Located::new(Known::Unknown, at(t, "ref.tag"))),
                    ),
                    (None, Some(sv)) => Some(
                        text(sv, "ref.semver")
                            .unwrap_or_else(|| Located::new(Known::Unknown, at(sv, "ref.semver"))),
                    ),
                    (None, None) => Some(Located::new(Known::Unknown, at(rf, "ref"))),
                },
            };
        }
        "HelmChart" => {
            // A chart in a Git repository or bucket is a folder, not read here.
            let source = spec.get("sourceRef").and_then(|s| s.get("kind"));
            if source.and_then(Value::as_str).unwrap_or("HelmRepository") != "HelmRepository" {
                return;
            }
            let Some(chart) = spec.get("chart").and_then(|c| text(c, "chart")) else {
                return;
            };
            rel.chart = chart;
            rel.version = spec.get("version").map(|v| {
                text(v, "version").unwrap_or_else(|| Located::new(Known::Unknown, at(v, "version")))
            });
        }
        _ => {}
    }
}

/// Read the parts of a release's values that lie in other files of the
/// repository (values files, ConfigMaps, Secrets) and merge every part in
/// order into `values`, keeping spans into those files. A part that cannot
/// be read leaves the values unknown.
pub fn read_values_parts(rel: &mut HelmRelease, sources: &Sources, limits: Limits) {
    if rel.values_parts.is_empty() {
        return;
    }
    let parts = std::mem::take(&mut rel.values_parts);
    let mut acc = Known::Known(empty());
    for part in parts {
        match part {
            ValuesPart::Given(v) => merge_into(&mut acc, v),
            ValuesPart::Set { path, leaf, at } => set_path(&mut acc, &path, leaf, at),
            ValuesPart::File {
                path,
                at,
                skip_missing,
            } => match sources.load(&path) {
                Ok(f) => {
                    rel.value_sources.push(ValueSource {
                        kind: ValueSourceKind::File,
                        loc: Loc::new(at, format!("{}.values", rel.loc.path)),
                        origin: Some(Span::new(f.id, 0, f.text.len())),
                    });
                    merge_into(&mut acc, file_values(&f, limits));
                }
                // Missing, as the declaration allows: skipped.
                Err(LoadError::Io { .. }) if skip_missing && !path.exists() => {}
                Err(_) => acc = Known::Unknown,
            },
            ValuesPart::Object {
                secret,
                name,
                namespace,
                key,
                target_path,
                folder,
                at,
            } => {
                let kind = if secret { "Secret" } else { "ConfigMap" };
                let found = find_object(
                    sources,
                    limits,
                    &folder,
                    ("v1", kind),
                    &name,
                    namespace.as_deref(),
                );
                let Some((f, obj)) = found else {
                    acc = Known::Unknown;
                    break;
                };
                let (entry, encoded) = match (obj.get("stringData"), obj.get("data")) {
                    (Some(sd), _) if secret && sd.get(&key).is_some() => (sd.get(&key), false),
                    (_, Some(d)) => (d.get(&key), secret),
                    _ => (None, false),
                };
                let Some(entry) = entry else {
                    acc = Known::Unknown;
                    break;
                };
                rel.value_sources.push(ValueSource {
                    kind: ValueSourceKind::File,
                    loc: Loc::new(at, format!("{}.valuesFrom", rel.loc.path)),
                    origin: entry.span.or(obj.span),
                });
                let text = match (encoded, entry.as_str()) {
                    (true, Some(t)) => base64(t),
                    (false, Some(t)) => Some(t.to_string()),
                    _ => None,
                };
                let Some(text) = text else {
                    acc = Known::Unknown;
                    break;
                };
                match target_path {
                    Some(p) => set_path(&mut acc, &p, target_value(&text, entry.span), entry.span),
                    None if encoded => merge_into(&mut acc, from_embedded(&text, entry.span)),
                    None => merge_into(&mut acc, from_yaml_string(&f, entry)),
                }
            }
        }
        if !acc.is_known() {
            break;
        }
    }
    rel.values = acc;
}

/// A values file's values, with spans into it; unknown when it is not a
/// YAML map.
fn file_values(f: &SourceFile, limits: Limits) -> Known<Value> {
    let parsed = tree::yaml::parse(&f.text, f.id, limits);
    if parsed.error.is_some() {
        return Known::Unknown;
    }
    match parsed.documents.first() {
        None => Known::Known(empty()),
        Some(doc) => Known::Known(Value::from_node(doc)),
    }
}

/// The one ConfigMap (or Secret) named `name` in `namespace` among the
/// YAML files of `folder`, with its file; `None` when there is none, or
/// more than one.
fn find_object(
    sources: &Sources,
    limits: Limits,
    folder: &Path,
    (api, kind): (&str, &str),
    name: &str,
    namespace: Option<&str>,
) -> Option<(std::sync::Arc<SourceFile>, Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .take(MAX_FOLDER_FILES + 1)
        .collect();
    if files.len() > MAX_FOLDER_FILES {
        return None;
    }
    files.sort();
    let mut found = None;
    for path in files {
        let Ok(f) = sources.load(&path) else { continue };
        // Cheap test before parsing.
        if !f.text.contains(kind) || !f.text.contains(name) {
            continue;
        }
        let parsed = tree::yaml::parse(&f.text, f.id, limits);
        for doc in &parsed.documents {
            let v = Value::from_node(doc);
            let meta = v.get("metadata");
            // `v1`, or a group's prefix (`source.toolkit.fluxcd.io/`).
            let api_ok = v
                .get("apiVersion")
                .and_then(Value::as_str)
                .is_some_and(|a| a == api || (api.ends_with('/') && a.starts_with(api)));
            let matches = api_ok
                && v.get("kind").and_then(Value::as_str) == Some(kind)
                && meta.and_then(|m| m.get("name")).and_then(Value::as_str) == Some(name)
                && meta
                    .and_then(|m| m.get("namespace"))
                    .and_then(Value::as_str)
                    == namespace;
            if matches {
                if found.is_some() {
                    return None;
                }
                found = Some((f.clone(), v));
            }
        }
    }
    found
}

/// A value Flux sets at a `targetPath`: quoted, a string; otherwise typed
/// as `--set` types it. A list or several values (`{a,b}`, `a,b`) is
/// unknown.
fn target_value(text: &str, at: Option<Span>) -> Value {
    let quoted = text.len() >= 2
        && ((text.starts_with('"') && text.ends_with('"'))
            || (text.starts_with('\'') && text.ends_with('\'')));
    if quoted {
        let inner = text.trim_matches(['"', '\'']);
        if inner.contains(',') {
            return Value::unknown(at);
        }
        return Value::new(ValueKind::String(inner.to_string()), at);
    }
    if text.contains([',', '{', '\\']) {
        return Value::unknown(at);
    }
    typed(text, at)
}

/// Standard base64 (with or without padding, ignoring whitespace) as UTF-8.
fn base64(text: &str) -> Option<String> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' | b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_string_values_keep_their_spans() {
        let text = "x:\n  values: |\n    a:\n      c: 1\n    d:\n      b: true\n";
        let file = SourceFile::new(FileId(0), "x.yaml", text);
        let doc = tree::yaml::parse(text, FileId(0), Limits::default());
        let v = Value::from_node(&doc.documents[0]);
        let vals = from_yaml_string(&file, v.get("x").unwrap().get("values").unwrap());
        let b = vals.known().unwrap().get("d").unwrap().get("b").unwrap();
        let s = b.span.unwrap();
        assert_eq!(&text[s.start as usize..s.end as usize], "true");
    }

    #[test]
    fn base64_decodes_padded_and_wrapped_text() {
        assert_eq!(
            base64("aG9zdE5ldHdvcms6\n IHRydWUK").as_deref(),
            Some("hostNetwork: true\n")
        );
        assert_eq!(base64("YQ==").as_deref(), Some("a"));
        assert_eq!(base64("not base64!"), None);
    }

    #[test]
    fn a_target_path_value_is_typed_unless_quoted() {
        assert_eq!(target_value("true", None).kind, ValueKind::Bool(true));
        assert_eq!(
            target_value("'true'", None).kind,
            ValueKind::String("true".into())
        );
        assert!(target_value("a,b", None).is_unknown());
    }

    /// The release of `name` in `dir`, with its values parts read.
    fn read(dir: &Path, name: &str) -> HelmRelease {
        let sources = Sources::default();
        let f = match sources.load(&dir.join(name)) {
            Ok(f) => f,
            Err(e) => panic!("{e}"),
        };
        let mut out = crate::frontend::load_document_file(&f, Limits::default());
        let mut rel = out.releases.remove(0);
        read_values_parts(&mut rel, &sources, Limits::default());
        rel
    }

    fn write(dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }

    const HR: &str = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: lbc, namespace: flux-system}\nspec:\n  chart:\n    spec:\n      chart: aws-load-balancer-controller\n      sourceRef: {kind: HelmRepository, name: eks}\n  valuesFrom:\n    - {kind: Secret, name: lbc}\n  values:\n    clusterName: shop\n";

    #[test]
    fn a_secret_beside_the_release_is_read_with_spans_into_it() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "hr.yaml", HR);
        let secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: lbc, namespace: flux-system}\nstringData:\n  values.yaml: |\n    vpcId: vpc-1\n";
        write(d.path(), "secret.yaml", secret);
        let rel = read(d.path(), "hr.yaml");
        let v = rel.values.known().unwrap();
        assert_eq!(v.get("clusterName").and_then(Value::as_str), Some("shop"));
        let vpc = v.get("vpcId").unwrap();
        assert_eq!(vpc.as_str(), Some("vpc-1"));
        let s = vpc.span.unwrap();
        assert_eq!(&secret[s.start as usize..s.end as usize], "vpc-1");
        assert_eq!(rel.value_sources.len(), 1);
    }

    #[test]
    fn two_objects_of_one_name_or_another_namespace_leave_the_values_unknown() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "hr.yaml", HR);
        let one = "apiVersion: v1\nkind: Secret\nmetadata: {name: lbc, namespace: flux-system}\nstringData: {values.yaml: \"vpcId: a\"}\n";
        write(d.path(), "a.yaml", one);
        write(d.path(), "b.yaml", one);
        assert!(!read(d.path(), "hr.yaml").values.is_known());
        let other = one.replace("flux-system", "kube-system");
        write(d.path(), "a.yaml", &other);
        write(d.path(), "b.yaml", &other);
        assert!(!read(d.path(), "hr.yaml").values.is_known());
    }

    #[test]
    fn an_argo_ref_file_at_the_repository_root_is_read() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), ".git/HEAD", "ref: refs/heads/main\n");
        write(d.path(), "values.yaml", "vpcId: vpc-2\n");
        let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: lbc}\nspec:\n  sources:\n    - repoURL: https://aws.github.io/eks-charts\n      chart: aws-load-balancer-controller\n      helm:\n        valueFiles: [$values/values.yaml, $other/values.yaml]\n    - {repoURL: https://example.com/r.git, ref: values}\n  destination: {namespace: kube-system}\n";
        write(d.path(), "apps/lbc.yaml", app);
        let rel = read(&d.path().join("apps"), "lbc.yaml");
        // `$other` names no `ref:` source.
        assert!(!rel.values.is_known());
        write(
            d.path(),
            "apps/lbc.yaml",
            &app.replace(", $other/values.yaml", ""),
        );
        let rel = read(&d.path().join("apps"), "lbc.yaml");
        let v = rel.values.known().unwrap();
        assert_eq!(v.get("vpcId").and_then(Value::as_str), Some("vpc-2"));
    }

    #[test]
    fn helmfile_files_merge_in_order_and_secrets_leave_the_values_unknown() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "v/a.yaml", "vpcId: a\nregion: r\n");
        write(d.path(), "v/b.yaml", "vpcId: b\n");
        let hf = "repositories: [{name: eks, url: https://aws.github.io/eks-charts}]\nreleases:\n  - name: lbc\n    namespace: kube-system\n    chart: eks/aws-load-balancer-controller\n    values:\n      - v/a.yaml\n      - {vpcId: inline}\n      - v/b.yaml\n    set:\n      - {name: region, value: s}\n";
        write(d.path(), "helmfile.yaml", hf);
        let rel = read(d.path(), "helmfile.yaml");
        let v = rel.values.known().unwrap();
        assert_eq!(v.get("vpcId").and_then(Value::as_str), Some("b"));
        assert_eq!(v.get("region").and_then(Value::as_str), Some("s"));
        let with_secrets = hf.replace("    set:", "    secrets: [v/s.yaml]\n    set:");
        write(d.path(), "helmfile.yaml", &with_secrets);
        assert!(!read(d.path(), "helmfile.yaml").values.is_known());
    }

    #[test]
    fn values_from_beside_a_helmrelease_a_chart_renders_stay_unknown() {
        let d = tempfile::tempdir().unwrap();
        let secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: lbc, namespace: flux-system}\nstringData: {values.yaml: \"vpcId: a\"}\n";
        write(
            d.path(),
            "platform/Chart.yaml",
            "apiVersion: v2\nname: platform\nversion: 0.1.0\n",
        );
        write(d.path(), "platform/templates/hr.yaml", HR);
        write(d.path(), "platform/templates/secret.yaml", secret);
        let templates = d.path().join("platform/templates");
        assert!(!read(&templates, "hr.yaml").values.is_known());
        std::fs::remove_file(d.path().join("platform/Chart.yaml")).unwrap();
        assert!(read(&templates, "hr.yaml").values.is_known());
    }
}
