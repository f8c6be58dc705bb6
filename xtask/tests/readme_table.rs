//! The README's rule table is the registry's: a rule whose severities or
//! formats change without `cargo run -p xtask -- readme` fails here.

#[test]
fn readme_rule_table_matches_the_registry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let Some(want) = xtask::readme::with_table(&text) else {
        panic!("README.md lacks the rule table markers");
    };
    assert!(
        want == text,
        "README.md's rule table is stale: run `cargo run -p xtask -- readme`\n{}",
        xtask::readme::table()
    );
}

#[test]
fn the_table_shows_every_severity_and_partial_format() {
    let table = xtask::readme::table();
    let row = |code: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("| {code} |")))
            .unwrap_or_else(|| panic!("no row for {code}"))
            .to_string()
    };
    assert!(row("FP015").ends_with("| warning / error / info | Kubernetes, Terraform |"));
    assert!(row("FP003")
        .ends_with("| error | CloudFormation, Terraform (`awscc_eks_fargate_profile` only) |"));
    // A stale table is found: drop one severity from a row.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .unwrap_or_default();
    let stale = text.replace("| warning / error / info |", "| warning |");
    assert_ne!(
        xtask::readme::with_table(&stale).as_deref(),
        Some(stale.as_str())
    );
}
