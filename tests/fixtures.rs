//! Every fixture under `tests/fixtures/<CODE>/`: `fire_*` cases must produce
//! the code and `quiet_*` cases must not; the full output of each case is
//! snapshotted so that lines, columns and messages are asserted too.

mod common;

use common::{concise, fixture_cases, lint, repo};

#[test]
fn fixtures_fire_and_stay_quiet() {
    let mut failures = Vec::new();
    let mut count = 0;
    // Every severity each rule reports, to hold the registry (and the
    // README table made from it) to what the rules do.
    let mut seen = std::collections::BTreeSet::new();
    for rule in fplint_rules::REGISTRY {
        for case in fixture_cases(rule.code) {
            count += 1;
            let rel = case.strip_prefix(repo()).unwrap_or(&case).to_path_buf();
            let outcome = lint(std::slice::from_ref(&rel));
            seen.extend(outcome.diagnostics.iter().map(|d| (d.code, d.severity)));
            let fired = outcome.diagnostics.iter().any(|d| d.code == rule.code);
            let name = rel
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let want_fire = name.starts_with("fire_");
            if fired != want_fire {
                failures.push(format!(
                    "{}: expected {} {} but got:\n{}",
                    rel.display(),
                    if want_fire { "a" } else { "no" },
                    rule.code,
                    concise(&outcome)
                ));
            }
            let snap = format!("{}__{}", rule.code, name.replace('.', "_"));
            insta::with_settings!({snapshot_path => "snapshots/fixtures", prepend_module_to_snapshot => false}, {
                insta::assert_snapshot!(snap, concise(&outcome));
            });
        }
    }
    assert!(count > 0, "no fixtures found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for rule in fplint_rules::REGISTRY {
        let mut fixtures: Vec<_> = seen
            .iter()
            .filter(|(c, _)| *c == rule.code)
            .map(|(_, s)| *s)
            .collect();
        let mut declared = rule.severities.to_vec();
        fixtures.sort();
        declared.sort();
        assert_eq!(
            fixtures, declared,
            "{}: the fixtures report these severities, the registry's `severities` says otherwise",
            rule.code
        );
        assert_eq!(
            rule.severities.first(),
            Some(&rule.default_severity),
            "{}: default first",
            rule.code
        );
    }
}
