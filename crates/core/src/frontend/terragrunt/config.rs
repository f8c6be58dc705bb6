//! One Terragrunt configuration file evaluated as Terragrunt does: the
//! `include` blocks first, then `locals`, then `dependency` blocks, then the
//! rest. Expressions go through the Terraform evaluator, with Terragrunt's
//! own names (`include`, `dependency`, `values`) and functions added by a
//! [`Host`].

use super::paths::{abs, find_up, relative, repo_root};
use super::Loader;
use crate::frontend::terraform::eval::{self, span_of, Decls, Env, Fail, Host, R};
use crate::source::{FileId, SourceFile, Span};
use crate::value::{MapKey, Value, ValueKind};
use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::structure::{Block, Body, Structure};
use hcl_edit::Span as _;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How an included configuration joins the unit's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Merge {
    /// Top-level keys: the unit's win (Terragrunt's default).
    Shallow,
    /// Maps merged key by key, lists concatenated.
    Deep,
    /// Only exposed, not merged.
    None,
}

/// One input with the place it stands for in the unit's file.
#[derive(Clone, Debug)]
pub(super) struct Input {
    pub name: String,
    pub value: Value,
    /// Where the input is written in the unit's own file: its entry in
    /// `inputs`, else the `inputs` attribute or the `include` that brings it.
    pub anchor: Option<std::ops::Range<usize>>,
}

/// A `dependency` block.
#[derive(Clone, Debug)]
pub(super) struct Dependency {
    pub name: String,
    /// The dependency unit's folder, absolute; unknown when not resolved.
    pub dir: Option<PathBuf>,
    pub span: Span,
}

/// A `generate` block writing a `.tf` file whose content is literal.
#[derive(Clone, Debug)]
pub(super) struct Generate {
    pub name: String,
    /// The heredoc's body in its file, when the content is literal and the
    /// file written is a `.tf` file that is not disabled.
    pub body: Option<Span>,
}

/// What one file says, evaluated.
#[derive(Clone, Debug, Default)]
pub(super) struct Config {
    pub locals: Vec<(MapKey, Value)>,
    pub inputs: Vec<Input>,
    /// `inputs` is written but its value is not known as a map.
    pub inputs_unknown: bool,
    /// `terraform { source }`: `None` when not written, unknown when not resolved.
    pub source: Option<(Option<String>, Span)>,
    /// The `terraform` block.
    pub terraform: Option<Span>,
    pub dependencies: Vec<Dependency>,
    /// `dependencies { paths }`, absolute.
    pub dependency_paths: Vec<(PathBuf, Span)>,
    /// Dependencies whose outputs that designate a cluster (its name,
    /// endpoint, OIDC provider) the inputs read, by block name.
    pub cluster_reads: Vec<String>,
    pub generate: Vec<Generate>,
    /// `skip`, or an `exclude` block's `if`: `None` when not written,
    /// `Some(None)` when not known.
    pub skip: Option<Option<bool>>,
}

impl Config {
    /// `include.NAME` when exposed, and `read_terragrunt_config`'s result.
    pub fn exposed(&self, outputs: &HashMap<String, Value>) -> Value {
        let inputs = self
            .inputs
            .iter()
            .map(|i| (key(&i.name), i.value.clone()))
            .collect();
        let inputs = if self.inputs_unknown {
            Value::unknown(None)
        } else {
            Value::new(ValueKind::Map(inputs), None)
        };
        let source = match &self.source {
            Some((Some(s), span)) => Value::new(ValueKind::String(s.clone()), Some(*span)),
            Some((None, span)) => Value::unknown(Some(*span)),
            None => Value::new(ValueKind::Null, None),
        };
        let deps = self
            .dependencies
            .iter()
            .map(|d| {
                let out = outputs
                    .get(&d.name)
                    .cloned()
                    .unwrap_or_else(|| Value::unknown(Some(d.span)));
                (
                    key(&d.name),
                    Value::new(ValueKind::Map(vec![(key("outputs"), out)]), None),
                )
            })
            .collect();
        Value::new(
            ValueKind::Map(vec![
                (
                    key("locals"),
                    Value::new(ValueKind::Map(self.locals.clone()), None),
                ),
                (key("inputs"), inputs),
                (
                    key("terraform"),
                    Value::new(ValueKind::Map(vec![(key("source"), source)]), None),
                ),
                (key("dependency"), Value::new(ValueKind::Map(deps), None)),
            ]),
            None,
        )
    }
}

