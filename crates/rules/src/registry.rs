//! The one table that maps codes to rules.

use crate::rules;
use crate::Rule;
use fplint_core::frontend::Format;
use fplint_core::Severity;

pub struct RuleInfo {
    pub code: &'static str,
    pub name: &'static str,
    pub default_severity: Severity,
    /// One line: what the rule finds.
    pub summary: &'static str,
    pub formats: &'static [Format],
    /// `rules/FPxxx.md`, embedded.
    pub doc: &'static str,
    /// `None` for FP000, which the frontends emit while parsing.
    pub rule: Option<&'static dyn Rule>,
}

use Format::{CloudFormation as Cfn, Eksctl, Kubernetes as K8s, Terraform as Tf};

pub static REGISTRY: &[RuleInfo] = &[
    RuleInfo {
        code: "FP000",
        name: "parse-error",
        default_severity: Severity::Error,
        summary: "A recognised file cannot be parsed",
        formats: &[Eksctl, Cfn, Tf, K8s],
        doc: include_str!("../../../rules/FP000.md"),
        rule: None,
    },
    RuleInfo {
        code: "FP001",
        name: "coredns-selector-labels",
        default_severity: Severity::Error,
        summary:
            "eksctl leaves CoreDNS Pending when the kube-system selector has labels or a wildcard",
        formats: &[Eksctl],
        doc: include_str!("../../../rules/FP001.md"),
        rule: Some(&rules::fp001_coredns_selector_labels::CorednsSelectorLabels),
    },
    RuleInfo {
        code: "FP003",
        name: "fargate-profile-parallel-creation",
        default_severity: Severity::Error,
        summary:
            "Two Fargate profiles of one cluster that the deployment may create at the same time",
        formats: &[Cfn, Tf],
        doc: include_str!("../../../rules/FP003.md"),
        rule: Some(&rules::fp003_fargate_profile_parallel_creation::FargateProfileParallelCreation),
    },
    RuleInfo {
        code: "FP004",
        name: "fargate-quota-exceeded",
        default_severity: Severity::Error,
        summary: "More profiles, selectors or labels than the EKS quotas allow",
        formats: &[Eksctl, Cfn, Tf],
        doc: include_str!("../../../rules/FP004.md"),
        rule: Some(&rules::fp004_fargate_quota_exceeded::FargateQuotaExceeded),
    },
    RuleInfo {
        code: "FP100",
        name: "unused-suppression",
        default_severity: Severity::Info,
        summary: "An inline `fplint: ignore[...]` suppresses nothing",
        formats: &[Eksctl, Cfn, Tf, K8s],
        doc: include_str!("../../../rules/FP100.md"),
        rule: None,
    },
];

/// Look a rule up by its code.
pub fn find(code: &str) -> Option<&'static RuleInfo> {
    REGISTRY.iter().find(|r| r.code.eq_ignore_ascii_case(code))
}
