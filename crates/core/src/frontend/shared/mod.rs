//! What the frontends share, knowing no format of their own: locations of
//! values, the Helm values that releases declare ([`release`], [`values`]),
//! and the Kubernetes objects that manifests, charts, kustomizations,
//! Terraform and CDK all carry ([`objects`]). It imports no frontend, so
//! every frontend can use it.

pub mod objects;
pub mod release;
pub mod values;

use crate::model::{Known, Loc, Located};
use crate::value::{Value, ValueKind};

/// `path.key`, or either alone when the other is empty.
pub(crate) fn join(path: &str, key: &str) -> String {
    match (path.is_empty(), key.is_empty()) {
        (true, _) => key.to_string(),
        (_, true) => path.to_string(),
        _ => crate::path::dot(path, key),
    }
}

/// Where a value was written, under its logical path.
pub(crate) fn loc_of(v: &Value, path: &str) -> Loc {
    Loc::new(v.span.unwrap_or_default(), path)
}

/// A scalar's text; a placeholder or anything else is unknown.
pub(crate) fn text(v: &Value) -> Known<String> {
    match &v.kind {
        ValueKind::String(s) | ValueKind::Number(s) if !is_placeholder(s) => {
            Known::Known(s.clone())
        }
        ValueKind::Bool(b) => Known::Known(b.to_string()),
        _ => Known::Unknown,
    }
}

/// A value's text (a placeholder is unknown) where it was written.
pub(crate) fn located_str(v: &Value, path: &str) -> Located<String> {
    Located::new(text(v), loc_of(v, path))
}

/// Whether a scalar is a placeholder another tool fills in (`${VAR}`,
/// `{{ .Values.x }}`, `$VAR`), or one a reader fills in by hand
/// (`<your-namespace>`, which no Kubernetes name can be): unknown, not a
/// name. Called for nearly every scalar, so it scans bytes rather than
/// searching for two patterns.
pub(crate) fn is_placeholder(s: &str) -> bool {
    s.starts_with('$')
        || (s.len() > 2 && s.starts_with('<') && s.ends_with('>'))
        || s.as_bytes()
            .windows(2)
            .any(|w| w[1] == b'{' && (w[0] == b'$' || w[0] == b'{'))
}
