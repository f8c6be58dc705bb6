//! A workspace's project, assembled and finished (clusters joined, capped,
//! assigned), kept between checks with the rules' findings per cluster.
//!
//! After a unit is modelled again, [`Assembled::splice`] swaps its items in
//! the finished project for the new ones when that cannot change anything
//! outside them: its clusters keep their names, keys, folders and count,
//! take part in no join, and it has no pod identities (which are
//! deduplicated across files). Assignment is then redone for the unit's own
//! workloads only, and the per-cluster rules rerun for its clusters and the
//! clusters whose workloads or `aws-auth` maps changed. Rules that read the
//! whole project ([`fplint_rules::PROJECT_WIDE`]) rerun on every check, as
//! do suppressions, placement and sorting. Anything else is built again
//! from the units, exactly as the batch run builds it.

use crate::assign::{self, Assigner};
use crate::config::Config;
use crate::lint::{self, Modelled, Selection};
use crate::pipeline::check::Found;
use fplint_core::frontend::{self, Suppression, UnitOutput};
use fplint_core::model::{Known, Project};
use fplint_core::sources::Sources;
use fplint_core::Diagnostic;
use fplint_rules::{Context, Settings, PROJECT_WIDE, REGISTRY};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The project's lists a unit adds items to, in [`Part::lens`] order.
const LISTS: usize = 12;

/// What one unit put into the project.
#[derive(Clone, Default)]
struct Part {
    /// How many items it added to each list (clusters before joining,
    /// workloads, aws-auth, pod identities, node pools, node classes, given
    /// and context files, module calls, schema findings, Terraform blocks,
    /// planned resources).
    lens: [usize; LISTS],
    /// Where its clusters are after joining, when none was joined.
    first: Option<usize>,
    /// Its dependency graph's index.
    graph: Option<u32>,
    /// What joining and assignment read of its clusters.
    idents: Vec<Ident>,
}

/// A cluster's name, key, whether defined, and folder.
type Ident = (Known<String>, String, bool, Option<String>);

/// The finished project of a workspace and what it was made from.
pub(crate) struct Assembled {
    pub(crate) project: Project,
    parts: Vec<Part>,
    /// Known cluster names before joining, counted.
    names: HashMap<String, usize>,
    rekey: HashMap<String, String>,
    assigner: Assigner,
    /// Per finished cluster: the list caps' findings.
    capped: Vec<Vec<Diagnostic>>,
    /// Per finished cluster, per selected rule that reads one cluster: its findings.
    found: Vec<Vec<Vec<Diagnostic>>>,
    /// Clusters whose findings are out of date.
    dirty: BTreeSet<usize>,
}

/// What the workspace passes to a build and a check.
pub(crate) struct Env<'a> {
    pub(crate) cfg: &'a Config,
    pub(crate) sources: &'a Sources,
    pub(crate) base: Option<&'a std::path::Path>,
    pub(crate) max_list_items: usize,
}

/// The indices in [`REGISTRY`] of the selected rules, with whether each
/// reads one cluster at a time.
fn rules(selection: &Selection) -> Vec<(usize, bool)> {
    REGISTRY
        .iter()
        .enumerate()
        .filter(|(_, r)| r.rule.is_some() && selection.enabled(r.code))
        .map(|(i, r)| (i, !PROJECT_WIDE.contains(&r.code)))
        .collect()
}

fn ident(m: &Modelled, c: &fplint_core::model::Cluster, sources: &Sources) -> Ident {
    let dir = match &m.home {
        Some(h) => Some(fplint_core::sources::display_path(h)),
        None => sources.peek(c.loc.span.file).map(|f| {
            let p = std::path::Path::new(&f.path);
            fplint_core::sources::display_path(p.parent().unwrap_or(std::path::Path::new("")))
        }),
    };
    (c.name.value.clone(), c.key.clone(), c.defined, dir)
}

fn lens(out: &UnitOutput) -> [usize; LISTS] {
    [
        out.clusters.len(),
        out.workloads.len(),
        out.aws_auth.len(),
        out.pod_identities.len(),
        out.karpenter.node_pools.len(),
        out.karpenter.node_classes.len(),
        out.given_files.len(),
        out.context_files.len(),
        out.module_calls.len(),
        out.schema.len(),
        out.terraform_blocks.len(),
        out.planned.len(),
    ]
}

