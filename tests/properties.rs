//! Properties: YAML spans always slice the source at char boundaries, the
//! Fargate wildcard matchers agree with naive references, and the rules
//! never panic on arbitrary cluster models (built through the eksctl
//! frontend from generated documents).

use fplint::lint::{lint_bytes, Options};
use fplint_core::glob;
use fplint_core::placement::patterns_intersect;
use fplint_core::source::FileId;
use fplint_core::tree::{yaml, Limits, Node, NodeKind};
use proptest::prelude::*;

fn spans_ok(text: &str, n: &Node) -> bool {
    let r = n.span.range();
    let ok = r.start <= r.end
        && r.end <= text.len()
        && text.is_char_boundary(r.start)
        && text.is_char_boundary(r.end);
    ok && match &n.kind {
        NodeKind::Scalar(..) => true,
        NodeKind::Seq(items) => items.iter().all(|i| spans_ok(text, i)),
        NodeKind::Map(entries) => entries
            .iter()
            .all(|e| spans_ok(text, &e.key) && spans_ok(text, &e.value)),
    }
}

/// YAML-ish text: structure characters, multi-byte letters, tags, anchors.
fn yamlish() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a", "é", "日本", "🚀", ": ", "- ", "\n", "  ", "[", "]", "{", "}", ", ", "#", "&x ", "*x",
        "!Ref ", "'q'", "\"d\"", "|\n", ">\n", "---\n", "<<: ", "\t", "?", "\u{feff}",
    ]);
    prop::collection::vec(pieces, 0..80).prop_map(|v| v.concat())
}

/// Naive wildcard match by recursion.
fn naive_match(p: &[char], t: &[char]) -> bool {
    match (p.first(), t.first()) {
        (None, None) => true,
        (Some('*'), _) => naive_match(&p[1..], t) || (!t.is_empty() && naive_match(p, &t[1..])),
        (Some('?'), Some(_)) => naive_match(&p[1..], &t[1..]),
        (Some(a), Some(b)) if a == b => naive_match(&p[1..], &t[1..]),
        _ => false,
    }
}

fn pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!['a', 'b', '*', '?']), 0..5)
        .prop_map(|v| v.into_iter().collect())
}

/// Every string over {a, b, c} up to `len` characters.
fn words(len: usize) -> Vec<String> {
    let mut all = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..len {
        let next: Vec<String> = last
            .iter()
            .flat_map(|w| ['a', 'b', 'c'].map(|c| format!("{w}{c}")))
            .collect();
        all.extend(next.iter().cloned());
        last = next;
    }
    all
}

fn label() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "app",
        "k8s-app",
        "eks.amazonaws.com/component",
        "",
        "*",
        "a?",
        "coredns",
        "kube-dns",
        "\"\"",
        "null",
        "~",
        "[x]",
        "{a: b}",
        "é",
    ])
    .prop_map(str::to_string)
}

fn namespace() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "kube-system",
        "default",
        "*",
        "kube-*",
        "app?",
        "",
        "null",
        "\"\"",
        "[a, b]",
        "{x: y}",
        "karpenter",
        "!Ref Ns",
    ])
    .prop_map(str::to_string)
}

