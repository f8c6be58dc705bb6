//! Which keys each object fplint models may hold, from tables derived from
//! the formats' own schemas (`docs/schemas.md`), and the findings that a
//! frontend records when a key or value is outside them.
//!
//! Findings are model data, not diagnostics: the frontends know the object
//! kinds and where keys were written, the rules turn findings into messages.

mod check;
mod table;
pub mod terraform;

pub use check::{check_node, Walk};
pub use table::{Field, Table, Ty};

use crate::source::Span;

/// A key or value outside what the format defines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaFinding {
    /// A key the object does not define. `object` names the object's type
    /// as the format's documentation does.
    UnknownField {
        /// The key as written.
        key: String,
        /// Where the key is.
        span: Span,
        /// The logical path of the key.
        path: String,
        /// The object's type, as the format's documentation names it.
        object: String,
        /// The nearest defined field, if one is close.
        suggestion: Option<String>,
    },
    /// A key that differs from a field only in case, where the tool matches
    /// keys ignoring case (eksctl's Go decoder) but fplint does not.
    WrongCase {
        /// The key as written.
        key: String,
        /// The field it stands for.
        field: String,
        /// Where the key is.
        span: Span,
        /// The logical path of the key.
        path: String,
    },
    /// A value given as an argument where the format expects a nested block
    /// (Terraform `selector = [...]` for `selector { }`).
    ArgumentForBlock {
        /// The argument's name.
        key: String,
        /// Where the argument is.
        span: Span,
        /// The logical path of the argument.
        path: String,
    },
    /// A value the format refuses, where it changes what fplint concludes.
    InvalidValue {
        /// The field whose value it is.
        field: String,
        /// The value as written, or what kind of value it is.
        found: String,
        /// What the format accepts.
        expected: String,
        /// The nearest accepted value, if one is close.
        suggestion: Option<String>,
        /// Where the value is.
        span: Span,
        /// The logical path of the value.
        path: String,
    },
    /// An object of a kind its `apiVersion` does not serve: `kubectl apply`
    /// refuses it, and what it describes is never created (a Fargate
    /// profile written as a Kubernetes object).
    NoSuchKind {
        /// The `apiVersion` as written.
        api: String,
        /// The `kind` as written.
        kind: String,
        /// Where the `apiVersion` is.
        span: Span,
        /// Where the `kind` is.
        kind_span: Span,
    },
}

impl SchemaFinding {
    /// Where the finding points.
    pub fn span(&self) -> Span {
        match self {
            SchemaFinding::UnknownField { span, .. }
            | SchemaFinding::WrongCase { span, .. }
            | SchemaFinding::ArgumentForBlock { span, .. }
            | SchemaFinding::InvalidValue { span, .. }
            | SchemaFinding::NoSuchKind { span, .. } => *span,
        }
    }

    /// Where the finding points, to move it (a `.tf.json` file is checked
    /// as the HCL text made from it).
    pub fn span_mut(&mut self) -> &mut Span {
        match self {
            SchemaFinding::UnknownField { span, .. }
            | SchemaFinding::WrongCase { span, .. }
            | SchemaFinding::ArgumentForBlock { span, .. }
            | SchemaFinding::InvalidValue { span, .. }
            | SchemaFinding::NoSuchKind { span, .. } => span,
        }
    }
}

/// The table of one format, parsed on first use.
macro_rules! table {
    ($name:ident, $file:literal) => {
        pub fn $name() -> &'static Table {
            static T: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
            T.get_or_init(|| Table::parse(include_str!(concat!("../../schemas/", $file))))
        }
    };
}

table!(eksctl, "eksctl.tbl");
table!(cloudformation, "cloudformation.tbl");
table!(terraform, "terraform.tbl");
table!(terraform_eks_module, "terraform-aws-eks.tbl");
table!(kubernetes, "kubernetes.tbl");

/// The closest key to `key` among `known`: the same letters in another case,
/// or an edit distance small for the key's length.
pub fn suggest<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> Option<String> {
    let lower = key.to_ascii_lowercase();
    let limit = match key.chars().count() {
        0..=3 => 1,
        4..=8 => 2,
        _ => 3,
    };
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let d = if k.eq_ignore_ascii_case(key) {
            0
        } else {
            distance(&lower, &k.to_ascii_lowercase())
        };
        if d <= limit && best.is_none_or(|(bd, bk)| (d, k) < (bd, bk)) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k.to_string())
}

