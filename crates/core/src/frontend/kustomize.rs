//! kustomize builds, without running kustomize: what `kustomize build` of
//! an overlay gives for the fields fplint reads.
//!
//! A folder with a kustomization that no other kustomization includes is a
//! build root. Its build follows kustomize's order: resources (files, and
//! folders built recursively), then components, then generators
//! (ConfigMaps and Secrets), then this kustomization's transformers in
//! kustomize's fixed order: strategic-merge patches, `patches`, namespace,
//! name prefix and suffix, labels, annotations, JSON 6902 patches,
//! replicas, images. Once the whole build is done, generated names take
//! their content's hash and references follow renamed objects. Every value
//! keeps the span where it was written, so a finding points at the base
//! file or at the patch that set the value. Remote resources are not read;
//! custom transformers and replacements make the resources they may touch
//! unknown. `scripts/kustomize-oracle` holds the build to `kubectl
//! kustomize`.

use super::shared::objects;
use super::UnitOutput;
use crate::diagnostic::Diagnostic;
use crate::model::{Known, Loc};
use crate::source::{SourceFile, Span};
use crate::sources::Sources;
use crate::tree::{self, Limits, Node, ScalarStyle};
use crate::value::{MapKey, Value, ValueKind};
use crate::workload::{Variant, Workload};
use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

