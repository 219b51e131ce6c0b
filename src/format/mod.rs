//! Reports shown to people and tools: the text summary with its
//! counterexample table, SARIF for code scanning, JUnit XML for CI, and an
//! SVG sequence diagram of a counterexample. (JSON is the serde form of
//! `report` itself.)

pub mod junit;
#[cfg(not(feature = "terminal"))]
mod plain;
pub mod reductions;
pub mod sarif;
pub mod svg;
pub mod text;
mod xml;
