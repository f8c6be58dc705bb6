//! The `fplint` command line as a library: the lint pipeline, configuration
//! and the renderers. The binary in `main.rs` only parses arguments.

pub mod config;
pub mod lint;
pub mod placement;
pub mod render;
pub mod suppress;
pub mod walk;

pub use lint::{run, ConfigChoice, Options, Outcome};
