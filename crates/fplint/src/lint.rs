//! The lint pipeline's front: the names `fplint::lint` has always offered,
//! over the stages of the pipeline (discover, plan, model, assemble,
//! check, report). Rendering is left to the caller.

pub use crate::pipeline::check::{check_loaded, Selection};
pub use crate::pipeline::discover::{resolve_config, ConfigChoice};
pub use crate::pipeline::report::Report;
pub use crate::pipeline::{
    in_pool, lint_bytes, lint_bytes_with_config, load, run, run_with_config, Loaded, Options,
};

pub(crate) use crate::pipeline::assemble::{cap_cluster, override_cluster};
pub(crate) use crate::pipeline::check::{selection, settings, weigh_unassigned};
pub(crate) use crate::pipeline::discover::{
    context_of, empty_notices, exclude_of, hidden_notice, roots_of,
};
pub(crate) use crate::pipeline::model::{model_unit, release_texts, Modelled};
pub(crate) use crate::pipeline::plan::{choose_shown, module_folders, plan_with, Job};
pub(crate) use crate::pipeline::report::report_with;
