//! A rule touches four places named by its code: the rule file, the registry
//! row, `rules/FPxxx.md` and `tests/fixtures/FPxxx/`. The documented bad
//! examples must fire their rule and the good ones must not.

mod common;

use common::{concise, fixture_cases, lint, repo};
use std::path::PathBuf;

const SECTIONS: &[&str] = &[
    "## What it does",
    "## Why it matters",
    "## Example",
    "## How to fix",
    "## References",
    "## Sources",
];

/// The `## Sources` section of a doc: up to the next `## ` heading.
pub fn sources_section(doc: &str) -> Option<&str> {
    let start = doc.find("\n## Sources\n")? + 1;
    let body = &doc[start + "## Sources\n".len()..];
    Some(match body.find("\n## ") {
        Some(end) => &body[..end],
        None => body,
    })
}

/// A reference a reader can check again: a full commit SHA, a tag with its
/// version (`tag v1.5.0`, `tag 0.208.0`), or the date a page was read.
fn is_pinned(line: &str) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    let sha = words
        .iter()
        .any(|w| w.len() == 40 && w.chars().all(|c| c.is_ascii_hexdigit()));
    let tag = words.windows(2).any(|p| {
        p[0] == "tag"
            && p[1].trim_start_matches('v').split('.').count() >= 2
            && p[1]
                .trim_start_matches('v')
                .split('.')
                .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    });
    let date = words.iter().any(|w| {
        let b = w.as_bytes();
        b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
    });
    sha || tag || date
}

#[test]
fn every_doc_cites_pinned_sources() {
    let mut missing = Vec::new();
    for rule in fplint_rules::REGISTRY {
        match sources_section(rule.doc) {
            None => missing.push(format!("{}: no `## Sources` section", rule.code)),
            Some(body) => {
                let items: Vec<&str> = body.lines().filter(|l| l.starts_with("- ")).collect();
                if items.is_empty() {
                    missing.push(format!("{}: `## Sources` lists nothing", rule.code));
                }
                if !body.lines().any(is_pinned) {
                    missing.push(format!(
                        "{}: no pinned source (a commit SHA, `tag VERSION`, or a date read)",
                        rule.code
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn pinned_references_are_told_apart() {
    assert!(is_pinned(
        "- eksctl tag v0.230.0: `pkg/fargate/coredns/coredns.go` line 45"
    ));
    assert!(is_pinned(
        "- commit 349487633193bced541ad05bb76d02e633e73473"
    ));
    assert!(is_pinned("Read on 2026-11-22."));
    assert!(!is_pinned("- eksctl `pkg/fargate/coredns/coredns.go`"));
    assert!(!is_pinned("- the latest tag"));
    assert!(!is_pinned("- commit 3494876"));
}

struct Example {
    lang: String,
    bad: bool,
    file: Option<String>,
    body: String,
}

/// Fenced blocks whose info string is `<lang> bad|good [file=NAME]`.
fn examples(doc: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let words: Vec<&str> = info.split_whitespace().collect();
        let kind = words.iter().find(|w| **w == "bad" || **w == "good");
        let mut body = String::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        if let (Some(lang), Some(kind)) = (words.first(), kind) {
            out.push(Example {
                lang: lang.to_string(),
                bad: *kind == "bad",
                file: words
                    .iter()
                    .find_map(|w| w.strip_prefix("file=").map(str::to_string)),
                body,
            });
        }
    }
    out
}

#[test]
fn every_rule_has_its_four_places() {
    let rule_dir = repo().join("crates/rules/src/rules");
    let mut missing = Vec::new();
    for rule in fplint_rules::REGISTRY {
        let doc_path = repo().join("rules").join(format!("{}.md", rule.code));
        if !doc_path.is_file() {
            missing.push(format!("{}: no rules/{}.md", rule.code, rule.code));
        }
        if !rule
            .doc
            .starts_with(&format!("# {} {}", rule.code, rule.name))
        {
            missing.push(format!(
                "{}: doc must start with `# {} {}`",
                rule.code, rule.code, rule.name
            ));
        }
        for s in SECTIONS {
            if !rule.doc.contains(s) {
                missing.push(format!("{}: doc lacks the section `{s}`", rule.code));
            }
        }
        if rule.rule.is_some() {
            let file = format!(
                "{}_{}.rs",
                rule.code.to_ascii_lowercase(),
                rule.name.replace('-', "_")
            );
            if !rule_dir.join(&file).is_file() {
                missing.push(format!("{}: no crates/rules/src/rules/{file}", rule.code));
            }
        }
        let cases = fixture_cases(rule.code);
        let name = |p: &PathBuf| {
            p.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string()
        };
        if !cases.iter().any(|c| name(c).starts_with("fire_")) {
            missing.push(format!(
                "{}: no fire_ fixture in tests/fixtures/{}",
                rule.code, rule.code
            ));
        }
        if !cases.iter().any(|c| name(c).starts_with("quiet_")) {
            missing.push(format!(
                "{}: no quiet_ fixture in tests/fixtures/{}",
                rule.code, rule.code
            ));
        }
    }
    // Every doc file belongs to a registered rule.
    if let Ok(rd) = std::fs::read_dir(repo().join("rules")) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().to_string();
            if let Some(code) = n.strip_suffix(".md") {
                if fplint_rules::find(code).is_none() {
                    missing.push(format!("rules/{n} documents no registered rule"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn documented_examples_behave() {
    let mut failures = Vec::new();
    let mut count = 0;
    for rule in fplint_rules::REGISTRY {
        let exs = examples(rule.doc);
        if !exs.iter().any(|e| e.bad) || !exs.iter().any(|e| !e.bad) {
            failures.push(format!(
                "{}: the doc needs a bad and a good example",
                rule.code
            ));
        }
        for (i, ex) in exs.iter().enumerate() {
            count += 1;
            let dir = match tempfile::tempdir() {
                Ok(d) => d,
                Err(e) => panic!("tempdir: {e}"),
            };
            let default_name = match ex.lang.as_str() {
                "json" => "template.json",
                "hcl" | "terraform" | "tf" => "main.tf",
                _ => "example.yaml",
            };
            let path = dir.path().join(ex.file.as_deref().unwrap_or(default_name));
            if let Err(e) = std::fs::write(&path, &ex.body) {
                panic!("write example: {e}");
            }
            let outcome = lint(&[dir.path().to_path_buf()]);
            let fired = outcome.diagnostics.iter().any(|d| d.code == rule.code);
            if fired != ex.bad {
                failures.push(format!(
                    "{} example {} ({}): expected {} but got:\n{}",
                    rule.code,
                    i + 1,
                    if ex.bad { "bad" } else { "good" },
                    if ex.bad { "a finding" } else { "no finding" },
                    concise(&outcome)
                ));
            }
            // A good example must not trip any other rule either.
            if !ex.bad && !outcome.diagnostics.is_empty() {
                failures.push(format!(
                    "{} good example {} has findings:\n{}",
                    rule.code,
                    i + 1,
                    concise(&outcome)
                ));
            }
        }
    }
    assert!(count > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
