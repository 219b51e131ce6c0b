//! Errors that stop a run before any verdict.

use crate::diag::{Diagnostic, Source};
use std::fmt;

/// A problem that stops a run before any verdict: exit code 2.
#[derive(Debug)]
pub enum Error {
    /// An error located in a spec.
    Spec(Box<Diagnostic>, Box<Source>),
    /// A bad option or launch.
    Usage(String),
}

impl Error {
    pub fn render(&self, color: bool) -> String {
        match self {
            Error::Spec(d, source) => d.render(source, color),
            Error::Usage(m) => format!("error: {m}\n"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}