/// An eksctl ClusterConfig with arbitrary profiles, selectors and labels,
/// including empty, null, wildcard and wrongly-typed values.
fn eksctl_doc() -> impl Strategy<Value = String> {
    let sel = (namespace(), prop::collection::vec((label(), label()), 0..4));
    let profile = (
        prop::sample::select(vec!["fp-a", "fp-b", "fp-a", "", "null", "[x]"]),
        prop::collection::vec(sel, 0..4),
        any::<bool>(),
    );
    (
        prop::collection::vec(profile, 0..6),
        prop::sample::select(vec!["", "managedNodeGroups:\n  - name: ng\n", "nodeGroups: []\n"]),
    )
        .prop_map(|(profiles, nodes)| {
            let mut t = String::from(
                "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: c\n  region: eu-west-1\n",
            );
            t.push_str(nodes);
            t.push_str("fargateProfiles:\n");
            for (name, sels, with_sels) in profiles {
                t.push_str(&format!("  - name: {name}\n"));
                if !with_sels {
                    continue;
                }
                t.push_str("    selectors:\n");
                for (ns, labels) in sels {
                    t.push_str(&format!("      - namespace: {ns}\n"));
                    if !labels.is_empty() {
                        t.push_str("        labels:\n");
                        for (k, v) in labels {
                            let k = if k.is_empty() { "\"\"".to_string() } else { k };
                            t.push_str(&format!("          {k}: {v}\n"));
                        }
                    }
                }
            }
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn yaml_spans_slice_at_char_boundaries(text in yamlish()) {
        let parsed = yaml::parse(&text, FileId(0), Limits::default());
        for d in &parsed.documents {
            prop_assert!(spans_ok(&text, d), "bad span in {text:?}");
        }
        for d in &parsed.duplicates {
            prop_assert!(text.is_char_boundary(d.first.start as usize));
            prop_assert!(text.is_char_boundary(d.second.end as usize));
        }
        if let Some(e) = &parsed.error {
            prop_assert!(e.span.end as usize <= text.len());
        }
    }

    #[test]
    fn yaml_spans_on_any_text(text in any::<String>()) {
        let parsed = yaml::parse(&text, FileId(0), Limits::default());
        for d in &parsed.documents {
            prop_assert!(spans_ok(&text, d));
        }
    }

    #[test]
    fn selector_matching_agrees_with_naive(p in pattern(), t in "[abc]{0,6}") {
        let pc: Vec<char> = p.chars().collect();
        let tc: Vec<char> = t.chars().collect();
        prop_assert_eq!(glob::matches(&p, &t), naive_match(&pc, &tc), "{} vs {}", p, t);
    }

    #[test]
    fn pattern_intersection_agrees_with_brute_force(a in pattern(), b in pattern()) {
        // A common match, if any, needs no more characters than both
        // patterns have together.
        let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let naive = words(a.len() + b.len()).iter().any(|w| {
            let wc: Vec<char> = w.chars().collect();
            naive_match(&ac, &wc) && naive_match(&bc, &wc)
        });
        prop_assert_eq!(patterns_intersect(&a, &b), naive, "{} vs {}", a, b);
    }

    #[test]
    fn rules_never_panic_on_arbitrary_models(doc in eksctl_doc()) {
        let out = lint_bytes("cluster.yaml", doc.as_bytes(), &Options::default());
        for d in &out.diagnostics {
            prop_assert!(!d.message.contains("internal error"), "{}", d.message);
            let f = out.sources.get(d.span.file);
            prop_assert!(f.is_some_and(|f| d.span.end as usize <= f.text.len()));
        }
    }
}

/// A CloudFormation template with `deps[i]` (indices below i) as each
/// profile's `DependsOn`, in the given style: YAML string/list forms, JSON.
fn cfn_template(deps: &[Vec<usize>], json: bool, flow: bool) -> String {
    let name = |i: usize| format!("Profile{i}");
    if json {
        let mut res = vec![
            "    \"Cluster\": {\"Type\": \"AWS::EKS::Cluster\", \"Properties\": {\"Name\": \"shop\", \"RoleArn\": \"arn:aws:iam::111122223333:role/eks\", \"ResourcesVpcConfig\": {\"SubnetIds\": [\"subnet-1\"]}}}".to_string(),
        ];
        for (i, d) in deps.iter().enumerate() {
            let dep = match d.as_slice() {
                [] => String::new(),
                [one] => format!("\"DependsOn\": \"{}\",\n      ", name(*one)),
                many => format!(
                    "\"DependsOn\": [{}],\n      ",
                    many.iter()
                        .map(|j| format!("\"{}\"", name(*j)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            res.push(format!(
                "    \"{}\": {{\n      \"Type\": \"AWS::EKS::FargateProfile\",\n      {dep}\"Properties\": {{\"ClusterName\": {{\"Ref\": \"Cluster\"}}, \"PodExecutionRoleArn\": \"arn:aws:iam::111122223333:role/pods\", \"Selectors\": [{{\"Namespace\": \"ns{i}\"}}]}}\n    }}",
                name(i)
            ));
        }
        return format!("{{\n  \"Resources\": {{\n{}\n  }}\n}}\n", res.join(",\n"));
    }
    let mut s = String::from("Resources:\n  Cluster:\n    Type: AWS::EKS::Cluster\n    Properties:\n      Name: shop\n      RoleArn: arn:aws:iam::111122223333:role/eks\n      ResourcesVpcConfig:\n        SubnetIds: [subnet-1]\n");
    for (i, d) in deps.iter().enumerate() {
        s.push_str(&format!(
            "  {}:\n    Type: AWS::EKS::FargateProfile\n",
            name(i)
        ));
        match (d.as_slice(), flow) {
            ([], _) => {}
            ([one], false) => s.push_str(&format!("    DependsOn: {}\n", name(*one))),
            (many, true) => s.push_str(&format!(
                "    DependsOn: [{}]\n",
                many.iter().map(|j| name(*j)).collect::<Vec<_>>().join(", ")
            )),
            (many, false) => {
                s.push_str("    DependsOn:\n");
                for j in many {
                    s.push_str(&format!("      - {}\n", name(*j)));
                }
            }
        }
        s.push_str(&format!("    Properties:\n      ClusterName: !Ref Cluster\n      PodExecutionRoleArn: arn:aws:iam::111122223333:role/pods\n      Selectors:\n        - Namespace: ns{i}\n"));
    }
    s
}

/// Terraform `awscc_eks_fargate_profile`s with `deps[i]` as `depends_on`.
fn awscc_module(deps: &[Vec<usize>]) -> String {
    let mut s = String::from("resource \"aws_eks_cluster\" \"shop\" {\n  name     = \"shop\"\n  role_arn = \"arn:aws:iam::111122223333:role/eks\"\n  vpc_config {\n    subnet_ids = [\"subnet-1\"]\n  }\n}\n");
    for (i, d) in deps.iter().enumerate() {
        s.push_str(&format!(
            "\nresource \"awscc_eks_fargate_profile\" \"p{i}\" {{\n  cluster_name           = aws_eks_cluster.shop.name\n  fargate_profile_name   = \"p{i}\"\n  pod_execution_role_arn = \"arn:aws:iam::111122223333:role/pods\"\n  selectors              = [{{ namespace = \"ns{i}\" }}]\n"
        ));
        if !d.is_empty() {
            let list: Vec<String> = d
                .iter()
                .map(|j| format!("awscc_eks_fargate_profile.p{j}"))
                .collect();
            s.push_str(&format!("  depends_on = [{}]\n", list.join(", ")));
        }
        s.push_str("}\n");
    }
    s
}

/// Each profile depends on a random subset of the earlier ones.
fn dag() -> impl Strategy<Value = Vec<Vec<usize>>> {
    (2usize..7).prop_flat_map(|n| {
        (0..n)
            .map(|i| prop::collection::vec(0..i.max(1), 0..=i.min(2)))
            .collect::<Vec<_>>()
            .prop_map(|v| {
                v.into_iter()
                    .enumerate()
                    .map(|(i, mut d)| {
                        d.retain(|&j| j < i);
                        d.sort_unstable();
                        d.dedup();
                        d
                    })
                    .collect()
            })
    })
}

/// Whether some two profiles have no dependency path between them.
fn races(deps: &[Vec<usize>]) -> bool {
    let n = deps.len();
    let mut reach = vec![vec![false; n]; n];
    for (i, d) in deps.iter().enumerate() {
        for &j in d {
            reach[i][j] = true;
        }
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                if reach[i][k] && reach[k][j] {
                    reach[i][j] = true;
                }
            }
        }
    }
    (0..n).any(|i| (0..i).any(|j| !reach[i][j] && !reach[j][i]))
}

fn fix_then_check(name: &str, text: &str, fires: bool) -> Result<(), TestCaseError> {
    use fplint::fix::FixOptions;
    use fplint::{ConfigChoice, Linter};
    let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let path = dir.path().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    std::fs::write(&path, text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let target = if name.ends_with(".tf") {
        dir.path().to_path_buf()
    } else {
        path.clone()
    };
    let linter = Linter::with_choice(&[dir.path()], &ConfigChoice::Disabled)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let safe = FixOptions {
        unsafe_fixes: false,
        dry_run: false,
    };
    let before = linter.check_paths(&[&target]);
    prop_assert_eq!(
        before.diagnostics().iter().any(|d| d.code == "FP003"),
        fires,
        "FP003 before fixing:\n{}",
        text
    );
    let out = linter.fix_paths(&[&target], safe);
    prop_assert!(out.errors.is_empty(), "{:?}", out.errors);
    let after = linter.check_paths(&[&target]);
    let fixed = std::fs::read_to_string(&path).unwrap_or_default();
    for d in after.diagnostics() {
        prop_assert!(d.code != "FP000", "fixed file no longer parses:\n{fixed}");
        prop_assert!(
            d.fix
                .as_ref()
                .is_none_or(|f| f.applicability != fplint_core::Applicability::Safe),
            "{} still safe-fixable after --fix:\n{fixed}",
            d.code
        );
    }
    prop_assert!(
        !after.diagnostics().iter().any(|d| d.code == "FP003"),
        "FP003 left:\n{fixed}"
    );
    let again = linter.fix_paths(&[&target], safe);
    prop_assert!(
        again.files.is_empty(),
        "second --fix changed:\n{}",
        again.diff()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn fix_orders_cloudformation_profiles(deps in dag(), json in any::<bool>(), flow in any::<bool>()) {
        let name = if json { "template.json" } else { "template.yaml" };
        fix_then_check(name, &cfn_template(&deps, json, flow), races(&deps))?;
    }

    #[test]
    fn fix_orders_awscc_profiles(deps in dag()) {
        fix_then_check("infra/main.tf", &awscc_module(&deps), races(&deps))?;
    }
}

/// Whether `out` holds a control character a terminal would act on: any
/// but tab and line feed, or, with `color`, an escape that does not start
/// a colour (SGR) sequence, which fplint writes itself.
fn raw_control(out: &str, color: bool) -> Option<(usize, char)> {
    let b = out.as_bytes();
    out.char_indices().find(|&(i, c)| {
        if c == '\t' || c == '\n' || !c.is_control() {
            return false;
        }
        if color && c == '\u{1b}' && b.get(i + 1) == Some(&b'[') {
            let rest = &b[i + 2..];
            let n = rest
                .iter()
                .take_while(|b| b.is_ascii_digit() || **b == b';')
                .count();
            return rest.get(n) != Some(&b'm');
        }
        true
    })
}

/// Every byte value, written raw into a `.tf` or YAML string (a code frame
/// shows the line) and as a YAML escape (a message quotes the value), comes
/// out of every format people read escaped; JSON and SARIF stay exact.
#[test]
fn control_characters_never_reach_the_terminal() {
    use fplint::render;
    let human = |color| render::human::HumanOptions {
        color,
        width: 100,
        ascii: false,
    };
    for byte in 0u8..=255 {
        // Above ASCII, the character of that value (C1 included) as UTF-8, and
        // the raw byte, which is not UTF-8.
        let mut raw = Vec::new();
        match byte {
            0..=0x7f => raw.push(byte),
            _ => raw.extend(char::from(byte).to_string().as_bytes()),
        }
        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        let tf = [&b"locals {\n  a = \"x"[..], &raw, b"]0;t\x07y\" +\n}\n"].concat();
        cases.push(("main.tf", tf));
        let yaml = [
            &b"apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: \"c"[..],
            &raw,
            b"\"\n  region: [\n",
        ]
        .concat();
        cases.push(("cluster.yaml", yaml));
        cases.push((
            "raw.tf",
            [&b"locals { a = \"x"[..], &[byte], b"\" + }\n"].concat(),
        ));
        let escaped = format!(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: \"c\\x{byte:02x}]0;t\"\n  region: us-east-1\nfargateProfiles:\n  - name: fp\n    selectors:\n      - namespace: \"a\\x{byte:02x}]0;t\"\n"
        );
        cases.push(("escaped.yaml", escaped.into_bytes()));
        for (name, bytes) in cases {
            let report = fplint::lint::lint_bytes(name, &bytes, &Options::default());
            // A NUL makes a file binary: YAML that is is someone else's.
            let binary_yaml = byte == 0 && name == "cluster.yaml";
            assert!(
                !report.diagnostics().is_empty() || binary_yaml,
                "byte {byte:#04x} in {name}: nothing to render"
            );
            let tables = fplint::placement::tables_of(&report.project, &report.sources);
            let outputs = [
                (
                    "human",
                    render::human::render(&report, &human(false)),
                    false,
                ),
                (
                    "human --color",
                    render::human::render(&report, &human(true)),
                    true,
                ),
                (
                    "summary line",
                    render::human::summary(&report, std::time::Duration::ZERO),
                    false,
                ),
                ("concise", render::concise::render(&report), false),
                ("github", render::github::render(&report), false),
                (
                    "summary",
                    render::summary::render(&report, &render::summary::SummaryOptions::default()),
                    false,
                ),
                ("statistics", render::statistics::text(&report), false),
                ("placement", fplint::placement::render_text(&tables), false),
                (
                    "mermaid",
                    render::diagram::mermaid(&report.project, &report.sources),
                    false,
                ),
                (
                    "dot",
                    render::diagram::dot(&report.project, &report.sources),
                    false,
                ),
            ];
            for (format, out, color) in outputs {
                if let Some((at, c)) = raw_control(&out, color) {
                    panic!("byte {byte:#04x} in {name}: {format} has {c:?} at {at}:\n{out:?}");
                }
            }
            // The machine formats are exact: each message parses back whole.
            let json: serde_json::Value =
                serde_json::from_str(&render::json::render(&report)).expect("JSON parses");
            let sarif: serde_json::Value =
                serde_json::from_str(&render::sarif::render(&report)).expect("SARIF parses");
            let messages: Vec<&str> = report
                .diagnostics()
                .iter()
                .map(|d| d.message.as_str())
                .collect();
            let in_json: Vec<&str> = json["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d["message"].as_str())
                .collect();
            assert_eq!(in_json, messages, "byte {byte:#04x} in {name}: JSON");
            let in_sarif: Vec<&str> = sarif["runs"][0]["results"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r["message"]["text"].as_str())
                .collect();
            assert_eq!(
                in_sarif.len(),
                messages.len(),
                "byte {byte:#04x} in {name}: SARIF"
            );
        }
    }
}
