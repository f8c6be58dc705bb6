//! Finding the files to lint: folders walked like ripgrep does (.gitignore,
//! hidden files skipped), files named on the command line always linted.

use fplint_core::sources::CanonicalPaths;
use globset::GlobSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Extensions read when walking a folder (beside Terragrunt's
/// `terragrunt.hcl` and `terragrunt.stack.hcl`).
pub const EXTENSIONS: &[&str] = &["yaml", "yml", "json", "tf", "template"];

/// A file to lint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    /// As reached from the path given, without a leading `./`.
    pub path: PathBuf,
    /// Named on the command line (linted whatever its name).
    pub explicit: bool,
    /// Listed in its folder as a regular file, not a link.
    pub listed_file: bool,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walked {
    /// Sorted by path, without duplicates.
    pub files: Vec<Candidate>,
    /// Arguments that do not exist or cannot be read.
    pub errors: Vec<String>,
    /// Folders named as arguments that hold no file fplint reads.
    pub empty: Vec<PathBuf>,
    /// Walked folders that hold a `Kustomization` file (a kustomization
    /// without an extension, not a file fplint lints), sorted: planning
    /// need not look for one in every folder.
    pub kustomization_dirs: Vec<PathBuf>,
    /// Files of Helm charts' `templates/` folders whose chart the walk did
    /// not reach, sorted: Go-template source, not manifests, left out of
    /// `files`; their charts' `Chart.yaml` is in `files` instead.
    pub chart_templates: Vec<PathBuf>,
    /// The canonical paths the walk resolved, for the rest of the run.
    pub canonical_paths: Arc<CanonicalPaths>,
    /// Files fplint would read that the walk skipped as hidden (in a
    /// folder or of a name starting with `.`); `--hidden` reads them.
    pub hidden: usize,
}

/// Whether `path` lies in the `templates/` folder (at any depth) of a
/// folder that holds `Chart.yaml`: a Helm template, which is not YAML until
/// Helm renders it, however its first lines look.
pub fn is_chart_template(path: &Path) -> bool {
    chart_template_with(path, &mut std::collections::HashMap::new())
}

/// [`is_chart_template`], remembering what each `templates` folder is.
fn chart_template_with(path: &Path, known: &mut std::collections::HashMap<PathBuf, bool>) -> bool {
    // Most paths hold no `templates` at all: their folders need not be split.
    if judged_early(path) {
        return false;
    }
    path.ancestors().skip(1).any(|dir| {
        if dir.file_name().is_none_or(|n| n != "templates") {
            return false;
        }
        if let Some(&is) = known.get(dir) {
            return is;
        }
        let chart = dir.parent().unwrap_or(Path::new("")).join("Chart.yaml");
        let is = chart.is_file();
        known.insert(dir.to_path_buf(), is);
        is
    })
}

/// The bytes of `path` that order as [`Path`]'s own comparison does
/// (component by component), so a large walk is sorted by comparing bytes
/// instead of splitting both paths into components at each comparison.
pub(crate) fn order_key(path: &Path) -> Vec<u8> {
    use std::path::Component;
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut key = Vec::with_capacity(bytes.len() + 8);
    for c in path.components() {
        // A tag per kind, ordered as `Component`'s variants; a component's
        // bytes hold no NUL, so 0 ends it before any longer name.
        let (tag, name): (u8, &[u8]) = match c {
            Component::Prefix(p) => (1, p.as_os_str().as_encoded_bytes()),
            Component::RootDir => (2, b""),
            Component::CurDir => (3, b""),
            Component::ParentDir => (4, b""),
            Component::Normal(n) => (5, n.as_encoded_bytes()),
        };
        key.push(tag);
        key.extend_from_slice(name);
        key.push(0);
    }
    key
}

/// Sort candidates as their derived order does (by path, then the rest).
fn sort_candidates(files: &mut Vec<Candidate>) {
    let mut keyed: Vec<(Vec<u8>, Candidate)> = std::mem::take(files)
        .into_iter()
        .map(|c| (order_key(&c.path), c))
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    files.extend(keyed.into_iter().map(|(_, c)| c));
}

/// Whether a file of this name is read when a folder is walked.
pub fn is_lintable_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e))
        || crate::terragrunt::is_unit(path)
}

