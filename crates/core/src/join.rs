//! One cluster described in several places: two eksctl configs with the same
//! `metadata.name` and `metadata.region` (a copy per pipeline), a profile-only
//! eksctl file for `eksctl create fargateprofile`, a Terraform or
//! CloudFormation profile that names a cluster defined elsewhere, a
//! Terraform root that deploys into a cluster another root defines. Each unit
//! is modelled alone; this joins them once every unit is in the project, so
//! rules see one cluster and manifests can belong to it.

use crate::model::{Capacity, Cluster, FargateProfile, Known, Project, Provisioner, RootReference};
use crate::source::FileId;
use rustc_hash::FxHashMap as HashMap;

/// What [`join_clusters`] did, for a caller that keeps the project and
/// splices units in and out of it later.
#[derive(Clone, Debug, Default)]
pub struct Joined {
    /// For each cluster before the join, by index, the index of the
    /// cluster it is (or is part of) after it.
    pub into: Vec<usize>,
    /// For each cluster after the join, by index, its index before it.
    pub kept: Vec<usize>,
    /// Whether any cluster was joined into another.
    pub any: bool,
    /// The keys of clusters joined away, and the key each now goes by.
    pub rekey: std::collections::HashMap<String, String>,
}

impl Joined {
    /// What was known per cluster before the join (by index), for the
    /// clusters after it: each keeps its own.
    pub fn remap<T: Clone>(&self, before: &[T]) -> Vec<Option<T>> {
        self.kept.iter().map(|&i| before.get(i).cloned()).collect()
    }
}

/// Join the clusters of `project` that describe the same cluster, knowing
/// nothing of where files lie: a partial config joins a definition only
/// when exactly one fits.
pub fn join_clusters(project: &mut Project) -> Joined {
    join_clusters_near(project, &|_| None)
}

/// Join the clusters of `project` that describe the same cluster.
/// `folder` gives the folder of a file, as `/`-separated components, so a
/// partial config joins the definition nearest it.
///
/// Whole definitions (what `eksctl create cluster -f` reads) join only
/// their identical copies: two versions of one cluster (a broken and a
/// fixed one, a variant) stay two clusters, each with its own parts.
/// Partial configs (profiles for `eksctl create fargateprofile`, node
/// groups for `eksctl create nodegroup`, a profile resource naming a
/// cluster) join the nearest definition of their cluster. What is decided
/// depends on no file's name or place in the run, only on folders.
pub fn join_clusters_near(
    project: &mut Project,
    folder: &dyn Fn(FileId) -> Option<Vec<String>>,
) -> Joined {
    let sigs = project.clusters.iter().map(|c| signature(c)).collect();
    join_clusters_with(project, sigs, folder)
}

/// Everything a whole eksctl definition says, without where it says it, by
/// which its identical copies are found; `None` for any other cluster, and
/// when a profile is not fully known (unknowns are never the same). One
/// cluster's alone, so a caller may make them on several threads.
pub fn signature(c: &Cluster) -> Option<String> {
    if c.provisioner != Provisioner::Eksctl || !c.defined {
        return None;
    }
    cluster_sig(c)
}

/// [`join_clusters_near`], given the [`signature`] of each cluster by index.
pub fn join_clusters_with(
    project: &mut Project,
    sigs: Vec<Option<String>>,
    folder: &dyn Fn(FileId) -> Option<Vec<String>>,
) -> Joined {
    let joined = join_parts(project, &sigs, folder);
    distinct_keys(project);
    serve_stray_capacity(project);
    joined
}

/// Capacity whose cluster is not known may be any cluster's it could
/// serve: theirs is unknown, unless declared.
fn serve_stray_capacity(project: &mut Project) {
    if project.stray_capacity.is_empty() {
        return;
    }
    for c in &mut project.clusters {
        if matches!(c.capacity, Capacity::Declared(_)) {
            continue;
        }
        if project.stray_capacity.iter().any(|s| s.may_serve(c)) {
            c.capacity = Capacity::Unknown;
        }
    }
}

