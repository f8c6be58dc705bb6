//! One cluster across Terraform roots. A root that deploys into a cluster
//! another root defines names it: by its name (`data "aws_eks_cluster"`, a
//! `cluster_name`), or through that root's outputs read with
//! `terraform_remote_state` and a local backend. Such a root gets a cluster
//! that is only referenced, carrying how it was named
//! ([`RootReference`]); the run joins it to the definition once every
//! root is modelled. The other root's outputs are read from its code,
//! never from a state file.

use super::eval::{span_of, Decls};
use super::{
    installed_modules, label, parse_files, read_tfvars, Builder, Ctx, Inputs, Listing, ModuleSrc,
};
use crate::model::{Cluster, Known, Loc, Located, Provisioner, RootReference};
use crate::source::{FileId, Span};
use crate::sources::Sources;
use crate::tree::Limits;
use crate::value::Value;
use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::structure::Block;
use hcl_edit::Span as _;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Roots read through one another's remote state at most (`a` reads `b`
/// that reads `c`...): past it, outputs are unknown.
const MAX_CHAIN: usize = 4;

/// Roots read through remote state for one root at most, however they
/// branch: past it, outputs are unknown.
const MAX_READS: usize = 32;

/// Attributes of an `aws_eks_cluster` (resource or data source) that
/// designate the cluster itself: what a provider or a name is built from.
const CLUSTER_ATTRS: &[&str] = &[
    "name",
    "id",
    "arn",
    "endpoint",
    "certificate_authority",
    "cluster_id",
];

/// Outputs of terraform-aws-eks that designate its cluster.
const MODULE_OUTS: &[&str] = &[
    "cluster_name",
    "cluster_id",
    "cluster_arn",
    "cluster_endpoint",
    "cluster_certificate_authority_data",
];

thread_local! {
    /// The roots being read through remote state on this thread, outermost
    /// first: a cycle or a long chain reads nothing more.
    static READING: RefCell<Vec<PathBuf>> = const { RefCell::new(Vec::new()) };
    /// Roots read so far for the outermost one.
    static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A cluster another root defines, as its outputs designate it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Defined {
    pub name: Known<String>,
    /// Where the other root defines it: what the run joins on.
    pub at: Span,
}

/// What an expression designates.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Designated {
    /// A cluster of this unit, by index.
    Here(usize),
    /// A cluster defined in another root.
    There(Defined),
}

/// Another root, read through `terraform_remote_state`.
pub(crate) struct Remote {
    pub outputs: Value,
    /// Output paths (`eks.endpoint`) that designate a cluster defined there.
    pub clusters: Vec<(Vec<String>, Defined)>,
    pub files: Vec<FileId>,
}

/// The root in `dir`, read from its code: its outputs, and which of them
/// designate its clusters. `None` when it has no Terraform files, is being
/// read already (a cycle), or lies past [`MAX_CHAIN`].
pub(crate) fn read_root(dir: &Path, sources: &Sources, limits: Limits) -> Option<Remote> {
    let canon = dir.canonicalize().ok()?;
    let busy = READING.with(|r| {
        let r = r.borrow();
        if r.is_empty() {
            READS.with(|n| n.set(0));
        }
        r.len() >= MAX_CHAIN || r.contains(&canon) || READS.with(|n| n.get()) >= MAX_READS
    });
    if busy {
        return None;
    }
    READS.with(|n| n.set(n.get() + 1));
    let listing = Listing::read(dir);
    let files = listing.tf_files(dir, sources, &[]);
    if files.is_empty() {
        return None;
    }
    READING.with(|r| r.borrow_mut().push(canon.clone()));
    let mut ignored = Vec::new();
    let parsed = parse_files(&files, &mut ignored);
    let tfvars = read_tfvars(dir, &listing, sources, limits);
    let module = ModuleSrc { dir, files: parsed };
    let mut b = Builder {
        tag: crate::sources::display_path(dir),
        root_dir: dir.to_path_buf(),
        installed: installed_modules(dir, sources),
        designate_outputs: true,
        ..Builder::default()
    };
    let outputs = b.load(&module, sources, limits, Inputs::Root(tfvars), "", 0);
    READING.with(|r| r.borrow_mut().retain(|d| d != &canon));
    let mut read: Vec<FileId> = files.iter().map(|f| f.id).collect();
    read.extend(b.context_files.iter().copied());
    for r in b.remote.values() {
        read.extend(r.files.iter().copied());
    }
    read.sort();
    read.dedup();
    Some(Remote {
        outputs,
        clusters: std::mem::take(&mut b.output_clusters),
        files: read,
    })
}

