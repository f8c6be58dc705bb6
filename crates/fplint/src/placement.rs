//! `fplint placement`: which workload lands on which Fargate profile, at what
//! billed size. Unknowns are shown as unknown, never guessed.

use crate::lint::Loaded;
use fplint_core::model::{Cluster, HelmRelease, Known, Project};
use fplint_core::placement::{self, billed_size, pod_request, PIN_LABEL};
use fplint_core::sources::Sources;
use fplint_core::workload::{VariantKind, Workload, WorkloadKind};
use serde::Serialize;

/// The workloads of one cluster and where they land.
#[derive(Serialize)]
pub struct ClusterTable {
    /// The cluster's name, or how it is known.
    pub cluster: String,
    /// Where the cluster is defined (`file:line`).
    pub defined_at: String,
    /// Other files that describe the same cluster (`file:line`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_described_at: Vec<String>,
    /// Whether EC2 capacity exists: node groups, or nodes Karpenter makes.
    pub fargate_only: Option<bool>,
    /// Whether Karpenter makes nodes; `None` when it cannot be told.
    pub karpenter: Option<bool>,
    /// The Terraform module that builds it (`module.eks["prod"]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// The folder of the root or Terragrunt unit that runs it, when its
    /// definition is module code elsewhere (`envs/prod`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_by: Option<String>,
    /// It has no Fargate profile, and all of them are known.
    #[serde(skip)]
    pub no_profiles: bool,
    /// One per workload.
    pub rows: Vec<Row>,
    /// Why no workload is shown, when none is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_empty: Option<String>,
}

/// One workload and the Fargate profile it lands on.
#[derive(Serialize)]
pub struct Row {
    /// Its kind and name.
    pub workload: String,
    /// The overlay that builds it (`overlays/prod`), for built manifests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlay: Option<String>,
    /// The chart that renders it, for workloads of a chart of the repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chart: Option<String>,
    /// The Helm release that renders it; absent for a chart rendered with
    /// its defaults for any release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// The file that defines it.
    pub file: String,
    /// The line of its definition, from 1.
    pub line: usize,
    /// Its namespace; `None` when unknown.
    pub namespace: Option<String>,
    /// The pod labels used for matching; `None` when unknown.
    pub labels: Option<Vec<String>>,
    /// Every profile whose selectors match its pods.
    pub matched: Vec<String>,
    /// `None` when it cannot be told; `Some("")` when no profile matches.
    pub chosen: Option<String>,
    /// vCPU its pods request, when known.
    pub requested_vcpu: Option<f64>,
    /// Memory its pods request, in GB, when known.
    pub requested_memory_gb: Option<f64>,
    /// vCPU Fargate bills for each pod, when known.
    pub billed_vcpu: Option<f64>,
    /// Memory Fargate bills for each pod, in GB, when known.
    pub billed_memory_gb: Option<f64>,
    /// What else is worth knowing (sidecars, rounding).
    pub notes: Vec<String>,
}

fn gb(bytes: u64) -> f64 {
    (bytes as f64 / (1024.0 * 1024.0 * 1024.0) * 100.0).round() / 100.0
}

fn profile_name(c: &Cluster, i: usize) -> String {
    c.fargate_profiles
        .get(i)
        .map_or_else(|| "?".into(), |p| p.display_name().to_string())
}

