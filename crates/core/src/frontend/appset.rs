//! Argo CD `ApplicationSet`s: each parameter set a generator gives makes
//! one `Application` from the template, read as a written one is. Only the
//! generators whose parameters the repository holds are followed: `list`
//! elements, and `git` directories of this repository. Any other generator
//! (clusters, matrix, merge, pull requests, plugins, `git` files), a
//! generator `selector` or `template`, and a `templatePatch` give nothing:
//! what they make is unknown, and unknown never fires.
//!
//! Templates are filled as the controller fills them: `{{key}}` (spaces
//! trimmed) by default, `{{.key}}` with `goTemplate: true`. A string whose
//! placeholders are not all plain parameters is unknown.

use super::argocd;
use super::shared::join;
use super::shared::release;
use super::UnitOutput;
use crate::source::SourceFile;
use crate::value::{MapKey, Value, ValueKind};
use std::path::{Path, PathBuf};

/// Whether an object is an Argo CD `ApplicationSet`.
pub fn recognise(api: &str, kind: &str) -> bool {
    api.starts_with("argoproj.io/") && kind == "ApplicationSet"
}

/// One generator's parameters, by name.
type Params = Vec<(String, String)>;

/// Most Applications one set makes here: a glob over a large tree must not
/// turn one file into thousands of units.
const MAX_APPLICATIONS: usize = 1_000;

/// Read an `ApplicationSet` at `path` into the Applications it makes.
pub fn load(file: &SourceFile, obj: &Value, path: &str, out: &mut UnitOutput) {
    let Some(spec) = obj.get("spec") else { return };
    let Some(template) = spec.get("template") else {
        return;
    };
    if spec.get("templatePatch").is_some() {
        return;
    }
    let go = matches!(
        spec.get("goTemplate").map(|v| &v.kind),
        Some(ValueKind::Bool(true))
    );
    let Some(generators) = spec.get("generators").and_then(Value::as_list) else {
        return;
    };
    let mut sets: Vec<Params> = Vec::new();
    for g in generators {
        if g.get("selector").is_some() {
            continue;
        }
        if let Some(list) = g.get("list") {
            if overrides_template(list) || list.get("elementsYaml").is_some() {
                continue;
            }
            for e in list.get("elements").and_then(Value::as_list).unwrap_or(&[]) {
                let mut p = Params::new();
                flatten("", e, &mut p);
                sets.push(p);
            }
        } else if let Some(git) = g.get("git") {
            if overrides_template(git) {
                continue;
            }
            if let Some(dirs) = git.get("directories").and_then(Value::as_list) {
                sets.extend(directories(file, dirs).iter().map(|d| dir_params(d, go)));
            }
        }
    }
    let template_path = join(path, "spec.template");
    for params in sets.iter().take(MAX_APPLICATIONS) {
        let filled = fill(template, params, go);
        let mut entries = vec![
            (key("apiVersion"), string("argoproj.io/v1alpha1")),
            (key("kind"), string("Application")),
        ];
        for k in ["metadata", "spec"] {
            if let Some(v) = filled.get(k) {
                entries.push((key(k), v.clone()));
            }
        }
        let app = Value::new(ValueKind::Map(entries), filled.span);
        argocd::load(file, &app, &template_path, out);
    }
}

/// A generator's own `template` is merged over the set's: not followed.
fn overrides_template(g: &Value) -> bool {
    match g.get("template").map(|t| &t.kind) {
        None | Some(ValueKind::Null) => false,
        Some(ValueKind::Map(entries)) => !entries.is_empty(),
        Some(_) => true,
    }
}

fn key(k: &str) -> MapKey {
    MapKey {
        name: k.to_string(),
        span: None,
    }
}

fn string(s: &str) -> Value {
    Value::new(ValueKind::String(s.to_string()), None)
}

/// An element's scalars by dotted name (`a.b`), as the controller
/// flattens them; lists are not parameters.
fn flatten(prefix: &str, v: &Value, out: &mut Params) {
    let text = match &v.kind {
        ValueKind::Map(entries) => {
            for (k, item) in entries {
                flatten(&join(prefix, &k.name), item, out);
            }
            return;
        }
        ValueKind::String(s) => s.clone(),
        ValueKind::Number(n) => n.clone(),
        ValueKind::Bool(b) => b.to_string(),
        _ => return,
    };
    if !prefix.is_empty() {
        out.push((prefix.to_string(), text));
    }
}

