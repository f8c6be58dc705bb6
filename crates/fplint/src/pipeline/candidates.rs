//! Workloads no cluster claims, weighed on every cluster of the run: a
//! finding each candidate cluster gives alike is reported once, naming them
//! all, instead of the note that the workloads have no cluster.

use fplint_core::model::Project;
use fplint_core::{Diagnostic, FileId};
use fplint_rules::{Context, Rule, Settings};
use rustc_hash::FxHashMap as HashMap;

/// More candidates than this are not weighed: the note stays.
const MOST: usize = 8;

/// Where a candidate's reference stood in a message.
const MARK: &str = "\u{0}cluster\u{0}";

/// The findings every candidate cluster gives the unassigned workloads of
/// files that hold nothing else, and whether the candidates agree on all
/// their findings and every unassigned item got one.
pub(crate) fn weigh(
    project: &Project,
    rules: &[&dyn Rule],
    settings: &Settings,
) -> (Vec<Diagnostic>, bool) {
    let n = project.clusters.len();
    let unassigned: Vec<usize> = (0..project.workloads.len())
        .filter(|&i| project.workloads[i].cluster_key.is_none())
        .collect();
    let others_left = project.aws_auth.iter().any(|a| a.cluster_key.is_none())
        || project
            .pod_identities
            .iter()
            .any(|a| a.cluster_key.is_none());
    if unassigned.is_empty() || !(2..=MOST).contains(&n) {
        return (Vec::new(), false);
    }
    // Files of unassigned workloads alone: a finding there is about them.
    let mut files: Vec<FileId> = unassigned
        .iter()
        .map(|&i| project.workloads[i].loc.span.file)
        .collect();
    files.sort();
    files.dedup();
    files.retain(|f| {
        !project
            .workloads
            .iter()
            .any(|w| w.loc.span.file == *f && w.cluster_key.is_some())
    });
    let mut agreed: Option<Vec<Diagnostic>> = None;
    // Whether some candidate finds what another does not: then the note
    // that no cluster is told stays.
    let mut differ = false;
    for i in 0..n {
        let cluster_key = project.clusters[i].key.clone();
        let mut p = project.clone();
        p.workload_index = Default::default();
        for &w in &unassigned {
            if let Some(w) = p.workloads.get_mut(w) {
                w.cluster_key = Some(cluster_key.clone());
            }
        }
        let ctx = Context {
            project: &p,
            settings,
            only: Some(i),
        };
        let mut out = Vec::new();
        for rule in rules {
            rule.check(&ctx, &mut out);
        }
        let cluster = &project.clusters[i];
        let mut mine: Vec<Diagnostic> = out
            .into_iter()
            .filter(|d| files.binary_search(&d.span.file).is_ok())
            .map(|mut d| {
                let r = cluster.reference(d.span.file);
                d.message = mark(&d.message, &r);
                d.help = d.help.as_deref().map(|h| mark(h, &r));
                d.label = d.label.as_deref().map(|l| mark(l, &r));
                d.related.retain(|x| x.span != cluster.loc.span);
                d
            })
            .collect();
        mine.sort_by(|a, b| key(a).cmp(&key(b)));
        agreed = Some(match agreed {
            None => mine,
            Some(prev) => {
                differ |= prev != mine;
                let mut by_key: HashMap<_, Vec<&Diagnostic>> = HashMap::default();
                for d in &mine {
                    by_key.entry(key(d)).or_default().push(d);
                }
                prev.into_iter()
                    .filter(|d| by_key.get(&key(d)).is_some_and(|v| v.contains(&d)))
                    .collect()
            }
        });
    }
    let found = agreed.unwrap_or_default();
    let mut names: Vec<String> = project
        .clusters
        .iter()
        .map(|c| format!("`{}`", c.display_name()))
        .collect();
    names.sort();
    let every = format!(" (on every candidate cluster: {})", names.join(", "));
    // Each workload's part of its file runs up to the next workload there.
    let mut starts: HashMap<FileId, Vec<u32>> = HashMap::default();
    for w in &project.workloads {
        starts
            .entry(w.loc.span.file)
            .or_default()
            .push(w.loc.span.start);
    }
    for v in starts.values_mut() {
        v.sort_unstable();
    }
    let mut at: Vec<(FileId, u32)> = found.iter().map(|d| (d.span.file, d.span.start)).collect();
    at.sort_unstable();
    let all_covered = !others_left
        && !differ
        && unassigned.iter().all(|&i| {
            let w = &project.workloads[i];
            let (file, start) = (w.loc.span.file, w.loc.span.start);
            let end = starts
                .get(&file)
                .and_then(|v| v.iter().find(|&&s| s > start).copied())
                .unwrap_or(u32::MAX);
            let first = at.partition_point(|&x| x < (file, start));
            files.binary_search(&file).is_ok()
                && at.get(first).is_some_and(|&(f, s)| f == file && s < end)
        });
    let found = found
        .into_iter()
        .map(|mut d| {
            d.message = d.message.replace(MARK, "the cluster");
            d.message.push_str(&every);
            d.help = d.help.map(|h| h.replace(MARK, "the cluster"));
            d.label = d.label.map(|l| l.replace(MARK, "the cluster"));
            d
        })
        .collect();
    (found, all_covered)
}

/// What findings are sorted and matched by.
fn key(d: &Diagnostic) -> (FileId, u32, u32, &'static str, &str) {
    (
        d.span.file,
        d.span.start,
        d.span.end,
        d.code,
        d.message.as_str(),
    )
}

/// `text` with the cluster's reference `r` marked, to compare the findings
/// of several candidates.
fn mark(text: &str, r: &str) -> String {
    text.replace(&format!("cluster {r}"), MARK).replace(r, MARK)
}
