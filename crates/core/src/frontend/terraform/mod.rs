//! Terraform: a folder of `.tf` files is one module. hcl-edit gives the tree
//! with spans; `eval` resolves expressions into spanned values; the raw
//! `aws_eks_*` resources, the terraform-aws-modules/eks module and
//! `helm_release` are read into the cluster model, and `graph` records the
//! dependencies Terraform orders resources by.

mod auth;
pub(crate) mod eks_module;
pub(crate) mod eval;
mod functions;
pub(crate) mod graph;
pub(crate) mod helm;
mod iam;
mod json_syntax;
mod manifests;
mod network;
mod pod_identity;
mod resources;
pub(crate) mod roots;
mod text;

#[cfg(test)]
mod tests;

use super::{Format, UnitOutput};
use crate::diagnostic::Diagnostic;
use crate::model::{Capacity, Cluster, Known, Loc, Located, Provisioner};
use crate::source::{FileId, SourceFile, Span};
use crate::sources::Sources;
use crate::tree::Limits;
use crate::value::{MapKey, Value, ValueKind};
use eval::{span_of, Decls, Env, Scope};
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block, Body, Structure};
use hcl_edit::Span as _;
use rustc_hash::FxHashMap as HashMap;
use std::path::Path;
use std::sync::Arc;

/// Local module copies (instances included) read for one unit at most.
const MAX_MODULE_COPIES: usize = 128;

/// Load one module folder. `given` are the .tf files of `dir` the user asked to lint
/// (already read through `sources`); the loader reads the other `.tf` siblings,
/// tfvars and local modules through `sources` for context.
pub fn load_module(
    dir: &Path,
    given: &[Arc<SourceFile>],
    sources: &Sources,
    limits: Limits,
) -> UnitOutput {
    // Evaluation recurses as deep as expressions nest.
    crate::stack::with_large_stack(|| load_module_here(dir, given, sources, limits))
}

