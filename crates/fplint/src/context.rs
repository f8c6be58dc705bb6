//! The project around files named on the command line. pre-commit passes
//! only the staged files: a staged manifest checked against no cluster
//! passes whatever it says. So the project root of each named file (the
//! folder of the nearest `fplint.toml`, else the git root, else the file's
//! folder) is searched for cluster definitions, read as context only.
//!
//! Speed matters here (one file on every commit). Assignment gives a
//! manifest the cluster of the nearest folder that defines any, so the
//! search goes up from the file's folder and stops at the first folder with
//! cluster definitions (or at the root); with `[clusters] paths` in the
//! config, a cluster may live anywhere and the whole root is searched.
//! Files are sniffed for a few byte strings before anything is parsed, and
//! only files that can define a cluster or its capacity are modelled.

use crate::config::FILE_NAMES;
use crate::walk::{self, Candidate, Canonical};
use fplint_core::sources::CanonicalPaths;
use globset::GlobSet;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

/// Byte strings without which a YAML or JSON file defines no cluster.
const DOCUMENT_NEEDLES: &[&[u8]] = &[b"eksctl.io/v1alpha5", b"AWS::EKS::"];

/// The project root of a named file.
pub fn root_of(file: &Path) -> PathBuf {
    project_of(file).0
}

/// The project root of a file when a marker (`fplint.toml`, `.git`) says
/// where it is.
pub(crate) fn marked_root_of(file: &Path) -> Option<PathBuf> {
    let (root, marked) = project_of(file);
    marked.then_some(root)
}

/// Whether a marker (`fplint.toml`, `.git`) names the project root of
/// files: without one, nothing says where their project ends. Each folder
/// is looked at once across the files asked about.
#[derive(Default)]
pub(crate) struct Marked(std::collections::HashMap<PathBuf, bool>);

impl Marked {
    pub(crate) fn root_of(&mut self, file: &Path) -> bool {
        self.dir(&folder_of(file), 0)
    }

    fn dir(&mut self, dir: &Path, depth: usize) -> bool {
        if let Some(&m) = self.0.get(dir) {
            return m;
        }
        let here = [FILE_NAMES, &[".git"]]
            .iter()
            .flat_map(|n| n.iter())
            .any(|n| dir.join(n).exists());
        let m = here || (depth < 256 && dir.parent().is_some_and(|p| self.dir(p, depth + 1)));
        self.0.insert(dir.to_path_buf(), m);
        m
    }
}

/// The project root of a named file, and whether a marker (`fplint.toml`,
/// `.git`) says so. Without one the root is the file's own folder, and only
/// its own files are searched: a manifest in a home or download folder must
/// not walk everything below it.
fn project_of(file: &Path) -> (PathBuf, bool) {
    project_in(&folder_of(file))
}

/// The canonical folder of a file.
fn folder_of(file: &Path) -> PathBuf {
    let abs = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    abs.parent().map_or_else(|| abs.clone(), Path::to_path_buf)
}

/// [`project_of`] for many files: one search per folder, and the files'
/// canonical paths.
#[derive(Default)]
struct Projects {
    roots: std::collections::HashMap<PathBuf, (PathBuf, bool)>,
    canonical: Canonical,
}

impl Projects {
    fn of(&mut self, file: &Path) -> (PathBuf, bool) {
        let abs = self.canonical.of(file);
        let dir = abs.parent().map_or_else(|| abs.clone(), Path::to_path_buf);
        self.roots
            .entry(dir)
            .or_insert_with_key(|dir| project_in(dir))
            .clone()
    }

    /// A file's canonical path, or the path as given when it has none.
    fn canonical(&mut self, file: &Path) -> PathBuf {
        self.canonical.of(file)
    }
}

