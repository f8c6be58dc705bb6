//! What public charts deploy, learned by rendering them.
//!
//! [`known`] reads generated data (`cargo run -p xtask -- charts`, see
//! CONTRIBUTING.md): each pinned chart is rendered with its defaults and
//! under probe values, and what its workloads are, where they run and which
//! values set their scheduling fields is written down as data. The charts'
//! templates are not copied. A release of a chart or version that is not
//! here is unknown, and rules stay quiet on it.
//! [`metadata`] is researched by hand: what a controller would read from
//! the EC2 instance metadata service.

mod data;
pub mod known;
pub mod metadata;

pub use metadata::{metadata_need, MetadataNeed};

use fplint_core::model::Known;
use fplint_core::value::{Value, ValueKind};
use fplint_core::Span;
use serde::{Deserialize, Serialize};

/// A chart version, `(major, minor, patch)`.
pub type Version = (u64, u64, u64);

/// Where one range of a chart's facts was learned.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pin {
    /// The chart's version in its `Chart.yaml`.
    #[serde(deserialize_with = "data::string")]
    pub version: &'static str,
    /// `owner/name` of the repository.
    #[serde(deserialize_with = "data::string")]
    pub repo: &'static str,
    /// The full commit the chart was rendered at.
    #[serde(deserialize_with = "data::string")]
    pub commit: &'static str,
    /// The chart's folder in the repository.
    #[serde(deserialize_with = "data::string")]
    pub folder: &'static str,
}

/// One chart's facts over a range of versions.
#[derive(Debug, Serialize, Deserialize)]
pub struct KnownChart {
    /// The chart's name, as a release names it.
    #[serde(deserialize_with = "data::string")]
    pub name: &'static str,
    /// First version the facts hold for.
    #[serde(with = "data::version")]
    pub from: Version,
    /// First version they are not known to hold for: after the newest
    /// pinned minor version.
    #[serde(with = "data::version")]
    pub until: Version,
    /// The versions rendered to learn them (all gave the same facts).
    #[serde(deserialize_with = "data::slice")]
    pub pins: &'static [Pin],
    /// Values (dotted paths) that change which workloads the chart renders
    /// or of what kind, beyond [`ChartWorkload::when`]: a release that sets
    /// one is unknown.
    #[serde(deserialize_with = "data::strings")]
    pub guards: &'static [&'static str],
    /// What it renders, each under its switches.
    #[serde(deserialize_with = "data::slice")]
    pub workloads: &'static [ChartWorkload],
}

/// A workload the chart renders.
#[derive(Debug, Serialize, Deserialize)]
pub struct ChartWorkload {
    /// `Deployment`, `StatefulSet`, `DaemonSet`, `Job`, `CronJob`, ...
    #[serde(deserialize_with = "data::string")]
    pub kind: &'static str,
    /// Its name for a release named as the chart.
    #[serde(deserialize_with = "data::string")]
    pub name: &'static str,
    /// The template that renders it (`templates/operator.yaml`).
    #[serde(deserialize_with = "data::string")]
    pub template: &'static str,
    /// `None`: the release's namespace; else a fixed one.
    #[serde(deserialize_with = "data::opt_string")]
    pub namespace: Option<&'static str>,
    /// Values that move it to another namespace when set.
    #[serde(deserialize_with = "data::strings")]
    pub namespace_values: &'static [&'static str],
    /// Boolean values it is rendered under: each must have the truth given.
    #[serde(deserialize_with = "data::slice")]
    pub when: &'static [Switch],
    /// Which values set its pod's fields. A field not listed is unknown.
    #[serde(deserialize_with = "data::slice")]
    pub fields: &'static [FieldSource],
}

/// A boolean value a workload depends on.
#[derive(Debug, Serialize, Deserialize)]
pub struct Switch {
    /// Dotted path (`webhooks.enabled`).
    #[serde(deserialize_with = "data::string")]
    pub value: &'static str,
    /// Its truth in the chart's defaults.
    pub default: bool,
    /// The truth the workload is rendered under.
    pub needs: bool,
}

