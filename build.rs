//! Embeds every spec under `specs/` into the binary, so built-in specs work
//! from any directory.

use std::fs;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=specs");
    let mut entries: Vec<(String, String)> = Vec::new();
    if let Ok(dir) = fs::read_dir("specs") {
        for entry in dir.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) == Some("gsync") {
                let stem = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_string();
                let abs = fs::canonicalize(&path).expect("spec path");
                println!("cargo:rerun-if-changed={}", path.display());
                entries.push((stem, abs.display().to_string()));
            }
        }
    }
    entries.sort();
    let mut code = String::from("/// Built-in specs: (file stem, text), sorted by name.\npub static BUILTIN_SPECS: &[(&str, &str)] = &[\n");
    for (stem, path) in &entries {
        code.push_str(&format!("    ({stem:?}, include_str!({path:?})),\n"));
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("builtin_specs.rs");
    fs::write(out, code).expect("write builtin_specs.rs");
}
