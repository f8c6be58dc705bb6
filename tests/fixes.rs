//! `--fix` on every firing fixture of every rule: the fixed text is
//! snapshotted (as a diff), the rule's fixable findings are gone when the
//! fixed files are linted again, every fixed file still parses, and a second
//! `--fix` changes nothing.

mod common;

use common::{fixture_cases, repo};
use fplint::fix::FixOptions;
use fplint::{ConfigChoice, Linter, Options};
use std::path::{Path, PathBuf};

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            copy(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

fn linter() -> Linter {
    let opts = Options {
        config: ConfigChoice::Disabled,
        ..Options::default()
    };
    Linter::with_choice(&[PathBuf::from(".")], &ConfigChoice::Disabled)
        .unwrap()
        .with_options(opts)
}

const ALL: FixOptions = FixOptions {
    unsafe_fixes: true,
    dry_run: false,
};

#[test]
fn fixes_on_fixtures() {
    let mut fixed_cases = 0;
    let mut failures = Vec::new();
    for rule in fplint_rules::REGISTRY {
        for case in fixture_cases(rule.code) {
            let name = case.file_name().unwrap().to_string_lossy().to_string();
            if !name.starts_with("fire_") {
                continue;
            }
            let tmp = tempfile::tempdir().unwrap();
            let target = tmp.path().join(&name);
            copy(&case, &target);
            let before = linter().check_paths(&[&target]);
            let fixable = before
                .diagnostics()
                .iter()
                .any(|d| d.code == rule.code && d.fix.is_some());
            if !fixable {
                continue;
            }
            fixed_cases += 1;
            let out = linter().fix_paths(&[&target], ALL);
            let diff = out
                .diff()
                .replace(&format!("{}/", tmp.path().display()), "");
            let snap = format!("{}__{}", rule.code, name.replace('.', "_"));
            insta::with_settings!({snapshot_path => "snapshots/fixes", prepend_module_to_snapshot => false}, {
                insta::assert_snapshot!(snap, diff);
            });
            let rel = || format!("{}/{name}", rule.code);
            if !out.errors.is_empty() {
                failures.push(format!("{}: {:?}", rel(), out.errors));
            }
            let after = linter().check_paths(&[&target]);
            let left: Vec<_> = after
                .diagnostics()
                .iter()
                .filter(|d| d.code == rule.code && d.fix.is_some())
                .map(|d| d.message.clone())
                .collect();
            if !left.is_empty() {
                failures.push(format!("{}: still fixable after --fix: {left:?}", rel()));
            }
            let new_parse_errors = after
                .diagnostics()
                .iter()
                .filter(|d| d.code == "FP000")
                .count()
                > before
                    .diagnostics()
                    .iter()
                    .filter(|d| d.code == "FP000")
                    .count();
            if new_parse_errors {
                failures.push(format!("{}: a fixed file no longer parses", rel()));
            }
            let again = linter().fix_paths(&[&target], ALL);
            if !again.files.is_empty() {
                failures.push(format!(
                    "{}: a second --fix changed:\n{}",
                    rel(),
                    again.diff()
                ));
            }
        }
    }
    assert!(fixed_cases >= 8, "only {fixed_cases} fixtures have fixes");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dry_run_writes_nothing_and_fixes_keep_permissions_and_bom() {
    let tmp = tempfile::tempdir().unwrap();
    let src = repo().join("tests/fixtures/FP003/fire_two_profiles.yaml");
    let file = tmp.path().join("t.yaml");
    let text = std::fs::read_to_string(&src).unwrap();
    std::fs::write(&file, format!("\u{feff}{text}")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let dry = linter().fix_paths(
        &[&file],
        FixOptions {
            unsafe_fixes: false,
            dry_run: true,
        },
    );
    assert_eq!(dry.files.len(), 1);
    assert!(!dry.files[0].written);
    assert!(std::fs::read_to_string(&file).unwrap().ends_with(&text));
    let out = linter().fix_paths(&[&file], ALL);
    assert!(out.files[0].written, "{:?}", out.errors);
    let bytes = std::fs::read(&file).unwrap();
    assert!(bytes.starts_with(b"\xEF\xBB\xBF"), "the BOM is kept");
    assert!(String::from_utf8_lossy(&bytes).contains("DependsOn:"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }
}

/// Each rule doc says whether the rule has a fix, and of which kind, as the
/// rule behaves on its firing fixtures.
#[test]
fn rule_docs_say_whether_there_is_a_fix() {
    let mut wrong = Vec::new();
    for rule in fplint_rules::REGISTRY {
        let mut kinds = std::collections::BTreeSet::new();
        for case in fixture_cases(rule.code) {
            let name = case.file_name().unwrap().to_string_lossy().to_string();
            if !name.starts_with("fire_") {
                continue;
            }
            let rel = case.strip_prefix(repo()).unwrap_or(&case).to_path_buf();
            for d in linter().check_paths(&[rel]).diagnostics() {
                if d.code == rule.code {
                    if let Some(f) = &d.fix {
                        kinds.insert(f.applicability.as_str());
                    }
                }
            }
        }
        let doc = rule.doc;
        // A rule may have a safe fix and, where that cannot be built, an unsafe one.
        let mut says: Vec<&str> = ["safe", "unsafe"]
            .into_iter()
            .filter(|k| doc.contains(&format!("**Automatic fix ({k}).**")))
            .collect();
        says.sort();
        if says.is_empty() && !doc.contains("**No automatic fix.**") {
            wrong.push(format!(
                "{}: the doc does not say whether it has a fix",
                rule.code
            ));
            continue;
        }
        let has: Vec<&str> = kinds.into_iter().collect();
        if has != says {
            wrong.push(format!(
                "{}: the doc says {says:?}, the fixtures give {has:?}",
                rule.code
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// FP002 falls back to the toleration (unsafe) only when the ordering cannot
/// be written, and only where the chart's values path is known and the
/// values are written in the release itself.
#[test]
fn toleration_fix_only_where_ordering_cannot_be_written() {
    let mut seen = 0;
    for case in fixture_cases("FP002") {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("fire_") {
            continue;
        }
        let rel = case.strip_prefix(repo()).unwrap_or(&case).to_path_buf();
        let out = linter().check_paths(&[rel]);
        let fixes: Vec<_> = out
            .diagnostics()
            .iter()
            .filter(|d| d.code == "FP002")
            .map(|d| {
                d.fix
                    .as_ref()
                    .map(|f| (f.applicability.as_str(), f.title.clone()))
            })
            .collect();
        assert!(!fixes.is_empty(), "{name}: FP002 does not fire");
        for fix in fixes {
            // A program's source is the author's to edit.
            let want = if name.starts_with("fire_module_release_no_fix_")
                || name.contains("_cdk_py_")
                || name.contains("_cdk_ts_")
                || name.contains("_pulumi_")
            {
                None
            } else if name.starts_with("fire_module_release_") {
                Some("unsafe")
            } else {
                Some("safe")
            };
            assert_eq!(fix.as_ref().map(|f| f.0), want, "{name}: {fix:?}");
            if want == Some("unsafe") {
                seen += 1;
                let title = fix.map(|f| f.1).unwrap_or_default();
                assert!(title.starts_with("add the Fargate toleration"), "{title}");
            }
        }
    }
    assert_eq!(seen, 4);
}

/// A finding in code `terraform init` installed is reported at the call,
/// but its fix would edit the installed copy: no fix is offered, in any
/// rule, whatever its own checks say.
#[test]
fn no_fix_edits_installed_module_code() {
    let case = repo().join("tests/fixtures/FP006/fire_tf_installed_module_no_fix");
    let rel = case.strip_prefix(repo()).unwrap_or(&case).to_path_buf();
    let out = linter().check_paths(&[rel]);
    let found: Vec<_> = out
        .diagnostics()
        .iter()
        .map(|d| (d.code, d.fix.is_some()))
        .collect();
    assert_eq!(found, [("FP006", false)]);
}
