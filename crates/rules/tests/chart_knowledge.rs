//! The generated chart knowledge is well formed: ranges sorted, each learned
//! from at least one pin that lies in it, and every field's lists aligned.

use fplint_rules::charts::known::CHARTS;
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
    assert!(!CHARTS.is_empty());
    for pair in CHARTS.windows(2) {
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
    for c in CHARTS {
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
    for c in CHARTS {
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
    for c in CHARTS {
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