/// A pod field the rules judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Join {
    /// The first value that is set and not empty wins (Helm's `default`,
    /// `or`, `with ... else`): a component's own list, else the global one.
    First,
    /// All of them are rendered, one after another.
    All,
}

/// Which values render one field of a workload.
#[derive(Debug, Serialize, Deserialize)]
pub struct FieldSource {
    /// The field they set.
    pub field: Field,
    /// Dotted paths, in precedence order.
    #[serde(deserialize_with = "data::strings")]
    pub values: &'static [&'static str],
    /// Each value's default in the chart's values, as JSON (`null`: absent).
    #[serde(with = "data::json_texts")]
    pub defaults: &'static [&'static str],
    /// How they combine.
    pub join: Join,
    /// The field as the chart renders it with its defaults, as compact JSON
    /// (`null`: absent). Container fields list one entry per container,
    /// then per init container (`HostPorts`: each container's host ports).
    /// A field with no `values` is fixed by the chart to this.
    #[serde(with = "data::json_text")]
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

/// The versions a release's `version` allows: an exact version, `1.8.x`,
/// `1.8.*`, `~1.8`, `~1.8.2` or `^1.8.2`; `[from, until)`. Anything else
/// (open ranges, alternatives) is unknown.
pub fn version_span(v: &str) -> Option<(Version, Version)> {
    let v = v.trim();
    if let Some(rest) = v.strip_prefix('^') {
        let lo = crate::common::parse_version(rest)?;
        return Some((lo, (lo.0 + 1, 0, 0)));
    }
    let (tilde, rest) = match v.strip_prefix('~') {
        Some(r) => (true, r.trim_start_matches('>').trim()),
        None => (false, v),
    };
    let rest = rest.trim_start_matches('v');
    if let Some(minor) = rest
        .strip_suffix(".x")
        .or_else(|| rest.strip_suffix(".*"))
        .or_else(|| rest.strip_suffix(".X"))
    {
        let (major, minor) = minor.split_once('.')?;
        let (major, minor) = (major.parse().ok()?, minor.parse().ok()?);
        return Some(((major, minor, 0), (major, minor + 1, 0)));
    }
    let lo = crate::common::parse_version(rest)?;
    if tilde {
        // `~1.8` and `~1.8.2` allow patch updates; `~1` minor ones too.
        return if rest.contains('.') {
            Some((lo, (lo.0, lo.1 + 1, 0)))
        } else {
            Some((lo, (lo.0 + 1, 0, 0)))
        };
    }
    Some((lo, (lo.0, lo.1, lo.2 + 1)))
}

/// The facts for a release of `chart` at `version` (`None`: not pinned, so
/// the newest the data knows). A version that does not parse, or that no
/// range holds, is unknown.
pub fn known_chart(chart: &str, version: Option<&str>) -> Option<&'static KnownChart> {
    let mut ranges = known::charts().iter().filter(|c| c.name == chart);
    match version {
        None => ranges.max_by_key(|c| c.from),
        Some(v) => {
            let (lo, hi) = version_span(v)?;
            ranges.find(|c| c.from <= lo && hi <= c.until)
        }
    }
}

/// The ranges whose facts a release of `chart` may be read with: the
/// newest when the release pins no version (`None`), every known range when
/// its version cannot be read (`Some(Unknown)`), else the ranges its version
/// spans, which must hold every version of the span. Rules judge the release
/// against each and report only what all of them agree on. `None`: the chart
/// is unknown, or some version the release allows is.
pub fn candidate_ranges(
    chart: &str,
    version: Option<Known<&str>>,
) -> Option<Vec<&'static KnownChart>> {
    let ranges = known::charts().iter().filter(|c| c.name == chart);
    let mut out: Vec<&'static KnownChart> = match version {
        None => vec![ranges.max_by_key(|c| c.from)?],
        Some(Known::Unknown) => ranges.collect(),
        Some(Known::Known(v)) => {
            let (lo, hi) = version_span(v)?;
            let mut over: Vec<&'static KnownChart> =
                ranges.filter(|c| c.from < hi && lo < c.until).collect();
            over.sort_by_key(|c| c.from);
            // Every version of the span in some range: no gap, no end outside.
            let mut at = lo;
            for c in &over {
                if c.from > at {
                    return None;
                }
                at = at.max(c.until);
            }
            if at < hi {
                return None;
            }
            over
        }
    };
    out.sort_by_key(|c| c.from);
    (!out.is_empty()).then_some(out)
}

