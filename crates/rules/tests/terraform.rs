//! Terraform fixtures (`tests/fixtures/FPxxx/fire_*`, `quiet_*`, a `.tf` file
//! or a module folder) and the `hcl bad`/`hcl good` examples of the rule docs.

use fplint_core::frontend::{absorb, terraform};
use fplint_core::model::Project;
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use fplint_core::Diagnostic;
use fplint_rules::{Context, Settings, REGISTRY};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Lint one module folder: frontend diagnostics plus every registered rule.
fn lint_dir(dir: &Path) -> Vec<Diagnostic> {
    let sources = Sources::new(vec![dir.to_path_buf()]);
    let mut given = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tf"))
        .collect();
    names.sort();
    for p in names {
        given.push(sources.load(&p).unwrap());
    }
    let unit = terraform::load_module(dir, &given, &sources, Limits::default());
    let mut project = Project::default();
    let mut diags = absorb(&mut project, unit);
    let settings = Settings::default();
    let ctx = Context {
        project: &project,
        settings: &settings,
        only: None,
    };
    for r in REGISTRY {
        if let Some(rule) = r.rule {
            rule.check(&ctx, &mut diags);
        }
    }
    diags
}

fn temp_module(tag: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fplint-rules-tf-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.tf"), text).unwrap();
    dir
}

fn registered(code: &str) -> bool {
    code == "FP000" || REGISTRY.iter().any(|r| r.code == code && r.rule.is_some())
}