pub(super) fn key(name: &str) -> MapKey {
    MapKey {
        name: name.to_string(),
        span: None,
    }
}

/// Where expressions are evaluated: Terragrunt evaluates an included file
/// in the context of the unit that includes it.
#[derive(Clone, Debug)]
pub(super) struct Place {
    /// The unit's folder, absolute (`get_terragrunt_dir`).
    pub unit_dir: PathBuf,
    /// The unit's includes: name and the included file's folder, absolute.
    pub includes: Vec<(String, PathBuf)>,
    /// The folder of the file being evaluated, when it is an included one.
    pub included: Option<PathBuf>,
}

/// Terragrunt's names and functions over the Terraform evaluator.
pub(super) struct Terragrunt<'l, 's> {
    pub loader: &'l Loader<'s>,
    pub place: &'l Place,
    pub roots: RefCell<HashMap<String, Value>>,
    pub depth: usize,
}

/// Terragrunt functions that need the deploying machine or a cloud
/// account: unknown here, and never Terraform's.
const UNKNOWN_FUNCTIONS: &[&str] = &[
    "get_aws_account_id",
    "get_aws_account_alias",
    "get_aws_caller_identity_arn",
    "get_aws_caller_identity_user_id",
    "get_terraform_command",
    "get_terraform_cli_args",
    "get_terraform_commands_that_need_vars",
    "get_terraform_commands_that_need_input",
    "get_terraform_commands_that_need_locking",
    "get_terraform_commands_that_need_parallelism",
    "get_terragrunt_source_cli_flag",
    "get_default_retryable_errors",
    "get_platform",
    "get_working_dir",
    "run_cmd",
    "sops_decrypt_file",
    "read_tfvars_file",
    "mark_as_read",
    "mark_glob_as_read",
    "constraint_check",
];

const FUNCTIONS: &[&str] = &[
    "find_in_parent_folders",
    "read_terragrunt_config",
    "path_relative_to_include",
    "path_relative_from_include",
    "get_terragrunt_dir",
    "get_original_terragrunt_dir",
    "get_parent_terragrunt_dir",
    "get_repo_root",
    "get_path_from_repo_root",
    "get_path_to_repo_root",
    "get_env",
    // Terraform's, which Terragrunt configurations use to reach shared
    // files (`dirname(find_in_parent_folders())`).
    "dirname",
    "basename",
];

fn text(s: String, span: Option<Span>) -> R {
    Ok(Value::new(ValueKind::String(s), span))
}

