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
    let extra = workload(&facts, "templates/extra.yaml");
    assert_eq!(field(extra, Field::HostPorts), None);
}
