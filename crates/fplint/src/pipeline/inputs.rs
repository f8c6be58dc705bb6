//! The kinds of input fplint reads, one row each: how a walked file is
//! recognised as one, the unit it forms, and the loader that models it.
//! Planning and modelling go through this table and call no format's
//! loader by name: a new kind of input is its frontend (in
//! `fplint_core::frontend`), a loader here that calls it, and a row in
//! [`INPUTS`].

use super::model::{
    as_context, guarded, inject_panic, load_candidate, load_error_diagnostic, unreadable,
};
use super::plan::Job;
use super::IN_MEMORY;
use crate::notice::Notice;
use crate::walk::Candidate;
use fplint_core::frontend::{self, UnitOutput};
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use fplint_core::SourceFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How the files of a kind form units.
pub(crate) enum Forms {
    /// Each file is a unit of its own.
    File,
    /// The files of one folder are one unit (a module).
    Folder,
    /// Units its own planner finds (a kustomize build: a folder and what
    /// its kustomizations read); no walked file is recognised as one.
    Planned,
}

/// Folder units that call each other as modules.
pub(crate) struct Calls {
    /// The local folders a folder's files call as modules.
    pub(crate) find: fn(&Path, &[PathBuf], u64) -> Vec<PathBuf>,
    /// The kind of a folder that another folder of the run calls: it is
    /// linted through its calls, not alone.
    pub(crate) called: &'static Input,
}

/// A unit's loader: its model and, for a named file not linted, a notice.
pub(crate) type Load = fn(&Job, &Sources, Limits) -> (UnitOutput, Option<Notice>);

/// Reading one file's text with no file system around it (`lint_bytes`).
pub(crate) struct OneText {
    /// Whether a text of this name is of the kind.
    pub(crate) names: fn(&str) -> bool,
    /// Model the text, already in the sources.
    pub(crate) load: fn(&Candidate, &Arc<SourceFile>, &Sources, Limits) -> UnitOutput,
}

/// One kind of input.
pub(crate) struct Input {
    /// Whether a walked file is of this kind (the first row that says so
    /// takes the file).
    pub(crate) recognises: fn(&Path) -> bool,
    /// The unit its files form.
    pub(crate) forms: Forms,
    /// For folder units that call others as modules.
    pub(crate) calls: Option<Calls>,
    /// Models one unit.
    pub(crate) load: Load,
    /// Its clusters live in the unit's folder (where a root module is
    /// run), whatever file of it defines them.
    pub(crate) home: bool,
    /// A file of this kind is fplint's whatever it holds: one that cannot
    /// be read is FP000, never skipped as someone else's.
    pub(crate) always_ours: bool,
    /// How one file's text of this kind is read alone, if it can be.
    pub(crate) one_text: Option<OneText>,
}

/// A folder of `.tf` and `.tf.json` files: one Terraform module, run
/// where it is.
pub(crate) static TERRAFORM: Input = Input {
    recognises: is_terraform,
    forms: Forms::Folder,
    calls: Some(Calls {
        find: fplint_core::frontend::terraform::local_calls,
        called: &CALLED_MODULE,
    }),
    load: model_terraform,
    home: true,
    always_ours: true,
    one_text: Some(OneText {
        names: |name| name.ends_with(".tf"),
        load: terraform_text,
    }),
};

/// A Terraform module folder that another folder of the run calls.
pub(crate) static CALLED_MODULE: Input = Input {
    recognises: |_| false,
    forms: Forms::Folder,
    calls: None,
    load: model_called,
    home: false,
    always_ours: true,
    one_text: None,
};

/// A kustomize build: a folder whose kustomization is built.
pub(crate) static KUSTOMIZE_BUILD: Input = Input {
    recognises: |_| false,
    forms: Forms::Planned,
    calls: None,
    load: model_build,
    home: false,
    always_ours: false,
    one_text: None,
};

/// A Helm chart of the repository, by its `Chart.yaml` (a subchart is
/// rendered with its parent): rendered with its defaults for any release.
/// A release of the run that uses the chart replaces it (see
/// [`crate::charts::retire_used_defaults`]).
pub(crate) static CHART: Input = Input {
    recognises: crate::charts::is_chart_file,
    forms: Forms::File,
    calls: None,
    load: model_chart,
    home: false,
    always_ours: false,
    one_text: None,
};