fn path_text(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

impl Terragrunt<'_, '_> {
    /// The included file's folder `include` names (the first when unnamed).
    fn include_dir(&self, args: &[Value]) -> Option<PathBuf> {
        match args.first().and_then(eval::scalar_text) {
            Some(n) => self
                .place
                .includes
                .iter()
                .find(|(name, _)| *name == n)
                .map(|(_, d)| d.clone()),
            None => self.place.includes.first().map(|(_, d)| d.clone()),
        }
    }
}

impl Host for Terragrunt<'_, '_> {
    fn root(&self, name: &str, span: Option<Span>) -> Option<Value> {
        match name {
            "include" | "dependency" | "values" | "feature" | "unit" | "stack" => Some(
                self.roots
                    .borrow()
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| Value::unknown(span)),
            ),
            _ => None,
        }
    }

    fn defines(&self, name: &str) -> bool {
        FUNCTIONS.contains(&name) || UNKNOWN_FUNCTIONS.contains(&name)
    }

    fn call(&self, name: &str, args: Vec<Value>, span: Option<Span>) -> R {
        if args.iter().any(Value::is_unknown) {
            return Ok(Value::unknown(span));
        }
        let arg = |i: usize| args.get(i).and_then(eval::scalar_text);
        let unit = &self.place.unit_dir;
        match name {
            "get_terragrunt_dir" | "get_original_terragrunt_dir" => text(path_text(unit), span),
            "get_parent_terragrunt_dir" => {
                let dir = self
                    .place
                    .included
                    .clone()
                    .or_else(|| self.include_dir(&args));
                match dir {
                    Some(d) => text(path_text(&d), span),
                    None => text(path_text(unit), span),
                }
            }
            "path_relative_to_include" | "path_relative_from_include" => {
                let Some(inc) = self
                    .place
                    .included
                    .clone()
                    .or_else(|| self.include_dir(&args))
                else {
                    return text(".".into(), span);
                };
                let rel = if name == "path_relative_to_include" {
                    relative(&inc, unit)
                } else {
                    relative(unit, &inc)
                };
                text(path_text(&rel), span)
            }
            "find_in_parent_folders" => {
                let wanted = arg(0).unwrap_or_else(|| "terragrunt.hcl".into());
                match unit.parent().and_then(|d| find_up(d, &wanted)) {
                    Some(p) => text(path_text(&p), span),
                    None => match args.get(1) {
                        Some(fallback) => Ok(fallback.clone()),
                        None => Err(Fail),
                    },
                }
            }
            "dirname" | "basename" => {
                let Some(p) = arg(0) else {
                    return Err(Fail);
                };
                let p = Path::new(&p);
                let part = if name == "dirname" {
                    p.parent().map(path_text)
                } else {
                    p.file_name().map(|n| n.to_string_lossy().into_owned())
                };
                text(part.unwrap_or_else(|| ".".into()), span)
            }
            "get_repo_root" => match repo_root(unit) {
                Some(r) => text(path_text(&r), span),
                None => Ok(Value::unknown(span)),
            },
            "get_path_from_repo_root" | "get_path_to_repo_root" => match repo_root(unit) {
                Some(r) if name == "get_path_from_repo_root" => {
                    text(path_text(&relative(&r, unit)), span)
                }
                Some(r) => text(path_text(&relative(unit, &r)), span),
                None => Ok(Value::unknown(span)),
            },
            // The environment of the machine that deploys is not known: only
            // the default the configuration gives is.
            "get_env" => match args.get(1) {
                Some(default) => Ok(default.clone()),
                None => Ok(Value::unknown(span)),
            },
            "read_terragrunt_config" => {
                let Some(p) = arg(0) else {
                    return Ok(Value::unknown(span));
                };
                let path = abs(&unit.join(p));
                match self.loader.read_other(&path, self.depth + 1) {
                    Some(v) => Ok(v),
                    None => match args.get(1) {
                        Some(default) => Ok(default.clone()),
                        None => Ok(Value::unknown(span)),
                    },
                }
            }
            _ => Ok(Value::unknown(span)),
        }
    }
}

/// A parsed configuration file.
pub(super) struct Parsed {
    pub file: Arc<SourceFile>,
    pub body: Body,
    /// Repeated object keys renamed for the parser: (offset, real name).
    pub renames: Vec<(usize, String)>,
}

impl Parsed {
    /// An evaluator over this file: Terragrunt's names, the file's locals.
    pub fn env<'a>(&self, t: &'a Terragrunt<'_, '_>, decls: &'a Decls<'a>) -> Env<'a> {
        let mut env = Env::new(decls, t.loader.sources, t.place.unit_dir.clone());
        env.limits = t.loader.limits;
        env.host = Some(t);
        env.files
            .borrow_mut()
            .insert(self.file.id, self.file.clone());
        for (off, name) in &self.renames {
            env.renamed
                .insert((self.file.id, *off as u32), name.clone());
        }
        env
    }
}