fn join_parts(
    project: &mut Project,
    sigs: &[Option<String>],
    folder: &dyn Fn(FileId) -> Option<Vec<String>>,
) -> Joined {
    let n = project.clusters.len();
    // `into[i] = Some(j)`: cluster i is joined into cluster j, a root.
    let mut into: Vec<Option<usize>> = vec![None; n];

    // Identical copies of one eksctl definition: one cluster, kept at the
    // first copy.
    let mut copies: HashMap<&str, usize> = HashMap::default();
    for (i, sig) in sigs.iter().enumerate().take(n) {
        let Some(sig) = sig else { continue };
        match copies.get(sig.as_str()) {
            Some(&j) => into[i] = Some(j),
            None => {
                copies.insert(sig, i);
            }
        }
    }

    steps(project, &mut into, folder);

    // Every partial or referenced cluster joins the nearest definition of
    // its name (and region, where both say) that it does not contradict.
    // Definitions by name and by place, in cluster order. The loop below
    // joins only partial clusters, so these do not change while it runs.
    let mut defined_by_name: HashMap<&str, Vec<usize>> = HashMap::default();
    let mut defined_at: HashMap<crate::Span, Vec<usize>> = HashMap::default();
    for (i, c) in project.clusters.iter().enumerate() {
        if c.defined && into[i].is_none() {
            if let Some(name) = c.name.known() {
                defined_by_name.entry(name.as_str()).or_default().push(i);
            }
            defined_at.entry(c.loc.span).or_default().push(i);
        }
    }
    // Made only for clusters that more than one definition could take.
    let folders: Vec<std::cell::OnceCell<Option<Vec<String>>>> = vec![Default::default(); n];
    let folder_of = |j: usize| {
        folders
            .get(j)?
            .get_or_init(|| folder(project.clusters[j].loc.span.file))
            .as_deref()
    };
    // Partial eksctl configs no definition takes: one fragment per name and
    // region.
    let mut fragments: HashMap<(&str, Option<&str>), Vec<usize>> = HashMap::default();
    let mut stray_addons = false;
    for (i, c) in project.clusters.iter().enumerate() {
        if c.defined {
            continue;
        }
        // Another Terraform root's cluster, named through that root's
        // outputs: the definition at that place, when the run has it.
        if let Some(RootReference::Definition(at)) = c.root_reference {
            // Clusters of one module's code that several roots call are
            // told apart by name.
            let there: Vec<usize> = defined_at
                .get(&at)
                .into_iter()
                .flatten()
                .copied()
                .filter(
                    |&j| match (c.name.known(), project.clusters[j].name.known()) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    },
                )
                .collect();
            if let [j] = there.as_slice() {
                into[i] = Some(*j);
            }
            continue;
        }
        let Some(name) = c.name.known() else { continue };
        let candidates: Vec<usize> = defined_by_name
            .get(name.as_str())
            .into_iter()
            .flatten()
            .copied()
            .filter(|&j| match (region(c), region(&project.clusters[j])) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            })
            .filter(|&j| compatible(c, &project.clusters[j]))
            .collect();
        // A root naming a cluster by its name alone: the one cluster of that
        // name, or none. What it adds may then be any of them.
        if c.root_reference == Some(RootReference::Name) {
            match candidates.as_slice() {
                [j] => into[i] = Some(*j),
                [] => {}
                _ => stray_addons |= !c.addons.is_empty() || c.addons_incomplete,
            }
            continue;
        }
        if let Some(j) = nearest(&candidates, i, &folder_of) {
            into[i] = Some(j);
        } else if candidates.is_empty() && c.provisioner == Provisioner::Eksctl {
            fragments
                .entry((name.as_str(), region(c)))
                .or_default()
                .push(i);
        }
    }
    // They join when no two contradict each other, whatever their order.
    for group in fragments.values() {
        let agree = group.iter().enumerate().all(|(k, &a)| {
            group[k + 1..]
                .iter()
                .all(|&b| compatible(&project.clusters[a], &project.clusters[b]))
        });
        if let (true, [first, rest @ ..]) = (agree, group.as_slice()) {
            for &i in rest {
                into[i] = Some(*first);
            }
        }
    }

    project.stray_addons |= stray_addons;
    if into.iter().all(Option::is_none) {
        return Joined {
            into: (0..n).collect(),
            kept: (0..n).collect(),
            any: false,
            rekey: std::collections::HashMap::new(),
        };
    }
    // Follow chains (a fragment joined into a second fragment that itself
    // joins a definition) to the cluster that stays.
    let root = |mut i: usize| {
        let mut steps = 0;
        while let Some(j) = into[i] {
            if steps > n {
                break;
            }
            i = j;
            steps += 1;
        }
        i
    };
    let targets: Vec<usize> = (0..n).map(root).collect();
    let mut clusters: Vec<Option<Box<Cluster>>> = std::mem::take(&mut project.clusters)
        .into_iter()
        .map(Some)
        .collect();
    let mut rekey: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for i in 0..n {
        let t = targets[i];
        if t == i {
            continue;
        }
        let Some(from) = clusters[i].take() else {
            continue;
        };
        if let Some(Some(to)) = clusters.get_mut(t) {
            if from.key != to.key {
                rekey.insert(from.key.clone(), to.key.clone());
            }
            merge(to, *from);
        }
    }
    // Where each cluster that stays lands once the others are gone.
    let mut after = vec![0; n];
    let mut kept = 0;
    for (i, c) in clusters.iter().enumerate() {
        after[i] = kept;
        if c.is_some() {
            kept += 1;
        }
    }
    let into = targets.iter().map(|&t| after[t]).collect();
    let kept = (0..n).filter(|&i| clusters[i].is_some()).collect();
    project.clusters = clusters.into_iter().flatten().collect();
    if !rekey.is_empty() {
        let fix = |k: &mut Option<String>| {
            if let Some(new) = k.as_ref().and_then(|old| rekey.get(old)) {
                *k = Some(new.clone());
            }
        };
        project
            .workloads
            .iter_mut()
            .for_each(|w| fix(&mut w.cluster_key));
        project
            .aws_auth
            .iter_mut()
            .for_each(|a| fix(&mut a.cluster_key));
        project
            .pod_identities
            .iter_mut()
            .for_each(|a| fix(&mut a.cluster_key));
    }
    dedup_pod_identities(project);
    Joined {
        into,
        kept,
        any: true,
        rekey,
    }
}