/// The project root of files in the canonical folder `dir`.
fn project_in(dir: &Path) -> (PathBuf, bool) {
    let dir = dir.to_path_buf();
    let has = |d: &Path, names: &[&str]| names.iter().any(|n| d.join(n).exists());
    if let Some(d) = dir.ancestors().find(|d| has(d, FILE_NAMES)) {
        return (d.to_path_buf(), true);
    }
    if let Some(d) = dir.ancestors().find(|d| has(d, &[".git"])) {
        return (d.to_path_buf(), true);
    }
    (dir, false)
}

/// What the named files' projects add to a run.
#[derive(Debug, Default)]
pub struct Context {
    /// The project roots, as reached from the working folder: files under
    /// them may be read (a local module called from a context module).
    pub roots: Vec<PathBuf>,
    /// Files under the roots that may define clusters.
    pub files: Vec<Candidate>,
    /// The kustomize build roots (overlays) whose builds read a named
    /// file, shown as the named file is: a changed base manifest is
    /// checked as the overlays build it.
    pub builds: Vec<PathBuf>,
    /// The cluster search stopped at two clusters (the named files cannot
    /// be assigned by the root anyway), so the run's count is a floor.
    pub partial: bool,
    /// Manifests in the folders that a named Argo CD `Application` or Flux
    /// `Kustomization` applies: read for their workloads, which the
    /// declaration gives a namespace and a cluster, and never reported.
    pub applied: Vec<Candidate>,
    /// The bytes of named files the search read, by canonical path: the
    /// run need not read them again.
    pub preread: Vec<(PathBuf, Vec<u8>)>,
}

/// Files under the named files' project roots that may define clusters,
/// not already among `walked`. A `.tf` hit brings its whole folder (one
/// module), unless that folder is already read as a given module.
pub fn candidates(
    walked: &[Candidate],
    exclude: Option<(&GlobSet, &Path)>,
    whole_root: bool,
) -> Context {
    candidates_sharing(walked, exclude, whole_root, Arc::default())
}

