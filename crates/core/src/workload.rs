//! Workloads: what runs pods, wherever it was declared (a Kubernetes
//! manifest, a Terraform `kubernetes_*` resource), reduced to what Fargate
//! scheduling cares about.

use crate::model::{Known, Loc, Located, ResourceRef};
use crate::value::Value;

/// The Kubernetes kinds that run pods.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WorkloadKind {
    /// `apps/v1` Deployment.
    Deployment,
    /// `apps/v1` StatefulSet.
    StatefulSet,
    /// `apps/v1` DaemonSet.
    DaemonSet,
    /// `apps/v1` ReplicaSet.
    ReplicaSet,
    /// `batch/v1` Job.
    Job,
    /// `batch/v1` CronJob.
    CronJob,
    /// A bare Pod.
    Pod,
}

impl WorkloadKind {
    /// The kind named `kind` (`Deployment`), if it runs pods.
    pub fn from_kind(kind: &str) -> Option<WorkloadKind> {
        Some(match kind {
            "Deployment" => WorkloadKind::Deployment,
            "StatefulSet" => WorkloadKind::StatefulSet,
            "DaemonSet" => WorkloadKind::DaemonSet,
            "ReplicaSet" => WorkloadKind::ReplicaSet,
            "Job" => WorkloadKind::Job,
            "CronJob" => WorkloadKind::CronJob,
            "Pod" => WorkloadKind::Pod,
            _ => return None,
        })
    }

    /// The kind's name as Kubernetes writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::ReplicaSet => "ReplicaSet",
            WorkloadKind::Job => "Job",
            WorkloadKind::CronJob => "CronJob",
            WorkloadKind::Pod => "Pod",
        }
    }
}

/// An object that runs pods, from a manifest or from IaC.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Its kind.
    pub kind: WorkloadKind,
    /// Its `metadata.name`.
    pub name: Located<String>,
    /// Unknown when the manifest does not say (`kubectl -n` or kustomize decides).
    pub namespace: Located<String>,
    /// The object as a whole (its `kind:` line or resource header).
    pub loc: Loc,
    /// The pods it runs.
    pub pod: PodTemplate,
    /// Its node in its unit's dependency graph (IaC only).
    pub resource: Option<ResourceRef>,
    /// The cluster it runs on, by [`crate::model::Cluster::key`], when the
    /// declaring code says; otherwise assigned by the linter's run.
    pub cluster_key: Option<String>,
    /// The variant it was built for, when the manifests are assembled
    /// (a kustomize overlay): one base can be deployed several ways.
    pub variant: Option<Box<Variant>>,
    /// Whether applying it changes CoreDNS's Deployment (see
    /// [`object_patches_coredns`]).
    pub coredns_patch: Known<bool>,
}

/// One way of deploying shared manifests: an overlay, named by its folder
/// (`overlays/prod`), with the file that assembles it; or a Helm release
/// of a chart of the repository, with the declaration that installs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The overlay's folder (`overlays/prod`), or the release's name.
    pub name: String,
    /// The kustomization that assembles it, or the release's declaration
    /// (the chart's `Chart.yaml` for a chart rendered with its defaults).
    pub loc: Loc,
    /// What makes it.
    pub kind: VariantKind,
    /// For a chart: template actions that print a value of `.Values`, each
    /// with where that value is set (the release's values, or the chart's
    /// `values.yaml`).
    pub origins: Vec<(crate::source::Span, crate::source::Span)>,
}

/// What assembles a [`Variant`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum VariantKind {
    /// A kustomize overlay.
    #[default]
    Overlay,
    /// A release of the chart of this name.
    Release {
        /// The chart's name (`Chart.yaml`'s `name`).
        chart: String,
    },
    /// The chart of this name, rendered with its defaults for any release
    /// (release name and namespace unknown): no release of the run uses it.
    ChartDefaults {
        /// The chart's name.
        chart: String,
    },
}

/// A key/value pair with the place it was written.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The key.
    pub key: String,
    /// The value, or unknown.
    pub value: Known<String>,
    /// Where the pair is written.
    pub loc: Loc,
}

/// One toleration of a pod.
#[derive(Clone, Debug)]
pub struct Toleration {
    /// The taint key; `None` matches every key.
    pub key: Known<Option<String>>,
    /// `Equal` or `Exists`.
    pub operator: Known<String>,
    /// The taint value, for `Equal`.
    pub value: Known<Option<String>>,
    /// The taint effect; `None` matches every effect.
    pub effect: Known<Option<String>>,
    /// Where it is written.
    pub loc: Loc,
}