/// `0.5.0 to before 0.38.0, 1.0.0 to before 1.15.0`: ranges as one reads
/// them, adjoining ones joined.
pub fn show_ranges(ranges: &[&KnownChart]) -> String {
    let mut spans: Vec<(Version, Version)> = Vec::new();
    for c in ranges {
        match spans.last_mut() {
            Some(last) if last.1 == c.from => last.1 = c.until,
            _ => spans.push((c.from, c.until)),
        }
    }
    let show = |v: Version| format!("{}.{}.{}", v.0, v.1, v.2);
    spans
        .iter()
        .map(|(a, b)| format!("{} to before {}", show(*a), show(*b)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value at a dotted path of a release's values: `None` when absent
/// (the chart's default applies); an unknown part on the way is returned.
pub fn lookup<'a>(values: &'a Value, path: &str) -> Option<&'a Value> {
    let mut at = values;
    for key in path.split('.') {
        if at.is_unknown() {
            return Some(at);
        }
        at = at.get(key)?;
    }
    Some(at)
}

/// Helm's truth of a value, as `if` and `default` test it.
pub fn truth(v: &Value) -> Known<bool> {
    Known::Known(match &v.kind {
        ValueKind::Unknown => return Known::Unknown,
        ValueKind::Null => false,
        ValueKind::Bool(b) => *b,
        ValueKind::String(s) => !s.is_empty(),
        ValueKind::Number(n) => n.parse::<f64>() != Ok(0.0),
        ValueKind::List(l) => !l.is_empty(),
        ValueKind::Map(m) => !m.is_empty(),
    })
}

impl ChartWorkload {
    /// Whether the release's values render it.
    pub fn rendered(&self, values: &Value) -> Known<bool> {
        let mut all = true;
        for s in self.when {
            let t = match lookup(values, s.value) {
                None => s.default,
                Some(v) => match truth(v) {
                    Known::Known(t) => t,
                    Known::Unknown => return Known::Unknown,
                },
            };
            all &= t == s.needs;
        }
        Known::Known(all)
    }

    /// Whether it runs in the release's namespace under these values.
    pub fn in_release_namespace(&self, values: &Value) -> Known<bool> {
        if self.namespace.is_some() {
            return Known::Known(false);
        }
        for p in self.namespace_values {
            match lookup(values, p).map(truth) {
                None | Some(Known::Known(false)) => {}
                Some(Known::Known(true)) => return Known::Known(false),
                Some(Known::Unknown) => return Known::Unknown,
            }
        }
        Known::Known(true)
    }
}

/// A field's value under a release's values: what renders it, and where the
/// release set it (`None`: the chart's default).
#[derive(Debug, Clone, PartialEq)]
pub struct Effective {
    /// `None`: the field is not rendered.
    pub value: Option<Value>,
    /// The value path that set it, when the release did.
    pub set_at: Option<&'static str>,
}

impl FieldSource {
    /// The field under the release's values; unknown when a value it reads
    /// is, or when the data cannot say (the chart renders more than its
    /// values give).
    pub fn effective(&self, values: &Value) -> Known<Effective> {
        let Known::Known(own) = self.combine(values) else {
            return Known::Unknown;
        };
        // The defaults must give what the chart renders, else the chart adds
        // something of its own the data does not say.
        let empty = Value::new(ValueKind::Null, None);
        let Known::Known(defaults) = self.combine(&empty) else {
            return Known::Unknown;
        };
        let Known::Known(rendered) = parse_json(self.rendered) else {
            return Known::Unknown;
        };
        let rendered = (truth(&rendered) == Known::Known(true)).then_some(rendered);
        // A field no value sets is what the chart writes.
        if self.values.is_empty() {
            return Known::Known(Effective {
                value: rendered,
                set_at: None,
            });
        }
        if defaults.value != rendered {
            return Known::Unknown;
        }
        Known::Known(own)
    }

    fn combine(&self, values: &Value) -> Known<Effective> {
        let mut out = Effective {
            value: None,
            set_at: None,
        };
        for (i, path) in self.values.iter().enumerate() {
            let (v, set) = match lookup(values, path) {
                Some(v) if v.is_unknown() => return Known::Unknown,
                Some(v) => (v.clone(), true),
                None => match parse_json(self.defaults.get(i).copied().unwrap_or("null")) {
                    Known::Known(v) => (v, false),
                    Known::Unknown => return Known::Unknown,
                },
            };
            match truth(&v) {
                Known::Unknown => return Known::Unknown,
                Known::Known(false) => continue,
                Known::Known(true) => {}
            }
            let set_at = set.then_some(*path);
            match (self.join, &mut out.value) {
                (Join::First, _) => {
                    return Known::Known(Effective {
                        value: Some(v),
                        set_at,
                    })
                }
                (Join::All, None) => {
                    out.value = Some(v);
                    out.set_at = set_at;
                }
                (Join::All, Some(acc)) => {
                    match (&mut acc.kind, v.kind) {
                        (ValueKind::List(a), ValueKind::List(b)) => a.extend(b),
                        _ => return Known::Unknown,
                    }
                    out.set_at = out.set_at.or(set_at);
                }
            }
        }
        Known::Known(out)
    }
}

/// A value of the data, parsed once per thread: every release of a known
/// chart reads the same defaults.
fn parse_json(text: &'static str) -> Known<Value> {
    type Parsed = std::collections::HashMap<(usize, usize), Known<Value>>;
    thread_local! {
        static PARSED: std::cell::RefCell<Parsed> = std::cell::RefCell::default();
    }
    PARSED.with(|parsed| {
        parsed
            .borrow_mut()
            .entry((text.as_ptr() as usize, text.len()))
            .or_insert_with(|| Value::parse_embedded(text))
            .clone()
    })
}

/// The span of the key a release set a value at.
pub fn key_span(values: &Value, path: &str) -> Option<Span> {
    let (parent, last) = match path.rsplit_once('.') {
        Some((p, l)) => (lookup(values, p)?, l),
        None => (values, path),
    };
    match &parent.kind {
        ValueKind::Map(entries) => entries
            .iter()
            .rev()
            .find(|(k, _)| k.name == last)
            .and_then(|(k, v)| k.span.or(v.span)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Value {
        match Value::parse_embedded(text) {
            Known::Known(v) => v,
            Known::Unknown => panic!("test values do not parse: {text}"),
        }
    }

    const OWN_ELSE_GLOBAL: FieldSource = FieldSource {
        field: Field::Tolerations,
        values: &["operator.tolerations", "tolerations"],
        defaults: &["[]", "[]"],
        join: Join::First,
        rendered: "null",
    };

    #[test]
    fn version_constraints() {
        assert_eq!(version_span("2.14.0"), Some(((2, 14, 0), (2, 14, 1))));
        assert_eq!(version_span("v1.8.1"), Some(((1, 8, 1), (1, 8, 2))));
        assert_eq!(version_span("1.8.x"), Some(((1, 8, 0), (1, 9, 0))));
        assert_eq!(version_span("~2.14"), Some(((2, 14, 0), (2, 15, 0))));
        assert_eq!(version_span("~> 2.14.1"), Some(((2, 14, 1), (2, 15, 0))));
        assert_eq!(version_span("^1.8.2"), Some(((1, 8, 2), (2, 0, 0))));
        assert_eq!(version_span(">=1.0.0"), None);
        assert_eq!(version_span("latest"), None);
    }

    #[test]
    fn the_first_non_empty_source_wins() {
        let e = |v: &str| OWN_ELSE_GLOBAL.effective(&yaml(v));
        let got = e("tolerations: [{operator: Exists}]\noperator: {tolerations: []}");
        let Known::Known(got) = got else {
            panic!("unknown")
        };
        assert_eq!(got.set_at, Some("tolerations"));
        let Known::Known(got) =
            e("tolerations: [{operator: Exists}]\noperator: {tolerations: [{key: a}]}")
        else {
            panic!("unknown")
        };
        assert_eq!(got.set_at, Some("operator.tolerations"));
        let Known::Known(got) = e("replicas: 2") else {
            panic!("unknown")
        };
        assert_eq!(
            got,
            Effective {
                value: None,
                set_at: None
            }
        );
    }

    #[test]
    fn an_unknown_source_or_a_chart_that_adds_its_own_is_unknown() {
        let mut values = yaml("operator: {}");
        if let ValueKind::Map(m) = &mut values.kind {
            m[0].1 = Value::unknown(None);
        }
        assert_eq!(OWN_ELSE_GLOBAL.effective(&values), Known::Unknown);
        // The chart renders a toleration no value gives.
        let adds = FieldSource {
            rendered: r#"[{"key":"CriticalAddonsOnly","operator":"Exists"}]"#,
            ..OWN_ELSE_GLOBAL
        };
        assert_eq!(adds.effective(&yaml("a: 1")), Known::Unknown);
    }

    #[test]
    fn joined_sources_are_all_rendered() {
        let both = FieldSource {
            join: Join::All,
            ..OWN_ELSE_GLOBAL
        };
        let Known::Known(got) = both.effective(&yaml(
            "tolerations: [{key: a}]\noperator: {tolerations: [{key: b}]}",
        )) else {
            panic!("unknown")
        };
        assert_eq!(
            got.value.and_then(|v| v.as_list().map(<[Value]>::len)),
            Some(2)
        );
    }

    #[test]
    fn switches_follow_helm_truth() {
        let w = ChartWorkload {
            kind: "Deployment",
            name: "w",
            template: "templates/w.yaml",
            namespace: None,
            namespace_values: &["namespaceOverride"],
            when: &[Switch {
                value: "webhooks.enabled",
                default: true,
                needs: true,
            }],
            fields: &[],
        };
        assert_eq!(w.rendered(&yaml("a: 1")), Known::Known(true));
        assert_eq!(
            w.rendered(&yaml("webhooks: {enabled: false}")),
            Known::Known(false)
        );
        assert_eq!(
            w.rendered(&yaml("webhooks: {enabled: null}")),
            Known::Known(false)
        );
        assert_eq!(
            w.in_release_namespace(&yaml("namespaceOverride: other")),
            Known::Known(false)
        );
        assert_eq!(
            w.in_release_namespace(&yaml("namespaceOverride: ''")),
            Known::Known(true)
        );
    }

    #[test]
    fn candidate_ranges_weigh_what_the_version_leaves() {
        let karpenter = |v| candidate_ranges("karpenter", v).map(|r| r.len());
        // Not pinned: the newest; pinned: the one range that holds it.
        assert_eq!(karpenter(None), Some(1));
        assert_eq!(karpenter(Some(Known::Known("0.37.0"))), Some(1));
        // Cannot be read: every range the data knows.
        let all = known::charts()
            .iter()
            .filter(|c| c.name == "karpenter")
            .count();
        assert!(all > 1);
        assert_eq!(karpenter(Some(Known::Unknown)), Some(all));
        // A version no range holds, or a span with a gap, stays unknown.
        assert_eq!(karpenter(Some(Known::Known("0.40.0"))), None);
        assert_eq!(karpenter(Some(Known::Known("^0.37.0"))), None);
        assert_eq!(
            candidate_ranges("no-such-chart", Some(Known::Unknown)).map(|r| r.len()),
            None
        );
        let ranges = candidate_ranges("karpenter", Some(Known::Unknown)).unwrap_or_default();
        assert_eq!(
            show_ranges(&ranges),
            "0.5.0 to before 0.38.0, 1.0.0 to before 1.15.0"
        );
    }
}
