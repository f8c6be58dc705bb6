//! FP007 fargate-subnet-public.
//!
//! Fargate runs pods only in private subnets: EKS rejects a profile whose
//! subnets route to an internet gateway (or hand out public IPs). A subnet is
//! public when the code shows it: `map_public_ip_on_launch`/
//! `MapPublicIpOnLaunch`, a route to an internet gateway in its route table,
//! the VPC module's `public_subnets`, or eksctl's `vpc.subnets.public`.

use crate::common::profile_label;
use crate::{Context, Rule};
use fplint_core::model::{Known, SubnetRef, SubnetVisibility};
use fplint_core::{Diagnostic, Severity};

/// The FP007 rule, `fargate-subnet-public`: the module documentation says what it finds.
pub struct FargateSubnetPublic;

impl Rule for FargateSubnetPublic {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            // One finding per subnet as written; profiles that share it (a
            // module's default subnets) are named together.
            let mut found: Vec<(&SubnetRef, Vec<&str>)> = Vec::new();
            for profile in &cluster.fargate_profiles {
                for s in profile.subnets.known().into_iter().flatten() {
                    if s.visibility != Known::Known(SubnetVisibility::Public) {
                        continue;
                    }
                    let name = profile_label(ctx.project, profile);
                    match found
                        .iter_mut()
                        .find(|(x, _)| x.id.loc.span == s.id.loc.span)
                    {
                        Some((_, names)) => names.push(name),
                        None => found.push((s, vec![name])),
                    }
                }
            }
            for (s, names) in found {
                let subnet = s.id.known().map_or_else(
                    || "a public subnet".to_string(),
                    |id| format!("the public subnet `{id}`"),
                );
                let profiles = names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let plural = if names.len() > 1 { "s" } else { "" };
                let mut d = Diagnostic::new(
                    "FP007",
                    Severity::Error,
                    format!(
                        "Fargate profile{plural} {profiles} of cluster {} use{} {subnet}: Fargate accepts only private subnets",
                        cluster.reference(s.id.loc.span.file),
                        if names.len() > 1 { "" } else { "s" },
                    ),
                    s.id.loc.span,
                )
                .with_label("public subnet")
                .with_path(s.id.loc.path.clone())
                .with_help("use private subnets (no route to an internet gateway; outbound traffic through a NAT gateway or VPC endpoints)");
                if let Some(e) = s.evidence.as_ref().filter(|e| e.span != s.id.loc.span) {
                    d = d.with_related(e.span, "this makes the subnet public");
                }
                out.push(d);
            }
        }
    }
}
