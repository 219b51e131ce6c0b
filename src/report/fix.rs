//! A checked fix in a check's report (`check --suggest-fix`): what the
//! search of `repair` found for the violation, only ever a change under
//! which the same check verifies, or why there is none.

use serde::{Deserialize, Serialize};

/// What the search for a fix found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuggestedFix {
    pub status: FixStatus,
    /// `found`: how it was checked; `none`: why no ordering change cures
    /// the violation; `inconclusive`: the limit that stopped the search.
    pub why: String,
    /// The changes as instructions (`insert ... before line 19:9`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub help: Vec<String>,
    /// The fix as a unified diff of the spec.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// The fix as replacements of whole lines of the spec (for SARIF).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replacements: Vec<LineReplacement>,
    /// No single part of the fix can be undone (each was checked).
    #[serde(default)]
    pub minimal: bool,
    /// A fix that verifies at the check's launch but not at one block
    /// more: what the larger launch gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
    /// Checks the search ran, and its seconds (timings only with `--stats`).
    pub checks: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

/// How the search for a fix ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixStatus {
    /// A change of orders, scopes or fences under which the check verifies.
    Found,
    /// None: even with everything at its strongest the check fails (or
    /// the memory model has no orders to change).
    None,
    /// A limit stopped the search before it decided.
    Inconclusive,
}

/// A replacement of whole lines: the text from line `start_line`,
/// column `start_column`, up to (not including) line `end_line`, column `end_column`
/// (1-based; SARIF's `deletedRegion`; an empty region is an insertion),
/// replaced by `inserted`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineReplacement {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub inserted: String,
}