/// The separator of a cluster's key and what tells it from another cluster
/// of the same name; never in a cluster name.
pub const KEY_SEPARATOR: char = '\u{0}';

/// Give each cluster its own key: clusters of one name that stay apart (two
/// regions, two versions of one config) are two clusters. What named the
/// shared key goes to the cluster described in its file, or to none, for
/// assignment to decide.
fn distinct_keys(project: &mut Project) {
    let mut count: HashMap<&str, usize> = HashMap::default();
    for c in &project.clusters {
        *count.entry(c.key.as_str()).or_default() += 1;
    }
    let shared: rustc_hash::FxHashSet<String> = count
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(k, _)| k.to_string())
        .collect();
    if shared.is_empty() {
        return;
    }
    // (old key, file) -> new key, for every file that describes the cluster.
    let mut by_file: HashMap<(String, FileId), String> = HashMap::default();
    for c in &mut project.clusters {
        if !shared.contains(&c.key) {
            continue;
        }
        let old = std::mem::take(&mut c.key);
        c.key = format!(
            "{old}{KEY_SEPARATOR}{}:{}",
            c.loc.span.file.0, c.loc.span.start
        );
        for at in std::iter::once(&c.loc).chain(&c.also_described_at) {
            by_file
                .entry((old.clone(), at.span.file))
                .or_insert_with(|| c.key.clone());
        }
    }
    let fix = |k: &mut Option<String>, file: FileId| {
        if let Some(old) = k.as_ref().filter(|k| shared.contains(*k)) {
            *k = by_file.get(&(old.clone(), file)).cloned();
        }
    };
    for w in &mut project.workloads {
        fix(&mut w.cluster_key, w.loc.span.file);
    }
    for a in &mut project.aws_auth {
        fix(&mut a.cluster_key, a.loc.span.file);
    }
    for a in &mut project.pod_identities {
        fix(&mut a.cluster_key, a.loc.span.file);
    }
}

