//! Each frontend from text to model, in MB/s on realistic inputs: an eksctl
//! config, a multi-document Kubernetes file and a Terraform module.
//! (CloudFormation has its own bench, `cloudformation.rs`.)
//!
//! `cargo bench -p fplint-core --bench frontends`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fplint_core::frontend::{load_document_file, terraform};
use fplint_core::source::{FileId, SourceFile};
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use std::fmt::Write as _;

const EKSCTL: &str = include_str!("../../../examples/eksctl/problem/cluster.yaml");

/// `n` Deployments with Services, as `kubectl apply -f` files often are.
fn manifests(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let _ = write!(
            s,
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc-{i}\n  namespace: app-{}\n  labels: {{app: svc-{i}}}\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {{app: svc-{i}}}\n  template:\n    metadata:\n      labels: {{app: svc-{i}, compute: fargate}}\n      annotations: {{prometheus.io/scrape: \"true\"}}\n    spec:\n      serviceAccountName: svc-{i}\n      tolerations:\n        - {{key: eks.amazonaws.com/compute-type, operator: Equal, value: fargate, effect: NoSchedule}}\n      containers:\n        - name: app\n          image: public.ecr.aws/nginx/nginx:1.27\n          ports: [{{containerPort: 8080}}]\n          resources:\n            requests: {{cpu: 500m, memory: 768Mi}}\n            limits: {{memory: 1Gi}}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i}\n  namespace: app-{}\nspec:\n  selector: {{app: svc-{i}}}\n  ports: [{{port: 80, targetPort: 8080}}]\n",
            i % 7,
            i % 7
        );
    }
    s
}

/// A Terraform module with a cluster, `n` profiles from a `for_each` over a
/// local map, and a Helm release with heredoc values.
fn module(n: usize) -> String {
    let mut s = String::from("locals {\n  teams = {\n");
    for i in 0..n {
        let _ = writeln!(
            s,
            "    team{i} = {{ namespace = \"team-{i}\", labels = {{ tier = \"t{}\" }} }}",
            i % 3
        );
    }
    s.push_str("  }\n}\n\nvariable \"subnets\" {\n  type    = list(string)\n  default = [\"subnet-0a\", \"subnet-0b\"]\n}\n\nresource \"aws_eks_cluster\" \"this\" {\n  name     = \"bench\"\n  role_arn = \"arn:aws:iam::111122223333:role/eks\"\n  vpc_config {\n    subnet_ids = var.subnets\n  }\n}\n\nresource \"aws_eks_fargate_profile\" \"team\" {\n  for_each               = local.teams\n  cluster_name           = aws_eks_cluster.this.name\n  fargate_profile_name   = each.key\n  pod_execution_role_arn = \"arn:aws:iam::111122223333:role/fargate\"\n  subnet_ids             = var.subnets\n  selector {\n    namespace = each.value.namespace\n    labels    = each.value.labels\n  }\n}\n\nresource \"helm_release\" \"app\" {\n  name       = \"app\"\n  namespace  = \"team-0\"\n  chart      = \"app\"\n  depends_on = [aws_eks_fargate_profile.team]\n  values = [\n    <<-EOT\n    replicaCount: 2\n    tolerations:\n      - key: eks.amazonaws.com/compute-type\n        operator: Exists\n    EOT\n  ]\n}\n");
    s
}

fn frontends(c: &mut Criterion) {
    let mut g = c.benchmark_group("frontends");

    let eksctl = SourceFile::new(FileId(0), "cluster.yaml", EKSCTL);
    g.throughput(Throughput::Bytes(EKSCTL.len() as u64));
    g.bench_function("eksctl_config", |b| {
        b.iter(|| {
            load_document_file(black_box(&eksctl), Limits::default())
                .clusters
                .len()
        })
    });

    let text = manifests(200);
    g.throughput(Throughput::Bytes(text.len() as u64));
    let k8s = SourceFile::new(FileId(0), "apps.yaml", text.as_str());
    g.bench_function("kubernetes_multi_document_200", |b| {
        b.iter(|| {
            load_document_file(black_box(&k8s), Limits::default())
                .workloads
                .len()
        })
    });

    // The YAML tree alone: the fast reader of plain block YAML against
    // saphyr-parser, which reads everything else.
    g.bench_function("yaml_tree_200_manifests", |b| {
        b.iter(|| {
            fplint_core::tree::yaml::parse(black_box(&text), FileId(0), Limits::default())
                .documents
                .len()
        })
    });
    g.bench_function("yaml_tree_200_manifests_saphyr", |b| {
        b.iter(|| {
            fplint_core::tree::yaml::parse_general(black_box(&text), FileId(0), Limits::default())
                .documents
                .len()
        })
    });

    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let text = module(200);
    let path = dir.path().join("main.tf");
    if let Err(e) = std::fs::write(&path, &text) {
        panic!("write: {e}");
    }
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("terraform_module_200_profiles", |b| {
        b.iter(|| {
            let sources = Sources::new(vec![dir.path().to_path_buf()]);
            let given = match sources.load(&path) {
                Ok(f) => vec![f],
                Err(e) => panic!("{e}"),
            };
            let unit = terraform::load_module(dir.path(), &given, &sources, Limits::default());
            unit.clusters
                .iter()
                .map(|c| c.fargate_profiles.len())
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, frontends);
criterion_main!(benches);
