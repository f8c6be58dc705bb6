//! FP004 fargate-quota-exceeded.
//!
//! EKS allows 10 Fargate profiles per cluster, 5 selectors per profile and 5
//! label pairs per selector by default; the create call fails beyond them.
//! The quotas are adjustable, so `[quotas]` in fplint.toml raises them.
//! Profiles made by `for_each`/`count` over known values count one each.

use crate::common::profile_label;
use crate::{Context, Rule};
use fplint_core::{Diagnostic, Severity};

/// The FP004 rule, `fargate-quota-exceeded`: the module documentation says what it finds.
pub struct FargateQuotaExceeded;

const CODE: &str = "FP004";
const HELP_QUOTA: &str =
    "or, if your account's quota was raised, set it under `[quotas]` in fplint.toml";

impl Rule for FargateQuotaExceeded {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let q = ctx.settings.quotas;
        for cluster in ctx.clusters() {
            let profiles = &cluster.fargate_profiles;
            if profiles.len() > q.profiles_per_cluster {
                let first_over = &profiles[q.profiles_per_cluster];
                out.push(
                    Diagnostic::new(
                        CODE,
                        Severity::Error,
                        format!(
                            "cluster {} has {} Fargate profiles, more than the quota of {}",
                            cluster.reference(first_over.loc.span.file),
                            profiles.len(),
                            q.profiles_per_cluster
                        ),
                        first_over.loc.span,
                    )
                    .with_label(format!("profile {} of {}", q.profiles_per_cluster + 1, profiles.len()))
                    .with_path(first_over.loc.path.clone())
                    .with_related(cluster.loc.span, "cluster defined here")
                    .with_help(format!(
                        "merge profiles (a profile takes up to {} selectors), {HELP_QUOTA} (profiles-per-cluster)",
                        q.selectors_per_profile
                    )),
                );
            }
            for profile in profiles {
                let Some(selectors) = profile.selectors.known() else {
                    continue;
                };
                if selectors.len() > q.selectors_per_profile {
                    let first_over = &selectors[q.selectors_per_profile];
                    out.push(
                        Diagnostic::new(
                            CODE,
                            Severity::Error,
                            format!(
                                "Fargate profile `{}` has {} selectors, more than the quota of {}",
                                profile_label(ctx.project, profile),
                                selectors.len(),
                                q.selectors_per_profile
                            ),
                            first_over.loc.span,
                        )
                        .with_label(format!("selector {} of {}", q.selectors_per_profile + 1, selectors.len()))
                        .with_path(first_over.loc.path.clone())
                        .with_related(profile.loc.span, "profile defined here")
                        .with_help(format!(
                            "split the selectors over two profiles or use a namespace wildcard, {HELP_QUOTA} (selectors-per-profile)"
                        )),
                    );
                }
                for sel in selectors {
                    let Some(labels) = sel.labels.known() else {
                        continue;
                    };
                    if labels.len() > q.labels_per_selector {
                        let first_over = &labels[q.labels_per_selector];
                        out.push(
                            Diagnostic::new(
                                CODE,
                                Severity::Error,
                                format!(
                                    "Fargate selector has {} labels, more than the quota of {}",
                                    labels.len(),
                                    q.labels_per_selector
                                ),
                                first_over.loc.span,
                            )
                            .with_label(format!("label {} of {}", q.labels_per_selector + 1, labels.len()))
                            .with_path(first_over.loc.path.clone())
                            .with_related(sel.loc.span, "selector defined here")
                            .with_help(format!(
                                "select on fewer labels (one distinguishing label is usually enough), {HELP_QUOTA} (labels-per-selector)"
                            )),
                        );
                    }
                }
            }
        }
    }
}