/// Canonical paths of files, remembered: the files named in one run are
/// mostly in a few folders, each resolved once.
#[derive(Debug, Default)]
pub(crate) struct Canonical {
    paths: Arc<CanonicalPaths>,
    files: std::collections::HashMap<PathBuf, Option<PathBuf>>,
}

impl Canonical {
    /// Resolving with `paths`, which other parts of the run share.
    pub(crate) fn sharing(paths: Arc<CanonicalPaths>) -> Canonical {
        Canonical {
            paths,
            files: std::collections::HashMap::new(),
        }
    }

    /// `path` canonical, or as given when it does not resolve.
    pub(crate) fn of(&mut self, path: &Path) -> PathBuf {
        self.get(path).unwrap_or_else(|| path.to_path_buf())
    }

    /// [`Path::canonicalize`], remembered.
    pub(crate) fn get(&mut self, path: &Path) -> Option<PathBuf> {
        if let Some(known) = self.files.get(path) {
            return known.clone();
        }
        let found = self.paths.file(path, false).ok();
        self.files.insert(path.to_path_buf(), found.clone());
        found
    }
}

/// Whether `exclude` (globs and the folder they are relative to) matches
/// `p`, relative to that folder or as written.
fn is_excluded(exclude: Option<(&GlobSet, &Path)>, p: &Path) -> bool {
    let Some((set, base)) = exclude else {
        return false;
    };
    let abs = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let rel = abs.strip_prefix(base).unwrap_or(&abs);
    set.is_match(rel) || set.is_match(p)
}

/// `exclude` globs are matched against paths relative to `exclude_base`.
pub fn walk(paths: &[PathBuf], exclude: Option<(&GlobSet, &Path)>) -> Walked {
    walk_to_depth(paths, exclude, None)
}

/// [`walk`], reading hidden files and folders too when `hidden` (as
/// ripgrep's `--hidden`; `.git` stays out). Without it, [`Walked::hidden`]
/// counts the files fplint would have read there.
pub fn walk_hidden(paths: &[PathBuf], exclude: Option<(&GlobSet, &Path)>, hidden: bool) -> Walked {
    walk_with(paths, exclude, None, None, Some(hidden))
}

/// [`walk`], going at most `max_depth` levels into each folder (1: its own
/// files only).
pub fn walk_to_depth(
    paths: &[PathBuf],
    exclude: Option<(&GlobSet, &Path)>,
    max_depth: Option<usize>,
) -> Walked {
    walk_with(paths, exclude, max_depth, None, None)
}

/// [`walk_to_depth`] keeping only the files `keep` accepts: it runs
/// as each file is found, on the walker's threads, so a search that reads
/// files (for a marker) needs no list of all of them. What [`walk_to_depth`]
/// does with a chart's templates is done first: a file in a `templates`
/// folder is judged after that.
pub fn walk_keeping(
    paths: &[PathBuf],
    exclude: Option<(&GlobSet, &Path)>,
    max_depth: Option<usize>,
    keep: &(dyn Fn(&Path) -> bool + Sync),
) -> Walked {
    walk_with(paths, exclude, max_depth, Some(keep), None)
}

/// Whether `keep` may judge a file as it is found: not one a chart's
/// templates may hold (those are set apart, or bring their chart in, by
/// [`walk_with`]'s end).
fn judged_early(path: &Path) -> bool {
    memchr::memmem::find(path.as_os_str().as_encoded_bytes(), b"templates").is_none()
}

