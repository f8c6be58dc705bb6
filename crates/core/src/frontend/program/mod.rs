//! Infrastructure programs (AWS CDK, Pulumi) read as source: each language's
//! reader lowers to [`syntax`], the [`eval`]uator runs what the program
//! computes, and the hosts ([`cdk`], [`pulumi`]) write what it declares as
//! the CloudFormation template that declares the same (for CDK, the one
//! `cdk synth` writes), which the CloudFormation frontend reads into the
//! model.

pub mod blueprints;
pub mod cdk;
pub mod eval;
pub mod pulumi;
pub mod python;
pub mod syntax;
pub mod typescript;

use crate::diagnostic::Diagnostic;
use crate::source::{SourceFile, Span};
use crate::sources::Sources;
use crate::tree::{Limits, Node};
use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A lowered file and the syntax errors found in it.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The file's statements.
    pub module: syntax::Module,
    /// Syntax errors, each an FP000 at its place.
    pub diagnostics: Vec<Diagnostic>,
}

/// The FP000 for nesting deeper than `limits.max_depth`, at `span`: the
/// same in every reader.
fn too_deep(limits: &Limits, span: Span) -> Diagnostic {
    let message = format!(
        "nesting deeper than {} levels (limits.max-depth)",
        limits.max_depth
    );
    let help = super::parse_help(&message, "");
    Diagnostic::parse_error(message, span)
        .with_label("here")
        .with_help(help)
}

/// Text alone is a string; text with expressions a template.
fn template_or_str(parts: Vec<syntax::TemplatePart>) -> syntax::ExprKind {
    use syntax::{ExprKind, TemplatePart};
    if parts.iter().all(|p| matches!(p, TemplatePart::Text(_))) {
        let mut s = String::new();
        for p in parts {
            if let TemplatePart::Text(t) = p {
                s.push_str(&t);
            }
        }
        ExprKind::Str(s)
    } else {
        ExprKind::Template(parts)
    }
}

/// Whether a path names a program source file (TypeScript, JavaScript or
/// Python), which is read through its program, never walked.
pub fn is_source(path: &str) -> bool {
    language(Path::new(path)).is_some()
}

