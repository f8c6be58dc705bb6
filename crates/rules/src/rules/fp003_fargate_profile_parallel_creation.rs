//! FP003 fargate-profile-parallel-creation.
//!
//! EKS creates or deletes one Fargate profile per cluster at a time; a second
//! create call fails with "Cannot create Fargate Profile X because cluster Y
//! currently has Fargate profile Z in status CREATING". A deployment engine
//! that creates resources in parallel (CloudFormation, the awscc provider)
//! must therefore see a dependency path between every two profiles of a
//! cluster. The rule reads only the model: profiles marked
//! `created_concurrently` with a node in their unit's dependency graph, and
//! profiles of runs a tool starts together (Terragrunt units) that do not
//! wait for each other.
//! Profiles that never exist together (exclusive conditions) cannot race.

use crate::common::add_dependency_fix;
use crate::{Context, Rule};
use fplint_core::model::{Cluster, FargateProfile, Project, Provisioner, ResourceRef, RunOrder};
use fplint_core::{Diagnostic, Severity};
use std::collections::HashSet;

/// `module.a` of `module.a.module.b.aws_x.y`; `None` outside modules.
fn top_module(address: &str) -> Option<&str> {
    let rest = address.strip_prefix("module.")?;
    let end = rest
        .find('.')
        .map_or(address.len(), |i| i + "module.".len());
    Some(&address[..end])
}

/// The FP003 rule, `fargate-profile-parallel-creation`: the module documentation says what it finds.
pub struct FargateProfileParallelCreation;

const CODE: &str = "FP003";
const MAX_RELATED: usize = 5;

impl Rule for FargateProfileParallelCreation {
    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for cluster in ctx.clusters() {
            check_cluster(ctx.project, cluster, out);
        }
    }
}

