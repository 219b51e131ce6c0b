//! A counterexample as data: the schedule (which thread moved at each
//! step) and what each step did, as the report and a counterexample file
//! carry it. `trace` builds it from the model.

use serde::{Deserialize, Serialize};

/// Where an instruction is in the spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePos {
    /// The file, when it is not the spec itself (a CUDA file a harness
    /// imports): its last path component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub location: String,
    pub value: i64,
}

/// One executed instruction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Scheduling step (1-based): instructions with the same step ran as one
    /// atomic move of their thread.
    pub step: u32,
    pub thread: u32,
    pub block: u32,
    pub warp: u32,
    pub lane: u32,
    pub pc: u32,
    /// The source text of the instruction (its first line).
    pub instruction: String,
    pub span: SourcePos,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<Access>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<Access>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The warp's active mask: bit `l` set when lane `l` executed this
    /// instruction in this step (absent for a warp of one thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_mask: Option<u64>,
}

/// A counterexample. For a safety violation `cycle` is empty; for a deadlock
/// in which threads keep spinning, `cycle` shows a loop they can repeat
/// forever without finishing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// Thread index moved at each step from the initial state.
    pub schedule: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cycle_schedule: Vec<u32>,
    pub steps: Vec<Step>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cycle: Vec<Step>,
}