/// The key of an S3 remote state in [`Sources::state_writers`].
fn s3_state(bucket: &str, key: &str) -> String {
    format!("s3\n{bucket}\n{key}")
}

/// The root of the run that writes the S3 state `bucket`/`key`, for a root
/// in `reader` that reads it: the only one, or the one that shares the
/// deepest folder with the reader (copies of a root in one repository,
/// one per chapter or environment, each read by their neighbours). Two at
/// the same depth leave it unknown.
fn s3_writer(sources: &Sources, reader: &Path, bucket: &str, key: &str) -> Option<PathBuf> {
    let state = s3_state(bucket, key);
    let planned = sources.state_writers(|dirs| state_writers(dirs, sources));
    let found = match planned.get(&state) {
        Some(found) => found,
        None => sources
            .state_writers_in_roots(|roots| state_writers_on_disk(roots, sources.max_file_size))
            .get(&state)?,
    };
    let reader = reader.canonicalize().ok()?;
    let shared = |d: &PathBuf| {
        d.canonicalize().ok().filter(|c| *c != reader).map(|c| {
            c.components()
                .zip(reader.components())
                .take_while(|(a, b)| a == b)
                .count()
        })
    };
    let mut best: Vec<(usize, &PathBuf)> =
        found.iter().filter_map(|d| Some((shared(d)?, d))).collect();
    best.sort_by_key(|b| std::cmp::Reverse(b.0));
    match best.as_slice() {
        [(depth, d), rest @ ..] if rest.first().is_none_or(|(next, _)| next < depth) => {
            Some((*d).clone())
        }
        _ => None,
    }
}

/// The S3 states the root in each folder writes: `terraform { backend "s3"
/// { bucket, key } }` with both written as text (a backend takes no
/// variables; one configured at `init` is not known).
fn state_writers(dirs: &[PathBuf], sources: &Sources) -> HashMap<String, Vec<PathBuf>> {
    let mut out: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for dir in dirs {
        for f in Listing::read(dir).tf_files(dir, sources, &[]) {
            note_writes(&f.text, dir, &mut out);
        }
    }
    out
}

/// [`state_writers`] of folders outside the run: their files are read
/// straight from disk, never registered, so nothing is reported in them.
fn state_writers_on_disk(dirs: &[PathBuf], max_file_size: u64) -> HashMap<String, Vec<PathBuf>> {
    let mut out: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "tf"))
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() <= max_file_size))
            .collect();
        files.sort();
        for path in files {
            if let Ok(text) = std::fs::read_to_string(&path) {
                note_writes(&text, dir, &mut out);
            }
        }
    }
    out
}

fn note_writes(text: &str, dir: &Path, out: &mut HashMap<String, Vec<PathBuf>>) {
    if memchr::memmem::find(text.as_bytes(), b"backend").is_none() {
        return;
    }
    let Ok((body, _)) = super::parse_lenient(text) else {
        return;
    };
    for tf in body.blocks().filter(|b| b.ident.as_str() == "terraform") {
        for be in tf.body.blocks() {
            if be.ident.as_str() != "backend" || label(be, 0) != Some("s3") {
                continue;
            }
            let text = |k: &str| match be.body.get_attribute(k).map(|a| &a.value) {
                Some(Expression::String(s)) => Some(s.as_str().to_string()),
                _ => None,
            };
            if let (Some(bucket), Some(key)) = (text("bucket"), text("key")) {
                let writers = out.entry(s3_state(&bucket, &key)).or_default();
                if !writers.iter().any(|w| w == dir) {
                    writers.push(dir.to_path_buf());
                }
            }
        }
    }
}

