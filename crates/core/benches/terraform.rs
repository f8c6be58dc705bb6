//! How long one Terraform module folder takes from text to a model: parse with
//! hcl-edit, evaluate, read the EKS module, Helm values and the graph. The
//! module is the repository's Karpenter-on-Fargate example.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fplint_core::frontend::terraform::load_module;
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use std::path::Path;

fn module(c: &mut Criterion) {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/terraform/karpenter-on-fargate");
    let sources = Sources::new(vec![dir.clone()]);
    let Ok(main) = sources.load(&dir.join("main.tf")) else {
        return;
    };
    let given = [main];
    let out = load_module(&dir, &given, &sources, Limits::default());
    assert_eq!(out.clusters.len(), 1);
    c.bench_function("terraform_karpenter_module", |b| {
        b.iter(|| load_module(black_box(&dir), &given, &sources, Limits::default()))
    });
    let text = given[0].text.clone();
    c.bench_function("terraform_parse_only", |b| {
        b.iter(|| hcl_edit::parser::parse_body(black_box(&text)).is_ok())
    });
}

criterion_group!(benches, module);
criterion_main!(benches);