impl Assembled {
    /// Assemble and finish the project from `units` as the batch run does.
    pub(crate) fn build<'a>(units: impl Iterator<Item = &'a Modelled>, env: &Env) -> Assembled {
        let mut project = Project::default();
        let mut parts = Vec::new();
        let mut homes = Vec::new();
        let mut names: HashMap<String, usize> = HashMap::new();
        for m in units {
            let mut out = m.unit.clone();
            out.suppressions.clear();
            out.diagnostics.clear();
            homes.extend(std::iter::repeat_n(m.home.clone(), out.clusters.len()));
            for c in &out.clusters {
                if let Some(n) = c.name.known() {
                    *names.entry(n.clone()).or_default() += 1;
                }
            }
            let graph = out
                .graph
                .as_ref()
                .map(|_| u32::try_from(project.graphs.len()).unwrap_or(u32::MAX));
            parts.push(Part {
                lens: lens(&out),
                first: None,
                graph,
                idents: out
                    .clusters
                    .iter()
                    .map(|c| ident(m, c, env.sources))
                    .collect(),
            });
            frontend::absorb(&mut project, out);
        }
        let joined = assign::join(&mut project, env.sources);
        // A unit's clusters are its own when nothing joined into them.
        let mut landed = vec![0usize; project.clusters.len()];
        for &t in &joined.into {
            if let Some(n) = landed.get_mut(t) {
                *n += 1;
            }
        }
        let mut at = 0;
        for part in &mut parts {
            let n = part.lens[0];
            let into = joined.into.get(at..at + n).unwrap_or(&[]);
            let alone = into.len() == n
                && into
                    .iter()
                    .enumerate()
                    .all(|(k, &t)| landed.get(t) == Some(&1) && t == into[0] + k);
            part.first = alone.then(|| into.first().copied().unwrap_or(0));
            at += n;
        }
        let capped = project
            .clusters
            .iter_mut()
            .map(|c| {
                let found = lint::cap_cluster(c, env.max_list_items);
                lint::override_cluster(c, env.cfg);
                found
            })
            .collect();
        // Homes are by index before the join; clusters joined away shift the rest.
        let homes: Vec<Option<std::path::PathBuf>> = joined
            .remap(&homes)
            .into_iter()
            .map(Option::flatten)
            .collect();
        show_homes(&mut project, &homes, env.sources);
        let assigner = Assigner::new(&project, env.cfg, env.sources, env.base, &homes);
        assign::assign_by(&mut project, env.sources, &assigner);
        let n = project.clusters.len();
        Assembled {
            project,
            parts,
            names,
            rekey: joined.rekey,
            assigner,
            capped,
            found: vec![Vec::new(); n],
            dirty: (0..n).collect(),
        }
    }

    /// Put unit `u`'s new model `new` in the place of its old one `old`;
    /// `false` (and nothing changed) when that could change more than its
    /// own items, and the project must be built again.
    pub(crate) fn splice(&mut self, u: usize, old: &Modelled, new: &Modelled, env: &Env) -> bool {
        let sources = env.sources;
        let Some(part) = self.parts.get(u) else {
            return false;
        };
        let Some(first) = part.first else {
            return false;
        };
        let out = &new.unit;
        let same_files = |a: &[fplint_core::FileId], b: &[fplint_core::FileId]| {
            let path = |id: &fplint_core::FileId| sources.peek(*id).map(|f| f.path.clone());
            a.len() == b.len() && a.iter().map(path).eq(b.iter().map(path))
        };
        let idents: Vec<Ident> = out
            .clusters
            .iter()
            .map(|c| ident(new, c, sources))
            .collect();
        let local = idents == part.idents
            && out.graph.is_some() == part.graph.is_some()
            && part.lens[3] == 0
            && out.pod_identities.is_empty()
            // Declared releases are copied into clusters: build again.
            && self.project.releases.is_empty()
            // Capacity of no known cluster reaches every cluster: build again.
            && self.project.stray_capacity.is_empty()
            && out.stray_capacity.is_empty()
            && self.project.directory_sources.is_empty()
            && out.releases.is_empty()
            && out.directory_sources.is_empty()
            && idents
                .iter()
                .all(|(n, ..)| n.known().is_none_or(|n| self.names.get(n) == Some(&1)))
            && same_files(&old.unit.given_files, &out.given_files)
            && same_files(&old.unit.context_files, &out.context_files);
        if !local {
            return false;
        }
        let mut offsets = [0usize; LISTS];
        for p in &self.parts[..u] {
            for (o, l) in offsets.iter_mut().zip(p.lens) {
                *o += l;
            }
        }
        let mut out = out.clone();
        out.suppressions.clear();
        out.diagnostics.clear();
        let new_lens = lens(&out);
        let range = |k: usize| offsets[k]..offsets[k] + part.lens[k];
        if let (Some(index), Some(graph)) = (part.graph, out.graph.take()) {
            frontend::renumber_graph(&mut out, index);
            if let Some(slot) = self.project.graphs.get_mut(index as usize) {
                *slot = graph;
            }
        }
        // Keys as joining and assignment leave them.
        let rekey = |k: &mut Option<String>| {
            if let Some(new) = k.as_ref().and_then(|old| self.rekey.get(old)) {
                *k = Some(new.clone());
            }
        };
        for w in &mut out.workloads {
            rekey(&mut w.cluster_key);
            let at = w.variant.as_ref().map_or(w.loc.span, |v| v.loc.span);
            if w.cluster_key.is_none() {
                w.cluster_key = self.assigner.pick(sources, at);
            }
        }
        for a in &mut out.aws_auth {
            rekey(&mut a.cluster_key);
            if a.cluster_key.is_none() {
                a.cluster_key = self.assigner.pick(sources, a.loc.span);
            }
        }
        // The clusters whose workloads or aws-auth maps change.
        let mut keys: HashSet<String> = HashSet::new();
        let p = &mut self.project;
        keys.extend(
            p.workloads[range(1)]
                .iter()
                .filter_map(|w| w.cluster_key.clone()),
        );
        keys.extend(
            p.aws_auth[range(2)]
                .iter()
                .filter_map(|a| a.cluster_key.clone()),
        );
        keys.extend(out.workloads.iter().filter_map(|w| w.cluster_key.clone()));
        keys.extend(out.aws_auth.iter().filter_map(|a| a.cluster_key.clone()));
        for (j, mut c) in out.clusters.drain(..).enumerate() {
            let found = lint::cap_cluster(&mut c, env.max_list_items);
            lint::override_cluster(&mut c, env.cfg);
            if let Some(slot) = p.clusters.get_mut(first + j) {
                // The key the join made distinct stays.
                c.key = slot.key.clone();
                c.shown_file = slot.shown_file.clone();
                c.name_shared = slot.name_shared;
                **slot = c;
            }
            if let Some(slot) = self.capped.get_mut(first + j) {
                *slot = found;
            }
            self.dirty.insert(first + j);
        }
        p.workloads
            .splice(range(1), out.workloads.drain(..).map(Box::new));
        p.aws_auth.splice(range(2), out.aws_auth.drain(..));
        p.karpenter
            .node_pools
            .splice(range(4), out.karpenter.node_pools.drain(..));
        p.karpenter
            .node_classes
            .splice(range(5), out.karpenter.node_classes.drain(..));
        p.given_files.splice(range(6), out.given_files.drain(..));
        p.context_files
            .splice(range(7), out.context_files.drain(..));
        p.module_calls.splice(range(8), out.module_calls.drain(..));
        p.schema_findings.splice(range(9), out.schema.drain(..));
        p.terraform_blocks
            .splice(range(10), out.terraform_blocks.drain(..));
        p.planned.splice(range(11), out.planned.drain(..));
        p.workload_index = Default::default();
        for (i, c) in p.clusters.iter().enumerate() {
            if keys.contains(&c.key) {
                self.dirty.insert(i);
            }
        }
        if let Some(part) = self.parts.get_mut(u) {
            part.lens = new_lens;
        }
        true
    }

    /// The report's findings over the project: the units' own, the list
    /// caps', and the rules' (rerun where out of date), in the batch run's
    /// order; with the suppressions and notes of the units.
    pub(crate) fn findings(&mut self, selection: &Selection, settings: &Settings) -> Vec<Found> {
        let rules = rules(selection);
        let per_cluster: Vec<usize> = rules.iter().filter(|r| r.1).map(|r| r.0).collect();
        let project = &self.project;
        let dirty: Vec<usize> = std::mem::take(&mut self.dirty).into_iter().collect();
        let rerun: Vec<(usize, Vec<Vec<Diagnostic>>)> = dirty
            .par_iter()
            .map(|&i| {
                let ctx = Context {
                    project,
                    settings,
                    only: Some(i),
                };
                let found = per_cluster
                    .iter()
                    .map(|&r| {
                        let mut out = Vec::new();
                        if let Some(rule) = REGISTRY[r].rule {
                            rule.check(&ctx, &mut out);
                        }
                        out
                    })
                    .collect();
                (i, found)
            })
            .collect();
        for (i, found) in rerun {
            if let Some(slot) = self.found.get_mut(i) {
                *slot = found;
            }
        }
        let ctx = Context {
            project,
            settings,
            only: None,
        };
        let wide: Vec<Vec<Diagnostic>> = rules
            .par_iter()
            .map(|&(r, one)| {
                let mut out = Vec::new();
                if !one {
                    if let Some(rule) = REGISTRY[r].rule {
                        rule.check(&ctx, &mut out);
                    }
                }
                out
            })
            .collect();
        let mut all: Vec<Found> = self
            .capped
            .iter()
            .flatten()
            .map(|d| (None, d.clone()))
            .collect();
        let mut slot = 0;
        for ((_, one), wide) in rules.iter().zip(wide) {
            if *one {
                for (i, per) in self.found.iter().enumerate() {
                    let of = per.get(slot).into_iter().flatten();
                    all.extend(of.map(|d| (Some(i), d.clone())));
                }
                slot += 1;
            } else {
                all.extend(wide.into_iter().map(|d| (None, d)));
            }
        }
        all
    }
}