/// The parameters of one directory (relative to the repository's root).
fn dir_params(dir: &str, go: bool) -> Params {
    let base = dir.rsplit('/').next().unwrap_or(dir).to_string();
    let mut p = Params::new();
    let prefix = if go { "path.path" } else { "path" };
    p.push((prefix.to_string(), dir.to_string()));
    p.push(("path.basename".into(), base.clone()));
    // The controller's normalising is not repeated here; a name it would
    // leave alone is known.
    if base
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        p.push(("path.basenameNormalized".into(), base));
    }
    if !go {
        for (i, seg) in dir.split('/').enumerate() {
            if !seg.is_empty() {
                p.push((format!("path[{i}]"), seg.to_string()));
            }
        }
    }
    p
}

/// `v` with every string's placeholders filled; a string with one that is
/// not a known parameter is unknown.
fn fill(v: &Value, params: &Params, go: bool) -> Value {
    match &v.kind {
        ValueKind::String(s) if s.contains("{{") => match fill_str(s, params, go) {
            Some(t) => Value::new(ValueKind::String(t), v.span),
            None => Value::unknown(v.span),
        },
        ValueKind::Map(entries) => Value::new(
            ValueKind::Map(
                entries
                    .iter()
                    .map(|(k, item)| (k.clone(), fill(item, params, go)))
                    .collect(),
            ),
            v.span,
        ),
        ValueKind::List(items) => Value::new(
            ValueKind::List(items.iter().map(|i| fill(i, params, go)).collect()),
            v.span,
        ),
        _ => v.clone(),
    }
}

fn fill_str(s: &str, params: &Params, go: bool) -> Option<String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let close = after.find("}}")?;
        let tag = &after[..close];
        let name = if go {
            let t = tag.strip_prefix('-').unwrap_or(tag);
            let t = t.strip_suffix('-').unwrap_or(t).trim();
            let name = t.strip_prefix('.')?;
            let plain = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
            if !plain {
                return None;
            }
            name
        } else {
            tag.trim()
        };
        let (_, value) = params.iter().find(|(k, _)| k == name)?;
        out.push_str(value);
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    Some(out)
}

/// The folders of this repository that a git directory generator's
/// `directories` select, as paths from the repository's root (where the
/// first pattern's fixed folders are found, as a source `path` is).
fn directories(file: &SourceFile, items: &[Value]) -> Vec<String> {
    let mut include: Vec<&str> = Vec::new();
    let mut exclude: Vec<&str> = Vec::new();
    for item in items {
        let Some(p) = item.get("path").and_then(Value::as_str) else {
            continue;
        };
        let p = p.trim().trim_start_matches("./").trim_start_matches('/');
        if p.is_empty() || p.contains("..") || p.contains("{{") {
            return Vec::new();
        }
        if matches!(
            item.get("exclude").map(|v| &v.kind),
            Some(ValueKind::Bool(true))
        ) {
            exclude.push(p);
        } else {
            include.push(p);
        }
    }
    let Some(root) = include.first().and_then(|p| repository_root(file, p)) else {
        return Vec::new();
    };
    let mut found: Vec<String> = Vec::new();
    for pattern in &include {
        expand(
            &root,
            "",
            &pattern.split('/').collect::<Vec<_>>(),
            &mut found,
        );
    }
    found.sort();
    found.dedup();
    found.retain(|d| !exclude.iter().any(|x| path_match(x, d)));
    found.truncate(MAX_APPLICATIONS);
    found
}

/// The root that `pattern` is written from: where its fixed folders are.
fn repository_root(file: &SourceFile, pattern: &str) -> Option<PathBuf> {
    let fixed: Vec<&str> = pattern
        .split('/')
        .take_while(|s| !s.contains(['*', '?', '[', '\\']))
        .collect();
    if fixed.is_empty() {
        // A pattern that starts with a glob: the folder holding `.git`.
        let mut dir = Path::new(&file.path).parent();
        while let Some(d) = dir {
            let base = if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            };
            if base.join(".git").exists() {
                return Some(base.to_path_buf());
            }
            dir = d.parent();
        }
        return None;
    }
    let fixed = fixed.join("/");
    let found = release::local_folder(file, &fixed)?;
    let mut root = found;
    for _ in fixed.split('/') {
        root = root.parent()?.to_path_buf();
    }
    Some(if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root
    })
}

/// Folders under `root/rel` matching the remaining pattern segments.
fn expand(root: &Path, rel: &str, segs: &[&str], out: &mut Vec<String>) {
    let Some((seg, rest)) = segs.split_first() else {
        if !rel.is_empty() {
            out.push(rel.to_string());
        }
        return;
    };
    if out.len() >= MAX_APPLICATIONS {
        return;
    }
    let here = root.join(rel);
    let literal = !seg.contains(['*', '?', '[', '\\']);
    if literal {
        if here.join(seg).is_dir() {
            expand(root, &join_rel(rel, seg), rest, out);
        }
        return;
    }
    let Ok(rd) = std::fs::read_dir(&here) else {
        return;
    };
    let mut names: Vec<String> = rd
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    for n in names {
        if segment_match(seg.as_bytes(), n.as_bytes()) == Some(true) {
            expand(root, &join_rel(rel, &n), rest, out);
        }
    }
}