/// The languages a program's files are read in, by extension.
fn language(path: &Path) -> Option<Language> {
    match path.extension()?.to_str()? {
        "py" => Some(Language::Python),
        "ts" | "tsx" | "mts" | "cts" | "js" | "mjs" | "cjs" => Some(Language::TypeScript),
        _ => None,
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Language {
    Python,
    TypeScript,
}

/// Programs larger than this many files are read only that far.
const MAX_MODULES: usize = 2_000;

/// What reading a program found.
#[derive(Debug, Default)]
pub struct Program {
    /// The model of what it declares.
    pub unit: super::UnitOutput,
    /// What the program does that fplint did not follow, once each, with
    /// where it is written.
    pub gaps: Vec<(Span, String)>,
    /// The program's entry point could not be found or read: why.
    pub no_entry: Option<String>,
    /// What was read: each stack's id and the template written for it.
    pub templates: Vec<(String, Node)>,
}

/// A program read from `config`, and the folder it is in.
fn start(config: &SourceFile) -> (Program, PathBuf) {
    let mut out = Program::default();
    out.unit.formats.push(super::Format::Program);
    let dir = Path::new(&config.path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    (out, dir)
}

/// The project file does not parse: an FP000 at the error, nothing read.
fn unparsed(mut out: Program, err: crate::tree::TreeError, file: &str) -> Program {
    out.unit.diagnostics.push(
        Diagnostic::parse_error(err.message, err.span)
            .with_label("here")
            .with_help(format!(
                "fix the syntax error; fplint reads the program once `{file}` parses"
            )),
    );
    out
}

/// Read a CDK app from its `cdk.json`: its `app` command names the entry
/// point, whose imports of the program's own files are followed.
pub fn load_cdk_app(config: &SourceFile, sources: &Sources, limits: Limits) -> Program {
    load_cdk_app_from(config, sources, limits, None)
}

/// Read a CDK app from `entry` rather than its `app` command, as
/// `cdk synth --app` does (a second entry point beside the app's).
pub fn load_cdk_app_from(
    config: &SourceFile,
    sources: &Sources,
    limits: Limits,
    entry: Option<PathBuf>,
) -> Program {
    let (mut out, dir) = start(config);
    let parsed = crate::tree::json::parse(&config.text, config.id, limits);
    if let Some(err) = parsed.error {
        return unparsed(out, err, "cdk.json");
    }
    let app = parsed
        .documents
        .first()
        .and_then(|d| d.get("app"))
        .and_then(|n| n.as_str().map(|s| (s.to_string(), n.span)));
    let entry = match (entry, app) {
        (Some(e), _) => e,
        (None, None) => {
            out.no_entry = Some("`cdk.json` has no `app` command naming the entry point".into());
            return out;
        }
        (None, Some((command, _))) => match entry_of(&command, &dir) {
            Some(e) => e,
            None => {
                out.no_entry = Some(format!(
                    "the entry point of `{command}` is not a TypeScript, JavaScript or Python file of the app"
                ));
                return out;
            }
        },
    };
    let modules = match load_modules(&entry, &dir, sources, limits, &mut out.unit) {
        Some(m) => m,
        None => {
            out.no_entry = Some(format!(
                "the entry point `{}` could not be read",
                entry.display()
            ));
            return out;
        }
    };
    let context = parsed
        .documents
        .first()
        .and_then(|d| d.get("context"))
        .cloned();
    let (templates, gaps) = run(&modules, || {
        let mut host = cdk::Cdk::default();
        host.context = context;
        host
    });
    finish(
        config,
        &modules,
        templates,
        gaps,
        crate::model::Provisioner::Cdk,
        out,
    )
}

/// What a host gives back once the program ran.
trait Finished<'m>: eval::Host<'m> {
    fn saw_import(&self, module: &str, span: Span);
    fn note_missing_cluster(&mut self);
    fn gaps(&mut self) -> &mut Vec<cdk::Gap>;
    fn templates(&mut self) -> Vec<cdk::Stack>;
}

impl<'m> Finished<'m> for cdk::Cdk {
    fn saw_import(&self, module: &str, span: Span) {
        cdk::Cdk::saw_import(self, module, span)
    }
    fn note_missing_cluster(&mut self) {
        cdk::Cdk::note_missing_cluster(self)
    }
    fn gaps(&mut self) -> &mut Vec<cdk::Gap> {
        &mut self.gaps
    }
    fn templates(&mut self) -> Vec<cdk::Stack> {
        cdk::Cdk::templates(self)
    }
}

impl<'m> Finished<'m> for pulumi::Pulumi {
    fn saw_import(&self, module: &str, span: Span) {
        pulumi::Pulumi::saw_import(self, module, span)
    }
    fn note_missing_cluster(&mut self) {
        pulumi::Pulumi::note_missing_cluster(self);
        self.note_foreign();
    }
    fn gaps(&mut self) -> &mut Vec<cdk::Gap> {
        &mut self.gaps
    }
    fn templates(&mut self) -> Vec<cdk::Stack> {
        pulumi::Pulumi::templates(self)
    }
}

/// Run the program's modules with the host `make` builds: the templates
/// it declares and what was not followed.
fn run<H>(modules: &Modules, make: impl FnOnce() -> H + Send) -> (Vec<cdk::Stack>, Vec<cdk::Gap>)
where
    H: for<'m> Finished<'m>,
{
    let entry_file = modules.files.first().map(|f| f.id);
    // The evaluator recurses as deep as the program nests.
    crate::stack::with_large_stack(|| {
        let mut host = make();
        for m in &modules.loaded {
            for s in &m.module.body {
                if let syntax::Stmt::Import { from, span, .. } = s {
                    host.saw_import(from, *span);
                }
            }
        }
        let exhausted = {
            let mut ev = eval::Evaluator::new(&modules.loaded, &mut host);
            ev.run(0);
            ev.exhausted
        };
        if let (true, Some(file)) = (exhausted, entry_file) {
            host.gaps().push(cdk::Gap {
                span: Span::new(file, 0, 0),
                what: "the program takes more steps than fplint follows".into(),
            });
        }
        host.note_missing_cluster();
        let gaps = std::mem::take(host.gaps());
        (host.templates(), gaps)
    })
}

/// The model of the templates a program declares.
fn finish(
    config: &SourceFile,
    modules: &Modules,
    templates: Vec<cdk::Stack>,
    gaps: Vec<cdk::Gap>,
    provisioner: crate::model::Provisioner,
    mut out: Program,
) -> Program {
    for stack in &templates {
        super::cloudformation::load(config, &stack.template, &mut out.unit);
    }
    out.templates = templates.into_iter().map(|s| (s.id, s.template)).collect();
    for c in &mut out.unit.clusters {
        c.provisioner = provisioner;
    }
    out.unit.given_files = modules.files.iter().map(|f| f.id).collect();
    out.unit.given_files.push(config.id);
    out.gaps = gaps.into_iter().map(|g| (g.span, g.what)).collect();
    out
}

/// A template as `fplint render` shows it: a value not computed is
/// `__FPLINT_UNKNOWN__`, as in a rendered chart.
pub fn shown(node: &Node) -> Node {
    use crate::tree::{Entry, NodeKind};
    let kind = match &node.kind {
        NodeKind::Map(entries) => match entries.as_slice() {
            [e] if e.key.scalar() == Some("Fn::ImportValue")
                && e.value
                    .scalar()
                    .is_some_and(|v| v.starts_with("fplint:not-computed")) =>
            {
                NodeKind::Scalar(
                    fplint_helm::UNKNOWN_MARKER.into(),
                    crate::tree::ScalarStyle::Plain,
                )
            }
            _ => NodeKind::Map(
                entries
                    .iter()
                    .map(|e| Entry {
                        key: e.key.clone(),
                        value: shown(&e.value),
                    })
                    .collect(),
            ),
        },
        NodeKind::Seq(items) => NodeKind::Seq(items.iter().map(shown).collect()),
        k => k.clone(),
    };
    Node {
        kind,
        span: node.span,
        tag: None,
    }
}

/// Whether a file is a program's project file (`cdk.json`, `Pulumi.yaml`).
pub fn is_project_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| matches!(n, "cdk.json" | "Pulumi.yaml" | "Pulumi.yml"))
}

/// Read a program from its project file: a CDK app's `cdk.json` or a
/// Pulumi project's `Pulumi.yaml`.
pub fn load_program(config: &SourceFile, sources: &Sources, limits: Limits) -> Program {
    let name = Path::new(&config.path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if name.starts_with("Pulumi.") {
        load_pulumi_project(config, sources, limits)
    } else {
        load_cdk_app(config, sources, limits)
    }
}

/// Read a Pulumi project from its `Pulumi.yaml`: `main` (or the runtime's
/// default, `index.ts` or `__main__.py`) is the entry point; the committed
/// stacks' `Pulumi.<stack>.yaml` give what `pulumi.Config` reads.
pub fn load_pulumi_project(config: &SourceFile, sources: &Sources, limits: Limits) -> Program {
    let (mut out, dir) = start(config);
    let parsed = crate::tree::yaml::parse(&config.text, config.id, limits);
    if let Some(err) = parsed.error {
        return unparsed(out, err, "Pulumi.yaml");
    }
    let Some(doc) = parsed.documents.first() else {
        out.no_entry = Some("`Pulumi.yaml` is empty".into());
        return out;
    };
    let runtime = doc
        .get("runtime")
        .and_then(|r| r.as_str().or_else(|| r.get("name").and_then(Node::as_str)))
        .unwrap_or("")
        .to_string();
    let lang = match runtime.as_str() {
        "nodejs" => Language::TypeScript,
        "python" => Language::Python,
        other => {
            out.no_entry = Some(format!(
                "the runtime `{other}` is not read (fplint reads `nodejs` and `python` programs)"
            ));
            return out;
        }
    };
    let main = doc.get("main").and_then(Node::as_str).unwrap_or("");
    let Some(entry) = pulumi_entry(&dir.join(main), lang) else {
        out.no_entry = Some(format!(
            "no entry point found for the `{runtime}` program (`main` in `Pulumi.yaml`, or {})",
            if lang == Language::Python {
                "`__main__.py`"
            } else {
                "`index.ts`"
            }
        ));
        return out;
    };
    let Some(modules) = load_modules(&entry, &dir, sources, limits, &mut out.unit) else {
        out.no_entry = Some(format!(
            "the entry point `{}` could not be read",
            entry.display()
        ));
        return out;
    };
    let project = doc
        .get("name")
        .and_then(Node::as_str)
        .unwrap_or("")
        .to_string();
    let stacks = stack_configs(&dir, sources, limits);
    let (templates, gaps) = run(&modules, || pulumi::Pulumi::new(project, stacks));
    finish(
        config,
        &modules,
        templates,
        gaps,
        crate::model::Provisioner::Pulumi,
        out,
    )
}

/// The program a Pulumi project runs: `main` as a file, or its folder's
/// `index.ts` (or `package.json`'s `main`) or `__main__.py`.
fn pulumi_entry(main: &Path, lang: Language) -> Option<PathBuf> {
    if main.is_file() {
        if main.extension().is_some_and(|e| e == "js") {
            let ts = main.with_extension("ts");
            if ts.is_file() {
                return Some(ts);
            }
        }
        return language(main).is_some().then(|| main.to_path_buf());
    }
    if lang == Language::Python {
        let m = main.join("__main__.py");
        return m.is_file().then_some(m);
    }
    let declared = std::fs::read_to_string(main.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("main").and_then(|m| m.as_str()).map(str::to_string));
    let mut candidates = Vec::new();
    if let Some(d) = declared {
        let p = main.join(&d);
        candidates.push(p.with_extension("ts"));
        // `bin/index.js` compiled from `index.ts`.
        if let Some(file) = p.file_name() {
            candidates.push(main.join(Path::new(file).with_extension("ts")));
        }
        candidates.push(p);
    }
    candidates.extend(["index.ts", "index.js", "main.ts"].map(|n| main.join(n)));
    candidates.into_iter().find(|c| c.is_file())
}

/// The `config` of each `Pulumi.<stack>.yaml` beside the project file.
fn stack_configs(dir: &Path, sources: &Sources, limits: Limits) -> Vec<crate::tree::Node> {
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("Pulumi.")
                    && (n.ends_with(".yaml") || n.ends_with(".yml"))
                    && n.matches('.').count() == 2
            })
        })
        .map(|p| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(p.file_name().unwrap_or_default())
            } else {
                p
            }
        })
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|p| sources.load(p).ok())
        .map(|f| {
            let parsed = crate::tree::yaml::parse(&f.text, f.id, limits);
            parsed
                .documents
                .first()
                .and_then(|d| d.get("config"))
                .cloned()
                .unwrap_or_else(|| Node {
                    kind: crate::tree::NodeKind::Map(Vec::new()),
                    span: Span::new(f.id, 0, 0),
                    tag: None,
                })
        })
        .collect()
}

