//! fplint as a library: find the configuration, walk the files, model them,
//! run the rules, apply suppressions, and render the report.
//!
//! The [`Linter`] is the front door. It holds a resolved [`Config`] and the
//! run's [`Options`], and checks paths on disk or one file's text:
//!
//! ```
//! use fplint::Linter;
//!
//! let linter = Linter::default();
//! let text = "\
//! apiVersion: eksctl.io/v1alpha5
//! kind: ClusterConfig
//! metadata: { name: demo, region: eu-west-1 }
//! availabilityZones: [eu-west-1a, eu-west-1b]
//! fargateProfiles:
//!   - name: system
//!     selectors:
//!       - namespace: kube-system
//!         labels: { k8s-app: kube-dns }
//! ";
//! let report = linter.check_source("cluster.yaml", text);
//! let codes: Vec<&str> = report.diagnostics().iter().map(|d| d.code).collect();
//! assert!(codes.contains(&"FP001"));
//! assert_eq!(report.exit_code(), 1);
//! ```
//!
//! Diagnostics are plain data ([`Diagnostic`]): a code, a severity, a
//! message, a byte span and related spans. The [`render`] module turns a
//! [`Report`] into the human, JSON, SARIF, GitHub and concise formats.
//!
//! The crates below this one keep their jobs: [`fplint_core`] (re-exported as
//! [`core`]) reads files into the cluster model, and [`fplint_rules`]
//! (re-exported as [`rules`]) holds the rules and their registry.

pub mod assign;
pub mod config;
pub mod context;
pub mod fix;
pub mod fs;
pub mod kustomize;
pub mod lint;
pub mod modules;
pub mod named;
pub mod notice;
pub mod placement;
pub mod render;
pub mod suppress;
pub mod walk;

pub use fplint_core as core;
pub use fplint_core::{Diagnostic, Severity};
pub use fplint_rules as rules;

pub use config::{Config, ConfigError};
pub use lint::{ConfigChoice, Loaded, Options, Report};
pub use notice::{Notice, NoticeKind};

use std::path::{Path, PathBuf};

/// The global allocator fplint's binary uses, for binaries built on this
/// library that want the same speed (`#[global_allocator]`).
#[cfg(feature = "mimalloc")]
pub mod allocator {
    /// mimalloc, which makes the 100 MB benchmark about 15% faster.
    pub type Global = mimalloc::MiMalloc;
    /// The allocator value to install.
    pub const GLOBAL: Global = mimalloc::MiMalloc;
}

/// A configured linter: the configuration in force and the run's options.
///
/// Building one does no I/O beyond reading the config file; each check walks
/// and models afresh.
#[derive(Debug, Default)]
pub struct Linter {
    config: Config,
    options: Options,
}

impl Linter {
    /// A linter with this configuration and default options.
    pub fn new(config: Config) -> Linter {
        Linter {
            config,
            options: Options::default(),
        }
    }

    /// A linter with the `fplint.toml` (or `.fplint.toml`) found in the first
    /// path's folder or its ancestors, or the default configuration if none.
    pub fn discover<P: AsRef<Path>>(paths: &[P]) -> Result<Linter, ConfigError> {
        Linter::with_choice(paths, &ConfigChoice::Discover)
    }

    /// A linter whose configuration comes as `choice` says: discovered from
    /// `paths`, read from one file, or none at all.
    pub fn with_choice<P: AsRef<Path>>(
        paths: &[P],
        choice: &ConfigChoice,
    ) -> Result<Linter, ConfigError> {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
        let config = lint::resolve_config(&paths, choice)?;
        let options = Options {
            config: choice.clone(),
            ..Options::default()
        };
        Ok(Linter { config, options })
    }

    /// The same linter with these options (rule selection, `fail-on`,
    /// limits). Options given here win over the configuration file.
    #[must_use]
    pub fn with_options(mut self, options: Options) -> Linter {
        self.options = options;
        self
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Walk `paths`, model every file, run the rules and apply suppressions.
    pub fn check_paths<P: AsRef<Path>>(&self, paths: &[P]) -> Report {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
        lint::run_with_config(&paths, &self.options, &self.config)
    }

    /// Model `paths` without running the rules: the project model, for
    /// views such as [`placement`].
    pub fn load<P: AsRef<Path>>(&self, paths: &[P]) -> Loaded {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
        lint::load(&paths, &self.options, &self.config)
    }

    /// Lint `paths`, apply the fixes `fix` allows in passes until nothing
    /// changes, write the changed files atomically (unless `fix.dry_run`),
    /// and report what remains. See [`fix`].
    pub fn fix_paths<P: AsRef<Path>>(&self, paths: &[P], fix: fix::FixOptions) -> fix::FixOutcome {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
        fix::fix_paths(&paths, &self.options, &self.config, fix)
    }

    /// Lint one file's text, as `check` lints a file of that name, without
    /// reading the file system. `name` decides the format (`.tf` is
    /// Terraform; YAML and JSON are recognised by content).
    pub fn check_source(&self, name: &str, text: &str) -> Report {
        lint::lint_bytes_with_config(name, text.as_bytes(), &self.options, &self.config)
    }
}
