//! A saved counterexample, as `tests/fuzz/targets.rs` reads it (a spec
//! path in it is relative to `counterexamples/`): no panic, no hang.
#![no_main]

#[path = "../../tests/fuzz/targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../counterexamples");
    targets::replay(data, &dir);
});
