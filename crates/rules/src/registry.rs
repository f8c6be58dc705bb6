//! The one table that maps codes to rules.

use crate::rules;
use crate::Rule;
use fplint_core::frontend::Format;
use fplint_core::Severity;

/// One rule's row: its code, name, severity, formats and documentation.
pub struct RuleInfo {
    /// `FP001` and so on.
    pub code: &'static str,
    /// Kebab-case name, as the docs and SARIF show it.
    pub name: &'static str,
    /// Severity unless the configuration says otherwise.
    pub default_severity: Severity,
    /// Every severity the rule reports, the default first (FP015 reports an
    /// oversized pod as an error and costly rounding as info).
    pub severities: &'static [Severity],
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// The formats the rule reads findings from.
    pub formats: &'static [Format],
    /// Formats covered only in part, with the part (FP003 reads Terraform's
    /// `awscc_eks_fargate_profile` only).
    pub format_notes: &'static [(Format, &'static str)],
    /// `rules/FPxxx.md`, embedded.
    pub doc: &'static str,
    /// `None` for FP000, which the frontends emit while parsing.
    pub rule: Option<&'static dyn Rule>,
}

use Format::{CloudFormation as Cfn, Eksctl, Kubernetes as K8s, Terraform as Tf};

/// Every rule, in code order.
pub static REGISTRY: &[RuleInfo] = &[
    RuleInfo {
        code: "FP000",
        name: "parse-error",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "A recognised file cannot be parsed",
        formats: &[Eksctl, Cfn, Tf, K8s],
        format_notes: &[],
        doc: include_str!("../docs/FP000.md"),
        rule: None,
    },
    RuleInfo {
        code: "FP001",
        name: "coredns-selector-labels",
        default_severity: Severity::Error,
        severities: &[Severity::Error, Severity::Warning],
        summary: "eksctl moves CoreDNS to Fargate only for a `kube-system` selector without labels (or, from 0.208.0, with the CoreDNS component label)",
        formats: &[Eksctl],
        format_notes: &[],
        doc: include_str!("../docs/FP001.md"),
        rule: Some(&rules::fp001_coredns_selector_labels::CorednsSelectorLabels),
    },
    RuleInfo {
        code: "FP002",
        name: "fargate-toleration-missing",
        default_severity: Severity::Warning,
        severities: &[Severity::Warning],
        summary: "A Helm release on a Fargate profile is neither ordered after the profile nor tolerates the Fargate taint",
        formats: &[Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP002.md"),
        rule: Some(&rules::fp002_fargate_toleration_missing::FargateTolerationMissing),
    },
    RuleInfo {
        code: "FP003",
        name: "fargate-profile-parallel-creation",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary:
            "Two Fargate profiles of one cluster that the deployment may create at the same time",
        formats: &[Cfn, Tf],
        format_notes: &[(Tf, "awscc_eks_fargate_profile")],
        doc: include_str!("../docs/FP003.md"),
        rule: Some(&rules::fp003_fargate_profile_parallel_creation::FargateProfileParallelCreation),
    },
    RuleInfo {
        code: "FP004",
        name: "fargate-quota-exceeded",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "More profiles, selectors or labels than the EKS quotas allow",
        formats: &[Eksctl, Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP004.md"),
        rule: Some(&rules::fp004_fargate_quota_exceeded::FargateQuotaExceeded),
    },
    RuleInfo {
        code: "FP005",
        name: "coredns-without-capacity",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "No Fargate selector matches CoreDNS on a cluster without nodes",
        formats: &[Eksctl, Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP005.md"),
        rule: Some(&rules::fp005_coredns_without_capacity::CorednsWithoutCapacity),
    },
    RuleInfo {
        code: "FP006",
        name: "coredns-compute-type",
        default_severity: Severity::Warning,
        severities: &[Severity::Warning],
        summary: "The CoreDNS add-on of a cluster without nodes does not set computeType to Fargate",
        formats: &[Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP006.md"),
        rule: Some(&rules::fp006_coredns_compute_type::CorednsComputeType),
    },
    RuleInfo {
        code: "FP007",
        name: "fargate-subnet-public",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "A Fargate profile uses a public subnet",
        formats: &[Eksctl, Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP007.md"),
        rule: Some(&rules::fp007_fargate_subnet_public::FargateSubnetPublic),
    },
    RuleInfo {
        code: "FP008",
        name: "pod-execution-role-incomplete",
        default_severity: Severity::Error,
        severities: &[Severity::Error, Severity::Warning],
        summary: "A pod execution role lacks its managed policy or trust, or has an IAM path",
        formats: &[Eksctl, Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP008.md"),
        rule: Some(&rules::fp008_pod_execution_role_incomplete::PodExecutionRoleIncomplete),
    },
    RuleInfo {
        code: "FP009",
        name: "aws-auth-drops-fargate-role",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "The aws-auth ConfigMap written in code lacks a Fargate pod execution role",
        formats: &[K8s, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP009.md"),
        rule: Some(&rules::fp009_aws_auth_drops_fargate_role::AwsAuthDropsFargateRole),
    },
    RuleInfo {
        code: "FP010",
        name: "fargate-profile-overlap",
        default_severity: Severity::Warning,
        severities: &[Severity::Warning],
        summary: "Two profiles can match the same pod, and EKS does not document which one it uses",
        formats: &[Eksctl, Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP010.md"),
        rule: Some(&rules::fp010_fargate_profile_overlap::FargateProfileOverlap),
    },
    RuleInfo {
        code: "FP011",
        name: "workload-without-capacity",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "A workload matches no Fargate profile on a cluster without nodes",
        formats: &[K8s, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP011.md"),
        rule: Some(&rules::fp011_workload_without_capacity::WorkloadWithoutCapacity),
    },
    RuleInfo {
        code: "FP012",
        name: "installed-before-fargate-profile",
        default_severity: Severity::Warning,
        severities: &[Severity::Warning],
        summary: "A workload or CoreDNS add-on may be created before the Fargate profile that runs its pods",
        formats: &[Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP012.md"),
        rule: Some(&rules::fp012_installed_before_fargate_profile::InstalledBeforeFargateProfile),
    },
    RuleInfo {
        code: "FP013",
        name: "karpenter-startup-taint-race",
        default_severity: Severity::Warning,
        severities: &[Severity::Warning],
        summary: "Karpenter can put back a NodePool's startup taint after its daemon removed it (below 1.5.0, or with a custom AMI)",
        formats: &[Eksctl, Tf, K8s],
        format_notes: &[],
        doc: include_str!("../docs/FP013.md"),
        rule: Some(&rules::fp013_karpenter_startup_taint_race::KarpenterStartupTaintRace),
    },
    RuleInfo {
        code: "FP014",
        name: "fargate-unsupported-pod-spec",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary:
            "A pod on Fargate uses what Fargate refuses (DaemonSet, hostNetwork, privileged, ...)",
        formats: &[K8s, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP014.md"),
        rule: Some(&rules::fp014_fargate_unsupported_pod_spec::FargateUnsupportedPodSpec),
    },
    RuleInfo {
        code: "FP015",
        name: "fargate-pod-size",
        default_severity: Severity::Warning,
        severities: &[Severity::Warning, Severity::Error, Severity::Info],
        summary:
            "A pod on Fargate is too large, has no requests, or is billed far above its request",
        formats: &[K8s, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP015.md"),
        rule: Some(&rules::fp015_fargate_pod_size::FargatePodSize),
    },
    RuleInfo {
        code: "FP016",
        name: "fargate-selector-invalid",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "A profile or selector EKS or eksctl rejects",
        formats: &[Eksctl, Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP016.md"),
        rule: Some(&rules::fp016_fargate_selector_invalid::FargateSelectorInvalid),
    },
    RuleInfo {
        code: "FP017",
        name: "pod-identity-on-fargate",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "An EKS Pod Identity association for pods that run on Fargate, where Pod Identity does not work",
        formats: &[Eksctl, Cfn, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP017.md"),
        rule: Some(&rules::fp017_pod_identity_on_fargate::PodIdentityOnFargate),
    },
    RuleInfo {
        code: "FP018",
        name: "fargate-profile-pin-annotation",
        default_severity: Severity::Warning,
        severities: &[Severity::Warning],
        summary: "The profile pin is an annotation, which Fargate ignores",
        formats: &[K8s, Tf],
        format_notes: &[],
        doc: include_str!("../docs/FP018.md"),
        rule: Some(&rules::fp018_fargate_profile_pin_annotation::FargateProfilePinAnnotation),
    },
    RuleInfo {
        code: "FP019",
        name: "unknown-field",
        default_severity: Severity::Error,
        severities: &[Severity::Error, Severity::Warning],
        summary: "A key the format does not define, which hides what it was meant to say",
        formats: &[Eksctl, Cfn, Tf, K8s],
        format_notes: &[],
        doc: include_str!("../docs/FP019.md"),
        rule: Some(&rules::fp019_unknown_field::UnknownField),
    },
    RuleInfo {
        code: "FP020",
        name: "invalid-value",
        default_severity: Severity::Error,
        severities: &[Severity::Error],
        summary: "A value of the wrong type or outside its enumeration",
        formats: &[Eksctl, Cfn, Tf, K8s],
        format_notes: &[],
        doc: include_str!("../docs/FP020.md"),
        rule: Some(&rules::fp020_invalid_value::InvalidValue),
    },
    RuleInfo {
        code: "FP100",
        name: "unused-suppression",
        default_severity: Severity::Info,
        severities: &[Severity::Info, Severity::Warning],
        summary: "An inline `fplint: ignore[...]` suppresses nothing",
        formats: &[Eksctl, Cfn, Tf, K8s],
        format_notes: &[],
        doc: include_str!("../docs/FP100.md"),
        rule: None,
    },
];

/// Look a rule up by its code.
pub fn find(code: &str) -> Option<&'static RuleInfo> {
    REGISTRY.iter().find(|r| r.code.eq_ignore_ascii_case(code))
}