/// An infrastructure program read as source, by its project file (a CDK
/// app's `cdk.json`, a Pulumi project's `Pulumi.yaml`): the entry point it
/// names and the program's own modules it imports.
pub(crate) static PROGRAM: Input = Input {
    recognises: |p| {
        fplint_core::frontend::program::is_project_file(p)
            || p.to_str()
                .is_some_and(fplint_core::frontend::program::is_source)
    },
    forms: Forms::File,
    calls: None,
    load: model_program,
    home: false,
    always_ours: true,
    one_text: None,
};

/// A YAML or JSON file (eksctl, CloudFormation, Kubernetes manifests,
/// Terraform plans), recognised by its content: anything else walked.
pub(crate) static DOCUMENT: Input = Input {
    recognises: |_| true,
    forms: Forms::File,
    calls: None,
    load: model_document,
    home: false,
    always_ours: false,
    one_text: Some(OneText {
        names: |_| true,
        load: document_text,
    }),
};

/// A manifest of a folder that a named Argo CD `Application` or Flux
/// `Kustomization` applies (see [`crate::context::Context::applied`]): its
/// workloads are read, for the declaration to place, and nothing in it is
/// reported. Only planning makes one.
pub(crate) static APPLIED: Input = Input {
    recognises: |_| false,
    forms: Forms::File,
    calls: None,
    load: model_applied,
    home: false,
    always_ours: false,
    one_text: None,
};

/// Every kind, in the order a file is tried against them. A unit's kind
/// code (see [`Job::kind`]) is its row's place here. The document is last:
/// it takes what no other row does.
pub(crate) static INPUTS: &[&Input] = &[
    &TERRAFORM,
    &CALLED_MODULE,
    &KUSTOMIZE_BUILD,
    &CHART,
    &APPLIED,
    &PROGRAM,
    &DOCUMENT,
];

/// The row of a walked file, and its place in [`INPUTS`].
pub(crate) fn recognise(path: &Path) -> (usize, &'static Input) {
    INPUTS
        .iter()
        .enumerate()
        .find(|(_, i)| (i.recognises)(path))
        .map_or((INPUTS.len() - 1, &DOCUMENT), |(n, i)| (n, *i))
}

/// The place of `input` in [`INPUTS`].
pub(crate) fn index_of(input: &Input) -> usize {
    INPUTS
        .iter()
        .position(|i| std::ptr::eq(*i, input))
        .unwrap_or(INPUTS.len() - 1)
}

/// The row one file's text of this name is read as, alone.
pub(crate) fn for_text(name: &str) -> &'static Input {
    INPUTS
        .iter()
        .copied()
        .find(|i| i.one_text.as_ref().is_some_and(|t| (t.names)(name)))
        .unwrap_or(&DOCUMENT)
}

/// The local folders the folder `dir` calls as modules, by its files' kind.
pub(crate) fn local_calls(dir: &Path, files: &[&Candidate], max_file_size: u64) -> Vec<PathBuf> {
    let Some(calls) = files
        .first()
        .and_then(|c| recognise(&c.path).1.calls.as_ref())
    else {
        return Vec::new();
    };
    let paths: Vec<PathBuf> = files.iter().map(|c| c.path.clone()).collect();
    (calls.find)(dir, &paths, max_file_size)
}

pub(crate) fn is_terraform(path: &Path) -> bool {
    // `x.tf` has the extension `tf`; `.tf` alone is a name with none.
    fplint_core::path::file_name_bytes(path).is_some_and(|n| n.len() > 3 && n.ends_with(b".tf"))
        || path.as_os_str().as_encoded_bytes().ends_with(b".tf.json")
}

fn model_document(job: &Job, sources: &Sources, limits: Limits) -> (UnitOutput, Option<Notice>) {
    match job.files() {
        [c] => load_document(c, job.context, sources, limits),
        _ => (UnitOutput::default(), None),
    }
}