/// `hidden`: `None` skips hidden files silently (the project-context
/// searches); `Some(false)` skips and counts them; `Some(true)` reads them.
fn walk_with(
    paths: &[PathBuf],
    exclude: Option<(&GlobSet, &Path)>,
    max_depth: Option<usize>,
    keep: Option<&(dyn Fn(&Path) -> bool + Sync)>,
    hidden: Option<bool>,
) -> Walked {
    let mut out = Walked::default();
    let tally = Arc::new(HiddenTally::default());
    let excluded = |p: &Path| is_excluded(exclude, p);
    let mut canonical = Canonical::sharing(out.canonical_paths.clone());
    for arg in paths {
        // One `lstat` says what a path that is not a link is, and that it
        // is none, which resolving it later would ask again.
        let meta = match std::fs::symlink_metadata(arg).and_then(|m| {
            let link = m.file_type().is_symlink();
            out.canonical_paths.note_link(arg, link);
            if link {
                std::fs::metadata(arg)
            } else {
                Ok(m)
            }
        }) {
            Ok(m) => m,
            Err(e) => {
                out.errors.push(format!("{}: {e}", arg.display()));
                continue;
            }
        };
        if meta.is_file() {
            // Named from inside a chart's `templates/`, the path alone does
            // not show the chart: its real place does.
            let inside_chart = !is_chart_template(arg)
                && canonical.get(arg).is_some_and(|c| is_chart_template(&c));
            if inside_chart {
                out.chart_templates.push(arg.clone());
                continue;
            }
            out.files.push(Candidate {
                path: arg.clone(),
                explicit: true,
                listed_file: false,
            });
            continue;
        }
        let root = arg.canonicalize().unwrap_or_else(|_| arg.clone());
        let found = std::sync::Mutex::new((Vec::new(), Vec::new(), Vec::new()));
        if max_depth == Some(1) || keep.is_some() {
            // One folder's listing, or a search that reads what it lists
            // (the named files' project): listed on this thread, which
            // costs little, and read on the worker threads as the listing
            // goes on. Walker threads of its own would contend with the
            // pool's for the cores, and sleep between folders.
            let b = builder(arg, max_depth, hidden, &tally);
            list_then_keep(&b, &root, &excluded, keep, &found);
        } else {
            builder(arg, max_depth, hidden, &tally)
                .build_parallel()
                .run(|| {
                    // Each walker thread keeps its own lists and hands them
                    // over once, when it ends: no lock per entry.
                    let mut local = Local {
                        found: &found,
                        files: Vec::new(),
                        errors: Vec::new(),
                        kustomizations: Vec::new(),
                    };
                    let (root, excluded) = (&root, &excluded);
                    Box::new(move |entry| {
                        local.take(entry, root, excluded);
                        ignore::WalkState::Continue
                    })
                });
        }
        let (files, errors, kustomizations) = found.into_inner().unwrap_or_else(|e| e.into_inner());
        if files.is_empty() {
            out.empty.push(arg.clone());
        }
        if !is_chart_template(&arg.join("_")) && is_chart_template(&root.join("_")) {
            out.chart_templates
                .extend(files.into_iter().map(|c| c.path));
            continue;
        }
        out.files.extend(files);
        out.errors.extend(errors);
        out.kustomization_dirs.extend(kustomizations);
    }
    out.hidden = tally.count(exclude);
    out.kustomization_dirs.sort();
    out.kustomization_dirs.dedup();
    // The parallel walker finds files in any order.
    sort_candidates(&mut out.files);
    out.errors.sort();
    out.files.dedup_by(|a, b| {
        if a.path == b.path {
            b.explicit |= a.explicit;
            b.listed_file &= a.listed_file;
            true
        } else {
            false
        }
    });
    // Only paths through a `templates` folder are looked at twice.
    let mut known = std::collections::HashMap::new();
    let (templates, files): (Vec<Candidate>, Vec<Candidate>) = std::mem::take(&mut out.files)
        .into_iter()
        .partition(|c| chart_template_with(&c.path, &mut known));
    out.files = files;
    out.chart_templates
        .extend(templates.into_iter().map(|c| c.path));
    out.chart_templates.sort();
    out.chart_templates.dedup();
    add_charts_of_templates(&mut out);
    if let Some(keep) = keep {
        // What was not judged as it was found: files in `templates`
        // folders, and charts their templates brought in.
        out.files
            .retain(|c| (judged_early(&c.path) && !c.explicit) || keep(&c.path));
    }
    out
}

