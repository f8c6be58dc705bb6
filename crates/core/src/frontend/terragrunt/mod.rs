//! Terragrunt: a `terragrunt.hcl` is a unit, one run of the module its
//! `terraform { source }` names with its `inputs` as variables. The unit's
//! configuration is evaluated as Terragrunt does (`config`): includes
//! merged, locals, dependencies' outputs where the dependency's module
//! computes them. The unit is then modelled by the Terraform frontend as a
//! root module holding one call of that module whose arguments are the
//! inputs, written so that every span points into the unit's files.
//! A `terragrunt.stack.hcl` is a root holding one such call per `unit`.

mod config;
mod paths;

#[cfg(test)]
mod tests;

use crate::diagnostic::Diagnostic;
use crate::frontend::terraform::eks_module::{self, Kind};
use crate::frontend::terraform::roots::Defined;
use crate::frontend::terraform::{load_written, Written};
use crate::frontend::UnitOutput;
use crate::model::ModuleCall;
use crate::source::{FileId, SourceFile, Span};
use crate::sources::Sources;
use crate::tree::Limits;
use crate::value::{Value, ValueKind};
use config::{Config, Dependency, Include, Input, Merge, Parsed, Place, Terragrunt};
use paths::{abs, relative, shown};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A unit's configuration file.
pub const UNIT_FILE: &str = "terragrunt.hcl";
/// A stack's configuration file.
pub const STACK_FILE: &str = "terragrunt.stack.hcl";

/// Units and configuration files read below one unit at most, through
/// dependencies and `read_terragrunt_config`: a bound on hostile trees.
const MAX_DEPTH: usize = 8;

/// Configuration files evaluated for one unit at most (includes, read
/// configurations, dependencies and theirs): a bound on hostile trees
/// whose files read each other many times over.
const MAX_READS: usize = 256;

/// `read_terragrunt_config` calls nested at most.
const MAX_READ_DEPTH: usize = 3;

/// The module call each unit becomes.
const CALL: &str = "terragrunt";

/// Whether a file is a Terragrunt unit or stack.
pub fn is_unit_file(path: &Path) -> bool {
    crate::path::file_name_bytes(path)
        .is_some_and(|n| n == UNIT_FILE.as_bytes() || n == STACK_FILE.as_bytes())
}

/// Model the unit (or stack) whose configuration is `file`, already read
/// through `sources`. Included files, dependencies and the module's code are
/// read through `sources` for context.
pub fn load_unit(file: &Arc<SourceFile>, sources: &Sources, limits: Limits) -> UnitOutput {
    crate::stack::with_large_stack(|| load_here(file, sources, limits))
}

fn load_here(file: &Arc<SourceFile>, sources: &Sources, limits: Limits) -> UnitOutput {
    let shown_path = PathBuf::from(&file.path);
    let dir = shown_path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let loader = Loader::new(sources, limits);
    let parsed = match config::parse(file.clone()) {
        Ok(p) => p,
        Err((span, message)) => {
            let mut out = UnitOutput {
                formats: vec![crate::frontend::Format::Terraform],
                given_files: vec![file.id],
                ..UnitOutput::default()
            };
            out.diagnostics.push(
                Diagnostic::parse_error(format!("invalid HCL: {message}"), span)
                    .with_label("here")
                    .with_help("fix the syntax error; fplint checks the unit once it parses"),
            );
            return out;
        }
    };
    let stack = shown_path
        .file_name()
        .is_some_and(|n| n.to_string_lossy() == STACK_FILE);
    // A unit a stack generates (it reads the stack's `values`) is linted
    // through the stack: alone, its values are not known.
    if !stack && reads_values(&file.text) {
        return UnitOutput {
            formats: vec![crate::frontend::Format::Terraform],
            given_files: vec![file.id],
            ..UnitOutput::default()
        };
    }
    let calls = if stack {
        stack_units(&loader, &parsed, &abs(&dir))
    } else {
        let unit = read_unit(&loader, &parsed, &abs(&dir), 0, None);
        vec![(CALL.to_string(), unit, None)]
    };
    let into = match (calls.as_slice(), stack) {
        ([(_, unit, _)], false) => cluster_read(&loader, unit),
        _ => None,
    };
    let (mut out, _) = model(&loader, &parsed.file, &dir, &calls, !stack, into);
    // A unit alone is one run of `terragrunt run --all`: it starts after
    // the units its `dependency` and `dependencies` blocks name.
    if let ([(_, unit, _)], false, Some(graph)) = (calls.as_slice(), stack, out.graph.as_mut()) {
        let mut after: Vec<PathBuf> = unit
            .cfg
            .dependencies
            .iter()
            .filter_map(|d| d.dir.clone())
            .chain(unit.cfg.dependency_paths.iter().map(|(p, _)| p.clone()))
            .collect();
        after.sort();
        after.dedup();
        graph.run = Some(crate::model::RunOrder {
            dir: unit.dir.clone(),
            after,
        });
    }
    out.given_files = vec![file.id];
    let mut context: Vec<FileId> = loader.read.borrow().clone();
    context.retain(|f| *f != file.id);
    out.context_files.extend(context);
    out.context_files.sort();
    out.context_files.dedup();
    out
}

