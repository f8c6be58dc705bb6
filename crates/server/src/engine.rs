//! One workspace folder's project, checked with the editor's unsaved texts
//! in place of the files on disk.
//!
//! A thin layer over the library's incremental [`fplint::Workspace`]: it
//! keeps each unit's model and re-models only what a change touches. Paths
//! outside the folder belong to another engine (or to none).

use fplint::{Linter, Report, Workspace};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A folder's project and the overlays on it.
pub struct Engine {
    workspace: Workspace,
    root: PathBuf,
}

impl Engine {
    /// The project under `root`, with `linter`'s configuration; models it.
    pub fn open(linter: Linter, root: PathBuf) -> Engine {
        let workspace = linter.open(std::slice::from_ref(&root));
        Engine { workspace, root }
    }

    /// The folder this engine checks.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Lint the folder as it is now, overlays in their files' place.
    pub fn check(&self) -> Arc<Report> {
        self.workspace.check()
    }

    /// Read `path` from `text` instead of the disk; `false` if the path is
    /// not under this folder. A file the project does not read (excluded,
    /// or not a name fplint reads) is still this folder's: it gets no
    /// findings, as on the command line.
    pub fn set_overlay(&mut self, path: &Path, text: Arc<str>) -> bool {
        if !path.starts_with(&self.root) {
            return false;
        }
        self.workspace.set_overlay(path, text);
        true
    }

    /// The file on disk counts again.
    pub fn remove_overlay(&mut self, path: &Path) {
        self.workspace.remove_overlay(path);
    }

    /// `path` changed on disk; `false` if it is not under this folder.
    pub fn file_changed(&mut self, path: &Path) -> bool {
        if !path.starts_with(&self.root) {
            return false;
        }
        self.workspace.file_changed(path);
        true
    }

    /// Check with `linter` from now on (the configuration or settings
    /// changed), keeping the models of the files.
    pub fn reconfigure(&mut self, linter: Linter) {
        self.workspace.reconfigure(linter);
    }

    /// Files were added or removed: walk the folder again, unless each is
    /// a plain manifest that [`Engine::file_changed`] takes in as a walk
    /// would.
    pub fn rescan(&mut self, paths: &[PathBuf]) {
        let mine: Vec<PathBuf> = paths
            .iter()
            .filter(|p| p.starts_with(&self.root))
            .cloned()
            .collect();
        if mine.is_empty() || !self.workspace.walk_unneeded(&mine) {
            self.workspace.rescan();
        }
    }
}
