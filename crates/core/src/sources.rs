//! The files of one run, shared between threads: read once, confined to the
//! trees the user named, and addressed by [`FileId`].

use crate::source::{FileId, SourceFile};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read `{path}`: {reason}")]
    Io { path: String, reason: String },
    #[error("`{path}` is outside the linted tree")]
    OutsideTree { path: String },
    #[error("`{path}` is {size} bytes, over the limit of {limit} bytes")]
    TooLarge { path: String, size: u64, limit: u64 },
    #[error("`{path}` is not UTF-8 text")]
    NotText { path: String },
}

/// Thread-safe registry of every file read in a run.
#[derive(Debug)]
pub struct Sources {
    files: RwLock<Vec<Arc<SourceFile>>>,
    by_path: Mutex<HashMap<PathBuf, FileId>>,
    /// Canonical forms of folders, as reached.
    dirs: Mutex<HashMap<PathBuf, PathBuf>>,
    /// Canonical roots that reads must stay under; empty means no confinement.
    roots: Vec<PathBuf>,
    pub max_file_size: u64,
}

impl Default for Sources {
    fn default() -> Self {
        Sources::new(Vec::new())
    }
}

/// Default cap on one file: large enough for CDK-synthesised templates.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 50 * 1024 * 1024;

impl Sources {
    pub fn new(roots: Vec<PathBuf>) -> Sources {
        let roots = roots
            .into_iter()
            .map(|r| r.canonicalize().unwrap_or(r))
            .collect();
        Sources {
            files: RwLock::new(Vec::new()),
            by_path: Mutex::new(HashMap::new()),
            dirs: Mutex::new(HashMap::new()),
            roots,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }

    /// Register text that did not come from disk (tests, fuzzing, stdin).
    pub fn add_text(
        &self,
        display: impl Into<String>,
        text: impl Into<Arc<str>>,
    ) -> Arc<SourceFile> {
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        let id = FileId(u32::try_from(files.len()).unwrap_or(u32::MAX));
        let f = Arc::new(SourceFile::new(id, display, text));
        files.push(f.clone());
        f
    }

    /// Read a file once; later calls with the same path return the same file.
    /// `display` is the path as the user reached it, `/`-separated.
    pub fn load(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        let display = display_path(path);
        let canonical = self.canonical(path).map_err(|e| LoadError::Io {
            path: display.clone(),
            reason: e.to_string(),
        })?;
        if !self.roots.is_empty() && !self.roots.iter().any(|r| canonical.starts_with(r)) {
            return Err(LoadError::OutsideTree { path: display });
        }
        if let Some(id) = self.lock_paths().get(&canonical).copied() {
            if let Some(f) = self.get(id) {
                return Ok(f);
            }
        }
        let meta = std::fs::metadata(&canonical).map_err(|e| LoadError::Io {
            path: display.clone(),
            reason: e.to_string(),
        })?;
        if !meta.is_file() {
            return Err(LoadError::Io {
                path: display,
                reason: "not a regular file".into(),
            });
        }
        if meta.len() > self.max_file_size {
            return Err(LoadError::TooLarge {
                path: display,
                size: meta.len(),
                limit: self.max_file_size,
            });
        }
        let bytes = std::fs::read(&canonical).map_err(|e| LoadError::Io {
            path: display.clone(),
            reason: e.to_string(),
        })?;
        let text = String::from_utf8(bytes).map_err(|_| LoadError::NotText {
            path: display.clone(),
        })?;
        let text = text
            .strip_prefix('\u{feff}')
            .map(str::to_owned)
            .unwrap_or(text);
        let mut paths = self.lock_paths();
        if let Some(id) = paths.get(&canonical).copied() {
            drop(paths);
            if let Some(f) = self.get(id) {
                return Ok(f);
            }
            paths = self.lock_paths();
        }
        let f = self.add_text(display, text);
        paths.insert(canonical, f.id);
        Ok(f)
    }

    /// `canonicalize` costs a `readlink` per path component; a folder's
    /// canonical form is computed once and reused for its regular files.
    fn canonical(&self, path: &Path) -> std::io::Result<PathBuf> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return path.canonicalize();
        };
        if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
            return path.canonicalize();
        }
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let cached = self.lock_dirs().get(parent).cloned();
        let dir = match cached {
            Some(d) => d,
            None => {
                let d = parent.canonicalize()?;
                self.lock_dirs().insert(parent.to_path_buf(), d.clone());
                d
            }
        };
        Ok(dir.join(name))
    }

    fn lock_dirs(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, PathBuf>> {
        self.dirs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_paths(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, FileId>> {
        self.by_path.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, id: FileId) -> Option<Arc<SourceFile>> {
        let files = self.files.read().unwrap_or_else(|e| e.into_inner());
        files.get(id.0 as usize).cloned()
    }

    /// Every file read so far.
    pub fn all(&self) -> Vec<Arc<SourceFile>> {
        self.files.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A path as shown to the user: lexically normalised, `/`-separated.
pub fn display_path(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut absolute = false;
    for c in path.components() {
        match c {
            Component::RootDir => absolute = true,
            Component::Prefix(p) => parts.push(p.as_os_str().to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.last().is_some_and(|p| p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..".into());
                }
            }
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".into()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_paths() {
        assert_eq!(display_path(Path::new("./a/b/../c.tf")), "a/c.tf");
        assert_eq!(display_path(Path::new("../x/./y.yaml")), "../x/y.yaml");
        assert_eq!(display_path(Path::new("/abs/./p")), "/abs/p");
    }
}
