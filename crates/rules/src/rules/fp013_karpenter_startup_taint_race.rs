//! FP013 karpenter-startup-taint-race.
//!
//! Karpenter before 1.5.0 can leave new nodes with the
//! `node.cloudprovider.kubernetes.io/uninitialized` taint, so pods are never
//! scheduled on them until someone removes it. Fixed in Karpenter 1.5.0.

use crate::{Context, Rule};
use fplint_core::model::Located;
use fplint_core::{Diagnostic, Severity};

/// The FP013 rule, `karpenter-startup-taint-race`: the module documentation says what it finds.
pub struct KarpenterStartupTaintRace;

/// `v1.4.2`, `1.4`, `0.37.0-rc.1` → (major, minor, patch).
pub fn parse_version(v: &str) -> Option<(u64, u64, u64)> {
    let v = v.trim().trim_start_matches('v');
    let core = v.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next().unwrap_or(Some(0))?;
    let patch = parts.next().unwrap_or(Some(0))?;
    Some((major, minor, patch))
}

/// FP013 for one Karpenter version, wherever the frontends found it.
pub fn check_version(version: &Located<String>, out: &mut Vec<Diagnostic>) {
    let Some(v) = version.known() else { return };
    let Some(parsed) = parse_version(v) else {
        return;
    };
    if parsed >= (1, 5, 0) {
        return;
    }
    out.push(
        Diagnostic::new(
            "FP013",
            Severity::Warning,
            format!(
                "Karpenter {v} can leave new nodes tainted `node.cloudprovider.kubernetes.io/uninitialized`, so pods never schedule on them (fixed in 1.5.0)"
            ),
            version.loc.span,
        )
        .with_label("Karpenter older than 1.5.0")
        .with_path(version.loc.path.clone())
        .with_help("upgrade Karpenter to 1.5.0 or later"),
    );
}

impl Rule for KarpenterStartupTaintRace {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in &ctx.project.clusters {
            if let Some(v) = &cluster.karpenter_version {
                check_version(v, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn versions() {
        assert_eq!(parse_version("v1.4.2"), Some((1, 4, 2)));
        assert_eq!(parse_version("1.5"), Some((1, 5, 0)));
        assert_eq!(parse_version("0.37.0-rc.1"), Some((0, 37, 0)));
        assert_eq!(parse_version("latest"), None);
        assert!(parse_version("0.32.1").unwrap() < (1, 5, 0));
    }
}