fn load_module_here(
    dir: &Path,
    given: &[Arc<SourceFile>],
    sources: &Sources,
    limits: Limits,
) -> UnitOutput {
    let mut out = UnitOutput {
        formats: vec![Format::Terraform],
        ..UnitOutput::default()
    };
    let mut files: Vec<Arc<SourceFile>> = given.to_vec();
    let mut diags = Vec::new();
    let listing = Listing::read(dir);
    for f in listing.tf_files(dir, sources, given) {
        if !files.iter().any(|g| g.id == f.id) {
            files.push(f);
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    out.given_files = given.iter().map(|f| f.id).collect();
    out.context_files = files
        .iter()
        .map(|f| f.id)
        .filter(|id| !out.given_files.contains(id))
        .collect();
    let parsed = parse_files(&files, &mut diags);
    let tfvars = read_tfvars(dir, &listing, sources, limits);
    let module = ModuleSrc { dir, files: parsed };
    let mut b = Builder {
        tag: crate::sources::display_path(dir),
        root_dir: dir.to_path_buf(),
        installed: installed_modules(dir, sources),
        reads_patches: true,
        ..Builder::default()
    };
    b.load(&module, sources, limits, Inputs::Root(tfvars), "", 0);
    b.finish(&mut out);
    json_syntax::clear();
    out.diagnostics.extend(diags);
    out
}

/// A root module another frontend wrote for one of its files (a Terragrunt
/// unit as a call of its module): HCL `text` whose ranges `segs` (written
/// start, end, then start, end in the file) map back into `file`'s text.
/// Without `segs` the text is the file's own, other parts blanked.
pub(crate) struct Written {
    pub file: Arc<SourceFile>,
    pub text: String,
    pub segs: Vec<(usize, usize, usize, usize)>,
}

/// Model a written root module whose folder is `dir`, its variables set to
/// `vars`: the unit, and the root's outputs. Call on a large stack, with no
/// other unit being read on this thread.
pub(crate) fn load_written(
    dir: &Path,
    written: Vec<Written>,
    vars: HashMap<String, Value>,
    sources: &Sources,
    limits: Limits,
    into: Option<(roots::Defined, Loc)>,
) -> (UnitOutput, Value) {
    let mut out = UnitOutput {
        formats: vec![Format::Terraform],
        ..UnitOutput::default()
    };
    let mut files = Vec::new();
    for w in written {
        // The writer checked what it copied; text it cannot parse is dropped.
        let Ok(body) = hcl_edit::parser::parse_body(&w.text) else {
            continue;
        };
        if !w.segs.is_empty() {
            json_syntax::register(w.file.id, w.segs);
        }
        files.push(ParsedFile {
            file: w.file,
            body,
            renames: Vec::new(),
        });
    }
    let module = ModuleSrc { dir, files };
    let mut b = Builder {
        tag: crate::sources::display_path(dir),
        root_dir: dir.to_path_buf(),
        ..Builder::default()
    };
    // A cluster another unit defines, which this one reads the outputs of:
    // known before the code is read, so that names of it resolve to it.
    let joined = into.map(|(d, loc)| {
        let i = b.defined_elsewhere(&d, &loc);
        if let Some(n) = d.name.known() {
            b.by_name.insert(n.clone(), i);
        }
        i
    });
    let outputs = b.load(&module, sources, limits, Inputs::Root(vars), "", 0);
    if let Some(i) = joined.filter(|_| !b.defines_cluster()) {
        b.deploys_into.push(i);
    }
    b.finish(&mut out);
    json_syntax::clear();
    (out, outputs)
}

/// A block's header (`module "eks"`), up to its opening brace.
fn header_span(env: &Env<'_>, b: &Block, file: FileId) -> Span {
    let whole = span_of(file, b.span()).unwrap_or(Span::new(file, 0, 0));
    let Some(f) = env.file(file) else {
        return whole;
    };
    let (start, end) = (f.clamp(whole.start as usize), f.clamp(whole.end as usize));
    let text = f.text.get(start..end).unwrap_or("");
    let head = text.find('{').unwrap_or(text.len());
    Span::new(file, start, start + text[..head].trim_end().len())
}

/// The folders that a module folder calls as local modules
/// (`source = "./x"`), lexically normalised. Read straight from disk, so
/// that the walk can tell roots from called modules before anything is
/// modelled; only files that mention a local source are parsed.
pub fn local_calls(
    dir: &Path,
    files: &[std::path::PathBuf],
    max_file_size: u64,
) -> Vec<std::path::PathBuf> {
    use std::io::Read as _;
    let mut out = Vec::new();
    // One buffer for every file, with room for most: fewer `read` calls.
    let mut buf = Vec::with_capacity(64 * 1024);
    for p in files {
        // Read at most one byte past the limit, without a `stat` first: this
        // runs on every `.tf` file before it is modelled.
        buf.clear();
        let read = std::fs::File::open(p).and_then(|f| {
            f.take(max_file_size.saturating_add(1))
                .read_to_end(&mut buf)
        });
        if read.is_err() || buf.len() as u64 > max_file_size {
            continue;
        }
        let bytes = buf.as_slice();
        // Most files call no local module: a scan of the bytes rules them out.
        let local = memchr::memmem::find(bytes, b"\"./").is_some()
            || memchr::memmem::find(bytes, b"\"../").is_some();
        if !local {
            continue;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        let Ok(body) = hcl_edit::parser::parse_body(text) else {
            continue;
        };
        for s in body.iter() {
            let Structure::Block(b) = s else { continue };
            if b.ident.as_str() != "module" {
                continue;
            }
            let Some(Expression::String(src)) = b.body.get_attribute("source").map(|a| &a.value)
            else {
                continue;
            };
            if let eks_module::Kind::Local(rel) = eks_module::kind(src.as_str()) {
                out.push(normalize(&dir.join(rel)));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `a/./b/../c` as `a/c`, without touching the file system.
pub fn normalize(p: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_parent =
                    matches!(out.components().next_back(), Some(Component::ParentDir));
                if last_is_parent || !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Syntax errors of a called module's files, which are linted through
/// their calls rather than as a root.
pub fn syntax_errors(files: &[Arc<SourceFile>]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let _ = parse_files(files, &mut diags);
    diags
}

/// The module key of the module a prefix is the address of:
/// `module.a["x"].module.b.` is `a.b.`, the root's is empty.
fn module_key(prefix: &str) -> String {
    let mut key = String::new();
    let mut rest = prefix;
    while let Some(after) = rest.strip_prefix("module.") {
        let end = after.find(['.', '[']).unwrap_or(after.len());
        key.push_str(&after[..end]);
        key.push('.');
        rest = &after[end..];
        if rest.starts_with('[') {
            rest = rest.find("].").map_or("", |i| &rest[i + 1..]);
        }
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    key
}

/// `.terraform/modules/modules.json`, which `terraform init` writes: module
/// keys to the folders (relative to the root) it installed their code into.
fn installed_modules(dir: &Path, sources: &Sources) -> HashMap<String, std::path::PathBuf> {
    let mut out = HashMap::default();
    let path = dir.join(".terraform").join("modules").join("modules.json");
    if !path.is_file() {
        return out;
    }
    let Ok(f) = sources.load(&path) else {
        return out;
    };
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&f.text) else {
        return out;
    };
    for m in doc
        .get("Modules")
        .and_then(|m| m.as_array())
        .into_iter()
        .flatten()
    {
        let (Some(key), Some(d)) = (
            m.get("Key").and_then(|k| k.as_str()),
            m.get("Dir").and_then(|k| k.as_str()),
        ) else {
            continue;
        };
        // Only folders inside the root's `.terraform`: the file is data, not a
        // licence to read elsewhere.
        let rel = Path::new(d);
        let inside = rel.starts_with(".terraform")
            && !rel
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir));
        if !key.is_empty() && inside {
            out.insert(key.to_string(), rel.to_path_buf());
        }
    }
    out
}

/// Local module calls in an order where a call that passes another's
/// outputs comes after it, as far as that can be told; the rest in file order.
fn local_module_order(blocks: &[(&Block, FileId)], is_local: &dyn Fn(usize) -> bool) -> Vec<usize> {
    let calls: Vec<usize> = (0..blocks.len()).filter(|i| is_local(*i)).collect();
    let needs: Vec<Vec<String>> = calls
        .iter()
        .map(|&i| {
            let mut n: Vec<String> = blocks[i]
                .0
                .body
                .iter()
                .filter_map(|s| match s {
                    Structure::Attribute(a) => Some(graph::refs_of_expr(&a.value)),
                    Structure::Block(_) => None,
                })
                .flatten()
                .filter(|r| r.root == "module")
                .filter_map(|r| r.attrs.first().cloned())
                .collect();
            n.sort();
            n.dedup();
            n
        })
        .collect();
    let name = |i: usize| label(blocks[i].0, 0).unwrap_or("");
    let mut done: Vec<usize> = Vec::new();
    let mut left: Vec<usize> = (0..calls.len()).collect();
    while !left.is_empty() {
        let pending: rustc_hash::FxHashSet<&str> = left.iter().map(|&k| name(calls[k])).collect();
        let ready: Vec<usize> = left
            .iter()
            .copied()
            .filter(|&k| {
                needs[k]
                    .iter()
                    .all(|m| m == name(calls[k]) || !pending.contains(m.as_str()))
            })
            .collect();
        // A cycle: the rest in file order.
        let take = if ready.is_empty() {
            left.clone()
        } else {
            ready
        };
        left.retain(|k| !take.contains(k));
        done.extend(take.into_iter().map(|k| calls[k]));
    }
    done
}

pub use json_syntax::is_plan;

/// `terraform show -json` output of a plan: `planned_values` (every value
/// resolved) read into the model, `configuration` giving the order.
/// Findings point at each resource's place in the JSON.
pub fn load_plan(file: &SourceFile, doc: &crate::tree::Node, limits: Limits) -> UnitOutput {
    let mut out = UnitOutput {
        formats: vec![Format::Terraform],
        ..UnitOutput::default()
    };
    let Some((text, segs)) = json_syntax::translate_plan(doc) else {
        return out;
    };
    let planned = json_syntax::planned_resources(doc);
    let f = Arc::new(SourceFile::new(
        file.id,
        file.path.clone(),
        file.text.clone(),
    ));
    let tag = file.path.clone();
    crate::stack::with_large_stack(move || {
        let Ok(body) = hcl_edit::parser::parse_body(&text) else {
            return out;
        };
        json_syntax::register(f.id, segs);
        // Nothing in a plan reads files: a root that does not exist.
        let nowhere = Path::new("/nonexistent/fplint-plan");
        let sources = Sources::new(vec![nowhere.to_path_buf()]);
        let module = ModuleSrc {
            dir: nowhere,
            files: vec![ParsedFile {
                file: f.clone(),
                body,
                renames: Vec::new(),
            }],
        };
        let mut b = Builder {
            tag,
            ..Builder::default()
        };
        b.load(
            &module,
            &sources,
            limits,
            Inputs::Root(HashMap::default()),
            "",
            0,
        );
        b.finish(&mut out);
        // A plan holds values, not syntax: blocks and arguments look alike
        // there, so the schema check of the source does not apply.
        out.schema.clear();
        // Its blocks are made up; its resources are what sources match.
        out.terraform_blocks.clear();
        out.planned = planned;
        json_syntax::clear();
        out.given_files = vec![f.id];
        out
    })
}

/// One folder's entries, listed once for its `.tf` files and its tfvars.
struct Listing {
    /// File name and whether the entry is a regular file rather than a link.
    entries: Vec<(String, bool)>,
}

impl Listing {
    fn read(dir: &Path) -> Listing {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let mut entries: Vec<(String, bool)> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .filter_map(|e| {
                        // The listing's own file type: no `stat` per entry.
                        let ft = e.file_type().ok()?;
                        let name = e.file_name().into_string().ok()?;
                        (ft.is_file() || ft.is_symlink()).then_some((name, ft.is_file()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        entries.sort();
        Listing { entries }
    }

    fn load(
        &self,
        dir: &Path,
        (name, regular): &(String, bool),
        sources: &Sources,
    ) -> Option<Arc<SourceFile>> {
        let path = dir.join(name);
        if *regular {
            sources.load_listed_file(&path).ok()
        } else {
            // A link: `load` follows it only while it stays in the tree.
            sources.load(&path).ok()
        }
    }

    /// The folder's `.tf` files, `given` ones as they are.
    fn tf_files(
        &self,
        dir: &Path,
        sources: &Sources,
        given: &[Arc<SourceFile>],
    ) -> Vec<Arc<SourceFile>> {
        self.entries
            .iter()
            .filter(|(n, _)| (n.ends_with(".tf") || n.ends_with(".tf.json")) && !n.starts_with('.'))
            .take(500)
            .filter_map(|e| {
                let shown = crate::sources::display_path(&dir.join(&e.0));
                match given.iter().find(|g| g.path == shown) {
                    Some(g) => Some(g.clone()),
                    None => self.load(dir, e, sources),
                }
            })
            .collect()
    }

    fn has(&self, name: &str) -> Option<&(String, bool)> {
        self.entries.iter().find(|(n, _)| n == name)
    }
}

struct ParsedFile {
    file: Arc<SourceFile>,
    body: Body,
    /// Repeated object keys renamed for the parser: (offset, real name).
    renames: Vec<(usize, String)>,
}

struct ModuleSrc<'p> {
    dir: &'p Path,
    files: Vec<ParsedFile>,
}

/// Parse a file as Terraform does. HCL lets an object constructor repeat a
/// key (the last one wins) but hcl-edit rejects it: each repeated key is
/// renamed in a copy of the text, with the same length so that spans hold,
/// and the evaluator reads it under its own name.
pub(crate) fn parse_lenient(
    text: &str,
) -> Result<(Body, Vec<(usize, String)>), hcl_edit::parser::Error> {
    let mut renames: Vec<(usize, String)> = Vec::new();
    let mut cur: Option<String> = None;
    let mut attempts = 0usize;
    loop {
        let err = match hcl_edit::parser::parse_body(cur.as_deref().unwrap_or(text)) {
            Ok(body) => return Ok((body, renames)),
            Err(e) => e,
        };
        attempts += 1;
        // Each retry parses the whole text again: bounded in bytes as well.
        let max_attempts = ((256usize << 20) / text.len().max(1)).min(512);
        if !err.message().contains("redefined object key") || attempts > max_attempts {
            return Err(err);
        }
        let work = cur.get_or_insert_with(|| text.to_string());
        let off = err.location().offset();
        let Some((start, name)) = rename_key(work, off, attempts) else {
            return Err(err);
        };
        // Renamed twice (the first fresh name clashed): keep the real name.
        match renames.iter().position(|(o, _)| *o == start) {
            Some(_) => {}
            None => renames.push((start, name)),
        }
    }
}

/// Replace the object key at `off` by a fresh name of the same length; returns
/// where the name starts and what it was.
fn rename_key(text: &mut String, off: usize, n: usize) -> Option<(usize, String)> {
    let rest = text.get(off..)?;
    let (start, len) = if let Some(inner) = rest.strip_prefix('"') {
        let end = inner.find('"')?;
        (off + 1, end)
    } else {
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        (off, len)
    };
    if len == 0 {
        return None;
    }
    let original = text.get(start..start + len)?.to_string();
    if !original.is_ascii() {
        return None;
    }
    // Names of the same length: a letter then base-36 digits. One not in the
    // text is best; short ones may collide with a sibling key, which the
    // parser reports again and the caller renames once more.
    const DIGITS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let candidate = |mut c: usize| -> String {
        let mut name = vec![b'a' + (c % 26) as u8];
        c /= 26;
        while name.len() < len {
            name.push(DIGITS[c % 36]);
            c /= 36;
        }
        String::from_utf8(name).unwrap_or_default()
    };
    let base = n * 7919 + 1;
    let fresh = (0..2000)
        .map(|k| candidate(base + k))
        .find(|f| f != &original && !text.contains(f.as_str()))
        .unwrap_or_else(|| candidate(base + n));
    if fresh == original {
        return None;
    }
    text.replace_range(start..start + len, &fresh);
    Some((start, original))
}

fn parse_files(files: &[Arc<SourceFile>], diags: &mut Vec<Diagnostic>) -> Vec<ParsedFile> {
    let mut out = Vec::new();
    for f in files {
        if f.path.ends_with(".tf.json") {
            if let Some(pf) = parse_json_file(f, diags) {
                out.push(pf);
            }
            continue;
        }
        match parse_lenient(&f.text) {
            Ok((body, renames)) => out.push(ParsedFile {
                file: f.clone(),
                body,
                renames,
            }),
            Err(e) => {
                let off = f.clamp(e.location().offset());
                let end = f.text[off..]
                    .char_indices()
                    .nth(1)
                    .map_or(f.text.len(), |(i, _)| off + i);
                diags.push(
                    Diagnostic::parse_error(
                        format!("invalid HCL: {}", first_line(e.message())),
                        Span::new(f.id, off, end),
                    )
                    .with_label("here")
                    .with_help("fix the syntax error; fplint checks the module once it parses"),
                );
            }
        }
    }
    out
}

/// A `.tf.json` file, read through its HCL rewrite (see [`json_syntax`]).
fn parse_json_file(f: &Arc<SourceFile>, diags: &mut Vec<Diagnostic>) -> Option<ParsedFile> {
    let parsed = crate::tree::json::parse(&f.text, f.id, Limits::default());
    if let Some(e) = parsed.error {
        let help = crate::frontend::parse_help(
            &e.message,
            "fix the syntax error; fplint checks the module once it parses",
        );
        diags.push(
            Diagnostic::parse_error(format!("invalid JSON: {}", e.message), e.span)
                .with_label("here")
                .with_help(help),
        );
        return None;
    }
    let (text, segs) = json_syntax::translate(parsed.documents.first()?)?;
    let body = hcl_edit::parser::parse_body(&text).ok()?;
    json_syntax::register(f.id, segs);
    Some(ParsedFile {
        file: f.clone(),
        body,
        renames: Vec::new(),
    })
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

/// `terraform.tfvars(.json)` then `*.auto.tfvars(.json)` in name order, as
/// Terraform reads them; later files win.
fn read_tfvars(
    dir: &Path,
    listing: &Listing,
    sources: &Sources,
    limits: Limits,
) -> HashMap<String, Value> {
    let mut names = vec![
        "terraform.tfvars".to_string(),
        "terraform.tfvars.json".to_string(),
    ];
    names.extend(
        listing
            .entries
            .iter()
            .map(|(n, _)| n)
            .filter(|n| n.ends_with(".auto.tfvars") || n.ends_with(".auto.tfvars.json"))
            .cloned(),
    );
    let mut vars = HashMap::default();
    let decls = Decls::default();
    for n in names {
        let Some(f) = listing.has(&n).and_then(|e| listing.load(dir, e, sources)) else {
            continue;
        };
        if n.ends_with(".json") {
            let parsed = crate::tree::json::parse(&f.text, f.id, limits);
            if let Some(doc) = parsed.documents.first().filter(|_| parsed.error.is_none()) {
                if let ValueKind::Map(entries) = Value::from_node(doc).kind {
                    for (k, v) in entries {
                        vars.insert(k.name, v);
                    }
                }
            }
            continue;
        }
        let Ok(body) = hcl_edit::parser::parse_body(&f.text) else {
            continue;
        };
        let mut env = Env::new(&decls, sources, dir.to_path_buf());
        env.limits = limits;
        env.files.borrow_mut().insert(f.id, f.clone());
        for s in body.iter() {
            if let Structure::Attribute(a) = s {
                let val = env
                    .eval(&a.value, f.id, &Vec::new())
                    .unwrap_or_else(|_| Value::unknown(span_of(f.id, a.value.span())));
                vars.insert(a.key.as_str().to_string(), val);
            }
        }
    }
    vars
}

/// A `provider` block, or a `terraform` block with a backend or cloud: a root module.
fn configures_provider(module: &ModuleSrc<'_>) -> bool {
    module.files.iter().any(|pf| {
        pf.body.iter().any(|s| match s {
            Structure::Block(b) => {
                b.ident.as_str() == "provider"
                    || (b.ident.as_str() == "terraform"
                        && b.body.iter().any(|s| {
                            matches!(s, Structure::Block(x)
                                if matches!(x.ident.as_str(), "backend" | "cloud"))
                        }))
            }
            Structure::Attribute(_) => false,
        })
    })
}

fn is_empty_value(v: &Value) -> bool {
    match &v.kind {
        ValueKind::Null => true,
        ValueKind::String(s) => s.is_empty(),
        ValueKind::List(i) => i.is_empty(),
        ValueKind::Map(e) => e.is_empty(),
        _ => false,
    }
}

/// Where a module's variables come from.
enum Inputs {
    Root(HashMap<String, Value>),
    /// Values passed by the calling module block.
    Child(HashMap<String, Value>),
}

pub(crate) fn label(b: &Block, i: usize) -> Option<&str> {
    b.labels.get(i).map(|l| l.as_str())
}

/// A block with its evaluation scope (`each`, `count`, dynamic iterators).
pub(crate) struct Inst<'b> {
    pub body: &'b Body,
    pub file: FileId,
    pub scope: Scope,
    /// `["key"]` or `[0]` for repeated resources, empty otherwise.
    pub suffix: String,
    /// Where this instance comes from (the `for_each` key, or the block).
    pub span: Span,
}

/// Evaluation helpers over one module.
pub(crate) struct Ctx<'e, 'a> {
    pub env: &'e Env<'a>,
}

impl Ctx<'_, '_> {
    pub fn eval_attr(&self, body: &Body, name: &str, file: FileId, scope: &Scope) -> Option<Value> {
        let a = body.get_attribute(name)?;
        Some(
            self.env
                .eval(&a.value, file, scope)
                .unwrap_or_else(|_| Value::unknown(span_of(file, a.value.span()))),
        )
    }

    /// The instances of a resource or module block: one, or one per
    /// `count`/`for_each` element; unknown when those cannot be resolved.
    pub fn instances<'b>(&self, block: &'b Block, file: FileId) -> Known<Vec<Inst<'b>>> {
        let body = &block.body;
        let bspan = span_of(file, block.span()).unwrap_or_default();
        if let Some(c) = self.eval_attr(body, "count", file, &Vec::new()) {
            let Some(n) = eval::as_num(&c) else {
                return Known::Unknown;
            };
            let n = n.max(0.0) as usize;
            if n > self.env.limits.max_collection {
                self.env.note_collection(span_of(file, block.span()));
                return Known::Unknown;
            }
            return Known::Known(
                (0..n)
                    .map(|i| Inst {
                        body,
                        file,
                        scope: vec![(
                            "count".into(),
                            map_value(vec![("index", eval::num(i as f64, None))]),
                        )],
                        suffix: format!("[{i}]"),
                        span: bspan,
                    })
                    .collect(),
            );
        }
        if let Some(fe) = self.eval_attr(body, "for_each", file, &Vec::new()) {
            return match iter_pairs(&fe) {
                Some(pairs) => Known::Known(
                    pairs
                        .into_iter()
                        .map(|(k, kspan, x)| Inst {
                            body,
                            file,
                            suffix: format!("[\"{k}\"]"),
                            span: kspan.unwrap_or(bspan),
                            scope: vec![(
                                "each".into(),
                                map_value(vec![
                                    ("key", Value::new(ValueKind::String(k), kspan)),
                                    ("value", x),
                                ]),
                            )],
                        })
                        .collect(),
                ),
                None => Known::Unknown,
            };
        }
        Known::Known(vec![Inst {
            body,
            file,
            scope: Vec::new(),
            suffix: String::new(),
            span: bspan,
        }])
    }

    /// Nested blocks named `name`, static and `dynamic "name"` ones, in order.
    pub fn blocks<'b>(
        &self,
        body: &'b Body,
        name: &str,
        file: FileId,
        scope: &Scope,
    ) -> Known<Vec<Inst<'b>>> {
        let mut out = Vec::new();
        for s in body.iter() {
            let Structure::Block(b) = s else { continue };
            let bspan = span_of(file, b.span()).unwrap_or_default();
            if b.ident.as_str() == name {
                out.push(Inst {
                    body: &b.body,
                    file,
                    scope: scope.clone(),
                    suffix: String::new(),
                    span: bspan,
                });
            } else if b.ident.as_str() == "dynamic" && label(b, 0) == Some(name) {
                let iter_name = b
                    .body
                    .get_attribute("iterator")
                    .and_then(|a| match &a.value {
                        Expression::Variable(v) => Some(v.as_str().to_string()),
                        _ => None,
                    })
                    .unwrap_or_else(|| name.to_string());
                let Some(content) = b.body.iter().find_map(|s| match s {
                    Structure::Block(c) if c.ident.as_str() == "content" => Some(c),
                    _ => None,
                }) else {
                    continue;
                };
                let Some(fe) = self.eval_attr(&b.body, "for_each", file, scope) else {
                    return Known::Unknown;
                };
                let Some(pairs) = iter_pairs(&fe) else {
                    return Known::Unknown;
                };
                for (k, kspan, x) in pairs {
                    let mut sc = scope.clone();
                    sc.push((
                        iter_name.clone(),
                        map_value(vec![
                            ("key", Value::new(ValueKind::String(k), kspan)),
                            ("value", x),
                        ]),
                    ));
                    out.push(Inst {
                        body: &content.body,
                        file,
                        scope: sc,
                        suffix: String::new(),
                        span: span_of(file, content.span()).unwrap_or(bspan),
                    });
                }
            }
        }
        Known::Known(out)
    }
}

/// `for_each` elements as (key, key span, value); sets give key = value.
fn iter_pairs(x: &Value) -> Option<Vec<(String, Option<Span>, Value)>> {
    match &x.kind {
        ValueKind::Map(entries) => {
            let mut e: Vec<_> = entries
                .iter()
                .map(|(k, val)| (k.name.clone(), k.span, val.clone()))
                .collect();
            e.sort_by(|a, b| a.0.cmp(&b.0));
            Some(e)
        }
        ValueKind::List(items) => items
            .iter()
            .map(|i| match &i.kind {
                ValueKind::Unknown => None,
                _ => {
                    // A list of objects (dynamic blocks) is keyed by index.
                    let key = eval::scalar_text(i).unwrap_or_default();
                    Some((key, i.span, i.clone()))
                }
            })
            .collect(),
        ValueKind::Null => Some(Vec::new()),
        _ => None,
    }
}

pub(crate) fn map_value(entries: Vec<(&str, Value)>) -> Value {
    Value::new(
        ValueKind::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    (
                        MapKey {
                            name: k.to_string(),
                            span: None,
                        },
                        v,
                    )
                })
                .collect(),
        ),
        None,
    )
}

/// A string with its location; unknown unless the value is a known scalar.
pub(crate) fn located_str(val: Option<&Value>, fallback: Span, path: &str) -> Located<String> {
    match val {
        Some(x) => Located::new(
            eval::scalar_text(x).into(),
            Loc::new(x.span.unwrap_or(fallback), path),
        ),
        None => Located::new(Known::Unknown, Loc::new(fallback, path)),
    }
}

/// What the unit builds, across the root module and the local modules it calls.
#[derive(Default)]
pub(crate) struct Builder {
    pub clusters: Vec<Cluster>,
    /// `aws_eks_cluster.x` / `module.eks` (with module prefix) → cluster index.
    pub by_address: HashMap<String, usize>,
    pub by_name: HashMap<String, usize>,
    /// Per cluster: EC2 capacity seen, or capacity that could not be resolved.
    pub capacity: HashMap<usize, Capacity>,
    /// EC2 capacity whose cluster could not be told.
    pub stray_capacity: bool,
    /// Of it, node groups and Karpenter installs, which may serve any
    /// cluster of the run (see [`crate::model::Project::stray_capacity`]).
    pub unattributed: Vec<crate::model::StrayCapacity>,
    pub graph: graph::GraphBuilder,
    pub releases: Vec<crate::model::HelmRelease>,
    /// Releases and folders a controller applies, declared by what a local
    /// chart renders (an Argo CD `Application` in a chart).
    pub declared: Vec<crate::model::HelmRelease>,
    pub directory_sources: Vec<crate::model::DirectorySource>,
    /// Local module copies read so far in this unit.
    pub modules_loaded: usize,
    /// Whether copies past the bound were left unread (said once).
    pub copies_capped: bool,
    /// Hard limits that evaluation ran into (FP000): the values past them
    /// are unknown, and the user should know why.
    pub limit_hits: Vec<Diagnostic>,
    /// Keys outside the resources' and modules' schemas.
    pub schema: Vec<crate::schema::SchemaFinding>,
    pub workloads: Vec<crate::workload::Workload>,
    pub aws_auth: Vec<crate::workload::AwsAuth>,
    pub pod_identities: Vec<crate::workload::PodIdentityAssociation>,
    pub karpenter: crate::workload::KarpenterObjects,
    /// Files of local modules, read for context only.
    pub context_files: Vec<FileId>,
    /// Each module file with the call that read it.
    pub module_calls: Vec<crate::model::ModuleCall>,
    /// While a module's code is read: the root module's call it is reached
    /// through ([`crate::model::ModuleCall::outer`]).
    pub outer: Option<Span>,
    /// Resource and module blocks by configuration address, for plans.
    pub blocks: Vec<crate::model::TerraformBlock>,
    /// The root module's folder, and the folders `terraform init` installed
    /// modules into by module key (`eks`, `eks.fargate_profile`).
    pub root_dir: std::path::PathBuf,
    pub installed: HashMap<String, std::path::PathBuf>,
    /// Evaluation steps used by the modules of the unit read so far.
    pub steps: u64,
    /// The module folder as shown to the user: keys of clusters whose name
    /// is unknown include it, so that clusters of different folders stay apart.
    pub tag: String,
    /// Resources seen that change CoreDNS's Deployment (a `kubectl patch`
    /// run by Terraform, an annotation of the Deployment, a CoreDNS chart).
    pub coredns_patches: Vec<Loc>,
    /// Something fplint cannot read might change CoreDNS (a module it does
    /// not read, a script it cannot see).
    pub coredns_unknown: bool,
    /// An add-on whose cluster could not be told.
    pub addons_stray: bool,
    /// Whether the unit is read from its configuration, where every block
    /// that could patch CoreDNS is seen (not from a plan).
    pub reads_patches: bool,
    /// Other roots read through `terraform_remote_state`, by module prefix
    /// and data source name.
    pub(crate) remote: HashMap<String, roots::Remote>,
    /// A root read for its outputs: note which designate a cluster.
    pub(crate) designate_outputs: bool,
    pub(crate) output_clusters: Vec<(Vec<String>, roots::Defined)>,
    /// Clusters the root's Kubernetes providers deploy into, by index.
    pub(crate) deploys_into: Vec<usize>,
    /// In a root that defines several clusters: the key of the one its
    /// default Kubernetes providers' `host` designates.
    pub(crate) provider_cluster: Option<String>,
    /// Resources (graph nodes) that name a provider of their own, not the
    /// root's default one.
    pub(crate) own_provider: Vec<u32>,
    /// The region of the root's one `aws` provider, when it is known.
    pub(crate) region: Option<Located<String>>,
}

impl Builder {
    /// Schema findings of one block. A `.tf.json` file was checked as HCL
    /// made from it: spans go back to the JSON, and JSON has no block
    /// syntax (Terraform tells blocks by the schema), so an object where a
    /// block belongs is no mistake there.
    fn schema_found(&mut self, file: FileId, mut found: Vec<crate::schema::SchemaFinding>) {
        if json_syntax::is_translated(file) {
            found.retain(|f| !matches!(f, crate::schema::SchemaFinding::ArgumentForBlock { .. }));
            for f in &mut found {
                let s = f.span_mut();
                let r = json_syntax::remap(file, s.start as usize..s.end as usize);
                *s = Span::new(file, r.start, r.end);
            }
        }
        self.schema.append(&mut found);
    }

    fn load(
        &mut self,
        module: &ModuleSrc<'_>,
        sources: &Sources,
        limits: Limits,
        inputs: Inputs,
        prefix: &str,
        depth: usize,
    ) -> Value {
        let mut decls = Decls::default();
        for pf in &module.files {
            let id = pf.file.id;
            for s in pf.body.iter() {
                let Structure::Block(b) = s else { continue };
                match (b.ident.as_str(), label(b, 0), label(b, 1)) {
                    ("variable", Some(n), _) => {
                        let default = b.body.get_attribute("default").map(|a| &a.value);
                        decls.variables.insert(n.to_string(), (id, default));
                        if let Some(t) = b.body.get_attribute("type") {
                            decls.types.insert(n.to_string(), (id, &t.value));
                        }
                    }
                    ("locals", _, _) => {
                        for s in b.body.iter() {
                            if let Structure::Attribute(a) = s {
                                decls
                                    .locals
                                    .insert(a.key.as_str().to_string(), (id, &a.value));
                            }
                        }
                    }
                    ("module", Some(n), _) => {
                        self.note_block(pf, b, prefix, &format!("module.{n}"));
                    }
                    ("data", Some(t), Some(n)) => {
                        decls.data.insert(crate::path::dot(t, n), (id, &b.body));
                    }
                    ("resource", Some(t), Some(n)) => {
                        self.note_block(pf, b, prefix, &crate::path::dot(t, n));
                        let repeated =
                            b.body.has_attribute("count") || b.body.has_attribute("for_each");
                        decls
                            .resources
                            .insert(crate::path::dot(t, n), (id, &b.body, repeated));
                        if let Some(r) = b.span() {
                            let r = json_syntax::remap(id, r);
                            let text = &pf.file.text[pf.file.clamp(r.start)..pf.file.clamp(r.end)];
                            let end = text.find('{').unwrap_or(text.len());
                            decls.headers.insert(
                                crate::path::dot(t, n),
                                Span::new(id, r.start, r.start + text[..end].trim_end().len()),
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut env = Env::new(&decls, sources, module.dir.to_path_buf());
        env.limits = limits;
        env.set_steps(self.steps);
        for pf in &module.files {
            env.files.borrow_mut().insert(pf.file.id, pf.file.clone());
            for (off, name) in &pf.renames {
                env.renamed.insert((pf.file.id, *off as u32), name.clone());
            }
        }
        // A folder that configures no provider is a module meant to be called:
        // its empty defaults ("", [], {}, null) mean "the caller sets this",
        // so read alone they are unknown rather than empty.
        let library = matches!(inputs, Inputs::Root(_)) && !configures_provider(module);
        let mut vars = HashMap::default();
        let mut names: Vec<&String> = decls.variables.keys().collect();
        names.sort();
        for name in names {
            let Some((file, default)) = decls.variables.get(name) else {
                continue;
            };
            if let Some(d) = default {
                let val = env
                    .eval(d, *file, &Vec::new())
                    .unwrap_or_else(|_| Value::unknown(span_of(*file, d.span())));
                if library && is_empty_value(&val) {
                    continue;
                }
                // In a root too, an empty string is what a value set outside
                // (tfvars elsewhere, TF_VAR_, the workspace) is left at.
                if matches!(&val.kind, ValueKind::String(s) if s.is_empty()) {
                    continue;
                }
                vars.insert(name.clone(), val);
            }
        }
        match inputs {
            Inputs::Root(tfvars) => vars.extend(tfvars),
            Inputs::Child(values) => {
                for (k, val) in values {
                    vars.insert(k, val);
                }
                // A variable without default nor input is unknown (absent).
            }
        }
        // Values take their variables' types: absent optional attributes are null.
        let mut typed: Vec<&String> = decls.types.keys().collect();
        typed.sort();
        for name in typed {
            if let (Some(val), Some(&(file, ty))) = (vars.get_mut(name), decls.types.get(name)) {
                let x = std::mem::replace(val, Value::unknown(None));
                *val = env.apply_type(x, ty, file, 0);
            }
        }
        env.vars = vars;
        let ctx = Ctx { env: &env };

        // Graph nodes first, so references resolve whatever the file order.
        let mut blocks: Vec<(&Block, FileId)> = Vec::new();
        for pf in &module.files {
            for s in pf.body.iter() {
                if let Structure::Block(b) = s {
                    blocks.push((b, pf.file.id));
                }
            }
        }
        self.read_remote_states(&ctx, &blocks, module.dir, prefix, limits);
        if prefix.is_empty() {
            self.read_region(&ctx, &blocks);
        }
        // Each module call's kind, worked out once (a local source reads the folder).
        let block_kinds: Vec<Option<eks_module::Kind>> = blocks
            .iter()
            .map(|(b, f)| {
                (b.ident.as_str() == "module").then(|| {
                    let src = ctx.eval_attr(&b.body, "source", *f, &Vec::new());
                    let src = src.as_ref().and_then(eval::scalar_text).unwrap_or_default();
                    match eks_module::kind(&src) {
                        eks_module::Kind::Local(rel) => {
                            let dir = module.dir.join(&rel);
                            eks_module::local_kind(&dir, &dir.to_string_lossy(), &b.body, sources)
                        }
                        // Installed by `terraform init`: read as code like a
                        // local module (a copy of terraform-aws-eks by its shape).
                        eks_module::Kind::Other => {
                            let key = format!(
                                "{}{}",
                                module_key(prefix),
                                label(b, 0).unwrap_or_default()
                            );
                            match self.installed.get(&key) {
                                Some(d) => {
                                    let dir = self.root_dir.join(d);
                                    eks_module::local_kind(
                                        &dir,
                                        &dir.to_string_lossy(),
                                        &b.body,
                                        sources,
                                    )
                                }
                                None => eks_module::Kind::Other,
                            }
                        }
                        k => k,
                    }
                })
            })
            .collect();
        // How each terraform-aws-eks call's profiles name their pods, by
        // the version of its code on disk or its `version` constraint.
        let forms: Vec<eks_module::ProfileForm> = blocks
            .iter()
            .enumerate()
            .map(|(i, (b, f))| match &block_kinds[i] {
                Some(eks_module::Kind::Root | eks_module::Kind::FargateV17) => {
                    self.profile_form(module.dir, b, *f, &ctx, prefix, sources)
                }
                _ => eks_module::ProfileForm::Selectors,
            })
            .collect();
        // terraform-aws-eks whose code is on disk: read as code like any
        // other module when that models it at least as precisely as its inputs.
        let mut block_kinds = block_kinds;
        let mut eks_by_code = vec![false; blocks.len()];
        if depth < limits.max_module_depth {
            for (i, (b, f)) in blocks.iter().enumerate() {
                if block_kinds[i] != Some(eks_module::Kind::Root) {
                    continue;
                }
                let Some((dir, _)) = self.eks_code_dir(module.dir, b, *f, &ctx, prefix, sources)
                else {
                    continue;
                };
                if self.code_agrees(
                    sources,
                    limits,
                    &ctx,
                    (b, *f, forms[i]),
                    &dir,
                    prefix,
                    depth,
                ) {
                    block_kinds[i] = Some(eks_module::Kind::Local(dir.to_string_lossy().into()));
                    eks_by_code[i] = true;
                }
            }
        }
        let kind_at = |i: usize| block_kinds.get(i).cloned().flatten();
        // By name for references (the first block of a name wins, as
        // Terraform would reject a second one anyway).
        let mut kinds: HashMap<String, eks_module::Kind> = HashMap::default();
        for (i, (b, _)) in blocks.iter().enumerate() {
            if b.ident.as_str() == "module" {
                if let (Some(name), Some(k)) = (label(b, 0), kind_at(i)) {
                    kinds.entry(name.to_string()).or_insert(k);
                }
            }
        }
        self.graph.add_nodes(&blocks, prefix, &kinds, &decls);

        // Clusters first, so profiles in any file find theirs.
        let defines_cluster = |i: usize| match (blocks[i].0.ident.as_str(), label(blocks[i].0, 0)) {
            ("resource", Some(t)) => t == "aws_eks_cluster",
            ("module", Some(_)) => kind_at(i) == Some(eks_module::Kind::Root),
            _ => false,
        };
        let is_local = |i: usize| matches!(kind_at(i), Some(eks_module::Kind::Local(_)));
        let ordered: Vec<usize> = (0..blocks.len())
            .filter(|i| defines_cluster(*i))
            .chain(local_module_order(&blocks, &is_local))
            .chain((0..blocks.len()).filter(|i| !defines_cluster(*i) && !is_local(*i)))
            .collect();
        let defining = ordered.iter().filter(|i| defines_cluster(**i)).count();
        for (k, i) in ordered.into_iter().enumerate() {
            // Once the unit's own clusters are known: the clusters it names
            // elsewhere, for the resources that follow.
            if k == defining {
                self.read_cluster_data(&ctx, &blocks, prefix);
                self.read_providers(&ctx, &blocks, prefix);
            }
            let (b, file) = &blocks[i];
            match (b.ident.as_str(), label(b, 0), label(b, 1)) {
                ("resource", Some(t), Some(n)) => {
                    let mut found = Vec::new();
                    crate::schema::terraform::check_resource(b, *file, &mut found);
                    self.schema_found(*file, found);
                    resources::read(self, &ctx, b, *file, t, n, prefix);
                }
                ("module", Some(n), _) => {
                    let kind = kind_at(i).unwrap_or(eks_module::Kind::Other);
                    let sub = match kind {
                        _ if eks_by_code[i] => Some(None),
                        eks_module::Kind::Root => Some(None),
                        eks_module::Kind::FargateProfile => Some(Some("modules/fargate-profile")),
                        _ => None,
                    };
                    if let Some(sub) = sub {
                        let mut found = Vec::new();
                        crate::schema::terraform::check_eks_module(b, *file, sub, &mut found);
                        self.schema_found(*file, found);
                    }
                    match kind {
                        eks_module::Kind::Local(rel) if depth < limits.max_module_depth => {
                            self.load_local(
                                sources, limits, &ctx, b, *file, n, &rel, prefix, depth,
                            );
                        }
                        eks_module::Kind::Local(_) => {
                            self.limit_hits.push(Diagnostic::parse_error(
                                format!(
                                    "local modules nest deeper than {} levels (limits.terraform-module-depth; a module that calls itself?); this one is not read",
                                    limits.max_module_depth
                                ),
                                span_of(*file, b.span()).unwrap_or(Span::new(*file, 0, 0)),
                            ));
                            self.opaque_module(&ctx, b, *file, prefix);
                        }
                        eks_module::Kind::Other => self.opaque_module(&ctx, b, *file, prefix),
                        k => eks_module::read(self, &ctx, b, *file, n, &k, prefix, forms[i]),
                    }
                }
                _ => {}
            }
        }
        if let Some((span, message)) = env.limit_hit.borrow_mut().take() {
            let at = span
                .or_else(|| module.files.first().map(|f| Span::new(f.file.id, 0, 0)))
                .unwrap_or_default();
            self.limit_hits.push(Diagnostic::parse_error(message, at));
        }
        // Releases and manifests are placed once every cluster of the unit is known.
        for (b, file) in &blocks {
            match (b.ident.as_str(), label(b, 0), label(b, 1)) {
                ("resource", Some("helm_release"), Some(n)) => {
                    helm::read(self, &ctx, b, *file, n, prefix);
                }
                ("resource", Some(t @ ("kubectl_manifest" | "kubernetes_manifest")), Some(n)) => {
                    manifests::read(self, &ctx, b, *file, t, n, prefix);
                }
                ("resource", Some("argocd_application"), Some(n)) => {
                    manifests::read_application(self, &ctx, b, *file, n, prefix);
                }
                ("resource", Some(t), Some(n)) if t.starts_with("kubernetes_") => {
                    manifests::read_typed(self, &ctx, b, *file, t, n, prefix);
                }
                ("resource", Some("aws_eks_pod_identity_association"), Some(n)) => {
                    pod_identity::read(self, &ctx, b, *file, n, prefix);
                }
                ("module", Some(n), _) => {
                    pod_identity::read_karpenter(self, &ctx, b, *file, n, prefix);
                }
                // Code run at apply time that fplint does not read (a Lambda
                // function, a program) may patch CoreDNS.
                ("data" | "resource", Some("aws_lambda_invocation" | "external"), _) => {
                    self.coredns_unknown = true;
                }
                _ => {}
            }
        }
        if defining == blocks.len() {
            self.read_cluster_data(&ctx, &blocks, prefix);
            self.read_providers(&ctx, &blocks, prefix);
        }
        if self.designate_outputs && prefix.is_empty() {
            self.note_output_clusters(&decls, &blocks, prefix);
        }
        // The module's outputs, for a caller's `module.NAME.OUTPUT`.
        let mut outputs = Vec::new();
        for (b, file) in &blocks {
            if let ("output", Some(n)) = (b.ident.as_str(), label(b, 0)) {
                let val = ctx
                    .eval_attr(&b.body, "value", *file, &Vec::new())
                    .unwrap_or_else(|| Value::unknown(span_of(*file, b.span())));
                outputs.push((
                    MapKey {
                        name: n.to_string(),
                        span: span_of(*file, b.span()),
                    },
                    val,
                ));
            }
        }
        self.steps = env.steps_used();
        Value::new(ValueKind::Map(outputs), None)
    }

    /// The folder holding the code of a terraform-aws-eks call, when it is
    /// on disk: a local copy, or what `terraform init` installed.
    fn eks_code_dir(
        &self,
        dir: &Path,
        b: &Block,
        file: FileId,
        ctx: &Ctx<'_, '_>,
        prefix: &str,
        sources: &Sources,
    ) -> Option<(std::path::PathBuf, eks_module::Shape)> {
        let src = ctx.eval_attr(&b.body, "source", file, &Vec::new());
        let src = src.as_ref().and_then(eval::scalar_text).unwrap_or_default();
        let code = match eks_module::kind(&src) {
            eks_module::Kind::Local(rel) => dir.join(rel),
            _ => {
                let key = format!("{}{}", module_key(prefix), label(b, 0)?);
                self.root_dir.join(self.installed.get(&key)?)
            }
        };
        let shape = eks_module::Shape::read(&code, sources)?;
        (shape.kind() == Some(eks_module::Kind::Root)).then_some((code, shape))
    }

    /// How a terraform-aws-eks call's profiles name their pods: by the
    /// variables of its code when that is on disk, else by its `version`.
    fn profile_form(
        &self,
        dir: &Path,
        b: &Block,
        file: FileId,
        ctx: &Ctx<'_, '_>,
        prefix: &str,
        sources: &Sources,
    ) -> eks_module::ProfileForm {
        if let Some((_, shape)) = self.eks_code_dir(dir, b, file, ctx, prefix, sources) {
            return shape.profile_form();
        }
        ctx.eval_attr(&b.body, "version", file, &Vec::new())
            .as_ref()
            .and_then(eval::scalar_text)
            .map_or(eks_module::ProfileForm::Unknown, |v| {
                eks_module::ProfileForm::of_version(&v)
            })
    }

    /// Whether reading a terraform-aws-eks call as code gives the model its
    /// inputs give: same clusters, profiles, selectors, capacity and add-ons.
    /// Both are tried on their own, and leave nothing behind.
    #[allow(clippy::too_many_arguments)]
    fn code_agrees(
        &self,
        sources: &Sources,
        limits: Limits,
        ctx: &Ctx<'_, '_>,
        (b, file, form): (&Block, FileId, eks_module::ProfileForm),
        dir: &Path,
        prefix: &str,
        depth: usize,
    ) -> bool {
        let Some(name) = label(b, 0) else {
            return false;
        };
        let trial = || Builder {
            tag: self.tag.clone(),
            root_dir: self.root_dir.clone(),
            installed: self.installed.clone(),
            steps: ctx.env.steps_used(),
            ..Builder::default()
        };
        let steps = ctx.env.steps_used();
        let hit = ctx.env.limit_hit.borrow().clone();
        let mut by_inputs = trial();
        eks_module::read(
            &mut by_inputs,
            ctx,
            b,
            file,
            name,
            &eks_module::Kind::Root,
            prefix,
            form,
        );
        let mut by_code = trial();
        let rel = dir.to_string_lossy();
        by_code.load_local(sources, limits, ctx, b, file, name, &rel, prefix, depth);
        ctx.env.modules.borrow_mut().remove(name);
        ctx.env.set_steps(steps);
        let code_hit_limit =
            !by_code.limit_hits.is_empty() || ctx.env.limit_hit.borrow().is_some() && hit.is_none();
        *ctx.env.limit_hit.borrow_mut() = hit;
        !code_hit_limit && covers(&summary(&by_code), &summary(&by_inputs))
    }

    /// Where a block is written, by its address in the configuration.
    fn note_block(&mut self, pf: &ParsedFile, b: &Block, prefix: &str, name: &str) {
        let Some(r) = b.span() else { return };
        let id = pf.file.id;
        let r = json_syntax::remap(id, r);
        let (start, end) = (pf.file.clamp(r.start), pf.file.clamp(r.end));
        let text = pf.file.text.get(start..end).unwrap_or("");
        let head = text.find('{').unwrap_or(text.len());
        self.blocks.push(crate::model::TerraformBlock {
            root: self.tag.clone(),
            address: crate::path::concat(&[&json_syntax::config_address(prefix), name]),
            header: Span::new(id, start, start + text[..head].trim_end().len()),
            whole: Span::new(id, start, end),
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn load_local(
        &mut self,
        sources: &Sources,
        limits: Limits,
        ctx: &Ctx<'_, '_>,
        b: &Block,
        file: FileId,
        name: &str,
        rel: &str,
        prefix: &str,
        depth: usize,
    ) {
        let saved = self.outer;
        self.read_local(sources, limits, ctx, b, file, name, rel, prefix, depth);
        self.outer = saved;
    }

    /// [`Builder::load_local`], with [`Builder::outer`] set for the
    /// module's own calls.
    #[allow(clippy::too_many_arguments)]
    fn read_local(
        &mut self,
        sources: &Sources,
        limits: Limits,
        ctx: &Ctx<'_, '_>,
        b: &Block,
        file: FileId,
        name: &str,
        rel: &str,
        prefix: &str,
        depth: usize,
    ) {
        // The folder of the module's code, as the call's kind resolved it.
        let dir = std::path::PathBuf::from(rel);
        let Known::Known(insts) = ctx.instances(b, file) else {
            return;
        };
        if insts.is_empty() {
            return;
        }
        let files = Listing::read(&dir).tf_files(&dir, sources, &[]);
        if files.is_empty() {
            return;
        }
        self.context_files.extend(files.iter().map(|f| f.id));
        let call = header_span(ctx.env, b, file);
        let module_addr = format!("{prefix}module.{name}");
        // A call the root makes is its own outer call; the module's own
        // calls are reached through it.
        let outer = match self.outer {
            Some(o) if depth > 0 => o,
            _ => call,
        };
        self.outer = Some(outer);
        self.module_calls
            .extend(files.iter().map(|f| crate::model::ModuleCall {
                file: f.id,
                call,
                address: module_addr.clone(),
                outer,
            }));
        let mut ignored = Vec::new();
        let parsed = parse_files(&files, &mut ignored);
        let child = ModuleSrc {
            dir: &dir,
            files: parsed,
        };
        let repeated = b.body.has_attribute("count") || b.body.has_attribute("for_each");
        let mut outputs: Vec<(MapKey, Value)> = Vec::new();
        for inst in &insts {
            // Hostile or huge trees: a bounded number of module copies.
            if self.modules_loaded >= MAX_MODULE_COPIES {
                // Said once, at the first call not read.
                if !self.copies_capped {
                    self.copies_capped = true;
                    self.limit_hits.push(Diagnostic::parse_error(
                        format!("more than {MAX_MODULE_COPIES} local module copies in one root module; the rest are not read"),
                        span_of(file, b.span()).unwrap_or(Span::new(file, 0, 0)),
                    ));
                }
                self.opaque_module(ctx, b, file, prefix);
                return;
            }
            self.modules_loaded += 1;
            let mut values = HashMap::default();
            for s in b.body.iter() {
                if let Structure::Attribute(a) = s {
                    let k = a.key.as_str();
                    if matches!(
                        k,
                        "source" | "count" | "for_each" | "depends_on" | "providers" | "version"
                    ) {
                        continue;
                    }
                    let val = ctx
                        .env
                        .eval(&a.value, file, &inst.scope)
                        .unwrap_or_else(|_| Value::unknown(span_of(file, a.value.span())));
                    values.insert(k.to_string(), val);
                }
            }
            let child_prefix = if repeated {
                format!("{prefix}module.{name}{}.", inst.suffix)
            } else {
                format!("{prefix}module.{name}.")
            };
            let hits_before = self.limit_hits.len();
            self.steps = ctx.env.steps_used();
            let out = self.load(
                &child,
                sources,
                limits,
                Inputs::Child(values),
                &child_prefix,
                depth + 1,
            );
            ctx.env.set_steps(self.steps);
            outputs.push((
                MapKey {
                    name: inst.suffix.trim_matches(['[', ']', '"']).to_string(),
                    span: None,
                },
                out,
            ));
            // The module's files are context only: report at the call.
            let call = span_of(file, b.span()).unwrap_or(Span::new(file, 0, 0));
            for d in &mut self.limit_hits[hits_before..] {
                if d.span.file != file {
                    d.message = format!("in module `{name}`: {}", d.message);
                    d.span = call;
                }
            }
            self.graph.inherit(&module_addr, &child_prefix);
            self.graph.link_module(&module_addr, &child_prefix);
        }
        let value = if b.body.has_attribute("count") {
            Value::new(
                ValueKind::List(outputs.into_iter().map(|(_, v)| v).collect()),
                None,
            )
        } else if b.body.has_attribute("for_each") {
            Value::new(ValueKind::Map(outputs), None)
        } else {
            match outputs.pop() {
                Some((_, v)) => v,
                None => return,
            }
        };
        ctx.env.modules.borrow_mut().insert(name.to_string(), value);
    }

    /// The cluster an expression such as `cluster_name = aws_eks_cluster.x.name`
    /// designates: by reference first, then by its resolved name.
    pub fn cluster_of(
        &self,
        expr: Option<&Expression>,
        val: Option<&Value>,
        prefix: &str,
    ) -> Option<usize> {
        if let Some(e) = expr {
            for r in graph::refs_of_expr(e) {
                let addr = match r.root.as_str() {
                    "module" if r.attrs.len() >= 2 => {
                        crate::path::concat(&[prefix, "module.", &r.attrs[0]])
                    }
                    "module" => continue,
                    "data" if r.attrs.len() >= 2 => {
                        crate::path::concat(&[prefix, "data.", &r.attrs[0], ".", &r.attrs[1]])
                    }
                    "data" => continue,
                    _ if !r.attrs.is_empty() => {
                        crate::path::concat(&[prefix, &r.root, ".", &r.attrs[0]])
                    }
                    _ => continue,
                };
                if let Some(&i) = self.by_address.get(&addr) {
                    return Some(i);
                }
            }
        }
        let name = val.and_then(eval::scalar_text)?;
        self.by_name.get(&name).copied()
    }

    pub fn add_cluster(&mut self, cluster: Cluster, address: String) -> usize {
        let i = self.clusters.len();
        if let Some(n) = cluster.name.known() {
            self.by_name.entry(n.clone()).or_insert(i);
        }
        self.by_address.insert(address, i);
        self.clusters.push(cluster);
        i
    }

    /// The cluster a profile names, creating a referenced-only one if needed.
    pub fn cluster_for_profile(
        &mut self,
        expr: Option<&Expression>,
        val: Option<&Value>,
        loc: &Loc,
        prefix: &str,
        file_text: &str,
    ) -> usize {
        if let Some(i) = self.cluster_of(expr, val, prefix) {
            return i;
        }
        let name: Known<String> = val.and_then(eval::scalar_text).into();
        let key = match &name {
            Known::Known(n) => n.clone(),
            Known::Unknown => {
                let written = expr
                    .and_then(|e| e.span())
                    .and_then(|r| file_text.get(r))
                    .unwrap_or("?");
                format!("terraform:{}:{prefix}{written}", self.tag)
            }
        };
        if let Some(i) = self.clusters.iter().position(|c| c.key == key) {
            return i;
        }
        let mut c = Cluster::new(
            Located::new(name, loc.clone()),
            key.clone(),
            loc.clone(),
            Provisioner::Terraform,
        );
        c.defined = false;
        let i = self.clusters.len();
        if let Known::Known(n) = &c.name.value {
            self.by_name.entry(n.clone()).or_insert(i);
        }
        self.clusters.push(c);
        i
    }

    /// A module whose code is not read, given a cluster's name or id from
    /// the cluster itself, may create nodes for it (a node-group module,
    /// add-ons that install Karpenter): that cluster's capacity is unknown.
    /// Only what depends on the cluster can add nodes to it, so the name
    /// passed as a plain value (a VPC module tagging subnets for the
    /// cluster-to-be) or other outputs (an OIDC provider for IAM roles) say
    /// nothing of nodes. terraform-aws-eks's own sub-modules are known:
    /// those that make nodes are read, the rest make none.
    fn opaque_module(&mut self, ctx: &Ctx<'_, '_>, b: &Block, file: FileId, prefix: &str) {
        let src = ctx.eval_attr(&b.body, "source", file, &Vec::new());
        let src = src.as_ref().and_then(eval::scalar_text).unwrap_or_default();
        // A module not read may install or patch CoreDNS; the
        // terraform-aws-modules collection does neither.
        if !src.starts_with("terraform-aws-modules/") {
            self.coredns_unknown = true;
        }
        if eks_module::is_terraform_aws_eks(&src) || !eks_module::may_make_nodes(&src, &b.body) {
            return;
        }
        // Add-on modules that make nodes only when an input says so.
        if let Some(input) = eks_module::nodes_input(&src) {
            let v = ctx.eval_attr(&b.body, input, file, &Vec::new());
            if v.is_none() || eks_module::is_false(v.as_ref()) {
                return;
            }
        }
        let names_cluster = |out: &str| {
            matches!(out, "name" | "id" | "arn")
                || ["cluster_name", "cluster_id", "cluster_arn"]
                    .iter()
                    .any(|x| out.ends_with(x))
        };
        let mut hit: Vec<usize> = Vec::new();
        for r in graph::refs_of_body(&b.body) {
            let addr = match (r.root.as_str(), r.attrs.as_slice()) {
                ("module", [m, out, ..]) if names_cluster(out) => format!("{prefix}module.{m}"),
                ("aws_eks_cluster", [n, attr, ..]) if names_cluster(attr) => {
                    format!("{prefix}aws_eks_cluster.{n}")
                }
                ("data", [t, n, attr]) if t == "aws_eks_cluster" && names_cluster(attr) => {
                    format!("{prefix}data.aws_eks_cluster.{n}")
                }
                _ => continue,
            };
            hit.extend(self.by_address.get(&addr));
        }
        // A cluster another root defines, named through its outputs.
        if !self.clusters.iter().any(|c| c.defined) {
            let at = span_of(file, b.span()).unwrap_or_default();
            let loc = Loc::new(at, format!("{prefix}module.{}", label(b, 0).unwrap_or("")));
            for s in b.body.iter() {
                let Structure::Attribute(a) = s else { continue };
                let d = self.designates(ctx.env.decls, &a.value, &[], prefix, 0);
                if let Some(roots::Designated::There(d)) = d {
                    hit.push(self.defined_elsewhere(&d, &loc));
                }
            }
        }
        // Karpenter for a cluster that cannot be told.
        if hit.is_empty() && eks_module::nodes_input(&src).is_some() {
            let at = span_of(file, b.span()).unwrap_or_default();
            self.unattributed.push(crate::model::StrayCapacity {
                cluster: None,
                loc: Loc::new(at, format!("{prefix}module.{}", label(b, 0).unwrap_or(""))),
            });
        }
        for i in hit {
            self.note_capacity(Some(i), Capacity::Unknown);
        }
    }

    /// Node groups for a cluster that cannot be told: `name` when known.
    pub fn note_unattributed(&mut self, name: Option<String>, loc: Loc) {
        self.stray_capacity = true;
        self.unattributed
            .push(crate::model::StrayCapacity { cluster: name, loc });
    }

    /// Record EC2 capacity (or capacity that cannot be resolved) for a cluster.
    pub fn note_capacity(&mut self, cluster: Option<usize>, cap: Capacity) {
        match cluster {
            None => {
                if !matches!(cap, Capacity::None) {
                    self.stray_capacity = true;
                }
            }
            Some(i) => {
                let slot = self.capacity.entry(i).or_insert(Capacity::None);
                match (&*slot, cap) {
                    (Capacity::Declared(_), _) => {}
                    (_, c @ Capacity::Declared(_)) => *slot = c,
                    (_, Capacity::Unknown) => *slot = Capacity::Unknown,
                    (_, Capacity::None) => {}
                }
            }
        }
    }

    /// Give the root's releases and workloads that use its default
    /// providers (not in a module, no `provider` of their own) the cluster
    /// those providers designate.
    fn by_default_provider(&mut self) {
        let Some(key) = self.provider_cluster.clone() else {
            return;
        };
        let mut with_key = self.clusters.iter_mut().filter(|c| c.key == key);
        let (Some(c), None) = (with_key.next(), with_key.next()) else {
            return;
        };
        let own = &self.own_provider;
        let by_default = |resource: Option<crate::model::ResourceRef>, path: &str| {
            resource.is_some_and(|r| !own.contains(&r.node)) && !path.starts_with("module.")
        };
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.releases)
            .into_iter()
            .partition(|r| by_default(r.resource, &r.loc.path));
        self.releases = rest;
        c.helm_releases.extend(mine);
        for w in &mut self.workloads {
            if w.cluster_key.is_none() && by_default(w.resource, &w.loc.path) {
                w.cluster_key = Some(key.clone());
            }
        }
    }

    fn finish(mut self, out: &mut UnitOutput) {
        self.drop_lookups();
        out.diagnostics.append(&mut self.limit_hits);
        out.schema.append(&mut self.schema);
        let patch = match self.coredns_patches.first() {
            Some(l) => Known::Known(Some(l.clone())),
            None if self.coredns_unknown || !self.reads_patches => Known::Unknown,
            None => Known::Known(None),
        };
        for (i, c) in self.clusters.iter_mut().enumerate() {
            if c.region.is_none() {
                c.region.clone_from(&self.region);
            }
            c.coredns_patch = patch.clone();
            if self.addons_stray {
                c.addons_incomplete = true;
            }
            let own = self.capacity.get(&i).cloned().unwrap_or(Capacity::None);
            c.capacity = match own {
                Capacity::Declared(l) => Capacity::Declared(l),
                // Another root's cluster: unknown here; whether this root
                // may add nodes is what the run joins to what its own root says.
                own if c.root_reference.is_some() => {
                    c.root_may_add_nodes = self.stray_capacity || matches!(own, Capacity::Unknown);
                    Capacity::Unknown
                }
                _ if !c.defined || self.stray_capacity => Capacity::Unknown,
                Capacity::Unknown => Capacity::Unknown,
                Capacity::None => Capacity::None,
            };
        }
        // In a root with several clusters, the one its default providers
        // designate runs the releases and manifests that use them.
        if self.clusters.len() > 1 {
            self.by_default_provider();
        }
        // Karpenter no cluster of the unit is given may serve any.
        if self.clusters.len() != 1 {
            for r in &self.releases {
                if matches!(r.chart_name(), Some("karpenter") | None) {
                    self.unattributed.push(crate::model::StrayCapacity {
                        cluster: karpenter_cluster(r),
                        loc: r.loc.clone(),
                    });
                }
            }
        }
        out.stray_capacity.append(&mut self.unattributed);
        // Releases and manifests target the unit's cluster when there is exactly one.
        if self.clusters.len() == 1 {
            if let Some(c) = self.clusters.first_mut() {
                c.helm_releases.append(&mut self.releases);
                // The Karpenter chart's version is the Karpenter version (FP013).
                if c.karpenter_version.is_none() {
                    c.karpenter_version = c
                        .helm_releases
                        .iter()
                        .filter(|r| r.chart_name() == Some("karpenter"))
                        .find_map(|r| r.version.clone());
                }
                for w in &mut self.workloads {
                    w.cluster_key = Some(c.key.clone());
                }
                for a in &mut self.aws_auth {
                    a.cluster_key = Some(c.key.clone());
                }
                for a in self
                    .pod_identities
                    .iter_mut()
                    .filter(|a| a.cluster_key.is_none())
                {
                    a.cluster_key = Some(c.key.clone());
                }
            }
        }
        out.workloads = self.workloads;
        out.releases.append(&mut self.declared);
        out.directory_sources.append(&mut self.directory_sources);
        out.context_files.append(&mut self.context_files);
        self.module_calls
            .sort_by_key(|m| (m.file, m.call.start, m.call.end));
        self.module_calls.dedup();
        out.module_calls = self.module_calls;
        // A module called per instance is written once.
        self.blocks
            .sort_by(|a, b| (&a.address, a.header).cmp(&(&b.address, b.header)));
        self.blocks.dedup();
        out.terraform_blocks = self.blocks;
        out.aws_auth = self.aws_auth;
        out.pod_identities = self.pod_identities;
        out.stray_addons |= self.addons_stray;
        out.karpenter = self.karpenter;
        out.graph = Some(self.graph.finish());
        out.clusters = self.clusters;
    }
}

/// The cluster Karpenter's values name (`settings.clusterName`, before
/// 0.32 `settings.aws.clusterName`), when known.
fn karpenter_cluster(r: &crate::model::HelmRelease) -> Option<String> {
    let v = r.values.known()?;
    let s = v.get("settings")?;
    s.get("clusterName")
        .or_else(|| s.get("aws")?.get("clusterName"))?
        .as_str()
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

/// What a model says of its clusters, `?` where it does not know: one line
/// per cluster, sorted, for comparing two readings of the same code.
fn summary(b: &Builder) -> Vec<Vec<String>> {
    let text = |k: &Known<String>| k.known().cloned().unwrap_or_else(|| "?".into());
    let mut out: Vec<Vec<String>> = b
        .clusters
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let capacity = match b.capacity.get(&i) {
                Some(Capacity::Declared(_)) => "nodes",
                Some(Capacity::Unknown) => "?",
                _ if b.stray_capacity => "?",
                _ => "none",
            };
            let mut profiles: Vec<String> = c
                .fargate_profiles
                .iter()
                .map(|p| {
                    let sels = match &p.selectors {
                        Known::Known(s) => s
                            .iter()
                            .map(|s| {
                                let labels = match &s.labels {
                                    Known::Known(l) => l
                                        .iter()
                                        .map(|l| format!("{}={}", text(&l.key), text(&l.value)))
                                        .collect::<Vec<_>>()
                                        .join(","),
                                    Known::Unknown => "?".into(),
                                };
                                format!("{}{{{labels}}}", text(&s.namespace.value))
                            })
                            .collect::<Vec<_>>()
                            .join(";"),
                        Known::Unknown => "?".into(),
                    };
                    format!("profile {} [{sels}]", text(&p.name.value))
                })
                .collect();
            profiles.sort();
            let mut addons: Vec<String> = c
                .addons
                .iter()
                .map(|a| {
                    let cfg = match &a.configuration {
                        None => "none".to_string(),
                        Some(c) => match &c.value {
                            Known::Known(_) => "set".into(),
                            Known::Unknown => "?".into(),
                        },
                    };
                    format!("addon {} configuration {cfg}", text(&a.name.value))
                })
                .collect();
            addons.sort();
            let mut line = vec![
                format!("cluster {} defined={}", c.key, c.defined),
                format!("capacity {capacity}"),
                format!("incomplete {}", c.profiles_incomplete),
            ];
            line.extend(profiles);
            line.extend(addons);
            line
        })
        .collect();
    out.sort();
    out
}

/// The two readings say the same of every cluster. Only then is the
/// code read: what it leaves unknown (a module called for each of an
/// unknown map) must not pass for a known absence.
fn covers(code: &[Vec<String>], inputs: &[Vec<String>]) -> bool {
    code == inputs
}
