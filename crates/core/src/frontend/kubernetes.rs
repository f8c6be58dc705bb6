//! Kubernetes manifests: pod templates of workloads, and the `aws-auth`
//! ConfigMap. A manifest without `metadata.namespace` has an unknown
//! namespace: `kubectl -n` or kustomize decides it, not fplint.

use super::shared::objects;
use super::{declares, load_declaration, UnitOutput};
use crate::source::SourceFile;
use crate::tree::{Node, NodeKind};
use crate::value::Value;

/// Whether a document is a Kubernetes object fplint reads.
pub fn recognise(doc: &Node) -> bool {
    let api = doc.get("apiVersion").and_then(Node::as_str);
    let kind = doc.get("kind").and_then(Node::as_str);
    matches!((api, kind), (Some(a), Some(k)) if !a.is_empty() && !k.is_empty())
}

/// Read a Kubernetes object into the unit.
pub fn load(file: &SourceFile, doc: &Node, out: &mut UnitOutput) {
    crate::schema::check_kubernetes(doc, &mut out.schema);
    // Most objects of a tree (Services, Ingresses) no reader below looks at:
    // they are not turned into a value.
    let top = |key: &str| {
        let NodeKind::Map(entries) = &doc.kind else {
            return None;
        };
        // As `Value::get` then `Value::as_str` read it: the last entry wins.
        let e = entries
            .iter()
            .rev()
            .find(|e| e.key.scalar().unwrap_or_default() == key)?;
        crate::value::text_of(&e.value)
    };
    if !read(
        top("apiVersion").unwrap_or_default(),
        top("kind").unwrap_or_default(),
    ) {
        return;
    }
    let value = Value::from_node(doc);
    // Declarations of releases that a controller in the cluster applies.
    if !load_declaration(file, &value, out) {
        objects::load_object(&value, "", out);
    }
}

/// Whether [`load_declaration`] or [`objects::load_object`] reads anything
/// of an object with this `apiVersion` and `kind` (each empty when absent).
fn read(api: &str, kind: &str) -> bool {
    declares(api, kind) || objects::reads(api, kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Known;
    use crate::source::FileId;
    use crate::tree::{yaml, Limits};
    use crate::workload::WorkloadKind;

    fn load_text(text: &str) -> UnitOutput {
        let file = SourceFile::new(FileId(0), "m.yaml", text);
        let mut out = UnitOutput::default();
        for doc in yaml::parse(text, FileId(0), Limits::default()).documents {
            if recognise(&doc) {
                load(&file, &doc, &mut out);
            }
        }
        out
    }

    #[test]
    fn workloads_and_namespaces() {
        let out = load_text(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      tolerations: [{key: eks.amazonaws.com/compute-type, operator: Exists}]\n      containers: [{name: c, resources: {requests: {cpu: 100m, memory: 64Mi}}}]\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: kube-system}\n  spec: {hostNetwork: true, containers: [{name: c, ports: [{hostPort: 80}]}], volumes: [{name: v, hostPath: {path: /}}]}\n",
        );
        assert_eq!(out.workloads.len(), 2);
        let web = &out.workloads[0];
        assert_eq!(
            web.namespace.value,
            Known::Unknown,
            "no namespace: decided at apply time"
        );
        assert_eq!(web.pod.known_labels(), Some(vec![("app", "web")]));
        let tol = &web.pod.tolerations.known().unwrap()[0];
        assert_eq!(
            tol.tolerates("eks.amazonaws.com/compute-type", "fargate", "NoSchedule"),
            Known::Known(true)
        );
        let c = &web.pod.containers.known().unwrap()[0];
        assert_eq!(c.requests.cpu, Known::Known(Some(100)));
        let pod = &out.workloads[1];
        assert_eq!(pod.kind, WorkloadKind::Pod);
        assert_eq!(
            pod.namespace.known().map(String::as_str),
            Some("kube-system")
        );
        assert_eq!(
            pod.pod.host_network.as_ref().and_then(|h| h.known()),
            Some(&true)
        );
        assert_eq!(pod.pod.host_path_volumes.len(), 1);
        assert_eq!(pod.pod.containers.known().unwrap()[0].host_ports.len(), 1);
    }

    #[test]
    fn kustomize_patch_is_not_a_workload() {
        let out = load_text(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: checkout}\nspec:\n  template:\n    metadata:\n      labels: {fargate: \"yes\"}\n",
        );
        assert!(out.workloads.is_empty());
    }

    #[test]
    fn aws_auth_roles() {
        let out = load_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aws-auth, namespace: kube-system}\ndata:\n  mapRoles: |\n    - rolearn: arn:aws:iam::111122223333:role/fargate-pods\n      username: system:node:{{SessionName}}\n      groups: [system:bootstrappers, system:nodes, system:node-proxier]\n",
        );
        let roles = out.aws_auth[0].roles.known().unwrap();
        assert_eq!(
            roles[0].role_arn.known().map(String::as_str),
            Some("arn:aws:iam::111122223333:role/fargate-pods")
        );
        assert_eq!(roles[0].groups.known().map(Vec::len), Some(3));
    }

    #[test]
    fn karpenter_pools_and_classes() {
        let out = load_text(
            "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: old}\nspec:\n  providerRef: {name: tmpl}\n  startupTaints: [{key: a, effect: NoSchedule}, {key: b, effect: NoExecute}]\n---\napiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: tmpl}\nspec: {amiFamily: Custom}\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: plain}\nspec: {template: {spec: {nodeClassRef: {name: x}}}}\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: odd}\nspec: {template: {spec: {startupTaints: \"${taints}\"}}}\n---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: x}\nspec: {amiSelectorTerms: [{id: ami-1}, {alias: al2023@latest}]}\n",
        );
        let pools = &out.karpenter.node_pools;
        assert_eq!(pools.len(), 3);
        let keys: Vec<_> = pools[0]
            .startup_taints
            .known()
            .unwrap()
            .iter()
            .map(|k| k.known().unwrap().as_str())
            .collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(
            pools[0]
                .node_class
                .as_ref()
                .and_then(|c| c.known())
                .map(String::as_str),
            Some("tmpl")
        );
        assert_eq!(pools[1].startup_taints.known().map(Vec::len), Some(0));
        assert!(pools[1].startup_taints_loc.is_none());
        // A taint list that is not a list cannot be read.
        assert!(pools[2].startup_taints.known().is_none());
        let classes = &out.karpenter.node_classes;
        assert_eq!(classes[0].custom_ami.known(), Some(&true));
        assert_eq!(classes[1].custom_ami.known(), Some(&false));
        assert_eq!(
            &*classes[1].custom_ami.loc.path,
            "spec.amiSelectorTerms[1].alias"
        );
        assert!(out.workloads.is_empty());
    }
}