fn join_rel(rel: &str, seg: &str) -> String {
    if rel.is_empty() {
        seg.to_string()
    } else {
        format!("{rel}/{seg}")
    }
}

/// Go's `path.Match`: segments match one by one, `*` never crosses `/`.
fn path_match(pattern: &str, name: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').collect();
    let n: Vec<&str> = name.split('/').collect();
    p.len() == n.len()
        && p.iter()
            .zip(&n)
            .all(|(p, n)| segment_match(p.as_bytes(), n.as_bytes()) == Some(true))
}

/// One segment against `*`, `?`, `[...]` (with `^` and ranges) and `\`
/// escapes; `None` for a malformed pattern, which matches nothing. A
/// pattern of many stars is refused: backtracking over them is exponential.
fn segment_match(p: &[u8], n: &[u8]) -> Option<bool> {
    if p.iter().filter(|&&b| b == b'*').count() > 4 {
        return None;
    }
    seg_match(p, n)
}

fn seg_match(p: &[u8], n: &[u8]) -> Option<bool> {
    match p.split_first() {
        None => Some(n.is_empty()),
        Some((b'*', rest)) => {
            for i in 0..=n.len() {
                if seg_match(rest, &n[i..])? {
                    return Some(true);
                }
            }
            Some(false)
        }
        Some((b'?', rest)) => match n.split_first() {
            Some((_, n_rest)) => seg_match(rest, n_rest),
            None => Some(false),
        },
        Some((b'[', rest)) => {
            let close = rest.iter().position(|&b| b == b']')?;
            let (class, after) = (&rest[..close], &rest[close + 1..]);
            let (negate, class) = match class.split_first() {
                Some((b'^', c)) => (true, c),
                _ => (false, class),
            };
            let Some((&c, n_rest)) = n.split_first() else {
                return Some(false);
            };
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == b'-' {
                    hit |= class[i] <= c && c <= class[i + 2];
                    i += 3;
                } else {
                    hit |= class[i] == c;
                    i += 1;
                }
            }
            if hit == negate {
                return Some(false);
            }
            seg_match(after, n_rest)
        }
        Some((b'\\', rest)) => {
            let (&lit, rest) = rest.split_first()?;
            match n.split_first() {
                Some((&c, n_rest)) if c == lit => seg_match(rest, n_rest),
                _ => Some(false),
            }
        }
        Some((&lit, rest)) => match n.split_first() {
            Some((&c, n_rest)) if c == lit => seg_match(rest, n_rest),
            _ => Some(false),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(kv: &[(&str, &str)]) -> Params {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn placeholders_fill_as_the_controller_fills_them() {
        let p = params(&[("ns", "keda"), ("path.basename", "web")]);
        assert_eq!(
            fill_str("{{ns}}-{{ path.basename }}", &p, false).as_deref(),
            Some("keda-web")
        );
        assert_eq!(fill_str("{{.ns}}", &p, true).as_deref(), Some("keda"));
        assert_eq!(fill_str("{{- .ns -}}", &p, true).as_deref(), Some("keda"));
        assert_eq!(fill_str("{{missing}}", &p, false), None);
        assert_eq!(fill_str("{{ .ns | upper }}", &p, true), None);
        assert_eq!(fill_str("{{ns}}", &p, true), None);
        assert_eq!(fill_str("{{ns", &p, false), None);
        assert_eq!(fill_str("plain", &p, false).as_deref(), Some("plain"));
    }

    #[test]
    fn patterns_match_as_go_path_match() {
        assert!(path_match("apps/*", "apps/web"));
        assert!(!path_match("apps/*", "apps/web/x"));
        assert!(path_match("apps/w?b", "apps/web"));
        assert!(path_match("apps/[a-w]eb", "apps/web"));
        assert!(!path_match("apps/[^w]eb", "apps/web"));
        assert!(path_match("apps/\\*", "apps/*"));
        assert!(!path_match("apps/[", "apps/["));
    }

    #[test]
    fn directory_parameters() {
        let p = dir_params("apps/Web_1", false);
        assert!(p.contains(&("path".into(), "apps/Web_1".into())));
        assert!(p.contains(&("path[0]".into(), "apps".into())));
        assert!(p.contains(&("path[1]".into(), "Web_1".into())));
        assert!(!p.iter().any(|(k, _)| k == "path.basenameNormalized"));
        let g = dir_params("apps/web", true);
        assert!(g.contains(&("path.path".into(), "apps/web".into())));
        assert!(g.contains(&("path.basenameNormalized".into(), "web".into())));
    }
}
