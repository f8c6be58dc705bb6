//! Infrastructure programs (AWS CDK, Pulumi) read as source: each language's
//! reader lowers to [`syntax`], which the evaluator and the construct readers
//! share.

pub mod python;
pub mod syntax;

use crate::diagnostic::Diagnostic;

/// A lowered file and the syntax errors found in it.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The file's statements.
    pub module: syntax::Module,
    /// Syntax errors, each an FP000 at its place.
    pub diagnostics: Vec<Diagnostic>,
}
