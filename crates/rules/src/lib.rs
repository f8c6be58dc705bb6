//! fplint's rules: one file per rule under `rules/`, one table in [`registry`].

pub mod common;
pub mod registry;
pub mod rules;

use fplint_core::model::Project;
use fplint_core::Diagnostic;

pub use registry::{find, RuleInfo, REGISTRY};

/// The raised (or default) AWS service quotas for Fargate profiles.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Quotas {
    pub profiles_per_cluster: usize,
    pub selectors_per_profile: usize,
    pub labels_per_selector: usize,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            profiles_per_cluster: 10,
            selectors_per_profile: 5,
            labels_per_selector: 5,
        }
    }
}

/// The tool versions a user declares in `[tools]`: facts that depend on a
/// version use them where the linted files do not say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tools {
    pub eksctl_version: Option<String>,
    pub karpenter_version: Option<String>,
}

/// What the rules may read besides the model.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub quotas: Quotas,
    pub tools: Tools,
}

pub struct Context<'a> {
    pub project: &'a Project,
    pub settings: &'a Settings,
}

/// A check over the whole project model.
pub trait Rule: Sync + Send {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>);
}