/// [`candidates`], resolving paths with `paths` (the walk's): the named
/// files are not asked again whether they are links.
pub fn candidates_sharing(
    walked: &[Candidate],
    exclude: Option<(&GlobSet, &Path)>,
    whole_root: bool,
    paths: Arc<CanonicalPaths>,
) -> Context {
    let named: Vec<&Candidate> = walked.iter().filter(|c| c.explicit).collect();
    if named.is_empty() {
        return Context::default();
    }
    let cwd = std::env::current_dir()
        .ok()
        .map(|d| d.canonicalize().unwrap_or(d));
    let mut sniffed = Sniffed::default();
    // Files anywhere under a project root may be read (a local module's
    // source); only the scope is searched for cluster definitions.
    let mut projects: Vec<PathBuf> = Vec::new();
    // Whether every named file's nearest folder with clusters is its
    // project root (none below it has any).
    let mut all_at_root = true;
    let mut unmarked: HashSet<PathBuf> = HashSet::new();
    // The folders the scope search listed in full, by absolute path.
    let mut listed: std::collections::HashMap<PathBuf, Vec<Candidate>> =
        std::collections::HashMap::new();
    // The files of each listed folder that may define a cluster.
    let mut hits_in: std::collections::HashMap<PathBuf, Vec<PathBuf>> =
        std::collections::HashMap::new();
    let mut projects_of = Projects {
        roots: std::collections::HashMap::new(),
        canonical: Canonical::sharing(paths),
    };
    // The search keeps what it reads of the named files themselves.
    sniffed.named = named
        .iter()
        .map(|c| projects_of.canonical(&c.path))
        .collect();
    let roots: Vec<PathBuf> = named
        .iter()
        .map(|c| {
            let (root, marked) = projects_of.of(&c.path);
            if !marked {
                unmarked.insert(root.clone());
            }
            projects.push(root.clone());
            if whole_root {
                return root;
            }
            let abs = projects_of.canonical(&c.path);
            let found = scope(
                &abs,
                &root,
                cwd.as_deref(),
                exclude,
                &mut sniffed,
                &mut listed,
                &mut hits_in,
            );
            all_at_root &= found == root;
            found
        })
        .collect();
    projects.sort();
    projects.dedup();
    // A root inside another is walked with it.
    let outer = fplint_core::sources::outermost(roots);
    let have: HashSet<PathBuf> = walked
        .iter()
        .map(|c| projects_of.canonical(&c.path))
        .collect();
    let roots_shown = || -> Vec<PathBuf> {
        projects
            .iter()
            .map(|r| relative_to(cwd.as_deref(), r))
            .collect()
    };
    // The named files' workloads are assigned by the root's clusters: with
    // two or more there, none is (no `[clusters] paths` to say which), so
    // two clusters say as much as all of them, at a fraction of the cost.
    // The root is listed in path order and the search stops at the second.
    let two_decide =
        !whole_root && all_at_root && !walked.iter().any(|c| may_define_cluster(&c.path));
    if let ([root], true) = (outer.as_slice(), two_decide) {
        let mut two = TwoClusters::default();
        let depth = unmarked.contains(root).then_some(1);
        let shown = relative_to(cwd.as_deref(), root);
        walk::walk_sorted_until(&shown, exclude, depth, |c| {
            let abs = absolute(cwd.as_deref(), &c);
            // Files the scope search found defining nothing, and the run's own.
            let defines_none = sniffed.by_abs.get(&abs).is_some_and(|m| !m.cluster);
            if is_tf(&c.path) || defines_none || have.contains(&abs) {
                return true;
            }
            two.visit(&c).is_none()
        });
        if let Some(files) = two.found() {
            let applied = applied_by(&named, &have, &files, exclude, &sniffed.by_path);
            return Context {
                roots: roots_shown(),
                files,
                builds: builds_including(&named, cwd.as_deref(), &mut projects_of),
                partial: true,
                applied,
                preread: std::mem::take(&mut sniffed.preread),
            };
        }
    }
    let shown = |deep: bool| -> Vec<PathBuf> {
        outer
            .iter()
            .filter(|r| unmarked.contains(*r) != deep)
            .map(|r| relative_to(cwd.as_deref(), r))
            .collect()
    };
    // A scope folder was listed by the search already.
    let mut reused = Vec::new();
    let deep: Vec<PathBuf> = shown(true)
        .into_iter()
        .zip(outer.iter().filter(|r| !unmarked.contains(*r)))
        .filter_map(|(shown, r)| match listed.remove(r) {
            Some(files) => {
                reused.extend(files);
                None
            }
            None => Some(shown),
        })
        .collect();
    // The walks keep only the files that may define a cluster, read as
    // they are found, and every `.tf` file (a module is its folder).
    let tf_hits: Mutex<HashSet<PathBuf>> = Mutex::default();
    let keep = |p: &Path| {
        let hit = match sniffed.by_path.get(p) {
            Some(m) => m.cluster,
            None => may_define_cluster(p),
        };
        if hit && is_tf(p) {
            tf_hits
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(p.to_path_buf());
        }
        hit || is_tf(p)
    };
    let mut found = if deep.is_empty() {
        walk::Walked::default()
    } else {
        walk::walk_keeping(&deep, exclude, None, &keep)
    };
    let shallow = shown(false);
    if !shallow.is_empty() {
        found
            .files
            .extend(walk::walk_keeping(&shallow, exclude, Some(1), &keep).files);
    }
    // The scope search read the folders it listed.
    found
        .files
        .extend(reused.into_iter().filter(|c| keep(&c.path)));
    let tf_hits = tf_hits.into_inner().unwrap_or_else(|e| e.into_inner());
    let given_modules: HashSet<PathBuf> = walked
        .iter()
        .filter(|c| is_tf(&c.path))
        .filter_map(|c| {
            projects_of
                .canonical(&c.path)
                .parent()
                .map(Path::to_path_buf)
        })
        .collect();
    let hits = found
        .files
        .iter()
        .filter(|c| !is_tf(&c.path) || tf_hits.contains(&c.path));
    let mut tf_dirs: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::new();
    for c in hits {
        let abs = absolute(cwd.as_deref(), c);
        if have.contains(&abs) {
            continue;
        }
        if is_tf(&c.path) {
            let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
            if !given_modules.contains(&dir) {
                tf_dirs.insert(c.path.parent().map(Path::to_path_buf).unwrap_or_default());
            }
            continue;
        }
        out.push(c.clone());
    }
    // Every `.tf` file of a module folder with a hit.
    out.extend(
        found
            .files
            .iter()
            .filter(|c| is_tf(&c.path))
            .filter(|c| c.path.parent().is_some_and(|p| tf_dirs.contains(p)))
            .cloned(),
    );
    out.sort();
    out.dedup();
    // Several roots: the same two-cluster stop, over all of them.
    let mut partial = false;
    if two_decide && outer.len() > 1 {
        if let Some(two) = two_clusters(&out) {
            out = two;
            partial = true;
        }
    }
    let applied = applied_by(&named, &have, &out, exclude, &sniffed.by_path);
    Context {
        roots: roots_shown(),
        files: out,
        builds: builds_including(&named, cwd.as_deref(), &mut projects_of),
        partial,
        applied,
        preread: std::mem::take(&mut sniffed.preread),
    }
}