fn row(sources: &Sources, cluster: &Cluster, w: &Workload) -> Row {
    let file = sources.get(w.loc.span.file);
    let line = file
        .as_ref()
        .map_or(1, |f| f.line_col(w.loc.span.start as usize).line);
    let labels = w.pod.known_labels();
    let namespace = w.namespace.known().cloned();
    let placed = placement::place(cluster, namespace.as_deref(), labels.as_deref());
    let mut notes = Vec::new();
    let matched: Vec<String> = placed
        .matched_profiles()
        .into_iter()
        .map(|p| profile_name(cluster, p))
        .collect();
    let mut chosen = match placed.chosen {
        Known::Known(Some(p)) => Some(profile_name(cluster, p)),
        Known::Known(None) => Some(String::new()),
        Known::Unknown => None,
    };
    if w.kind == WorkloadKind::DaemonSet {
        notes.push("DaemonSet: never runs on Fargate".to_string());
        chosen = Some(String::new());
    } else if let Some(s) = w.pod.scheduler_name.as_ref().and_then(|s| s.known()) {
        if s != "default-scheduler" && s != "fargate-scheduler" {
            notes.push(format!("schedulerName `{s}`: not scheduled by Fargate"));
        }
    }
    if namespace.is_none() {
        let chart = w.variant.as_ref().map(|v| &v.kind);
        notes.push(match chart {
            Some(VariantKind::ChartDefaults { .. }) => {
                "namespace: the release's, and no release of the run installs the chart".into()
            }
            Some(VariantKind::Release { .. }) => "namespace unknown: the release's is".into(),
            _ => "namespace not set in the manifest (decided at apply time)".into(),
        });
    }
    if chosen.as_deref() == Some("") && w.kind != WorkloadKind::DaemonSet {
        notes.push(match cluster.fargate_only() {
            Known::Known(true) => {
                "Pending: no Fargate profile matches and the cluster has no nodes".into()
            }
            Known::Known(false) => "no Fargate profile matches: runs on EC2 nodes".into(),
            Known::Unknown => "no Fargate profile matches".into(),
        });
    }
    if labels
        .as_ref()
        .is_some_and(|l| l.iter().any(|(k, _)| *k == PIN_LABEL))
    {
        notes.push(format!("pinned by the `{PIN_LABEL}` label"));
    }
    if matched.len() > 1 {
        notes.push("several profiles match: EKS does not document which one it uses; pin one with the label `eks.amazonaws.com/fargate-profile`".into());
    }
    if let Some(m) = module_of(&w.loc.path) {
        notes.push(format!("from {m}"));
    }
    let on_fargate = matches!(chosen.as_deref(), Some(c) if !c.is_empty());
    let request = pod_request(&w.pod);
    let (requested_vcpu, requested_memory_gb, billed_vcpu, billed_memory_gb) = match request {
        Known::Known(r) => {
            let billed = billed_size(r.cpu_m, r.memory);
            // Sizing is Fargate's: a pod on nodes, or not known to land
            // on Fargate, gets no note about Fargate sizes.
            if on_fargate && !r.any_set {
                notes.push("no CPU or memory requests: Fargate gives 0.25 vCPU / 0.5 GB".into());
            } else if on_fargate && billed.is_none() {
                notes.push("requests exceed the largest Fargate size (16 vCPU / 120 GB)".into());
            }
            let (bv, bm) = match (on_fargate, billed) {
                (true, Some((c, m))) => (Some(c as f64 / 1000.0), Some(m as f64 / 1024.0)),
                _ => (None, None),
            };
            (Some(r.cpu_m as f64 / 1000.0), Some(gb(r.memory)), bv, bm)
        }
        Known::Unknown => (None, None, None, None),
    };
    Row {
        workload: format!(
            "{}/{}",
            w.kind.as_str(),
            w.name.known().map_or("?", String::as_str)
        ),
        overlay: w
            .variant
            .as_ref()
            .filter(|v| v.kind == VariantKind::Overlay)
            .map(|v| v.name.clone()),
        chart: w.variant.as_ref().and_then(|v| match &v.kind {
            VariantKind::Release { chart } | VariantKind::ChartDefaults { chart } => {
                Some(chart.clone())
            }
            VariantKind::Overlay => None,
        }),
        release: w.variant.as_ref().and_then(|v| match &v.kind {
            VariantKind::Release { .. } => Some(v.name.clone()),
            _ => None,
        }),
        file: file.map(|f| f.path.clone()).unwrap_or_default(),
        line,
        namespace,
        labels: labels.map(|l| l.iter().map(|(k, v)| format!("{k}={v}")).collect()),
        matched,
        chosen,
        requested_vcpu,
        requested_memory_gb,
        billed_vcpu,
        billed_memory_gb,
        notes,
    }
}