/// The chart a template belongs to (the top one, for a subchart's): the
/// folder above its `templates/` that holds `Chart.yaml`.
pub fn chart_of_template(path: &Path) -> Option<PathBuf> {
    if let Some(dir) = chart_above(path) {
        return Some(dir);
    }
    // Reached from inside the chart: found by the real path, and written
    // as `..` from the path as given.
    let real = path.canonicalize().ok()?;
    let chart = chart_above(&real)?;
    let up = real
        .parent()?
        .strip_prefix(&chart)
        .ok()?
        .components()
        .count();
    let mut dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    for _ in 0..up {
        dir.push("..");
    }
    Some(dir)
}

fn chart_above(path: &Path) -> Option<PathBuf> {
    let mut dir = path
        .ancestors()
        .skip(1)
        .find(|d| {
            d.file_name().is_some_and(|n| n == "templates")
                && d.parent().is_some_and(|p| p.join("Chart.yaml").is_file())
        })?
        .parent()?
        .to_path_buf();
    while fplint_core::frontend::chart::is_subchart(&dir) {
        match dir.parent().and_then(Path::parent) {
            Some(up) => dir = up.to_path_buf(),
            None => break,
        }
    }
    Some(dir)
}

/// A chart is linted as a unit, rendered, through its `Chart.yaml`: the
/// templates of a chart the walk did not reach (named alone, or a walk
/// from inside the chart) bring their chart in, and stay listed for the
/// note that says so. Templates of a walked chart are the chart's.
fn add_charts_of_templates(out: &mut Walked) {
    let mut added: Vec<Candidate> = Vec::new();
    let templates = std::mem::take(&mut out.chart_templates);
    for t in templates {
        let Some(chart) = chart_of_template(&t) else {
            continue;
        };
        let file = chart.join("Chart.yaml");
        let walked = out
            .files
            .binary_search_by(|c| c.path.as_path().cmp(&file))
            .is_ok();
        if walked {
            continue;
        }
        if !added.iter().any(|c| c.path == file) {
            // Named through its template: read with its project's context.
            added.push(Candidate {
                path: file,
                explicit: true,
                listed_file: false,
            });
        }
        out.chart_templates.push(t);
    }
    if !added.is_empty() {
        out.files.extend(added);
        sort_candidates(&mut out.files);
        out.files.dedup_by(|a, b| a.path == b.path);
    }
}

/// Files judged by `keep` a batch at a time, on the worker threads.
const KEEP_BATCH: usize = 32;

/// The walk of one folder listed on this thread, its files handed to `keep`
/// in batches on the worker threads while the listing goes on (all kept
/// without `keep`).
fn list_then_keep(
    builder: &ignore::WalkBuilder,
    root: &Path,
    excluded: &(dyn Fn(&Path) -> bool + Sync),
    keep: Option<&(dyn Fn(&Path) -> bool + Sync)>,
    found: &std::sync::Mutex<Found>,
) {
    // What `keep` may not judge yet is kept here (see `walk_with`'s end).
    let judge = move |batch: Vec<Candidate>| -> Vec<Candidate> {
        match keep {
            Some(k) => batch
                .into_iter()
                .filter(|c| !judged_early(&c.path) || k(&c.path))
                .collect(),
            None => batch,
        }
    };
    rayon::scope(|s| {
        let mut local = Local {
            found,
            files: Vec::new(),
            errors: Vec::new(),
            kustomizations: Vec::new(),
        };
        for entry in builder.build() {
            local.take(entry, root, excluded);
            if keep.is_some() && local.files.len() >= KEEP_BATCH {
                let batch = std::mem::take(&mut local.files);
                s.spawn(move |_| {
                    let kept = judge(batch);
                    let mut f = found.lock().unwrap_or_else(|e| e.into_inner());
                    f.0.extend(kept);
                });
            }
        }
        local.files = judge(std::mem::take(&mut local.files));
    });
}