fn model_applied(job: &Job, sources: &Sources, limits: Limits) -> (UnitOutput, Option<Notice>) {
    let [c] = job.files() else {
        return (UnitOutput::default(), None);
    };
    let Ok(f) = load_candidate(sources, c) else {
        return (UnitOutput::default(), None);
    };
    let mut unit = guarded(c, sources, || frontend::load_document_file(&f, limits));
    unit.context_files.push(f.id);
    let given = std::mem::take(&mut unit.given_files);
    unit.context_files.extend(given);
    unit.diagnostics.clear();
    unit.suppressions.clear();
    (unit, None)
}

fn model_terraform(job: &Job, sources: &Sources, limits: Limits) -> (UnitOutput, Option<Notice>) {
    let mut unit = load_terraform(job.dir(), job.files(), sources, limits);
    if job.context {
        as_context(&mut unit);
    } else {
        crate::charts::render_declared(&mut unit, sources, limits);
    }
    (unit, None)
}

fn model_chart(job: &Job, sources: &Sources, limits: Limits) -> (UnitOutput, Option<Notice>) {
    let [c] = job.files() else {
        return (UnitOutput::default(), None);
    };
    let mut unit = guarded(c, sources, || {
        crate::charts::render_defaults(&c.path, sources, limits)
    });
    if job.context {
        as_context(&mut unit);
    }
    (unit, None)
}

fn model_build(job: &Job, sources: &Sources, limits: Limits) -> (UnitOutput, Option<Notice>) {
    let mut unit = load_build(job.dir(), sources, limits);
    // Releases the build applies (a Flux `HelmRelease` among its resources).
    crate::charts::render_declared(&mut unit, sources, limits);
    (unit, None)
}

fn model_program(job: &Job, sources: &Sources, limits: Limits) -> (UnitOutput, Option<Notice>) {
    let [c] = job.files() else {
        return (UnitOutput::default(), None);
    };
    let named = match load_candidate(sources, c) {
        Ok(f) => f,
        Err(e) => return (unreadable(sources, c, &e, false), None),
    };
    // A source file named alone (pre-commit) is read as part of its app;
    // findings elsewhere in the app are context.
    let source =
        !fplint_core::frontend::program::is_project_file(std::path::Path::new(&named.path));
    let f = if source {
        let config = c.path.ancestors().skip(1).take(16).find_map(|d| {
            ["cdk.json", "Pulumi.yaml", "Pulumi.yml"]
                .iter()
                .map(|n| d.join(n))
                .find(|p| p.is_file())
        });
        match config.map(|p| sources.load(&p)) {
            Some(Ok(f)) => f,
            _ => {
                let shown = fplint_core::sources::display_path(&c.path);
                let notice = Notice::new(
                    crate::notice::NoticeKind::Skipped,
                    Some(shown),
                    "not part of a CDK app or Pulumi project: no `cdk.json` or `Pulumi.yaml` in its folder or above it",
                );
                return (UnitOutput::default(), Some(notice));
            }
        }
    } else {
        named.clone()
    };
    let mut program = None;
    let mut unit = guarded(c, sources, || {
        use fplint_core::frontend::program;
        let mut p = program::load_program(&f, sources, limits);
        // A source file the app's entry point does not reach may be an entry
        // point of its own (`cdk synth --app bin/other.ts`): read from it.
        if source && f.path.ends_with("cdk.json") && !p.unit.given_files.contains(&named.id) {
            p = program::load_cdk_app_from(&f, sources, limits, Some(c.path.clone()));
        }
        let unit = std::mem::take(&mut { p.unit });
        program = Some((p.gaps, p.no_entry));
        unit
    });
    if job.context {
        as_context(&mut unit);
        return (unit, None);
    }
    crate::charts::render_declared(&mut unit, sources, limits);
    let (mut gaps, no_entry) = program.unwrap_or_default();
    if source {
        let others: Vec<_> = unit
            .given_files
            .iter()
            .copied()
            .filter(|id| *id != named.id)
            .collect();
        unit.given_files = vec![named.id];
        unit.context_files.extend(others);
        unit.diagnostics.retain(|d| d.span.file == named.id);
        gaps.retain(|(span, _)| span.file == named.id);
    }
    (unit, crate::notice::program(c, &gaps, no_entry, sources))
}