/// Whole eksctl definitions of one name and region in one folder that
/// each add their own part (one file the node groups, another the Fargate
/// profiles, each repeating `metadata` and `vpc` as `eksctl create
/// nodegroup -f` and `create fargateprofile -f` need) are the steps of one
/// cluster: they join, whatever the files are called. Two that both say
/// which profiles (or which node groups) the cluster has, or write two
/// Kubernetes versions, are two versions of it and stay apart. A group
/// joins only when no two of its definitions contradict each other.
fn steps(
    project: &Project,
    into: &mut [Option<usize>],
    folder: &dyn Fn(FileId) -> Option<Vec<String>>,
) {
    let whole = |i: usize, c: &Cluster| {
        c.provisioner == Provisioner::Eksctl && c.defined && into[i].is_none()
    };
    // Folders are asked only for names two definitions share.
    let mut named: HashMap<(&str, Option<&str>), usize> = HashMap::default();
    for (i, c) in project.clusters.iter().enumerate() {
        if let (true, Some(name)) = (whole(i, c), c.name.known()) {
            *named.entry((name.as_str(), region(c))).or_default() += 1;
        }
    }
    if named.values().all(|&n| n < 2) {
        return;
    }
    type Group<'a> = (&'a str, Option<&'a str>, Vec<String>);
    let mut groups: HashMap<Group, Vec<usize>> = HashMap::default();
    for (i, c) in project.clusters.iter().enumerate() {
        if !whole(i, c) {
            continue;
        }
        let Some(name) = c.name.known() else { continue };
        if named.get(&(name.as_str(), region(c))) < Some(&2) {
            continue;
        }
        let Some(dir) = folder(c.loc.span.file) else {
            continue;
        };
        groups
            .entry((name.as_str(), region(c), dir))
            .or_default()
            .push(i);
    }
    for group in groups.values().filter(|g| g.len() > 1) {
        let agree = group.iter().enumerate().all(|(k, &a)| {
            group[k + 1..]
                .iter()
                .all(|&b| step_of_one(&project.clusters[a], &project.clusters[b]))
        });
        if let (true, [first, rest @ ..]) = (agree, group.as_slice()) {
            for &i in rest {
                into[i] = Some(*first);
            }
        }
    }
}

/// Whether two definitions can be two steps of one cluster: they do not
/// both declare profiles or node groups, and say nothing the other
/// contradicts.
fn step_of_one(a: &Cluster, b: &Cluster) -> bool {
    let profiles = |c: &Cluster| !c.fargate_profiles.is_empty() || c.profiles_incomplete;
    let nodes = |c: &Cluster| !c.node_groups.is_empty() || !matches!(c.capacity, Capacity::None);
    let text = |v: &Option<crate::model::Located<String>>| v.as_ref().map(|l| l.known().cloned());
    let same_or_one = |x: Option<Option<String>>, y: Option<Option<String>>| match (x, y) {
        (Some(x), Some(y)) => x.is_some() && x == y,
        _ => true,
    };
    let both = |has: &dyn Fn(&Cluster) -> bool| has(a) && has(b);
    !both(&profiles)
        && !both(&nodes)
        && same_or_one(text(&a.version), text(&b.version))
        && same_or_one(text(&a.karpenter_version), text(&b.karpenter_version))
        && compatible(a, b)
}

/// Parts of one cluster never define a profile name twice, differently: two
/// configs that do are alternatives (a broken and a fixed version), not one
/// cluster described in two files.
fn compatible(a: &Cluster, b: &Cluster) -> bool {
    a.fargate_profiles.iter().all(|p| {
        let Some(name) = p.name.known() else {
            return true;
        };
        b.fargate_profiles
            .iter()
            .filter(|q| q.name.known() == Some(name))
            .all(|q| {
                let sig = profile_sig(p);
                sig.is_some() && sig == profile_sig(q)
            })
    })
}