/// The names kustomize looks for in a folder, in its order.
pub const FILE_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Nested kustomizations followed below a root (kustomize has no limit; a
/// cycle or a hostile tree must end).
const MAX_DEPTH: usize = 32;

/// Kustomizations built for one root: a base included twice at each of 32
/// levels would otherwise be built 2^32 times.
const MAX_BUILT: usize = 2_000;

pub fn is_kustomization_name(path: &Path) -> bool {
    crate::path::file_name_bytes(path).is_some_and(|n| FILE_NAMES.iter().any(|f| f.as_bytes() == n))
}

/// The kustomization file of a folder, if it has one.
pub fn kustomization_in(dir: &Path) -> Option<PathBuf> {
    FILE_NAMES.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

/// `a/b/../c` → `a/c`, without touching the file system: kustomize resolves
/// relative paths against the kustomization's folder the same way.
pub fn normalise(p: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// A resource that is not a local path: a URL, `github.com/org/repo//dir`.
fn is_remote(s: &str) -> bool {
    s.contains("://") || s.starts_with("git@") || s.contains("?ref=") || {
        let first = s.split('/').next().unwrap_or("");
        first.contains('.') && !first.starts_with('.') && s.contains('/')
    }
}

/// What one kustomization names on disk.
#[derive(Debug, Default, Clone)]
pub struct References {
    /// Folders: `resources`/`bases` that are folders, and `components`.
    pub dirs: Vec<PathBuf>,
    /// Files: resource files and patch files.
    pub files: Vec<PathBuf>,
}

/// The local folders and files a kustomization names, resolved against its
/// folder. A resource entry is a folder when one exists there.
pub fn references(dir: &Path, doc: &Node) -> References {
    let mut refs = References::default();
    let strings = |key: &str| -> Vec<&str> {
        doc.get(key)
            .and_then(Node::as_seq)
            .map(|items| items.iter().filter_map(Node::as_str).collect())
            .unwrap_or_default()
    };
    for key in ["resources", "bases", "components", "crds"] {
        for r in strings(key) {
            if is_remote(r) {
                continue;
            }
            let p = normalise(&dir.join(r));
            if key == "components" || p.is_dir() {
                refs.dirs.push(p);
            } else {
                refs.files.push(p);
            }
        }
    }
    // Patch files, and entries of `patchesStrategicMerge` that are paths.
    for r in strings("patchesStrategicMerge") {
        if !r.contains('\n') && !r.contains(": ") {
            refs.files.push(normalise(&dir.join(r)));
        }
    }
    for key in ["patches", "patchesJson6902"] {
        for item in doc.get(key).and_then(Node::as_seq).unwrap_or_default() {
            if let Some(p) = item.get("path").and_then(Node::as_str) {
                refs.files.push(normalise(&dir.join(p)));
            }
        }
    }
    // Files generators read: not manifests of their own.
    for key in ["configMapGenerator", "secretGenerator"] {
        for item in doc.get(key).and_then(Node::as_seq).unwrap_or_default() {
            for field in ["files", "envs", "env"] {
                let entries = strings_of(item.get(field));
                for e in entries {
                    let path = e.split_once('=').map_or(e, |(_, p)| p);
                    refs.files.push(normalise(&dir.join(path)));
                }
            }
        }
    }
    for key in ["transformers", "generators", "validators", "configurations"] {
        for r in strings(key) {
            if !is_remote(r) && !r.contains('\n') {
                let p = normalise(&dir.join(r));
                if !p.is_dir() {
                    refs.files.push(p);
                }
            }
        }
    }
    refs
}

/// Which folders are build roots and which files kustomizations include.
#[derive(Debug, Default)]
pub struct Plan {
    /// Folders whose kustomization no other includes, sorted.
    pub roots: Vec<PathBuf>,
    /// Every file a kustomization reads (its own file too): not linted alone.
    pub included: BTreeSet<PathBuf>,
    /// What each kustomization folder names, and its own file.
    refs: HashMap<PathBuf, (References, Option<PathBuf>)>,
}

impl Plan {
    /// Plan the builds of the kustomizations in `dirs`; `read` gives a
    /// folder's parsed kustomization (`None` when it has none or it does not
    /// parse). Folders they include are read too, so that a base outside
    /// `dirs` still counts as included.
    pub fn new(
        dirs: impl IntoIterator<Item = PathBuf>,
        read: impl Fn(&Path) -> Option<Node>,
    ) -> Plan {
        let mut plan = Plan::default();
        let given: BTreeSet<PathBuf> = dirs.into_iter().map(|d| normalise(&d)).collect();
        let mut queue: Vec<PathBuf> = given.iter().cloned().collect();
        let mut seen: BTreeSet<PathBuf> = given.clone();
        let mut included_dirs: BTreeSet<PathBuf> = BTreeSet::new();
        while let Some(dir) = queue.pop() {
            let Some(doc) = read(&dir) else { continue };
            let refs = references(&dir, &doc);
            let own = kustomization_in(&dir).map(|f| normalise(&f));
            if let Some(f) = &own {
                plan.included.insert(f.clone());
            }
            for d in &refs.dirs {
                included_dirs.insert(d.clone());
                if seen.insert(d.clone()) {
                    queue.push(d.clone());
                }
            }
            plan.included.extend(refs.files.iter().cloned());
            plan.refs.insert(dir, (refs, own));
        }
        plan.roots = given
            .into_iter()
            .filter(|d| plan.refs.contains_key(d) && !included_dirs.contains(d))
            .collect();
        plan
    }

    pub fn includes(&self, file: &Path) -> bool {
        !self.included.is_empty() && self.included.contains(&normalise(file))
    }

    /// The build roots whose build reads `file` (a base manifest, a patch),
    /// directly or through the folders they include.
    pub fn roots_including(&self, file: &Path) -> Vec<PathBuf> {
        let file = normalise(file);
        self.roots
            .iter()
            .filter(|root| {
                let mut stack = vec![(*root).clone()];
                let mut seen = BTreeSet::new();
                while let Some(d) = stack.pop() {
                    if !seen.insert(d.clone()) {
                        continue;
                    }
                    if let Some((r, own)) = self.refs.get(&d) {
                        if own.as_ref() == Some(&file) || r.files.contains(&file) {
                            return true;
                        }
                        stack.extend(r.dirs.iter().cloned());
                    }
                }
                false
            })
            .cloned()
            .collect()
    }
}

/// One object of the build.
#[derive(Clone, Debug)]
struct Res {
    obj: Value,
    /// `metadata.name` as the resource file wrote it: patches may name either.
    original_name: Option<String>,
    /// A transformer fplint does not model may have changed it.
    opaque: bool,
    /// Every name it had before its current one: references to any of
    /// them are renamed at the end of the build, as kustomize's back
    /// references are.
    names: Vec<String>,
    /// Every namespace it was in before its current one (`None`: none
    /// set), for references that name a namespace too.
    namespaces: Vec<Option<String>>,
    /// A generated object whose name takes the hash of its content.
    hash: bool,
}

impl Res {
    fn kind(&self) -> Option<&str> {
        self.obj.get("kind").and_then(Value::as_str)
    }

    fn name(&self) -> Option<&str> {
        self.obj
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
    }

    fn labels(&self) -> Vec<(&str, &str)> {
        match self
            .obj
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .map(|l| &l.kind)
        {
            Some(ValueKind::Map(e)) => e
                .iter()
                .filter_map(|(k, v)| Some((k.name.as_str(), v.as_str()?)))
                .collect(),
            _ => Vec::new(),
        }
    }
}

struct Builder<'a> {
    sources: &'a Sources,
    limits: Limits,
    diagnostics: Vec<Diagnostic>,
    /// Folders being built, to stop at a cycle.
    stack: Vec<PathBuf>,
    /// Every folder the build read, to name the variant.
    visited: BTreeSet<PathBuf>,
    /// The root's kustomization, for the variant.
    root_loc: Option<Loc>,
    /// Kustomizations built so far (see [`MAX_BUILT`]).
    built: usize,
    /// Why kustomize itself would refuse the build (an empty kustomization,
    /// a folder without one, a resource that is not there). `check` builds
    /// what it can read; `fplint render` says kustomize would stop.
    refusals: Vec<Diagnostic>,
    /// The names of the build's `vars`.
    vars: BTreeSet<String>,
}

impl<'a> Builder<'a> {
    fn new(sources: &'a Sources, limits: Limits) -> Builder<'a> {
        Builder {
            sources,
            limits,
            diagnostics: Vec::new(),
            stack: Vec::new(),
            visited: BTreeSet::new(),
            root_loc: None,
            built: 0,
            refusals: Vec::new(),
            vars: BTreeSet::new(),
        }
    }
}

/// The objects the build of `root` gives, in order (what `kubectl
/// kustomize` prints), each with whether a transformer fplint does not
/// model may have changed it; and the build's errors.
pub fn build_objects(
    root: &Path,
    sources: &Sources,
    limits: Limits,
) -> (Vec<(Value, bool)>, Vec<Diagnostic>) {
    let root = normalise(root);
    let mut b = Builder::new(sources, limits);
    let mut resources = Vec::new();
    b.accumulate(&root, false, &mut resources);
    finish(&mut resources, &b.vars);
    b.diagnostics.append(&mut b.refusals);
    (
        resources.into_iter().map(|r| (r.obj, r.opaque)).collect(),
        b.diagnostics,
    )
}

/// Build the kustomization in `root` and model what it deploys.
pub fn build(root: &Path, sources: &Sources, limits: Limits) -> UnitOutput {
    let root = normalise(root);
    let mut b = Builder::new(sources, limits);
    let mut resources = Vec::new();
    b.accumulate(&root, false, &mut resources);
    finish(&mut resources, &b.vars);
    let mut out = UnitOutput {
        diagnostics: std::mem::take(&mut b.diagnostics),
        ..UnitOutput::default()
    };
    let variant = b.root_loc.clone().map(|loc| {
        Box::new(Variant {
            name: variant_name(&root, &b.visited),
            loc,
            kind: crate::workload::VariantKind::Overlay,
            origins: Vec::new(),
        })
    });
    for r in resources {
        let before = out.workloads.len();
        // A Flux `HelmRelease` or Argo CD `Application` the build applies is
        // read as the declaration it is, from the file that wrote it.
        let file = r.obj.span.and_then(|s| sources.get(s.file));
        if !r.opaque && file.is_some_and(|f| super::load_declaration(&f, &r.obj, &mut out)) {
            continue;
        }
        objects::load_object(&r.obj, "", &mut out);
        for w in &mut out.workloads[before..] {
            w.variant = variant.clone();
            if r.opaque {
                make_unknown(w);
            }
        }
    }
    out
}

/// The root relative to the folder all its parts share: `overlays/prod`.
fn variant_name(root: &Path, visited: &BTreeSet<PathBuf>) -> String {
    let mut common: Vec<Component> = root.components().collect();
    for d in visited {
        let n = common
            .iter()
            .zip(d.components())
            .take_while(|(a, b)| *a == b)
            .count();
        common.truncate(n);
    }
    let rel: PathBuf = root.components().skip(common.len()).collect();
    let name = if rel.as_os_str().is_empty() {
        root.file_name()
            .map_or_else(|| root.to_path_buf(), PathBuf::from)
    } else {
        rel
    };
    name.to_string_lossy().replace('\\', "/")
}

/// A field written as one string or a list of strings (a generator's
/// `files`, `envs`, `literals`).
fn strings_of(n: Option<&Node>) -> Vec<&str> {
    match n {
        Some(n) if n.as_str().is_some() => n.as_str().into_iter().collect(),
        Some(n) => n
            .as_seq()
            .map(|i| i.iter().filter_map(Node::as_str).collect())
            .unwrap_or_default(),
        None => Vec::new(),
    }
}

/// A transformer fplint does not model ran over the workload: what it
/// schedules by is unknown.
fn make_unknown(w: &mut Workload) {
    w.namespace.value = Known::Unknown;
    let p = &mut w.pod;
    p.labels = Known::Unknown;
    p.annotations = Known::Unknown;
    p.tolerations = Known::Unknown;
    p.node_selector = Known::Unknown;
    p.containers = Known::Unknown;
    p.init_containers = Known::Unknown;
    p.host_path_volumes.clear();
    for h in p.host_network.iter_mut() {
        h.value = Known::Unknown;
    }
    for s in p.scheduler_name.iter_mut() {
        s.value = Known::Unknown;
    }
}

impl Builder<'_> {
    fn refuse(&mut self, span: Span, why: String) {
        self.refusals.push(
            Diagnostic::parse_error(format!("kustomize refuses this build: {why}"), span)
                .with_label("here"),
        );
    }

    fn load(&mut self, path: &Path) -> Option<std::sync::Arc<SourceFile>> {
        // A file that cannot be read (outside the tree, missing) leaves what
        // it holds unknown; kustomize itself would stop.
        self.sources.load(path).ok()
    }

    /// Parse a file's documents; a syntax error is reported as FP000.
    fn documents(&mut self, file: &SourceFile) -> Vec<Node> {
        let parsed = if file.path.ends_with(".json") {
            tree::json::parse(&file.text, file.id, self.limits)
        } else {
            tree::yaml::parse(&file.text, file.id, self.limits)
        };
        if let Some(err) = parsed.error {
            let help = super::parse_help(
                &err.message,
                "fix the syntax error; fplint checks the rest of the file once it parses",
            );
            self.diagnostics.push(
                Diagnostic::parse_error(err.message, err.span)
                    .with_label("here")
                    .with_help(help),
            );
        }
        parsed.documents
    }

    /// Build `dir`'s kustomization into `acc`: its resources, its
    /// components, then its transformers over all of them. A component
    /// works on the resources of the kustomization that lists it.
    fn accumulate(&mut self, dir: &Path, component: bool, acc: &mut Vec<Res>) {
        if self.stack.len() >= MAX_DEPTH || self.stack.iter().any(|d| d == dir) {
            return;
        }
        self.built += 1;
        if self.built == MAX_BUILT + 1 {
            if let Some(loc) = &self.root_loc {
                self.diagnostics.push(
                    Diagnostic::parse_error(
                        format!("this build includes over {MAX_BUILT} kustomizations; the rest are not built"),
                        loc.span,
                    )
                    .with_label("build stopped")
                    .with_help("include each base once; fplint checks what it built"),
                );
            }
        }
        if self.built > MAX_BUILT {
            return;
        }
        let Some(kfile) = kustomization_in(dir).and_then(|p| self.load(&normalise(&p))) else {
            return;
        };
        let doc = self.documents(&kfile).into_iter().next();
        let Some(doc) = doc.filter(|d| d.as_map().is_some_and(|e| !e.is_empty())) else {
            self.refuse(
                Span {
                    file: kfile.id,
                    start: 0,
                    end: 0,
                },
                "the kustomization is empty".to_string(),
            );
            return;
        };
        self.visited.insert(dir.to_path_buf());
        if self.root_loc.is_none() {
            let at = doc
                .as_map()
                .and_then(|e| e.first())
                .map_or(doc.span, |e| e.key.span);
            self.root_loc = Some(Loc::new(at, ""));
        }
        self.stack.push(dir.to_path_buf());
        if let Some(charts) = doc.get("helmCharts").filter(|c| !c.is_null()) {
            // kustomize inflates charts only with `--enable-helm`; fplint
            // does not inflate them: their objects are not in the build.
            self.refuse(
                charts.span,
                "`helmCharts` are inflated only with `--enable-helm`, and fplint does not inflate them".to_string(),
            );
        }
        for v in doc.get("vars").and_then(Node::as_seq).unwrap_or_default() {
            if let Some(name) = v.get("name").and_then(Node::as_str) {
                self.vars.insert(name.to_string());
            }
        }
        let k = Kustomization {
            file: kfile,
            doc,
            dir: dir.to_path_buf(),
        };
        let mut own: Vec<Res> = if component {
            std::mem::take(acc)
        } else {
            Vec::new()
        };
        for key in ["resources", "bases"] {
            for item in k.seq(key) {
                let Some(r) = item.as_str() else { continue };
                if is_remote(r) {
                    continue;
                }
                let p = normalise(&dir.join(r));
                if p.is_dir() {
                    if kustomization_in(&p).is_none() {
                        self.refuse(
                            item.span,
                            format!("`{r}` is a folder without a kustomization"),
                        );
                    }
                    self.accumulate(&p, false, &mut own);
                } else if let Some(f) = self.load(&p) {
                    self.visited
                        .insert(p.parent().map(Path::to_path_buf).unwrap_or_default());
                    for d in self.documents(&f) {
                        own.extend(objects(Value::from_node(&d)));
                    }
                } else {
                    self.refuse(item.span, format!("`{r}` cannot be read"));
                }
            }
        }
        for item in k.seq("components") {
            if let Some(r) = item.as_str().filter(|r| !is_remote(r)) {
                let p = normalise(&dir.join(r));
                if kustomization_in(&p).is_none() {
                    self.refuse(item.span, format!("component `{r}` has no kustomization"));
                }
                self.accumulate(&p, true, &mut own);
            }
        }
        self.generate(&k, &mut own);
        self.transform(&k, &mut own);
        self.stack.pop();
        acc.append(&mut own);
    }

    fn transform(&mut self, k: &Kustomization, res: &mut Vec<Res>) {
        // Transformers fplint does not model could change anything.
        let unmodelled = ["transformers", "replacements", "configurations"]
            .iter()
            .any(|key| !k.seq(key).is_empty());
        if unmodelled {
            res.iter_mut().for_each(|r| r.opaque = true);
        }
        for item in k.seq("patchesStrategicMerge") {
            for patch in self.patch_documents(k, item) {
                self.strategic_merge(res, &patch, None);
            }
        }
        // Objects a `$patch: delete` removed.
        res.retain(|r| !matches!(r.obj.kind, ValueKind::Null));
        for item in k.seq("patches") {
            let target = item.get("target");
            let content = match (item.get("path"), item.get("patch")) {
                (Some(p), _) => p
                    .as_str()
                    .map_or_else(Vec::new, |p| self.file_documents(&k.dir.join(p))),
                (None, Some(inline)) => embedded(&k.file, inline, self.limits),
                (None, None) => Vec::new(),
            };
            for patch in content {
                if patch.as_list().is_some() {
                    // A JSON patch needs a target; kustomize rejects one without.
                    if let Some(t) = target {
                        self.json_patch(res, t, &patch);
                    }
                } else {
                    self.strategic_merge(res, &patch, target);
                }
            }
        }
        res.retain(|r| !matches!(r.obj.kind, ValueKind::Null));
        if let Some(ns) = k.doc.get("namespace").filter(|n| !n.is_null()) {
            let v = Value::from_node(ns);
            for r in res.iter_mut() {
                // kustomize names a Namespace object after the namespace.
                if r.kind() == Some("Namespace") {
                    if let (Some(n), Some(new)) =
                        (r.obj.get_mut_path(&["metadata", "name"]), v.as_str())
                    {
                        if let Some(old) = n.as_str().filter(|o| *o != new).map(str::to_string) {
                            n.kind = ValueKind::String(new.to_string());
                            r.names.push(old);
                        }
                    }
                }
                if !cluster_scoped(r.kind().unwrap_or("")) {
                    let old = r
                        .obj
                        .get("metadata")
                        .and_then(|m| m.get("namespace"))
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    set_path(&mut r.obj, &["metadata", "namespace"], v.clone(), None);
                    r.namespaces.push(old);
                }
                // A subject naming the service account `default` moves with
                // the namespace (kustomize's `defaultOnly` subject policy);
                // others follow the account they name at the end.
                if matches!(r.kind(), Some("RoleBinding" | "ClusterRoleBinding")) {
                    if let Some(ValueKind::List(subjects)) =
                        r.obj.get_mut_path(&["subjects"]).map(|s| &mut s.kind)
                    {
                        for sub in subjects.iter_mut() {
                            let sa =
                                sub.get("kind").and_then(Value::as_str) == Some("ServiceAccount");
                            if sa && sub.get("name").and_then(Value::as_str) == Some("default") {
                                set_path(sub, &["namespace"], v.clone(), None);
                            }
                        }
                    }
                }
            }
        }
        let prefix = k.doc.get("namePrefix").and_then(Node::as_str).unwrap_or("");
        let suffix = k.doc.get("nameSuffix").and_then(Node::as_str).unwrap_or("");
        if !prefix.is_empty() || !suffix.is_empty() {
            for r in res.iter_mut() {
                // kustomize leaves the names of these alone.
                if matches!(r.kind(), Some("CustomResourceDefinition" | "Namespace")) {
                    continue;
                }
                if let Some(n) = r
                    .obj
                    .get_mut_path(&["metadata", "name"])
                    .filter(|n| n.as_str().is_some())
                {
                    let old = n.as_str().unwrap_or("").to_string();
                    n.kind = ValueKind::String(format!("{prefix}{old}{suffix}"));
                    r.names.push(old);
                }
            }
        }
        for item in k.seq("labels") {
            let Some(pairs) = item.get("pairs") else {
                continue;
            };
            let flag = |f: &str| item.get(f).and_then(Node::as_bool) == Some(true);
            let specs = if flag("includeSelectors") {
                LabelSpecs::Selectors
            } else if flag("includeTemplates") {
                LabelSpecs::Templates
            } else {
                LabelSpecs::Metadata
            };
            if item.get("fields").is_some() {
                res.iter_mut().for_each(|r| r.opaque = true);
            }
            add_pairs(res, pairs, "labels", specs);
        }
        if let Some(pairs) = k.doc.get("commonLabels") {
            add_pairs(res, pairs, "labels", LabelSpecs::Selectors);
        }
        if let Some(pairs) = k.doc.get("commonAnnotations") {
            add_pairs(res, pairs, "annotations", LabelSpecs::Templates);
        }
        for item in k.seq("patchesJson6902") {
            let Some(target) = item.get("target") else {
                continue;
            };
            let content = match (item.get("path"), item.get("patch")) {
                (Some(p), _) => p
                    .as_str()
                    .map_or_else(Vec::new, |p| self.file_documents(&k.dir.join(p))),
                (None, Some(inline)) => embedded(&k.file, inline, self.limits),
                (None, None) => Vec::new(),
            };
            for patch in content {
                self.json_patch(res, target, &patch);
            }
        }
        for item in k.seq("replicas") {
            replicas(res, item);
        }
        for item in k.seq("images") {
            images(res, item);
        }
    }

    fn file_documents(&mut self, path: &Path) -> Vec<Value> {
        let Some(f) = self.load(&normalise(path)) else {
            return Vec::new();
        };
        self.documents(&f).iter().map(Value::from_node).collect()
    }

    /// A `patchesStrategicMerge` entry: a file, or the patch written inline.
    fn patch_documents(&mut self, k: &Kustomization, item: &Node) -> Vec<Value> {
        match item.as_str() {
            Some(s) if s.contains('\n') || s.contains(": ") => embedded(&k.file, item, self.limits),
            Some(s) => self.file_documents(&k.dir.join(s)),
            None => Vec::new(),
        }
    }

    /// Apply a strategic-merge patch to its targets: the resources `target`
    /// selects, or the one the patch names by kind and name.
    fn strategic_merge(&mut self, res: &mut [Res], patch: &Value, target: Option<&Node>) {
        let selected: Vec<usize> = match target {
            Some(t) => select(res, t),
            None => {
                let kind = patch.get("kind").and_then(Value::as_str);
                let name = patch
                    .get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str);
                let (Some(kind), Some(name)) = (kind, name) else {
                    return;
                };
                // The namespace is part of the object's identity; none is
                // `default`, and an unknown one may be any.
                let effective = |ns: Option<&str>| match ns {
                    None | Some("") => "default".to_string(),
                    Some(n) => n.to_string(),
                };
                let patch_ns = patch.get("metadata").and_then(|m| m.get("namespace"));
                let patch_ns = match patch_ns {
                    Some(v) if v.is_unknown() => None,
                    Some(v) => Some(effective(v.as_str())),
                    None => Some(effective(None)),
                };
                let in_namespace = |r: &Res| {
                    let Some(want) = &patch_ns else { return true };
                    if cluster_scoped(kind) {
                        return true;
                    }
                    let current = r.obj.get("metadata").and_then(|m| m.get("namespace"));
                    if current.is_some_and(Value::is_unknown) {
                        return true;
                    }
                    effective(current.and_then(Value::as_str)) == *want
                        || r.namespaces
                            .iter()
                            .any(|n| effective(n.as_deref()) == *want)
                };
                let found: Vec<usize> = res
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| {
                        r.kind() == Some(kind)
                            && (r.name() == Some(name) || r.original_name.as_deref() == Some(name))
                            && in_namespace(r)
                    })
                    .map(|(i, _)| i)
                    .collect();
                // kustomize fails a patch that names no object; with an
                // object fplint could not follow, it may be that one.
                if found.is_empty() && !res.iter().any(|r| r.opaque) {
                    self.refuse(
                        patch.span.unwrap_or_default(),
                        format!("no object `{kind}/{name}` for the patch"),
                    );
                }
                found
            }
        };
        for i in selected {
            let Some(r) = res.get_mut(i) else { continue };
            if directive(patch) == Some("delete") {
                // The object leaves the build (dropped after this patch list).
                r.obj.kind = ValueKind::Null;
                continue;
            }
            let mut p = patch.clone();
            // The patch's identity is the target's, not a change to it.
            if let Some(m) = p.get_mut_path(&["metadata"]) {
                if let ValueKind::Map(e) = &mut m.kind {
                    e.retain(|(k, _)| k.name != "name" && k.name != "namespace");
                }
            }
            if let ValueKind::Map(e) = &mut p.kind {
                e.retain(|(k, _)| k.name != "apiVersion" && k.name != "kind");
            }
            if merge(&mut r.obj, &p, "").is_err() {
                r.opaque = true;
            }
        }
    }

    fn json_patch(&mut self, res: &mut [Res], target: &Node, ops: &Value) {
        let Some(ops) = ops.as_list() else { return };
        for i in select(res, target) {
            let Some(r) = res.get_mut(i) else { continue };
            for op in ops {
                if apply_op(&mut r.obj, op).is_err() {
                    // On an object fplint knows, kustomize fails there too.
                    let known = !r.opaque;
                    r.opaque = true;
                    if known {
                        let path = op.get("path").and_then(Value::as_str).unwrap_or("?");
                        let name = r.name().unwrap_or("?").to_string();
                        self.refuse(
                            op.span.unwrap_or(target.span),
                            format!(
                                "the JSON patch operation on `{path}` does not apply to `{name}`"
                            ),
                        );
                    }
                    break;
                }
            }
        }
    }
}