/// Byte strings without which a file declares no folder a controller applies.
const APPLIER_NEEDLES: &[&[u8]] = &[b"argoproj.io/", b"kustomize.toolkit.fluxcd.io/"];

/// The YAML and JSON files of the folders of this repository that the named
/// files' Argo CD `Application`s and `ApplicationSet`s and Flux
/// `Kustomization`s apply, not already read. A folder with a
/// chart is rendered from its release, and a kustomization is built only
/// when named or walked: neither is listed here.
fn applied_by(
    named: &[&Candidate],
    have: &HashSet<PathBuf>,
    context: &[Candidate],
    exclude: Option<(&GlobSet, &Path)>,
    sniffed: &std::collections::HashMap<PathBuf, Marks>,
) -> Vec<Candidate> {
    use fplint_core::value::Value;
    let mut folders: Vec<PathBuf> = Vec::new();
    for c in named {
        if is_tf(&c.path) || !walk::is_lintable_name(&c.path) {
            continue;
        }
        let applies = match sniffed.get(&c.path) {
            Some(m) => m.applier,
            None => mentions_any(&c.path, &APPLIERS),
        };
        if !applies {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&c.path) else {
            continue;
        };
        let file = fplint_core::source::SourceFile::new(
            fplint_core::FileId(u32::MAX),
            c.path.to_string_lossy(),
            text.as_str(),
        );
        let parsed =
            fplint_core::tree::yaml::parse(&text, file.id, fplint_core::tree::Limits::default());
        // The frontends say which folders a declaration applies, as a
        // whole run reads them.
        let mut declared = fplint_core::frontend::UnitOutput::default();
        for doc in &parsed.documents {
            let obj = Value::from_node(doc);
            fplint_core::frontend::load_declaration(&file, &obj, &mut declared);
        }
        for d in declared.directory_sources {
            let built = [
                "Chart.yaml",
                "kustomization.yaml",
                "kustomization.yml",
                "Kustomization",
            ]
            .iter()
            .any(|k| d.folder.join(k).is_file());
            if !built {
                folders.push(d.folder);
            }
        }
    }
    if folders.is_empty() {
        return Vec::new();
    }
    folders.sort();
    folders.dedup();
    let read: HashSet<PathBuf> = context
        .iter()
        .map(|c| c.path.canonicalize().unwrap_or_else(|_| c.path.clone()))
        .collect();
    let mut out: Vec<Candidate> = walk::walk(&folders, exclude)
        .files
        .into_iter()
        .filter(|c| !is_tf(&c.path) && walk::is_lintable_name(&c.path))
        .filter(|c| {
            let abs = c.path.canonicalize().unwrap_or_else(|_| c.path.clone());
            !have.contains(&abs) && !read.contains(&abs)
        })
        .map(|mut c| {
            c.explicit = false;
            c
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The overlays whose builds read a named YAML or JSON file, one walk per
/// project root; shown relative to the working folder, or absolute when
/// the named file was given so.
fn builds_including(
    named: &[&Candidate],
    cwd: Option<&Path>,
    projects: &mut Projects,
) -> Vec<PathBuf> {
    let mut by_root: std::collections::BTreeMap<(PathBuf, bool), Vec<(PathBuf, bool)>> =
        std::collections::BTreeMap::new();
    for c in named {
        if is_tf(&c.path) || !walk::is_lintable_name(&c.path) {
            continue;
        }
        let abs = projects.canonical(&c.path);
        by_root
            .entry(projects.of(&c.path))
            .or_default()
            .push((abs, c.path.is_absolute()));
    }
    let mut out = Vec::new();
    for ((root, marked), files) in by_root {
        let absolute = files.iter().any(|(_, a)| *a);
        let files: Vec<PathBuf> = files.into_iter().map(|(f, _)| f).collect();
        for r in crate::kustomize::roots_including_any(&files, &root, (!marked).then_some(1)) {
            out.push(if absolute { r } else { relative_to(cwd, &r) });
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The nearest folder at or above the named file's (up to `root`) holding
/// a file that may define a cluster; `root` when none does. `abs` is the
/// named file's canonical path.
fn scope(
    abs: &Path,
    root: &Path,
    cwd: Option<&Path>,
    exclude: Option<(&GlobSet, &Path)>,
    sniffed: &mut Sniffed,
    listed: &mut std::collections::HashMap<PathBuf, Vec<Candidate>>,
    hits_in: &mut std::collections::HashMap<PathBuf, Vec<PathBuf>>,
) -> PathBuf {
    let Some(dir) = abs.parent() else {
        return root.to_path_buf();
    };
    for up in dir.ancestors() {
        if !up.starts_with(root) || up == root {
            break;
        }
        // Named files of one folder share its listing (pre-commit names
        // every staged file of a folder): a folder has a cluster for this
        // file when a file other than itself may define one.
        if let Some(hits) = hits_in.get(up) {
            if hits.iter().any(|h| h != abs) {
                return up.to_path_buf();
            }
            continue;
        }
        // On this thread: the folders near a file are usually small, and
        // starting walker threads for each costs more than it saves.
        let mut files = Vec::new();
        walk::walk_sorted_until(&relative_to(cwd, up), exclude, None, |c| {
            files.push(c);
            true
        });
        // Read on the worker threads: pre-commit names every staged file
        // of a folder, and the folder may hold hundreds.
        let read: Vec<(PathBuf, Marks, Option<Vec<u8>>)> = {
            use rayon::prelude::*;
            let (by_abs, named) = (&sniffed.by_abs, &sniffed.named);
            files
                .par_iter()
                .map(|c| {
                    let key = absolute(cwd, c);
                    let (marks, bytes) = match by_abs.get(&key) {
                        Some(&m) => (m, None),
                        None => Marks::of_keeping(&c.path, named.contains(&key)),
                    };
                    (key, marks, bytes)
                })
                .collect()
        };
        let mut hits = Vec::new();
        for (c, (key, marks, bytes)) in files.iter().zip(read) {
            if let Some(bytes) = bytes {
                sniffed.preread.push((key.clone(), bytes));
            }
            sniffed.by_abs.insert(key.clone(), marks);
            sniffed.by_path.insert(c.path.clone(), marks);
            if marks.cluster {
                hits.push(key);
            }
        }
        let any = hits.iter().any(|h| h != abs);
        hits_in.insert(up.to_path_buf(), hits);
        listed.insert(up.to_path_buf(), files);
        if any {
            return up.to_path_buf();
        }
    }
    root.to_path_buf()
}

/// What the search read in a file.
#[derive(Debug, Clone, Copy)]
struct Marks {
    /// It may define a cluster ([`may_define_cluster`]).
    cluster: bool,
    /// It may declare a folder a controller applies ([`APPLIER_NEEDLES`]).
    applier: bool,
}

impl Marks {
    /// One read of the file for both, and its bytes when `keep`.
    fn of_keeping(path: &Path, keep: bool) -> (Marks, Option<Vec<u8>>) {
        with_bytes(path, |bytes| {
            let marks = Marks {
                cluster: defines_cluster(path, bytes),
                applier: !is_tf(path) && APPLIERS.any_in(bytes),
            };
            (marks, keep.then(|| bytes.to_vec()))
        })
        .unwrap_or((
            Marks {
                cluster: false,
                applier: false,
            },
            None,
        ))
    }
}

/// The files the scope search read, by absolute path and by the path the
/// listing gave: later walks of the same folders, and the named files,
/// find them without reading them again or resolving their paths.
#[derive(Default)]
struct Sniffed {
    by_abs: std::collections::HashMap<PathBuf, Marks>,
    by_path: std::collections::HashMap<PathBuf, Marks>,
    /// The named files, by canonical path: their bytes are kept.
    named: HashSet<PathBuf>,
    /// The bytes of the named files read, by canonical path.
    preread: Vec<(PathBuf, Vec<u8>)>,
}

/// The first two eksctl configs among `files` that define clusters of
/// different names, if there are two: a pre-scan that models one small
/// file at a time and stops there.
fn two_clusters(files: &[Candidate]) -> Option<Vec<Candidate>> {
    let mut two = TwoClusters::default();
    files
        .iter()
        .filter(|c| !is_tf(&c.path))
        .find_map(|c| two.visit(c))
}

/// The two-cluster pre-scan, fed one file at a time in path order.
#[derive(Default)]
struct TwoClusters {
    sources: fplint_core::sources::Sources,
    seen: Vec<(String, Candidate)>,
    done: Option<Vec<Candidate>>,
}

impl TwoClusters {
    /// The two files, once `c` makes two clusters of different names.
    fn visit(&mut self, c: &Candidate) -> Option<Vec<Candidate>> {
        if !mentions_any(&c.path, &EKSCTL) {
            return None;
        }
        let f = self.sources.load(&c.path).ok()?;
        let unit =
            fplint_core::frontend::load_document_file(&f, fplint_core::tree::Limits::default());
        for cluster in &unit.clusters {
            if cluster.name.known().is_some() && self.seen.iter().all(|(k, _)| *k != cluster.key) {
                self.seen.push((cluster.key.clone(), c.clone()));
            }
        }
        if let [(_, a), (_, b), ..] = self.seen.as_slice() {
            let mut two = vec![a.clone(), b.clone()];
            two.dedup();
            self.done = Some(two.clone());
            return Some(two);
        }
        None
    }

    fn found(self) -> Option<Vec<Candidate>> {
        self.done
    }
}

/// A walked file's absolute path without a system call: the context walks
/// start at canonical folders and do not enter linked ones, so only a link
/// to a file needs resolving.
fn absolute(cwd: Option<&Path>, c: &Candidate) -> PathBuf {
    match cwd {
        Some(d) if c.listed_file => fplint_core::frontend::kustomize::normalise(&d.join(&c.path)),
        _ => c.path.canonicalize().unwrap_or_else(|_| c.path.clone()),
    }
}

fn is_tf(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "tf")
}

fn may_define_cluster(path: &Path) -> bool {
    with_bytes(path, |bytes| defines_cluster(path, bytes)).unwrap_or(false)
}

/// Whether the bytes of the file at `path` may define a cluster.
fn defines_cluster(path: &Path, bytes: &[u8]) -> bool {
    if is_tf(path) {
        // EKS resources, or a module call whose source may build a cluster.
        MODULE[0].find(bytes).is_some()
            || (MODULE[1].find(bytes).is_some() && MODULE[2].find(bytes).is_some())
    } else {
        DOCUMENTS.any_in(bytes)
    }
}

/// Searchers for byte strings, built once: building one for each file
/// read costs more than searching a small file.
struct Needles(Vec<memchr::memmem::Finder<'static>>);

impl Needles {
    fn new(needles: &[&[u8]]) -> Needles {
        Needles(
            needles
                .iter()
                .map(|n| memchr::memmem::Finder::new(n).into_owned())
                .collect(),
        )
    }

    fn any_in(&self, bytes: &[u8]) -> bool {
        self.0.iter().any(|f| f.find(bytes).is_some())
    }
}

impl std::ops::Index<usize> for Needles {
    type Output = memchr::memmem::Finder<'static>;
    fn index(&self, i: usize) -> &Self::Output {
        &self.0[i]
    }
}

static DOCUMENTS: LazyLock<Needles> = LazyLock::new(|| Needles::new(DOCUMENT_NEEDLES));
static APPLIERS: LazyLock<Needles> = LazyLock::new(|| Needles::new(APPLIER_NEEDLES));
static EKSCTL: LazyLock<Needles> = LazyLock::new(|| Needles::new(&[b"eksctl.io/v1alpha5"]));
/// `aws_eks_`, or `module` and `eks` (see [`defines_cluster`]).
static MODULE: LazyLock<Needles> =
    LazyLock::new(|| Needles::new(&[b"aws_eks_", b"module", b"eks"]));

/// Whether the file holds one of `needles`; false when it cannot be read.
fn mentions_any(path: &Path, needles: &Needles) -> bool {
    with_bytes(path, |bytes| needles.any_in(bytes)).unwrap_or(false)
}

/// `f` of the file's bytes, read into a buffer each thread reuses, without
/// asking the file's size first: `std::fs::read` costs a `statx` more per
/// file, and a project's search reads every YAML and JSON file in it.
fn with_bytes<R>(path: &Path, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    /// A file seen only through `read`, so that `read_to_end` asks nothing else.
    struct Plain(std::fs::File);
    impl std::io::Read for Plain {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf)
        }
    }
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let file = std::fs::File::open(path).ok()?;
    BUFFER.with_borrow_mut(|buf| {
        buf.clear();
        let read = std::io::Read::read_to_end(&mut Plain(file), buf);
        let out = read.ok().map(|_| f(buf));
        // A large file's buffer is not kept.
        if buf.capacity() > 1 << 20 {
            *buf = Vec::new();
        }
        out
    })
}

/// `root` as reached from the working folder, so that the paths of context
/// files read like the user's own (`../infra/cluster.yaml`).
pub(crate) fn relative_to(cwd: Option<&Path>, root: &Path) -> PathBuf {
    let Some(cwd) = cwd else {
        return root.to_path_buf();
    };
    let common = cwd
        .ancestors()
        .find(|a| root.starts_with(a))
        .unwrap_or(Path::new("/"));
    if common == Path::new("/") && cwd != Path::new("/") {
        return root.to_path_buf();
    }
    let ups = cwd
        .strip_prefix(common)
        .map_or(0, |r| r.components().count());
    let mut rel = PathBuf::new();
    for _ in 0..ups {
        rel.push("..");
    }
    if let Ok(down) = root.strip_prefix(common) {
        rel.push(down);
    }
    if rel.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        rel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_roots() {
        let cwd = Path::new("/r/a/b");
        assert_eq!(
            relative_to(Some(cwd), Path::new("/r")),
            PathBuf::from("../..")
        );
        assert_eq!(
            relative_to(Some(cwd), Path::new("/r/a/b")),
            PathBuf::from(".")
        );
        assert_eq!(
            relative_to(Some(cwd), Path::new("/r/a/b/c")),
            PathBuf::from("c")
        );
        assert_eq!(relative_to(Some(cwd), Path::new("/x")), PathBuf::from("/x"));
    }
}
