//! The whole pipeline, `lint(bytes, file name)`: the same bytes as a YAML,
//! a JSON and a Terraform file, through frontends, rules and suppressions.
//! An "internal error" FP000 means a panic reached the last line of defence.
#![no_main]

use fplint::lint::{lint_bytes, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = Options::default();
    for name in ["input.yaml", "input.json", "main.tf"] {
        let out = lint_bytes(name, data, &opts);
        for d in &out.diagnostics {
            assert!(
                !d.message.starts_with("internal error"),
                "{name}: {}",
                d.message
            );
        }
    }
});