struct Kustomization {
    file: std::sync::Arc<SourceFile>,
    doc: Node,
    dir: PathBuf,
}

impl Kustomization {
    fn seq(&self, key: &str) -> &[Node] {
        self.doc.get(key).and_then(Node::as_seq).unwrap_or_default()
    }
}

/// The objects of one document: itself, or the items of a `List`.
fn objects(v: Value) -> Vec<Res> {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind.ends_with("List") {
        return match v.kind {
            ValueKind::Map(entries) => entries
                .into_iter()
                .filter(|(k, _)| k.name == "items")
                .flat_map(|(_, items)| match items.kind {
                    ValueKind::List(items) => items.into_iter().flat_map(objects).collect(),
                    _ => Vec::new(),
                })
                .collect(),
            _ => Vec::new(),
        };
    }
    if kind.is_empty() {
        return Vec::new();
    }
    let original_name = v
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    vec![Res {
        obj: v,
        original_name,
        opaque: false,
        names: Vec::new(),
        namespaces: Vec::new(),
        hash: false,
    }]
}

/// The built-in kinds that have no namespace (kustomize knows them from its
/// OpenAPI schema; any other kind, custom ones too, takes the namespace).
fn cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "Namespace"
            | "Node"
            | "ComponentStatus"
            | "CSIDriver"
            | "CSINode"
            | "VolumeAttachment"
            | "VolumeAttributesClass"
            | "CertificateSigningRequest"
            | "ClusterTrustBundle"
            | "FlowSchema"
            | "PriorityLevelConfiguration"
            | "PodSecurityPolicy"
            | "ValidatingAdmissionPolicy"
            | "ValidatingAdmissionPolicyBinding"
            | "MutatingAdmissionPolicy"
            | "MutatingAdmissionPolicyBinding"
            | "TokenReview"
            | "SelfSubjectAccessReview"
            | "SelfSubjectRulesReview"
            | "SelfSubjectReview"
            | "SubjectAccessReview"
            | "StorageVersion"
            | "StorageVersionMigration"
            | "IPAddress"
            | "ServiceCIDR"
            | "DeviceClass"
            | "ResourceSlice"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "CustomResourceDefinition"
            | "PersistentVolume"
            | "StorageClass"
            | "PriorityClass"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration"
            | "APIService"
            | "IngressClass"
            | "RuntimeClass"
    )
}

/// Which fields of each object take labels or annotations: kustomize's
/// field specs for `commonLabels` (selectors too), for pod templates
/// (`commonAnnotations`, `labels` with `includeTemplates`), or the
/// object's own metadata alone.
#[derive(Clone, Copy, PartialEq)]
enum LabelSpecs {
    Metadata,
    Templates,
    Selectors,
}

/// A field spec: a `/` path, `[]` for each item of a list, and whether
/// kustomize creates the field when it is missing.
type FieldSpec = (&'static str, bool);

/// kustomize's field specs (v5.6, `builtinpluginconsts`) beyond
/// `metadata/labels`, for one kind and the field (`labels` or
/// `annotations`).
fn label_specs(kind: &str, field: &str, specs: LabelSpecs) -> Vec<FieldSpec> {
    let templates: &[FieldSpec] = match kind {
        "Deployment"
        | "ReplicaSet"
        | "DaemonSet"
        | "StatefulSet"
        | "Job"
        | "ReplicationController" => &[("spec/template/metadata/FIELD", true)],
        "CronJob" => &[
            ("spec/jobTemplate/metadata/FIELD", true),
            ("spec/jobTemplate/spec/template/metadata/FIELD", true),
        ],
        _ => &[],
    };
    let mut out: Vec<FieldSpec> = Vec::new();
    if specs != LabelSpecs::Metadata {
        out.extend_from_slice(templates);
        // Labels (not annotations) reach a StatefulSet's claim templates.
        if kind == "StatefulSet" && field == "labels" {
            out.push(("spec/volumeClaimTemplates[]/metadata/labels", true));
        }
    }
    if specs == LabelSpecs::Selectors {
        let affinity: &[FieldSpec] = &[
            ("spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution[]/podAffinityTerm/labelSelector/matchLabels", false),
            ("spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution[]/labelSelector/matchLabels", false),
            ("spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution[]/podAffinityTerm/labelSelector/matchLabels", false),
            ("spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution[]/labelSelector/matchLabels", false),
            ("spec/template/spec/topologySpreadConstraints[]/labelSelector/matchLabels", false),
        ];
        let more: &[FieldSpec] = match kind {
            "Service" | "ReplicationController" => &[("spec/selector", true)],
            "Deployment" | "ReplicaSet" | "DaemonSet" => &[("spec/selector/matchLabels", true)],
            "StatefulSet" => &[("spec/selector/matchLabels", true)],
            "Job" => &[("spec/selector/matchLabels", false)],
            "CronJob" => &[("spec/jobTemplate/spec/selector/matchLabels", false)],
            "PodDisruptionBudget" => &[("spec/selector/matchLabels", false)],
            "NetworkPolicy" => &[
                ("spec/podSelector/matchLabels", false),
                ("spec/ingress[]/from[]/podSelector/matchLabels", false),
                ("spec/egress[]/to[]/podSelector/matchLabels", false),
            ],
            _ => &[],
        };
        out.extend_from_slice(more);
        if matches!(kind, "Deployment" | "StatefulSet") {
            out.extend_from_slice(affinity);
        }
    }
    if field != "labels" {
        // Annotations go on metadata and templates only.
        out.retain(|(p, _)| p.ends_with("FIELD"));
    }
    out
}

/// The values at a field spec's path (`[]` fans out over a list),
/// creating maps on the way when `create`.
fn at_spec<'a>(v: &'a mut Value, path: &[&str], create: bool, out: &mut Vec<&'a mut Value>) {
    let Some((first, rest)) = path.split_first() else {
        out.push(v);
        return;
    };
    if let Some(list) = first.strip_suffix("[]") {
        let Some(inner) = lookup_or_create(v, list, false) else {
            return;
        };
        if let ValueKind::List(items) = &mut inner.kind {
            for item in items.iter_mut() {
                at_spec(item, rest, create, out);
            }
        }
        return;
    }
    if let Some(inner) = lookup_or_create(v, first, create) {
        at_spec(inner, rest, create, out);
    }
}

