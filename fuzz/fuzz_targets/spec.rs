//! A spec file, as `tests/fuzz/targets.rs` reads it: no panic, no hang.
#![no_main]

#[path = "../../tests/fuzz/targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::spec(data);
});
