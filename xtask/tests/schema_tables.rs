//! The committed field tables agree with their upstream schemas, when a
//! local copy of each is named by an environment variable (docs/schemas.md
//! says how to get them; `.ci/schema.sh` sets those on the registry
//! packages). Without the variable, the table's own consistency is
//! checked by `fplint-core`'s `every_table_is_consistent`.

fn check(kind: &str, var: &str, args: impl Fn(&str) -> Vec<String>) {
    let Ok(src) = std::env::var(var) else {
        eprintln!("{var} is not set: {kind} not compared with its upstream schema");
        return;
    };
    let (file, text) = xtask::schema_table(kind, &args(&src)).unwrap_or_else(|e| panic!("{e}"));
    let committed = std::fs::read_to_string(xtask::committed_table(file)).unwrap_or_default();
    assert!(
        xtask::same_table(&committed, &text),
        "{file} disagrees with {src}; run `cargo run -p xtask -- schema {kind} ...`"
    );
}

#[test]
fn eksctl_agrees() {
    check("eksctl", "FPLINT_EKSCTL_SCHEMA", |s| vec![s.to_string()]);
}

#[test]
fn cloudformation_agrees() {
    check("cloudformation", "FPLINT_CFN_LINT_SCHEMAS", |s| {
        vec![s.to_string()]
    });
}

#[test]
fn kubernetes_agrees() {
    check("kubernetes", "FPLINT_K8S_MODELS", |s| vec![s.to_string()]);
}

/// `FPLINT_TERRAFORM_AWS_EKS` is `17=DIR,18=DIR,...`.
#[test]
fn terraform_aws_eks_agrees() {
    check("terraform-aws-eks", "FPLINT_TERRAFORM_AWS_EKS", |s| {
        s.split(',').map(str::to_string).collect()
    });
}

/// `FPLINT_TERRAFORM_DOCS` is `CFN_LINT_SCHEMAS_DIR,PACKAGE,...`, each
/// package an unpacked `@cdktf/provider-aws` or `@cdktn/provider-aws`.
#[test]
fn terraform_agrees() {
    check("terraform", "FPLINT_TERRAFORM_DOCS", |s| {
        s.split(',').map(str::to_string).collect()
    });
}