/// The one cluster a unit's model defines, or the one it deploys into.
fn designated(out: &UnitOutput) -> Option<Defined> {
    let defined: Vec<&crate::model::Cluster> = out.clusters.iter().filter(|c| c.defined).collect();
    let c = match (defined.as_slice(), out.clusters.as_slice()) {
        ([c], _) => c,
        ([], [c]) => c,
        _ => return None,
    };
    let at = match c.root_reference {
        _ if c.defined => c.loc.span,
        Some(crate::model::RootReference::Definition(at)) => at,
        _ => return None,
    };
    Some(Defined {
        name: c.name.value.clone(),
        at,
    })
}

/// The cluster a unit deploys into because its inputs read outputs of
/// another unit that designate it (`dependency.eks.outputs.cluster_name`),
/// as a root reading local remote state does: the one cluster of every
/// such dependency, when they all agree. `mock_outputs` play no part.
fn cluster_read(loader: &Loader<'_>, unit: &Unit) -> Option<(Defined, crate::model::Loc)> {
    let mut found: Option<(Defined, crate::model::Loc)> = None;
    for name in &unit.cfg.cluster_reads {
        let dep = unit.cfg.dependencies.iter().find(|d| &d.name == name)?;
        let d = loader.clusters.borrow().get(dep.dir.as_ref()?).cloned()??;
        match &found {
            Some((f, _)) if f.at != d.at => return None,
            Some(_) => {}
            None => {
                let loc = crate::model::Loc::new(dep.span, format!("dependency.{name}"));
                found = Some((d, loc));
            }
        }
    }
    found
}

/// Whether a configuration reads `values.`, which only a stack gives.
fn reads_values(text: &str) -> bool {
    text.match_indices("values.").any(|(i, _)| {
        !text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    })
}

/// What reading a unit needs across the units it depends on.
struct Loader<'s> {
    pub sources: &'s Sources,
    pub limits: Limits,
    /// Dependency units being read (a cycle is unknown).
    visiting: RefCell<Vec<PathBuf>>,
    /// Dependency units' outputs by folder.
    outputs: RefCell<HashMap<PathBuf, Value>>,
    /// Files read for the unit's configuration (includes, read configs).
    pub read: RefCell<Vec<FileId>>,
    /// Whether dependencies are read (not when only the source is wanted).
    follow: bool,
    /// Configuration files evaluated so far (see [`MAX_READS`]).
    reads: std::cell::Cell<usize>,
    /// `read_terragrunt_config` results by file.
    configs: RefCell<HashMap<PathBuf, Option<Value>>>,
    /// Dependency units by folder: the one cluster each defines (or joins).
    clusters: RefCell<HashMap<PathBuf, Option<Defined>>>,
}