/// One walker thread's finds, added to the shared lists when it is dropped.
/// What the walk found: files, errors, `Kustomization` folders.
type Found = (Vec<Candidate>, Vec<String>, Vec<PathBuf>);

struct Local<'a> {
    found: &'a std::sync::Mutex<Found>,
    files: Vec<Candidate>,
    errors: Vec<String>,
    kustomizations: Vec<PathBuf>,
}

impl Local<'_> {
    /// Sort a walked entry into the lists.
    fn take(
        &mut self,
        entry: Result<ignore::DirEntry, ignore::Error>,
        root: &Path,
        excluded: &dyn Fn(&Path) -> bool,
    ) {
        match entry {
            Ok(e) => {
                if let Some(dir) = kustomization_dir(&e, excluded) {
                    self.kustomizations.push(dir);
                } else if let Some(path) = accept(&e, root, excluded) {
                    self.files.push(Candidate {
                        path,
                        explicit: false,
                        listed_file: e.file_type().is_some_and(|t| t.is_file()),
                    });
                }
            }
            Err(e) => self.errors.push(e.to_string()),
        }
    }
}

impl Drop for Local<'_> {
    fn drop(&mut self) {
        let mut f = self.found.lock().unwrap_or_else(|e| e.into_inner());
        f.0.append(&mut self.files);
        f.1.append(&mut self.errors);
        f.2.append(&mut self.kustomizations);
    }
}

/// The path of a walked entry fplint reads, if it is one.
/// A walk of `root` as ripgrep does it: hidden files and what `.gitignore`
/// and `.git/info/exclude` name are skipped, git repository or not; links
/// are not followed.
fn builder(
    root: &Path,
    max_depth: Option<usize>,
    hidden: Option<bool>,
    tally: &Arc<HiddenTally>,
) -> ignore::WalkBuilder {
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(hidden.is_none())
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .max_depth(max_depth);
    match hidden {
        None => {
            b.filter_entry(|e| !synth_output(e));
        }
        Some(true) => {
            b.filter_entry(|e| e.file_name() != ".git" && !synth_output(e));
        }
        Some(false) => {
            let tally = tally.clone();
            b.filter_entry(move |e| tally.keeps(e) && !synth_output(e));
        }
    }
    b
}

/// A CDK app's `cdk.out` beside its `cdk.json`: the app is read from its
/// source, and its synthesized output would declare the same clusters again.
fn synth_output(e: &ignore::DirEntry) -> bool {
    e.depth() > 0
        && e.file_name() == "cdk.out"
        && e.file_type().is_some_and(|t| t.is_dir())
        && e.path()
            .parent()
            .is_some_and(|p| p.join("cdk.json").is_file())
}

/// The hidden entries a walk skipped: lintable files, and folders whose
/// lintable files are counted once the walk is over.
#[derive(Default)]
struct HiddenTally {
    files: std::sync::Mutex<(usize, Vec<PathBuf>)>,
}

impl HiddenTally {
    /// Whether the walk goes on into `e`; a hidden entry is noted instead.
    fn keeps(&self, e: &ignore::DirEntry) -> bool {
        let hidden = e.depth() > 0 && e.file_name().as_encoded_bytes().starts_with(b".");
        if !hidden {
            return true;
        }
        if e.file_name() == ".git" {
            return false;
        }
        let mut t = self.files.lock().unwrap_or_else(|e| e.into_inner());
        match e.file_type() {
            Some(ft) if ft.is_dir() => t.1.push(e.path().to_path_buf()),
            Some(ft) if ft.is_file() && is_lintable_name(e.path()) => t.0 += 1,
            _ => {}
        }
        false
    }

