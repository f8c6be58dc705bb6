//! The files of one run, shared between threads: read once, confined to the
//! trees the user named, and addressed by [`FileId`].

use crate::source::{FileId, Fingerprint, SourceFile};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The file system refused (missing, a folder, no permission).
    #[error("cannot read `{path}`: {reason}")]
    Io { path: String, reason: String },
    /// A link leads out of the folders the user named.
    #[error("`{path}` is outside the linted tree")]
    OutsideTree { path: String },
    /// Larger than the limit.
    #[error("`{path}` is {size} bytes, over the limit of {limit} bytes (limits.max-file-size)")]
    TooLarge { path: String, size: u64, limit: u64 },
    /// Binary: NUL bytes near its start, as `git` and ripgrep tell binary files.
    #[error("`{path}` is a binary file, not text")]
    Binary { path: String },
    /// Not UTF-8.
    #[error("`{path}` is not UTF-8 text: invalid byte at offset {offset}")]
    NotText {
        path: String,
        /// Bytes before the first invalid one.
        offset: usize,
        /// The text with invalid bytes replaced, to locate the error and to
        /// tell whether the file was meant for fplint at all.
        lossy: Arc<str>,
    },
}

impl LoadError {
    /// What to do, when the error is a limit the configuration can raise.
    pub fn help(&self) -> Option<String> {
        match self {
            LoadError::TooLarge { .. } => {
                Some(crate::frontend::parse_help(&self.to_string(), "")).filter(|h| !h.is_empty())
            }
            _ => None,
        }
    }
}

/// Whether bytes are a binary file's: a NUL byte in the first 8000, the
/// test `git` and ripgrep use. No text format fplint reads holds one.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8000)].contains(&0)
}

/// Thread-safe registry of every file read in a run.
#[derive(Debug)]
pub struct Sources {
    files: RwLock<Vec<Arc<SourceFile>>>,
    /// Keyed by the canonical path's bytes: `Path`'s own hash walks its
    /// components, which showed in profiles of large trees.
    by_path: Mutex<FxHashMap<Arc<OsStr>, FileId>>,
    /// Canonical forms of folders, as reached.
    dirs: Arc<CanonicalPaths>,
    /// Canonical roots that reads must stay under; empty means no confinement.
    roots: Vec<PathBuf>,
    /// Where each file read from disk came from, to read a released text again.
    origins: Mutex<FxHashMap<FileId, Arc<OsStr>>>,
    /// Files whose text changed between the first read and a second one.
    changed: Mutex<Vec<String>>,
    /// Files the file system would not let fplint read.
    unreadable: Mutex<Vec<String>>,
    /// Texts that stand in for files on disk (an editor's unsaved buffers),
    /// by canonical path.
    overlays: Mutex<FxHashMap<Arc<OsStr>, Arc<str>>>,
    /// Bytes of files read already (the named files the project search
    /// sniffed), by canonical path: each is taken at its first load
    /// instead of reading the file again.
    preread: Mutex<FxHashMap<OsString, Vec<u8>>>,
    /// Largest file read, in bytes.
    pub max_file_size: u64,
    /// Texts that stand in for files on disk (a fix not yet written, an
    /// editor's unsaved buffer), keyed by canonical path. Never released.
    /// Where each file read from an overlay stands on disk.
    overlaid: Mutex<FxHashMap<FileId, Arc<OsStr>>>,
    /// The path a file the run reaches several ways is shown under, by
    /// canonical path (see [`Sources::choose_shown`]).
    chosen: RwLock<HashMap<Arc<OsStr>, String>>,
    /// The working folder, canonical, to tell a relative path that goes
    /// through a link.
    cwd: OnceLock<Option<PathBuf>>,
    /// Folders of the run's modules, set once planning knows them.
    module_folders: OnceLock<Vec<PathBuf>>,
    /// Which of those folders write each remote state, made on first use
    /// (see [`Sources::state_writers`]).
    state_writers: OnceLock<HashMap<String, Vec<PathBuf>>>,
    /// The same, over every folder under the roots (see
    /// [`Sources::state_writers_in_roots`]).
    root_state_writers: OnceLock<HashMap<String, Vec<PathBuf>>>,
    /// Lists the folders with `.tf` files under the roots, as the run's
    /// walk would (ignore files, excludes); see [`Sources::with_tf_folders`].
    tf_folders: Option<TfFolders>,
}

impl Default for Sources {
    fn default() -> Self {
        Sources::new(Vec::new())
    }
}

/// Default cap on one file: large enough for CDK-synthesised templates.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 50 * 1024 * 1024;