/// A Helm release: its namespace is known, its pods' labels and requests
/// are not (the chart is not rendered), so only a label-less selector places it.
fn release_row(sources: &Sources, cluster: &Cluster, rel: &HelmRelease) -> Row {
    let file = sources.get(rel.loc.span.file);
    let line = file
        .as_ref()
        .map_or(1, |f| f.line_col(rel.loc.span.start as usize).line);
    let namespace = rel.namespace.known().cloned();
    let placed = placement::place(cluster, namespace.as_deref(), None);
    let matched: Vec<String> = placed
        .matched_profiles()
        .into_iter()
        .map(|p| profile_name(cluster, p))
        .collect();
    let chosen = match placed.chosen {
        Known::Known(Some(p)) => Some(profile_name(cluster, p)),
        Known::Known(None) => Some(String::new()),
        Known::Unknown => None,
    };
    let mut notes = vec!["Helm release: pod labels and requests are not known".to_string()];
    if chosen.as_deref() == Some("") {
        notes.push("no Fargate profile selects the release's namespace".into());
    }
    if matched.len() > 1 {
        notes.push("several profiles match: EKS does not document which one it uses; pin one with the label `eks.amazonaws.com/fargate-profile`".into());
    }
    Row {
        workload: format!(
            "HelmRelease/{}",
            rel.name.known().map_or("?", String::as_str)
        ),
        overlay: None,
        chart: None,
        release: None,
        file: file.map(|f| f.path.clone()).unwrap_or_default(),
        line,
        namespace,
        labels: None,
        matched,
        chosen,
        requested_vcpu: None,
        requested_memory_gb: None,
        billed_vcpu: None,
        billed_memory_gb: None,
        notes,
    }
}

/// Why a cluster has no workloads: none were read, none could be given a
/// cluster, or they all run on other clusters.
fn why_empty(p: &Project) -> String {
    if p.workloads.is_empty() {
        return "no Kubernetes workloads were read (no manifests, or none in the paths given)"
            .into();
    }
    let unassigned = p
        .workloads
        .iter()
        .filter(|w| w.cluster_key.is_none())
        .count();
    let others = p.workloads.len() - unassigned;
    let mut why = Vec::new();
    // Counts agree with their nouns: "1 of 1 workload belongs".
    let noun = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if unassigned > 0 {
        why.push(format!(
            "{unassigned} of {} to no cluster: the run has {} and their folders do not tell which; say so with `[clusters.NAME] paths = [..]` in fplint.toml",
            noun(p.workloads.len(), "workload belongs", "workloads belong"),
            noun(p.clusters.len(), "cluster", "clusters")
        ));
    }
    if others > 0 {
        why.push(noun(
            others,
            "workload runs on another cluster",
            "workloads run on other clusters",
        ));
    }
    why.join("; ")
}

fn at(sources: &Sources, loc: &fplint_core::model::Loc) -> String {
    sources
        .get(loc.span.file)
        .map(|f| format!("{}:{}", f.path, f.line_col(loc.span.start as usize).line))
        .unwrap_or_default()
}

/// One table per cluster of what was loaded.
pub fn tables(loaded: &Loaded) -> Vec<ClusterTable> {
    tables_of(&loaded.project, &loaded.sources)
}

/// One table per cluster of a project model, for a check's report too.
pub fn tables_of(project: &Project, sources: &Sources) -> Vec<ClusterTable> {
    project
        .clusters
        .iter()
        .map(|c| ClusterTable {
            cluster: c.display_name().to_string(),
            defined_at: at(sources, &c.loc),
            also_described_at: c.also_described_at.iter().map(|l| at(sources, l)).collect(),
            fargate_only: c.fargate_only().known().copied(),
            karpenter: c.karpenter().known().copied(),
            module: module_of(&c.loc.path),
            run_by: c.shown_file.clone().filter(|home| {
                home != c.display_name()
                    && sources
                        .peek(c.loc.span.file)
                        .is_some_and(|f| f.path != *home)
            }),
            no_profiles: c.fargate_profiles.is_empty() && !c.profiles_incomplete,
            rows: project
                .workloads
                .iter()
                .filter(|w| w.cluster_key.as_deref() == Some(c.key.as_str()))
                .map(|w| row(sources, c, w))
                // A release of a local chart shows as the workloads it renders.
                .chain(
                    c.helm_releases
                        .iter()
                        .filter(|r| r.chart_dir.is_none())
                        .map(|r| release_row(sources, c, r)),
                )
                .collect(),
            why_empty: None,
        })
        .map(|mut t| {
            if t.rows.is_empty() {
                t.why_empty = Some(why_empty(project));
            }
            t
        })
        .collect()
}