fn model_called(job: &Job, sources: &Sources, _: Limits) -> (UnitOutput, Option<Notice>) {
    (load_called(job.files(), sources), None)
}

fn document_text(
    c: &Candidate,
    f: &Arc<SourceFile>,
    sources: &Sources,
    limits: Limits,
) -> UnitOutput {
    guarded(c, sources, || frontend::load_document_file(f, limits))
}

/// A module of one file, whose local modules and `file()` read nothing.
fn terraform_text(
    c: &Candidate,
    f: &Arc<SourceFile>,
    sources: &Sources,
    limits: Limits,
) -> UnitOutput {
    let dir = PathBuf::from(IN_MEMORY);
    let mut out = guarded(c, sources, || {
        fplint_core::frontend::terraform::load_module(
            &dir,
            std::slice::from_ref(f),
            sources,
            limits,
        )
    });
    out.diagnostics.retain(|d| d.span.file == f.id);
    out
}

fn load_document(
    c: &Candidate,
    context: bool,
    sources: &Sources,
    limits: Limits,
) -> (UnitOutput, Option<Notice>) {
    match load_candidate(sources, c) {
        Ok(f) => {
            let terragrunt = crate::terragrunt::is_unit(&c.path);
            let mut unit = guarded(c, sources, || {
                inject_panic(c);
                if terragrunt {
                    return frontend::terragrunt::load_unit(&f, sources, limits);
                }
                frontend::load_document_file(&f, limits)
            });
            if context {
                unit.context_files.push(f.id);
                // A unit read because it runs a module folder of the run:
                // the workloads in that code are the run's (findings in the
                // unit's own files are not reported).
                let workloads = terragrunt.then(|| std::mem::take(&mut unit.workloads));
                as_context(&mut unit);
                if let Some(w) = workloads {
                    unit.workloads = w;
                }
                return (unit, None);
            }
            if terragrunt {
                crate::terragrunt::own_module_code(&mut unit, &c.path, sources, limits);
            }
            crate::charts::render_declared(&mut unit, sources, limits);
            // A unit is not a named YAML or JSON file to judge.
            let notice = match &unit.script {
                Some(note) => crate::named::script(c, &f, &unit, note),
                None => (!terragrunt)
                    .then(|| crate::named::judge(c, &f, &unit, limits))
                    .flatten(),
            };
            (unit, notice)
        }
        Err(e) => {
            let mut unit = unreadable(sources, c, &e, false);
            if context {
                as_context(&mut unit);
                return (unit, None);
            }
            let notice = crate::named::unreadable(c, &e, &unit);
            (unit, notice)
        }
    }
}

fn load_build(dir: &Path, sources: &Sources, limits: Limits) -> UnitOutput {
    let c = Candidate {
        path: dir.to_path_buf(),
        explicit: false,
        listed_file: false,
    };
    guarded(&c, sources, || {
        fplint_core::frontend::kustomize::build(dir, sources, limits)
    })
}

fn load_terraform(
    dir: &Path,
    files: &[&Candidate],
    sources: &Sources,
    limits: Limits,
) -> UnitOutput {
    let mut given = Vec::new();
    let mut errors = Vec::new();
    for c in files {
        match load_candidate(sources, c) {
            Ok(f) => given.push(f),
            Err(e) => errors.extend(load_error_diagnostic(sources, c, &e)),
        }
    }
    let mut out = match files.first() {
        Some(c) => guarded(c, sources, || {
            fplint_core::frontend::terraform::load_module(dir, &given, sources, limits)
        }),
        None => UnitOutput::default(),
    };
    // Siblings are read for context only.
    out.diagnostics
        .retain(|d| given.iter().any(|g| g.id == d.span.file));
    out.diagnostics.extend(errors);
    out
}