/// `paths` in path order without duplicates, and without those inside
/// another of them.
pub fn outermost(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort();
    paths.dedup();
    // In path order a folder's descendants follow it.
    let mut outer: Vec<PathBuf> = Vec::with_capacity(paths.len());
    for p in paths {
        if !outer.last().is_some_and(|o| p.starts_with(o)) {
            outer.push(p);
        }
    }
    outer
}

/// Canonical paths, each folder resolved once from its parent's: one
/// `lstat` per new folder instead of a `getcwd` and a `readlink` per
/// component of every path, as [`Path::canonicalize`] costs.
///
/// One set may serve a whole run (the walk, the named files' context and
/// [`Sources`]): what one asked of a path, the others need not ask again.
#[derive(Debug, Default)]
pub struct CanonicalPaths {
    dirs: Mutex<FxHashMap<OsString, PathBuf>>,
    /// Whether each file asked about as given is a link.
    links: Mutex<FxHashMap<OsString, bool>>,
}

impl CanonicalPaths {
    /// A file's canonical path. A `listed_file` (a regular file, as a
    /// folder's listing showed it) is not asked whether it is a link.
    pub fn file(&self, path: &Path, listed_file: bool) -> std::io::Result<PathBuf> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return path.canonicalize();
        };
        // `a/.` names `a` itself, which may be a link.
        if !path
            .as_os_str()
            .as_encoded_bytes()
            .ends_with(name.as_encoded_bytes())
        {
            return path.canonicalize();
        }
        if !listed_file && self.is_link(path)? {
            return path.canonicalize();
        }
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        // Joined under the lock when the folder is cached: one allocation,
        // not a copy of the folder's path and then another with the name.
        if let Some(d) = self.lock().get(parent.as_os_str()) {
            return Ok(joined(d, name));
        }
        Ok(joined(&self.dir(parent, 0)?, name))
    }

    /// A folder's canonical path.
    pub fn folder(&self, dir: &Path) -> std::io::Result<PathBuf> {
        if dir.as_os_str().is_empty() {
            return self.dir(Path::new("."), 0);
        }
        self.dir(dir, 0)
    }

    /// A folder's canonical form from its parent's, cached.
    fn dir(&self, dir: &Path, depth: usize) -> std::io::Result<PathBuf> {
        if let Some(d) = self.lock().get(dir.as_os_str()) {
            return Ok(d.clone());
        }
        let computed = match (dir.parent(), dir.file_name()) {
            (Some(parent), Some(name)) if depth < 256 && !parent.as_os_str().is_empty() => {
                if std::fs::symlink_metadata(dir)?.file_type().is_symlink() {
                    dir.canonicalize()?
                } else {
                    self.dir(parent, depth + 1)?.join(name)
                }
            }
            // The root, `.`, `..` and names ending in them: ask the system.
            _ => dir.canonicalize()?,
        };
        self.lock()
            .insert(dir.as_os_str().to_owned(), computed.clone());
        Ok(computed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<OsString, PathBuf>> {
        self.dirs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Record what a caller learnt of `path` from its own `lstat`.
    pub fn note_link(&self, path: &Path, link: bool) {
        self.links
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.as_os_str().to_owned(), link);
    }

    /// Whether the file at `path` is a link, asked once per path.
    fn is_link(&self, path: &Path) -> std::io::Result<bool> {
        let links = || self.links.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = links().get(path.as_os_str()) {
            return Ok(known);
        }
        let link = std::fs::symlink_metadata(path)?.file_type().is_symlink();
        links().insert(path.as_os_str().to_owned(), link);
        Ok(link)
    }
}

/// `dir.join(name)` for a plain file name, allocated once at its size.
fn joined(dir: &Path, name: &OsStr) -> PathBuf {
    let mut out = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    out.push(dir);
    out.push(name);
    out
}

/// Lists the folders with `.tf` files under some roots.
pub type ListFolders = dyn Fn(&[PathBuf]) -> Vec<PathBuf> + Send + Sync;

/// A [`ListFolders`] a [`Sources`] keeps (see [`Sources::with_tf_folders`]).
#[derive(Clone)]
pub struct TfFolders(pub Arc<ListFolders>);

impl std::fmt::Debug for TfFolders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TfFolders")
    }
}

impl Sources {
    /// A registry whose reads stay under `roots` (none: anywhere).
    pub fn new(mut roots: Vec<PathBuf>) -> Sources {
        // Named files of one folder give it once each: resolved once, and
        // each read checked against it once.
        roots.sort();
        roots.dedup();
        let roots: Vec<PathBuf> = roots
            .into_iter()
            .map(|r| r.canonicalize().unwrap_or(r))
            .collect();
        // A root inside another confines nothing more.
        let roots = outermost(roots);
        Sources {
            files: RwLock::new(Vec::new()),
            by_path: Mutex::new(FxHashMap::default()),
            dirs: Arc::default(),
            roots,
            origins: Mutex::new(FxHashMap::default()),
            changed: Mutex::new(Vec::new()),
            unreadable: Mutex::new(Vec::new()),
            overlays: Mutex::new(FxHashMap::default()),
            preread: Mutex::new(FxHashMap::default()),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            overlaid: Mutex::new(FxHashMap::default()),
            chosen: RwLock::new(HashMap::new()),
            cwd: OnceLock::new(),
            module_folders: OnceLock::new(),
            state_writers: OnceLock::new(),
            root_state_writers: OnceLock::new(),
            tf_folders: None,
        }
    }

