//! `fplint placement --diff REV`: what a change does to placement. The
//! project is read as it is at a git revision ([`crate::revision`]) and as
//! it is in the work tree, and each cluster's workloads are compared:
//! added, removed, moved to another profile, left without a profile
//! (capacity lost), or billed at another size.

use crate::placement::{workload_title, ClusterTable, Row};
use crate::revision::{self, RevisionError};
use crate::Linter;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What changed between the revision and the work tree.
#[derive(Debug, Serialize)]
pub struct Diff {
    /// The revision compared against, as given.
    pub rev: String,
    /// Clusters with a change, in name order.
    pub clusters: Vec<ClusterDiff>,
    /// Clusters read on both sides with no change.
    pub unchanged: Vec<String>,
}

/// One cluster's changes.
#[derive(Debug, Serialize)]
pub struct ClusterDiff {
    /// The cluster's name, or how it is known.
    pub cluster: String,
    /// Its workloads before; `None` when the revision has no such cluster.
    pub before: Option<Totals>,
    /// Its workloads after; `None` when the work tree has no such cluster.
    pub after: Option<Totals>,
    /// Each workload that changed.
    pub changes: Vec<Change>,
}

/// A cluster's workloads and what Fargate bills for one pod of each.
#[derive(Debug, Default, Serialize, PartialEq)]
pub struct Totals {
    /// Workloads placed on it.
    pub workloads: usize,
    /// vCPU billed for one pod of each workload whose size is known.
    pub billed_vcpu: f64,
    /// Memory billed for one pod of each, in GB.
    pub billed_memory_gb: f64,
    /// Workloads on a profile whose billed size is not known.
    pub unknown_size: usize,
}

/// How a workload changed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// Only in the work tree.
    Added,
    /// Only in the revision.
    Removed,
    /// Its pods land on another profile.
    Moved,
    /// Its pods landed on a profile and now on none: they stay Pending.
    CapacityLost,
    /// Its pods are billed at another size.
    Resized,
}

/// One workload's change.
#[derive(Debug, Serialize)]
pub struct Change {
    /// Kind and name, with the overlay or release that builds it.
    pub workload: String,
    /// The file that defines it.
    pub file: String,
    /// What changed.
    pub kind: ChangeKind,
    /// How it was; absent for an added workload.
    pub before: Option<Side>,
    /// How it is; absent for a removed workload.
    pub after: Option<Side>,
}

/// A workload on one side of the diff.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Side {
    /// Its namespace, when known.
    pub namespace: Option<String>,
    /// The profile its pods land on: `""` for none, `None` when unknown.
    pub profile: Option<String>,
    /// vCPU billed per pod, when known.
    pub billed_vcpu: Option<f64>,
    /// Memory billed per pod, in GB, when known.
    pub billed_memory_gb: Option<f64>,
    /// Where it is defined (`file:line`).
    pub at: String,
}

impl Side {
    fn of(r: &Row) -> Side {
        Side {
            namespace: r.namespace.clone(),
            profile: r.chosen.clone(),
            billed_vcpu: r.billed_vcpu,
            billed_memory_gb: r.billed_memory_gb,
            at: format!("{}:{}", r.file, r.line),
        }
    }
}

/// Why a diff could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// The revision could not be read.
    #[error(transparent)]
    Revision(#[from] RevisionError),
}

