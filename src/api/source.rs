//! Where specs come from: the built-in specs compiled into the binary, and
//! files.

use super::Error;
use crate::diag::Source;
use crate::spec::ast::Header;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/builtin_specs.rs"));

/// The families a built-in spec can belong to, in the order `list` shows them.
pub const FAMILIES: &[&str] = &["barrier", "mutex", "semaphore"];

/// A spec text and where it came from.
#[derive(Clone, Debug)]
pub struct SpecSource {
    /// The spec's name: its file stem (a built-in's is its header's name;
    /// [`prepare`] names a file's spec by its header too).
    pub name: String,
    /// `builtin:NAME` or the path it was read from.
    pub origin: String,
    pub text: String,
}

impl SpecSource {
    pub fn builtin(name: &str) -> Option<SpecSource> {
        BUILTIN_SPECS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, text)| SpecSource {
                name: n.to_string(),
                origin: format!("builtin:{n}"),
                text: text.to_string(),
            })
    }

    pub fn from_file(path: &Path) -> Result<SpecSource, Error> {
        let text = crate::spec::input::read_text(path).map_err(Error::Usage)?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("spec")
            .to_string();
        Ok(SpecSource {
            name,
            origin: path.display().to_string(),
            text,
        })
    }

    /// The spec named as its header's `//! name:` line says, if it has one
    /// (a file's stem is only where it happens to be saved).
    pub fn named_by_header(&self, header: &Header) -> SpecSource {
        let mut spec = self.clone();
        if let Some(name) = header.name.as_deref().map(str::trim) {
            if !name.is_empty() {
                spec.name = name.to_string();
            }
        }
        spec
    }

    pub fn source(&self) -> Source {
        Source::new(self.origin.clone(), self.text.clone())
    }
}

/// Every built-in spec, sorted by name.
pub fn builtins() -> impl Iterator<Item = SpecSource> {
    BUILTIN_SPECS
        .iter()
        .filter_map(|(n, _)| SpecSource::builtin(n))
}
