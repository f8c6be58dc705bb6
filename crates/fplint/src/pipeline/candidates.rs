//! Workloads no cluster claims, weighed on every cluster of the run: a
//! finding each candidate cluster gives alike is reported once, naming them
//! all, instead of the note that the workloads have no cluster.

use fplint_core::model::Project;
use fplint_core::{Diagnostic, FileId};
use fplint_rules::{Context, Rule, Settings};

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
        let key = project.clusters[i].key.clone();
        let mut p = project.clone();
        p.workload_index = Default::default();
        for &w in &unassigned {
            if let Some(w) = p.workloads.get_mut(w) {
                w.cluster_key = Some(key.clone());
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
            .filter(|d| files.contains(&d.span.file))
            .map(|mut d| {
                let r = cluster.reference(d.span.file);
                d.message = mark(&d.message, &r);
                d.help = d.help.as_deref().map(|h| mark(h, &r));
                d.label = d.label.as_deref().map(|l| mark(l, &r));
                d.related.retain(|x| x.span != cluster.loc.span);
                d
            })
            .collect();
        mine.sort_by(|a, b| {
            (a.code, a.span.start, &a.message).cmp(&(b.code, b.span.start, &b.message))
        });
        agreed = Some(match agreed {
            None => mine,
            Some(prev) => {
                differ |= prev != mine;
                prev.into_iter().filter(|d| mine.contains(d)).collect()
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
    let all_covered = !others_left
        && !differ
        && unassigned.iter().all(|&i| {
            let w = &project.workloads[i];
            files.contains(&w.loc.span.file)
                && found.iter().any(|d| {
                    // Its part of the file: up to the next workload there.
                    let end = project
                        .workloads
                        .iter()
                        .filter(|o| o.loc.span.file == w.loc.span.file)
                        .map(|o| o.loc.span.start)
                        .filter(|&s| s > w.loc.span.start)
                        .min()
                        .unwrap_or(u32::MAX);
                    d.span.file == w.loc.span.file
                        && d.span.start >= w.loc.span.start
                        && d.span.start < end
                })
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

/// `text` with the cluster's reference `r` marked, to compare the findings
/// of several candidates.
fn mark(text: &str, r: &str) -> String {
    text.replace(&format!("cluster {r}"), MARK).replace(r, MARK)
}
