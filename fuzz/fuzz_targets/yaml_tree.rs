//! The YAML reader: no panic, no hang, every span slices the text, and the
//! fast reader of plain block YAML builds what saphyr alone builds.
#![no_main]

use fplint_core::source::FileId;
use fplint_core::tree::{yaml, Limits, Node, NodeKind};
use libfuzzer_sys::fuzz_target;

fn check(text: &str, n: &Node) {
    let r = n.span.range();
    assert!(r.start <= r.end && r.end <= text.len(), "span out of range");
    assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
    match &n.kind {
        NodeKind::Scalar(..) => {}
        NodeKind::Seq(items) => items.iter().for_each(|i| check(text, i)),
        NodeKind::Map(entries) => entries.iter().for_each(|e| {
            check(text, &e.key);
            check(text, &e.value);
        }),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = yaml::parse(text, FileId(0), Limits::default());
    for d in &parsed.documents {
        check(text, d);
    }
    if let Some(e) = &parsed.error {
        assert!(e.span.end as usize <= text.len());
    }
    let general = yaml::parse_general(text, FileId(0), Limits::default());
    assert_eq!(parsed.documents, general.documents, "trees differ");
    assert_eq!(parsed.duplicates, general.duplicates, "duplicate keys differ");
    assert_eq!(parsed.error.is_some(), general.error.is_some(), "errors differ");
});
