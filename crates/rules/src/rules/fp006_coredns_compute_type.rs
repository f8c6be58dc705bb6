//! FP006 coredns-compute-type.
//!
//! EKS's CoreDNS add-on schedules CoreDNS for EC2 nodes (its pods carry the
//! annotation `eks.amazonaws.com/compute-type: ec2`, which Fargate never
//! takes) unless its configuration values set `computeType` to `Fargate`. On
//! a cluster without nodes CoreDNS then stays Pending, whatever the profiles
//! select. eksctl patches CoreDNS itself, so only Terraform and
//! CloudFormation add-ons are checked.

use crate::common::fargate_only;
use crate::{Context, Rule};
use fplint_core::model::Provisioner;
use fplint_core::value::ValueKind;
use fplint_core::{Change, Diagnostic, Fix, Severity};

/// The FP006 rule, `coredns-compute-type`: the module documentation says what it finds.
pub struct CorednsComputeType;

impl Rule for CorednsComputeType {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            if cluster.provisioner == Provisioner::Eksctl || !fargate_only(cluster) {
                continue;
            }
            for addon in &cluster.addons {
                if addon.name.known().map(String::as_str) != Some("coredns") {
                    continue;
                }
                let fix = match &addon.configuration {
                    None => Change::AddConfigValues {
                        addon: addon.loc.span,
                        key: "computeType".into(),
                        value: "Fargate".into(),
                    },
                    Some(cfg) => Change::SetConfigValue {
                        at: cfg.loc.span,
                        key: "computeType".into(),
                        value: "Fargate".into(),
                    },
                };
                let (loc, span, label) = match &addon.configuration {
                    None => (
                        &addon.name.loc,
                        addon.name.loc.span,
                        "no configuration values".to_string(),
                    ),
                    Some(cfg) => {
                        let Some(v) = cfg.known().filter(|v| !v.is_unknown()) else {
                            continue;
                        };
                        match v.get("computeType") {
                            None => (&cfg.loc, cfg.loc.span, "no `computeType`".to_string()),
                            Some(ct) => match &ct.kind {
                                ValueKind::Unknown => continue,
                                ValueKind::String(s) if s.eq_ignore_ascii_case("fargate") => {
                                    continue
                                }
                                _ => (
                                    &cfg.loc,
                                    ct.span.unwrap_or(cfg.loc.span),
                                    format!(
                                        "`computeType` is `{}`",
                                        ct.as_str().unwrap_or("not a string")
                                    ),
                                ),
                            },
                        }
                    }
                };
                out.push(
                    Diagnostic::new(
                        "FP006",
                        Severity::Warning,
                        format!(
                            "the CoreDNS add-on of cluster {} does not set `computeType` to `Fargate`: the add-on schedules CoreDNS for EC2 nodes (annotation `eks.amazonaws.com/compute-type: ec2`), and the cluster has none",
                            cluster.reference(span.file)
                        ),
                        span,
                    )
                    .with_label(label)
                    .with_path(loc.path.clone())
                    .with_related(cluster.loc.span, "cluster without node groups")
                    .with_help("set the add-on's configuration values to `{\"computeType\": \"Fargate\"}` (Terraform: `configuration_values = jsonencode({ computeType = \"Fargate\" })`)")
                    .with_fix(Fix::safe("set `computeType` to `Fargate` in the CoreDNS add-on's configuration values", vec![fix])),
                );
            }
        }
    }
}