fn check_cluster(project: &Project, cluster: &Cluster, out: &mut Vec<Diagnostic>) {
    let run_of = |r: ResourceRef| {
        project
            .graphs
            .get(r.graph as usize)
            .and_then(|g| g.run.as_ref())
    };
    let mut profiles: Vec<(&FargateProfile, ResourceRef)> = cluster
        .fargate_profiles
        .iter()
        .filter_map(|p| Some((p, p.resource?)))
        .filter(|(p, r)| p.created_concurrently || run_of(*r).is_some())
        .collect();
    // The order of runs, read from every graph of the project, only for a
    // cluster whose profiles are made by such runs: rules run once per
    // cluster, and a project may hold thousands of both.
    let runs = if profiles.iter().any(|(_, r)| run_of(*r).is_some()) {
        Runs::new(project)
    } else {
        Runs::default()
    };
    // File order: the finding goes on the later profile of a pair.
    profiles.sort_by_key(|(p, _)| (p.loc.span.file, p.loc.span.start));
    // What each profile depends on, one graph walk per profile, so that a
    // template with very many profiles stays linear in its pairs.
    let wanted: HashSet<(u32, u32)> = profiles.iter().map(|(_, r)| (r.graph, r.node)).collect();
    let reach: Vec<Vec<u32>> = profiles
        .iter()
        .map(|(_, r)| reached_profiles(project, *r, &wanted))
        .collect();
    let ordered = |a: usize, b: usize| {
        reach[a].binary_search(&profiles[b].1.node).is_ok()
            || reach[b].binary_search(&profiles[a].1.node).is_ok()
    };
    for (j, (later, lr)) in profiles.iter().enumerate() {
        // Within one template or module, a dependency path orders them.
        // Other templates and modules are deployed separately, except runs
        // a tool starts together (Terragrunt units) unless one waits for
        // the other.
        let racers: Vec<&(&FargateProfile, ResourceRef)> = profiles[..j]
            .iter()
            .enumerate()
            .filter(|(i, (earlier, er))| {
                if er.graph == lr.graph {
                    later.created_concurrently
                        && earlier.created_concurrently
                        && !project.mutually_exclusive(*lr, *er)
                        && !ordered(*i, j)
                } else {
                    match (run_of(*lr), run_of(*er)) {
                        (Some(a), Some(b)) => a.dir != b.dir && !runs.overlap_ordered(a, b),
                        _ => false,
                    }
                }
            })
            .map(|(_, p)| p)
            .collect();
        let across_runs = racers.iter().any(|(_, er)| er.graph != lr.graph);
        // The nearest earlier racer: depending on it, once every profile
        // depends on the one before it, makes a chain.
        let Some(&&(nearest, nr)) = racers.last() else {
            continue;
        };
        // Runs of one module (Terragrunt units) share its resource
        // addresses: the profiles' own names tell them apart.
        let name_of = |p: &FargateProfile, r: ResourceRef| {
            if across_runs {
                p.display_name().to_string()
            } else {
                resource_name(project, r)
            }
        };
        let later_name = name_of(later, *lr);
        let nearest_name = name_of(nearest, nr);
        let others = racers.len() - 1;
        let also = match others {
            0 => String::new(),
            1 => " and 1 other profile".to_string(),
            n => format!(" and {n} other profiles"),
        };
        let fix = match cluster.provisioner {
            Provisioner::Terraform => format!("`depends_on = [{nearest_name}]`"),
            Provisioner::Cdk => format!(
                "a dependency on `{nearest_name}` (`node.addDependency`; Python: `node.add_dependency`)"
            ),
            Provisioner::Pulumi => {
                format!("`{nearest_name}` in its `dependsOn` (Python: `depends_on`)")
            }
            _ => format!("`DependsOn: {nearest_name}`"),
        };
        let mut help = match (top_module(&later_name), top_module(&nearest_name)) {
            _ if across_runs => {
                "make one of the two Terragrunt units wait for the other, with a `dependency` or `dependencies` block \
                 naming it, so that `terragrunt run --all` creates the profiles of the cluster one after another"
                    .to_string()
            }
            // Profiles in two module calls (or Terragrunt units): the calls
            // are what is ordered.
            (Some(l), Some(n)) if l != n && cluster.provisioner == Provisioner::Terraform => format!(
                "order `{l}` after `{n}` so that the profiles of the cluster are created one after another: \
                 add `depends_on = [{n}]` to its `module` block, or, for units of a Terragrunt stack, \
                 a `dependency` or `dependencies` block naming the other unit in the unit's configuration"
            ),
            _ => format!(
                "add {fix} to `{later_name}` so that the profiles of the cluster are created one after another"
            ),
        };
        if others > 0 {
            help.push_str(&format!(
                ", and order `{nearest_name}` after the profiles before it: a chain where each profile depends on the previous one"
            ));
        }
        let mut d = Diagnostic::new(
            CODE,
            Severity::Error,
            format!(
                "Fargate profile `{later_name}` may be created at the same time as `{nearest_name}`{also} of cluster {}; EKS rejects a profile while another profile of the cluster is being created",
                cluster.reference(later.loc.span.file)
            ),
            later.loc.span,
        )
        .with_label("no dependency orders this profile after the other")
        .with_path(later.loc.path.clone())
        .with_help(help);
        // Applied to every later profile, this builds the chain.
        if let Some(fix) = add_dependency_fix(project, cluster.provisioner, *lr, &nearest_name) {
            d = d.with_fix(fix);
        }
        // The nearest few are enough to find them.
        for (p, r) in racers.iter().rev().take(MAX_RELATED) {
            d = d.with_related(
                p.loc.span,
                format!("`{}` may be created at the same time", name_of(p, *r)),
            );
        }
        out.push(d);
    }
}

/// The runs of the project that a tool orders (Terragrunt units), by folder.
#[derive(Default)]
struct Runs<'a>(std::collections::HashMap<&'a std::path::Path, &'a [std::path::PathBuf]>);

