//! Stage 5, check: the selected rules run over the assembled project.

use super::report::report_with;
use super::report::Report;
use super::{in_pool, Loaded, Options};
use crate::config::Config;
use fplint_core::Diagnostic;
use fplint_rules::{Context, Settings, PROJECT_WIDE, REGISTRY};
use rayon::prelude::*;

/// Which rule codes run: `select` prefixes (default all) minus `ignore` prefixes.
pub struct Selection {
    select: Option<Vec<String>>,
    ignore: Vec<String>,
}

impl Selection {
    /// Whether a rule code runs.
    pub fn enabled(&self, code: &str) -> bool {
        let hit = |p: &String| code.starts_with(p.as_str());
        self.select.as_ref().is_none_or(|s| s.iter().any(hit)) && !self.ignore.iter().any(hit)
    }
}

/// Run the rules over what was loaded, then filter and sort.
pub fn check_loaded(mut loaded: Loaded, opts: &Options, cfg: &Config) -> Report {
    let selection = selection(opts, cfg);
    let settings = settings(cfg);
    let ctx = Context {
        project: &loaded.project,
        settings: &settings,
        only: None,
    };
    // A rule that reads one cluster at a time runs once per cluster, so
    // that each finding is known by the cluster it is about (a finding in
    // module code several roots share goes to the call of its root).
    // The (rule, cluster) pairs are not listed ahead: on a tree of 100,000
    // clusters that list and one vector per pair cost tens of megabytes at
    // the peak. Findings are collected in rule order, then cluster order.
    let clusters = loaded.project.clusters.len();
    let rules: Vec<(&dyn fplint_rules::Rule, bool)> = REGISTRY
        .iter()
        .filter(|r| selection.enabled(r.code))
        .filter_map(|r| Some((r.rule?, PROJECT_WIDE.contains(&r.code))))
        .collect();
    let found: Vec<Found> = in_pool(|| {
        rules
            .par_iter()
            .flat_map(|&(rule, wide)| {
                let runs = if wide { 0..1 } else { 0..clusters };
                runs.into_par_iter().flat_map_iter(move |i| {
                    let only = (!wide).then_some(i);
                    let mut out = Vec::new();
                    rule.check(&Context { only, ..ctx }, &mut out);
                    out.into_iter().map(move |d| (only, d))
                })
            })
            .collect()
    });
    let mut found = found;
    found.extend(weigh_unassigned(&mut loaded, &selection, &settings));
    report_with(loaded, found, opts, cfg, None)
}

/// A rule's finding, with the index of the cluster it was found for (none
/// for a rule over the whole project).
pub(crate) type Found = (Option<usize>, Diagnostic);

/// The rule codes `opts` and `cfg` select.
pub(crate) fn selection(opts: &Options, cfg: &Config) -> Selection {
    Selection {
        select: opts.select.clone().or_else(|| cfg.select.clone()),
        ignore: cfg.ignore.iter().chain(&opts.ignore).cloned().collect(),
    }
}

/// What the rules read from `cfg` besides the model.
pub(crate) fn settings(cfg: &Config) -> Settings {
    Settings {
        quotas: cfg.quotas,
        tools: cfg.tools.clone(),
    }
}

/// Workloads no cluster claims: what every candidate cluster finds alike,
/// and the note that they have no cluster dropped when the candidates
/// agree on everything. Not when the cluster search stopped early ("at
/// least N clusters"): then the run does not hold every candidate.
pub(crate) fn weigh_unassigned(
    loaded: &mut Loaded,
    selection: &Selection,
    settings: &Settings,
) -> Vec<Found> {
    if !loaded.notices.iter().any(|n| {
        n.kind == crate::notice::NoticeKind::Unassigned && !n.message.contains("has at least ")
    }) {
        return Vec::new();
    }
    let per_cluster: Vec<&dyn fplint_rules::Rule> = REGISTRY
        .iter()
        .filter(|r| selection.enabled(r.code) && !PROJECT_WIDE.contains(&r.code))
        .filter_map(|r| r.rule)
        .collect();
    let (weighed, all) = super::candidates::weigh(&loaded.project, &per_cluster, settings);
    if all {
        loaded
            .notices
            .retain(|n| n.kind != crate::notice::NoticeKind::Unassigned);
    }
    weighed.into_iter().map(|d| (None, d)).collect()
}