fn lookup_or_create<'a>(v: &'a mut Value, key: &str, create: bool) -> Option<&'a mut Value> {
    if create && matches!(v.kind, ValueKind::Null) {
        v.kind = ValueKind::Map(Vec::new());
    }
    let span = v.span;
    let ValueKind::Map(entries) = &mut v.kind else {
        return None;
    };
    let i = match entries.iter().rposition(|(k, _)| k.name == key) {
        Some(i) => i,
        None if create => {
            entries.push((
                MapKey {
                    name: key.to_string(),
                    span: None,
                },
                Value::new(ValueKind::Map(Vec::new()), span),
            ));
            entries.len() - 1
        }
        None => return None,
    };
    Some(&mut entries[i].1)
}

/// `commonLabels`, `labels[].pairs` or `commonAnnotations`: onto each
/// object's metadata, and onto the fields `specs` names. Each value keeps
/// the span where the kustomization wrote it.
fn add_pairs(res: &mut [Res], pairs: &Node, field: &str, specs: LabelSpecs) {
    let Some(entries) = pairs.as_map() else {
        // Not a mapping (a templated value): the labels are unknown.
        res.iter_mut().for_each(|r| r.opaque = true);
        return;
    };
    for r in res.iter_mut() {
        let kind = r.kind().unwrap_or("").to_string();
        let mut at: Vec<(String, bool)> = vec![(format!("metadata/{field}"), true)];
        at.extend(
            label_specs(&kind, field, specs)
                .into_iter()
                .map(|(p, c)| (p.replace("FIELD", field), c)),
        );
        for (path, create) in at {
            let path: Vec<&str> = path.split('/').collect();
            let mut targets = Vec::new();
            at_spec(&mut r.obj, &path, create, &mut targets);
            for t in targets {
                for e in entries {
                    let Some(name) = e.key.scalar() else { continue };
                    // The key and the value together, as a written label is.
                    let mut v = Value::from_node(&e.value);
                    if !matches!(v.kind, ValueKind::String(_)) {
                        v.kind = match v.kind {
                            ValueKind::Number(n) => ValueKind::String(n),
                            ValueKind::Bool(b) => ValueKind::String(b.to_string()),
                            ValueKind::Null => ValueKind::String(String::new()),
                            other => other,
                        };
                    }
                    set_path(t, &[name], v, Some(e.key.span));
                }
            }
        }
    }
}

/// Set `path` in `obj`, creating maps on the way.
fn set_path(obj: &mut Value, path: &[&str], v: Value, key_span: Option<Span>) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = obj;
    for p in parents {
        if !matches!(cur.kind, ValueKind::Map(_)) {
            if matches!(cur.kind, ValueKind::Null) {
                cur.kind = ValueKind::Map(Vec::new());
            } else {
                return;
            }
        }
        let ValueKind::Map(entries) = &mut cur.kind else {
            return;
        };
        let i = match entries.iter().position(|(k, _)| k.name == *p) {
            Some(i) => i,
            None => {
                entries.push((
                    MapKey {
                        name: (*p).to_string(),
                        span: None,
                    },
                    Value::new(ValueKind::Map(Vec::new()), v.span),
                ));
                entries.len() - 1
            }
        };
        cur = &mut entries[i].1;
    }
    if matches!(cur.kind, ValueKind::Null) {
        cur.kind = ValueKind::Map(Vec::new());
    }
    let ValueKind::Map(entries) = &mut cur.kind else {
        return;
    };
    let key = MapKey {
        name: (*last).to_string(),
        span: key_span.or(v.span),
    };
    match entries.iter_mut().find(|(k, _)| k.name == *last) {
        Some(slot) => *slot = (key, v),
        None => entries.push((key, v)),
    }
}

trait GetMut {
    fn get_mut_path(&mut self, path: &[&str]) -> Option<&mut Value>;
}

impl GetMut for Value {
    fn get_mut_path(&mut self, path: &[&str]) -> Option<&mut Value> {
        let mut cur = self;
        for p in path {
            let ValueKind::Map(entries) = &mut cur.kind else {
                return None;
            };
            cur = &mut entries.iter_mut().rev().find(|(k, _)| k.name == *p)?.1;
        }
        Some(cur)
    }
}

/// The resources a patch `target` selects: kind, name and namespace as
/// anchored patterns, labels by equality. A pattern fplint cannot evaluate
/// makes every resource it might select opaque rather than guessed.
fn select(res: &mut [Res], target: &Node) -> Vec<usize> {
    let field = |k: &str| target.get(k).and_then(Node::as_str);
    let (kind, name, ns) = (field("kind"), field("name"), field("namespace"));
    let labels: Option<Vec<(&str, &str)>> = field("labelSelector").map(|s| {
        s.split(',')
            .filter_map(|p| {
                let (k, v) = p.split_once('=')?;
                Some((k.trim(), v.trim().trim_start_matches('=')))
            })
            .collect()
    });
    let complex_labels = field("labelSelector")
        .is_some_and(|s| s.split(',').any(|p| !p.contains('=') || p.contains("!=")))
        || target.get("annotationSelector").is_some();
    let mut out = Vec::new();
    for (i, r) in res.iter_mut().enumerate() {
        let ns_of = r
            .obj
            .get("metadata")
            .and_then(|m| m.get("namespace"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let api = r
            .obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let (group, version) = api.rsplit_once('/').unwrap_or(("", api));
        let checks = [
            pattern(field("group"), Some(group)),
            pattern(field("version"), Some(version)),
            pattern(kind, r.kind()),
            match name {
                None => Known::Known(true),
                Some(_) => match (
                    pattern(name, r.name()),
                    pattern(name, r.original_name.as_deref()),
                ) {
                    (Known::Known(true), _) | (_, Known::Known(true)) => Known::Known(true),
                    (Known::Known(false), Known::Known(false)) => Known::Known(false),
                    _ => Known::Unknown,
                },
            },
            pattern(ns, ns_of.as_deref()),
            match &labels {
                None => Known::Known(true),
                Some(_) if complex_labels => Known::Unknown,
                Some(want) => {
                    let have = r.labels();
                    Known::Known(want.iter().all(|w| have.contains(w)))
                }
            },
        ];
        if checks.contains(&Known::Known(false)) {
            continue;
        }
        if checks.contains(&Known::Unknown) {
            r.opaque = true;
            continue;
        }
        out.push(i);
    }
    out
}

/// kustomize's anchored regular expression against a value: literal text
/// and `.*` are evaluated, anything else is unknown.
fn pattern(p: Option<&str>, v: Option<&str>) -> Known<bool> {
    let Some(p) = p.filter(|p| !p.is_empty()) else {
        return Known::Known(true);
    };
    let Some(v) = v else {
        return Known::Known(false);
    };
    if p == ".*" {
        return Known::Known(true);
    }
    if !p.chars().any(|c| "\\^$.|?*+()[]{}".contains(c)) {
        return Known::Known(p == v);
    }
    Known::Unknown
}

/// A patch written in the kustomization: a block scalar is parsed where it
/// stands, so its values keep their own lines; other strings point at the
/// whole string.
fn embedded(file: &SourceFile, node: &Node, limits: Limits) -> Vec<Value> {
    let Some(s) = node.as_str() else {
        return Vec::new();
    };
    if node.style() == Some(ScalarStyle::Block)
        && node.span.file == file.id
        && !file.text.is_empty()
    {
        let (start, end) = (node.span.start as usize, node.span.end as usize);
        // The span starts at the `|` indicator or at the first line of text.
        let body = match file.text.get(start..end) {
            Some(t) if t.starts_with(['|', '>']) => t.find('\n').map(|n| start + n),
            Some(_) => Some(start),
            None => None,
        };
        if let Some(body) = body {
            // Everything outside the block blanked, lines kept: offsets in
            // the parse are offsets in the file.
            let masked: String = file
                .text
                .char_indices()
                .flat_map(|(i, c)| {
                    let keep = (body..end).contains(&i);
                    let fill = if c == '\n' { '\n' } else { ' ' };
                    let n = if keep { 1 } else { c.len_utf8() };
                    std::iter::repeat_n(if keep { c } else { fill }, n)
                })
                .collect();
            let parsed = tree::yaml::parse(&masked, file.id, limits);
            if parsed.error.is_none() {
                return parsed.documents.iter().map(Value::from_node).collect();
            }
        }
    }
    let parsed = tree::yaml::parse(s, file.id, limits);
    if parsed.error.is_some() {
        return Vec::new();
    }
    parsed
        .documents
        .iter()
        .map(|d| {
            let mut v = Value::from_node(d);
            respan(&mut v, node.span);
            v
        })
        .collect()
}

fn respan(v: &mut Value, span: Span) {
    v.span = Some(span);
    match &mut v.kind {
        ValueKind::List(items) => items.iter_mut().for_each(|i| respan(i, span)),
        ValueKind::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            k.span = Some(span);
            respan(v, span);
        }),
        _ => {}
    }
}

/// A patch fplint cannot apply as kustomize would: the target is unknown.
#[derive(Debug)]
struct Unapplied;

/// List fields whose items Kubernetes' strategic merge matches by a key;
/// other lists (tolerations among them) are replaced whole.
fn merge_key(field: &str) -> Option<&'static str> {
    Some(match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "env"
        | "imagePullSecrets"
        | "resourceClaims" => "name",
        "ports" => "containerPort",
        "volumeMounts" | "volumeDevices" => "mountPath",
        "hostAliases" => "ip",
        "topologySpreadConstraints" => "topologyKey",
        _ => return None,
    })
}

fn directive(v: &Value) -> Option<&str> {
    v.get("$patch").and_then(Value::as_str)
}