/// The program file a `cdk.json` `app` command runs: the first argument
/// that names a source file of the app (`npx ts-node bin/app.ts`,
/// `python3 app.py`); a compiled `.js` stands for its `.ts`.
fn entry_of(command: &str, dir: &Path) -> Option<PathBuf> {
    for word in command.split_whitespace() {
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        let path = Path::new(word);
        if language(path).is_none() {
            continue;
        }
        let full = dir.join(path);
        if full.is_file() {
            if path.extension().is_some_and(|e| e == "js") {
                // `node build/bin/app.js`: its source is `bin/app.ts`.
                let ts = full.with_extension("ts");
                if ts.is_file() {
                    return Some(ts);
                }
            }
            return Some(full);
        }
        // A compiled entry (`lib/bin/app.js`) whose source is beside it.
        let comps: Vec<_> = path.components().collect();
        for skip in 1..comps.len() {
            let rest: PathBuf = comps[skip..].iter().collect();
            let ts = dir.join(rest.with_extension("ts"));
            if ts.is_file() {
                return Some(ts);
            }
        }
    }
    None
}

struct Modules {
    loaded: Vec<eval::Loaded>,
    files: Vec<Arc<SourceFile>>,
}

fn load_modules(
    entry: &Path,
    root: &Path,
    sources: &Sources,
    limits: Limits,
    unit: &mut super::UnitOutput,
) -> Option<Modules> {
    let mut paths: Vec<PathBuf> = vec![entry.to_path_buf()];
    let mut index: HashMap<PathBuf, usize> = HashMap::default();
    index.insert(entry.to_path_buf(), 0);
    let mut out = Modules {
        loaded: Vec::new(),
        files: Vec::new(),
    };
    let package_roots = python_package_roots(root);
    let mut i = 0;
    while i < paths.len() && i < MAX_MODULES {
        let path = paths[i].clone();
        let file = match sources.load(&path) {
            Ok(f) => f,
            Err(_) if i == 0 => return None,
            Err(_) => {
                // Read as an empty module: its exports are unknown.
                out.loaded.push(eval::Loaded {
                    module: syntax::Module::default(),
                    imports: HashMap::default(),
                    python: false,
                });
                i += 1;
                continue;
            }
        };
        let lang = language(&path).unwrap_or(Language::TypeScript);
        let parsed = match lang {
            Language::Python => python::parse(&file.text, file.id, &limits),
            Language::TypeScript => typescript::parse(&file.text, file.id, &file.path, &limits),
        };
        unit.diagnostics.extend(parsed.diagnostics);
        let mut imports = HashMap::default();
        for from in import_names(&parsed.module.body, lang == Language::Python) {
            let installed = || {
                // An installed package of the app (`pip install -e .`).
                (lang == Language::Python && !from.starts_with('.'))
                    .then(|| {
                        package_roots
                            .iter()
                            .find_map(|r| resolve(&from, &path, r, lang))
                    })
                    .flatten()
            };
            let Some(target) = resolve(&from, &path, root, lang).or_else(installed) else {
                continue;
            };
            let n = *index.entry(target.clone()).or_insert_with(|| {
                paths.push(target);
                paths.len() - 1
            });
            imports.insert(from, n);
        }
        out.loaded.push(eval::Loaded {
            module: parsed.module,
            imports,
            python: lang == Language::Python,
        });
        out.files.push(file);
        i += 1;
    }
    // Modules past the limit are empty: what they export is unknown.
    while out.loaded.len() < paths.len() {
        out.loaded.push(eval::Loaded {
            module: syntax::Module::default(),
            imports: HashMap::default(),
            python: false,
        });
    }
    Some(out)
}