#[test]
fn terraform_fixtures() {
    let mut checked = 0;
    for code in ["FP000", "FP002", "FP003", "FP004"] {
        if !registered(code) {
            continue;
        }
        let dir = root().join("tests/fixtures").join(code);
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let fire = name.starts_with("fire_");
            if !fire && !name.starts_with("quiet_") {
                continue;
            }
            // Terragrunt trees are read by the CLI's pipeline (tests/fixtures.rs),
            // not as one Terraform folder.
            let terragrunt = name.contains("_tg_");
            // CDK apps are read by the CLI's pipeline too.
            let program =
                name.contains("_cdk_py_") || name.contains("_cdk_ts_") || name.contains("_pulumi_");
            let diags = if terragrunt || program {
                continue;
            } else if p.is_dir() {
                lint_dir(&p)
            } else if name.ends_with(".tf") {
                let text = std::fs::read_to_string(&p).unwrap();
                lint_dir(&temp_module(&format!("{code}-{name}"), &text))
            } else {
                continue;
            };
            let hit = diags.iter().any(|d| d.code == code);
            assert_eq!(hit, fire, "{code}/{name}: {diags:#?}");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn rule_doc_hcl_examples() {
    let mut checked = 0;
    for r in REGISTRY {
        let mut lines = r.doc.lines();
        let mut n = 0;
        while let Some(l) = lines.next() {
            let l = l.trim();
            let fire = match l {
                "```hcl bad" => true,
                "```hcl good" => false,
                _ => continue,
            };
            let mut text = String::new();
            for b in lines.by_ref() {
                if b.trim() == "```" {
                    break;
                }
                text.push_str(b);
                text.push('\n');
            }
            n += 1;
            if !registered(r.code) {
                continue;
            }
            let diags = lint_dir(&temp_module(&format!("doc-{}-{n}", r.code), &text));
            let hit = diags.iter().any(|d| d.code == r.code);
            assert_eq!(hit, fire, "{} example {n}: {diags:#?}", r.code);
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
#[ignore]
fn show() {
    let p = PathBuf::from(std::env::var("FPLINT_SHOW").unwrap());
    let sources = Sources::new(vec![p.clone()]);
    let mut given = Vec::new();
    for e in std::fs::read_dir(&p).unwrap() {
        let e = e.unwrap().path();
        if e.extension().is_some_and(|x| x == "tf") {
            given.push(sources.load(&e).unwrap());
        }
    }
    let unit = terraform::load_module(&p, &given, &sources, Limits::default());
    let mut project = Project::default();
    let mut diags = absorb(&mut project, unit);
    for c in &project.clusters {
        eprintln!(
            "cluster {} cap={:?} profiles={} releases={}",
            c.display_name(),
            c.capacity,
            c.fargate_profiles.len(),
            c.helm_releases.len()
        );
        for p in &c.fargate_profiles {
            eprintln!(
                "  profile {:?} sel={:?}",
                p.name.value,
                p.selectors.known().map(|s| s
                    .iter()
                    .map(|s| (s.namespace.value.clone(), s.known_labels().map(|l| l.len())))
                    .collect::<Vec<_>>())
            );
        }
        for r in &c.helm_releases {
            eprintln!(
                "  release {:?} ns={:?} values_known={}",
                r.name.value,
                r.namespace.value,
                r.values.is_known()
            );
        }
    }
    let settings = Settings::default();
    let ctx = Context {
        project: &project,
        settings: &settings,
        only: None,
    };
    for r in REGISTRY {
        if let Some(rule) = r.rule {
            rule.check(&ctx, &mut diags);
        }
    }
    for d in diags {
        let f = sources.get(d.span.file).unwrap();
        let lc = f.line_col(d.span.start as usize);
        eprintln!(
            "{}:{}:{} {} {}\n   `{}`\n   path={:?}\n   help={:?}",
            f.path,
            lc.line,
            lc.column,
            d.code,
            d.message,
            f.slice(d.span),
            d.path,
            d.help
        );
        for r in d.related {
            let f = sources.get(r.span.file).unwrap();
            let lc = f.line_col(r.span.start as usize);
            eprintln!(
                "   related {}:{}:{} {}",
                f.path, lc.line, lc.column, r.message
            );
        }
    }
}

/// `FPLINT_CORPUS=dir cargo test --test terraform corpus -- --ignored --nocapture`
#[test]
#[ignore]
fn corpus() {
    let root = PathBuf::from(std::env::var("FPLINT_CORPUS").unwrap());
    let sources = Sources::new(vec![root.clone()]);
    let mut dirs = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        let mut has_tf = false;
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "tf") {
                has_tf = true;
            }
        }
        if has_tf {
            dirs.push(d);
        }
    }
    dirs.sort();
    let mut project = Project::default();
    let mut diags = Vec::new();
    for d in &dirs {
        let mut given = Vec::new();
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "tf") {
                given.push(sources.load(&p).unwrap());
            }
        }
        let unit = terraform::load_module(d, &given, &sources, Limits::default());
        diags.extend(absorb(&mut project, unit));
    }
    for c in &project.clusters {
        eprintln!(
            "cluster {} defined={} cap={:?} profiles={} releases={}",
            c.display_name(),
            c.defined,
            matches!(c.capacity, fplint_core::model::Capacity::None),
            c.fargate_profiles.len(),
            c.helm_releases.len()
        );
        let f = sources
            .get(c.loc.span.file)
            .map(|f| f.path.clone())
            .unwrap_or_default();
        eprintln!("   at {f} incomplete={}", c.profiles_incomplete);
        for p in &c.fargate_profiles {
            eprintln!(
                "   profile {:?} concurrent={} selectors={:?}",
                p.name.value,
                p.created_concurrently,
                p.selectors.known().map(|s| s
                    .iter()
                    .map(|s| (s.namespace.value.clone(), s.known_labels().map(|l| l.len())))
                    .collect::<Vec<_>>())
            );
        }
        for a in &c.addons {
            eprintln!(
                "   addon {:?} config={:?}",
                a.name.value,
                a.configuration.as_ref().map(|c| c.value.is_known())
            );
        }
    }
    let settings = Settings::default();
    let ctx = Context {
        project: &project,
        settings: &settings,
        only: None,
    };
    for r in REGISTRY {
        if let Some(rule) = r.rule {
            rule.check(&ctx, &mut diags);
        }
    }
    for d in diags {
        let f = sources.get(d.span.file).unwrap();
        let lc = f.line_col(d.span.start as usize);
        eprintln!(
            "{}:{}:{} {} {}",
            f.path, lc.line, lc.column, d.code, d.message
        );
    }
}

#[test]
fn karpenter_example_pair() {
    let ex = root().join("examples/terraform");
    let bad = lint_dir(&ex.join("karpenter-on-fargate"));
    assert_eq!(
        bad.iter().filter(|d| d.code == "FP002").count(),
        1,
        "{bad:#?}"
    );
    let good = lint_dir(&ex.join("karpenter-on-fargate-fixed"));
    assert!(good.is_empty(), "{good:#?}");
}
