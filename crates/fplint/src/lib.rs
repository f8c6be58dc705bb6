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
//! [`Linter::check_paths`] lints a tree on disk as `fplint check` does, and
//! [`Linter::fix_paths`] applies the findings' fixes.
//!
//! Diagnostics are plain data ([`Diagnostic`]): a code, a severity, a
//! message, a byte span and related spans. The [`render`] module turns a
//! [`Report`] into the human, JSON, SARIF, GitHub and concise formats.
//!
//! The crates below this one keep their jobs: [`fplint_core`] (re-exported as
//! [`core`]) reads files into the cluster model, and [`fplint_rules`]
//! (re-exported as [`rules`]) holds the rules and their registry.

#![warn(missing_docs)]

mod assembled;
pub mod assign;
pub mod baseline;
pub mod charts;
pub mod config;
pub mod context;
mod declared;
pub mod fix;
pub mod fs;
pub mod kustomize;
pub mod lint;
pub mod modules;
pub mod named;
pub mod notice;
mod pipeline;
pub mod placement;
pub mod placement_diff;
pub mod plan;
pub mod render;
pub mod revision;
pub mod select;
pub mod stdin;
pub mod suppress;
mod terragrunt;
pub mod walk;
mod workspace;

pub use fplint_core as core;
pub use fplint_core::{Diagnostic, Severity};
pub use fplint_rules as rules;

pub use config::{Config, ConfigError};
pub use lint::{ConfigChoice, Loaded, Options, Report};
pub use notice::{Notice, NoticeKind};
pub use workspace::Workspace;

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The global allocator fplint's binary uses, for binaries built on this
/// library that want the same speed (`#[global_allocator]`).
#[cfg(feature = "mimalloc")]
pub mod allocator {
    use libmimalloc_sys as mi;
    use std::alloc::{GlobalAlloc, Layout};
    use std::ffi::c_void;

    /// mimalloc, which makes the 100 MB benchmark about 15% faster. Unlike
    /// the `mimalloc` crate's allocator, an ordinary alignment takes
    /// mimalloc's plain entry points, as C's `malloc` does, rather than its
    /// aligned ones: most of a run's allocations are small nodes and strings.
    pub struct Global;
    /// The allocator value to install.
    pub const GLOBAL: Global = Global;

    /// What `mi_malloc` guarantees (`MI_MAX_ALIGN_SIZE`): any block of at
    /// least this many bytes is aligned to it, and a smaller block to its
    /// size rounded up to a word.
    const MIN_ALIGN: usize = 16;

    /// Whether `mi_malloc` of `size` bytes is aligned enough for `align`.
    fn plain(size: usize, align: usize) -> bool {
        align <= MIN_ALIGN && align <= size
    }