/// Optimal string alignment distance: insertions, deletions, substitutions
/// and swaps of two neighbours each cost one.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 3 {
        return a.len().abs_diff(b.len());
    }
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, c) in d.iter_mut().enumerate().take(w) {
        *c = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

#[cfg(test)]
mod tests;

/// The apiVersion values eksctl reads.
pub const EKSCTL_API_VERSIONS: &[&str] = &["eksctl.io/v1alpha5"];

/// An eksctl `ClusterConfig`: every key, and its `apiVersion`.
pub fn check_eksctl(doc: &crate::tree::Node, out: &mut Vec<SchemaFinding>) {
    let w = Walk {
        table: eksctl(),
        intrinsics: false,
        ignore_case: true,
    };
    check_node(&w, doc, "ClusterConfig", "", out);
    for (i, a) in doc
        .get("addons")
        .and_then(crate::tree::Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let Some(cv) = a.get("configurationValues") else {
            continue;
        };
        // An envsubst placeholder is filled in before eksctl reads the file.
        if let Some(s) = cv.as_str().filter(|s| !s.contains('$')) {
            check_addon_configuration(s, cv.span, &format!("addons[{i}].configurationValues"), out);
        }
    }
    if let Some(api) = doc.get("apiVersion") {
        if let Some(s) = api.as_str() {
            if !EKSCTL_API_VERSIONS.contains(&s) {
                out.push(SchemaFinding::InvalidValue {
                    field: "apiVersion".into(),
                    found: format!("`{s}`"),
                    expected: "an eksctl API version".into(),
                    suggestion: suggest(s, EKSCTL_API_VERSIONS.iter().copied())
                        .or_else(|| Some(EKSCTL_API_VERSIONS[0].to_string())),
                    span: api.span,
                    path: "apiVersion".into(),
                });
            }
        }
    }
}

/// The properties of a CloudFormation resource fplint models; `None` for
/// other types. The resource's `Properties` node is given.
pub fn check_cloudformation(
    ty: &str,
    props: &crate::tree::Node,
    path: &str,
    out: &mut Vec<SchemaFinding>,
) {
    let t = cloudformation();
    if t.object(ty).is_none() {
        return;
    }
    let w = Walk {
        table: t,
        intrinsics: true,
        ignore_case: false,
    };
    check_node(&w, props, ty, path, out);
}

/// A pod template (`metadata` and `spec`) of a Kubernetes workload.
pub fn check_pod_template(tpl: &crate::tree::Node, path: &str, out: &mut Vec<SchemaFinding>) {
    let w = Walk {
        table: kubernetes(),
        intrinsics: false,
        ignore_case: false,
    };
    check_node(&w, tpl, "PodTemplateSpec", path, out);
    if let Some(spec) = tpl.get("spec") {
        check_tolerations(spec, &crate::path::dot(path, "spec"), out);
    }
}

/// A bare pod spec (a `Pod`'s `spec`).
pub fn check_pod_spec(spec: &crate::tree::Node, path: &str, out: &mut Vec<SchemaFinding>) {
    let w = Walk {
        table: kubernetes(),
        intrinsics: false,
        ignore_case: false,
    };
    check_node(&w, spec, "PodSpec", path, out);
    check_tolerations(spec, path, out);
}

const EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];
/// `Lt` and `Gt` need a feature gate, but the API knows them.
const OPERATORS: &[&str] = &["Exists", "Equal", "Lt", "Gt"];

