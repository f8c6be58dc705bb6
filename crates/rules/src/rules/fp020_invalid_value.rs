//! FP020 invalid-value.
//!
//! A value of the wrong type or outside its enumeration, where it changes
//! what fplint concludes: an unknown eksctl `apiVersion`, a selector
//! namespace that is not a string, labels that are not a map, a toleration
//! effect or operator Kubernetes refuses, add-on configuration values that
//! are not a JSON or YAML object, and a Fargate profile written as a
//! Kubernetes object under an API that serves no such kind (no profile is
//! created).

use crate::{Context, Rule};
use fplint_core::schema::SchemaFinding;
use fplint_core::{Diagnostic, Severity, Span};

/// FP020 invalid-value.
pub struct InvalidValue;

impl Rule for InvalidValue {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for f in &ctx.project.schema_findings {
            if let SchemaFinding::NoSuchKind {
                api,
                kind,
                span,
                kind_span,
            } = f
            {
                out.push(no_such_kind(api, kind, *span, *kind_span));
                continue;
            }
            let SchemaFinding::InvalidValue {
                field,
                found,
                expected,
                suggestion,
                span,
                path,
            } = f
            else {
                continue;
            };
            let message = match suggestion {
                Some(s) => format!("invalid `{field}`: {found}; did you mean `{s}`?"),
                None => format!("invalid `{field}`: {found}, expected {expected}"),
            };
            out.push(
                Diagnostic::new("FP020", Severity::Error, message, *span)
                    .with_label(format!("expected {expected}"))
                    .with_path(path.clone())
                    .with_help(match suggestion {
                        Some(s) => format!("write `{s}`"),
                        None => format!("write {expected}"),
                    }),
            );
        }
    }
}

/// A Fargate profile is an EKS resource, not a Kubernetes object: the help
/// names the ways one is really created.
fn no_such_kind(api: &str, kind: &str, span: Span, kind_span: Span) -> Diagnostic {
    Diagnostic::new(
        "FP020",
        Severity::Error,
        format!(
            "invalid `apiVersion`: `{api}` serves no kind `{kind}`; `kubectl apply` refuses it and no Fargate profile is created"
        ),
        span,
    )
    .with_label("no such API")
    .with_related(kind_span, "a Fargate profile is an EKS resource, not a Kubernetes object")
    .with_path("apiVersion")
    .with_help(
        "create the profile through EKS: eksctl `fargateProfiles` in a ClusterConfig (or `eksctl create fargateprofile`), `aws eks create-fargate-profile`, Terraform `aws_eks_fargate_profile`, CloudFormation `AWS::EKS::FargateProfile`, or the EKS console; a cluster running the ACK EKS controller takes `apiVersion: eks.services.k8s.aws/v1alpha1`",
    )
}