    // SAFETY: each function forwards to mimalloc, which returns blocks of at
    // least the size asked and aligned as `plain` says, or as asked through
    // its aligned functions; every block is freed by `mi_free`.
    unsafe impl GlobalAlloc for Global {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let p = if plain(layout.size(), layout.align()) {
                mi::mi_malloc(layout.size())
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align())
            };
            p as *mut u8
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let p = if plain(layout.size(), layout.align()) {
                mi::mi_zalloc(layout.size())
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align())
            };
            p as *mut u8
        }

        #[inline]
        unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
            mi::mi_free(ptr as *mut c_void)
        }

        #[inline]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let p = if plain(new_size, layout.align()) {
                mi::mi_realloc(ptr as *mut c_void, new_size)
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align())
            };
            p as *mut u8
        }
    }

    /// `mi_option_purge_delay` in mimalloc 3's option enum: the bindings name
    /// the options around it, not this one (a test checks its default).
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

    /// Give freed memory back to the system after 100 ms rather than
    /// mimalloc's default second. A run drops each file's trees once it is
    /// modelled; with the default their pages stay resident to the end of a
    /// short run (100 MB tree: about 25 MB less at the peak). Call it early
    /// in `main`. `MIMALLOC_PURGE_DELAY` in the environment still wins.
    pub fn return_memory_sooner() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: an option may be set at any time; mimalloc reads this one
        // whenever it schedules a purge.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 100) }
    }

    #[cfg(test)]
    mod tests {
        use std::alloc::{GlobalAlloc, Layout};

        #[test]
        fn blocks_are_aligned_as_asked() {
            let a = super::GLOBAL;
            for size in [1usize, 3, 8, 12, 16, 24, 40, 100, 1000, 5000, 70_000] {
                for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
                    let Ok(layout) = Layout::from_size_align(size, align) else {
                        continue;
                    };
                    // SAFETY: a non-zero size; each block is freed once.
                    unsafe {
                        let p = a.alloc(layout);
                        assert!(
                            !p.is_null() && (p as usize).is_multiple_of(align),
                            "{size} {align}"
                        );
                        p.write_bytes(7, size);
                        let q = a.realloc(p, layout, size * 3);
                        assert!(
                            !q.is_null() && (q as usize).is_multiple_of(align),
                            "{size} {align}"
                        );
                        assert_eq!(*q.add(size - 1), 7);
                        a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                        let z = a.alloc_zeroed(layout);
                        assert!((z as usize).is_multiple_of(align) && *z.add(size - 1) == 0);
                        a.dealloc(z, layout);
                    }
                }
            }
        }

        /// `plain` leans on mimalloc's size classes: every block of a
        /// class, not only the first of a page, must be aligned to 16.
        #[test]
        fn every_plain_block_of_a_size_class_is_aligned() {
            let a = super::GLOBAL;
            for size in (1usize..=1024).chain([4095, 4096, 70_000]) {
                let align = size.next_power_of_two().min(super::MIN_ALIGN);
                let Ok(layout) = Layout::from_size_align(size, align) else {
                    continue;
                };
                // SAFETY: non-zero sizes; each block is freed once.
                let held: Vec<*mut u8> = (0..100).map(|_| unsafe { a.alloc(layout) }).collect();
                for &p in &held {
                    assert!(
                        !p.is_null() && (p as usize).is_multiple_of(align),
                        "{size} {align}"
                    );
                }
                for p in held {
                    unsafe { a.dealloc(p, layout) };
                }
            }
        }

        #[test]
        fn the_purge_delay_option_is_the_one_set() {
            // mimalloc 3's default purge delay, so index 15 is that option.
            // SAFETY: reading an option has no precondition.
            let delay = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
            if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
                assert_eq!(delay, 1000);
            }
        }
    }
}