/// Strategic merge of `patch` into `base` (`field` is the key `base` sits under).
fn merge(base: &mut Value, patch: &Value, field: &str) -> Result<(), Unapplied> {
    match (&mut base.kind, &patch.kind) {
        (ValueKind::Map(entries), ValueKind::Map(pentries)) => {
            match directive(patch) {
                Some("replace") => {
                    *base = strip_directives(patch);
                    return Ok(());
                }
                Some(_) => return Err(Unapplied),
                None => {}
            }
            for (k, pv) in pentries {
                if k.name.starts_with("$setElementOrder/") {
                    continue;
                }
                if k.name.starts_with('$') {
                    return Err(Unapplied);
                }
                let pos = entries.iter().position(|(bk, _)| bk.name == k.name);
                match (pos, &pv.kind) {
                    (Some(i), ValueKind::Null) => {
                        entries.remove(i);
                    }
                    (None, ValueKind::Null) => {}
                    (Some(i), _) => {
                        let slot = &mut entries[i];
                        let both_maps = matches!(
                            (&slot.1.kind, &pv.kind),
                            (ValueKind::Map(_), ValueKind::Map(_))
                        );
                        let both_lists = matches!(
                            (&slot.1.kind, &pv.kind),
                            (ValueKind::List(_), ValueKind::List(_))
                        );
                        if both_maps || (both_lists && merge_key(&k.name).is_some()) {
                            merge(&mut slot.1, pv, &k.name)?;
                        } else {
                            *slot = (k.clone(), strip_directives(pv));
                        }
                    }
                    (None, _) => entries.push((k.clone(), strip_directives(pv))),
                }
            }
            Ok(())
        }
        (ValueKind::List(items), ValueKind::List(pitems)) => {
            let Some(mut key) = merge_key(field) else {
                *base = strip_directives(patch);
                return Ok(());
            };
            // A Service's ports merge by `port`, a container's by
            // `containerPort`.
            if field == "ports" && !items.iter().chain(pitems).any(|i| i.get(key).is_some()) {
                key = "port";
            }
            if pitems.iter().any(|p| directive(p) == Some("replace")) {
                let kept: Vec<Value> = pitems
                    .iter()
                    .filter(|p| directive(p).is_none())
                    .map(strip_directives)
                    .collect();
                base.kind = ValueKind::List(kept);
                return Ok(());
            }
            // The patch's items come first, in its order (merged with the
            // base's item of the same key), then the base's other items:
            // the order kustomize's strategic merge gives.
            let mut base_items: Vec<Option<Value>> =
                std::mem::take(items).into_iter().map(Some).collect();
            let mut merged = Vec::new();
            for p in pitems {
                let Some(id) = p.get(key).map(|v| v.as_str().map(str::to_string)) else {
                    return Err(Unapplied);
                };
                let pos = base_items.iter().position(|b| {
                    b.as_ref().is_some_and(|b| {
                        b.get(key).and_then(Value::as_str).map(str::to_string) == id
                    })
                });
                match (pos, directive(p)) {
                    (Some(i), Some("delete")) => base_items[i] = None,
                    (None, Some("delete")) => {}
                    (_, Some(_)) => return Err(Unapplied),
                    (Some(i), None) => {
                        if let Some(mut b) = base_items[i].take() {
                            merge(&mut b, p, "")?;
                            merged.push(b);
                        }
                    }
                    (None, None) => merged.push(strip_directives(p)),
                }
            }
            merged.extend(base_items.into_iter().flatten());
            *items = merged;
            Ok(())
        }
        _ => {
            *base = strip_directives(patch);
            Ok(())
        }
    }
}

fn strip_directives(v: &Value) -> Value {
    let mut v = v.clone();
    fn go(v: &mut Value) {
        match &mut v.kind {
            ValueKind::Map(e) => {
                // A null deletes a key; where there is nothing to delete,
                // it is not written either.
                e.retain(|(k, v)| !k.name.starts_with('$') && !matches!(v.kind, ValueKind::Null));
                e.iter_mut().for_each(|(_, v)| go(v));
            }
            ValueKind::List(items) => items.iter_mut().for_each(go),
            _ => {}
        }
    }
    go(&mut v);
    v
}

/// One JSON patch (RFC 6902) operation.
fn apply_op(obj: &mut Value, op: &Value) -> Result<(), Unapplied> {
    let name = op.get("op").and_then(Value::as_str).ok_or(Unapplied)?;
    let path = pointer(op.get("path").and_then(Value::as_str).ok_or(Unapplied)?)?;
    match name {
        "add" => add(obj, &path, op.get("value").ok_or(Unapplied)?.clone()),
        "replace" => {
            let value = op.get("value").ok_or(Unapplied)?.clone();
            match lookup(obj, &path) {
                Some(slot) => {
                    *slot = value;
                    Ok(())
                }
                // kustomize replaces a key a map does not have by adding it.
                None => {
                    let (_, parent) = path.split_last().ok_or(Unapplied)?;
                    match lookup(obj, parent).map(|p| &p.kind) {
                        Some(ValueKind::Map(_)) => add(obj, &path, value),
                        _ => Err(Unapplied),
                    }
                }
            }
        }
        "remove" => remove(obj, &path).map(|_| ()),
        "copy" | "move" => {
            let from = pointer(op.get("from").and_then(Value::as_str).ok_or(Unapplied)?)?;
            let v = if name == "move" {
                remove(obj, &from)?
            } else {
                lookup(obj, &from).ok_or(Unapplied)?.clone()
            };
            add(obj, &path, v)
        }
        "test" => {
            let here = lookup(obj, &path).ok_or(Unapplied)?;
            let (mut a, mut b) = (here.clone(), op.get("value").ok_or(Unapplied)?.clone());
            respan(&mut a, Span::default());
            respan(&mut b, Span::default());
            if a == b {
                Ok(())
            } else {
                Err(Unapplied)
            }
        }
        _ => Err(Unapplied),
    }
}

