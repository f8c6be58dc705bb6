//! The generated chart knowledge is well formed: ranges sorted, each learned
//! from at least one pin that lies in it, and every field's lists aligned.

use fplint_rules::charts::known::{charts, parse, to_json, DATA};
use fplint_rules::charts::{known_chart, Join};

fn version(v: &str) -> (u64, u64, u64) {
    let core = v
        .trim_start_matches('v')
        .split(['-', '+'])
        .next()
        .unwrap_or("");
    let mut parts = core.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

#[test]
fn ranges_are_sorted_and_hold_their_pins() {
    let all = charts();
    assert!(!all.is_empty());
    for pair in all.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(
            (a.name, a.from) < (b.name, b.from),
            "{} {:?} before {} {:?}",
            a.name,
            a.from,
            b.name,
            b.from
        );
        if a.name == b.name {
            assert!(a.until <= b.from, "{} ranges overlap", a.name);
        }
    }
    for c in all {
        assert!(
            c.from < c.until,
            "{}: {:?} !< {:?}",
            c.name,
            c.from,
            c.until
        );
        assert!(!c.pins.is_empty(), "{} {:?} has no pin", c.name, c.from);
        for p in c.pins {
            assert!(c.in_range(version(p.version)), "{} {}", c.name, p.version);
            assert_eq!(p.commit.len(), 40, "{} {}", c.name, p.version);
        }
        assert!(c.guards.windows(2).all(|g| g[0] < g[1]), "{}", c.name);
    }
}

#[test]
fn field_sources_are_aligned() {
    for c in charts() {
        for w in c.workloads {
            for f in w.fields {
                assert_eq!(f.values.len(), f.defaults.len(), "{} {}", c.name, w.name);
                assert!(!f.rendered.is_empty(), "{} {}", c.name, w.name);
                if f.join == Join::All {
                    assert!(f.values.len() > 1, "{} {}", c.name, w.name);
                }
            }
        }
    }
}

#[test]
fn the_newest_range_answers_an_unpinned_release() {
    for c in charts() {
        let Some(newest) = known_chart(c.name, None) else {
            panic!("{} not found", c.name);
        };
        assert!(newest.from >= c.from, "{}", c.name);
        let pin = c.pins[0].version;
        assert!(
            known_chart(c.name, Some(pin)).is_some_and(|k| (k.name, k.from) == (c.name, c.from)),
            "{} {pin}",
            c.name
        );
    }
    assert!(known_chart("no-such-chart", None).is_none());
}

#[test]
fn the_data_reads_and_is_written_as_the_generator_writes_it() {
    let charts = match parse(DATA) {
        Ok(c) => c,
        Err(e) => panic!("known.json does not read: {e}"),
    };
    assert_eq!(charts.len(), fplint_rules::charts::known::charts().len());
    match to_json(charts) {
        Ok(text) => assert!(text == DATA, "known.json is not as `to_json` writes it"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_quoted_value_keeps_its_text() {
    let text = r#"[{"name":"c","from":"1.2.0","until":"1.3.0","pins":[],"guards":[],
        "workloads":[{"kind":"Deployment","name":"w","template":"t.yaml","namespace":null,
        "namespace_values":[],"when":[],"fields":[{"field":"Tolerations","values":["tolerations"],
        "defaults":[[{"key":"b","operator":"Exists"}]],"join":"First","rendered":{"z":1,"a":"\u00e9"}}]}]}]"#;
    let charts = match parse(text) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let f = &charts[0].workloads[0].fields[0];
    assert_eq!(f.defaults, &[r#"[{"key":"b","operator":"Exists"}]"#]);
    assert_eq!(f.rendered, r#"{"z":1,"a":"\u00e9"}"#);
    assert_eq!((charts[0].from, charts[0].until), ((1, 2, 0), (1, 3, 0)));
    assert!(parse(text.replace("1.2.0", "1.2").leak()).is_err());
}
