//! The checking thread: it applies the documents' changes to the projects,
//! waits for the typing to pause, checks, and publishes what changed. The
//! reader thread never waits for it.

use crate::convert::{convert, FileItems};
use crate::engine::Engine;
use crate::text::Encoding;
use crate::Settings;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use fplint::{ConfigChoice, Linter, Options};
use lsp_server::{Message, Notification};
use lsp_types::notification::{Notification as _, PublishDiagnostics, ShowMessage};
use lsp_types::{MessageType, PublishDiagnosticsParams, ShowMessageParams, Url};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the reader thread tells the worker.
pub enum Job {
    /// A document was opened or changed: its whole text now.
    Update {
        uri: Url,
        path: Option<PathBuf>,
        version: i32,
        text: Arc<str>,
        /// Just opened, not typed into.
        opened: bool,
    },
    /// A document was saved: the disk now holds its text.
    Saved { path: Option<PathBuf> },
    /// A document was closed: the disk counts again.
    Close { uri: Url, path: Option<PathBuf> },
    /// Files changed on disk; `rescan` when some were created or deleted.
    DiskChanged { paths: Vec<PathBuf>, rescan: bool },
    /// The workspace folders are now these.
    Roots(Vec<PathBuf>),
    /// The client's settings are now these.
    Settings(Settings),
}

impl Job {
    fn is_open_or_save(&self) -> bool {
        matches!(self, Job::Update { opened: true, .. } | Job::Saved { .. })
    }
}

/// The findings published, by document: the reader thread answers hover and
/// code actions from them.
pub type Published = Arc<Mutex<HashMap<Url, FileItems>>>;

/// An open document.
struct Open {
    uri: Url,
    path: Option<PathBuf>,
    version: i32,
    text: Arc<str>,
}

/// The checking thread's state.
pub struct Worker {
    out: Sender<Message>,
    enc: Encoding,
    settings: Settings,
    engines: Vec<Engine>,
    /// Engines to check, by index; documents outside every folder, by URI.
    dirty_engines: BTreeSet<usize>,
    dirty_loose: BTreeSet<Url>,
    /// What each engine published last, so that files that became clean
    /// are cleared.
    owned: Vec<BTreeSet<Url>>,
    open: BTreeMap<Url, Open>,
    published: Published,
}

impl Worker {
    /// A worker publishing to `out`, for projects under `roots`.
    pub fn new(
        out: Sender<Message>,
        enc: Encoding,
        settings: Settings,
        roots: Vec<PathBuf>,
        published: Published,
    ) -> Worker {
        let mut w = Worker {
            out,
            enc,
            settings,
            engines: Vec::new(),
            dirty_engines: BTreeSet::new(),
            dirty_loose: BTreeSet::new(),
            owned: Vec::new(),
            open: BTreeMap::new(),
            published,
        };
        w.set_roots(roots);
        w
    }