/// Every module an import statement names, with `from X import a` also as
/// `X.a` (a submodule, in Python).
fn import_names(body: &[syntax::Stmt], python: bool) -> Vec<String> {
    let mut out = Vec::new();
    for s in body {
        match s {
            syntax::Stmt::Import { from, names, .. } => {
                out.push(from.clone());
                // Only Python imports a submodule by name.
                for n in names.iter().filter(|_| python) {
                    if let syntax::Imported::Named { name, .. } = n {
                        out.push(format!("{from}.{name}"));
                    }
                }
            }
            syntax::Stmt::Block { body, .. } => out.extend(import_names(body, python)),
            syntax::Stmt::If {
                then, otherwise, ..
            } => {
                out.extend(import_names(then, python));
                out.extend(import_names(otherwise, python));
            }
            _ => {}
        }
    }
    out
}

/// Where a Python app's own packages are installed from, besides its
/// folder: `src/`, and the folder `package_dir` names in `setup.py` or
/// `package-dir` in `pyproject.toml` (`pip install -e .`).
fn python_package_roots(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("src")];
    for (file, key) in [
        ("setup.py", "package_dir"),
        ("pyproject.toml", "package-dir"),
    ] {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        // `package_dir={"": "lib"}` or `[tool.setuptools.package-dir]` `"" = "lib"`.
        let Some(at) = text.find(key) else { continue };
        let mut end = text.len().min(at + 200);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let rest = &text[at..end];
        let Some(empty) = rest.find("\"\"").or_else(|| rest.find("''")) else {
            continue;
        };
        let after = rest[empty + 2..]
            .trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '=');
        if let Some(q @ ('"' | '\'')) = after.chars().next() {
            if let Some(len) = after[1..].find(q) {
                let dir = &after[1..1 + len];
                if !dir.is_empty() && !dir.contains("..") {
                    out.push(root.join(dir));
                }
            }
        }
    }
    out.retain(|d| d.is_dir());
    out.dedup();
    out
}

