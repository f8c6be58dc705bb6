//! FP017 pod-identity-on-fargate.
//!
//! EKS Pod Identity hands out credentials through the Pod Identity agent, a
//! DaemonSet on EC2 nodes; Fargate runs no DaemonSets, so a pod on Fargate
//! whose service account has only a Pod Identity association gets no AWS
//! credentials. Fires when a profile of the association's cluster has a
//! selector with no labels whose namespace pattern matches the association's
//! namespace: those pods go to Fargate whatever EC2 capacity the cluster
//! also has. A labelled selector depends on pod labels fplint cannot see, so
//! it stays quiet.

use crate::common::profile_label;
use crate::{Context, Rule};
use fplint_core::model::Known;
use fplint_core::placement::selector_matches;
use fplint_core::{Diagnostic, Severity};

/// The FP017 rule, `pod-identity-on-fargate`: the module documentation says what it finds.
pub struct PodIdentityOnFargate;

impl Rule for PodIdentityOnFargate {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let project = ctx.project;
        for a in &project.pod_identities {
            let (Some(key), Some(ns)) = (a.cluster_key.as_deref(), a.namespace.known()) else {
                continue;
            };
            let hit = project
                .clusters
                .iter()
                .filter(|c| c.key == key)
                .flat_map(|c| {
                    c.fargate_profiles.iter().flat_map(move |p| {
                        p.selectors
                            .known()
                            .into_iter()
                            .flatten()
                            .map(move |s| (c, p, s))
                    })
                })
                .find(|(_, _, s)| selector_matches(s, ns, None) == Known::Known(true));
            let Some((cluster, profile, selector)) = hit else {
                continue;
            };
            let sa = a.service_account.known().map_or("?", String::as_str);
            out.push(
                Diagnostic::new(
                    "FP017",
                    Severity::Error,
                    format!(
                        "EKS Pod Identity association for service account `{ns}/{sa}`, whose pods run on Fargate profile `{}` of cluster {}: Fargate does not support Pod Identity",
                        profile_label(project, profile),
                        cluster.reference(a.namespace.loc.span.file)
                    ),
                    a.namespace.loc.span,
                )
                .with_label("pods of this namespace run on Fargate")
                .with_path(a.namespace.loc.path.clone())
                .with_related(
                    selector.loc.span,
                    format!("this selector sends every pod of `{ns}` to Fargate"),
                )
                .with_help("give the service account an IAM role through IRSA (the `eks.amazonaws.com/role-arn` annotation and an OIDC trust policy) instead of a Pod Identity association, or run these pods on EC2 nodes"),
            );
        }
    }
}