/// Of `candidates`, the one whose folder shares the most leading folders
/// with `from`; `None` when two share as many (or nothing tells them apart).
fn nearest<'f>(
    candidates: &[usize],
    from: usize,
    folder_of: &dyn Fn(usize) -> Option<&'f [String]>,
) -> Option<usize> {
    if let [only] = candidates {
        return Some(*only);
    }
    let from = folder_of(from)?;
    let shared = |j: usize| {
        folder_of(j).map_or(0, |f| {
            f.iter().zip(from).take_while(|(a, b)| a == b).count()
        })
    };
    let best = candidates.iter().map(|&j| shared(j)).max()?;
    match candidates
        .iter()
        .filter(|&&j| shared(j) == best)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [one] => Some(**one),
        _ => None,
    }
}

/// Everything a whole definition says, without where it says it; `None`
/// when a profile is not fully known (unknowns are never the same).
fn cluster_sig(c: &Cluster) -> Option<String> {
    let mut profiles: Vec<String> = c
        .fargate_profiles
        .iter()
        .map(profile_sig)
        .collect::<Option<_>>()?;
    profiles.sort();
    let mut groups: Vec<String> = c
        .node_groups
        .iter()
        .map(|g| Some(format!("{}:{}", g.name.known()?, g.managed)))
        .collect::<Option<_>>()?;
    groups.sort();
    let mut addons: Vec<String> = c
        .addons
        .iter()
        .map(|a| a.name.known().cloned())
        .collect::<Option<_>>()?;
    addons.sort();
    let text = |v: &Option<crate::model::Located<String>>| {
        v.as_ref()
            .map_or(Some(String::new()), |l| l.known().cloned())
    };
    Some(format!(
        "{}\u{0}{}\u{0}{}\u{0}{:?}\u{0}{:?}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}",
        c.name.known()?,
        text(&c.region)?,
        text(&c.version)?,
        std::mem::discriminant(&c.capacity),
        c.authentication_mode,
        text(&c.karpenter_version)?,
        c.profiles_incomplete,
        profiles.join("\u{1}"),
        groups.join("\u{1}"),
        addons.join("\u{1}"),
    ))
}

fn region(c: &Cluster) -> Option<&str> {
    c.region.as_ref()?.known().map(String::as_str)
}

/// Move what `from` describes into `to`; identical copies count once.
fn merge(to: &mut Cluster, mut from: Cluster) {
    to.also_described_at.push(from.loc.clone());
    to.also_described_at.append(&mut from.also_described_at);
    to.capacity = match (&to.capacity, &from.capacity) {
        (Capacity::Declared(_), _) => to.capacity.clone(),
        (_, Capacity::Declared(_)) => from.capacity.clone(),
        // A root that deploys into the cluster and may add nodes to it (a
        // module not read) leaves its capacity unknown.
        _ if from.root_reference.is_some() && from.root_may_add_nodes => Capacity::Unknown,
        // What is only referenced says nothing about the cluster's capacity.
        _ if !from.defined => to.capacity.clone(),
        _ if !to.defined => from.capacity.clone(),
        (Capacity::None, Capacity::None) => Capacity::None,
        _ => Capacity::Unknown,
    };
    if from.defined && !to.defined {
        to.loc = from.loc.clone();
    }
    to.defined |= from.defined;
    to.profiles_incomplete |= from.profiles_incomplete;
    if from.root_reference.is_some() {
        // What another root deploys into the cluster is the cluster's too.
        to.addons_incomplete |= from.addons_incomplete;
        to.coredns_patch = match (&to.coredns_patch, &from.coredns_patch) {
            (Known::Known(Some(_)), _) => to.coredns_patch.clone(),
            (_, Known::Known(Some(_))) => from.coredns_patch.clone(),
            (Known::Known(None), Known::Known(None)) => Known::Known(None),
            _ => Known::Unknown,
        };
    }
    if to.region.is_none() {
        to.region = from.region.take();
    }
    if to.version.is_none() {
        to.version = from.version.take();
    }
    if to.karpenter_version.is_none() {
        to.karpenter_version = from.karpenter_version.take();
    }
    if !to.authentication_mode.is_known() {
        to.authentication_mode = std::mem::take(&mut from.authentication_mode);
    }
    // Profile indices of `from` in `to`, for its execution roles.
    let mut index = Vec::with_capacity(from.fargate_profiles.len());
    for p in from.fargate_profiles {
        let same = profile_sig(&p).and_then(|sig| {
            to.fargate_profiles
                .iter()
                .position(|q| profile_sig(q).as_ref() == Some(&sig))
        });
        match same {
            Some(k) => index.push(k),
            None => {
                index.push(to.fargate_profiles.len());
                to.fargate_profiles.push(p);
            }
        }
    }
    for mut role in from.execution_roles {
        for p in &mut role.profiles {
            *p = index.get(*p).copied().unwrap_or(*p);
        }
        to.execution_roles.push(role);
    }
    for ng in from.node_groups {
        let dup = ng.name.known().is_some_and(|n| {
            to.node_groups
                .iter()
                .any(|o| o.name.known() == Some(n) && o.managed == ng.managed)
        });
        if !dup {
            to.node_groups.push(ng);
        }
    }
    for a in from.addons {
        let dup = a
            .name
            .known()
            .is_some_and(|n| to.addons.iter().any(|o| o.name.known() == Some(n)));
        if !dup {
            to.addons.push(a);
        }
    }
    to.helm_releases.append(&mut from.helm_releases);
    to.calls.append(&mut from.calls);
    to.calls.sort_by_key(|s| (s.file, s.start, s.end));
    to.calls.dedup();
}

