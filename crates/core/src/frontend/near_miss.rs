//! Why a file named on the command line was not linted: almost one of the
//! formats fplint reads (a near-miss the user should fix), or someone
//! else's file (skipped, with the reason).

use super::recognise;
use crate::source::{SourceFile, Span};
use crate::tree::{self, Limits, Node};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Linted, or at least partly recognised.
    Linted,
    /// Almost one of fplint's formats: what is wrong and what to do.
    NearMiss {
        span: Span,
        message: String,
        help: String,
    },
    /// Not for fplint: the reason.
    Skipped(String),
}

/// Kinds a manifest without `apiVersion` is surely meant to be.
const KUBERNETES_KINDS: &[&str] = &[
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "Job",
    "CronJob",
    "Pod",
    "Service",
    "ConfigMap",
    "Namespace",
];

pub const EKSCTL_API_VERSION: &str = "eksctl.io/v1alpha5";

/// Whether a named text may be a near-miss and deserves [`judge`], when the
/// frontends recognised neither an eksctl nor a CloudFormation document in it.
pub fn worth_judging(text: &str) -> bool {
    // `Resources` keeps its case: manifests are full of `resources:`.
    scan(text, |rest| {
        starts_with_ci(rest, b"eksctl")
            || starts_with_ci(rest, b"clusterconfig")
            || rest.starts_with(b"Resources")
    })
}

/// Whether the text certainly writes its top-level `Resources` as a map:
/// `"Resources": {` in JSON, or in YAML a `Resources:` line at the margin
/// followed by `{` or by an indented line that is not a list item. `false`
/// when unsure.
pub fn resources_written_as_map(text: &str) -> bool {
    if let Some(at) = text.find("\"Resources\"") {
        // One `"Resources"` key, so it is the top-level one.
        if text.matches("\"Resources\"").count() > 1 {
            return false;
        }
        let rest = text[at + "\"Resources\"".len()..].trim_start();
        return rest
            .strip_prefix(':')
            .is_some_and(|r| r.trim_start().starts_with('{'));
    }
    let mut lines = text.lines();
    let mut found = false;
    for line in lines.by_ref() {
        if let Some(rest) = line.strip_prefix("Resources:") {
            let rest = rest.trim();
            if rest.starts_with('{') {
                return true;
            }
            if !rest.is_empty() && !rest.starts_with('#') {
                return false;
            }
            found = true;
            break;
        }
    }
    if !found {
        return false;
    }
    for line in lines {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        return line.len() > t.len() && !t.starts_with('-');
    }
    false
}

/// Whether a text names a `ClusterConfig` in any case: the one near-miss a
/// document read as a Kubernetes object can be.
pub fn mentions_cluster_config(text: &str) -> bool {
    const WORD: &[u8] = b"clusterconfig";
    // Every occurrence has its one `f` ten bytes in, and manifests have far
    // fewer `f`s than `c`s: only those positions are visited.
    let head = head(text);
    memchr::memchr2_iter(b'f', b'F', head).any(|i| {
        i.checked_sub(10)
            .is_some_and(|start| starts_with_ci(&head[start..], WORD))
    })
}

/// Whether `found` holds at some position of the text's first 64 KiB that
/// starts with `e`, `c` or `R` (the words looked for): most walked files
/// are looked at, so only those positions are visited.
fn scan(text: &str, found: impl Fn(&[u8]) -> bool) -> bool {
    let head = head(text);
    memchr::memchr3_iter(b'e', b'c', b'R', head).any(|i| found(&head[i..]))
        || memchr::memchr2_iter(b'E', b'C', head).any(|i| found(&head[i..]))
}

fn head(text: &str) -> &[u8] {
    &text.as_bytes()[..text.len().min(64 * 1024)]
}

fn starts_with_ci(text: &[u8], word: &[u8]) -> bool {
    text.len() >= word.len() && text[..word.len()].eq_ignore_ascii_case(word)
}

