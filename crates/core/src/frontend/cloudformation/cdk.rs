//! What CDK's EKS constructs synthesise besides the cluster and its
//! profiles: `Custom::AWSCDK-EKS-HelmChart` (a Helm release) and
//! `Custom::AWSCDK-EKS-KubernetesResource` (a JSON list of objects:
//! workloads, `aws-auth` ConfigMaps, namespaces). CloudFormation creates
//! them, so they are ordered against the profiles by the template's
//! dependencies. `Values` and `Manifest` are JSON strings, often an
//! `Fn::Join` with references: the parts that cannot be resolved are unknown.

use super::template::{self, Template};
use super::UnitOutput;
use crate::frontend::shared::{objects, release};
use crate::model::{AppliedBy, HelmRelease, Known, Loc, Located, ResourceRef};
use crate::tree::Node;
use crate::value::{Value, ValueKind};

pub(super) const HELM_CHART: &str = "Custom::AWSCDK-EKS-HelmChart";
pub(super) const MANIFEST: &str = "Custom::AWSCDK-EKS-KubernetesResource";

/// Stands in for a part of a joined string that cannot be resolved.
const HOLE: &str = "fplint-unresolved-5f0c2e";

/// The release a HelmChart resource installs.
pub(super) fn read_helm_chart(
    t: &Template<'_>,
    r: &template::Resource<'_>,
    path: &str,
    resource: ResourceRef,
) -> HelmRelease {
    let props = crate::path::dot(path, "Properties");
    let whole = Loc::new(r.key.span, path);
    let prop = |k: &str| {
        r.prop(k)
            .map(|n| Located::new(t.eval_str(n), Loc::new(n.span, crate::path::dot(&props, k))))
    };
    let chart = prop("Chart").unwrap_or_else(|| Located::new(Known::Unknown, whole.clone()));
    let mut rel = HelmRelease::new(chart, whole.clone(), AppliedBy::Deployment);
    rel.resource = Some(resource);
    rel.repository = prop("Repository");
    rel.version = prop("Version");
    // The construct's defaults: release named after the chart's id, `default` namespace.
    if let Some(n) = prop("Release") {
        rel.name = n;
    }
    if let Some(ns) = prop("Namespace") {
        rel.namespace = ns;
    }
    // A chart from an asset (`ChartAssetURL`) is the user's own.
    if r.prop("ChartAssetURL").is_some() {
        rel.local_chart = true;
        rel.values = Known::Unknown;
        return rel;
    }
    if let Some(v) = r.prop("Values") {
        rel.values = match embedded(t, v) {
            Known::Known(val) if matches!(val.kind, ValueKind::Map(_) | ValueKind::Null) => {
                let mut acc = Known::Known(release::empty());
                release::merge_into(&mut acc, Known::Known(val));
                acc
            }
            _ => Known::Unknown,
        };
    }
    rel
}

/// The objects of a KubernetesResource's `Manifest`, read as manifests and
/// given the resource's cluster and node.
pub(super) fn read_manifest(
    t: &Template<'_>,
    r: &template::Resource<'_>,
    path: &str,
    resource: ResourceRef,
    cluster_key: &str,
    out: &mut UnitOutput,
) {
    let Some(m) = r.prop("Manifest") else { return };
    let Known::Known(list) = embedded(t, m) else {
        return;
    };
    let items: Vec<Value> = match list.kind {
        ValueKind::List(items) => items,
        ValueKind::Map(_) => vec![list],
        _ => return,
    };
    let mut unit = UnitOutput::default();
    let mpath = crate::path::dot(path, "Properties.Manifest");
    for (i, obj) in items.iter().enumerate() {
        objects::load_object(obj, &crate::path::index(&mpath, i), &mut unit);
    }
    for mut w in unit.workloads {
        w.resource = Some(resource);
        w.cluster_key = Some(cluster_key.to_string());
        out.workloads.push(w);
    }
    for mut a in unit.aws_auth {
        a.cluster_key = Some(cluster_key.to_string());
        out.aws_auth.push(a);
    }
}

/// Whether a KubernetesResource's `Manifest` reads as JSON objects (parts
/// that cannot be resolved aside): what it applies is then known.
pub(super) fn manifest_read(t: &Template<'_>, r: &template::Resource<'_>) -> bool {
    r.prop("Manifest").is_some_and(|m| {
        matches!(embedded(t, m), Known::Known(v) if matches!(v.kind, ValueKind::List(_) | ValueKind::Map(_)))
    })
}

/// CDK's own nested stacks for the EKS constructs (the cluster resource
/// provider and the kubectl provider): Lambda handlers that act only on
/// the resources sent to them. Their logical IDs come from the singleton
/// constructs `@aws-cdk/aws-eks.ClusterResourceProvider` and
/// `@aws-cdk/aws-eks.KubectlProvider`.
pub(super) fn is_provider_stack(r: &template::Resource<'_>) -> bool {
    r.ty == "AWS::CloudFormation::Stack"
        && (r.id.starts_with("awscdkawseksClusterResourceProvider")
            || r.id.starts_with("awscdkawseksKubectlProvider"))
}

