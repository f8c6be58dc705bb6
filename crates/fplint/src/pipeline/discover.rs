//! Stage 1, discover: the configuration in force, and what the walk and
//! the named files' projects give to lint (see [`crate::walk`] and
//! [`crate::context`]).

use super::Options;
use crate::config::{self, Config, ConfigError};
use crate::notice::{Notice, NoticeKind};
use crate::walk::Walked;
use std::path::{Path, PathBuf};

/// Where the configuration comes from.
#[derive(Debug, Clone, Default)]
pub enum ConfigChoice {
    /// The nearest `fplint.toml` or `.fplint.toml` above the first path.
    #[default]
    Discover,
    /// This file.
    File(PathBuf),
    /// None: the defaults.
    Disabled,
}

impl ConfigChoice {
    /// The choice of the command line's `--no-config` and `--config FILE`.
    pub fn from_flags(no_config: bool, config: Option<PathBuf>) -> ConfigChoice {
        match (no_config, config) {
            (true, _) => ConfigChoice::Disabled,
            (false, Some(f)) => ConfigChoice::File(f),
            (false, None) => ConfigChoice::Discover,
        }
    }
}

/// The configuration `choice` names, discovered from the first path.
pub fn resolve_config(paths: &[PathBuf], choice: &ConfigChoice) -> Result<Config, ConfigError> {
    match choice {
        ConfigChoice::Disabled => Ok(Config::default()),
        ConfigChoice::File(f) => config::load(f),
        ConfigChoice::Discover => {
            let start = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
            match config::discover(&start) {
                Some(f) => config::load(&f),
                None => Ok(Config::default()),
            }
        }
    }
}

/// `exclude` of the configuration, with the folder its globs start at.
pub(crate) fn exclude_of<'a>(
    cfg: &'a Config,
    base: &'a Option<PathBuf>,
) -> Option<(&'a globset::GlobSet, &'a Path)> {
    match (&cfg.exclude, base) {
        (Some(set), Some(dir)) => Some((set, dir.as_path())),
        _ => None,
    }
}

/// The context of the named files among `walked`, when the options ask for it.
pub(crate) fn context_of(
    walked: &Walked,
    opts: &Options,
    cfg: &Config,
    base: &Option<PathBuf>,
) -> crate::context::Context {
    if opts.project_context {
        let anywhere = cfg.clusters.values().any(|o| !o.paths.is_empty());
        crate::context::candidates_sharing(
            &walked.files,
            exclude_of(cfg, base),
            anywhere,
            walked.canonical_paths.clone(),
        )
    } else {
        crate::context::Context::default()
    }
}

/// The folders reads are confined to: each path (a file's folder, as
/// `is_file` tells), and the named files' project roots.
pub(crate) fn roots_of(
    paths: &[PathBuf],
    context: &[PathBuf],
    is_file: impl Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    paths
        .iter()
        .map(|p| {
            if is_file(p) {
                p.parent()
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            } else {
                p.clone()
            }
        })
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p
            }
        })
        .chain(context.iter().cloned())
        .collect()
}

/// The note for files the walk skipped as hidden, saying how to read them.
pub(crate) fn hidden_notice(hidden: usize) -> Option<Notice> {
    (hidden > 0).then(|| {
        let files = if hidden == 1 { "file" } else { "files" };
        Notice::new(
            NoticeKind::Hidden,
            None,
            format!(
                "{hidden} YAML, JSON or Terraform {files} in hidden files or folders not linted"
            ),
        )
        .with_help("`fplint check --hidden` reads hidden files and folders (`.git` excepted)")
    })
}

/// The notes for paths that hold nothing to lint.
pub(crate) fn empty_notices(empty: &[PathBuf]) -> Vec<Notice> {
    empty
        .iter()
        .map(|p| {
            Notice::new(
                NoticeKind::NothingToLint,
                Some(fplint_core::sources::display_path(p)),
                "no YAML, JSON or Terraform file here to lint",
            )
        })
        .collect()
}