    /// The lintable files skipped: those noted, and those in the hidden
    /// folders noted (what `.gitignore` and `exclude` leave out aside).
    fn count(&self, exclude: Option<(&GlobSet, &Path)>) -> usize {
        let (files, dirs) =
            std::mem::take(&mut *self.files.lock().unwrap_or_else(|e| e.into_inner()));
        let inside: usize = dirs
            .iter()
            .map(|d| {
                let mut b = ignore::WalkBuilder::new(d);
                b.hidden(false)
                    .git_ignore(true)
                    .git_global(false)
                    .git_exclude(true)
                    .require_git(false)
                    .follow_links(false)
                    .filter_entry(|e| e.file_name() != ".git");
                b.build()
                    .filter_map(Result::ok)
                    .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                    .filter(|e| is_lintable_name(e.path()) && !is_excluded(exclude, e.path()))
                    .count()
            })
            .sum();
        files + inside
    }
}

/// The folder of a regular `Kustomization` file the walk reached, in the
/// form the walked files' folders take.
fn kustomization_dir(
    entry: &ignore::DirEntry,
    excluded: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let path = entry.path();
    if path.file_name()? != "Kustomization" || !entry.file_type()?.is_file() || excluded(path) {
        return None;
    }
    Some(strip_dot(path.parent()?))
}

fn accept(
    entry: &ignore::DirEntry,
    root: &Path,
    excluded: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let ft = entry.file_type()?;
    let path = entry.path();
    if ft.is_symlink() {
        // Follow a link to a file only when it stays inside the tree.
        match path.canonicalize() {
            Ok(target) if target.starts_with(root) && target.is_file() => {}
            _ => return None,
        }
    } else if !ft.is_file() {
        return None;
    }
    if !is_lintable_name(path) || excluded(path) {
        return None;
    }
    Some(strip_dot(path))
}

/// `./a/b.yaml` → `a/b.yaml`, as users and the JSON contract expect.
fn strip_dot(p: &Path) -> PathBuf {
    p.strip_prefix(".")
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| p.to_path_buf())
}

/// The files [`walk_to_depth`] finds under the folder `root`, in path
/// order, handed to `visit` one at a time until it returns `false`: a
/// search that may stop early lists no more folders than it needs.
pub fn walk_sorted_until(
    root: &Path,
    exclude: Option<(&GlobSet, &Path)>,
    max_depth: Option<usize>,
    mut visit: impl FnMut(Candidate) -> bool,
) {
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let excluded = |p: &Path| is_excluded(exclude, p);
    // Siblings by name, depth first: the order of sorted paths.
    let entries = builder(root, max_depth, None, &Arc::default())
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let mut known = std::collections::HashMap::new();
    for e in entries.flatten() {
        if let Some(path) =
            accept(&e, &canonical_root, &excluded).filter(|p| !chart_template_with(p, &mut known))
        {
            let listed_file = e.file_type().is_some_and(|t| t.is_file());
            let c = Candidate {
                path,
                explicit: false,
                listed_file,
            };
            if !visit(c) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod order_tests {
    use super::order_key;
    use std::path::Path;

    #[test]
    fn order_key_orders_as_paths_do() {
        let mut paths: Vec<String> = [
            "a",
            "ab",
            "a/b",
            "a-b",
            "a.b/c",
            "a/b/c",
            "a//b",
            "a/./b",
            "a/b/",
            "./a",
            "../a",
            "/a",
            "/",
            "",
            "a b",
            "a/B",
            "a/\u{e9}",
            "team-1/x.tf",
            "team-10/x.tf",
            "team-1x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Names over a small alphabet with separators, dots and dashes.
        let alphabet = ['a', 'b', '/', '.', '-', '_', 'Z'];
        let mut seed: u64 = 7;
        for _ in 0..400 {
            let mut s = String::new();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            for i in 0..(seed >> 60) {
                s.push(alphabet[((seed >> (i * 3 % 48)) % 7) as usize]);
            }
            paths.push(s);
        }
        for a in &paths {
            for b in &paths {
                let (pa, pb) = (Path::new(a), Path::new(b));
                assert_eq!(
                    order_key(pa).cmp(&order_key(pb)),
                    pa.cmp(pb),
                    "{a:?} against {b:?}"
                );
            }
        }
    }
}