    /// The folders of the run's modules (Terraform roots among them), as
    /// planning found them: where a root's remote state is looked for. Set
    /// once; a second call changes nothing.
    pub fn set_module_folders(&self, dirs: Vec<PathBuf>) {
        let _ = self.module_folders.set(dirs);
    }

    /// Which module folders write each remote state, by a key the caller
    /// chooses: `index` makes it from [`Sources::set_module_folders`]'s
    /// folders the first time it is asked for, so a run that reads no
    /// remote state pays nothing.
    pub fn state_writers(
        &self,
        index: impl FnOnce(&[PathBuf]) -> HashMap<String, Vec<PathBuf>>,
    ) -> &HashMap<String, Vec<PathBuf>> {
        self.state_writers
            .get_or_init(|| index(self.module_folders.get().map_or(&[], Vec::as_slice)))
    }

    /// [`Sources::state_writers`] over the roots reads are confined to (the
    /// projects of the paths linted): a root linted alone finds the root
    /// that writes its remote state elsewhere in its project. Asked only
    /// when the run's folders have no writer, so a run whose writers are
    /// all linted never walks its project.
    pub fn state_writers_in_roots(
        &self,
        index: impl FnOnce(&[PathBuf]) -> HashMap<String, Vec<PathBuf>>,
    ) -> &HashMap<String, Vec<PathBuf>> {
        self.root_state_writers
            .get_or_init(|| match &self.tf_folders {
                Some(list) if !self.roots.is_empty() => index(&(list.0)(&self.roots)),
                _ => HashMap::new(),
            })
    }

    /// How to list the folders with `.tf` files under the roots, for
    /// [`Sources::state_writers_in_roots`]; without it, none are searched.
    pub fn with_tf_folders(mut self, list: TfFolders) -> Sources {
        self.tf_folders = Some(list);
        self
    }

    /// Bytes already read from the files at these canonical paths, to be
    /// checked and used as if read at their first load.
    pub fn with_preread(self, texts: impl IntoIterator<Item = (PathBuf, Vec<u8>)>) -> Sources {
        self.preread
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(texts.into_iter().map(|(p, b)| (p.into_os_string(), b)));
        self
    }

    /// Resolve paths with `paths`, which the run's walk has filled: a
    /// named file is not asked again whether it is a link.
    pub fn with_canonical_paths(mut self, paths: Arc<CanonicalPaths>) -> Sources {
        self.dirs = paths;
        self
    }

