//! One workspace folder's project, checked with the editor's unsaved texts
//! in place of the files on disk.
//!
//! The operations are those of the library's incremental `Workspace`
//! (`Linter::open`, `check`, `set_overlay`, `remove_overlay`,
//! `file_changed`, `rescan`), so switching to it is a change here only.
//! Until then each check walks and models the folder afresh.

use fplint::{Linter, Options, Report};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A folder's project and the overlays on it.
pub struct Engine {
    linter: Linter,
    root: PathBuf,
    overlays: HashMap<PathBuf, Arc<str>>,
}

impl Engine {
    /// The project under `root`, with `linter`'s configuration.
    pub fn open(linter: Linter, root: PathBuf) -> Engine {
        Engine {
            linter,
            root,
            overlays: HashMap::new(),
        }
    }

    /// The folder this engine checks.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Lint the folder as it is now, overlays in their files' place.
    pub fn check(&self) -> Report {
        let options = Options {
            overlays: self.overlays.clone(),
            ..self.linter.options().clone()
        };
        self.linter
            .clone()
            .with_options(options)
            .check_paths(std::slice::from_ref(&self.root))
    }

    /// Read `path` from `text` instead of the disk; `false` if the path is
    /// not under this folder.
    pub fn set_overlay(&mut self, path: &Path, text: Arc<str>) -> bool {
        if !path.starts_with(&self.root) {
            return false;
        }
        self.overlays.insert(path.to_path_buf(), text);
        true
    }

    /// The file on disk counts again.
    pub fn remove_overlay(&mut self, path: &Path) {
        self.overlays.remove(path);
    }

    /// `path` changed on disk; `false` if it is not under this folder.
    /// Each check reads the disk anew, so there is nothing to forget yet.
    pub fn file_changed(&mut self, path: &Path) -> bool {
        path.starts_with(&self.root)
    }

    /// Files were added or removed: each check walks anew, so nothing to do.
    pub fn rescan(&mut self) {}
}