impl<'s> Loader<'s> {
    fn new(sources: &'s Sources, limits: Limits) -> Loader<'s> {
        Loader {
            sources,
            limits,
            visiting: RefCell::new(Vec::new()),
            outputs: RefCell::new(HashMap::new()),
            read: RefCell::new(Vec::new()),
            follow: true,
            reads: std::cell::Cell::new(0),
            configs: RefCell::new(HashMap::new()),
            clusters: RefCell::new(HashMap::new()),
        }
    }

    fn load(&self, path: &Path) -> Option<Parsed> {
        if self.reads.get() >= MAX_READS {
            return None;
        }
        self.reads.set(self.reads.get() + 1);
        let f = self.sources.load(&shown(path)).ok()?;
        config::parse(f).ok()
    }

    /// The outputs of the unit in `dir` (absolute): what its module computes
    /// from its inputs; unknown when that cannot be told.
    pub fn outputs_of(&self, dir: &Path, depth: usize) -> Value {
        if let Some(v) = self.outputs.borrow().get(dir) {
            return v.clone();
        }
        if !self.follow || depth > MAX_DEPTH || self.visiting.borrow().iter().any(|d| d == dir) {
            return Value::unknown(None);
        }
        let Some(parsed) = self.load(&dir.join(UNIT_FILE)) else {
            return Value::unknown(None);
        };
        self.visiting.borrow_mut().push(dir.to_path_buf());
        let unit = read_unit(self, &parsed, dir, depth, None);
        let calls = vec![(CALL.to_string(), unit, None)];
        // The dependency's own model is not this unit's: only its outputs.
        let (unit, outputs) = model(self, &parsed.file, &shown(dir), &calls, false, None);
        self.visiting.borrow_mut().pop();
        self.clusters
            .borrow_mut()
            .insert(dir.to_path_buf(), designated(&unit));
        self.outputs
            .borrow_mut()
            .insert(dir.to_path_buf(), outputs.clone());
        outputs
    }

    /// `read_terragrunt_config(path)`: the file evaluated in its own folder.
    pub fn read_other(&self, path: &Path, depth: usize) -> Option<Value> {
        if let Some(v) = self.configs.borrow().get(path) {
            return v.clone();
        }
        // A read configuration is copied into each reader: nested reads
        // multiply, so only a few levels are followed.
        if depth > MAX_READ_DEPTH {
            return None;
        }
        let parsed = self.load(path)?;
        self.read.borrow_mut().push(parsed.file.id);
        let dir = path.parent()?.to_path_buf();
        let unit = read_unit(self, &parsed, &dir, depth, None);
        self.configs
            .borrow_mut()
            .insert(path.to_path_buf(), Some(unit.exposed.clone()));
        Some(unit.exposed)
    }
}

/// A unit's configuration with its includes merged.
struct Unit {
    pub cfg: Config,
    /// The unit's folder, absolute.
    pub dir: PathBuf,
    pub includes: Vec<Include>,
    /// The included files, with the include that reads each.
    pub parents: Vec<(FileId, Span, String)>,
    /// What `read_terragrunt_config` gives for this file.
    pub exposed: Value,
}

/// Evaluate a unit's configuration at `dir` (absolute), its includes merged.
/// `values` is what a stack passes to it.
fn read_unit(
    loader: &Loader<'_>,
    parsed: &Parsed,
    dir: &Path,
    depth: usize,
    values: Option<Value>,
) -> Unit {
    let mut roots = HashMap::new();
    if let Some(v) = values {
        roots.insert("values".to_string(), v);
    }
    let bare = Place {
        unit_dir: dir.to_path_buf(),
        includes: Vec::new(),
        included: None,
    };
    let t = Terragrunt {
        loader,
        place: &bare,
        roots: RefCell::new(roots.clone()),
        depth,
    };
    let includes = config::includes(&t, parsed);
    let place = Place {
        unit_dir: dir.to_path_buf(),
        includes: includes
            .iter()
            .filter_map(|i| Some((i.name.clone(), i.path.as_ref()?.parent()?.to_path_buf())))
            .collect(),
        included: None,
    };
    let mut outputs: HashMap<String, Value> = HashMap::new();
    let mut parents: Vec<(FileId, Span, String)> = Vec::new();
    let mut merged: Vec<(Merge, Span, Config)> = Vec::new();
    let mut exposed: Vec<(String, Value)> = Vec::new();
    for inc in &includes {
        // One level, as Terragrunt reads includes: an included file's own
        // includes are not followed.
        let parent = match &inc.path {
            Some(p) if depth <= MAX_DEPTH => loader.load(p),
            _ => None,
        };
        let Some(parent) = parent else {
            // Not found or not read: nothing it would give is known.
            if inc.merge != Merge::None {
                merged.push((
                    inc.merge,
                    inc.span,
                    Config {
                        inputs_unknown: true,
                        source: Some((None, inc.span)),
                        ..Config::default()
                    },
                ));
            }
            continue;
        };
        loader.read.borrow_mut().push(parent.file.id);
        parents.push((parent.file.id, inc.span, inc.name.clone()));
        let p_place = Place {
            included: inc
                .path
                .as_ref()
                .and_then(|p| p.parent())
                .map(Path::to_path_buf),
            ..place.clone()
        };
        let pt = Terragrunt {
            loader,
            place: &p_place,
            roots: RefCell::new(roots.clone()),
            depth,
        };
        let mut p_outputs = HashMap::new();
        let cfg = config::evaluate(&pt, &parent, &[], &mut p_outputs);
        if inc.expose {
            exposed.push((inc.name.clone(), cfg.exposed(&p_outputs)));
        }
        if inc.merge != Merge::None {
            outputs.extend(p_outputs);
            merged.push((inc.merge, inc.span, cfg));
        }
    }
    let include_root = {
        let mut entries = Vec::new();
        for (name, v) in &exposed {
            if name.is_empty() {
                // `include { expose = true }` without a name: `include.locals`.
                if let ValueKind::Map(e) = &v.kind {
                    entries.extend(e.iter().cloned());
                }
            } else {
                entries.push((config::key(name), v.clone()));
            }
        }
        Value::new(ValueKind::Map(entries), None)
    };
    roots.insert("include".into(), include_root);
    let t = Terragrunt {
        loader,
        place: &place,
        roots: RefCell::new(roots),
        depth,
    };
    let inherited: Vec<Dependency> = merged
        .iter()
        .flat_map(|(_, _, c)| c.dependencies.iter().cloned())
        .collect();
    let own = config::evaluate(&t, parsed, &inherited, &mut outputs);
    let exposed_self = own.exposed(&outputs);
    // Included files first, in order, then the unit's own.
    let mut cfg = Config::default();
    let deep = merged.iter().any(|(m, _, _)| *m == Merge::Deep);
    for (merge, span, p) in merged {
        let anchored: Vec<Input> = p
            .inputs
            .into_iter()
            .map(|i| Input {
                anchor: Some(span.start as usize..span.end as usize),
                ..i
            })
            .collect();
        config::merge_inputs(&mut cfg.inputs, anchored, merge);
        cfg.inputs_unknown |= p.inputs_unknown;
        if p.source.is_some() {
            cfg.source = p.source;
        }
        for g in p.generate {
            cfg.generate.retain(|x| x.name != g.name);
            cfg.generate.push(g);
        }
        cfg.dependency_paths.extend(p.dependency_paths);
        cfg.cluster_reads.extend(p.cluster_reads);
        if p.skip.is_some() {
            cfg.skip = p.skip;
        }
    }
    if own.skip.is_some() {
        cfg.skip = own.skip;
    }
    let child_merge = if deep { Merge::Deep } else { Merge::Shallow };
    config::merge_inputs(&mut cfg.inputs, own.inputs, child_merge);
    cfg.inputs_unknown |= own.inputs_unknown;
    if own.source.is_some() {
        cfg.source = own.source;
    }
    cfg.terraform = own.terraform;
    for g in own.generate {
        cfg.generate.retain(|x| x.name != g.name);
        cfg.generate.push(g);
    }
    cfg.dependency_paths.extend(own.dependency_paths);
    cfg.cluster_reads.extend(own.cluster_reads);
    cfg.dependencies = own.dependencies;
    cfg.locals = own.locals;
    Unit {
        cfg,
        dir: dir.to_path_buf(),
        includes,
        parents,
        exposed: exposed_self,
    }
}

/// The units of a stack file: each `unit` block's `source` folder holds a
/// unit configuration, read where Terragrunt generates it
/// (`.terragrunt-stack/<path>`) with the block's `values`.
fn stack_units(
    loader: &Loader<'_>,
    parsed: &Parsed,
    dir: &Path,
) -> Vec<(String, Unit, Option<Span>)> {
    use crate::frontend::terraform::eval::{self, Decls};
    use hcl_edit::structure::Structure;
    use hcl_edit::Span as _;
    let id = parsed.file.id;
    let mut decls = Decls::default();
    for s in parsed.body.iter() {
        let Structure::Block(b) = s else { continue };
        if b.ident.as_str() == "locals" {
            for s in b.body.iter() {
                if let Structure::Attribute(a) = s {
                    decls
                        .locals
                        .insert(a.key.as_str().to_string(), (id, &a.value));
                }
            }
        }
    }
    let place = Place {
        unit_dir: dir.to_path_buf(),
        includes: Vec::new(),
        included: None,
    };
    let t = Terragrunt {
        loader,
        place: &place,
        roots: RefCell::new(HashMap::new()),
        depth: 0,
    };
    let env = parsed.env(&t, &decls);
    let mut out = Vec::new();
    for s in parsed.body.iter() {
        let Structure::Block(b) = s else { continue };
        if b.ident.as_str() != "unit" {
            continue;
        }
        let Some(name) = config::label(b, 0) else {
            continue;
        };
        let attr = |n: &str| {
            b.body.get_attribute(n).map(|a| {
                env.eval(&a.value, id, &Vec::new())
                    .unwrap_or_else(|_| Value::unknown(None))
            })
        };
        let span = eval::span_of(id, b.span()).unwrap_or(Span::new(id, 0, 0));
        let (Some(src), Some(path)) = (
            attr("source").and_then(|v| eval::scalar_text(&v)),
            attr("path").and_then(|v| eval::scalar_text(&v)),
        ) else {
            continue;
        };
        // Only a source on disk is read; a remote one is unknown.
        let Source::Local(template) = classify(&src, dir) else {
            continue;
        };
        let Some(parsed_unit) = loader.load(&template.join(UNIT_FILE)) else {
            continue;
        };
        loader.read.borrow_mut().push(parsed_unit.file.id);
        let values = attr("values").unwrap_or_else(|| Value::new(ValueKind::Map(Vec::new()), None));
        let at = abs(&dir.join(".terragrunt-stack").join(&path));
        let mut unit = read_unit(loader, &parsed_unit, &at, 1, Some(values));
        // Everything the unit's inputs stand for is written at its block.
        for i in &mut unit.cfg.inputs {
            i.anchor = Some(span.start as usize..span.end as usize);
        }
        unit.cfg.terraform = None;
        unit.cfg.generate.clear();
        let call = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect::<String>();
        out.push((format!("unit_{call}"), unit, Some(span)));
    }
    out
}

/// Where a unit's module comes from.
#[derive(Debug, PartialEq)]
enum Source {
    /// Code on disk: its folder, absolute.
    Local(PathBuf),
    /// terraform-aws-eks (or a sub-module) from a registry or git, as a
    /// Terraform `source` and `version` say it.
    Eks {
        source: String,
        version: Option<String>,
    },
    /// Any other remote module: what it builds is unknown.
    Unknown,
}

/// Read a unit's `terraform { source }` as Terragrunt fetches it.
fn classify(src: &str, dir: &Path) -> Source {
    let s = src.trim();
    let local = s.strip_prefix("file://").unwrap_or(s);
    if local.starts_with('/') || local.starts_with("./") || local.starts_with("../") || local == "."
    {
        // `path//sub`: the whole of `path` is copied and `sub` is run.
        let joined = local.replacen("//", "/", 1);
        let joined = joined.split('?').next().unwrap_or(&joined);
        return Source::Local(abs(&dir.join(joined)));
    }
    let (base, query) = match s.split_once('?') {
        Some((b, q)) => (b, q),
        None => (s, ""),
    };
    let param = |k: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(k)?.strip_prefix('='))
            .map(|v| v.trim_start_matches('v').to_string())
            .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    };
    if let Some(rest) = base.strip_prefix("tfr://") {
        // `tfr:///ns/name/provider` uses the default registry.
        let rest = match rest.strip_prefix('/') {
            Some(r) => r,
            None => rest.split_once('/').map_or("", |(_, r)| r),
        };
        return eks(rest, param("version"));
    }
    eks(base, param("ref"))
}