/// The module part of a Terraform address: `module.a["x"].module.b` of
/// `module.a["x"].module.b.aws_eks_cluster.this`.
fn module_of(path: &str) -> Option<String> {
    let mut rest = path;
    let mut end = 0;
    while let Some(after) = rest.strip_prefix("module.") {
        let name_len = after.find(['.', '[']).unwrap_or(after.len());
        let mut len = "module.".len() + name_len;
        if after[name_len..].starts_with('[') {
            len += after[name_len..].find(']').map_or(0, |i| i + 1);
        }
        end += len;
        rest = &rest[len..];
        match rest.strip_prefix('.') {
            Some(r) => {
                rest = r;
                end += 1;
            }
            None => break,
        }
    }
    (end > 0).then(|| path[..end].trim_end_matches('.').to_string())
}

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "unknown".into(), |n| format!("{n}"))
}

/// `0.5 vCPU / 1 GB`; `unknown size` when neither is known, not the word twice.
fn size(vcpu: Option<f64>, memory_gb: Option<f64>) -> String {
    match (vcpu, memory_gb) {
        (None, None) => "unknown size".into(),
        _ => format!("{} vCPU / {} GB", num(vcpu), num(memory_gb)),
    }
}

impl ClusterTable {
    /// Its capacity in a word: a cluster with nodes and no profile is EC2
    /// only, not "Fargate and EC2".
    pub fn capacity(&self) -> &'static str {
        match (self.fargate_only, self.karpenter) {
            (Some(false), _) if self.no_profiles => "EC2 only",
            (_, Some(true)) => "Fargate and Karpenter nodes",
            (Some(true), Some(false)) => "Fargate only",
            (Some(false), _) => "Fargate and EC2",
            _ => "capacity unknown",
        }
    }
}

/// The formats of `fplint placement`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// One table per cluster ([`render_text`]).
    Text,
    /// The tables as JSON ([`render_json`]).
    Json,
    /// A Mermaid flowchart ([`crate::render::diagram::mermaid`]).
    Mermaid,
    /// A Graphviz digraph ([`crate::render::diagram::dot`]).
    Dot,
    /// Markdown for a pull request: with a revision to compare with only
    /// ([`crate::placement_diff::render_summary`]).
    Summary,
}

/// What `fplint placement` prints: where the workloads of `paths` land, or
/// with `diff` (a git revision) what the work tree changes since it. The
/// error says why it cannot be printed.
pub fn print(
    linter: &crate::Linter,
    paths: &[std::path::PathBuf],
    diff: Option<&str>,
    format: Format,
) -> Result<String, String> {
    use crate::placement_diff as pd;
    let Some(rev) = diff else {
        return render(&linter.load(paths), format);
    };
    let render_diff = match format {
        Format::Text => pd::render_text,
        Format::Json => pd::render_json,
        Format::Summary => pd::render_summary,
        Format::Mermaid | Format::Dot => return Err("--diff prints text, json or summary".into()),
    };
    pd::diff(linter, rev, paths)
        .map(|d| render_diff(&d))
        .map_err(|e| e.to_string())
}

/// What `fplint placement` prints for what was loaded, in `format`; the
/// summary is of a change only ([`self::print`] with a revision).
pub fn render(loaded: &Loaded, format: Format) -> Result<String, String> {
    Ok(match format {
        Format::Text => render_text(&tables(loaded)),
        Format::Json => render_json(&tables(loaded)),
        Format::Mermaid => crate::render::diagram::mermaid(&loaded.project, &loaded.sources),
        Format::Dot => crate::render::diagram::dot(&loaded.project, &loaded.sources),
        Format::Summary => return Err("the summary format is for --diff".into()),
    })
}