pub(super) fn label(b: &Block, i: usize) -> Option<&str> {
    b.labels.get(i).map(|l| l.as_str())
}

fn blocks<'b>(body: &'b Body, ident: &'b str) -> impl Iterator<Item = &'b Block> + 'b {
    body.iter().filter_map(move |s| match s {
        Structure::Block(b) if b.ident.as_str() == ident => Some(b),
        _ => None,
    })
}

fn range(file: FileId, r: Option<std::ops::Range<usize>>) -> Span {
    span_of(file, r).unwrap_or(Span::new(file, 0, 0))
}

/// An `include` block of a unit, evaluated.
pub(super) struct Include {
    pub name: String,
    /// The included file, absolute.
    pub path: Option<PathBuf>,
    pub expose: bool,
    pub merge: Merge,
    /// The block, in the unit's file.
    pub span: Span,
}

/// The unit's `include` blocks. Their paths are evaluated before anything
/// else: functions only, no locals.
pub(super) fn includes(t: &Terragrunt<'_, '_>, parsed: &Parsed) -> Vec<Include> {
    let decls = Decls::default();
    let env = parsed.env(t, &decls);
    let id = parsed.file.id;
    let mut out = Vec::new();
    for b in blocks(&parsed.body, "include") {
        let attr = |n: &str| {
            b.body
                .get_attribute(n)
                .map(|a| env.eval(&a.value, id, &Vec::new()))
        };
        let path = match attr("path") {
            Some(Ok(v)) => eval::scalar_text(&v).map(|p| abs(&t.place.unit_dir.join(p))),
            _ => None,
        };
        let expose = matches!(attr("expose"), Some(Ok(v)) if eval::as_bool(&v) == Some(true));
        let merge = match attr("merge_strategy") {
            None => Merge::Shallow,
            Some(Ok(v)) => match eval::scalar_text(&v).as_deref() {
                Some("shallow") => Merge::Shallow,
                Some("deep") => Merge::Deep,
                Some("no_merge") => Merge::None,
                // An unknown strategy: nothing of the parent is taken as known.
                _ => Merge::None,
            },
            Some(Err(_)) => Merge::None,
        };
        out.push(Include {
            name: label(b, 0).unwrap_or("").to_string(),
            path,
            expose,
            merge,
            span: range(id, b.span()),
        });
    }
    out
}