fn eks(source: &str, version: Option<String>) -> Source {
    // `repo//.` (or `//./`) is the repository's root folder.
    let source = source.trim_end_matches('/');
    let source = source.strip_suffix("//.").unwrap_or(source);
    match eks_module::kind(source) {
        Kind::Local(_) | Kind::Other => Source::Unknown,
        _ => Source::Eks {
            source: source.to_string(),
            version,
        },
    }
}

/// A variable name Terraform accepts, and not a module block's own argument.
fn is_input_name(n: &str) -> bool {
    let mut c = n.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '-')
        && !matches!(
            n,
            "source" | "version" | "count" | "for_each" | "depends_on" | "providers"
        )
}

/// HCL text whose pieces each stand for a range of one file.
struct Writer {
    text: String,
    segs: Vec<(usize, usize, usize, usize)>,
}

impl Writer {
    fn piece(&mut self, s: &str, at: std::ops::Range<usize>) {
        let start = self.text.len();
        self.text.push_str(s);
        self.segs.push((start, self.text.len(), at.start, at.end));
    }
}

/// `file`'s text with everything blanked but `keep` (byte length kept, so
/// that what is kept parses where it is written).
fn blanked(file: &SourceFile, keep: &[Span]) -> String {
    let bytes = file.text.as_bytes();
    let mut out: Vec<u8> = bytes
        .iter()
        .map(|b| if *b == b'\n' { b'\n' } else { b' ' })
        .collect();
    for s in keep {
        let (a, b) = (file.clamp(s.start as usize), file.clamp(s.end as usize));
        if let (Some(dst), Some(src)) = (out.get_mut(a..b), bytes.get(a..b)) {
            dst.copy_from_slice(src);
        }
    }
    // Only ASCII spaces replace bytes, and kept ranges are whole heredoc
    // bodies (line ends on both sides): valid UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Model units as module calls of one root written for `file` in `dir` (as
/// the run reaches it): the model, and the root's outputs (`call` → the
/// outputs its module computes) for the first call.
fn model(
    loader: &Loader<'_>,
    file: &Arc<SourceFile>,
    dir: &Path,
    calls: &[(String, Unit, Option<Span>)],
    generate: bool,
    into: Option<(Defined, crate::model::Loc)>,
) -> (UnitOutput, Value) {
    let id = file.id;
    let len = file.text.len();
    let dir_abs = abs(dir);
    let mut written: Vec<Written> = Vec::new();
    // Generated `.tf` files: their bodies, parsed where they are written.
    let mut bodies: HashMap<FileId, Vec<Span>> = HashMap::new();
    if generate {
        for (_, unit, _) in calls {
            for g in &unit.cfg.generate {
                if let Some(b) = g.body {
                    bodies.entry(b.file).or_default().push(b);
                }
            }
        }
    }
    let mut w = Writer {
        text: blanked(file, bodies.get(&id).map_or(&[][..], Vec::as_slice)),
        segs: vec![(0, len, 0, len)],
    };
    for (f, spans) in &bodies {
        if *f == id {
            continue;
        }
        if let Some(src) = loader.sources.get(*f) {
            written.push(Written {
                text: blanked(&src, spans),
                file: src,
                segs: Vec::new(),
            });
        }
    }
    let mut vars: rustc_hash::FxHashMap<String, Value> = Default::default();
    let mut module_calls = Vec::new();
    // Where inputs the unit does not write itself stand: an included file's
    // inputs are shared by units whose modules may not take them all, and
    // Terraform ignores a variable it does not declare.
    let mut shared: Vec<std::ops::Range<usize>> = Vec::new();
    let mut eks_names: Vec<Option<Value>> = Vec::new();
    for (n, (call, unit, at)) in calls.iter().enumerate() {
        let cfg = &unit.cfg;
        let in_file = |s: Span| (s.file == id).then_some(s.start as usize..s.end as usize);
        // Where the call stands: the `terraform` block, else the first include.
        let block = at
            .and_then(in_file)
            .or_else(|| cfg.terraform.and_then(in_file))
            .or_else(|| unit.includes.first().and_then(|i| in_file(i.span)))
            .unwrap_or(0..len.min(1));
        shared.push(block.clone());
        shared.extend(unit.includes.iter().filter_map(|i| in_file(i.span)));
        for (f, span, name) in &unit.parents {
            if let Some(r) = in_file(*span) {
                let call = header(file, r);
                module_calls.push(ModuleCall {
                    file: *f,
                    call,
                    outer: call,
                    address: if name.is_empty() {
                        "include".into()
                    } else {
                        format!("include.{name}")
                    },
                });
            }
        }
        let source = match &cfg.source {
            Some((Some(s), _)) => classify(s, &unit.dir),
            Some((None, _)) => Source::Unknown,
            // No source: the unit's own folder is the module.
            None => Source::Local(unit.dir.clone()),
        };
        let (src, version) = match source {
            Source::Local(d) if has_tf(&d) => {
                let rel = relative(&dir_abs, &d);
                let rel = rel.to_string_lossy().replace('\\', "/");
                let rel = if rel.starts_with("..") {
                    rel
                } else {
                    format!("./{rel}")
                };
                (rel, None)
            }
            Source::Eks { source, version } => (source, version),
            _ => {
                eks_names.push(None);
                continue;
            }
        };
        // Inputs that are not all known say nothing of what is absent; a
        // unit that may be skipped (`skip`, `exclude`) may not be deployed.
        if cfg.inputs_unknown || !matches!(cfg.skip, None | Some(Some(false))) {
            eks_names.push(None);
            continue;
        }
        let src_at = cfg
            .source
            .as_ref()
            .and_then(|(_, s)| in_file(*s))
            .unwrap_or(block.clone());
        w.piece("\n", block.start..block.start);
        w.piece(&format!("module \"{call}\" {{\n"), block.clone());
        w.piece(&format!("source = {}\n", quoted(&src)), src_at.clone());
        if let Some(v) = version {
            w.piece(&format!("version = {}\n", quoted(&v)), src_at.clone());
        }
        for i in &cfg.inputs {
            if !is_input_name(&i.name) {
                continue;
            }
            let var = format!("u{n}_{}", i.name);
            let at = i
                .anchor
                .clone()
                .filter(|r| r.end <= len)
                .unwrap_or(block.clone());
            w.piece(&format!("{} = var.{var}\n", i.name), at);
            vars.insert(var, i.value.clone());
        }
        // Units of one stack that Terragrunt runs after this one's
        // dependencies: ordered as `depends_on` orders module calls.
        let after: Vec<String> = calls
            .iter()
            .filter(|(other, u, _)| {
                other != call
                    && (cfg
                        .dependencies
                        .iter()
                        .any(|d| d.dir.as_ref() == Some(&u.dir))
                        || cfg.dependency_paths.iter().any(|(p, _)| *p == u.dir))
            })
            .map(|(other, ..)| format!("module.{other}"))
            .collect();
        if !after.is_empty() {
            w.piece(
                &format!("depends_on = [{}]\n", after.join(", ")),
                block.clone(),
            );
        }
        let end = block.end.saturating_sub(1).max(block.start)..block.end;
        w.piece("}\n", end.clone());
        w.piece(
            &format!("output \"{call}\" {{\nvalue = module.{call}\n}}\n"),
            end,
        );
        let name = cfg
            .inputs
            .iter()
            .find(|i| i.name == "name")
            .or_else(|| cfg.inputs.iter().find(|i| i.name == "cluster_name"))
            .map(|i| i.value.clone());
        eks_names.push(
            matches!(eks_module::kind(&src), Kind::Root)
                .then_some(name)
                .flatten(),
        );
    }
    written.push(Written {
        file: file.clone(),
        text: w.text,
        segs: w.segs,
    });
    let (mut out, outputs) = load_written(dir, written, vars, loader.sources, loader.limits, into);
    out.module_calls.extend(module_calls);
    // Fields only the unit's own `inputs` name are checked against the module.
    out.schema.retain(|f| {
        let sp = f.span();
        let (a, b) = (sp.start as usize, sp.end as usize);
        sp.file != id || !shared.iter().any(|r| r.start <= a && b <= r.end)
    });
    if calls.len() > 1 {
        concurrent_across_units(&mut out, calls);
    }
    // The first call's outputs: a module read as code gives its own; the
    // terraform-aws-eks module read by its inputs gives the cluster's name.
    let first = calls.first().map(|(c, ..)| c.as_str()).unwrap_or(CALL);
    let mine = match outputs.get(first) {
        Some(
            v @ Value {
                kind: ValueKind::Map(_),
                ..
            },
        ) => v.clone(),
        _ => match eks_names.first().cloned().flatten() {
            Some(name) => Value::new(
                ValueKind::Map(vec![(config::key("cluster_name"), name)]),
                None,
            ),
            None => Value::unknown(None),
        },
    };
    (out, mine)
}

/// Each unit is its own Terraform run: the AWS provider, which creates one
/// profile of a cluster at a time, does so only within a run. Profiles of
/// one cluster in different units of a stack are created in parallel
/// unless the units are ordered.
fn concurrent_across_units(out: &mut UnitOutput, calls: &[(String, Unit, Option<Span>)]) {
    let Some(graph) = &out.graph else { return };
    let call_of = |node: u32| {
        let name = &graph.nodes.get(node as usize)?.name;
        calls
            .iter()
            .position(|(c, ..)| name.starts_with(&format!("module.{c}.")))
    };
    for c in &mut out.clusters {
        let units: Vec<Option<usize>> = c
            .fargate_profiles
            .iter()
            .map(|p| p.resource.and_then(|r| call_of(r.node)))
            .collect();
        let mut distinct: Vec<usize> = units.iter().flatten().copied().collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() < 2 {
            continue;
        }
        for (p, u) in c.fargate_profiles.iter_mut().zip(&units) {
            if u.is_some() {
                p.created_concurrently = true;
            }
        }
    }
}

/// A block's header, up to its opening brace.
fn header(file: &SourceFile, r: std::ops::Range<usize>) -> Span {
    let text = file.text.get(r.clone()).unwrap_or("");
    let head = text.find('{').unwrap_or(text.len());
    Span::new(file.id, r.start, r.start + text[..head].trim_end().len())
}

fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '$' => out.push_str("$$"),
            '%' => out.push_str("%%"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether a folder holds Terraform code.
fn has_tf(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.filter_map(Result::ok).any(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.ends_with(".tf") || n.ends_with(".tf.json")
        })
    })
}