/// The tables as `fplint placement` prints them.
pub fn render_text(tables: &[ClusterTable]) -> String {
    crate::render::escape_controls(&render_text_unescaped(tables)).into_owned()
}

/// The tables as `fplint placement` prints them, before escaping.
fn render_text_unescaped(tables: &[ClusterTable]) -> String {
    let mut out = String::new();
    for t in tables {
        let kind = t.capacity();
        let also = if t.also_described_at.is_empty() {
            String::new()
        } else {
            format!(" (also {})", t.also_described_at.join(", "))
        };
        let module = t
            .module
            .as_ref()
            .map(|m| format!(", in {m}"))
            .unwrap_or_default();
        let run_by = t
            .run_by
            .as_ref()
            .map(|r| format!(", run by {r}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "cluster {} ({kind}), {}{module}{run_by}{also}\n",
            t.cluster, t.defined_at
        ));
        if t.rows.is_empty() {
            out.push_str("  no workloads found for this cluster");
            if let Some(why) = &t.why_empty {
                out.push_str(&format!(": {why}"));
            }
            out.push_str("\n\n");
            continue;
        }
        let header = [
            "WORKLOAD",
            "NAMESPACE",
            "LABELS",
            "MATCHED",
            "CHOSEN",
            "REQUESTED",
            "BILLED",
            "NOTES",
        ];
        let rows: Vec<[String; 8]> = t
            .rows
            .iter()
            .map(|r| {
                [
                    workload_title(r),
                    r.namespace.clone().unwrap_or_else(|| "unknown".into()),
                    r.labels.as_ref().map_or_else(
                        || "unknown".into(),
                        |l| {
                            if l.is_empty() {
                                "-".into()
                            } else {
                                l.join(",")
                            }
                        },
                    ),
                    if r.matched.is_empty() {
                        "-".into()
                    } else {
                        r.matched.join(",")
                    },
                    match r.chosen.as_deref() {
                        None => "unknown".into(),
                        Some("") => "none".into(),
                        Some(c) => c.to_string(),
                    },
                    size(r.requested_vcpu, r.requested_memory_gb),
                    if r.billed_vcpu.is_some() {
                        size(r.billed_vcpu, r.billed_memory_gb)
                    } else {
                        "-".into()
                    },
                    r.notes.join("; "),
                ]
            })
            .collect();
        let mut widths = header.map(str::len);
        for r in &rows {
            for (i, cell) in r.iter().enumerate() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| -> String {
            let mut l = String::from(" ");
            for (i, c) in cells.iter().enumerate() {
                if i + 1 == cells.len() {
                    l.push(' ');
                    l.push_str(c);
                } else {
                    l.push_str(&format!(" {:<w$}", c, w = widths[i]));
                }
            }
            l.trim_end().to_string() + "\n"
        };
        out.push_str(&line(&header.map(String::from)));
        for r in &rows {
            out.push_str(&line(r));
        }
        out.push('\n');
    }
    if tables.is_empty() {
        out.push_str("no clusters found\n");
    }
    out
}

/// The tables as pretty JSON, one object per cluster.
pub fn render_json(tables: &[ClusterTable]) -> String {
    let mut s = serde_json::to_string_pretty(tables).unwrap_or_default();
    s.push('\n');
    s
}

/// A workload's kind and name, with the overlay or the chart and release
/// that build it.
pub fn workload_title(r: &Row) -> String {
    match (&r.overlay, &r.chart, &r.release) {
        (Some(o), _, _) => format!("{} ({o})", r.workload),
        (None, Some(c), Some(rel)) => format!("{} (release {rel} of chart {c})", r.workload),
        (None, Some(c), None) => format!("{} (chart {c}, any release)", r.workload),
        (None, None, _) => r.workload.clone(),
    }
}