/// Reads `paths` at `rev` and in the work tree, and compares their
/// placement.
pub fn diff(linter: &Linter, rev: &str, paths: &[PathBuf]) -> Result<Diff, DiffError> {
    let here = std::env::current_dir().map_err(RevisionError::Write)?;
    let start = paths.first().map_or(here.clone(), |p| {
        let p = if p.is_dir() {
            p.clone()
        } else {
            p.parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        };
        if p.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            p
        }
    });
    let tree = revision::read(&start, rev, crate::core::sources::DEFAULT_MAX_FILE_SIZE)?;
    let mapped = paths
        .iter()
        .map(|p| tree.map(p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut before = crate::placement::tables(&linter.load(&mapped));
    let after = crate::placement::tables(&linter.load(paths));
    // The revision's paths read as the work tree's do: relative to the
    // working folder when the named paths are.
    let relative = paths.iter().all(|p| p.is_relative());
    let shown_root = if relative {
        let here = here.canonicalize().unwrap_or(here);
        let up = crate::context::relative_to(Some(&here), &tree.repo);
        if up == Path::new(".") {
            String::new()
        } else {
            let up = up.to_string_lossy().replace('\\', "/");
            format!("{}/", up.trim_end_matches('/'))
        }
    } else {
        format!("{}/", tree.repo.to_string_lossy().replace('\\', "/"))
    };
    let prefix = format!("{}/", tree.root.to_string_lossy().replace('\\', "/"));
    for t in &mut before {
        rewrite(t, &|s| s.replace(&prefix, &shown_root));
    }
    Ok(compare(rev, &before, &after))
}

/// Every path a table shows, rewritten.
fn rewrite(t: &mut ClusterTable, f: &dyn Fn(&str) -> String) {
    t.cluster = f(&t.cluster);
    t.defined_at = f(&t.defined_at);
    for a in &mut t.also_described_at {
        *a = f(a);
    }
    for r in &mut t.rows {
        r.file = f(&r.file);
        for n in &mut r.notes {
            *n = f(n);
        }
        r.overlay = r.overlay.as_deref().map(f);
        r.chart = r.chart.as_deref().map(f);
    }
}

fn totals(t: &ClusterTable) -> Totals {
    let mut out = Totals::default();
    for r in &t.rows {
        out.workloads += 1;
        match (r.billed_vcpu, r.billed_memory_gb) {
            (Some(c), Some(m)) => {
                out.billed_vcpu += c;
                out.billed_memory_gb += m;
            }
            _ if r.chosen.as_deref().is_some_and(|p| !p.is_empty()) => out.unknown_size += 1,
            _ => {}
        }
    }
    out.billed_vcpu = (out.billed_vcpu * 100.0).round() / 100.0;
    out.billed_memory_gb = (out.billed_memory_gb * 100.0).round() / 100.0;
    out
}

/// A workload is the same one when its kind, name and file are: a change
/// of namespace is a move, not another workload.
type Key = (String, String);

fn key(r: &Row) -> Key {
    (workload_title(r), r.file.clone())
}

/// The changes between two sets of tables, cluster by cluster.
pub fn compare(rev: &str, before: &[ClusterTable], after: &[ClusterTable]) -> Diff {
    let mut clusters: BTreeMap<&str, (Option<&ClusterTable>, Option<&ClusterTable>)> =
        BTreeMap::new();
    for t in before {
        clusters.entry(&t.cluster).or_default().0 = Some(t);
    }
    for t in after {
        clusters.entry(&t.cluster).or_default().1 = Some(t);
    }
    let mut out = Diff {
        rev: rev.to_string(),
        clusters: Vec::new(),
        unchanged: Vec::new(),
    };
    for (name, (b, a)) in clusters {
        let rows = |t: Option<&ClusterTable>| -> BTreeMap<Key, Vec<Side>> {
            let mut m: BTreeMap<Key, Vec<Side>> = BTreeMap::new();
            for r in t.map_or(&[][..], |t| &t.rows) {
                m.entry(key(r)).or_default().push(Side::of(r));
            }
            m
        };
        let (rb, ra) = (rows(b), rows(a));
        let mut keys: Vec<&Key> = rb.keys().chain(ra.keys()).collect();
        keys.sort();
        keys.dedup();
        let mut changes = Vec::new();
        for k in keys {
            let none = Vec::new();
            let (xs, ys) = (rb.get(k).unwrap_or(&none), ra.get(k).unwrap_or(&none));
            for i in 0..xs.len().max(ys.len()) {
                let (x, y) = (xs.get(i), ys.get(i));
                let kind = match (x, y) {
                    (None, Some(_)) => ChangeKind::Added,
                    (Some(_), None) => ChangeKind::Removed,
                    (Some(x), Some(y))
                        if (&x.profile, &x.namespace) != (&y.profile, &y.namespace)
                            && x.profile != y.profile =>
                    {
                        let landed = x.profile.as_deref().is_some_and(|p| !p.is_empty());
                        if landed && y.profile.as_deref() == Some("") {
                            ChangeKind::CapacityLost
                        } else {
                            ChangeKind::Moved
                        }
                    }
                    (Some(x), Some(y))
                        if (x.billed_vcpu, x.billed_memory_gb)
                            != (y.billed_vcpu, y.billed_memory_gb) =>
                    {
                        ChangeKind::Resized
                    }
                    _ => continue,
                };
                changes.push(Change {
                    workload: k.0.clone(),
                    file: k.1.clone(),
                    kind,
                    before: x.cloned(),
                    after: y.cloned(),
                });
            }
        }
        let (tb, ta) = (b.map(totals), a.map(totals));
        if changes.is_empty() && b.is_some() && a.is_some() {
            out.unchanged.push(name.to_string());
            continue;
        }
        out.clusters.push(ClusterDiff {
            cluster: name.to_string(),
            before: tb,
            after: ta,
            changes,
        });
    }
    out
}

fn size(s: &Side) -> String {
    match (s.billed_vcpu, s.billed_memory_gb) {
        (Some(c), Some(m)) => format!("{c} vCPU / {m} GB"),
        _ => "size unknown".to_string(),
    }
}

fn profile(s: &Side) -> String {
    match s.profile.as_deref() {
        None => "profile unknown".to_string(),
        Some("") => "no profile".to_string(),
        Some(p) => format!("profile {p}"),
    }
}

fn totals_text(t: Option<&Totals>) -> String {
    match t {
        None => "absent".to_string(),
        Some(t) => {
            let unknown = match t.unknown_size {
                0 => String::new(),
                n => format!(", {n} of unknown size"),
            };
            let w = if t.workloads == 1 {
                "workload"
            } else {
                "workloads"
            };
            format!(
                "{} {w}, {} vCPU / {} GB per pod set{unknown}",
                t.workloads, t.billed_vcpu, t.billed_memory_gb
            )
        }
    }
}

/// Its namespace, and where it moved from.
fn namespace(c: &Change) -> String {
    let ns = |s: &Option<Side>| {
        s.as_ref()
            .map(|s| s.namespace.clone().unwrap_or_else(|| "?".into()))
    };
    match (ns(&c.before), ns(&c.after)) {
        (Some(b), Some(a)) if b != a => format!("{b} → {a}"),
        (_, Some(a)) => a,
        (Some(b), None) => b,
        (None, None) => "?".into(),
    }
}

fn describe(c: &Change) -> String {
    match (c.kind, &c.before, &c.after) {
        (ChangeKind::Added, _, Some(a)) => format!("added: {}, {} ({})", profile(a), size(a), a.at),
        (ChangeKind::Removed, Some(b), _) => {
            format!("removed: was {}, {} ({})", profile(b), size(b), b.at)
        }
        (ChangeKind::CapacityLost, Some(b), Some(a)) => format!(
            "capacity lost: {} → no profile matches, its pods stay Pending ({})",
            profile(b),
            a.at
        ),
        (ChangeKind::Moved, Some(b), Some(a)) => {
            format!("moved: {} → {} ({})", profile(b), profile(a), a.at)
        }
        (_, Some(b), Some(a)) => format!("resized: {} → {} ({})", size(b), size(a), a.at),
        _ => String::new(),
    }
}

/// The diff for a terminal.
pub fn render_text(d: &Diff) -> String {
    let mut s = format!("placement at {} → work tree\n", d.rev);
    if d.clusters.is_empty() {
        s.push_str("no change in placement\n");
    }
    for c in &d.clusters {
        s.push_str(&format!("\ncluster {}\n", c.cluster));
        for ch in &c.changes {
            s.push_str(&format!(
                "  {} in {}: {}\n",
                ch.workload,
                namespace(ch),
                describe(ch)
            ));
        }
        s.push_str(&format!(
            "  before: {}\n  after:  {}\n",
            totals_text(c.before.as_ref()),
            totals_text(c.after.as_ref())
        ));
    }
    if !d.unchanged.is_empty() {
        s.push_str(&format!("\nunchanged: {}\n", d.unchanged.join(", ")));
    }
    s
}

/// The diff as pretty JSON.
pub fn render_json(d: &Diff) -> String {
    let mut s = serde_json::to_string_pretty(d).unwrap_or_default();
    s.push('\n');
    s
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The diff as Markdown, for a pull-request comment or a job summary.
pub fn render_summary(d: &Diff) -> String {
    let mut s = format!("## fplint placement: `{}` → this change\n\n", cell(&d.rev));
    if d.clusters.is_empty() {
        s.push_str("No change in which Fargate profile runs which workload.\n");
    }
    for c in &d.clusters {
        s.push_str(&format!(
            "### Cluster `{}`\n\n| Workload | Namespace | Change |\n|---|---|---|\n",
            cell(&c.cluster)
        ));
        for ch in &c.changes {
            s.push_str(&format!(
                "| `{}` | {} | {} |\n",
                cell(&ch.workload),
                cell(&namespace(ch)),
                cell(&describe(ch))
            ));
        }
        s.push_str(&format!(
            "\nBefore: {}. After: {}.\n\n",
            totals_text(c.before.as_ref()),
            totals_text(c.after.as_ref())
        ));
    }
    if !d.unchanged.is_empty() {
        s.push_str(&format!(
            "Unchanged: {}.\n",
            d.unchanged
                .iter()
                .map(|c| format!("`{}`", cell(c)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    s
}