fn check_tolerations(spec: &crate::tree::Node, path: &str, out: &mut Vec<SchemaFinding>) {
    let Some(items) = spec.get("tolerations").and_then(crate::tree::Node::as_seq) else {
        return;
    };
    for (i, t) in items.iter().enumerate() {
        for (field, allowed) in [("effect", EFFECTS), ("operator", OPERATORS)] {
            let Some(v) = t.get(field) else { continue };
            let Some(s) = v.as_str() else { continue };
            // Empty effect means every effect; a placeholder is unknown.
            if s.is_empty() || allowed.contains(&s) || s.contains("${") || s.contains("{{") {
                continue;
            }
            out.push(SchemaFinding::InvalidValue {
                field: field.into(),
                found: format!("`{s}`"),
                expected: format!(
                    "one of {}",
                    allowed
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                suggestion: suggest(s, allowed.iter().copied()),
                span: v.span,
                path: format!("{path}.tolerations[{i}].{field}"),
            });
        }
    }
}

/// Add-on configuration values: a JSON or YAML object in a string.
pub fn check_addon_configuration(
    text: &str,
    span: crate::source::Span,
    path: &str,
    out: &mut Vec<SchemaFinding>,
) {
    let parsed = crate::tree::yaml::parse(
        text,
        crate::source::FileId(u32::MAX),
        crate::tree::Limits::default(),
    );
    let found = match (&parsed.error, parsed.documents.first()) {
        (Some(e), _) => format!("text that does not parse ({})", e.message),
        (None, Some(d)) if d.as_map().is_none() && !d.is_null() => "not an object".to_string(),
        _ => return,
    };
    out.push(SchemaFinding::InvalidValue {
        field: path.rsplit('.').next().unwrap_or(path).to_string(),
        found,
        expected: "a JSON or YAML object".into(),
        suggestion: None,
        span,
        path: path.to_string(),
    });
}

/// A CloudFormation template: the properties of each resource fplint
/// models. A template with a `Transform` (`AWS::LanguageExtensions`, SAM,
/// macros) is rewritten before CloudFormation reads it: not checked.
pub fn check_template(doc: &crate::tree::Node, out: &mut Vec<SchemaFinding>) {
    if doc.get("Transform").is_some() {
        return;
    }
    let Some(resources) = doc.get("Resources").and_then(crate::tree::Node::as_map) else {
        return;
    };
    for e in resources {
        let Some(id) = e.key.as_str() else { continue };
        let Some(ty) = e.value.get("Type").and_then(crate::tree::Node::as_str) else {
            continue;
        };
        let Some(props) = e.value.get("Properties") else {
            continue;
        };
        let path = format!("Resources.{id}.Properties");
        check_cloudformation(ty, props, &path, out);
        if ty == "AWS::EKS::Addon" {
            if let Some(cv) = props.get("ConfigurationValues") {
                if let Some(s) = cv.as_str() {
                    check_addon_configuration(
                        s,
                        cv.span,
                        &crate::path::dot(&path, "ConfigurationValues"),
                        out,
                    );
                }
            }
        }
    }
}

/// A `FargateProfile` under an API group that serves no such kind: the
/// core group, a group without a dot (no custom resource can have one),
/// the groups Kubernetes reserves, AWS's domains (their groups, such as the
/// VPC CNI's `crd.k8s.amazonaws.com`, serve no profile) and eksctl's (only
/// `ClusterConfig`). Any other group may be an operator's CRD (ACK's
/// `eks.services.k8s.aws`, Crossplane's): quiet.
fn no_such_profile_api(doc: &crate::tree::Node, api: &str, out: &mut Vec<SchemaFinding>) {
    let (Some(api_node), Some(kind_node)) = (doc.get("apiVersion"), doc.get("kind")) else {
        return;
    };
    if api.is_empty() || crate::frontend::shared::is_placeholder(api) {
        return;
    }
    let group = api.rsplit_once('/').map_or("", |(g, _)| g);
    let under = |domain: &str| group == domain || group.ends_with(&format!(".{domain}"));
    let invented = !group.contains('.')
        || [
            "amazonaws.com",
            "amazon.com",
            "k8s.io",
            "kubernetes.io",
            "eksctl.io",
        ]
        .iter()
        .any(|d| under(d));
    if invented {
        out.push(SchemaFinding::NoSuchKind {
            api: api.to_string(),
            kind: "FargateProfile".into(),
            span: api_node.span,
            kind_span: kind_node.span,
        });
    }
}

/// A Kubernetes object: the pod template of a workload, or a pod's spec.
pub fn check_kubernetes(doc: &crate::tree::Node, out: &mut Vec<SchemaFinding>) {
    let api = doc
        .get("apiVersion")
        .and_then(crate::tree::Node::as_str)
        .unwrap_or("");
    let kind = doc
        .get("kind")
        .and_then(crate::tree::Node::as_str)
        .unwrap_or("");
    if kind == "FargateProfile" {
        no_such_profile_api(doc, api, out);
    }
    if kind == "List" {
        for (i, item) in doc
            .get("items")
            .and_then(crate::tree::Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            let _ = i;
            check_kubernetes(item, out);
        }
        return;
    }
    let path: &[&str] = match (api, kind) {
        ("v1", "Pod") => &["spec"],
        ("apps/v1", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet")
        | ("batch/v1", "Job") => &["spec", "template"],
        ("batch/v1", "CronJob") => &["spec", "jobTemplate", "spec", "template"],
        _ => return,
    };
    let mut node = Some(doc);
    for k in path {
        node = node.and_then(|n| n.get(k));
    }
    let Some(node) = node else { return };
    let p = path.join(".");
    if kind == "Pod" {
        check_pod_spec(node, &p, out);
    } else {
        check_pod_template(node, &p, out);
    }
}