/// A called module's files: named, so findings in them are reported, and
/// checked for syntax; their content is modelled through the calls.
fn load_called(files: &[&Candidate], sources: &Sources) -> UnitOutput {
    let mut out = UnitOutput {
        formats: vec![fplint_core::frontend::Format::Terraform],
        ..UnitOutput::default()
    };
    let mut given = Vec::new();
    for c in files {
        match load_candidate(sources, c) {
            Ok(f) => given.push(f),
            Err(e) => out
                .diagnostics
                .extend(load_error_diagnostic(sources, c, &e)),
        }
    }
    out.diagnostics
        .extend(fplint_core::frontend::terraform::syntax_errors(&given));
    out.given_files = given.iter().map(|f| f.id).collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::plan::Shape;

    #[test]
    fn terraform_files_are_told_as_their_extension_tells_them() {
        for p in [
            "main.tf",
            "a/main.tf",
            ".tf",
            "a/.tf",
            "..tf",
            "a/b.tf/",
            "a/b.tf/.",
            "x.tf.json",
            "a/x.tf.json",
            "a.tfvars",
            "tf",
            "a/tf",
            "a.TF",
            "main.tf.bak",
            "",
        ] {
            let path = Path::new(p);
            let by_path = path.extension().is_some_and(|e| e == "tf")
                || path.to_string_lossy().ends_with(".tf.json");
            assert_eq!(is_terraform(path), by_path, "{p}");
        }
    }

    fn candidate(path: &str) -> Candidate {
        Candidate {
            path: PathBuf::from(path),
            explicit: false,
            listed_file: true,
        }
    }

    #[test]
    fn a_walked_file_is_recognised_by_the_first_row_that_says_so() {
        let row = |p: &str| recognise(Path::new(p)).1 as *const Input;
        assert_eq!(row("infra/main.tf"), &TERRAFORM as *const Input);
        assert_eq!(row("infra/main.tf.json"), &TERRAFORM as *const Input);
        assert_eq!(row("cluster.yaml"), &DOCUMENT as *const Input);
        assert_eq!(row("template.json"), &DOCUMENT as *const Input);
        // Units only planning or calls make are never a walked file's kind.
        assert_eq!(row("kustomization.yaml"), &DOCUMENT as *const Input);
    }

    #[test]
    fn a_text_alone_is_terraform_only_by_a_tf_name() {
        assert!(std::ptr::eq(for_text("main.tf"), &TERRAFORM));
        // As before the registry: a `.tf.json` text alone is read as JSON.
        assert!(std::ptr::eq(for_text("main.tf.json"), &DOCUMENT));
        assert!(std::ptr::eq(for_text("-"), &DOCUMENT));
    }

    #[test]
    fn a_unit_is_made_again_from_its_kind_and_files() {
        let tf = [candidate("infra/main.tf"), candidate("infra/vars.tf")];
        let doc = candidate("k8s/app.yaml");
        for context in [false, true] {
            for input in [&TERRAFORM, &CALLED_MODULE] {
                let job = Job {
                    input,
                    shape: Shape::Folder(PathBuf::from("infra"), tf.iter().collect()),
                    context,
                };
                let again = Job::again(job.kind(), tf.iter().collect());
                let again = again.as_ref();
                assert!(again.is_some_and(|j| std::ptr::eq(j.input, input)));
                assert!(again.is_some_and(|j| j.context == context));
                assert!(again.is_some_and(|j| j.dir() == Path::new("infra")));
                assert_eq!(again.map(Job::paths), Some(job.paths()));
            }
            let job = Job {
                input: &DOCUMENT,
                shape: Shape::File(&doc),
                context,
            };
            let again = Job::again(job.kind(), vec![&doc]);
            assert!(again.as_ref().is_some_and(|j| j.kind() == job.kind()));
            assert_eq!(
                again.as_ref().map(Job::paths),
                Some(vec![doc.path.as_path()])
            );
        }
        // A build is found by planning alone.
        let build = Job {
            input: &KUSTOMIZE_BUILD,
            shape: Shape::Folder(PathBuf::from("overlays/prod"), Vec::new()),
            context: false,
        };
        assert!(Job::again(build.kind(), Vec::new()).is_none());
        assert_eq!(build.planned_root(), Some(&PathBuf::from("overlays/prod")));
    }

    #[test]
    fn every_kind_has_its_own_code() {
        let mut codes: Vec<u8> = INPUTS
            .iter()
            .flat_map(|input| {
                [false, true].map(|context| {
                    Job {
                        input,
                        shape: Shape::Folder(PathBuf::new(), Vec::new()),
                        context,
                    }
                    .kind()
                })
            })
            .collect();
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n);
    }
}