/// What a unit reads wherever it lies, as Terragrunt does past any project
/// root: the files its includes, `find_in_parent_folders` and
/// `read_terragrunt_config` reach, and the folder of its local module.
/// Bounded as the frontend's reading is (climbs, include depth, `limits`).
pub fn reached(unit_file: &Path, limits: Limits) -> Vec<PathBuf> {
    let sources = Sources::new(Vec::new());
    let mut out: Vec<PathBuf> = local_sources(unit_file, &sources, limits)
        .into_iter()
        .map(|d| abs(&d))
        .collect();
    out.extend(sources.all().iter().filter_map(|f| sources.disk_path(f.id)));
    out.sort();
    out.dedup();
    out
}

/// The folders of the run's units whose module is code on disk: those
/// folders are linted through the units that call them. Read from disk
/// without modelling: the unit's own and its includes' `terraform { source }`.
pub fn local_sources(unit_file: &Path, sources: &Sources, limits: Limits) -> Vec<PathBuf> {
    crate::stack::with_large_stack(|| {
        let Ok(file) = sources.load(unit_file) else {
            return Vec::new();
        };
        let Ok(parsed) = config::parse(file) else {
            return Vec::new();
        };
        let dir = unit_file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        // Dependencies are not followed: only the source matters here.
        let loader = Loader {
            follow: false,
            ..Loader::new(sources, limits)
        };
        let unit = read_unit(&loader, &parsed, &abs(&dir), 0, None);
        match &unit.cfg.source {
            Some((Some(s), _)) => match classify(s, &unit.dir) {
                Source::Local(d) => vec![shown(&d)],
                _ => Vec::new(),
            },
            _ => vec![shown(&unit.dir)],
        }
    })
}