impl Toleration {
    /// Whether it tolerates `key=value:effect`; unknown when a part is unknown.
    pub fn tolerates(&self, key: &str, value: &str, effect: &str) -> Known<bool> {
        let (Some(k), Some(op), Some(v), Some(e)) = (
            self.key.known(),
            self.operator.known(),
            self.value.known(),
            self.effect.known(),
        ) else {
            return Known::Unknown;
        };
        let effect_ok = e.as_deref().is_none_or(|e| e.is_empty() || e == effect);
        let ok = match (k.as_deref(), op.as_str()) {
            (None | Some(""), "Exists") => true,
            (Some(k), "Exists") => k == key,
            (Some(k), "Equal" | "") => k == key && v.as_deref() == Some(value),
            _ => false,
        };
        Known::Known(ok && effect_ok)
    }
}

/// CPU in millicores and memory in bytes; `None` inside means not set.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    /// Millicores; unknown when not readable.
    pub cpu: Known<Option<u64>>,
    /// Bytes; unknown when not readable.
    pub memory: Known<Option<u64>>,
    /// Where `requests` or `limits` is written.
    pub loc: Option<Loc>,
}

impl Resources {
    /// Kubernetes defaults a request that is not set to the limit of the
    /// same resource, so a container with only limits requests them.
    fn or_limit(own: &Known<Option<u64>>, limit: &Known<Option<u64>>) -> Known<Option<u64>> {
        match own {
            Known::Known(None) => limit.clone(),
            k => k.clone(),
        }
    }
}

/// One container of a pod.
#[derive(Clone, Debug)]
pub struct Container {
    /// Its name.
    pub name: Known<String>,
    /// Where it is written.
    pub loc: Loc,
    /// Its resource requests.
    pub requests: Resources,
    /// Its resource limits.
    pub limits: Resources,
    /// `securityContext.privileged`, when written.
    pub privileged: Option<Located<bool>>,
    /// Each `hostPort` it asks for.
    pub host_ports: Vec<Loc>,
    /// Extended resources such as `nvidia.com/gpu` requested or limited.
    pub gpus: Vec<Loc>,
}

impl Container {
    /// What the container requests once Kubernetes has defaulted it: per
    /// resource, the request, else the limit. Located at the requests when
    /// they are written, else at the limits.
    pub fn effective_requests(&self) -> Resources {
        Resources {
            cpu: Resources::or_limit(&self.requests.cpu, &self.limits.cpu),
            memory: Resources::or_limit(&self.requests.memory, &self.limits.memory),
            loc: self
                .requests
                .loc
                .clone()
                .or_else(|| self.limits.loc.clone()),
        }
    }
}

/// The pod template of a workload: what decides where its pods land.
#[derive(Clone, Debug)]
pub struct PodTemplate {
    /// Where the template is written.
    pub loc: Loc,
    /// Pod labels (what Fargate selectors match).
    pub labels: Known<Vec<Pair>>,
    /// Pod annotations.
    pub annotations: Known<Vec<Pair>>,
    /// Pod tolerations.
    pub tolerations: Known<Vec<Toleration>>,
    /// `nodeSelector` pairs.
    pub node_selector: Known<Vec<Pair>>,
    /// `affinity`, as written.
    pub affinity: Option<Box<Located<Value>>>,
    /// `schedulerName`, when written.
    pub scheduler_name: Option<Box<Located<String>>>,
    /// `hostNetwork`, when written.
    pub host_network: Option<Box<Located<bool>>>,
    /// Each `hostPath` volume.
    pub host_path_volumes: Vec<Loc>,
    /// Init containers.
    pub init_containers: Known<Vec<Container>>,
    /// Containers.
    pub containers: Known<Vec<Container>>,
    /// `serviceAccountName`, when written.
    pub service_account: Option<Located<String>>,
}

impl PodTemplate {
    /// Make what may have changed unknown: the spec, and with `whole` the
    /// labels and annotations too. The affinity is known to be there, of
    /// unknown content, so that no rule takes the pods as unconstrained.
    pub fn make_unknown(&mut self, whole: bool) {
        if whole {
            self.labels = Known::Unknown;
            self.annotations = Known::Unknown;
        }
        self.tolerations = Known::Unknown;
        self.node_selector = Known::Unknown;
        self.containers = Known::Unknown;
        self.init_containers = Known::Unknown;
        self.host_path_volumes.clear();
        let at = self.loc.clone();
        self.affinity = Some(Box::new(Located::new(
            Known::Known(Value::unknown(Some(at.span))),
            at.clone(),
        )));
        self.host_network = Some(Box::new(Located::new(Known::Unknown, at.clone())));
        self.scheduler_name = Some(Box::new(Located::new(Known::Unknown, at)));
    }

