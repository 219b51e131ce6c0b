//! A counterexample file (`--out DIR`, `counterexamples/`): one violation
//! with the options and the spec (named, located and hashed) that replay
//! needs.

use super::{Report, RunConfig, ViolationReport};
use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};

/// A counterexample file (`--out DIR`, `counterexamples/`): everything
/// replay needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedCounterexample {
    pub spec: String,
    /// `builtin:NAME`, or the spec's path: relative to the folder of the
    /// counterexample file (so replay works from any directory and the two
    /// can move together), or absolute.
    pub source: String,
    /// [`spec_hash`] of the spec's text when it was checked: replay tells a
    /// changed spec from a corrupt recording by it.
    pub spec_hash: String,
    pub config: RunConfig,
    pub violation: ViolationReport,
}

impl SavedCounterexample {
    /// The counterexample of `violation`, found by `report` on the spec
    /// whose text is `spec_text`; `source` as the report has it.
    pub fn new(report: &Report, violation: &ViolationReport, spec_text: &str) -> Self {
        SavedCounterexample {
            spec: report.spec.clone(),
            source: report.source.clone(),
            spec_hash: spec_hash(spec_text),
            config: report.config.clone(),
            violation: violation.clone(),
        }
    }

    /// Records a spec file's path relative to `dir`, the folder the
    /// counterexample is written to (built-ins keep their name).
    pub fn locate_source_from(&mut self, dir: &Path) {
        if self.source.starts_with(BUILTIN) {
            return;
        }
        let absolute = |p: &Path| {
            std::fs::canonicalize(p).unwrap_or_else(|_| {
                std::env::current_dir()
                    .map(|cwd| cwd.join(p))
                    .unwrap_or_else(|_| p.to_path_buf())
            })
        };
        let spec = absolute(Path::new(&self.source));
        let path = relative_path(&spec, &absolute(dir)).unwrap_or(spec);
        self.source = path.to_string_lossy().replace('\\', "/");
    }

    /// Where the spec is: a built-in's name, or the path of its file
    /// (`source` resolved against the folder of `file`, this counterexample).
    pub fn spec_location(&self, file: &Path) -> SpecLocation {
        match self.source.strip_prefix(BUILTIN) {
            Some(name) => SpecLocation::Builtin(name.to_string()),
            None => {
                let dir = file.parent().unwrap_or(Path::new(""));
                SpecLocation::File(dir.join(&self.source))
            }
        }
    }
}

const BUILTIN: &str = "builtin:";

/// Where a saved counterexample's spec is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecLocation {
    Builtin(String),
    File(PathBuf),
}

/// `base`-relative path to `target` (both absolute); `None` when they have
/// no common root (another drive).
fn relative_path(target: &Path, base: &Path) -> Option<PathBuf> {
    let t: Vec<Component> = target.components().collect();
    let b: Vec<Component> = base.components().collect();
    if t.first() != b.first() {
        return None;
    }
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    Some(out)
}

/// A content hash of a spec's text (64-bit FNV-1a, as `fnv1a64:HEX`): it
/// detects an edit, not an adversary.
pub fn spec_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{h:016x}")
}
