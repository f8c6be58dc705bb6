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
pub fn check_loaded(loaded: Loaded, opts: &Options, cfg: &Config) -> Report {
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
    let clusters = loaded.project.clusters.len();
    let runs: Vec<(&dyn fplint_rules::Rule, Option<usize>)> = REGISTRY
        .iter()
        .filter(|r| selection.enabled(r.code))
        .filter_map(|r| Some((r.rule?, r.code)))
        .flat_map(|(rule, code)| {
            let per: Vec<Option<usize>> = if PROJECT_WIDE.contains(&code) {
                vec![None]
            } else {
                (0..clusters).map(Some).collect()
            };
            per.into_iter().map(move |i| (rule, i))
        })
        .collect();
    let found: Vec<Vec<Found>> = in_pool(|| {
        runs.par_iter()
            .map(|&(rule, only)| {
                let ctx = Context { only, ..ctx };
                let mut out = Vec::new();
                rule.check(&ctx, &mut out);
                out.into_iter().map(|d| (only, d)).collect()
            })
            .collect()
    });
    report_with(loaded, found.into_iter().flatten(), opts, cfg, None)
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
