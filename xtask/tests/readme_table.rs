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
    assert!(row("FP015")
        .ends_with("| warning / error / info | Kubernetes, Terraform, CDK or Pulumi program |"));
    assert!(row("FP003").ends_with(
        "| error | CloudFormation, Terraform (`awscc_eks_fargate_profile` only), CDK or Pulumi program |"
    ));
    // A stale table is found: drop one severity from a row.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .unwrap_or_default();
    let stale = text.replace("| warning / error / info |", "| warning |");
    assert_ne!(
        xtask::readme::with_table(&stale).as_deref(),
        Some(stale.as_str())
    );
}

/// Each rule's documentation opens with its severities, as the registry
/// (and the README table) says them: the default in bold, then the others.
#[test]
fn rule_docs_name_every_severity() {
    let mut wrong = Vec::new();
    for r in fplint_rules::REGISTRY {
        let head = r.doc.lines().nth(2).unwrap_or_default();
        let (severity, _) = head.split_once(" · Formats:").unwrap_or((head, ""));
        let default = format!("Default severity: **{}**", r.default_severity.as_str());
        let others_named = r.severities[1..]
            .iter()
            .all(|s| severity.contains(s.as_str()));
        let extra = ["error", "warning", "info"]
            .iter()
            .any(|w| severity.contains(w) && !r.severities.iter().any(|s| s.as_str() == *w));
        if !severity.starts_with(&default) || !others_named || extra {
            wrong.push(format!("{}: {severity}", r.code));
        }
    }
    assert!(
        wrong.is_empty(),
        "doc severities differ from the registry:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn chart_table_matches_the_chart_knowledge() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/charts.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let Some(want) = xtask::readme::with_chart_table(&text) else {
        panic!("docs/charts.md lacks the chart table markers");
    };
    assert!(
        want == text,
        "docs/charts.md's chart table is stale: run `cargo run -p xtask -- readme`\n{}",
        xtask::readme::chart_table()
    );
}
