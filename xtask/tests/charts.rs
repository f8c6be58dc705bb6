//! The chart prober on a tiny chart whose facts are known by reading it.

use std::path::Path;
use xtask::charts::{learn, ChartFacts, Field, WorkloadFact};

fn tiny() -> ChartFacts {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/charts/tiny");
    match learn(&dir, None) {
        Ok((facts, _)) => facts,
        Err(e) => panic!("tiny: {e}"),
    }
}

fn workload<'a>(facts: &'a ChartFacts, template: &str) -> &'a WorkloadFact {
    match facts.workloads.iter().find(|w| w.id.template == template) {
        Some(w) => w,
        None => panic!("no workload from {template}: {facts:#?}"),
    }
}

#[test]
fn workloads_and_their_switches() {
    let facts = tiny();
    assert_eq!(
        (facts.name.as_str(), facts.version.as_str()),
        ("tiny", "1.2.3")
    );
    let got: Vec<_> = facts
        .workloads
        .iter()
        .map(|w| (w.id.template.as_str(), w.id.kind.as_str(), w.name.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("templates/extra.yaml", "DaemonSet", "tiny-extra"),
            ("templates/web.yaml", "Deployment", "tiny-web"),
            ("templates/worker.yaml", "Deployment", "tiny-worker"),
        ]
    );
    let when = |t: &str| {
        workload(&facts, t)
            .when
            .iter()
            .map(|s| (s.value.as_str(), s.default, s.needs))
            .collect::<Vec<_>>()
    };
    assert_eq!(when("templates/web.yaml"), []);
    assert_eq!(
        when("templates/worker.yaml"),
        [("worker.enabled", true, true)]
    );
    // Rendered only when the switch is flipped from its default.
    assert_eq!(
        when("templates/extra.yaml"),
        [("extra.enabled", false, true)]
    );
}

#[test]
fn a_value_that_changes_a_kind_is_a_guard_and_a_namespace_value_is_not() {
    let facts = tiny();
    let guards: Vec<&str> = facts.guards.iter().map(String::as_str).collect();
    assert_eq!(guards, ["worker.kind"]);
    let worker = workload(&facts, "templates/worker.yaml");
    assert_eq!(worker.namespace, None);
    let ns: Vec<&str> = worker.namespace_values.iter().map(String::as_str).collect();
    assert_eq!(ns, ["worker.namespace"]);
    assert!(workload(&facts, "templates/web.yaml")
        .namespace_values
        .is_empty());
}

fn field(w: &WorkloadFact, f: Field) -> Option<(Vec<&str>, Vec<&str>, bool, &str)> {
    w.fields.iter().find(|x| x.field == f).map(|x| {
        (
            x.values.iter().map(String::as_str).collect(),
            x.defaults.iter().map(String::as_str).collect(),
            x.all,
            x.rendered.as_str(),
        )
    })
}

#[test]
fn own_tolerations_then_the_global_ones() {
    let facts = tiny();
    let web = workload(&facts, "templates/web.yaml");
    // global.tolerations has no default: found in the template text, and
    // only once web.tolerations is empty.
    assert_eq!(
        field(web, Field::Tolerations),
        Some((
            vec!["web.tolerations", "global.tolerations"],
            vec!["[]", "null"],
            false,
            "null"
        ))
    );
    let worker = workload(&facts, "templates/worker.yaml");
    assert_eq!(
        field(worker, Field::Tolerations),
        Some((
            vec!["global.tolerations", "worker.tolerations"],
            vec!["null", "[]"],
            true,
            "null"
        ))
    );
}

#[test]
fn fixed_fields_and_plain_values() {
    let facts = tiny();
    let web = workload(&facts, "templates/web.yaml");
    assert_eq!(
        field(web, Field::Replicas),
        Some((vec!["web.replicas"], vec!["2"], false, "2"))
    );
    // Hard-coded in the template: no value, and the render says what it is.
    assert_eq!(
        field(web, Field::HostNetwork),
        Some((vec![], vec![], false, "true"))
    );
    // Nothing in the template or helpers writes a node selector.
    assert_eq!(
        field(web, Field::NodeSelector),
        Some((vec![], vec![], false, "null"))
    );
    // Absent from a container is not fixed: a security context or an extra
    // container written whole from values may bring it.
    assert_eq!(field(web, Field::Privileged), None);
    let extra = workload(&facts, "templates/extra.yaml");
    assert_eq!(field(extra, Field::HostPorts), None);
}

fn pin(commit: char) -> xtask::charts::PinInfo {
    xtask::charts::PinInfo {
        repo: "example/charts".into(),
        commit: commit.to_string().repeat(40),
        folder: "charts/tiny".into(),
    }
}

#[test]
fn versions_with_the_same_facts_share_a_range() {
    let old = tiny();
    let mut new = old.clone();
    new.version = "1.4.0".into();
    // Another name is the same facts; another guard is not.
    new.workloads[0].name = "renamed".into();
    let mut newest = new.clone();
    newest.version = "2.0.1".into();
    newest.guards.insert("image".into());
    let charts =
        xtask::charts::known_charts(vec![(newest, pin('c')), (old, pin('a')), (new, pin('b'))]);
    let ranges: Vec<_> = charts.iter().map(|c| (c.from, c.until)).collect();
    assert_eq!(ranges, [((1, 2, 0), (1, 5, 0)), ((2, 0, 0), (2, 1, 0))]);
    // The newest pin of a range gives its names.
    assert_eq!(charts[0].workloads[0].name, "renamed");
    assert_eq!(charts.iter().map(|c| c.pins.len()).sum::<usize>(), 3);
    // The data file holds it as the crate reads it back.
    let text = match fplint_rules::charts::known::to_json(&charts) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    };
    assert!(text.contains("\"from\": \"1.2.0\",\n"), "{text}");
    let back = match fplint_rules::charts::known::parse(text.leak()) {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(back.len(), 2);
    assert_eq!(back[1].pins[0].commit, "c".repeat(40));
}

#[test]
fn a_range_ends_where_the_next_facts_begin() {
    let old = tiny();
    let mut new = old.clone();
    new.version = "1.2.7".into();
    new.guards.insert("image".into());
    let charts = xtask::charts::known_charts(vec![(old, pin('a')), (new, pin('b'))]);
    let ranges: Vec<_> = charts.iter().map(|c| (c.from, c.until)).collect();
    // Facts that change inside a minor split it at the pinned patch.
    assert_eq!(ranges, [((1, 2, 0), (1, 2, 7)), ((1, 2, 7), (1, 3, 0))]);
}