/// The units' own findings, suppressions and notes, in their order.
pub(crate) fn unit_extras<'a>(
    units: impl Iterator<Item = &'a Modelled>,
) -> (
    Vec<Diagnostic>,
    Vec<Suppression>,
    Vec<crate::notice::Notice>,
) {
    let (mut diagnostics, mut suppressions, mut notices) = (Vec::new(), Vec::new(), Vec::new());
    for m in units {
        diagnostics.extend(m.unit.diagnostics.iter().cloned());
        suppressions.extend(m.unit.suppressions.iter().cloned());
        notices.extend(m.notice.clone());
    }
    (diagnostics, suppressions, notices)
}

/// Recompute what has no cluster.
pub(crate) fn unassigned(project: &Project, sources: &Sources) -> assign::Unassigned {
    assign::Unassigned::of(project, sources)
}

/// A path without its `.` components.
fn plain(p: &std::path::Path) -> std::borrow::Cow<'_, std::path::Path> {
    if is_plain(p) {
        return std::borrow::Cow::Borrowed(p);
    }
    std::borrow::Cow::Owned(
        p.components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect(),
    )
}

/// Whether a path is already what collecting its components without `.`
/// makes of it: no `.` component, no doubled or trailing separator.
fn is_plain(p: &std::path::Path) -> bool {
    let b = p.as_os_str().as_encoded_bytes();
    cfg!(unix)
        && !b.is_empty()
        && !b.ends_with(b"/")
        && b != b"."
        && !b.starts_with(b"./")
        && !b.ends_with(b"/.")
        && memchr::memmem::find(b, b"//").is_none()
        && memchr::memmem::find(b, b"/./").is_none()
}

