//! Stage 2, plan: the units the discovered files form, each of a kind in
//! the [`super::inputs`] registry, in the order they are absorbed in.

use super::inputs::{self, Forms, Input, INPUTS};
use crate::walk::{self, Candidate};
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A unit to model: its kind, its files, and whether it is read only as
/// context (for its clusters).
pub(crate) struct Job<'a> {
    /// The row of [`INPUTS`] whose loader models it.
    pub(crate) input: &'static Input,
    /// What it is made of.
    pub(crate) shape: Shape<'a>,
    /// Read only as context.
    pub(crate) context: bool,
}

/// What a unit is made of.
pub(crate) enum Shape<'a> {
    /// One file.
    File(&'a Candidate),
    /// A folder and its files of the unit's kind (none for a build: what
    /// it reads is in its kustomizations).
    Folder(PathBuf, Vec<&'a Candidate>),
}

impl<'a> Job<'a> {
    /// The files the unit is made of (none for a build: what it reads is
    /// in its kustomizations).
    pub(crate) fn paths(&self) -> Vec<&Path> {
        self.files().iter().map(|c| c.path.as_path()).collect()
    }

    /// The same files as candidates.
    pub(crate) fn files(&self) -> &[&'a Candidate] {
        match &self.shape {
            Shape::File(c) => std::slice::from_ref(c),
            Shape::Folder(_, files) => files,
        }
    }

    /// The unit's folder (a file's own path for a unit of one file).
    pub(crate) fn dir(&self) -> &Path {
        match &self.shape {
            Shape::File(c) => &c.path,
            Shape::Folder(dir, _) => dir,
        }
    }

    /// The folder of a unit that only its kind's planner finds (a
    /// kustomize build).
    pub(crate) fn planned_root(&self) -> Option<&PathBuf> {
        match (&self.input.forms, &self.shape) {
            (Forms::Planned, Shape::Folder(dir, _)) => Some(dir),
            _ => None,
        }
    }

    /// What kind of unit it is: a folder may turn from a root module into
    /// a called one, a file from context into a named one. Its row's place
    /// in [`INPUTS`], and whether it is context.
    pub(crate) fn kind(&self) -> u8 {
        let row = u8::try_from(inputs::index_of(self.input)).unwrap_or(u8::MAX >> 1);
        row << 1 | u8::from(self.context)
    }

    /// Whether a unit of this [`Job::kind`] is read only as context.
    pub(crate) fn kind_is_context(kind: u8) -> bool {
        kind & 1 == 1
    }

    /// The unit of this [`Job::kind`] made of `files` again, as planning
    /// made it; `None` when only planning can make it (a build).
    pub(crate) fn again(kind: u8, files: Vec<&'a Candidate>) -> Option<Job<'a>> {
        let input = *INPUTS.get(usize::from(kind >> 1))?;
        let shape = match (&input.forms, files.as_slice()) {
            (Forms::File, [c]) => Shape::File(c),
            (Forms::Folder, [c, ..]) => {
                let dir = c
                    .path
                    .parent()
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
                Shape::Folder(dir, files)
            }
            _ => return None,
        };
        Some(Job {
            input,
            shape,
            context: Job::kind_is_context(kind),
        })
    }
}

/// The units `files` (and `context` files, read for their clusters only)
/// make, in key order, the order they are absorbed in. A unit is a
/// YAML/JSON file, a folder of `.tf` files (one module), or a kustomize
/// build; what a build reads is not linted alone.
pub(crate) fn plan_units<'a>(
    walked: &'a walk::Walked,
    context: &'a crate::context::Context,
    sources: &Sources,
    limits: Limits,
) -> Vec<(String, Job<'a>)> {
    let files = &walked.files;
    let found = Some(walked.kustomization_dirs.as_slice());
    let builds = crate::kustomize::plan_with_walked(files, &context.builds, found, sources, limits);
    let applied = &context.applied;
    let context = &context.files;
    let max = sources.max_file_size;
    let mut jobs = plan_with(files, context, &builds, &|dir, files| {
        // A Terragrunt unit calls the module of its `terraform { source }`.
        if let [c] = files {
            if crate::terragrunt::is_unit(&c.path) {
                return crate::terragrunt::calls(&c.path, sources, limits);
            }
        }
        inputs::local_calls(dir, files, max)
    });
    sources.set_module_folders(module_folders(&jobs));
    if !applied.is_empty() {
        jobs.extend(applied.iter().map(|c| {
            let job = Job {
                input: &inputs::APPLIED,
                shape: Shape::File(c),
                context: false,
            };
            (fplint_core::sources::display_path(&c.path), job)
        }));
        jobs.sort_by(|a, b| a.0.cmp(&b.0));
    }
    jobs
}

/// The folders of the planned module units, for the remote states one
/// root reads from another.
pub(crate) fn module_folders(jobs: &[(String, Job<'_>)]) -> Vec<PathBuf> {
    jobs.iter()
        .filter(|(_, j)| j.planned_root().is_none())
        .filter_map(|(_, j)| match &j.shape {
            Shape::Folder(dir, _) => Some(dir.clone()),
            Shape::File(_) => None,
        })
        .collect()
}

/// Choose the path each file reached more than once is shown under, before
/// any is read: otherwise the thread that reads it first would choose.
/// `walks` is how many paths were walked; `lists` are the candidates.
pub(crate) fn choose_shown(sources: &Sources, walks: usize, lists: &[&[Candidate]]) {
    let all = || lists.iter().flat_map(|l| l.iter());
    // One walk lists each file once (it follows no folder link): only a
    // second walk, a named file or a link to a file can reach one twice.
    let twice = walks > 1 || all().any(|c| !c.listed_file);
    sources.choose_shown(
        all()
            .filter(|_| twice)
            .map(|c| (c.path.as_path(), c.listed_file)),
    );
}

/// A folder unit's folder, whether it is context, and its row of [`INPUTS`].
type GroupKey = (PathBuf, bool, usize);

/// [`plan_units`], given the kustomize builds and the local modules each
/// folder calls (a workspace keeps both between checks).
pub(crate) fn plan_with<'a>(
    files: &'a [Candidate],
    context: &'a [Candidate],
    builds: &fplint_core::frontend::kustomize::Plan,
    calls: &(dyn Fn(&PathBuf, &[&Candidate]) -> Vec<PathBuf> + Sync),
) -> Vec<(String, Job<'a>)> {
    // Grouped as the sorted walk gives them, then sorted once: a map keyed
    // by path compares paths component by component at every insert.
    let mut groups: Vec<(GroupKey, Vec<&Candidate>)> = Vec::new();
    let mut jobs: Vec<(String, Job)> = builds
        .roots
        .iter()
        .map(|r| {
            let job = Job {
                input: &inputs::KUSTOMIZE_BUILD,
                shape: Shape::Folder(r.clone(), Vec::new()),
                context: false,
            };
            (fplint_core::sources::display_path(r), job)
        })
        .collect();
    let all = files
        .iter()
        .map(|c| (c, false))
        .chain(context.iter().map(|c| (c, true)));
    for (c, ctx) in all {
        if builds.includes(&c.path) {
            continue;
        }
        let (row, input) = inputs::recognise(&c.path);
        if let Forms::Folder = input.forms {
            let dir = c.path.parent().unwrap_or(Path::new("."));
            match groups.last_mut() {
                Some(((d, x, r), files))
                    if *x == ctx && *r == row && d.as_os_str() == dir.as_os_str() =>
                {
                    files.push(c)
                }
                _ => groups.push(((dir.to_path_buf(), ctx, row), vec![c])),
            }
        } else {
            let job = Job {
                input,
                shape: Shape::File(c),
                context: ctx,
            };
            jobs.push((fplint_core::sources::display_path(&c.path), job));
        }
    }
    // Stable: a folder's files stay in walk order.
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let mut modules: Vec<(GroupKey, Vec<&Candidate>)> = Vec::with_capacity(groups.len());
    for (key, files) in groups {
        match modules.last_mut() {
            Some((k, all)) if *k == key => all.extend(files),
            _ => modules.push((key, files)),
        }
    }
    // A folder another folder of the run calls as a module is linted
    // through its calls; context folders are only read for their clusters.
    let linted: BTreeMap<PathBuf, Vec<&Candidate>> = modules
        .iter()
        .filter(|((_, ctx, row), _)| !ctx && INPUTS[*row].calls.is_some())
        .map(|((d, ..), f)| (d.clone(), f.clone()))
        .collect();
    let mut called = crate::modules::called_folders_with(&linted, calls);
    let dirs: Vec<&PathBuf> = linted.keys().collect();
    // Units of the run, and units read as context because they run a
    // module folder of the run.
    called.extend(crate::terragrunt::called(
        files.iter().chain(context),
        &dirs,
        calls,
    ));
    // A context folder that a unit or another folder runs is read through
    // its caller, not as a root of its own: the run has the clusters the
    // whole tree has, however its paths are named.
    let modules_read: BTreeMap<PathBuf, Vec<&Candidate>> = modules
        .iter()
        .filter(|((_, _, row), _)| INPUTS[*row].calls.is_some())
        .map(|((d, ..), f)| (d.clone(), f.clone()))
        .collect();
    let context_dirs: Vec<&PathBuf> = modules
        .iter()
        .filter(|((_, ctx, row), _)| *ctx && INPUTS[*row].calls.is_some())
        .map(|((d, ..), _)| d)
        .collect();
    let mut read_through =
        crate::terragrunt::called(files.iter().chain(context), &context_dirs, calls);
    if !context_dirs.is_empty() {
        read_through.extend(crate::modules::called_folders_with(&modules_read, calls));
    }
    for ((dir, ctx, row), files) in modules {
        if ctx && read_through.contains(&dir) {
            continue;
        }
        let input = INPUTS[row];
        let input = match &input.calls {
            Some(c) if !ctx && called.contains(&dir) => c.called,
            _ => input,
        };
        let key = fplint_core::sources::display_path(&dir);
        let job = Job {
            input,
            shape: Shape::Folder(dir, files),
            context: ctx,
        };
        jobs.push((key, job));
    }
    jobs.sort_by(|a, b| a.0.cmp(&b.0));
    jobs
}
