//! HCL parsing and Terraform evaluation of a one-file module. The module
//! folder does not exist, so `file()` and local modules read nothing.
#![no_main]

use fplint_core::frontend::terraform;
use fplint_core::sources::Sources;
use fplint_core::tree::Limits;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = PathBuf::from("/nonexistent/fplint-fuzz");
    let sources = Sources::new(vec![dir.clone()]);
    let f = sources.add_text("main.tf", text);
    let _ = terraform::load_module(&dir, &[f], &sources, Limits::default());
});
