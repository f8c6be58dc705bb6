//! FP018 fargate-profile-pin-annotation.
//!
//! `eks.amazonaws.com/fargate-profile` chooses among matching profiles only
//! as a pod *label*; as an annotation it is ignored (an older write-up says
//! annotation, which is out of date).

use crate::common::with_variant;
use crate::{Context, Rule};
use fplint_core::placement::PIN_LABEL;
use fplint_core::{Diagnostic, Severity};

/// The FP018 rule, `fargate-profile-pin-annotation`: the module documentation says what it finds.
pub struct FargateProfilePinAnnotation;

impl Rule for FargateProfilePinAnnotation {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for w in &ctx.project.workloads {
            let Some(a) = w.pod.annotation(PIN_LABEL) else {
                continue;
            };
            out.push(with_variant(
                Diagnostic::new(
                    "FP018",
                    Severity::Warning,
                    format!("`{PIN_LABEL}` is set as an annotation, where Fargate ignores it: it pins a profile only as a pod label"),
                    a.loc.span,
                )
                .with_label("annotation, not label")
                .with_path(a.loc.path.clone())
                .with_help("move it from `metadata.annotations` to `metadata.labels` of the pod template"),
                w,
            ));
        }
    }
}