/// The JSON value of a string property, with unresolved parts unknown;
/// every span is the property's (positions inside a string are not kept).
fn embedded(t: &Template<'_>, node: &Node) -> Known<Value> {
    // Read from a program's source, the value is a document, not a string,
    // and keeps the span of each part.
    if node
        .as_map()
        .is_some_and(|m| super::intrinsic::as_fn(node).is_none() || m.is_empty())
        || node.as_seq().is_some()
    {
        return Known::Known(document(t, node, 0));
    }
    let Some(text) = with_holes(t, node, 0) else {
        return Known::Unknown;
    };
    let Known::Known(mut v) = release::from_embedded(&text, Some(node.span)) else {
        return Known::Unknown;
    };
    unknown_holes(&mut v, 0);
    Known::Known(v)
}

/// The string, with [`HOLE`] for each part of an `Fn::Join` that cannot be
/// resolved; `None` when the string as a whole cannot be.
fn with_holes(t: &Template<'_>, node: &Node, depth: usize) -> Option<String> {
    if let Known::Known(s) = t.eval_str(node) {
        return Some(s);
    }
    if depth > 8 {
        return None;
    }
    let (f, arg) = super::intrinsic::as_fn(node)?;
    if f != "Fn::Join" {
        return None;
    }
    let [delim, list] = arg.as_seq()? else {
        return None;
    };
    let (delim, items) = (delim.as_str()?, list.as_seq()?);
    let parts: Vec<String> = items
        .iter()
        .map(|it| with_holes(t, it, depth + 1).unwrap_or_else(|| HOLE.to_string()))
        .collect();
    Some(parts.join(delim))
}

/// A document node as a value; an intrinsic function in it is resolved
/// when it can be, unknown otherwise.
fn document(t: &Template<'_>, node: &Node, depth: usize) -> Value {
    if depth > 256 {
        return Value {
            kind: ValueKind::Unknown,
            span: Some(node.span),
        };
    }
    if super::intrinsic::as_fn(node).is_some() {
        let kind = match t.eval_str(node) {
            Known::Known(s) => ValueKind::String(s),
            Known::Unknown => ValueKind::Unknown,
        };
        return Value {
            kind,
            span: Some(node.span),
        };
    }
    match (node.as_map(), node.as_seq()) {
        (Some(entries), _) => Value {
            kind: ValueKind::Map(
                entries
                    .iter()
                    .map(|e| {
                        (
                            crate::value::MapKey {
                                name: e.key.scalar().unwrap_or_default().to_string(),
                                span: Some(e.key.span),
                            },
                            document(t, &e.value, depth + 1),
                        )
                    })
                    .collect(),
            ),
            span: Some(node.span),
        },
        (_, Some(items)) => Value {
            kind: ValueKind::List(items.iter().map(|i| document(t, i, depth + 1)).collect()),
            span: Some(node.span),
        },
        _ => Value::from_node(node),
    }
}

fn unknown_holes(v: &mut Value, depth: usize) {
    if depth > 256 {
        return;
    }
    match &mut v.kind {
        ValueKind::String(s) if s.contains(HOLE) => v.kind = ValueKind::Unknown,
        ValueKind::List(items) => items.iter_mut().for_each(|x| unknown_holes(x, depth + 1)),
        ValueKind::Map(entries) => {
            // A key that is not known names nothing: the map is unknown.
            if entries.iter().any(|(k, _)| k.name.contains(HOLE)) {
                v.kind = ValueKind::Unknown;
                return;
            }
            entries
                .iter_mut()
                .for_each(|(_, x)| unknown_holes(x, depth + 1));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::frontend::load_document_file;
    use crate::model::AppliedBy;
    use crate::source::{FileId, SourceFile};
    use crate::tree::Limits;
    use crate::value::ValueKind;

    #[test]
    fn joined_values_keep_what_resolves() {
        let json = r#"{"Resources": {
            "C": {"Type": "Custom::AWSCDK-EKS-Cluster", "Properties": {"Config": {"name": "shop"}}},
            "R": {"Type": "AWS::IAM::Role", "Properties": {}},
            "H": {"Type": "Custom::AWSCDK-EKS-HelmChart", "Properties": {
                "ClusterName": {"Ref": "C"}, "Chart": "keda", "Namespace": "keda",
                "Values": {"Fn::Join": ["", ["{\"a\":{\"role\":\"", {"Fn::GetAtt": ["R", "Arn"]}, "\",\"n\":2}}"]]}}},
            "M": {"Type": "Custom::AWSCDK-EKS-KubernetesResource", "Properties": {
                "ClusterName": {"Ref": "C"}, "Manifest": "not json ["}}}}"#;
        let file = SourceFile::new(FileId(0), "t.json", json);
        let out = load_document_file(&file, Limits::default());
        let c = &out.clusters[0];
        let rel = &c.helm_releases[0];
        assert_eq!(rel.chart_name(), Some("keda"));
        assert_eq!(rel.applied_by, AppliedBy::Deployment);
        assert!(rel.resource.is_some());
        let a = rel.values.known().unwrap().get("a").unwrap();
        assert!(a.get("role").unwrap().is_unknown());
        assert_eq!(a.get("n").unwrap().kind, ValueKind::Number("2".into()));
        // A Manifest that is not JSON is no workload, and no crash.
        assert!(out.workloads.is_empty());
    }
}
