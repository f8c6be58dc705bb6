//! FP016 fargate-selector-invalid.
//!
//! What the EKS API or eksctl rejects: a profile without selectors, an empty
//! namespace, a namespace or label that is not a valid Kubernetes name even
//! allowing the `*` and `?` wildcards, two profiles with one name in a
//! cluster, and (eksctl) a profile name starting with `eks-`.

use crate::common::{exclusive, profile_label};
use crate::{Context, Rule};
use fplint_core::model::{Loc, Provisioner};
use fplint_core::{Diagnostic, Severity};

/// The FP016 rule, `fargate-selector-invalid`: the module documentation says what it finds.
pub struct FargateSelectorInvalid;

fn wild(c: char) -> bool {
    c == '*' || c == '?'
}

/// A DNS-1123 label (namespace names), wildcards allowed.
pub fn valid_namespace(s: &str) -> bool {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || wild(c);
    let edge = |c: Option<char>| {
        c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || wild(c))
    };
    !s.is_empty()
        && s.len() <= 63
        && s.chars().all(ok_char)
        && edge(s.chars().next())
        && edge(s.chars().last())
}

/// A label name segment or value: alphanumerics, `-`, `_`, `.`, alphanumeric
/// at both ends, at most 63 characters; wildcards allowed.
fn valid_segment(s: &str, allow_empty: bool) -> bool {
    if s.is_empty() {
        return allow_empty;
    }
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') || wild(c);
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || wild(c));
    s.len() <= 63 && s.chars().all(ok_char) && edge(s.chars().next()) && edge(s.chars().last())
}

/// Whether `k` is a Kubernetes label key: an optional DNS-subdomain prefix
/// and `/`, then a name of at most 63 characters.
pub fn valid_label_key(k: &str) -> bool {
    match k.rsplit_once('/') {
        Some((prefix, name)) => {
            prefix.len() <= 253
                && prefix.split('.').all(valid_namespace)
                && valid_segment(name, false)
        }
        None => valid_segment(k, false),
    }
}

/// Whether `v` is a Kubernetes label value (empty, or a name of at most 63
/// characters).
pub fn valid_label_value(v: &str) -> bool {
    valid_segment(v, true)
}

fn push(out: &mut Vec<Diagnostic>, loc: &Loc, message: String, label: &str, help: &str) {
    out.push(
        Diagnostic::new("FP016", Severity::Error, message, loc.span)
            .with_label(label.to_string())
            .with_path(loc.path.clone())
            .with_help(help.to_string()),
    );
}

impl Rule for FargateSelectorInvalid {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            for (i, profile) in cluster.fargate_profiles.iter().enumerate() {
                let name = profile_label(ctx.project, profile);
                if let Some(n) = profile.name.known() {
                    if let Some(first) = cluster.fargate_profiles[..i]
                        .iter()
                        .find(|p| p.name.known() == Some(n) && !exclusive(ctx.project, p, profile))
                    {
                        out.push(
                            Diagnostic::new(
                                "FP016",
                                Severity::Error,
                                format!(
                                    "cluster {} has two Fargate profiles named `{n}`",
                                    cluster.reference(profile.name.loc.span.file)
                                ),
                                profile.name.loc.span,
                            )
                            .with_label("second profile with this name")
                            .with_path(profile.name.loc.path.clone())
                            .with_related(first.name.loc.span, "first profile with this name")
                            .with_help("give each profile a unique name"),
                        );
                    }
                    if cluster.provisioner == Provisioner::Eksctl && n.starts_with("eks-") {
                        push(out, &profile.name.loc, format!("eksctl rejects the profile name `{n}`: the prefix `eks-` is reserved"), "reserved prefix", "rename the profile");
                    }
                }
                let Some(selectors) = profile.selectors.known() else {
                    continue;
                };
                if selectors.is_empty() {
                    push(
                        out,
                        &profile.selectors_loc,
                        format!("Fargate profile `{name}` has no selectors"),
                        "no selectors",
                        "add at least one selector with a namespace",
                    );
                }
                for sel in selectors {
                    match sel.namespace.known() {
                        Some(ns) if ns.is_empty() => push(out, &sel.namespace.loc, "Fargate selector without a namespace".into(), "namespace is required", "set the namespace (wildcards `*` and `?` are allowed)"),
                        Some(ns) if !valid_namespace(ns) => push(out, &sel.namespace.loc, format!("`{ns}` is not a valid namespace name or pattern"), "invalid namespace", "use lowercase letters, digits and `-` (plus `*` and `?`), starting and ending with a letter or digit, at most 63 characters"),
                        _ => {}
                    }
                    for l in sel.labels.known().into_iter().flatten() {
                        if let Some(k) = l.key.known() {
                            if !valid_label_key(k) {
                                push(out, &l.loc, format!("`{k}` is not a valid label key"), "invalid label key", "a label key is an optional DNS prefix and `/`, then up to 63 letters, digits, `-`, `_`, `.`");
                                continue;
                            }
                        }
                        if let Some(v) = l.value.known() {
                            if !valid_label_value(v) {
                                push(out, &l.loc, format!("`{v}` is not a valid label value"), "invalid label value", "a label value is up to 63 letters, digits, `-`, `_`, `.`, starting and ending with a letter or digit");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(valid_namespace("kube-system"));
        assert!(valid_namespace("app-*"));
        assert!(valid_namespace("*"));
        assert!(!valid_namespace("Kube"));
        assert!(!valid_namespace("-a"));
        assert!(!valid_namespace("a_b"));
        assert!(valid_label_key("eks.amazonaws.com/component"));
        assert!(valid_label_key("app.kubernetes.io/name"));
        assert!(!valid_label_key("bad key"));
        assert!(valid_label_value(""));
        assert!(valid_label_value("v1.2_x"));
        assert!(!valid_label_value("-x"));
    }
}