/// A configured linter: the configuration in force and the run's options.
///
/// Building one does no I/O beyond reading the config file; each check walks
/// and models afresh.
#[derive(Debug, Default, Clone)]
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

    /// A linter for one file's text read from stdin, with the configuration
    /// a file of that name would find (the working folder's without a name).
    pub fn for_stdin(name: Option<&str>, choice: &ConfigChoice) -> Result<Linter, ConfigError> {
        let folder = name
            .and_then(|n| Path::new(n).parent())
            .filter(|p| p.is_dir())
            .unwrap_or(Path::new("."));
        Linter::with_choice(&[folder], choice)
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

    /// The baseline in force: `given` (`--baseline`), else the
    /// configuration's `baseline`.
    pub fn baseline_path(&self, given: Option<&Path>) -> Option<PathBuf> {
        given
            .map(Path::to_path_buf)
            .or_else(|| self.config.baseline.clone())
    }

    /// The baseline step of `fplint check`: with `write`, writes every
    /// finding there and returns what to say and the exit code; else
    /// applies the baseline in force ([`Linter::baseline_path`]), if any.
    pub fn settle_baseline(
        &self,
        report: &mut Report,
        write: Option<&Path>,
        given: Option<&Path>,
    ) -> Result<Option<(String, u8)>, baseline::BaselineError> {
        if let Some(path) = write {
            return baseline::write_and_say(report, path).map(Some);
        }
        match self.baseline_path(given) {
            Some(path) => self.apply_baseline(report, &path).map(|()| None),
            None => Ok(None),
        }
    }

    /// Hides the findings of `report` that the baseline at `path` accepts.
    /// Entries that match nothing are FP100 findings when FP100 is selected.
    pub fn apply_baseline(
        &self,
        report: &mut Report,
        path: &Path,
    ) -> Result<(), baseline::BaselineError> {
        let (accepted, text) = baseline::read(path)?;
        let stale = pipeline::check::selection(&self.options, &self.config)
            .enabled(crate::suppress::UNUSED);
        baseline::apply(report, &accepted, path, &text, stale);
        let sources = report.sources.clone();
        pipeline::report::sort(&mut report.diagnostics, &sources);
        Ok(())
    }

    /// Walk `paths`, model every file, run the rules and apply suppressions.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("fplint.toml"), "ignore = [\"FP001\"]\n")?;
    /// std::fs::write(dir.path().join("cluster.yaml"), "\
    /// apiVersion: eksctl.io/v1alpha5
    /// kind: ClusterConfig
    /// metadata: { name: demo, region: eu-west-1 }
    /// fargateProfiles:
    ///   - name: system
    ///     selectors:
    ///       - namespace: kube-system
    ///         labels: { k8s-app: kube-dns }
    /// ")?;
    /// let linter = fplint::Linter::discover(&[dir.path()])?;
    /// let report = linter.check_paths(&[dir.path()]);
    /// assert_eq!(report.files_scanned, 1);
    /// // FP001 is ignored by the configuration found beside the file.
    /// assert!(report.diagnostics().iter().all(|d| d.code != "FP001"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn check_paths<P: AsRef<Path>>(&self, paths: &[P]) -> Report {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
        lint::run_with_config(&paths, &self.options, &self.config)
    }

    /// Walk and model `paths` once, and keep the project for checks after
    /// each change: a [`Workspace`], which re-models only the units a
    /// change touches (for editors and servers). Its [`Workspace::check`]
    /// reports what [`Linter::check_paths`] would over the same files.
    pub fn open<P: AsRef<Path>>(&self, paths: &[P]) -> Workspace {
        let paths: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
        Workspace::open(self.clone(), paths)
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

    /// Lint one file's text as `check` lints a file of that name.
    ///
    /// When the linter has a configuration file and `name` lies in its
    /// folder, that folder is the file's project: it is read as context
    /// (the file's Terraform module, the clusters its manifests run on) with
    /// `text` in the file's place, and the findings in that file are
    /// returned. Otherwise nothing is read from the file system. `name`
    /// decides the format (`.tf` is Terraform; YAML and JSON are recognised
    /// by content).
    pub fn check_source(&self, name: &str, text: &str) -> Report {
        if let Some(root) = self.project_of(Path::new(name)) {
            let path = Path::new(name);
            let mut options = self.options.clone();
            options.overlays.insert(path.to_path_buf(), Arc::from(text));
            let mut report = lint::run_with_config(&[root], &options, &self.config);
            let id = report.sources.lookup(path);
            report.diagnostics.retain(|d| Some(d.span.file) == id);
            return report;
        }
        lint::lint_bytes_with_config(name, text.as_bytes(), &self.options, &self.config)
    }

    /// Lint a file's bytes read from stdin, as `fplint check -
    /// --stdin-filename NAME` does: `name` decides the format and, when the
    /// file exists, it is checked as if named on the command line with this
    /// text in its place (its Terraform module and its project's clusters as
    /// context, findings in it only). Without a name (shown as `-`), or for a
    /// file not on disk, nothing else is read.
    pub fn check_stdin(&self, name: Option<&str>, bytes: &[u8]) -> Report {
        match (name, std::str::from_utf8(bytes)) {
            (Some(n), Ok(text)) if Path::new(n).is_file() => {
                let path = PathBuf::from(n);
                let mut options = self.options.clone();
                options.overlays.insert(path.clone(), Arc::from(text));
                lint::run_with_config(&[path], &options, &self.config)
            }
            (n, _) => {
                lint::lint_bytes_with_config(n.unwrap_or("-"), bytes, &self.options, &self.config)
            }
        }
    }

    /// The folder of this linter's configuration file, as a path to walk
    /// from here, if `file` lies in it.
    fn project_of(&self, file: &Path) -> Option<PathBuf> {
        let base = self.config.base_dir()?;
        let name = file.file_name()?;
        let parent = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        parent
            .canonicalize()
            .ok()?
            .join(name)
            .strip_prefix(&base)
            .ok()?;
        // Relative to the working folder when it can be, as `check` shows paths.
        let here = std::env::current_dir().ok()?.canonicalize().ok()?;
        Some(match base.strip_prefix(&here) {
            Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
            Ok(rel) => rel.to_path_buf(),
            Err(_) => base,
        })
    }
}
