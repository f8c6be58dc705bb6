//! FP010 fargate-profile-overlap.
//!
//! Two profiles of a cluster whose selectors can match the same pod. Since
//! 2022 Fargate deterministically uses the profile whose name sorts first
//! (not a random one); a pod can pin another with the label
//! `eks.amazonaws.com/fargate-profile: NAME`. Overlaps usually mean a
//! profile's subnets or pod execution role are never used for those pods.

use crate::common::{exclusive, profile_label};
use crate::{Context, Rule};
use fplint_core::model::Known;
use fplint_core::placement::selectors_overlap;
use fplint_core::{Diagnostic, Severity};

/// The FP010 rule, `fargate-profile-overlap`: the module documentation says what it finds.
pub struct FargateProfileOverlap;

impl Rule for FargateProfileOverlap {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in &ctx.project.clusters {
            let profiles = &cluster.fargate_profiles;
            for (j, later) in profiles.iter().enumerate() {
                let Some(later_sels) = later.selectors.known() else {
                    continue;
                };
                'earlier: for earlier in &profiles[..j] {
                    let Some(earlier_sels) = earlier.selectors.known() else {
                        continue;
                    };
                    if exclusive(ctx.project, earlier, later) {
                        continue;
                    }
                    for b in later_sels {
                        for a in earlier_sels {
                            if selectors_overlap(a, b) != Known::Known(true) {
                                continue;
                            }
                            let (na, nb) = (earlier.name.known(), later.name.known());
                            let winner = match (na, nb) {
                                (Some(x), Some(y)) => format!("`{}`", x.min(y)),
                                _ => "the profile whose name sorts first".to_string(),
                            };
                            out.push(
                                Diagnostic::new(
                                    "FP010",
                                    Severity::Warning,
                                    format!(
                                        "profiles `{}` and `{}` can both match the same pods; Fargate uses {winner} for them",
                                        profile_label(ctx.project, earlier),
                                        profile_label(ctx.project, later),
                                    ),
                                    b.loc.span,
                                )
                                .with_label("overlaps a selector of another profile")
                                .with_path(b.loc.path.clone())
                                .with_related(a.loc.span, "this selector matches the same pods")
                                .with_help("make the selectors disjoint (namespace or labels), merge the profiles, or pin pods to a profile with the label `eks.amazonaws.com/fargate-profile: NAME`"),
                            );
                            continue 'earlier;
                        }
                    }
                }
            }
        }
    }
}
