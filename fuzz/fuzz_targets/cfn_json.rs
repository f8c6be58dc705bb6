//! CloudFormation from JSON (seeded with JSON templates).
#![no_main]

use fplint_core::frontend;
use fplint_core::source::{FileId, SourceFile};
use fplint_core::tree::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = SourceFile::new(FileId(0), "template.json", text);
    let out = frontend::load_document_file(&file, Limits::default());
    for d in &out.diagnostics {
        assert!(d.span.end as usize <= text.len(), "diagnostic span out of range");
    }
});
