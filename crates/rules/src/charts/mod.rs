//! What public charts deploy, learned by rendering them.
//!
//! [`known`] is generated (`cargo run -p xtask -- charts`, see
//! CONTRIBUTING.md): each pinned chart is rendered with its defaults and
//! under probe values, and what its workloads are, where they run and which
//! values set their scheduling fields is written down as data. The charts'
//! templates are not copied. A release of a chart or version that is not
//! here is unknown, and rules stay quiet on it.
//! [`metadata`] is researched by hand: what a controller would read from
//! the EC2 instance metadata service.

pub mod known;
pub mod metadata;

pub use metadata::{metadata_need, MetadataNeed};

/// A chart version, `(major, minor, patch)`.
pub type Version = (u64, u64, u64);

/// Where one range of a chart's facts was learned.
#[derive(Debug)]
pub struct Pin {
    /// The chart's version in its `Chart.yaml`.
    pub version: &'static str,
    /// `owner/name` of the repository.
    pub repo: &'static str,
    /// The full commit the chart was rendered at.
    pub commit: &'static str,
    /// The chart's folder in the repository.
    pub folder: &'static str,
}

/// One chart's facts over a range of versions.
#[derive(Debug)]
pub struct KnownChart {
    /// The chart's name, as a release names it.
    pub name: &'static str,
    /// First version the facts hold for.
    pub from: Version,
    /// First version they are not known to hold for: after the newest
    /// pinned minor version.
    pub until: Version,
    /// The versions rendered to learn them (all gave the same facts).
    pub pins: &'static [Pin],
    /// Values (dotted paths) that change which workloads the chart renders
    /// or of what kind, beyond [`ChartWorkload::when`]: a release that sets
    /// one is unknown.
    pub guards: &'static [&'static str],
    /// What it renders, each under its switches.
    pub workloads: &'static [ChartWorkload],
}

/// A workload the chart renders.
#[derive(Debug)]
pub struct ChartWorkload {
    /// `Deployment`, `StatefulSet`, `DaemonSet`, `Job`, `CronJob`, ...
    pub kind: &'static str,
    /// Its name for a release named as the chart.
    pub name: &'static str,
    /// The template that renders it (`templates/operator.yaml`).
    pub template: &'static str,
    /// `None`: the release's namespace; else a fixed one.
    pub namespace: Option<&'static str>,
    /// Values that move it to another namespace when set.
    pub namespace_values: &'static [&'static str],
    /// Boolean values it is rendered under: each must have the truth given.
    pub when: &'static [Switch],
    /// Which values set its pod's fields. A field not listed is unknown.
    pub fields: &'static [FieldSource],
}

/// A boolean value a workload depends on.
#[derive(Debug)]
pub struct Switch {
    /// Dotted path (`webhooks.enabled`).
    pub value: &'static str,
    /// Its truth in the chart's defaults.
    pub default: bool,
    /// The truth the workload is rendered under.
    pub needs: bool,
}

/// A pod field the rules judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The pod's `tolerations`.
    Tolerations,
    /// The pod's `nodeSelector`.
    NodeSelector,
    /// The pod's `affinity`.
    Affinity,
    /// Any container's `resources`.
    Resources,
    /// The pod's `hostNetwork`.
    HostNetwork,
    /// The pod's `priorityClassName`.
    PriorityClassName,
    /// The workload's `spec.replicas`.
    Replicas,
    /// Any container's `securityContext.privileged`.
    Privileged,
    /// Any container port's `hostPort`.
    HostPorts,
}

/// How a field's values combine when several are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// The first value that is set and not empty wins (Helm's `default`,
    /// `or`, `with ... else`): a component's own list, else the global one.
    First,
    /// All of them are rendered, one after another.
    All,
}

/// Which values render one field of a workload.
#[derive(Debug)]
pub struct FieldSource {
    /// The field they set.
    pub field: Field,
    /// Dotted paths, in precedence order.
    pub values: &'static [&'static str],
    /// Each value's default in the chart's values, as JSON (`null`: absent).
    pub defaults: &'static [&'static str],
    /// How they combine.
    pub join: Join,
    /// The field as the chart renders it with its defaults, as compact JSON
    /// (`null`: absent). Container fields list one entry per container,
    /// then per init container (`HostPorts`: each container's host ports).
    /// A field with no `values` is fixed by the chart to this.
    pub rendered: &'static str,
}

impl KnownChart {
    /// Whether version `v` lies in the range.
    pub fn in_range(&self, v: Version) -> bool {
        self.from <= v && v < self.until
    }
}

impl ChartWorkload {
    /// Where `field` comes from.
    pub fn field(&self, field: Field) -> Option<&FieldSource> {
        self.fields.iter().find(|f| f.field == field)
    }

    /// Whether the workload makes pods of its own (a DaemonSet makes none
    /// without nodes, and a CronJob none until it is due).
    pub fn makes_pods(&self) -> bool {
        matches!(
            self.kind,
            "Deployment" | "StatefulSet" | "Job" | "ReplicaSet"
        )
    }
}

/// The facts for a release of `chart` at `version` (`None`: not pinned, so
/// the newest the data knows). A version that does not parse, or that no
/// range holds, is unknown.
pub fn known_chart(chart: &str, version: Option<&str>) -> Option<&'static KnownChart> {
    let mut ranges = known::CHARTS.iter().filter(|c| c.name == chart);
    match version {
        None => ranges.max_by_key(|c| c.from),
        Some(v) => {
            let v = crate::common::parse_version(v)?;
            ranges.find(|c| c.in_range(v))
        }
    }
}