impl<'a> Runs<'a> {
    fn new(project: &'a Project) -> Runs<'a> {
        Runs(
            project
                .graphs
                .iter()
                .filter_map(|g| g.run.as_ref())
                .map(|r| (r.dir.as_path(), r.after.as_slice()))
                .collect(),
        )
    }

    /// Whether `a` waits for `b`, directly or through other runs.
    fn waits(&self, a: &std::path::Path, b: &std::path::Path) -> bool {
        let mut seen = HashSet::new();
        let mut stack = vec![a];
        while let Some(d) = stack.pop() {
            for next in self.0.get(d).copied().unwrap_or(&[]) {
                if next == b {
                    return true;
                }
                if seen.insert(next.as_path()) {
                    stack.push(next);
                }
            }
        }
        false
    }

    /// Whether one of two runs waits for the other.
    fn overlap_ordered(&self, a: &RunOrder, b: &RunOrder) -> bool {
        self.waits(&a.dir, &b.dir) || self.waits(&b.dir, &a.dir)
    }
}

/// The profile nodes (of `profiles`) that `from` depends on, transitively:
/// the same answer as [`Project::depends_on`] for each of them.
fn reached_profiles(
    project: &Project,
    from: ResourceRef,
    wanted: &HashSet<(u32, u32)>,
) -> Vec<u32> {
    let Some(graph) = project.graphs.get(from.graph as usize) else {
        return Vec::new();
    };
    let mut seen = vec![false; graph.nodes.len()];
    let mut stack = vec![from.node];
    let mut out = Vec::new();
    while let Some(n) = stack.pop() {
        for &m in graph.direct(n) {
            if let Some(s) = seen.get_mut(m as usize) {
                if !*s {
                    *s = true;
                    stack.push(m);
                    if m != from.node && wanted.contains(&(from.graph, m)) {
                        out.push(m);
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// The logical name of a profile's resource (`ProfileB`).
fn resource_name(project: &Project, r: ResourceRef) -> String {
    project
        .graphs
        .get(r.graph as usize)
        .and_then(|g| g.nodes.get(r.node as usize))
        .map_or_else(|| "?".to_string(), |n| n.name.clone())
}

#[cfg(test)]
mod tests {
    #[test]
    fn top_modules() {
        assert_eq!(
            super::top_module("module.a.module.b.aws_x.y"),
            Some("module.a")
        );
        assert_eq!(
            super::top_module("module.unit_batch.aws_x.y"),
            Some("module.unit_batch")
        );
        assert_eq!(super::top_module("awscc_eks_fargate_profile.a"), None);
    }

    use crate::{Context, Settings, REGISTRY};
    use fplint_core::frontend::{absorb, load_document_file};
    use fplint_core::model::Project;
    use fplint_core::source::{FileId, SourceFile};
    use fplint_core::tree::Limits;
    use fplint_core::Diagnostic;
    use std::path::{Path, PathBuf};

    fn lint(path: &str, text: &str) -> Vec<Diagnostic> {
        let file = SourceFile::new(FileId(0), path, text);
        let unit = load_document_file(&file, Limits::default());
        let mut project = Project::default();
        let mut out = absorb(&mut project, unit);
        let settings = Settings::default();
        let ctx = Context {
            project: &project,
            settings: &settings,
            only: None,
        };
        for r in REGISTRY.iter().filter_map(|r| r.rule) {
            r.check(&ctx, &mut out);
        }
        out
    }

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn codes(d: &[Diagnostic]) -> Vec<&str> {
        d.iter().map(|d| d.code).collect()
    }

    #[test]
    fn fixtures_fire_and_stay_quiet() {
        let mut checked = 0;
        for code in ["FP000", "FP003", "FP004"] {
            let dir = root().join("tests/fixtures").join(code);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
            paths.sort();
            for p in paths {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                if !(name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")) {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                let d = lint(name, &text);
                let fired = d.iter().any(|d| d.code == code);
                if name.starts_with("fire_") {
                    assert!(fired, "{code}/{name} should fire: {:?}", codes(&d));
                } else if name.starts_with("quiet_") {
                    assert!(!fired, "{code}/{name} should be quiet: {d:#?}");
                }
                checked += 1;
            }
        }
        assert!(checked >= 30, "only {checked} fixtures");
    }

    /// Each ```yaml bad / ```json bad block of a rule's doc makes it fire,
    /// each good block keeps it quiet.
    #[test]
    fn doc_examples() {
        for code in ["FP003", "FP004"] {
            let doc = std::fs::read_to_string(root().join(format!("rules/{code}.md"))).unwrap();
            let mut lines = doc.lines();
            let mut seen = 0;
            while let Some(line) = lines.next() {
                let Some(info) = line.strip_prefix("```") else {
                    continue;
                };
                let mut words = info.split_whitespace();
                let (Some(lang), Some(kind)) = (words.next(), words.next()) else {
                    continue;
                };
                let block: Vec<&str> = lines
                    .by_ref()
                    .take_while(|l| !l.starts_with("```"))
                    .collect();
                let ext = match lang {
                    "yaml" => "yaml",
                    "json" => "json",
                    _ => continue,
                };
                let d = lint(&format!("example.{ext}"), &(block.join("\n") + "\n"));
                assert!(
                    !d.iter().any(|d| d.code == "FP000"),
                    "{code} {lang} {kind}: {d:#?}"
                );
                let fired = d.iter().any(|d| d.code == code);
                match kind {
                    "bad" => assert!(fired, "{code} {lang} bad example is quiet"),
                    "good" => assert!(!fired, "{code} {lang} good example fires: {d:#?}"),
                    _ => continue,
                }
                seen += 1;
            }
            assert!(seen >= 2, "{code}: {seen} examples");
        }
    }

    #[test]
    fn finding_points_at_the_later_profile_with_the_chain_to_add() {
        let t =
            std::fs::read_to_string(root().join("tests/fixtures/FP003/fire_partial_chain.yaml"))
                .unwrap();
        let d: Vec<Diagnostic> = lint("t.yaml", &t)
            .into_iter()
            .filter(|d| d.code == "FP003")
            .collect();
        assert_eq!(d.len(), 1, "{d:#?}");
        let d = &d[0];
        assert_eq!(&t[d.span.range()], "ProfileC");
        assert_eq!(d.path.as_deref(), Some("Resources.ProfileC"));
        assert!(
            d.message.contains("`ProfileB` and 1 other profile"),
            "{}",
            d.message
        );
        assert!(d.help.as_deref().unwrap().contains("`DependsOn: ProfileB`"));
        let related: Vec<&str> = d.related.iter().map(|r| &t[r.span.range()]).collect();
        assert_eq!(related, ["ProfileB", "ProfileA"]);
    }

    #[test]
    fn three_racing_profiles_get_one_finding_each_but_the_first() {
        let t = "Resources:\n  A:\n    Type: AWS::EKS::FargateProfile\n    Properties: {ClusterName: c, Selectors: [{Namespace: a}]}\n  \
                 B:\n    Type: AWS::EKS::FargateProfile\n    Properties: {ClusterName: c, Selectors: [{Namespace: b}]}\n  \
                 C:\n    Type: AWS::EKS::FargateProfile\n    Properties: {ClusterName: c, Selectors: [{Namespace: c}]}\n";
        let d: Vec<Diagnostic> = lint("t.yaml", t)
            .into_iter()
            .filter(|d| d.code == "FP003")
            .collect();
        let at: Vec<&str> = d.iter().map(|d| &t[d.span.range()]).collect();
        assert_eq!(at, ["B", "C"]);
        assert!(d[0]
            .help
            .as_deref()
            .unwrap()
            .contains("`DependsOn: A` to `B`"));
        assert!(d[1]
            .help
            .as_deref()
            .unwrap()
            .contains("`DependsOn: B` to `C`"));
    }

    #[test]
    fn cloudformation_examples() {
        let dir = root().join("examples/cloudformation");
        let race = std::fs::read_to_string(dir.join("fargate-race.yaml")).unwrap();
        let d = lint("fargate-race.yaml", &race);
        let at: Vec<(&str, &str)> = d.iter().map(|d| (d.code, &race[d.span.range()])).collect();
        assert_eq!(at, [("FP003", "AppsProfile"), ("FP003", "JobsProfile")]);
        let fixed = std::fs::read_to_string(dir.join("fixed/fargate-chain.yaml")).unwrap();
        let d = lint("fargate-chain.yaml", &fixed);
        assert!(d.is_empty(), "{d:#?}");
    }

    /// Far beyond any real template: findings stay small (one per later
    /// profile, a few related spans each). Speed is in the criterion benches.
    #[test]
    fn many_profiles_stay_cheap() {
        let mut t = String::from("Resources:\n");
        for i in 0..1500 {
            t.push_str(&format!(
                "  P{i}:\n    Type: AWS::EKS::FargateProfile\n    Condition: C{i}\n    \
                 Properties: {{ClusterName: c, Selectors: [{{Namespace: n{i}}}]}}\n"
            ));
        }
        let d: Vec<Diagnostic> = lint("t.yaml", &t)
            .into_iter()
            .filter(|d| d.code == "FP003")
            .collect();
        assert_eq!(d.len(), 1499);
        assert!(d.iter().all(|d| d.related.len() <= 5));
    }
}