/// A cluster defined in module code outside the folder that runs it (a
/// shared module, a Terragrunt unit's source) is named by that folder in
/// messages: the module's file is the same for every call of it.
pub(crate) fn show_homes(
    project: &mut Project,
    homes: &[Option<std::path::PathBuf>],
    sources: &Sources,
) {
    for (c, home) in project.clusters.iter_mut().zip(homes) {
        let (Some(home), Some(f)) = (home, sources.peek(c.loc.span.file)) else {
            continue;
        };
        // `./envs/prod` and `envs/prod` are one folder; `.` holds every file.
        let home = plain(home);
        if home.as_os_str().is_empty()
            || fplint_core::path::under(&plain(std::path::Path::new(&f.path)), &home)
        {
            continue;
        }
        c.shown_file = Some(home.to_string_lossy().into_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::plain;
    use std::path::{Component, Path, PathBuf};

    #[test]
    fn a_plain_path_is_kept_as_collecting_its_components_would_make_it() {
        for p in [
            "",
            ".",
            "./a",
            "a/./b",
            "a//b",
            "a/",
            "a/.",
            "/a/b",
            "a/b",
            "/",
            "envs/prod",
            "../a",
            "a/../b",
            ".a/b",
            "a/.b",
        ] {
            let by_components: PathBuf = Path::new(p)
                .components()
                .filter(|c| !matches!(c, Component::CurDir))
                .collect();
            assert_eq!(
                plain(Path::new(p)).as_os_str(),
                by_components.as_os_str(),
                "{p}"
            );
        }
    }
}
