//! fplint's rules: one file per rule under `rules/`, one table in [`registry`].
//!
//! A [`Rule`] reads the whole project model of `fplint-core` and appends
//! [`Diagnostic`]s; [`REGISTRY`] lists every rule with its code, severity,
//! formats and embedded documentation. The `fplint` crate runs them, with
//! configuration and suppressions; running them by hand looks like this:
//!
//! ```
//! use fplint_core::{frontend, model::Project, tree::Limits, FileId, SourceFile};
//! use fplint_rules::{Context, Settings, REGISTRY};
//!
//! let file = SourceFile::new(FileId(0), "cluster.yaml", "\
//! apiVersion: eksctl.io/v1alpha5
//! kind: ClusterConfig
//! metadata: { name: demo, region: eu-west-1 }
//! availabilityZones: [eu-west-1a, eu-west-1b]
//! fargateProfiles:
//!   - name: system
//!     selectors:
//!       - namespace: kube-system
//!         labels: { k8s-app: kube-dns }
//! ");
//! let mut project = Project::default();
//! frontend::absorb(&mut project, frontend::load_document_file(&file, Limits::default()));
//!
//! let settings = Settings::default();
//! let ctx = Context { project: &project, settings: &settings, only: None };
//! let mut found = Vec::new();
//! for rule in REGISTRY.iter().filter_map(|r| r.rule) {
//!     rule.check(&ctx, &mut found);
//! }
//! assert!(found.iter().any(|d| d.code == "FP001"));
//! assert_eq!(fplint_rules::find("FP001").map(|r| r.name), Some("coredns-selector-labels"));
//! ```

#![warn(missing_docs)]

pub mod charts;
pub mod common;
pub mod registry;
pub mod rules;

use fplint_core::model::Project;
use fplint_core::Diagnostic;

pub use registry::{find, RuleInfo, REGISTRY};

/// The raised (or default) AWS service quotas for Fargate profiles.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Quotas {
    /// Fargate profiles per cluster (default 10).
    pub profiles_per_cluster: usize,
    /// Selectors per Fargate profile (default 5).
    pub selectors_per_profile: usize,
    /// Labels per selector (default 5).
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
    /// The eksctl version that creates the clusters (`[tools] eksctl-version`).
    pub eksctl_version: Option<String>,
    /// The Karpenter version installed (`[tools] karpenter-version`).
    pub karpenter_version: Option<String>,
}

/// What the rules may read besides the model.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// The quotas FP004 checks against.
    pub quotas: Quotas,
    /// The tool versions the user told fplint.
    pub tools: Tools,
}

/// What a rule reads: the project model and the settings.
pub struct Context<'a> {
    /// The model of everything linted, clusters assigned.
    pub project: &'a Project,
    /// The settings from the configuration.
    pub settings: &'a Settings,
    /// Check only the cluster at this index of `project.clusters` (an
    /// incremental re-check reruns a rule for the clusters a change
    /// touched); rules in [`PROJECT_WIDE`] ignore it.
    pub only: Option<usize>,
}

impl<'a> Context<'a> {
    /// The clusters to check: all of them, or the one [`Context::only`] names.
    pub fn clusters(&self) -> impl Iterator<Item = &'a fplint_core::model::Cluster> + 'a {
        let all: &'a [Box<fplint_core::model::Cluster>] = &self.project.clusters;
        let picked = match self.only {
            None => all,
            Some(i) => all.get(i..=i).unwrap_or(&[]),
        };
        picked.iter().map(|c| &**c)
    }
}

/// Rules that read more than one cluster at a time, or none (Karpenter
/// objects, pod identities, all workloads, schema findings): they run over
/// the whole project. Every other rule reads one cluster at a time, with
/// its workloads, `aws-auth` maps and dependency graphs, and its findings
/// for a cluster depend on nothing else, so each can be rerun for one
/// cluster through [`Context::only`].
pub const PROJECT_WIDE: &[&str] = &["FP013", "FP017", "FP018", "FP019", "FP020"];

/// A check over the whole project model.
pub trait Rule: Sync + Send {
    /// Append the rule's findings over `ctx` to `out`, in any order (the
    /// pipeline sorts them).
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>);
}
