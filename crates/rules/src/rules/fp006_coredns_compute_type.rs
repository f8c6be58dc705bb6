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
use fplint_core::model::{Addon, Cluster, Known, Provisioner};
use fplint_core::placement;
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
            // A patch of the Deployment in the code moves CoreDNS itself.
            let patch = ctx.project.coredns_patch(cluster);
            if matches!(patch, Known::Known(Some(_))) {
                continue;
            }
            match cluster.coredns_addon() {
                Known::Known(Some(addon)) => check_addon(cluster, addon, out),
                // An add-on whose cluster is not known may be this one's.
                Known::Known(None) if !ctx.project.stray_addons => {
                    check_self_managed(cluster, &patch, out);
                }
                Known::Known(None) => {}
                Known::Unknown => {}
            }
        }
    }
}

/// No add-on: EKS's own CoreDNS keeps its EC2 annotation until something
/// patches it, and nothing in the code does.
fn check_self_managed(
    cluster: &Cluster,
    patch: &Known<Option<fplint_core::model::Loc>>,
    out: &mut Vec<Diagnostic>,
) {
    if !cluster.defined
        || cluster.self_managed_addons != Known::Known(true)
        || *patch != Known::Known(None)
    {
        return;
    }
    // Only where a profile would take CoreDNS: without one, FP005 says so.
    let Known::Known(labels) = cluster.coredns_labels() else {
        return;
    };
    let labels: Vec<(&str, &str)> = labels
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let placed = placement::place(cluster, Some("kube-system"), Some(&labels));
    let Known::Known(Some(p)) = placed.chosen else {
        return;
    };
    let Some(profile) = cluster.fargate_profiles.get(p) else {
        return;
    };
    let help = match cluster.provisioner {
        Provisioner::Cdk => "set `coreDnsComputeType: eks.CoreDnsComputeType.FARGATE` on the cluster (Python: `core_dns_compute_type`), or use `FargateCluster`, which patches CoreDNS itself",
        Provisioner::Pulumi => "declare the CoreDNS add-on: `aws.eks.Addon` with `addonName: \"coredns\"` and `configurationValues: JSON.stringify({ computeType: \"Fargate\" })`, with the `kube-system` profile in its `dependsOn` (or create the cluster with `@pulumi/eks` and `fargate`, which does both)",
        Provisioner::CloudFormation => "declare the CoreDNS add-on: an `AWS::EKS::Addon` with `AddonName: coredns` and `ConfigurationValues: '{\"computeType\": \"Fargate\"}'`, created after the `kube-system` profile",
        _ => "declare the CoreDNS add-on: `aws_eks_addon` with `addon_name = \"coredns\"` and `configuration_values = jsonencode({ computeType = \"Fargate\" })` (terraform-aws-eks: `coredns = { configuration_values = ... }` in its add-ons), created after the `kube-system` profile",
    };
    out.push(
        Diagnostic::new(
            "FP006",
            Severity::Warning,
            format!(
                "cluster {} has no nodes, no CoreDNS add-on and no CoreDNS patch: the CoreDNS EKS installs is annotated `eks.amazonaws.com/compute-type: ec2`, so its pods stay Pending",
                cluster.reference(cluster.loc.span.file)
            ),
            cluster.loc.span,
        )
        .with_label("no CoreDNS add-on, no patch of CoreDNS")
        .with_path(cluster.loc.path.clone())
        .with_related(
            profile.loc.span,
            format!("Fargate profile `{}` selects CoreDNS, but CoreDNS never moves there", profile.display_name()),
        )
        .with_help(help),
    );
}

fn check_addon(cluster: &Cluster, addon: &Addon, out: &mut Vec<Diagnostic>) {
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
                return;
            };
            match v.get("computeType") {
                None => (&cfg.loc, cfg.loc.span, "no `computeType`".to_string()),
                Some(ct) => match &ct.kind {
                    ValueKind::Unknown => return,
                    ValueKind::String(s) if s.eq_ignore_ascii_case("fargate") => return,
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
