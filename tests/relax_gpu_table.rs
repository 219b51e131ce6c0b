//! The book's table of original against relaxed versions on the GPU
//! (`book/src/relax.md`, "On the GPU") is the recorded `run --compare`
//! reports it names: every cell is recomputed from them here, so a
//! number typed into the table, or a report replaced without the table,
//! fails. (The GPU runs themselves are not part of the tests: CI has no
//! GPU.)

mod common;

use common::repo;
use serde_json::Value;
use std::collections::HashMap;

const OPEN: &str = "<!-- gpu-relax-table: ";
const CLOSE: &str = "<!-- /gpu-relax-table -->";

/// The last report per (spec, iters) of a JSON-lines file of
/// `run --compare --format json` reports (a spec without `iters` has no
/// row in the table).
fn reports(text: &str) -> HashMap<(String, i64), Value> {
    let mut by_key = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let report: Value = serde_json::from_str(line).expect("a JSON report per line");
        let params = &report["rows"][0]["original"]["config"]["params"];
        let Some(iters) = params
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p[0] == "iters"))
            .and_then(|p| p[1].as_i64())
        else {
            continue;
        };
        let spec = report["original"].as_str().unwrap().to_string();
        by_key.insert((spec, iters), report);
    }
    by_key
}

/// A row's cell at one contention level, as the book writes it.
fn cell(row: &Value) -> String {
    let (o, x) = (&row["original"], &row["other"]);
    match (o["ns_per_op"].as_f64(), x["ns_per_op"].as_f64()) {
        (Some(a), Some(b)) => format!("{a:.0} → {b:.0} ({:.2}×)", a / b),
        _ => {
            let (a, b) = (
                o["outcome"].as_str().unwrap(),
                x["outcome"].as_str().unwrap(),
            );
            match a == b {
                true => a.to_string(),
                false => format!("{a} / {b}"),
            }
        }
    }
}

fn expected_row(report: &Value, spec: &str, iters: i64) -> String {
    let rows = report["rows"].as_array().unwrap();
    let cells: Vec<String> = [1, 2, 4, 8, 16]
        .iter()
        .map(|b| {
            rows.iter()
                .find(|r| r["blocks_per_sm"] == *b)
                .map_or_else(|| "not run".to_string(), cell)
        })
        .collect();
    format!("| {spec} | {iters} | {} |", cells.join(" | "))
}

#[test]
fn every_cell_of_the_gpu_table_is_the_recorded_reports() {
    let book = repo().join("book/src");
    let page = std::fs::read_to_string(book.join("relax.md")).unwrap();
    let start = page.find(OPEN).expect("the table's opening marker");
    let rest = &page[start + OPEN.len()..];
    let (file, rest) = rest.split_once(" -->").unwrap();
    let table = &rest[..rest.find(CLOSE).expect("the table's closing marker")];
    let recorded = reports(&std::fs::read_to_string(book.join(file)).unwrap());
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| spec"))
        .collect();
    assert!(rows.len() >= 10, "{table}");
    for row in rows {
        let cols: Vec<&str> = row.split(" | ").collect();
        let spec = cols[0].trim_start_matches("| ");
        let iters: i64 = cols[1].parse().unwrap();
        let report = recorded
            .get(&(spec.to_string(), iters))
            .unwrap_or_else(|| panic!("no recorded report of {spec} at iters {iters}"));
        assert_eq!(row, expected_row(report, spec, iters));
        // Each version was model-checked and verified before it ran.
        for r in report["rows"].as_array().unwrap() {
            for side in ["original", "other"] {
                assert_eq!(r[side]["model_verdict"], "verified", "{spec}");
            }
        }
    }
}