impl Builder {
    /// Read the roots that `data "terraform_remote_state"` blocks with a
    /// local backend, or an S3 backend another root of the run writes,
    /// point into, and give their outputs to the evaluator.
    pub(crate) fn read_remote_states(
        &mut self,
        ctx: &Ctx<'_, '_>,
        blocks: &[(&Block, FileId)],
        dir: &Path,
        prefix: &str,
        limits: Limits,
    ) {
        // Terraform resolves a relative path from where it runs: the root.
        let base = if self.root_dir.as_os_str().is_empty() {
            dir.to_path_buf()
        } else {
            self.root_dir.clone()
        };
        for (b, file) in blocks {
            let ("data", Some("terraform_remote_state"), Some(name)) =
                (b.ident.as_str(), label(b, 0), label(b, 1))
            else {
                continue;
            };
            if b.body.has_attribute("count") || b.body.has_attribute("for_each") {
                continue;
            }
            let backend = ctx.eval_attr(&b.body, "backend", *file, &Vec::new());
            let backend = backend.as_ref().and_then(super::eval::scalar_text);
            // `config = { path = ... }`, or a `config { }` block before 0.12.
            let setting = |key: &str| {
                let v = match ctx.eval_attr(&b.body, "config", *file, &Vec::new()) {
                    Some(c) => c.get(key).cloned(),
                    None => b
                        .body
                        .blocks()
                        .find(|x| x.ident.as_str() == "config")
                        .and_then(|x| ctx.eval_attr(&x.body, key, *file, &Vec::new())),
                };
                v.as_ref().and_then(super::eval::scalar_text)
            };
            let other = match backend.as_deref() {
                Some("local") => {
                    let Some(path) = setting("path") else {
                        continue;
                    };
                    let state = super::normalize(&base.join(path));
                    let Some(other) = state.parent().map(Path::to_path_buf) else {
                        continue;
                    };
                    other
                }
                Some("s3") => {
                    // Another workspace's state is another object.
                    let workspace = ctx.eval_attr(&b.body, "workspace", *file, &Vec::new());
                    if workspace
                        .is_some_and(|w| super::eval::scalar_text(&w).as_deref() != Some("default"))
                    {
                        continue;
                    }
                    let (Some(bucket), Some(key)) = (setting("bucket"), setting("key")) else {
                        continue;
                    };
                    let Some(other) = s3_writer(ctx.env.sources, &base, &bucket, &key) else {
                        continue;
                    };
                    other
                }
                _ => continue,
            };
            let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
                (Ok(x), Ok(y)) => x == y,
                _ => false,
            };
            if same(&other, &base) {
                continue;
            }
            let Some(remote) = read_root(&other, ctx.env.sources, limits) else {
                continue;
            };
            ctx.env
                .remote_states
                .borrow_mut()
                .insert(name.to_string(), remote.outputs.clone());
            self.context_files.extend(remote.files.iter().copied());
            self.remote.insert(format!("{prefix}{name}"), remote);
        }
    }

    /// The region a root's clusters are in: its `aws` provider's, when it
    /// has exactly one (an alias may put a cluster elsewhere) and the
    /// region is written.
    pub(crate) fn read_region(&mut self, ctx: &Ctx<'_, '_>, blocks: &[(&Block, FileId)]) {
        let aws: Vec<&(&Block, FileId)> = blocks
            .iter()
            .filter(|(b, _)| b.ident.as_str() == "provider" && label(b, 0) == Some("aws"))
            .collect();
        let [(b, file)] = aws.as_slice() else {
            return;
        };
        let at = span_of(*file, b.span()).unwrap_or_default();
        let Some(v) = ctx.eval_attr(&b.body, "region", *file, &Vec::new()) else {
            return;
        };
        let Some(region) = super::eval::scalar_text(&v) else {
            return;
        };
        self.region = Some(Located::new(
            Known::Known(region),
            Loc::new(v.span.unwrap_or(at), "provider.aws.region"),
        ));
    }

    /// Whether this unit defines a cluster itself: then what it names
    /// elsewhere keeps today's reading (a cluster it cannot tell).
    pub(crate) fn defines_cluster(&self) -> bool {
        self.clusters.iter().any(|c| c.defined)
    }

    /// The cluster of this unit standing for one another root defines,
    /// made on first use.
    pub(crate) fn defined_elsewhere(&mut self, d: &Defined, loc: &Loc) -> usize {
        let wanted = Some(RootReference::Definition(d.at));
        if let Some(i) = self
            .clusters
            .iter()
            .position(|c| c.root_reference == wanted)
        {
            return i;
        }
        let key = match d.name.known() {
            Some(n) => n.clone(),
            None => format!("terraform:{}:{}", self.tag, loc.path),
        };
        let mut c = Cluster::new(
            Located::new(d.name.clone(), loc.clone()),
            key,
            loc.clone(),
            Provisioner::Terraform,
        );
        c.defined = false;
        c.root_reference = wanted;
        let i = self.clusters.len();
        self.clusters.push(c);
        i
    }

    /// The cluster of this unit standing for the one named `name` in
    /// another root, made on first use.
    pub(crate) fn named_elsewhere(&mut self, name: &str, loc: &Loc) -> usize {
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let mut c = Cluster::new(
            Located::new(Known::Known(name.to_string()), loc.clone()),
            name.to_string(),
            loc.clone(),
            Provisioner::Terraform,
        );
        c.defined = false;
        c.root_reference = Some(RootReference::Name);
        let i = self.clusters.len();
        self.by_name.insert(name.to_string(), i);
        self.clusters.push(c);
        i
    }

    /// The cluster a `cluster_name` (or a data source's `name`) names when
    /// no cluster of the unit has it: in a unit that defines none, the
    /// cluster another root defines (through its outputs), or the one of
    /// that name. `None` when it cannot be told.
    pub(crate) fn cluster_elsewhere(
        &mut self,
        ctx: &Ctx<'_, '_>,
        expr: Option<&Expression>,
        val: Option<&Value>,
        loc: &Loc,
        prefix: &str,
    ) -> Option<usize> {
        if self.defines_cluster() {
            return None;
        }
        if let Some(e) = expr {
            match self.designates(ctx.env.decls, e, &[], prefix, 0) {
                Some(Designated::Here(i)) => return Some(i),
                Some(Designated::There(d)) => return Some(self.defined_elsewhere(&d, loc)),
                None => {}
            }
        }
        let name = val.and_then(super::eval::scalar_text)?;
        Some(self.named_elsewhere(&name, loc))
    }

    /// `data "aws_eks_cluster"` blocks: the cluster each names, for
    /// references to it (`data.aws_eks_cluster.x.endpoint`).
    pub(crate) fn read_cluster_data(
        &mut self,
        ctx: &Ctx<'_, '_>,
        blocks: &[(&Block, FileId)],
        prefix: &str,
    ) {
        for (b, file) in blocks {
            let ("data", Some("aws_eks_cluster"), Some(n)) =
                (b.ident.as_str(), label(b, 0), label(b, 1))
            else {
                continue;
            };
            if b.body.has_attribute("count") || b.body.has_attribute("for_each") {
                continue;
            }
            let addr = format!("{prefix}data.aws_eks_cluster.{n}");
            let expr = b.body.get_attribute("name").map(|a| &a.value);
            let val = ctx.eval_attr(&b.body, "name", *file, &Vec::new());
            let at = span_of(*file, b.span()).unwrap_or_default();
            let loc = Loc::new(at, addr.clone());
            let found = self
                .cluster_of(expr, val.as_ref(), prefix)
                .or_else(|| self.cluster_elsewhere(ctx, expr, val.as_ref(), &loc, prefix));
            if let Some(i) = found {
                self.by_address.insert(addr, i);
            }
        }
    }

    /// The default `helm`, `kubernetes` and `kubectl` providers of a root
    /// that defines no cluster: when every one has a `host` that designates
    /// the same cluster, the root deploys into it, and a cluster stands for
    /// it in the unit. One configured otherwise (a kubeconfig, a host not
    /// told) may deploy anywhere: then none is told. In a root that defines
    /// several clusters, the one they designate runs the root's releases
    /// and workloads that use them.
    pub(crate) fn read_providers(
        &mut self,
        ctx: &Ctx<'_, '_>,
        blocks: &[(&Block, FileId)],
        prefix: &str,
    ) {
        let defined = self.clusters.iter().filter(|c| c.defined).count();
        if !prefix.is_empty() || defined == 1 {
            return;
        }
        let Some((first, loc)) = self.providers_designate(ctx, blocks, prefix) else {
            return;
        };
        if defined > 1 {
            if let Designated::Here(i) = first {
                self.provider_cluster = self
                    .clusters
                    .get(i)
                    .filter(|c| c.defined)
                    .map(|c| c.key.clone());
            }
            return;
        }
        let i = match first {
            Designated::Here(i) => i,
            Designated::There(d) => self.defined_elsewhere(&d, &loc),
        };
        self.deploys_into.push(i);
    }

    /// The cluster every default Kubernetes provider's `host` designates,
    /// when they all designate the same one.
    fn providers_designate(
        &self,
        ctx: &Ctx<'_, '_>,
        blocks: &[(&Block, FileId)],
        prefix: &str,
    ) -> Option<(Designated, Loc)> {
        let mut found: Vec<(Designated, Loc)> = Vec::new();
        for (b, file) in blocks {
            let (true, Some(kind)) = (b.ident.as_str() == "provider", label(b, 0)) else {
                continue;
            };
            if b.body.has_attribute("alias") {
                continue;
            }
            let host = match kind {
                "kubernetes" | "kubectl" => b.body.get_attribute("host").map(|a| (&a.value, None)),
                // Provider 2.x: a `kubernetes` block; 3.x: an attribute.
                "helm" => b
                    .body
                    .blocks()
                    .find(|x| x.ident.as_str() == "kubernetes")
                    .and_then(|x| x.body.get_attribute("host"))
                    .map(|a| (&a.value, None))
                    .or_else(|| {
                        b.body
                            .get_attribute("kubernetes")
                            .map(|a| (&a.value, Some("host")))
                    }),
                _ => None,
            };
            if !matches!(kind, "helm" | "kubernetes" | "kubectl") {
                continue;
            }
            let (expr, key) = host?;
            let path: Vec<String> = key.map(|k| vec![k.to_string()]).unwrap_or_default();
            let d = self.designates(ctx.env.decls, expr, &path, prefix, 0)?;
            let at = span_of(*file, b.span()).unwrap_or_default();
            found.push((d, Loc::new(at, format!("provider.{kind}"))));
        }
        let first = found.first().cloned()?;
        if found.iter().any(|(d, _)| d != &first.0) {
            return None;
        }
        Some(first)
    }

    /// Clusters of other roots that this unit only looked up (a data
    /// source read for its endpoint or OIDC issuer) and neither deploys
    /// into nor adds anything to: not clusters of the unit.
    pub(crate) fn drop_lookups(&mut self) {
        let idle = |i: usize, c: &Cluster| {
            c.root_reference.is_some()
                && !self.deploys_into.contains(&i)
                && !self.capacity.contains_key(&i)
                && c.fargate_profiles.is_empty()
                && c.addons.is_empty()
                && c.node_groups.is_empty()
                && c.execution_roles.is_empty()
                && !c.addons_incomplete
                && !c.profiles_incomplete
        };
        let keep: Vec<bool> = self
            .clusters
            .iter()
            .enumerate()
            .map(|(i, c)| !idle(i, c))
            .collect();
        if keep.iter().all(|k| *k) {
            return;
        }
        let mut at = Vec::with_capacity(keep.len());
        let mut n = 0;
        for k in &keep {
            at.push(n);
            n += usize::from(*k);
        }
        self.capacity = std::mem::take(&mut self.capacity)
            .into_iter()
            .filter(|(i, _)| keep.get(*i) == Some(&true))
            .map(|(i, c)| (at[i], c))
            .collect();
        let mut i = 0;
        self.clusters.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    /// The cluster an expression designates: a reference to a cluster's
    /// name, id, ARN, endpoint or certificate (directly, through locals, a
    /// data source or another root's outputs). `path` picks a part of an
    /// object. `None` when it designates none, or more than one.
    pub(crate) fn designates(
        &self,
        decls: &Decls<'_>,
        e: &Expression,
        path: &[String],
        prefix: &str,
        depth: usize,
    ) -> Option<Designated> {
        if depth > 16 {
            return None;
        }
        match e {
            Expression::Parenthesis(p) => {
                return self.designates(decls, p.inner(), path, prefix, depth + 1)
            }
            Expression::Object(o) if !path.is_empty() => {
                let (_, v) = o
                    .iter()
                    .find(|(k, _)| object_key(k).as_ref() == Some(&path[0]))?;
                return self.designates(decls, v.expr(), &path[1..], prefix, depth + 1);
            }
            _ => {}
        }
        let mut refs = Vec::new();
        traversals(e, &mut refs, 0);
        let mut out: Option<Designated> = None;
        for (root, mut segs) in refs {
            // A traversal that is the whole expression continues into `path`.
            if matches!(e, Expression::Traversal(_)) {
                segs.extend(path.iter().cloned());
            }
            let Some(d) = self.target(decls, &root, &segs, prefix, depth) else {
                continue;
            };
            match &out {
                Some(o) if o != &d => return None,
                _ => out = Some(d),
            }
        }
        out
    }

    fn target(
        &self,
        decls: &Decls<'_>,
        root: &str,
        segs: &[String],
        prefix: &str,
        depth: usize,
    ) -> Option<Designated> {
        let seg = |i: usize| segs.get(i).map(String::as_str);
        let here = |addr: String| self.by_address.get(&addr).map(|&i| Designated::Here(i));
        match root {
            "local" => {
                let (_, e) = decls.locals.get(seg(0)?)?;
                self.designates(decls, e, &segs[1..], prefix, depth + 1)
            }
            "aws_eks_cluster" if CLUSTER_ATTRS.contains(&seg(1)?) => {
                here(format!("{prefix}aws_eks_cluster.{}", seg(0)?))
            }
            "module" if MODULE_OUTS.contains(&seg(1)?) => {
                here(format!("{prefix}module.{}", seg(0)?))
            }
            "data" => match seg(0)? {
                "aws_eks_cluster" if CLUSTER_ATTRS.contains(&seg(2)?) => {
                    here(format!("{prefix}data.aws_eks_cluster.{}", seg(1)?))
                }
                "terraform_remote_state" if seg(2)? == "outputs" => {
                    let remote = self.remote.get(&format!("{prefix}{}", seg(1)?))?;
                    let rest = &segs[3..];
                    remote
                        .clusters
                        .iter()
                        .find(|(p, _)| p.as_slice() == rest)
                        .map(|(_, d)| Designated::There(d.clone()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// A root read for its outputs: the outputs (and their object parts)
    /// that designate a cluster it defines, or one it names through
    /// another root.
    pub(crate) fn note_output_clusters(
        &mut self,
        decls: &Decls<'_>,
        blocks: &[(&Block, FileId)],
        prefix: &str,
    ) {
        let mut found = Vec::new();
        for (b, _) in blocks {
            let ("output", Some(n)) = (b.ident.as_str(), label(b, 0)) else {
                continue;
            };
            let Some(a) = b.body.get_attribute("value") else {
                continue;
            };
            let mut path = vec![n.to_string()];
            self.designated_parts(decls, &a.value, &mut path, prefix, &mut found, 0);
        }
        self.output_clusters = found;
    }

    fn designated_parts(
        &self,
        decls: &Decls<'_>,
        e: &Expression,
        path: &mut Vec<String>,
        prefix: &str,
        out: &mut Vec<(Vec<String>, Defined)>,
        depth: usize,
    ) {
        if depth > 8 {
            return;
        }
        if let Expression::Object(o) = e {
            for (k, v) in o.iter() {
                let Some(k) = object_key(k) else { continue };
                path.push(k);
                self.designated_parts(decls, v.expr(), path, prefix, out, depth + 1);
                path.pop();
            }
            return;
        }
        let defined = match self.designates(decls, e, &[], prefix, 0) {
            Some(Designated::Here(i)) => self.clusters.get(i).and_then(|c| {
                if c.defined {
                    return Some(Defined {
                        name: c.name.value.clone(),
                        at: c.loc.span,
                    });
                }
                match c.root_reference {
                    Some(RootReference::Definition(at)) => Some(Defined {
                        name: c.name.value.clone(),
                        at,
                    }),
                    _ => None,
                }
            }),
            Some(Designated::There(d)) => Some(d),
            None => None,
        };
        if let Some(d) = defined {
            out.push((path.clone(), d));
        }
    }
}

/// An object key as written: `name`, `"name"`.
fn object_key(k: &ObjectKey) -> Option<String> {
    match k {
        ObjectKey::Ident(i) => Some(i.as_str().to_string()),
        ObjectKey::Expression(Expression::String(s)) => Some(s.as_str().to_string()),
        ObjectKey::Expression(Expression::Variable(v)) => Some(v.as_str().to_string()),
        ObjectKey::Expression(_) => None,
    }
}

/// Every reference in an expression with the names after its root
/// (`data.terraform_remote_state.eks.outputs.eks.endpoint`), up to the
/// first index or splat; literal string indexes count as names.
fn traversals(e: &Expression, out: &mut Vec<(String, Vec<String>)>, depth: usize) {
    if depth > 64 {
        return;
    }
    let d = depth + 1;
    match e {
        Expression::Traversal(t) => {
            if let Expression::Variable(v) = &t.expr {
                let mut segs = Vec::new();
                for op in &t.operators {
                    match op.value() {
                        TraversalOperator::GetAttr(n) => segs.push(n.as_str().to_string()),
                        TraversalOperator::Index(Expression::String(s)) => {
                            segs.push(s.as_str().to_string())
                        }
                        // `aws_eks_cluster.this[0]`: the instance is the resource's.
                        TraversalOperator::Index(Expression::Number(_))
                        | TraversalOperator::LegacyIndex(_) => {}
                        _ => break,
                    }
                }
                out.push((v.as_str().to_string(), segs));
            } else {
                traversals(&t.expr, out, d);
            }
        }
        Expression::Array(a) => a.iter().for_each(|x| traversals(x, out, d)),
        Expression::Object(o) => o.iter().for_each(|(_, v)| traversals(v.expr(), out, d)),
        Expression::StringTemplate(t) => template(t, out, d),
        Expression::HeredocTemplate(h) => template(&h.template, out, d),
        Expression::Parenthesis(p) => traversals(p.inner(), out, d),
        Expression::Conditional(c) => {
            traversals(&c.true_expr, out, d);
            traversals(&c.false_expr, out, d);
        }
        Expression::FuncCall(f) => f.args.iter().for_each(|x| traversals(x, out, d)),
        _ => {}
    }
}

fn template(t: &hcl_edit::template::Template, out: &mut Vec<(String, Vec<String>)>, d: usize) {
    for el in t.iter() {
        if let hcl_edit::template::Element::Interpolation(i) = el {
            traversals(&i.expr, out, d);
        }
    }
}
