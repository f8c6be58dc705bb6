//! FP019 unknown-field.
//!
//! A key the format does not define, in an object fplint models. The tools
//! reject it (eksctl's strict decoding, CloudFormation, Terraform) or drop it
//! (terraform-aws-eks map entries, Kubernetes), and fplint, which reads only
//! the keys it knows, would see no profile, selector or label and stay quiet.

use crate::{Context, Rule};
use fplint_core::schema::SchemaFinding;
use fplint_core::{Diagnostic, Severity};

/// FP019 unknown-field.
pub struct UnknownField;

impl Rule for UnknownField {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for f in &ctx.project.schema_findings {
            match f {
                SchemaFinding::UnknownField {
                    key,
                    span,
                    path,
                    object,
                    suggestion,
                } => {
                    let message = match suggestion {
                        Some(s) => format!("unknown field `{key}`; did you mean `{s}`?"),
                        None => format!("unknown field `{key}`"),
                    };
                    let help = match suggestion {
                        Some(s) => format!("rename it to `{s}`"),
                        None => format!("remove it, or use a field that `{object}` defines"),
                    };
                    out.push(
                        Diagnostic::new("FP019", Severity::Error, message, *span)
                            .with_label(format!("not a field of `{object}`"))
                            .with_path(path.clone())
                            .with_help(help),
                    );
                }
                SchemaFinding::ArgumentForBlock { key, span, path } => out.push(
                    Diagnostic::new(
                        "FP019",
                        Severity::Error,
                        format!("`{key}` is a block, not an argument"),
                        *span,
                    )
                    .with_label("written as an argument")
                    .with_path(path.clone())
                    .with_help(format!(
                        "write one `{key} {{ ... }}` block per item instead of `{key} = ...`"
                    )),
                ),
                // The tool reads it; fplint and schema-driven editors do not.
                SchemaFinding::WrongCase {
                    key,
                    field,
                    span,
                    path,
                } => out.push(
                    Diagnostic::new(
                        "FP019",
                        Severity::Warning,
                        format!("field `{key}` is spelt `{field}`"),
                        *span,
                    )
                    .with_label("another case")
                    .with_path(path.clone())
                    .with_help(format!(
                        "write `{field}`: eksctl matches keys ignoring case, but fplint reads `{field}` only, so nothing under this key is checked"
                    )),
                ),
                SchemaFinding::InvalidValue { .. } | SchemaFinding::NoSuchKind { .. } => {}
            }
        }
    }
}
