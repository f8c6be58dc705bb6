//! fplint's core: the source map and spans, the spanned document tree, the
//! cluster model and one frontend per format.
//!
//! A frontend reads one unit (a YAML/JSON file, or a Terraform module
//! folder) into a [`frontend::UnitOutput`]; [`frontend::absorb`] moves units
//! into one [`model::Project`], which the rules of `fplint-rules` read.
//! Every value of the model is [`model::Known`] or unknown, and every node
//! keeps the byte [`Span`] it was read from.
//!
//! ```
//! use fplint_core::{frontend, model::Project, tree::Limits, FileId, SourceFile};
//!
//! let file = SourceFile::new(FileId(0), "cluster.yaml", "\
//! apiVersion: eksctl.io/v1alpha5
//! kind: ClusterConfig
//! metadata: { name: demo, region: eu-west-1 }
//! fargateProfiles:
//!   - name: apps
//!     selectors:
//!       - namespace: shop
//! ");
//! let unit = frontend::load_document_file(&file, Limits::default());
//! let mut project = Project::default();
//! let problems = frontend::absorb(&mut project, unit);
//! assert!(problems.is_empty());
//!
//! let cluster = &project.clusters[0];
//! assert_eq!(cluster.name.known().map(String::as_str), Some("demo"));
//! let profile = &cluster.fargate_profiles[0];
//! assert_eq!(file.slice(profile.name.loc.span), "apps");
//! ```

pub mod compact;
pub mod diagnostic;
pub mod edit;
pub mod frontend;
pub mod glob;
pub mod join;
pub mod model;
pub mod path;
pub mod placement;
pub mod schema;
pub mod source;
pub mod sources;
pub mod stack;
#[cfg(test)]
mod test_rng;
pub mod tree;
pub mod value;
pub mod workload;

pub use diagnostic::{Applicability, Change, Diagnostic, Fix, Related, Severity};
pub use source::{FileId, LineCol, SourceFile, SourceMap, Span};