/// Judge a named YAML or JSON file that produced no finding of its own.
pub fn judge(file: &SourceFile, limits: Limits) -> Verdict {
    let text: &str = &file.text;
    if is_blank(text) {
        return Verdict::Skipped("empty file".into());
    }
    let parsed = if file.path.ends_with(".json") {
        tree::json::parse(text, file.id, limits)
    } else {
        tree::yaml::parse(text, file.id, limits)
    };
    for doc in &parsed.documents {
        if let Some(v) = near_miss(doc) {
            return v;
        }
    }
    if parsed.documents.iter().any(|d| recognise(d).is_some()) {
        return Verdict::Linted;
    }
    if let Some(err) = parsed.error {
        let templated = text.contains("{{") || text.contains("{%");
        return Verdict::Skipped(if templated {
            "a template (Helm or Jinja), not valid YAML until rendered; lint the rendered output"
                .into()
        } else {
            format!("not valid YAML or JSON: {}", err.message)
        });
    }
    Verdict::Skipped(
        "not an eksctl ClusterConfig, CloudFormation template or Kubernetes manifest".into(),
    )
}

/// Only whitespace, comments and document markers.
fn is_blank(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#') || l == "---" || l == "..."
    })
}

fn near_miss(doc: &Node) -> Option<Verdict> {
    doc.as_map()?;
    let api = doc.get("apiVersion");
    let kind = doc.get("kind");
    let api_str = api.and_then(Node::as_str);
    let kind_str = kind.and_then(Node::as_str);
    let eksctl_api = api_str.is_some_and(|a| a.to_ascii_lowercase().starts_with("eksctl.io/"));
    // An `eksctl.io/` version eksctl does not read is linted, and FP020
    // (invalid-value) says so with the version to use.
    if let (Some(k), Some(node)) = (kind_str, kind) {
        let cluster_config = k.eq_ignore_ascii_case("ClusterConfig");
        if cluster_config && k != "ClusterConfig" {
            return Some(Verdict::NearMiss {
                span: node.span,
                message: format!("`kind: {k}` is not `ClusterConfig`, so this file was not linted"),
                help: "eksctl reads `kind: ClusterConfig` (the case matters)".into(),
            });
        }
        if k == "ClusterConfig" && !eksctl_api {
            let at = api.map_or(node.span, |n| n.span);
            return Some(Verdict::NearMiss {
                span: at,
                message: match api_str {
                    Some(a) => format!(
                        "a `ClusterConfig` with `apiVersion: {a}` is not an eksctl config, so this file was not linted"
                    ),
                    None => "a `ClusterConfig` without `apiVersion` is not an eksctl config, so this file was not linted".into(),
                },
                help: format!("eksctl config files use `apiVersion: {EKSCTL_API_VERSION}`"),
            });
        }
        if api.is_none() && KUBERNETES_KINDS.contains(&k) {
            return Some(Verdict::NearMiss {
                span: node.span,
                message: format!(
                    "a `{k}` without `apiVersion` is not a Kubernetes manifest, so this file was not linted"
                ),
                help: "add the `apiVersion` (e.g. `apps/v1` for a Deployment)".into(),
            });
        }
    }
    if let Some(res) = doc.get("Resources") {
        let aws = doc.get("AWSTemplateFormatVersion").is_some() || mentions_aws_type(res);
        if res.as_map().is_none() && aws {
            return Some(Verdict::NearMiss {
                span: res.span,
                message: format!(
                    "`Resources` is {}, not a map of logical IDs, so this template was not linted",
                    res.kind_name()
                ),
                help: "write `Resources` as a map: `MyProfile: {Type: AWS::EKS::FargateProfile, Properties: ...}`".into(),
            });
        }
    }
    None
}

