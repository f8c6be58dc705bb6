//! Findings from a Terraform plan (`terraform show -json`) when the `.tf`
//! sources it was made from are in the same run: each moves to the block
//! its resource is written in, with its place in the plan related.

use fplint_core::diagnostic::Related;
use fplint_core::model::{PlannedResource, Project, TerraformBlock};
use fplint_core::{Diagnostic, FileId, Span};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Move each finding located in a plan to its resource's block in the
/// sources; a finding the sources already report in that block is dropped.
pub fn place(diagnostics: &mut Vec<Diagnostic>, project: &Project) {
    if project.planned.is_empty() || project.terraform_blocks.is_empty() {
        return;
    }
    let mut plans: BTreeMap<FileId, Vec<&PlannedResource>> = BTreeMap::new();
    for p in &project.planned {
        plans.entry(p.span.file).or_default().push(p);
    }
    let mut roots: BTreeMap<&str, HashMap<&str, &TerraformBlock>> = BTreeMap::new();
    for b in &project.terraform_blocks {
        roots
            .entry(b.root.as_str())
            .or_default()
            .entry(b.address.as_str())
            .or_insert(b);
    }
    // Each plan's root: the one whose blocks hold most of its resources.
    let mut root_of: HashMap<FileId, &HashMap<&str, &TerraformBlock>> = HashMap::new();
    for (file, entries) in &plans {
        let scored: Vec<(usize, &HashMap<&str, &TerraformBlock>)> = roots
            .values()
            .map(|blocks| {
                let n = entries
                    .iter()
                    .filter(|e| block_of(blocks, &e.config).is_some())
                    .count();
                (n, blocks)
            })
            .collect();
        let best = scored.iter().map(|(n, _)| *n).max().unwrap_or(0);
        let mut top = scored.iter().filter(|(n, _)| *n == best);
        if let (Some((_, blocks)), None) = (top.next(), top.next()) {
            if best > 0 {
                root_of.insert(*file, blocks);
            }
        }
    }
    if root_of.is_empty() {
        return;
    }
    let plan_files: BTreeSet<FileId> = plans.keys().copied().collect();
    let mut moved: Vec<(usize, Span)> = Vec::new();
    for (i, d) in diagnostics.iter_mut().enumerate() {
        let Some(blocks) = root_of.get(&d.span.file) else {
            continue;
        };
        let Some((entry, block)) = locate(&plans, blocks, d.span) else {
            continue;
        };
        let inner = d.span;
        d.span = block.header;
        // The path names the plan's own block: the resource's address instead.
        d.path = Some(
            match d.path.as_deref().and_then(|p| p.splitn(3, '.').nth(2)) {
                Some(rest) => format!("{}.{rest}", entry.address),
                None => entry.address.clone(),
            },
        );
        // Edits to a plan change nothing that gets deployed.
        d.fix = None;
        for r in &mut d.related {
            if let Some((_, b)) = root_of
                .get(&r.span.file)
                .and_then(|blocks| locate(&plans, blocks, r.span))
            {
                r.span = b.header;
            }
        }
        d.related.insert(
            0,
            Related {
                span: inner,
                message: format!("planned as `{}`", entry.address),
            },
        );
        let mut seen = BTreeSet::new();
        d.related
            .retain(|r| seen.insert((r.span, r.message.clone())));
        moved.push((i, block.whole));
    }
    if moved.is_empty() {
        return;
    }
    // What the sources already say in that block needs no second report.
    let drop: BTreeSet<usize> = moved
        .iter()
        .filter(|(i, whole)| {
            let code = diagnostics[*i].code;
            diagnostics.iter().enumerate().any(|(j, o)| {
                j != *i
                    && o.code == code
                    && !plan_files.contains(&o.span.file)
                    && !moved.iter().any(|(k, _)| *k == j)
                    && o.span.file == whole.file
                    && o.span.start >= whole.start
                    && o.span.end <= whole.end
            })
        })
        .map(|(i, _)| *i)
        .collect();
    let mut i = 0;
    diagnostics.retain(|_| {
        let keep = !drop.contains(&i);
        i += 1;
        keep
    });
}

/// The plan resource a span lies in (the narrowest), and its block.
fn locate<'a>(
    plans: &BTreeMap<FileId, Vec<&'a PlannedResource>>,
    blocks: &HashMap<&str, &'a TerraformBlock>,
    span: Span,
) -> Option<(&'a PlannedResource, &'a TerraformBlock)> {
    let entry = plans
        .get(&span.file)?
        .iter()
        .filter(|p| p.span.start <= span.start && span.end <= p.span.end)
        .min_by_key(|p| p.span.end - p.span.start)?;
    Some((entry, block_of(blocks, &entry.config)?))
}

/// The block of a configuration address; for a resource inside a module
/// whose code is not in the run, the nearest module call that is.
fn block_of<'a>(
    blocks: &HashMap<&str, &'a TerraformBlock>,
    config: &str,
) -> Option<&'a TerraformBlock> {
    if let Some(b) = blocks.get(config) {
        return Some(b);
    }
    // `module.a.module.b.type.name`: try `module.a.module.b`, then `module.a`.
    let mut calls = Vec::new();
    let mut at = 0;
    while let Some(rest) = config.get(at..).and_then(|r| r.strip_prefix("module.")) {
        let name_end = rest.find('.').unwrap_or(rest.len());
        at += "module.".len() + name_end;
        calls.push(&config[..at]);
        at += 1;
    }
    calls.into_iter().rev().find_map(|c| blocks.get(c).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(address: &str) -> TerraformBlock {
        let span = Span::new(FileId(0), 0, 1);
        TerraformBlock {
            root: "infra".into(),
            address: address.into(),
            header: span,
            whole: span,
        }
    }

    #[test]
    fn a_resource_in_a_module_not_on_disk_goes_to_the_nearest_call() {
        let all = [
            block("module.eks"),
            block("module.eks.module.fp"),
            block("aws_eks_cluster.this"),
        ];
        let blocks: HashMap<&str, &TerraformBlock> =
            all.iter().map(|b| (b.address.as_str(), b)).collect();
        let at = |c: &str| block_of(&blocks, c).map(|b| b.address.clone());
        assert_eq!(
            at("aws_eks_cluster.this").as_deref(),
            Some("aws_eks_cluster.this")
        );
        assert_eq!(
            at("module.eks.module.fp.aws_eks_fargate_profile.this").as_deref(),
            Some("module.eks.module.fp")
        );
        assert_eq!(
            at("module.eks.aws_eks_cluster.this").as_deref(),
            Some("module.eks")
        );
        assert_eq!(at("aws_eks_addon.coredns"), None);
        assert_eq!(at("module.other.aws_eks_addon.coredns"), None);
    }
}