    /// Serve jobs until the reader thread hangs up or the client is gone.
    pub fn run(mut self, jobs: Receiver<Job>) {
        // Opening or saving is not typing: it is answered without the wait.
        let mut at_once = false;
        loop {
            let debounce = Duration::from_millis(self.settings.debounce_ms);
            if self.is_dirty() {
                // Wait for the typing to pause; each new job restarts the wait.
                while !at_once {
                    match jobs.recv_timeout(debounce) {
                        Ok(job) => {
                            at_once = job.is_open_or_save();
                            self.apply(job);
                        }
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                at_once = false;
                if !self.check(&jobs) {
                    return;
                }
            } else {
                match jobs.recv() {
                    Ok(job) => {
                        at_once = job.is_open_or_save();
                        self.apply(job);
                    }
                    Err(_) => return,
                }
            }
        }
    }

    fn is_dirty(&self) -> bool {
        !self.dirty_engines.is_empty() || !self.dirty_loose.is_empty()
    }

    fn set_roots(&mut self, mut roots: Vec<PathBuf>) {
        roots = roots.iter().map(|r| canonical(r)).collect();
        roots.sort();
        roots.dedup();
        // A folder inside another is checked with it: one owner per file.
        let mut kept: Vec<PathBuf> = Vec::new();
        for r in roots {
            if !kept.iter().any(|k| r.starts_with(k)) {
                kept.push(r);
            }
        }
        self.engines = kept.into_iter().map(|r| self.engine(r)).collect();
        // What the old engines published is cleared by the next check.
        let mut owned: BTreeSet<Url> = self.owned.drain(..).flatten().collect();
        owned.extend(self.dirty_loose.iter().cloned());
        self.owned = vec![BTreeSet::new(); self.engines.len()];
        if let Some(first) = self.owned.first_mut() {
            first.extend(owned);
        }
        self.dirty_engines = (0..self.engines.len()).collect();
        let open: Vec<(Url, Option<PathBuf>, Arc<str>)> = self
            .open
            .values()
            .map(|o| (o.uri.clone(), o.path.clone(), o.text.clone()))
            .collect();
        for (uri, path, text) in open {
            self.overlay(uri, path.as_deref(), text);
        }
    }

    fn engine(&self, root: PathBuf) -> Engine {
        let linter = self.linter(&root);
        Engine::open(linter, root)
    }

    /// The linter for the folder `root`, with the configuration and
    /// settings as they are now.
    fn linter(&self, root: &Path) -> Linter {
        let choice = config_choice(&self.settings, Some(root));
        let options = Options {
            select: self.settings.select.clone(),
            ignore: self.settings.ignore.clone(),
            project_context: true,
            config: choice.clone(),
            ..Options::default()
        };
        let linter = match Linter::with_choice(&[root], &choice) {
            Ok(l) => l,
            Err(e) => {
                let message = match &choice {
                    ConfigChoice::File(f) => format!(
                        "fplint: the configured file {}: {e}; using the defaults",
                        f.display()
                    ),
                    _ => format!("fplint: {e}; using the defaults"),
                };
                self.show(MessageType::ERROR, message);
                Linter::default()
            }
        };
        linter.with_options(options)
    }

    fn show(&self, typ: MessageType, message: String) {
        let params = ShowMessageParams { typ, message };
        let _ = self
            .out
            .send(Notification::new(ShowMessage::METHOD.into(), params).into());
    }

    /// Put a document's text in its project, or mark it loose.
    fn overlay(&mut self, uri: Url, path: Option<&Path>, text: Arc<str>) {
        if let Some(path) = path {
            for (i, e) in self.engines.iter_mut().enumerate() {
                if e.set_overlay(path, text.clone()) {
                    self.dirty_engines.insert(i);
                    return;
                }
            }
        }
        self.dirty_loose.insert(uri);
    }

    fn apply(&mut self, job: Job) {
        match job {
            Job::Update {
                uri,
                path,
                version,
                text,
                ..
            } => {
                self.overlay(uri.clone(), path.as_deref(), text.clone());
                self.open.insert(
                    uri.clone(),
                    Open {
                        uri,
                        path,
                        version,
                        text,
                    },
                );
            }
            Job::Close { uri, path } => {
                self.open.remove(&uri);
                self.dirty_loose.remove(&uri);
                match path.as_deref().and_then(|p| self.engine_of(p)) {
                    Some(i) => {
                        if let (Some(e), Some(p)) = (self.engines.get_mut(i), &path) {
                            e.remove_overlay(p);
                        }
                        self.dirty_engines.insert(i);
                    }
                    // A loose document's findings go with it.
                    None => self.publish(&uri, None, FileItems::default(), false),
                }
            }
            Job::Saved { path } => {
                if let Some(p) = path {
                    self.disk_changed(&[p]);
                }
            }
            Job::DiskChanged { paths, rescan } => {
                // A configuration change walks every folder again anyway.
                if rescan && !self.is_config(&paths) {
                    for (i, e) in self.engines.iter_mut().enumerate() {
                        e.rescan(&paths);
                        self.dirty_engines.insert(i);
                    }
                }
                self.disk_changed(&paths);
            }
            Job::Roots(roots) => self.set_roots(roots),
            Job::Settings(settings) => {
                if settings != self.settings {
                    self.settings = settings;
                    self.reload();
                }
            }
        }
    }

    /// Give every engine the configuration and settings as they are now,
    /// and check every open document again. The engines keep their models:
    /// a configuration changes how the project is checked, not how its
    /// files read.
    fn reload(&mut self) {
        for i in 0..self.engines.len() {
            let linter = match self.engines.get(i) {
                Some(e) => self.linter(e.root()),
                None => continue,
            };
            if let Some(e) = self.engines.get_mut(i) {
                e.reconfigure(linter);
            }
            self.dirty_engines.insert(i);
        }
        let loose: Vec<Url> = self
            .open
            .values()
            .filter(|o| o.path.as_deref().and_then(|p| self.engine_of(p)).is_none())
            .map(|o| o.uri.clone())
            .collect();
        self.dirty_loose.extend(loose);
    }

    /// Whether one of `paths` is a configuration file an engine reads.
    fn is_config(&self, paths: &[PathBuf]) -> bool {
        paths.iter().any(|p| {
            p.file_name()
                .is_some_and(|n| n == "fplint.toml" || n == ".fplint.toml")
                || self.engines.iter().any(|e| {
                    matches!(config_choice(&self.settings, Some(e.root())),
                        ConfigChoice::File(f) if canonical(&f) == *p)
                })
        })
    }

    fn disk_changed(&mut self, paths: &[PathBuf]) {
        if self.is_config(paths) {
            // The configuration is read when an engine is built.
            self.reload();
            return;
        }
        for p in paths {
            for (i, e) in self.engines.iter_mut().enumerate() {
                if e.file_changed(p) {
                    self.dirty_engines.insert(i);
                }
            }
        }
    }

    fn engine_of(&self, path: &Path) -> Option<usize> {
        self.engines.iter().position(|e| path.starts_with(e.root()))
    }

    /// Check what is dirty and publish; a check that new jobs made stale is
    /// dropped (they leave it dirty). `false` when the client is gone.
    fn check(&mut self, jobs: &Receiver<Job>) -> bool {
        while let Some(&i) = self.dirty_engines.first() {
            let Some(engine) = self.engines.get(i) else {
                self.dirty_engines.remove(&i);
                continue;
            };
            let report = engine.check();
            if !jobs.is_empty() {
                return true;
            }
            self.dirty_engines.remove(&i);
            let by_path: HashMap<&Path, &Url> = self
                .open
                .values()
                .filter_map(|o| Some((o.path.as_deref()?, &o.uri)))
                .collect();
            let uri_of = |p: Option<&Path>| -> Option<Url> {
                let p = p?;
                by_path
                    .get(p)
                    .map(|u| (*u).clone())
                    .or_else(|| Url::from_file_path(p).ok())
            };
            let mut found = convert(&report, self.enc, &uri_of);
            // Open documents of this folder get an answer even when clean.
            for o in self.open.values() {
                if o.path.as_deref().and_then(|p| self.engine_of(p)) == Some(i) {
                    found.entry(o.uri.clone()).or_default();
                }
            }
            let old = self
                .owned
                .get_mut(i)
                .map(std::mem::take)
                .unwrap_or_default();
            for uri in old.difference(&found.keys().cloned().collect()) {
                self.publish(uri, None, FileItems::default(), false);
            }
            let mut now = BTreeSet::new();
            for (uri, items) in found {
                let open = self.open.get(&uri).map(|o| o.version);
                self.publish(
                    &uri,
                    open,
                    FileItems {
                        version: open,
                        items,
                    },
                    open.is_some(),
                );
                now.insert(uri);
            }
            if let Some(o) = self.owned.get_mut(i) {
                *o = now;
            }
        }
        while let Some(uri) = self.dirty_loose.first().cloned() {
            let Some(doc) = self.open.get(&uri) else {
                self.dirty_loose.remove(&uri);
                continue;
            };
            let report = loose_check(doc, &self.settings);
            if !jobs.is_empty() {
                return true;
            }
            self.dirty_loose.remove(&uri);
            let (path, version) = (doc.path.clone(), doc.version);
            let uri_of = |p: Option<&Path>| match p {
                None => Some(uri.clone()),
                Some(p) if Some(p) == path.as_deref() => Some(uri.clone()),
                Some(p) => Url::from_file_path(p).ok(),
            };
            let mut found = convert(&report, self.enc, &uri_of);
            let items = found.remove(&uri).unwrap_or_default();
            self.publish(
                &uri,
                Some(version),
                FileItems {
                    version: Some(version),
                    items,
                },
                true,
            );
        }
        true
    }

    /// Publish a document's findings if they differ from what the client
    /// has (or `always`, for an open document not answered yet).
    fn publish(&self, uri: &Url, version: Option<i32>, items: FileItems, always: bool) {
        let mut published = self.published.lock().unwrap_or_else(|e| e.into_inner());
        let diagnostics: Vec<_> = items.items.iter().map(|i| i.diagnostic.clone()).collect();
        let before = published
            .get(uri)
            .map(|f| f.items.iter().map(|i| &i.diagnostic).eq(diagnostics.iter()));
        let send = match before {
            Some(same) => !same,
            None => always || !diagnostics.is_empty(),
        };
        if items.items.is_empty() && !always {
            published.remove(uri);
        } else {
            published.insert(uri.clone(), items);
        }
        drop(published);
        if send {
            let params = PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics,
                version,
            };
            let _ = self
                .out
                .send(Notification::new(PublishDiagnostics::METHOD.into(), params).into());
        }
    }
}

/// A document outside every workspace folder: linted alone, or with the
/// project its own `fplint.toml` names.
fn loose_check(doc: &Open, settings: &Settings) -> fplint::Report {
    let choice = config_choice(settings, None);
    let options = Options {
        select: settings.select.clone(),
        ignore: settings.ignore.clone(),
        config: choice.clone(),
        ..Options::default()
    };
    let folder = doc
        .path
        .as_deref()
        .map(|p| p.parent().unwrap_or(Path::new(".")));
    let linter = match (folder, &choice) {
        (Some(folder), _) => Linter::with_choice(&[folder], &choice).unwrap_or_default(),
        (None, ConfigChoice::File(_)) => {
            Linter::with_choice(&[Path::new(".")], &choice).unwrap_or_default()
        }
        // An unsaved buffer has no folder to find a configuration from.
        (None, _) => Linter::default(),
    };
    let name = match &doc.path {
        Some(p) => p.to_string_lossy().into_owned(),
        // An unsaved buffer: its URI's last segment decides the format.
        None => doc
            .uri
            .path_segments()
            .and_then(|mut s| s.next_back())
            .unwrap_or("untitled.yaml")
            .to_string(),
    };
    linter.with_options(options).check_source(&name, &doc.text)
}

/// Where a folder's configuration comes from: the `config` setting (a
/// relative path from `root`) or, without it, the nearest `fplint.toml`.
/// A relative path with no folder to take it from is not used.
fn config_choice(settings: &Settings, root: Option<&Path>) -> ConfigChoice {
    match (&settings.config, root) {
        (Some(p), _) if p.is_absolute() => ConfigChoice::File(p.clone()),
        (Some(p), Some(root)) => ConfigChoice::File(root.join(p)),
        _ => ConfigChoice::Discover,
    }
}

/// A path's canonical form; a file not yet on disk by its folder's.
pub fn canonical(path: &Path) -> PathBuf {
    if let Ok(c) = path.canonicalize() {
        return c;
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map(|d| d.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}