/// Evaluate everything but `include` in one file. `deps` are dependency
/// blocks merged in from included files, whose outputs `outputs` holds.
pub(super) fn evaluate(
    t: &Terragrunt<'_, '_>,
    parsed: &Parsed,
    inherited: &[Dependency],
    outputs: &mut HashMap<String, Value>,
) -> Config {
    let id = parsed.file.id;
    let mut decls = Decls::default();
    for b in blocks(&parsed.body, "locals") {
        for s in b.body.iter() {
            if let Structure::Attribute(a) = s {
                decls
                    .locals
                    .insert(a.key.as_str().to_string(), (id, &a.value));
            }
        }
    }
    let env = parsed.env(t, &decls);
    let eval = |e: &Expression| {
        env.eval(e, id, &Vec::new())
            .unwrap_or_else(|_| Value::unknown(span_of(id, e.span())))
    };
    let mut cfg = Config::default();
    let mut names: Vec<&String> = decls.locals.keys().collect();
    names.sort();
    for n in names {
        let v = env.local(n).unwrap_or_else(|_| Value::unknown(None));
        cfg.locals.push((key(n), v));
    }
    // Dependencies: the included files' first, the unit's own replacing
    // those of the same name.
    let mut deps: Vec<Dependency> = inherited.to_vec();
    for b in blocks(&parsed.body, "dependency") {
        let Some(name) = label(b, 0) else { continue };
        let dir = b
            .body
            .get_attribute("config_path")
            .map(|a| eval(&a.value))
            .and_then(|v| eval::scalar_text(&v))
            .map(|p| abs(&t.place.unit_dir.join(p)));
        let d = Dependency {
            name: name.to_string(),
            dir,
            span: range(id, b.span()),
        };
        deps.retain(|x| x.name != d.name);
        deps.push(d);
    }
    for d in &deps {
        if outputs.contains_key(&d.name) {
            continue;
        }
        // `mock_outputs` stand in for outputs during plans: never facts.
        let out = match &d.dir {
            Some(dir) => t.loader.outputs_of(dir, t.depth + 1),
            None => Value::unknown(Some(d.span)),
        };
        outputs.insert(d.name.clone(), out);
    }
    let dep_value: Vec<(MapKey, Value)> = deps
        .iter()
        .map(|d| {
            let out = outputs
                .get(&d.name)
                .cloned()
                .unwrap_or_else(|| Value::unknown(Some(d.span)));
            (
                key(&d.name),
                Value::new(ValueKind::Map(vec![(key("outputs"), out)]), None),
            )
        })
        .collect();
    t.roots.borrow_mut().insert(
        "dependency".into(),
        Value::new(ValueKind::Map(dep_value), None),
    );
    cfg.dependencies = deps;
    for b in blocks(&parsed.body, "dependencies") {
        if let Some(a) = b.body.get_attribute("paths") {
            if let ValueKind::List(items) = eval(&a.value).kind {
                for p in items {
                    if let Some(s) = eval::scalar_text(&p) {
                        let span = p.span.unwrap_or(range(id, a.span()));
                        cfg.dependency_paths
                            .push((abs(&t.place.unit_dir.join(s)), span));
                    }
                }
            }
        }
    }
    for b in blocks(&parsed.body, "terraform") {
        cfg.terraform = Some(range(id, b.span()));
        if let Some(a) = b.body.get_attribute("source") {
            let v = eval(&a.value);
            cfg.source = Some((eval::scalar_text(&v), range(id, a.span())));
        }
    }
    for s in parsed.body.iter() {
        let Structure::Attribute(a) = s else { continue };
        if a.key.as_str() != "inputs" {
            continue;
        }
        let whole = a.span();
        for r in crate::frontend::terraform::graph::refs_of_expr(&a.value) {
            if let ("dependency", [dep, outputs, out, ..]) = (r.root.as_str(), r.attrs.as_slice()) {
                if outputs == "outputs" && (out.contains("cluster") || out.contains("oidc")) {
                    cfg.cluster_reads.push(dep.clone());
                }
            }
        }
        match &a.value {
            // Entry by entry: one that fails leaves the others known.
            Expression::Object(o) => {
                for (k, val) in o.iter() {
                    let name = match k {
                        ObjectKey::Ident(i) => i.as_str().to_string(),
                        ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
                        ObjectKey::Expression(Expression::Variable(v)) => v.as_str().to_string(),
                        ObjectKey::Expression(_) => {
                            cfg.inputs_unknown = true;
                            continue;
                        }
                    };
                    // A repeated key, renamed for the parser: the last one wins.
                    let name = k
                        .span()
                        .and_then(|r| {
                            parsed
                                .renames
                                .iter()
                                .find(|(o, _)| *o == r.start || *o == r.start + 1)
                        })
                        .map_or(name, |(_, real)| real.clone());
                    let anchor = match (k.span(), val.expr().span()) {
                        (Some(a), Some(b)) => Some(a.start..b.end),
                        _ => whole.clone(),
                    };
                    let value = eval(val.expr());
                    cfg.inputs.retain(|i| i.name != name);
                    cfg.inputs.push(Input {
                        name,
                        value,
                        anchor,
                    });
                }
            }
            e => match eval(e).kind {
                ValueKind::Map(entries) => {
                    for (k, value) in entries {
                        cfg.inputs.push(Input {
                            name: k.name,
                            value,
                            anchor: whole.clone(),
                        });
                    }
                }
                _ => cfg.inputs_unknown = true,
            },
        }
    }
    if let Some(a) = parsed.body.get_attribute("skip") {
        cfg.skip = Some(eval::as_bool(&eval(&a.value)));
    }
    for b in blocks(&parsed.body, "exclude") {
        let cond = b
            .body
            .get_attribute("if")
            .map(|a| eval::as_bool(&eval(&a.value)));
        cfg.skip = Some(cond.flatten());
    }
    for b in blocks(&parsed.body, "generate") {
        let Some(name) = label(b, 0) else { continue };
        let attr = |n: &str| b.body.get_attribute(n).map(|a| eval(&a.value));
        let path = attr("path").and_then(|v| eval::scalar_text(&v));
        let disabled = attr("disable").is_some_and(|v| eval::as_bool(&v) != Some(false));
        let body = match (path, b.body.get_attribute("contents")) {
            (Some(p), Some(c)) if p.ends_with(".tf") && !disabled => {
                literal_heredoc(&parsed.file, &c.value)
            }
            _ => None,
        };
        cfg.generate.push(Generate {
            name: name.to_string(),
            body,
        });
    }
    cfg
}

