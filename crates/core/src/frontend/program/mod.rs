//! Infrastructure programs (AWS CDK, Pulumi) read as source: each language's
//! reader lowers to [`syntax`], which the evaluator and the construct readers
//! share.

pub mod python;
pub mod syntax;
