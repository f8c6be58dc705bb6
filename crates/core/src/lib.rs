//! fplint's core: the source map and spans, the spanned document tree, the
//! cluster model and one frontend per format.

pub mod compact;
pub mod diagnostic;
pub mod edit;
pub mod frontend;
pub mod glob;
pub mod join;
pub mod model;
pub mod placement;
pub mod schema;
pub mod source;
pub mod sources;
pub mod stack;
pub mod tree;
pub mod value;
pub mod workload;

pub use diagnostic::{Applicability, Change, Diagnostic, Fix, Related, Severity};
pub use source::{FileId, LineCol, SourceFile, SourceMap, Span};