fn pointer(p: &str) -> Result<Vec<String>, Unapplied> {
    if p.is_empty() {
        return Ok(Vec::new());
    }
    let rest = p.strip_prefix('/').ok_or(Unapplied)?;
    Ok(rest
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn lookup<'a>(mut cur: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    for p in path {
        cur = match &mut cur.kind {
            ValueKind::Map(e) => &mut e.iter_mut().rev().find(|(k, _)| k.name == *p)?.1,
            ValueKind::List(items) => items.get_mut(p.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn add(obj: &mut Value, path: &[String], v: Value) -> Result<(), Unapplied> {
    let Some((last, parent)) = path.split_last() else {
        *obj = v;
        return Ok(());
    };
    let parent = lookup(obj, parent).ok_or(Unapplied)?;
    match &mut parent.kind {
        ValueKind::Map(e) => {
            let key = MapKey {
                name: last.clone(),
                span: v.span,
            };
            match e.iter_mut().find(|(k, _)| k.name == *last) {
                Some(slot) => *slot = (key, v),
                None => e.push((key, v)),
            }
            Ok(())
        }
        ValueKind::List(items) => {
            if last == "-" {
                items.push(v);
                return Ok(());
            }
            let i = last.parse::<usize>().map_err(|_| Unapplied)?;
            if i > items.len() {
                return Err(Unapplied);
            }
            items.insert(i, v);
            Ok(())
        }
        _ => Err(Unapplied),
    }
}

fn remove(obj: &mut Value, path: &[String]) -> Result<Value, Unapplied> {
    let (last, parent) = path.split_last().ok_or(Unapplied)?;
    let parent = lookup(obj, parent).ok_or(Unapplied)?;
    match &mut parent.kind {
        ValueKind::Map(e) => {
            let i = e
                .iter()
                .position(|(k, _)| k.name == *last)
                .ok_or(Unapplied)?;
            Ok(e.remove(i).1)
        }
        ValueKind::List(items) => {
            let i = last.parse::<usize>().map_err(|_| Unapplied)?;
            if i >= items.len() {
                return Err(Unapplied);
            }
            Ok(items.remove(i))
        }
        _ => Err(Unapplied),
    }
}

/// A `replicas` entry: the count of the objects it names (by their name now
/// or as their file wrote it).
fn replicas(res: &mut [Res], item: &Node) {
    let Some(name) = item.get("name").and_then(Node::as_str) else {
        return;
    };
    let Some(count) = item.get("count") else {
        return;
    };
    let count = Value::from_node(count);
    for r in res.iter_mut() {
        let named = r.name() == Some(name) || r.original_name.as_deref() == Some(name);
        let scaled = matches!(
            r.kind(),
            Some("Deployment" | "ReplicaSet" | "StatefulSet" | "ReplicationController")
        );
        if named && scaled {
            set_path(&mut r.obj, &["spec", "replicas"], count.clone(), None);
        }
    }
}

/// An image reference split as kustomize splits it: name, tag, digest.
fn split_image(image: &str) -> (&str, Option<&str>, Option<&str>) {
    // A registry's port is not a tag: look after the first slash.
    let from = image.find('/').unwrap_or(0);
    let rest = &image[from..];
    let at = rest.find('@').map(|i| i + from);
    let colon = rest.find(':').map(|i| i + from);
    match (colon, at) {
        (None, None) => (image, None, None),
        (c, Some(d)) if c.is_none_or(|c| d < c) => (&image[..d], None, Some(&image[d + 1..])),
        (Some(c), Some(d)) => (&image[..c], Some(&image[c + 1..d]), Some(&image[d + 1..])),
        (Some(c), None) => (&image[..c], Some(&image[c + 1..]), None),
        (None, Some(_)) => (image, None, None),
    }
}

/// An `images` entry: every container and init container image of that
/// name, anywhere in each object (kustomize's legacy image filter).
fn images(res: &mut [Res], item: &Node) {
    let field = |k: &str| item.get(k).and_then(Node::as_str).filter(|s| !s.is_empty());
    let Some(name) = field("name") else { return };
    let (new_name, new_tag, digest) = (field("newName"), field("newTag"), field("digest"));
    let span = Some(item.span);
    fn walk(v: &mut Value, f: &mut dyn FnMut(&mut Value)) {
        match &mut v.kind {
            ValueKind::Map(entries) => {
                for (k, v) in entries.iter_mut() {
                    if k.name == "containers" || k.name == "initContainers" {
                        if let ValueKind::List(items) = &mut v.kind {
                            for c in items.iter_mut() {
                                if let Some(image) = c.get_mut_path(&["image"]) {
                                    f(image);
                                }
                            }
                        }
                    }
                    walk(v, f);
                }
            }
            ValueKind::List(items) => items.iter_mut().for_each(|i| walk(i, f)),
            _ => {}
        }
    }
    for r in res.iter_mut() {
        walk(&mut r.obj, &mut |image| {
            let Some(old) = image.as_str() else { return };
            let (n, tag, dig) = split_image(old);
            if n != name {
                return;
            }
            let (tag, dig) = match (new_tag, digest) {
                (Some(t), Some(d)) => (Some(t), Some(d)),
                (Some(t), None) => (Some(t), None),
                (None, Some(d)) => (None, Some(d)),
                (None, None) => (tag, dig),
            };
            let mut out = new_name.unwrap_or(n).to_string();
            if let Some(t) = tag {
                out.push(':');
                out.push_str(t);
            }
            if let Some(d) = dig {
                out.push('@');
                out.push_str(d);
            }
            *image = Value::new(ValueKind::String(out), span);
        });
    }
}

impl Builder<'_> {
    /// `configMapGenerator` and `secretGenerator`: the objects they make,
    /// added to this kustomization's resources before its transformers run.
    fn generate(&mut self, k: &Kustomization, res: &mut Vec<Res>) {
        let global = k.doc.get("generatorOptions");
        for (key, kind) in [
            ("configMapGenerator", "ConfigMap"),
            ("secretGenerator", "Secret"),
        ] {
            for item in k.seq(key) {
                let Some(r) = self.generated(k, item, kind, global) else {
                    continue;
                };
                let behavior = item
                    .get("behavior")
                    .and_then(Node::as_str)
                    .unwrap_or("create");
                let name = r.name().map(str::to_string);
                let existing = res.iter().position(|e| {
                    e.kind() == Some(kind)
                        && (e.name() == name.as_deref() || e.original_name == name)
                });
                match (behavior, existing) {
                    ("create", _) => res.push(r),
                    // Replace keeps the object's labels and annotations, as
                    // merge does, and drops its data.
                    ("merge" | "replace", Some(i)) => {
                        let e = &mut res[i];
                        if behavior == "replace" {
                            if let ValueKind::Map(entries) = &mut e.obj.kind {
                                entries.retain(|(k, _)| k.name != "data" && k.name != "binaryData");
                            }
                        }
                        for field in ["data", "binaryData"] {
                            if let Some(d) = r.obj.get(field).cloned() {
                                let mut target = Vec::new();
                                at_spec(&mut e.obj, &[field], true, &mut target);
                                for t in target {
                                    if merge(t, &d, "").is_err() {
                                        e.opaque = true;
                                    }
                                }
                            }
                        }
                        for field in ["labels", "annotations"] {
                            if let Some(d) =
                                r.obj.get("metadata").and_then(|m| m.get(field)).cloned()
                            {
                                let mut target = Vec::new();
                                at_spec(&mut e.obj, &["metadata", field], true, &mut target);
                                for t in target {
                                    if merge(t, &d, "").is_err() {
                                        e.opaque = true;
                                    }
                                }
                            }
                        }
                        e.opaque |= r.opaque;
                        e.hash &= r.hash;
                    }
                    // kustomize refuses to merge or replace what is not there.
                    _ => {}
                }
            }
        }
    }

    fn generated(
        &mut self,
        k: &Kustomization,
        item: &Node,
        kind: &str,
        global: Option<&Node>,
    ) -> Option<Res> {
        let span = Some(item.span);
        let s = |text: &str| Value::new(ValueKind::String(text.to_string()), span);
        let name = item.get("name").and_then(Node::as_str)?;
        let mut opaque = false;
        let mut data: Vec<(String, String)> = Vec::new();
        let strings = |key: &str| strings_of(item.get(key));
        for path in strings("envs").into_iter().chain(strings("env")) {
            match self.load(&normalise(&k.dir.join(path))) {
                Some(f) => {
                    for line in f.text.lines() {
                        let line = line.trim_start();
                        if line.is_empty() || line.starts_with('#') {
                            continue;
                        }
                        match line.split_once('=') {
                            Some((key, v)) => data.push((key.to_string(), v.to_string())),
                            // The value comes from kustomize's environment.
                            None => opaque = true,
                        }
                    }
                }
                None => opaque = true,
            }
        }
        for literal in strings("literals") {
            let Some((key, v)) = literal.split_once('=') else {
                opaque = true;
                continue;
            };
            let v = [('"', '"'), ('\'', '\'')]
                .iter()
                .find_map(|(a, b)| v.strip_prefix(*a).and_then(|v| v.strip_suffix(*b)))
                .filter(|_| v.len() >= 2)
                .unwrap_or(v);
            data.push((key.to_string(), v.to_string()));
        }
        for file in strings("files") {
            let (key, path) = match file.split_once('=') {
                Some((key, path)) => (key.to_string(), path),
                None => (
                    Path::new(file)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    file,
                ),
            };
            let p = normalise(&k.dir.join(path));
            if p.is_dir() {
                // A folder gives one key per file; not modelled.
                opaque = true;
                continue;
            }
            match self.load(&p) {
                Some(f) => data.push((key, f.text.to_string())),
                None => opaque = true,
            }
        }
        let option = |key: &str| {
            item.get("options")
                .and_then(|o| o.get(key))
                .or_else(|| global.and_then(|g| g.get(key)))
        };
        let mut meta = vec![(key_of("name"), s(name))];
        if let Some(ns) = item.get("namespace").and_then(Node::as_str) {
            meta.push((key_of("namespace"), s(ns)));
        }
        for field in ["labels", "annotations"] {
            let mut pairs: Vec<(MapKey, Value)> = Vec::new();
            let sources = [
                global.and_then(|g| g.get(field)),
                item.get("options").and_then(|o| o.get(field)),
            ];
            for e in sources
                .iter()
                .flatten()
                .filter_map(|m| m.as_map())
                .flatten()
            {
                let Some(key) = e.key.scalar() else { continue };
                let v = Value::from_node(&e.value);
                let v = Value::new(
                    ValueKind::String(v.as_str().unwrap_or_default().to_string()),
                    v.span,
                );
                match pairs.iter_mut().find(|(k, _)| k.name == key) {
                    Some(slot) => slot.1 = v,
                    None => pairs.push((key_of(key), v)),
                }
            }
            if !pairs.is_empty() {
                meta.push((key_of(field), Value::new(ValueKind::Map(pairs), span)));
            }
        }
        let secret = kind == "Secret";
        let data_value = Value::new(
            ValueKind::Map(
                data.into_iter()
                    .map(|(key, v)| {
                        (
                            key_of(&key),
                            s(&if secret {
                                fplint_helm::digest::b64enc(v.as_bytes())
                            } else {
                                v
                            }),
                        )
                    })
                    .collect(),
            ),
            span,
        );
        let mut obj = vec![
            (key_of("apiVersion"), s("v1")),
            (key_of("kind"), s(kind)),
            (key_of("metadata"), Value::new(ValueKind::Map(meta), span)),
        ];
        if matches!(&data_value.kind, ValueKind::Map(e) if !e.is_empty()) {
            obj.push((key_of("data"), data_value));
        }
        if secret {
            let t = item.get("type").and_then(Node::as_str).unwrap_or("Opaque");
            obj.push((key_of("type"), s(t)));
        }
        if option("immutable").and_then(Node::as_bool) == Some(true) {
            obj.push((key_of("immutable"), Value::new(ValueKind::Bool(true), span)));
        }
        let hash = option("disableNameSuffixHash").and_then(Node::as_bool) != Some(true);
        Some(Res {
            obj: Value::new(ValueKind::Map(obj), span),
            original_name: Some(name.to_string()),
            opaque,
            names: Vec::new(),
            namespaces: Vec::new(),
            hash,
        })
    }
}

fn key_of(name: &str) -> MapKey {
    MapKey {
        name: name.to_string(),
        span: None,
    }
}

/// The steps kustomize takes once, after the whole build: generated names
/// take the hash of their content, then references to renamed objects
/// follow them.
fn finish(res: &mut [Res], vars: &BTreeSet<String>) {
    for r in res.iter_mut().filter(|r| r.hash) {
        let Some(hash) = content_hash(&r.obj) else {
            continue;
        };
        if let Some(n) = r.obj.get_mut_path(&["metadata", "name"]) {
            let old = n.as_str().unwrap_or_default().to_string();
            n.kind = ValueKind::String(format!("{old}-{hash}"));
            r.names.push(old);
        }
    }
    fix_references(res);
    if !vars.is_empty() {
        // kustomize puts a var's value in the fields it knows; fplint does
        // not resolve vars: a string that uses one is unknown.
        fn walk(v: &mut Value, vars: &BTreeSet<String>) {
            match &mut v.kind {
                ValueKind::String(s)
                    if s.contains("$(") && vars.iter().any(|n| s.contains(&format!("$({n})"))) =>
                {
                    v.kind = ValueKind::Unknown;
                }
                ValueKind::Map(entries) => entries.iter_mut().for_each(|(_, v)| walk(v, vars)),
                ValueKind::List(items) => items.iter_mut().for_each(|v| walk(v, vars)),
                _ => {}
            }
        }
        res.iter_mut().for_each(|r| walk(&mut r.obj, vars));
    }
}

/// kustomize's name hash of a generated ConfigMap or Secret: SHA-256 of
/// the JSON of its kind, type and data and an empty name (keys sorted, as
/// Go's encoder writes a map), ten hex digits with some letters swapped.
fn content_hash(obj: &Value) -> Option<String> {
    let kind = obj.get("kind").and_then(Value::as_str)?;
    // kustomize hashes the object before it has its name.
    let name = "";
    let json = |s: &str| {
        serde_json::to_string(s)
            .unwrap_or_default()
            .replace('<', "\\u003c")
            .replace('>', "\\u003e")
            .replace('&', "\\u0026")
            .replace('\u{2028}', "\\u2028")
            .replace('\u{2029}', "\\u2029")
    };
    let map = |field: &str| -> Option<String> {
        let v = obj.get(field)?;
        let ValueKind::Map(entries) = &v.kind else {
            return None;
        };
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for (k, v) in entries {
            pairs.push((k.name.as_str(), v.as_str()?));
        }
        pairs.sort();
        let body: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}:{}", json(k), json(v)))
            .collect();
        Some(format!("{{{}}}", body.join(",")))
    };
    let data = match obj.get("data") {
        Some(_) => map("data")?,
        None => "{}".to_string(),
    };
    let mut parts = Vec::new();
    if obj.get("binaryData").is_some() {
        parts.push(format!("\"binaryData\":{}", map("binaryData")?));
    }
    parts.push(format!("\"data\":{data}"));
    parts.push(format!("\"kind\":{}", json(kind)));
    parts.push(format!("\"name\":{}", json(name)));
    if kind == "Secret" {
        let t = obj.get("type").and_then(Value::as_str).unwrap_or("Opaque");
        parts.push(format!("\"type\":{}", json(t)));
    } else if kind != "ConfigMap" {
        return None;
    }
    let digest = fplint_helm::digest::sha256(format!("{{{}}}", parts.join(",")).as_bytes());
    let hex: String = digest.iter().take(5).map(|b| format!("{b:02x}")).collect();
    Some(
        hex.chars()
            .map(|c| match c {
                '0' => 'g',
                '1' => 'h',
                '3' => 'k',
                'a' => 'm',
                'e' => 't',
                c => c,
            })
            .collect(),
    )
}

/// The references kustomize renames with the object they name (v5.6's
/// `nameReference` field specs, the ones for core kinds): the kind named,
/// the kinds that name it (none: any with a pod spec, the path then
/// starting in the pod spec) and the path of the name.
const REFERENCES: &[(&str, &[&str], &str)] = &[
    ("ConfigMap", &[], "volumes[]/configMap/name"),
    (
        "ConfigMap",
        &[],
        "volumes[]/projected/sources[]/configMap/name",
    ),
    (
        "ConfigMap",
        &[],
        "containers[]/env[]/valueFrom/configMapKeyRef/name",
    ),
    (
        "ConfigMap",
        &[],
        "initContainers[]/env[]/valueFrom/configMapKeyRef/name",
    ),
    ("ConfigMap", &[], "containers[]/envFrom[]/configMapRef/name"),
    (
        "ConfigMap",
        &[],
        "initContainers[]/envFrom[]/configMapRef/name",
    ),
    ("Secret", &[], "volumes[]/secret/secretName"),
    ("Secret", &[], "volumes[]/projected/sources[]/secret/name"),
    (
        "Secret",
        &[],
        "containers[]/env[]/valueFrom/secretKeyRef/name",
    ),
    (
        "Secret",
        &[],
        "initContainers[]/env[]/valueFrom/secretKeyRef/name",
    ),
    ("Secret", &[], "containers[]/envFrom[]/secretRef/name"),
    ("Secret", &[], "initContainers[]/envFrom[]/secretRef/name"),
    ("Secret", &[], "imagePullSecrets[]/name"),
    ("Secret", &["ServiceAccount"], "imagePullSecrets[]/name"),
    ("Secret", &["ServiceAccount"], "secrets[]/name"),
    ("Secret", &["Ingress"], "spec/tls[]/secretName"),
    ("ServiceAccount", &[], "serviceAccountName"),
    ("ServiceAccount", &[], "serviceAccount"),
    (
        "ServiceAccount",
        &["RoleBinding", "ClusterRoleBinding"],
        "subjects[]/name",
    ),
    (
        "PersistentVolumeClaim",
        &[],
        "volumes[]/persistentVolumeClaim/claimName",
    ),
    ("PriorityClass", &[], "priorityClassName"),
    (
        "Service",
        &["Ingress"],
        "spec/rules[]/http/paths[]/backend/service/name",
    ),
    ("Service", &["Ingress"], "spec/defaultBackend/service/name"),
    (
        "Service",
        &["Ingress"],
        "spec/rules[]/http/paths[]/backend/serviceName",
    ),
    ("Service", &["Ingress"], "spec/backend/serviceName"),
    ("Service", &["StatefulSet"], "spec/serviceName"),
    ("Service", &["APIService"], "spec/service/name"),
    (
        "Service",
        &[
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
        ],
        "webhooks[]/clientConfig/service/name",
    ),
    ("Role", &["RoleBinding"], "roleRef/name"),
    (
        "ClusterRole",
        &["RoleBinding", "ClusterRoleBinding"],
        "roleRef/name",
    ),
    (
        "Deployment",
        &["HorizontalPodAutoscaler"],
        "spec/scaleTargetRef/name",
    ),
    (
        "StatefulSet",
        &["HorizontalPodAutoscaler"],
        "spec/scaleTargetRef/name",
    ),
    (
        "ReplicaSet",
        &["HorizontalPodAutoscaler"],
        "spec/scaleTargetRef/name",
    ),
];

fn pod_spec_path(kind: &str) -> Option<&'static str> {
    match kind {
        "Pod" => Some("spec"),
        "Deployment"
        | "ReplicaSet"
        | "DaemonSet"
        | "StatefulSet"
        | "Job"
        | "ReplicationController" => Some("spec/template/spec"),
        "CronJob" => Some("spec/jobTemplate/spec/template/spec"),
        _ => None,
    }
}

/// Rename references to objects the build renamed (prefix, suffix, hash):
/// a reference to a name an object had becomes its name now, when one
/// object of that kind in the referrer's namespace had it. A subject or a
/// webhook's service names a namespace too, and follows its object there.
fn fix_references(res: &mut [Res]) {
    fn namespace_of(v: &Value) -> Option<String> {
        v.get("metadata")
            .and_then(|m| m.get("namespace"))
            .and_then(Value::as_str)
            .map(str::to_string)
    }
    // No namespace is the default one.
    fn or_default(ns: Option<&str>) -> &str {
        ns.unwrap_or("default")
    }
    struct Named {
        kind: String,
        name: String,
        names: Vec<String>,
        namespace: Option<String>,
        namespaces: Vec<Option<String>>,
    }
    if res
        .iter()
        .all(|r| r.names.is_empty() && r.namespaces.is_empty())
    {
        return;
    }
    let named: Vec<Named> = res
        .iter()
        .filter_map(|r| {
            Some(Named {
                kind: r.kind()?.to_string(),
                name: r.name()?.to_string(),
                names: r.names.clone(),
                namespace: namespace_of(&r.obj),
                namespaces: r.namespaces.clone(),
            })
        })
        .collect();
    // (kind, any name it had or has) → the objects, so a large build does
    // not scan every object for every reference.
    let mut by_name: HashMap<(&str, &str), Vec<&Named>> = HashMap::new();
    for n in &named {
        for old in n.names.iter().chain(std::iter::once(&n.name)) {
            let v = by_name.entry((n.kind.as_str(), old.as_str())).or_default();
            if !v.iter().any(|m| std::ptr::eq(*m, n)) {
                v.push(n);
            }
        }
    }
    for r in res.iter_mut() {
        let Some(kind) = r.kind().map(str::to_string) else {
            continue;
        };
        let ns = namespace_of(&r.obj);
        for (target, referrers, path) in REFERENCES {
            let full = if referrers.is_empty() {
                match pod_spec_path(&kind) {
                    Some(pod) => format!("{pod}/{path}"),
                    None => continue,
                }
            } else if referrers.contains(&kind.as_str()) {
                (*path).to_string()
            } else {
                continue;
            };
            let segments: Vec<&str> = full.split('/').collect();
            let Some((last, parent)) = segments.split_last() else {
                continue;
            };
            let subject = *path == "subjects[]/name";
            // References that name a namespace too: they follow the object
            // into its namespace.
            let names_ns = subject || path.ends_with("service/name");
            let mut parents = Vec::new();
            at_spec(&mut r.obj, parent, false, &mut parents);
            for p in parents {
                // A reference that says what it names (a role reference, a
                // scale target) must name this kind. Subjects are renamed
                // whatever their kind, as kustomize does.
                if !subject
                    && p.get("kind")
                        .and_then(Value::as_str)
                        .is_some_and(|k| k != *target)
                {
                    continue;
                }
                let Some(old) = p.get(last).and_then(Value::as_str).map(str::to_string) else {
                    continue;
                };
                let wanted_ns: Option<String> = if names_ns {
                    p.get("namespace")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                } else {
                    ns.clone()
                };
                let in_ns = |n: &Named| {
                    if cluster_scoped(target) {
                        return true;
                    }
                    let want = or_default(wanted_ns.as_deref());
                    if !names_ns {
                        return or_default(n.namespace.as_deref()) == want;
                    }
                    or_default(n.namespace.as_deref()) == want
                        || n.namespaces
                            .iter()
                            .any(|o| or_default(o.as_deref()) == want)
                };
                let matches: Vec<&Named> = by_name
                    .get(&(*target, old.as_str()))
                    .map(|v| v.iter().copied().filter(|n| in_ns(n)).collect())
                    .unwrap_or_default();
                // The name is an object's name now: it names that one.
                if matches.iter().any(|n| n.name == old && !names_ns) {
                    continue;
                }
                let Some(first) = matches.first() else {
                    continue;
                };
                if matches
                    .iter()
                    .any(|n| n.name != first.name || n.namespace != first.namespace)
                {
                    continue;
                }
                if let Some(slot) = p.get_mut_path(&[last]) {
                    slot.kind = ValueKind::String(first.name.clone());
                }
                if names_ns {
                    if let Some(ns) = &first.namespace {
                        let v = Value::new(ValueKind::String(ns.clone()), None);
                        set_path(p, &["namespace"], v, None);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Workload;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (name, text) in files {
            let p = root.join(name);
            if let Some(d) = p.parent() {
                std::fs::create_dir_all(d).unwrap();
            }
            std::fs::write(p, text).unwrap();
        }
    }

    fn built(files: &[(&str, &str)], root: &str) -> (Vec<Workload>, Sources, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), files);
        let sources = Sources::new(vec![dir.path().to_path_buf()]);
        let out = build(&dir.path().join(root), &sources, Limits::default());
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        (out.workloads, sources, dir)
    }

    /// `file:line` of a span, the file relative to the test folder.
    fn at(sources: &Sources, span: Span) -> String {
        let f = sources.get(span.file).unwrap();
        let name = f.path.rsplit('/').take(2).collect::<Vec<_>>();
        format!(
            "{}/{}:{}",
            name[1],
            name[0],
            f.line_col(span.start as usize).line
        )
    }

    const BASE: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      tolerations: [{key: a, operator: Exists}]\n      nodeSelector: {zone: a}\n      containers:\n        - name: web\n          image: nginx\n        - name: log\n          image: busybox\n";

    #[test]
    fn strategic_merge_follows_kubernetes_list_rules() {
        let patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      tolerations: [{key: b, operator: Exists}]\n      nodeSelector: {disk: ssd}\n      containers:\n        - name: web\n          resources:\n            requests: {cpu: 500m}\n        - name: log\n          $patch: delete\n        - name: proxy\n          image: envoy\n";
        let (ws, sources, _d) = built(
            &[
                ("base/deploy.yaml", BASE),
                ("base/kustomization.yaml", "resources: [deploy.yaml]\n"),
                ("prod/patch.yaml", patch),
                (
                    "prod/kustomization.yaml",
                    "resources: [../base]\nnamespace: prod\npatchesStrategicMerge: [patch.yaml]\n",
                ),
            ],
            "prod",
        );
        assert_eq!(ws.len(), 1);
        let w = &ws[0];
        assert_eq!(w.namespace.known().map(String::as_str), Some("prod"));
        assert_eq!(
            at(&sources, w.namespace.loc.span),
            "prod/kustomization.yaml:2"
        );
        assert_eq!(at(&sources, w.loc.span), "base/deploy.yaml:2");
        let cs = w.pod.containers.known().unwrap();
        let names: Vec<_> = cs
            .iter()
            .map(|c| c.name.known().unwrap().as_str())
            .collect();
        assert_eq!(names, ["web", "proxy"], "merged by name, deleted, appended");
        assert_eq!(cs[0].requests.cpu, Known::Known(Some(500)));
        assert_eq!(at(&sources, cs[0].loc.span), "base/deploy.yaml:13");
        let req = cs[0].requests.loc.as_ref().unwrap().span;
        assert_eq!(at(&sources, req), "prod/patch.yaml:13", "the patch set it");
        // Tolerations have no merge key: the patch's list replaces the base's.
        let tol = w.pod.tolerations.known().unwrap();
        assert_eq!(tol.len(), 1);
        assert_eq!(tol[0].key, Known::Known(Some("b".into())));
        let sel: Vec<_> = w
            .pod
            .node_selector
            .known()
            .unwrap()
            .iter()
            .map(|p| p.key.as_str())
            .collect();
        assert_eq!(sel, ["zone", "disk"], "maps merge");
        assert_eq!(w.variant.as_ref().unwrap().name, "prod");
    }

    #[test]
    fn json_patches_are_seen_with_their_lines() {
        let k = "resources:\n  - ../../base\npatches:\n  - target:\n      kind: Deployment\n      name: web\n    patch: |-\n      - op: add\n        path: /spec/template/spec/tolerations/-\n        value:\n          key: eks.amazonaws.com/compute-type\n          operator: Equal\n          value: fargate\n          effect: NoSchedule\n      - op: remove\n        path: /spec/template/spec/nodeSelector\n";
        let (ws, sources, _d) = built(
            &[
                ("base/deploy.yaml", BASE),
                ("base/kustomization.yaml", "resources: [deploy.yaml]\n"),
                ("overlays/dev/kustomization.yaml", k),
            ],
            "overlays/dev",
        );
        let w = &ws[0];
        let tol = w.pod.tolerations.known().unwrap();
        assert_eq!(tol.len(), 2);
        assert_eq!(
            tol[1].tolerates("eks.amazonaws.com/compute-type", "fargate", "NoSchedule"),
            Known::Known(true)
        );
        assert_eq!(at(&sources, tol[1].loc.span), "dev/kustomization.yaml:11");
        assert_eq!(w.pod.node_selector.known().map(Vec::len), Some(0));
        assert_eq!(w.variant.as_ref().unwrap().name, "overlays/dev");
    }

    #[test]
    fn components_prefixes_and_original_names() {
        let (ws, _s, _d) = built(
            &[
                ("base/deploy.yaml", BASE),
                ("base/kustomization.yaml", "resources: [deploy.yaml]\nnamePrefix: shop-\n"),
                (
                    "comp/kustomization.yaml",
                    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {fargate: \"yes\"}\n",
                ),
                (
                    "prod/kustomization.yaml",
                    "resources: [../base]\ncomponents: [../comp]\npatches:\n  - patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: web}\n      spec: {template: {spec: {schedulerName: custom}}}\n",
                ),
            ],
            "prod",
        );
        let w = &ws[0];
        assert_eq!(w.name.known().map(String::as_str), Some("shop-web"));
        assert_eq!(
            w.pod
                .label("fargate")
                .and_then(|l| l.value.known())
                .map(String::as_str),
            Some("yes")
        );
        assert_eq!(
            w.pod
                .scheduler_name
                .as_ref()
                .and_then(|s| s.known())
                .map(String::as_str),
            Some("custom"),
            "a patch may name the resource as its file did"
        );
    }

    #[test]
    fn unmodelled_transformers_and_remote_resources_are_unknown() {
        let (ws, _s, _d) = built(
            &[
                ("base/deploy.yaml", BASE),
                (
                    "base/kustomization.yaml",
                    "resources:\n  - deploy.yaml\n  - https://example.com/shop/all.yaml\nnamespace: prod\ntransformers: [ns.yaml]\n",
                ),
                ("base/ns.yaml", "apiVersion: builtin\nkind: NamespaceTransformer\n"),
            ],
            "base",
        );
        assert_eq!(ws.len(), 1);
        assert_eq!(ws[0].namespace.value, Known::Unknown);
        assert!(!ws[0].pod.containers.is_known());
    }

    #[test]
    fn plans_roots_and_what_they_include() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(
            r,
            &[
                ("base/deploy.yaml", BASE),
                ("base/kustomization.yaml", "resources: [deploy.yaml]\n"),
                (
                    "prod/kustomization.yaml",
                    "resources: [../base]\npatches: [{path: p.yaml}]\n",
                ),
                ("dev/kustomization.yaml", "resources: [../base]\n"),
                ("a/kustomization.yaml", "resources: [../b]\n"),
                ("b/kustomization.yaml", "resources: [../a]\n"),
            ],
        );
        let read = |d: &Path| {
            let text = std::fs::read_to_string(kustomization_in(d)?).ok()?;
            tree::yaml::parse(&text, crate::FileId(0), Limits::default())
                .documents
                .into_iter()
                .next()
        };
        let dirs = ["base", "prod", "dev", "a", "b"].map(|d| r.join(d));
        let plan = Plan::new(dirs, read);
        assert_eq!(
            plan.roots,
            [r.join("dev"), r.join("prod")],
            "a cycle has no root"
        );
        assert!(plan.includes(&r.join("prod/p.yaml")));
        assert!(plan.includes(&r.join("prod/../base/deploy.yaml")));
        assert!(!plan.includes(&r.join("README.yaml")));
        assert_eq!(
            plan.roots_including(&r.join("base/deploy.yaml")),
            [r.join("dev"), r.join("prod")]
        );
        assert_eq!(
            plan.roots_including(&r.join("prod/p.yaml")),
            [r.join("prod")]
        );
        // A cycle ends.
        let sources = Sources::new(vec![r.to_path_buf()]);
        let out = build(&r.join("a"), &sources, Limits::default());
        assert!(out.workloads.is_empty());
    }

    #[test]
    fn a_diamond_of_includes_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        // Each level includes the next twice (through two folders).
        let mut files = vec![(
            "l30/a/kustomization.yaml".to_string(),
            "resources: [d.yaml]\n".to_string(),
        )];
        files.push(("l30/a/d.yaml".into(), BASE.into()));
        files.push((
            "l30/b/kustomization.yaml".into(),
            "resources: [../a]\n".into(),
        ));
        for l in (0..30).rev() {
            let k = format!("resources: [../../l{}/a, ../../l{}/b]\n", l + 1, l + 1);
            files.push((format!("l{l}/a/kustomization.yaml"), k.clone()));
            files.push((format!("l{l}/b/kustomization.yaml"), k));
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        write(r, &refs);
        let sources = Sources::new(vec![r.to_path_buf()]);
        let t = std::time::Instant::now();
        let out = build(&r.join("l0/a"), &sources, Limits::default());
        assert!(t.elapsed() < std::time::Duration::from_secs(60));
        assert_eq!(out.diagnostics.len(), 1, "{:?}", out.diagnostics);
        assert!(out.diagnostics[0]
            .message
            .contains("over 2000 kustomizations"));
    }

    /// The objects of a build, by `kind/name`, and the build's messages.
    fn objects_of(files: &[(&str, &str)], root: &str) -> (Vec<(String, Value)>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), files);
        let sources = Sources::new(vec![dir.path().to_path_buf()]);
        let (objs, diags) = build_objects(&dir.path().join(root), &sources, Limits::default());
        let named = objs
            .into_iter()
            .map(|(o, _)| {
                let r = objects(o.clone()).pop().unwrap();
                (format!("{}/{}", r.kind().unwrap(), r.name().unwrap()), o)
            })
            .collect();
        (named, diags.into_iter().map(|d| d.message).collect())
    }

    fn text(v: &Value, path: &[&str]) -> String {
        let mut cur = v;
        for p in path {
            cur = match p.parse::<usize>() {
                Ok(i) => &cur.as_list().unwrap()[i],
                Err(_) => cur.get(p).unwrap_or_else(|| panic!("no {p} in {cur:?}")),
            };
        }
        cur.as_str().unwrap().to_string()
    }

    #[test]
    fn generated_names_take_kustomizes_hash_and_references_follow() {
        let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          envFrom:\n            - configMapRef: {name: c}\n            - secretRef: {name: s}\n";
        let (objs, diags) = objects_of(
            &[
                ("d.yaml", deploy),
                (
                    "kustomization.yaml",
                    "resources: [d.yaml]\nnamePrefix: p-\nconfigMapGenerator:\n  - name: c\n    literals: [a=b]\nsecretGenerator:\n  - name: s\n    literals: [a=b]\n",
                ),
            ],
            ".",
        );
        assert!(diags.is_empty(), "{diags:?}");
        let names: Vec<&str> = objs.iter().map(|(n, _)| n.as_str()).collect();
        // The hashes kubectl kustomize (v5.6) gives the same generators.
        assert_eq!(
            names,
            [
                "Deployment/p-web",
                "ConfigMap/p-c-4h2mbtbbt6",
                "Secret/p-s-k695gkmbtk"
            ]
        );
        let d = &objs[0].1;
        let env = ["spec", "template", "spec", "containers", "0", "envFrom"];
        let at = |i: &'static str, k: &'static str| [&env[..], &[i, k, "name"]].concat();
        assert_eq!(text(d, &at("0", "configMapRef")), "p-c-4h2mbtbbt6");
        assert_eq!(text(d, &at("1", "secretRef")), "p-s-k695gkmbtk");
        assert_eq!(text(&objs[2].1, &["data", "a"]), "Yg==");
    }

    #[test]
    fn selectors_images_and_replicas() {
        let svc =
            "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n";
        let (objs, _) = objects_of(
            &[
                ("d.yaml", BASE),
                ("s.yaml", svc),
                (
                    "kustomization.yaml",
                    "resources: [d.yaml, s.yaml]\ncommonLabels: {team: a}\nreplicas: [{name: web, count: 3}]\nimages:\n  - {name: nginx, newName: mirror/nginx, newTag: \"1.27\"}\n  - {name: busybox, digest: \"sha256:00\"}\n",
                ),
            ],
            ".",
        );
        let d = &objs[0].1;
        assert_eq!(text(d, &["spec", "selector", "matchLabels", "team"]), "a");
        assert_eq!(
            text(d, &["spec", "template", "metadata", "labels", "team"]),
            "a"
        );
        assert_eq!(text(&objs[1].1, &["spec", "selector", "team"]), "a");
        assert_eq!(text(d, &["spec", "replicas"]), "3");
        let image = |i: &str| text(d, &["spec", "template", "spec", "containers", i, "image"]);
        assert_eq!(image("0"), "mirror/nginx:1.27");
        assert_eq!(image("1"), "busybox@sha256:00");
        assert_eq!(
            split_image("reg:5000/a/b:1@sha256:9"),
            ("reg:5000/a/b", Some("1"), Some("sha256:9"))
        );
    }

    #[test]
    fn render_says_when_kustomize_would_refuse_and_check_builds_on() {
        let files = [
            ("empty/kustomization.yaml", "# resources: [x.yaml]\n"),
            (
                "plain/pod.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
            ),
            (
                "o/kustomization.yaml",
                "resources: [../empty, ../plain, gone.yaml, own.yaml]\n",
            ),
            (
                "o/own.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: own}\n",
            ),
        ];
        let (objs, diags) = objects_of(&files, "o");
        assert_eq!(objs.len(), 1);
        assert_eq!(
            diags,
            [
                "kustomize refuses this build: the kustomization is empty",
                "kustomize refuses this build: `../plain` is a folder without a kustomization",
                "kustomize refuses this build: `gone.yaml` cannot be read",
            ]
        );
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &files);
        let sources = Sources::new(vec![dir.path().to_path_buf()]);
        let out = build(&dir.path().join("o"), &sources, Limits::default());
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    }

    #[test]
    fn strategic_merge_puts_the_patchs_items_first() {
        let (objs, _) = objects_of(
            &[
                ("d.yaml", BASE),
                (
                    "kustomization.yaml",
                    "resources: [d.yaml]\npatches:\n  - patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: web}\n      spec: {template: {spec: {containers: [{name: new, image: x}, {name: log, image: y}]}}}\n",
                ),
            ],
            ".",
        );
        let names: Vec<String> = (0..3)
            .map(|i| {
                text(
                    &objs[0].1,
                    &[
                        "spec",
                        "template",
                        "spec",
                        "containers",
                        &i.to_string(),
                        "name",
                    ],
                )
            })
            .collect();
        assert_eq!(names, ["new", "log", "web"]);
    }

    #[test]
    fn sha256_and_base64_known_answers() {
        let hex: String = fplint_helm::digest::sha256(b"abc")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(fplint_helm::digest::b64enc(b"s3cr3t"), "czNjcjN0");
        assert_eq!(fplint_helm::digest::b64enc(b"ab"), "YWI=");
        assert_eq!(fplint_helm::digest::b64enc(b"a"), "YQ==");
    }
}