/// The body of a heredoc whose content is literal (no interpolation nor
/// directive), as a span of its file: the file Terragrunt writes holds
/// exactly these bytes, less a common indent HCL does not care about.
fn literal_heredoc(file: &SourceFile, e: &Expression) -> Option<Span> {
    let Expression::HeredocTemplate(_) = e else {
        return None;
    };
    let r = e.span()?;
    let text = file.text.get(r.clone())?;
    let start = text.find('\n')? + 1;
    let end = text.trim_end().rfind('\n')? + 1;
    let body = text.get(start..end)?;
    if end < start || body.contains("${") || body.contains("%{") {
        return None;
    }
    Some(Span::new(file.id, r.start + start, r.start + end))
}

/// Parse a configuration file; `None` with the error's place when it does not parse.
pub(super) fn parse(file: Arc<SourceFile>) -> Result<Parsed, (Span, String)> {
    match crate::frontend::terraform::parse_lenient(&file.text) {
        Ok((body, renames)) => Ok(Parsed {
            file,
            body,
            renames,
        }),
        Err(e) => {
            let off = file.clamp(e.location().offset());
            let end = file.text[off..]
                .char_indices()
                .nth(1)
                .map_or(file.text.len(), |(i, _)| off + i);
            let msg = e.message().lines().next().unwrap_or("").to_string();
            Err((Span::new(file.id, off, end), msg))
        }
    }
}

/// Inputs of an included file under the unit's: `deep` merges maps key by
/// key and concatenates lists; `shallow` replaces whole top-level values.
pub(super) fn merge_inputs(base: &mut Vec<Input>, over: Vec<Input>, merge: Merge) {
    for i in over {
        match base.iter_mut().find(|b| b.name == i.name) {
            Some(b) if merge == Merge::Deep => {
                b.value = deep(
                    std::mem::replace(&mut b.value, Value::unknown(None)),
                    i.value,
                );
                b.anchor = i.anchor;
            }
            Some(b) => *b = i,
            None => base.push(i),
        }
    }
}

fn deep(base: Value, over: Value) -> Value {
    match (base.kind, over.kind) {
        (ValueKind::Map(mut a), ValueKind::Map(b)) => {
            for (k, v) in b {
                match a.iter().position(|(x, _)| x.name == k.name) {
                    Some(i) => {
                        let old = std::mem::replace(&mut a[i].1, Value::unknown(None));
                        a[i] = (k, deep(old, v));
                    }
                    None => a.push((k, v)),
                }
            }
            Value::new(ValueKind::Map(a), over.span.or(base.span))
        }
        (ValueKind::List(mut a), ValueKind::List(b)) => {
            a.extend(b);
            Value::new(ValueKind::List(a), over.span.or(base.span))
        }
        (_, kind) => Value::new(kind, over.span),
    }
}