    /// Known label pairs, or `None` if any is unknown.
    pub fn known_labels(&self) -> Option<Vec<(&str, &str)>> {
        self.labels
            .known()?
            .iter()
            .map(|p| Some((p.key.as_str(), p.value.known()?.as_str())))
            .collect()
    }

    /// The pod label `key`, if written.
    pub fn label(&self, key: &str) -> Option<&Pair> {
        self.labels.known()?.iter().find(|p| p.key == key)
    }

    /// The pod annotation `key`, if written.
    pub fn annotation(&self, key: &str) -> Option<&Pair> {
        self.annotations.known()?.iter().find(|p| p.key == key)
    }
}

/// Kubernetes CPU quantity (`500m`, `0.5`, `2`) in millicores.
pub fn parse_cpu(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(m) = s.strip_suffix('m') {
        return m
            .parse::<f64>()
            .ok()
            .filter(|v| *v >= 0.0)
            .map(|v| v.ceil() as u64);
    }
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map(|v| (v * 1000.0).ceil() as u64)
}

/// Kubernetes memory quantity (`512Mi`, `1G`, `1e9`, `128974848`) in bytes.
pub fn parse_memory(s: &str) -> Option<u64> {
    let s = s.trim();
    const UNITS: &[(&str, f64)] = &[
        ("Ki", 1024.0),
        ("Mi", 1024.0 * 1024.0),
        ("Gi", 1024.0 * 1024.0 * 1024.0),
        ("Ti", 1024.0 * 1024.0 * 1024.0 * 1024.0),
        ("k", 1e3),
        ("K", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("m", 1e-3),
    ];
    for (suffix, factor) in UNITS {
        if let Some(n) = s.strip_suffix(suffix) {
            return n
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(|v| (v * factor).ceil() as u64);
        }
    }
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map(|v| v.ceil() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_deployment_may_be_coredns() {
        let obj = |kind: &str, name: &str| {
            let text =
                format!("kind: {kind}\nmetadata:\n  name: {name}\n  namespace: kube-system\n");
            let parsed =
                crate::tree::yaml::parse(&text, crate::source::FileId(0), Default::default());
            Value::from_node(&parsed.documents[0])
        };
        // A name the chart's release gives is unknown.
        for kind in ["DaemonSet", "StatefulSet", "ConfigMap"] {
            assert_eq!(
                object_patches_coredns(&obj(kind, "~")),
                Known::Known(false),
                "{kind}"
            );
        }
        assert_eq!(
            object_patches_coredns(&obj("Deployment", "~")),
            Known::Unknown
        );
        assert_eq!(
            object_patches_coredns(&obj("Deployment", "coredns")),
            Known::Known(true)
        );
    }

    #[test]
    fn quantities() {
        assert_eq!(parse_cpu("500m"), Some(500));
        assert_eq!(parse_cpu("0.25"), Some(250));
        assert_eq!(parse_cpu("2"), Some(2000));
        assert_eq!(parse_cpu("x"), None);
        assert_eq!(parse_memory("512Mi"), Some(512 * 1024 * 1024));
        assert_eq!(parse_memory("1G"), Some(1_000_000_000));
        assert_eq!(parse_memory("1e3"), Some(1000));
        assert_eq!(parse_memory("128974848"), Some(128_974_848));
        assert_eq!(parse_memory("-1Gi"), None);
    }

    #[test]
    fn limits_default_the_requests() {
        let res =
            |cpu: Known<Option<u64>>, memory: Known<Option<u64>>, at: Option<usize>| Resources {
                cpu,
                memory,
                loc: at.map(|s| {
                    Loc::new(
                        crate::source::Span::new(crate::source::FileId(0), s, s + 1),
                        "",
                    )
                }),
            };
        let c = |requests, limits| Container {
            name: Known::Unknown,
            loc: Loc::default(),
            requests,
            limits,
            privileged: None,
            host_ports: Vec::new(),
            gpus: Vec::new(),
        };
        let none = || res(Known::Known(None), Known::Known(None), None);
        // Only limits: both are requested.
        let e = c(
            none(),
            res(
                Known::Known(Some(500)),
                Known::Known(Some(1 << 30)),
                Some(7),
            ),
        )
        .effective_requests();
        assert_eq!(
            (e.cpu, e.memory),
            (Known::Known(Some(500)), Known::Known(Some(1 << 30)))
        );
        assert_eq!(e.loc.map(|l| l.span.start), Some(7));
        // Per resource: the CPU request stays, the memory limit fills in.
        let e = c(
            res(Known::Known(Some(250)), Known::Known(None), Some(3)),
            res(
                Known::Known(Some(2000)),
                Known::Known(Some(1 << 30)),
                Some(9),
            ),
        )
        .effective_requests();
        assert_eq!(
            (e.cpu, e.memory),
            (Known::Known(Some(250)), Known::Known(Some(1 << 30)))
        );
        assert_eq!(e.loc.map(|l| l.span.start), Some(3));
        // An unknown limit leaves an unset request unknown; an unknown request stays unknown.
        let e = c(none(), res(Known::Unknown, Known::Known(None), Some(9))).effective_requests();
        assert_eq!((e.cpu, e.memory), (Known::Unknown, Known::Known(None)));
        let e = c(res(Known::Unknown, Known::Known(None), Some(3)), none()).effective_requests();
        assert_eq!(e.cpu, Known::Unknown);
    }

    #[test]
    fn toleration_matching() {
        let t =
            |key: Option<&str>, op: &str, value: Option<&str>, effect: Option<&str>| Toleration {
                key: Known::Known(key.map(str::to_string)),
                operator: Known::Known(op.to_string()),
                value: Known::Known(value.map(str::to_string)),
                effect: Known::Known(effect.map(str::to_string)),
                loc: Loc::default(),
            };
        let (k, v, e) = ("eks.amazonaws.com/compute-type", "fargate", "NoSchedule");
        assert_eq!(
            t(Some(k), "Equal", Some(v), Some(e)).tolerates(k, v, e),
            Known::Known(true)
        );
        assert_eq!(
            t(Some(k), "Exists", None, None).tolerates(k, v, e),
            Known::Known(true)
        );
        assert_eq!(
            t(None, "Exists", None, None).tolerates(k, v, e),
            Known::Known(true)
        );
        assert_eq!(
            t(Some(k), "Equal", Some("ec2"), Some(e)).tolerates(k, v, e),
            Known::Known(false)
        );
        assert_eq!(
            t(Some(k), "Equal", Some(v), Some("NoExecute")).tolerates(k, v, e),
            Known::Known(false)
        );
        assert_eq!(
            t(Some("CriticalAddonsOnly"), "Exists", None, None).tolerates(k, v, e),
            Known::Known(false)
        );
    }
}

/// The `aws-auth` ConfigMap when it is managed in code.
#[derive(Clone, Debug)]
pub struct AwsAuth {
    /// The ConfigMap (its resource or document).
    pub loc: Loc,
    /// The `mapRoles` entry, when written.
    pub map_roles_loc: Option<Loc>,
    /// The roles it maps.
    pub roles: Known<Vec<RoleMapping>>,
    /// The cluster it belongs to, once known.
    pub cluster_key: Option<String>,
}

/// One `mapRoles` entry.
#[derive(Clone, Debug)]
pub struct RoleMapping {
    /// The role's ARN.
    pub role_arn: Known<String>,
    /// When the ARN is only known at deployment: what in the code defines
    /// the role (see [`crate::model::FargateProfile::role_ref`]) and its name
    /// when that is written.
    pub role_ref: Option<String>,
    /// The role's name, when written.
    pub role_name: Option<String>,
    /// The groups the role is mapped into.
    pub groups: Known<Vec<String>>,
    /// The Kubernetes user name it maps to (`system:node:{{SessionName}}`);
    /// unknown when not written or not resolved.
    pub username: Known<String>,
    /// The entry.
    pub loc: Loc,
}

/// An EKS Pod Identity association: pods of `namespace` running under
/// `service_account` get their AWS credentials from the Pod Identity agent.
#[derive(Clone, Debug)]
pub struct PodIdentityAssociation {
    /// The namespace of the pods.
    pub namespace: Located<String>,
    /// The service account of the pods.
    pub service_account: Located<String>,
    /// The association as a whole (its list entry or resource header).
    pub loc: Loc,
    /// The cluster it belongs to, by [`crate::model::Cluster::key`], when the
    /// declaring code says; otherwise assigned by the linter's run.
    pub cluster_key: Option<String>,
}

/// Karpenter's own objects, as far as rules need them: the taints a
/// NodePool's nodes start with, and whether its node class uses a custom AMI.
#[derive(Clone, Debug, Default)]
pub struct KarpenterObjects {
    /// `NodePool`s and `Provisioner`s.
    pub node_pools: Vec<NodePool>,
    /// `EC2NodeClass`es and `AWSNodeTemplate`s.
    pub node_classes: Vec<NodeClass>,
}

impl KarpenterObjects {
    /// Move `other`'s objects into this one.
    pub fn append(&mut self, other: &mut KarpenterObjects) {
        self.node_pools.append(&mut other.node_pools);
        self.node_classes.append(&mut other.node_classes);
    }
}

/// A Karpenter `NodePool` (or a v1alpha5 `Provisioner`).
#[derive(Clone, Debug)]
pub struct NodePool {
    /// Its name.
    pub name: Located<String>,
    /// The keys of `startupTaints`; empty when there are none.
    pub startup_taints: Known<Vec<Located<String>>>,
    /// The `startupTaints` key itself, when written.
    pub startup_taints_loc: Option<Loc>,
    /// `nodeClassRef.name` (`providerRef.name` for a `Provisioner`).
    pub node_class: Option<Located<String>>,
}

/// A Karpenter `EC2NodeClass` (or a v1alpha1 `AWSNodeTemplate`).
#[derive(Clone, Debug)]
pub struct NodeClass {
    /// Its name.
    pub name: Located<String>,
    /// Whether Karpenter treats it as a custom AMI (`amiFamily: Custom`),
    /// located at `amiFamily` or the `amiSelectorTerms` alias.
    pub custom_ami: Located<bool>,
}

/// Whether a command runs `kubectl patch` (or `annotate`, `rollout`) on
/// CoreDNS's Deployment: the usual way to move EKS's CoreDNS onto Fargate
/// without its add-on.
pub fn command_patches_coredns(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("kubectl")
        && ["patch", "annotate", "rollout"]
            .iter()
            .any(|v| t.contains(v))
        && t.contains("coredns")
}

/// Whether applying a Kubernetes object changes CoreDNS's Deployment in
/// `kube-system`: the Deployment itself, or a Job, CronJob or Pod (a Helm
/// hook too) whose containers run a CoreDNS patch. Another object whose
/// name and namespace are known is no patch. Unknown when what decides it
/// cannot be read.
pub fn object_patches_coredns(obj: &Value) -> Known<bool> {
    use crate::value::ValueKind;
    if obj.is_unknown() {
        return Known::Unknown;
    }
    let text = |v: Option<&Value>| v.map(|v| v.as_str().map(str::to_string));
    let Some(Some(kind)) = text(obj.get("kind")) else {
        return Known::Unknown;
    };
    let meta = obj.get("metadata");
    let name = text(meta.and_then(|m| m.get("name")));
    let ns = text(meta.and_then(|m| m.get("namespace")));
    match kind.as_str() {
        "Job" | "CronJob" | "Pod" => {
            // Every string of the object, and whether one is unknown.
            fn strings(v: &Value, out: &mut String, unknown: &mut bool, depth: usize) {
                if depth > 64 {
                    *unknown = true;
                    return;
                }
                match &v.kind {
                    ValueKind::String(s) => {
                        out.push_str(s);
                        out.push(' ');
                    }
                    ValueKind::Unknown => *unknown = true,
                    ValueKind::List(items) => {
                        for i in items {
                            strings(i, out, unknown, depth + 1);
                        }
                    }
                    ValueKind::Map(entries) => {
                        for (_, x) in entries {
                            strings(x, out, unknown, depth + 1);
                        }
                    }
                    _ => {}
                }
            }
            let (mut all, mut unknown) = (String::new(), false);
            if let Some(spec) = obj.get("spec") {
                strings(spec, &mut all, &mut unknown, 0);
            }
            if command_patches_coredns(&all) {
                Known::Known(true)
            } else if unknown {
                Known::Unknown
            } else {
                Known::Known(false)
            }
        }
        // CoreDNS is a Deployment: no other kind is it, whatever its name.
        k if k != "Deployment" => Known::Known(false),
        // A Deployment named `coredns` in `kube-system` is it.
        _ => match (name, ns) {
            (Some(Some(n)), Some(Some(ns))) => {
                Known::Known(n == "coredns" && ns == "kube-system" && kind == "Deployment")
            }
            // A namespace not written is the default one (or the provider's).
            (Some(Some(n)), None) if n != "coredns" => Known::Known(false),
            _ => Known::Unknown,
        },
    }
}