/// What a profile says, without where it says it; `None` when a part is
/// unknown (two unknowns are never the same profile).
fn profile_sig(p: &FargateProfile) -> Option<String> {
    let name = p.name.known()?;
    let mut s = String::with_capacity(name.len() + 64);
    s.push_str(name);
    s.push('\u{0}');
    for sel in p.selectors.known()? {
        s.push_str(sel.namespace.known()?);
        for (k, v) in sel.known_labels()? {
            s.push('\u{1}');
            s.push_str(k);
            s.push('=');
            s.push_str(v);
        }
        s.push('\u{2}');
    }
    for sub in p.subnets.known()? {
        s.push_str(sub.id.known()?);
        s.push('\u{3}');
    }
    if let Some(r) = &p.pod_execution_role {
        s.push_str(r.known()?);
    }
    Some(s)
}

/// The same association written in two copies of one config counts once.
fn dedup_pod_identities(project: &mut Project) {
    let mut seen: HashMap<(String, String, String), crate::source::FileId> = HashMap::default();
    project.pod_identities.retain(|a| {
        let (Some(key), Known::Known(ns), Known::Known(sa)) = (
            a.cluster_key.as_ref(),
            &a.namespace.value,
            &a.service_account.value,
        ) else {
            return true;
        };
        let id = (key.clone(), ns.clone(), sa.clone());
        match seen.get(&id) {
            Some(&file) => file == a.loc.span.file,
            None => {
                seen.insert(id, a.loc.span.file);
                true
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{absorb, load_document_file};
    use crate::source::{FileId, SourceFile};
    use crate::tree::Limits;

    fn project(files: &[&str]) -> Project {
        let mut p = Project::default();
        for (i, text) in files.iter().enumerate() {
            let f = SourceFile::new(FileId(i as u32), format!("f{i}.yaml"), *text);
            absorb(&mut p, load_document_file(&f, Limits::default()));
        }
        join_clusters(&mut p);
        p
    }

    const CLUSTER: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: prod, region: eu-west-1}\niam: {withOIDC: true}\nfargateProfiles:\n  - name: system\n    selectors: [{namespace: kube-system}]\n";
    const PROFILES: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: prod, region: eu-west-1}\nfargateProfiles:\n  - name: apps\n    selectors: [{namespace: apps}]\n";

    #[test]
    fn identical_copies_are_one_cluster() {
        let p = project(&[CLUSTER, CLUSTER]);
        assert_eq!(p.clusters.len(), 1);
        assert_eq!(p.clusters[0].fargate_profiles.len(), 1);
        assert_eq!(p.clusters[0].capacity, Capacity::None);
        assert_eq!(p.clusters[0].also_described_at.len(), 1);
    }

    #[test]
    fn a_profile_only_file_joins_its_cluster() {
        let p = project(&[PROFILES, CLUSTER]);
        assert_eq!(p.clusters.len(), 1);
        let c = &p.clusters[0];
        assert!(c.defined);
        assert_eq!(
            c.loc.span.file,
            FileId(1),
            "the definition is the cluster's place"
        );
        assert_eq!(c.fargate_profiles.len(), 2);
        assert_eq!(c.capacity, Capacity::None);
    }

    #[test]
    fn a_profile_only_file_alone_stays_a_fragment() {
        let p = project(&[PROFILES]);
        assert_eq!(p.clusters.len(), 1);
        assert!(!p.clusters[0].defined);
    }

    #[test]
    fn other_regions_stay_apart() {
        let other = CLUSTER.replace("eu-west-1", "us-east-1");
        let p = project(&[CLUSTER, &other]);
        assert_eq!(p.clusters.len(), 2);
        let frag = PROFILES.replace("eu-west-1", "us-east-1");
        let p = project(&[CLUSTER, &frag]);
        assert_eq!(p.clusters.len(), 2, "a fragment for another region");
    }

    #[test]
    fn alternative_versions_stay_apart() {
        let fixed = CLUSTER.replace("kube-system}", "kube-system, labels: {a: b}}");
        let p = project(&[CLUSTER, &fixed]);
        assert_eq!(p.clusters.len(), 2, "one profile name, two meanings");
    }

    const NODES: &str = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: prod, region: eu-west-1}\nmanagedNodeGroups: [{name: ng}]\n";

    #[test]
    fn a_node_group_only_file_joins_its_cluster() {
        let p = project(&[NODES, CLUSTER]);
        assert_eq!(p.clusters.len(), 1);
        assert!(p.clusters[0].defined);
        assert!(matches!(p.clusters[0].capacity, Capacity::Declared(_)));
    }

    #[test]
    fn two_whole_versions_stay_two_clusters() {
        // The second adds node groups: a variant, not a part.
        let with_nodes = format!("{CLUSTER}managedNodeGroups: [{{name: ng}}]\n");
        let p = project(&[CLUSTER, &with_nodes]);
        assert_eq!(p.clusters.len(), 2);
        assert_ne!(p.clusters[0].key, p.clusters[1].key, "distinct keys");
        assert_eq!(p.clusters[0].display_name(), "prod");
    }

    /// Every order of the same files: the same clusters, profiles and capacity.
    #[test]
    fn the_order_of_files_changes_nothing() {
        let other = PROFILES.replace("apps}", "other}");
        let variant = CLUSTER.replace("kube-system}", "kube-system, labels: {a: b}}");
        let files = [CLUSTER, PROFILES, NODES, &other, &variant];
        let shape = |p: &Project| {
            let mut v: Vec<String> = p
                .clusters
                .iter()
                .map(|c| {
                    let mut names: Vec<String> = c
                        .fargate_profiles
                        .iter()
                        .map(|f| format!("{:?}", profile_sig(f)))
                        .collect();
                    names.sort();
                    format!(
                        "{} {} {:?} {names:?}",
                        c.defined,
                        c.node_groups.len(),
                        std::mem::discriminant(&c.capacity)
                    )
                })
                .collect();
            v.sort();
            v
        };
        let first = shape(&project(&files));
        let mut order: Vec<usize> = (0..files.len()).collect();
        // Every rotation and its reverse.
        for r in 0..files.len() {
            order.rotate_left(1);
            let texts: Vec<&str> = order.iter().map(|&i| files[i]).collect();
            assert_eq!(shape(&project(&texts)), first, "rotation {r}");
            let rev: Vec<&str> = texts.iter().rev().copied().collect();
            assert_eq!(shape(&project(&rev)), first, "reversed rotation {r}");
        }
    }

    #[test]
    fn a_cloudformation_profile_joins_by_literal_name() {
        let cfn = "Resources:\n  Apps:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: prod\n      PodExecutionRoleArn: arn:aws:iam::111122223333:role/pods\n      Selectors: [{Namespace: apps}]\n";
        let p = project(&[CLUSTER, cfn]);
        assert_eq!(p.clusters.len(), 1);
        assert_eq!(p.clusters[0].fargate_profiles.len(), 2);
        let two = CLUSTER.replace("eu-west-1", "us-east-1");
        let p = project(&[CLUSTER, &two, cfn]);
        assert_eq!(p.clusters.len(), 3, "two clusters of that name: no join");
    }
}