/// Whether a node holds a `Type: AWS::...` somewhere near the top.
fn mentions_aws_type(node: &Node) -> bool {
    let is_aws = |n: &Node| {
        n.get("Type")
            .and_then(Node::as_str)
            .is_some_and(|t| t.starts_with("AWS::"))
    };
    node.as_seq().is_some_and(|items| {
        items.iter().any(|i| {
            is_aws(i)
                || i.as_map()
                    .is_some_and(|m| m.iter().any(|e| is_aws(&e.value)))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, SourceFile};

    #[test]
    fn cluster_config_is_found_where_a_scan_of_every_c_finds_it() {
        let every_c = |text: &str| {
            let head = head(text);
            memchr::memchr2_iter(b'c', b'C', head)
                .any(|i| starts_with_ci(&head[i..], b"clusterconfig"))
        };
        let pad = "f".repeat(64 * 1024 - 12);
        for text in [
            "",
            "kind: ClusterConfig",
            "kind: CLUSTERconfig\n",
            "clusterconfig",
            "lusterconfig",
            "clusterconfi",
            "ffffffffffclusterconfigf",
            "kind: Cluster Config",
            "# fargate: clusterConfig",
            &format!("{pad}clusterconfig"),
            &format!("{}clusterconfig", &pad[1..]),
        ] {
            assert_eq!(mentions_cluster_config(text), every_c(text), "{text:.40}");
        }
    }

    fn verdict(name: &str, text: &str) -> Verdict {
        let f = SourceFile::new(FileId(0), name.to_string(), text.to_string());
        judge(&f, Limits::default())
    }

    fn near(v: &Verdict) -> bool {
        matches!(v, Verdict::NearMiss { .. })
    }

    #[test]
    fn near_misses() {
        // Another eksctl version is linted: FP020 reports it.
        assert!(!near(&verdict(
            "a.yaml",
            "apiVersion: eksctl.io/v1alpha6\nkind: ClusterConfig\n"
        )));
        assert!(near(&verdict(
            "a.yaml",
            "apiVersion: eksctl.io/v1alpha5\nkind: Clusterconfig\n"
        )));
        assert!(near(&verdict(
            "a.yaml",
            "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  - Type: AWS::EKS::Cluster\n"
        )));
        assert!(near(&verdict(
            "a.yaml",
            "kind: Deployment\nmetadata: {name: a}\n"
        )));
    }

    #[test]
    fn resources_as_map_in_the_text() {
        assert!(resources_written_as_map(
            "Resources:\n  A:\n    Type: AWS::EKS::Cluster\n"
        ));
        assert!(resources_written_as_map(
            "Resources: # the stack\n\n  A: {}\n"
        ));
        assert!(resources_written_as_map("Resources: {A: {}}\n"));
        assert!(resources_written_as_map("{\"Resources\" : {\"A\": {}}}"));
        assert!(!resources_written_as_map(
            "Resources:\n  - Type: AWS::EKS::Cluster\n"
        ));
        assert!(!resources_written_as_map(
            "Resources:\n- Type: AWS::EKS::Cluster\n"
        ));
        assert!(!resources_written_as_map(
            "{\"Resources\": [{\"Type\": \"AWS::X\"}]}"
        ));
        assert!(!resources_written_as_map("Resources: !Ref Other\n"));
        assert!(!resources_written_as_map(
            "AWSTemplateFormatVersion: '2010-09-09'\n"
        ));
    }

    #[test]
    fn skipped_and_linted() {
        assert_eq!(
            verdict("a.yaml", "# nothing\n---\n"),
            Verdict::Skipped("empty file".into())
        );
        assert!(matches!(
            verdict("a.yaml", "name: ci\non: push\n"),
            Verdict::Skipped(_)
        ));
        assert!(matches!(
            verdict("t.yaml", "metadata:\n  name: {{ .Values.name }\n  x: [\n"),
            Verdict::Skipped(r) if r.contains("Helm")
        ));
        assert_eq!(
            verdict(
                "a.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
            ),
            Verdict::Linted
        );
        assert!(matches!(
            verdict("a.yaml", "resources:\n  limits: {cpu: 1}\n"),
            Verdict::Skipped(_)
        ));
    }
}