/// The program file an import names, when it is one of the app's.
fn resolve(from: &str, importer: &Path, root: &Path, lang: Language) -> Option<PathBuf> {
    let here = importer.parent().unwrap_or(root);
    match lang {
        Language::TypeScript => {
            if !from.starts_with('.') {
                return None;
            }
            let base = here.join(from);
            let base = normalise(&base);
            let mut candidates = vec![base.clone()];
            for ext in ["ts", "tsx", "mts", "js", "mjs", "cjs"] {
                candidates.push(append_ext(&base, ext));
                candidates.push(base.join(format!("index.{ext}")));
            }
            // `./stack.js` in ESM source names `./stack.ts`.
            if let Some(stem) = from.strip_suffix(".js") {
                candidates.push(normalise(&here.join(format!("{stem}.ts"))));
            }
            candidates.into_iter().find(|c| c.is_file())
        }
        Language::Python => {
            let dots = from.chars().take_while(|c| *c == '.').count();
            let rest = &from[dots..];
            let mut base = if dots == 0 {
                root.to_path_buf()
            } else {
                let mut b = here.to_path_buf();
                for _ in 1..dots {
                    b = b.parent()?.to_path_buf();
                }
                b
            };
            for part in rest.split('.').filter(|p| !p.is_empty()) {
                base.push(part);
            }
            let file = append_ext(&base, "py");
            if file.is_file() {
                return Some(file);
            }
            let init = base.join("__init__.py");
            (init.is_file() && !rest.is_empty()).then_some(init)
        }
    }
}

fn append_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_os_string();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// `a/./b/../c` as `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}
