//! FP013 karpenter-startup-taint-race.
//!
//! When a node registers, Karpenter copies its NodePool's `startupTaints`
//! onto it. A daemon that removes its startup taint before that copy (the EBS
//! and EFS CSI drivers do) sees it put back and never removes it again: the
//! node stays unschedulable (kubernetes-sigs/karpenter issue 1772). Karpenter
//! 1.5.0 stops the copy for the built-in AMI families only, so the race
//! remains below 1.5.0 and, on every version, with `amiFamily: Custom`.
//! Without startup taints there is nothing to race, so the rule needs them.

use crate::common::parse_version;
use crate::{Context, Rule};
use fplint_core::model::{Known, Loc, Project};
use fplint_core::workload::NodePool;
use fplint_core::{Diagnostic, Severity};

/// FP013 karpenter-startup-taint-race.
pub struct KarpenterStartupTaintRace;

/// The first version whose built-in AMI families no longer copy the taints.
const FIXED: (u64, u64, u64) = (1, 5, 0);

/// The Karpenter version of the linted project: the one the files install
/// (all that are known must agree), else `[tools] karpenter-version`.
fn karpenter_version<'a>(ctx: &'a Context<'_>) -> Option<(&'a str, Option<&'a Loc>)> {
    let mut found: Option<(&str, &Loc)> = None;
    for c in &ctx.project.clusters {
        let Some(v) = &c.karpenter_version else {
            continue;
        };
        let Some(text) = v.known() else { continue };
        let Some(parsed) = parse_version(text) else {
            continue;
        };
        match found {
            Some((seen, _)) if parse_version(seen) != Some(parsed) => return None,
            Some(_) => {}
            None => found = Some((text.as_str(), &v.loc)),
        }
    }
    match found {
        Some((v, loc)) => Some((v, Some(loc))),
        None => ctx
            .settings
            .tools
            .karpenter_version
            .as_deref()
            .map(|v| (v, None)),
    }
}

/// Whether the pool's node class uses a custom AMI, and where that is said.
fn custom_ami<'a>(project: &'a Project, pool: &NodePool) -> Known<Option<&'a Loc>> {
    let Some(class) = pool.node_class.as_ref().and_then(|c| c.known()) else {
        return Known::Unknown;
    };
    let mut answer = Known::Unknown;
    for nc in &project.karpenter.node_classes {
        if nc.name.known() != Some(class) {
            continue;
        }
        let this = match nc.custom_ami.known() {
            Some(true) => Known::Known(Some(&nc.custom_ami.loc)),
            Some(false) => Known::Known(None),
            None => return Known::Unknown,
        };
        // Two node classes of one name (two clusters): they must agree.
        match (&answer, &this) {
            (Known::Unknown, _) => answer = this,
            (Known::Known(a), Known::Known(b)) if a.is_some() != b.is_some() => {
                return Known::Unknown
            }
            _ => {}
        }
    }
    answer
}

impl Rule for KarpenterStartupTaintRace {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let version = karpenter_version(ctx);
        for pool in &ctx.project.karpenter.node_pools {
            let Some(taints) = pool.startup_taints.known() else {
                continue;
            };
            let (Some(first), Some(taints_loc)) = (taints.first(), &pool.startup_taints_loc) else {
                continue;
            };
            let pool_name = pool.name.known().map_or("?", String::as_str);
            let taint = first.known().map_or("a startup taint", String::as_str);
            if let Known::Known(Some(custom_at)) = custom_ami(ctx.project, pool) {
                out.push(
                    Diagnostic::new(
                        "FP013",
                        Severity::Warning,
                        format!(
                            "NodePool `{pool_name}` has startup taints and a node class with `amiFamily: Custom`: on every Karpenter version, registration can put back `{taint}` after its daemon removed it, and the node stays unschedulable"
                        ),
                        taints_loc.span,
                    )
                    .with_label("startup taints copied onto the node at registration")
                    .with_path(taints_loc.path.clone())
                    .with_related(custom_at.span, "custom AMI: Karpenter 1.5.0's fix does not apply")
                    .with_help("register the node with these taints yourself (kubelet `--register-with-taints`) and the node label `karpenter.sh/do-not-sync-taints=true`, or use a built-in AMI family"),
                );
                continue;
            }
            let Some((v, v_loc)) = version else { continue };
            let Some(parsed) = parse_version(v) else {
                continue;
            };
            if parsed >= FIXED {
                continue;
            }
            let message = format!(
                "Karpenter {v} copies the startup taints of NodePool `{pool_name}` onto each node at registration and can put back `{taint}` after its daemon removed it, so the node stays unschedulable (fixed in 1.5.0 for the built-in AMI families)"
            );
            let d = match v_loc {
                Some(at) => Diagnostic::new("FP013", Severity::Warning, message, at.span)
                    .with_label("Karpenter older than 1.5.0")
                    .with_path(at.path.clone())
                    .with_related(
                        taints_loc.span,
                        format!("NodePool `{pool_name}` declares startup taints"),
                    ),
                None => Diagnostic::new("FP013", Severity::Warning, message, taints_loc.span)
                    .with_label("startup taints, with Karpenter older than 1.5.0 in `[tools]`")
                    .with_path(taints_loc.path.clone()),
            };
            out.push(d.with_help(
                "upgrade Karpenter to 1.5.0 or later; until then, remove a stuck taint by hand",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::common::parse_version;

    #[test]
    fn versions() {
        assert_eq!(parse_version("v1.4.2"), Some((1, 4, 2)));
        assert_eq!(parse_version("1.5"), Some((1, 5, 0)));
        assert_eq!(parse_version("0.37.0-rc.1"), Some((0, 37, 0)));
        assert_eq!(parse_version("latest"), None);
        assert_eq!(parse_version("1.2.3.4"), None);
        assert!(parse_version("0.32.1") < Some(super::FIXED));
    }
}
