//! How long one CloudFormation template takes from text to a checked model:
//! parse, build the cluster model and dependency graph, and answer the
//! ordering question FP003 asks for every pair of profiles.
//!
//! `data/cdk-fargate-cluster.template.json` is a CDK-shaped template written
//! for this project (VPC, NAT, IAM, Lambda handlers, a cluster and three
//! chained Fargate profiles), a little larger than real CDK output of the
//! same shape.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fplint_core::frontend::{absorb, load_document_file};
use fplint_core::model::Project;
use fplint_core::source::{FileId, SourceFile};
use fplint_core::tree::Limits;

const CDK: &str = include_str!("data/cdk-fargate-cluster.template.json");
const YAML: &str = include_str!("../../../examples/cloudformation/fargate-race.yaml");

fn lint(file: &SourceFile) -> usize {
    let unit = load_document_file(file, Limits::default());
    let mut project = Project::default();
    let diags = absorb(&mut project, unit);
    let mut unordered = diags.len();
    for c in &project.clusters {
        let refs: Vec<_> = c
            .fargate_profiles
            .iter()
            .filter_map(|p| p.resource)
            .collect();
        for (i, a) in refs.iter().enumerate() {
            for b in &refs[..i] {
                if !project.depends_on(*a, *b) && !project.depends_on(*b, *a) {
                    unordered += 1;
                }
            }
        }
    }
    unordered
}

fn templates(c: &mut Criterion) {
    let cdk = SourceFile::new(FileId(0), "cdk.template.json", CDK);
    assert_eq!(lint(&cdk), 0, "the bench template is chained");
    c.bench_function("cdk_json_template", |b| b.iter(|| lint(black_box(&cdk))));
    let yaml = SourceFile::new(FileId(0), "fargate-race.yaml", YAML);
    c.bench_function("yaml_template_with_tags", |b| {
        b.iter(|| lint(black_box(&yaml)))
    });
}

criterion_group!(benches, templates);
criterion_main!(benches);