    /// The canonical path a file was read from (or stands in for, when an
    /// overlay gave its text); `None` for text that never had a file.
    pub fn disk_path(&self, id: FileId) -> Option<PathBuf> {
        let from = |m: &Mutex<FxHashMap<FileId, Arc<OsStr>>>| {
            m.lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&id)
                .map(|p| PathBuf::from(&**p))
        };
        from(&self.origins).or_else(|| from(&self.overlaid))
    }

    /// Read these texts instead of the files at these paths (any form of
    /// the path; it is canonicalised here).
    pub fn with_overlays(self, overlays: &HashMap<PathBuf, Arc<str>>) -> Sources {
        for (p, t) in overlays {
            // A path that cannot be keyed cannot be read either.
            let _ = self.set_overlay(p, Some(t.clone()));
        }
        self
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
        self.load_inner(path, false)
    }

    /// As [`Sources::load`], for a path its folder's listing just showed as a
    /// regular file rather than a link, which spares one `lstat`.
    pub fn load_listed_file(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        self.load_inner(path, true)
    }

    fn load_inner(&self, path: &Path, listed_file: bool) -> Result<Arc<SourceFile>, LoadError> {
        let display = display_path(path);
        let canonical = self
            .canonical(path, listed_file)
            .map_err(|e| LoadError::Io {
                path: display.clone(),
                reason: e.to_string(),
            })?;
        if !self.roots.is_empty() && !self.roots.iter().any(|r| crate::path::under(&canonical, r)) {
            return Err(LoadError::OutsideTree { path: display });
        }
        let key: Arc<OsStr> = Arc::from(canonical.as_os_str());
        if let Some(id) = self.lock_paths().get(&key).copied() {
            if let Some(f) = self.get(id) {
                return Ok(self.reached_again(f, &display, &key));
            }
        }
        let overlay = self.lock_overlays().get(&key).cloned();
        let text: Arc<str> = match &overlay {
            Some(t) => t.clone(),
            None => {
                let preread = self
                    .preread
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(key.as_ref());
                match preread {
                    Some(bytes) => self.text_of(bytes, &display)?.into(),
                    None => self.read_text(&canonical, &display)?.into(),
                }
            }
        };
        let mut paths = self.lock_paths();
        if let Some(id) = paths.get(&key).copied() {
            drop(paths);
            if let Some(f) = self.get(id) {
                return Ok(self.reached_again(f, &display, &key));
            }
            paths = self.lock_paths();
        }
        let shown = self.chosen_for(&key).unwrap_or(display);
        let f = self.add_text(shown, text);
        // An overlay has no file to read again, so its text is never released.
        if overlay.is_none() {
            self.lock_origins().insert(f.id, key.clone());
        } else {
            self.overlaid
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(f.id, key.clone());
        }
        paths.insert(key, f.id);
        Ok(f)
    }

    /// Show each file that `paths` (with whether each was listed as a
    /// regular file) reach in more than one way under one of those paths,
    /// chosen from the paths alone rather than by which thread reads the
    /// file first: see [`Sources::shown_before`]. Files read already are
    /// renamed; a later call replaces the choices of an earlier one.
    pub fn choose_shown<'a>(&self, paths: impl IntoIterator<Item = (&'a Path, bool)>) {
        let mut first: HashMap<PathBuf, String> = HashMap::new();
        let mut chosen: HashMap<Arc<OsStr>, String> = HashMap::new();
        for (path, listed_file) in paths {
            // A path that does not resolve is not read either.
            let Ok(canonical) = self.canonical(path, listed_file) else {
                continue;
            };
            let shown = display_path(path);
            match first.entry(canonical) {
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(shown);
                }
                std::collections::hash_map::Entry::Occupied(e) => {
                    let best = chosen
                        .entry(Arc::from(e.key().as_os_str()))
                        .or_insert_with(|| e.get().clone());
                    if self.shown_before(&shown, best, e.key()) {
                        *best = shown;
                    }
                }
            }
        }
        drop(first);
        for (key, shown) in &chosen {
            let Some(id) = self.lock_paths().get(key).copied() else {
                continue;
            };
            let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
            if let Some(slot) = files.get_mut(id.0 as usize) {
                if slot.path != *shown {
                    *slot = Arc::new(slot.renamed(shown.clone()));
                }
            }
        }
        *self.chosen.write().unwrap_or_else(|e| e.into_inner()) = chosen;
    }

    /// The path [`Sources::choose_shown`] chose for a canonical path.
    fn chosen_for(&self, key: &OsStr) -> Option<String> {
        let chosen = self.chosen.read().unwrap_or_else(|e| e.into_inner());
        if chosen.is_empty() {
            return None;
        }
        chosen.get(key).cloned()
    }

    /// A file read before, reached again as `display`. Unless
    /// [`Sources::choose_shown`] settled it, it is shown under the path
    /// that comes first of all those it was reached by, whichever came
    /// first in time.
    fn reached_again(&self, f: Arc<SourceFile>, display: &str, key: &OsStr) -> Arc<SourceFile> {
        let canonical = Path::new(key);
        if f.path == display
            || !self.shown_before(display, &f.path, canonical)
            || self.chosen_for(key).is_some()
        {
            return f;
        }
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        let Some(slot) = files.get_mut(f.id.0 as usize) else {
            return f;
        };
        // Another thread may have renamed it since: the rule decides again.
        if slot.path != display && self.shown_before(display, &slot.path, canonical) {
            *slot = Arc::new(slot.renamed(display));
        }
        slot.clone()
    }

    /// Of two paths to the file at `canonical`, whether `a` is the one to
    /// show: a path that names the file itself before one through a link
    /// (the file a fix edits and an editor opens), a relative path before
    /// an absolute one (as the other files of a run are shown), then the
    /// first in path order, as a sorted walk lists them. The order is
    /// total, so the path shown is the same whatever order the paths come in.
    pub fn shown_before<'a>(&self, a: &'a str, b: &'a str, canonical: &Path) -> bool {
        let rank = |s: &'a str| {
            let path = Path::new(s);
            (self.through_link(s, canonical), path.is_absolute(), path)
        };
        rank(a) < rank(b)
    }

    /// Whether the shown path `shown` reaches `canonical` through a link
    /// (in the file's name, a folder's, or the working folder's).
    fn through_link(&self, shown: &str, canonical: &Path) -> bool {
        let path = Path::new(shown);
        if path.is_absolute() {
            return path != canonical;
        }
        let cwd = self.cwd.get_or_init(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.canonicalize().unwrap_or(d))
        });
        match cwd {
            Some(cwd) => Path::new(&display_path(&cwd.join(path))) != canonical,
            None => true,
        }
    }

    /// A regular file's text: bounded in size, UTF-8, without a BOM.
    fn read_text(&self, canonical: &Path, display: &str) -> Result<String, LoadError> {
        let display = display.to_string();
        let io = |e: std::io::Error| LoadError::Io {
            path: display.clone(),
            reason: e.to_string(),
        };
        // Opened first and asked its size through the handle: one path
        // lookup, not two. Opening does not wait on a FIFO (see `open`).
        let mut file = match open(canonical) {
            Ok(f) => f,
            Err(e) => {
                // The errors a look at the path would have given first (a
                // folder, a file over the limit) keep their precedence.
                self.check_meta(&std::fs::metadata(canonical).map_err(io)?, &display)?;
                return Err(io(e));
            }
        };
        let meta = file.metadata().map_err(io)?;
        self.check_meta(&meta, &display)?;
        // Read at most one byte past the limit: the file may grow after the
        // size check (a log, a FIFO swapped in), and must not be read whole.
        let expected = usize::try_from(meta.len().min(self.max_file_size)).unwrap_or(0);
        let mut bytes = Vec::with_capacity(expected.saturating_add(1));
        (&mut file)
            .take(self.max_file_size.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
        self.text_of(bytes, &display)
    }

    /// A file's bytes as its text: within the size limit, UTF-8, without a BOM.
    fn text_of(&self, bytes: Vec<u8>, display: &str) -> Result<String, LoadError> {
        let display = display.to_string();
        if bytes.len() as u64 > self.max_file_size {
            return Err(LoadError::TooLarge {
                path: display,
                size: bytes.len() as u64,
                limit: self.max_file_size,
            });
        }
        if is_binary(&bytes) {
            return Err(LoadError::Binary { path: display });
        }
        let text = String::from_utf8(bytes).map_err(|e| LoadError::NotText {
            path: display.clone(),
            offset: e.utf8_error().valid_up_to(),
            lossy: String::from_utf8_lossy(e.as_bytes()).into(),
        })?;
        Ok(text
            .strip_prefix('\u{feff}')
            .map(str::to_owned)
            .unwrap_or(text))
    }

    /// A regular file within the size limit, or the error that says why not.
    fn check_meta(&self, meta: &std::fs::Metadata, display: &str) -> Result<(), LoadError> {
        if !meta.is_file() {
            return Err(LoadError::Io {
                path: display.to_string(),
                reason: "not a regular file".into(),
            });
        }
        if meta.len() > self.max_file_size {
            return Err(LoadError::TooLarge {
                path: display.to_string(),
                size: meta.len(),
                limit: self.max_file_size,
            });
        }
        Ok(())
    }

    /// Drop a file's text until it is asked for again: on a large tree most
    /// files never get a finding, and their text is most of the memory.
    /// Files not read from disk, and files `keep` wants whole (the caller's
    /// inline suppressions, scanned at the end), keep their text.
    pub fn release_text(&self, id: FileId, keep: impl Fn(&str) -> bool) {
        if !self.lock_origins().contains_key(&id) {
            return;
        }
        // Scanned without the lock: other threads keep reading files.
        let Some(current) = self.peek(id) else {
            return;
        };
        if current.is_released() || keep(&current.text) {
            return;
        }
        let released = Arc::new(current.released());
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = files.get_mut(id.0 as usize) {
            if Arc::ptr_eq(slot, &current) {
                *slot = released;
            }
        }
    }

    /// Read a released file again. A file that changed since is left without
    /// its text and recorded (see [`Sources::take_changed`]).
    fn reread(&self, f: &Arc<SourceFile>) -> Arc<SourceFile> {
        let Some(expected) = f.fingerprint() else {
            return f.clone();
        };
        let Some(origin) = self.lock_origins().get(&f.id).cloned() else {
            return f.clone();
        };
        let text = match self.read_text(Path::new(&origin), &f.path) {
            Ok(t) if Fingerprint::of(&t) == expected => t,
            _ => {
                let mut changed = self.changed.lock().unwrap_or_else(|e| e.into_inner());
                if !changed.contains(&f.path) {
                    changed.push(f.path.clone());
                }
                return f.clone();
            }
        };
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        match files.get_mut(f.id.0 as usize) {
            // Another thread got there first.
            Some(slot) if !slot.is_released() => slot.clone(),
            // Its path as it is now: it may have been renamed meanwhile.
            Some(slot) => {
                *slot = Arc::new(SourceFile::new(f.id, slot.path.clone(), text));
                slot.clone()
            }
            None => f.clone(),
        }
    }

    /// Read `path` from `text` instead of the disk from now on (`Some`), or
    /// from the disk again (`None`): an editor's unsaved buffer. The path need
    /// not exist, but its folder must. What was read from `path` before is
    /// forgotten, as [`Sources::forget`] does, and its id returned.
    pub fn set_overlay(
        &self,
        path: &Path,
        text: Option<Arc<str>>,
    ) -> Result<Option<FileId>, LoadError> {
        let key = self.key_of(path)?;
        match text {
            Some(t) => self.lock_overlays().insert(key.clone(), t),
            None => self.lock_overlays().remove(&key),
        };
        Ok(self.lock_paths().remove(&key))
    }

    /// Forget what was read from `path`, so that the next load reads it
    /// again, under a new id; the id it had, if it was read.
    pub fn forget(&self, path: &Path) -> Option<FileId> {
        let key = self.key_of(path).ok()?;
        self.lock_paths().remove(&key)
    }

    /// The id `path` was read under, if it was.
    pub fn lookup(&self, path: &Path) -> Option<FileId> {
        let key = self.key_of(path).ok()?;
        self.lock_paths().get(&key).copied()
    }

    /// Drop a forgotten file's text for good: nothing points into it any more.
    /// Its path stays, for reports made before.
    pub fn retire(&self, id: FileId) {
        self.lock_origins().remove(&id);
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = files.get_mut(id.0 as usize) {
            if !slot.is_released() {
                *slot = Arc::new(slot.released());
            }
        }
    }

    /// The canonical key of a path that may not exist yet.
    fn key_of(&self, path: &Path) -> Result<Arc<OsStr>, LoadError> {
        let listed = std::fs::symlink_metadata(path).map_or(true, |m| !m.file_type().is_symlink());
        let canonical = self.canonical(path, listed).map_err(|e| LoadError::Io {
            path: display_path(path),
            reason: e.to_string(),
        })?;
        Ok(Arc::from(canonical.as_os_str()))
    }

    fn lock_overlays(&self) -> std::sync::MutexGuard<'_, FxHashMap<Arc<OsStr>, Arc<str>>> {
        self.overlays.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Paths of files that changed while fplint was running: their findings'
    /// positions cannot be shown.
    pub fn take_changed(&self) -> Vec<String> {
        let mut changed =
            std::mem::take(&mut *self.changed.lock().unwrap_or_else(|e| e.into_inner()));
        // Files are read again on several threads.
        changed.sort();
        changed
    }

    /// Record a file the file system would not let fplint read (no
    /// permission, not a regular file): it is no parse error, and the run
    /// counts it with the other paths it could not read.
    pub fn note_unreadable(&self, error: String) {
        self.unreadable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(error);
    }

    /// The files recorded by [`Sources::note_unreadable`], sorted, once each.
    pub fn take_unreadable(&self) -> Vec<String> {
        let mut all =
            std::mem::take(&mut *self.unreadable.lock().unwrap_or_else(|e| e.into_inner()));
        // Files are read on several threads; a file may be read twice.
        all.sort();
        all.dedup();
        all
    }

    /// Number of files registered so far; ids are `0..len`.
    pub fn len(&self) -> usize {
        self.files.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether no file was registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock_origins(&self) -> std::sync::MutexGuard<'_, FxHashMap<FileId, Arc<OsStr>>> {
        self.origins.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `canonicalize` costs a `readlink` per path component; a folder's
    /// canonical form is computed once and reused for its regular files.
    fn canonical(&self, path: &Path, listed_file: bool) -> std::io::Result<PathBuf> {
        self.dirs.file(path, listed_file)
    }

    /// A folder's canonical form, from the forms cached as files were read.
    pub fn canonical_folder(&self, dir: &Path) -> std::io::Result<PathBuf> {
        self.dirs.folder(dir)
    }

    fn lock_paths(&self) -> std::sync::MutexGuard<'_, FxHashMap<Arc<OsStr>, FileId>> {
        self.by_path.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A file with its text, read again if it was released.
    pub fn get(&self, id: FileId) -> Option<Arc<SourceFile>> {
        let f = self.peek(id)?;
        Some(if f.is_released() { self.reread(&f) } else { f })
    }

    /// A file as it is now: its path always, its text unless released.
    pub fn peek(&self, id: FileId) -> Option<Arc<SourceFile>> {
        let files = self.files.read().unwrap_or_else(|e| e.into_inner());
        files.get(id.0 as usize).cloned()
    }

    /// Every file read so far, as [`Sources::peek`] gives them.
    pub fn all(&self) -> Vec<Arc<SourceFile>> {
        self.files.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Open a file to read. On unix without waiting: opening a FIFO for reading
/// blocks until a writer comes, and the caller rejects what is not a regular
/// file from the handle (reads of regular files ignore the flag).
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// A path as shown to the user: lexically normalised, `/`-separated.
pub fn display_path(path: &Path) -> String {
    // Most paths are already in that form: keep them as they are.
    if let Some(s) = path.to_str() {
        let body = s.strip_prefix('/').unwrap_or(s);
        if !body.is_empty()
            && std::path::MAIN_SEPARATOR == '/'
            && body
                .as_bytes()
                .split(|&b| b == b'/')
                .all(|p| !matches!(p, b"" | b"." | b".."))
        {
            return s.to_string();
        }
    }
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

    #[cfg(unix)]
    #[test]
    fn linked_folders_resolve_before_confinement() {
        let tmp = tempfile::tempdir().unwrap();
        let (inside, outside) = (tmp.path().join("in"), tmp.path().join("out"));
        std::fs::create_dir_all(inside.join("real/sub")).unwrap();
        std::fs::create_dir_all(outside.join("sub")).unwrap();
        std::fs::write(outside.join("sub/x.tf"), "secret").unwrap();
        std::fs::write(inside.join("real/sub/y.tf"), "ours").unwrap();
        std::os::unix::fs::symlink(&outside, inside.join("away")).unwrap();
        std::os::unix::fs::symlink(inside.join("real"), inside.join("here")).unwrap();
        let sources = Sources::new(vec![inside.clone()]);
        // A linked folder anywhere in the path is followed, then confined,
        // even when the file itself was listed as regular.
        for load in [Sources::load, Sources::load_listed_file] {
            let escaped = load(&sources, &inside.join("away/sub/x.tf"));
            assert!(
                matches!(escaped, Err(LoadError::OutsideTree { .. })),
                "{escaped:?}"
            );
        }
        let a = sources.load(&inside.join("here/sub/y.tf")).unwrap();
        let b = sources
            .load_listed_file(&inside.join("real/sub/y.tf"))
            .unwrap();
        assert_eq!(a.id, b.id, "one file, read once");
        assert_eq!(&*a.text, "ours");
    }

    /// A folder with `real/c.yaml`, a link `alias.yaml` to it and a link
    /// `linked` to `real`, by its canonical path.
    #[cfg(unix)]
    fn linked_twice() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        std::fs::create_dir(dir.join("real")).unwrap();
        std::fs::write(dir.join("real/c.yaml"), "kind: C\n").unwrap();
        std::os::unix::fs::symlink("real/c.yaml", dir.join("alias.yaml")).unwrap();
        std::os::unix::fs::symlink("real", dir.join("linked")).unwrap();
        (tmp, dir)
    }

    #[cfg(unix)]
    #[test]
    fn a_file_reached_several_ways_is_shown_the_same_whatever_the_order() {
        let (_tmp, dir) = linked_twice();
        let [alias, linked, real] =
            ["alias.yaml", "linked/c.yaml", "real/c.yaml"].map(|p| dir.join(p));
        let orders: [[&PathBuf; 3]; 6] = [
            [&alias, &linked, &real],
            [&alias, &real, &linked],
            [&linked, &alias, &real],
            [&linked, &real, &alias],
            [&real, &alias, &linked],
            [&real, &linked, &alias],
        ];
        for order in orders {
            let sources = Sources::new(vec![dir.clone()]);
            let ids: Vec<FileId> = order.iter().map(|p| sources.load(p).unwrap().id).collect();
            assert!(ids.iter().all(|id| *id == ids[0]), "read once: {ids:?}");
            // The path without a link.
            assert_eq!(
                sources.peek(ids[0]).unwrap().path,
                display_path(&real),
                "{order:?}"
            );
            assert_eq!(sources.len(), 1);
        }
        // Both through links: the first in path order.
        for order in [[&alias, &linked], [&linked, &alias]] {
            let sources = Sources::new(vec![dir.clone()]);
            let f = order.map(|p| sources.load(p).unwrap());
            assert_eq!(sources.peek(f[0].id).unwrap().path, display_path(&alias));
            // What a load returns shows the choice so far.
            assert_eq!(f[1].path, display_path(&alias));
        }
    }

    #[cfg(unix)]
    #[test]
    fn loads_racing_on_threads_agree_on_the_path_shown() {
        let (_tmp, dir) = linked_twice();
        let paths = [
            "alias.yaml",
            "linked/c.yaml",
            "real/c.yaml",
            "linked/../linked/c.yaml",
        ]
        .map(|p| dir.join(p));
        for _ in 0..50 {
            let sources = Sources::new(vec![dir.clone()]);
            std::thread::scope(|s| {
                for p in &paths {
                    let sources = &sources;
                    s.spawn(move || sources.load(p).unwrap());
                }
            });
            let shown: Vec<String> = sources.all().iter().map(|f| f.path.clone()).collect();
            assert_eq!(shown, [display_path(&paths[2])]);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_chosen_path_is_shown_from_the_first_read() {
        let (_tmp, dir) = linked_twice();
        let [alias, linked, real] =
            ["alias.yaml", "linked/c.yaml", "real/c.yaml"].map(|p| dir.join(p));
        let sources = Sources::new(vec![dir.clone()]);
        sources.choose_shown([(alias.as_path(), false), (linked.as_path(), true)]);
        // Read first by a path the choice did not pick, and by a path with
        // no link that came too late to be a candidate: the choice holds.
        let f = sources.load(&linked).unwrap();
        assert_eq!(f.path, display_path(&alias));
        let g = sources.load(&real).unwrap();
        assert_eq!(
            (g.id, g.path.as_str()),
            (f.id, display_path(&alias).as_str())
        );
        // A new choice renames a file read already.
        sources.choose_shown([(real.as_path(), true), (alias.as_path(), false)]);
        assert_eq!(sources.peek(f.id).unwrap().path, display_path(&real));
        // Without candidates reaching it twice, the loads decide again.
        sources.choose_shown([(real.as_path(), true)]);
        assert!(sources.chosen.read().unwrap().is_empty());
    }

    #[test]
    fn released_texts_come_back_unless_the_file_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            tmp.path().join("a.yaml"),
            tmp.path().join("b.yaml"),
            tmp.path().join("c.yaml"),
        );
        std::fs::write(&a, "kind: A\n").unwrap();
        std::fs::write(&b, "kind: B # fplint: ignore[FP001]\n").unwrap();
        std::fs::write(&c, "kind: C\n").unwrap();
        let sources = Sources::new(vec![tmp.path().to_path_buf()]);
        let ids: Vec<FileId> = [&a, &b, &c]
            .iter()
            .map(|p| sources.load(p).unwrap().id)
            .collect();
        let suppressed = |t: &str| t.contains("fplint:");
        for id in &ids {
            sources.release_text(*id, suppressed);
        }
        let peeked: Vec<bool> = ids
            .iter()
            .map(|id| sources.peek(*id).unwrap().is_released())
            .collect();
        // A file with a suppression keeps its text for the suppression scan.
        assert_eq!(peeked, [true, false, true]);

        assert_eq!(&*sources.get(ids[0]).unwrap().text, "kind: A\n");
        assert!(!sources.peek(ids[0]).unwrap().is_released());
        // Loading a released file again reads it again, under the same id.
        sources.release_text(ids[0], suppressed);
        let again = sources.load(&a).unwrap();
        assert_eq!((again.id, &*again.text), (ids[0], "kind: A\n"));

        std::fs::write(&c, "kind: changed\n").unwrap();
        let f = sources.get(ids[2]).unwrap();
        assert!(f.text.is_empty(), "never the new text under the old spans");
        assert_eq!(sources.take_changed(), vec![display_path(&c)]);
        assert!(sources.take_changed().is_empty());
    }

    #[test]
    fn what_is_not_a_readable_regular_file_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let big = tmp.path().join("big.yaml");
        std::fs::write(&big, "kind: A\n").unwrap();
        std::fs::create_dir(tmp.path().join("dir")).unwrap();
        let mut sources = Sources::new(vec![tmp.path().to_path_buf()]);
        sources.max_file_size = 4;
        let reason = |p: &str| match sources.load(&tmp.path().join(p)) {
            Err(LoadError::Io { reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(reason("dir"), "not a regular file");
        assert!(reason("missing.yaml").contains("os error 2"));
        assert!(matches!(
            sources.load(&big),
            Err(LoadError::TooLarge {
                size: 8,
                limit: 4,
                ..
            })
        ));
        // A FIFO is refused without waiting for a writer.
        #[cfg(unix)]
        {
            let status = std::process::Command::new("mkfifo")
                .arg(tmp.path().join("pipe"))
                .status();
            if status.is_ok_and(|s| s.success()) {
                assert_eq!(reason("pipe"), "not a regular file");
            }
        }
    }

    #[test]
    fn display_paths() {
        assert_eq!(display_path(Path::new("./a/b/../c.tf")), "a/c.tf");
        assert_eq!(display_path(Path::new("../x/./y.yaml")), "../x/y.yaml");
        assert_eq!(display_path(Path::new("/abs/./p")), "/abs/p");
        // Paths already in that form, and near misses of it.
        assert_eq!(display_path(Path::new("a/b.yaml")), "a/b.yaml");
        assert_eq!(display_path(Path::new("/abs/p")), "/abs/p");
        assert_eq!(display_path(Path::new("a//b/")), "a/b");
        assert_eq!(display_path(Path::new("/")), "/");
        assert_eq!(display_path(Path::new("")), ".");
        assert_eq!(display_path(Path::new("a/..")), ".");
    }
}
