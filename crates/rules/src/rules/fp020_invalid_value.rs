//! FP020 invalid-value.
//!
//! A value of the wrong type or outside its enumeration, where it changes
//! what fplint concludes: an unknown eksctl `apiVersion`, a selector
//! namespace that is not a string, labels that are not a map, a toleration
//! effect or operator Kubernetes refuses, add-on configuration values that
//! are not a JSON or YAML object.

use crate::{Context, Rule};
use fplint_core::schema::SchemaFinding;
use fplint_core::{Diagnostic, Severity};

/// FP020 invalid-value.
pub struct InvalidValue;

impl Rule for InvalidValue {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for f in &ctx.project.schema_findings {
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
