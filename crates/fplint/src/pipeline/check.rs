//! Stage 5, check: the selected rules run over the assembled project.

use super::report::report_with;
use super::report::Report;
use super::{in_pool, Loaded, Options};
use crate::config::Config;
use fplint_core::Diagnostic;
use fplint_rules::{Context, Settings, REGISTRY};
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
    let found: Vec<Vec<Diagnostic>> = in_pool(|| {
        REGISTRY
            .par_iter()
            .filter(|r| selection.enabled(r.code))
            .filter_map(|r| r.rule)
            .map(|rule| {
                let mut out = Vec::new();
                rule.check(&ctx, &mut out);
                out
            })
            .collect()
    });
    report_with(loaded, found.into_iter().flatten(), opts, cfg, None)
}

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
