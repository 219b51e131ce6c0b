//! The book's cells run the checker in the browser (issue 24): the book is
//! built with gsync-check compiled to WebAssembly
//! (`book/build-with-checker.sh`), served on localhost, and headless
//! Chromium presses Check on every ```gsync,cell block
//! (`tests/browser/cells.cjs`, through playwright-core). What each cell
//! shows must be what the native binary prints for the same source and
//! options (`check cell.gsync --memory-model M OPTIONS --svg F`): exit
//! code, report (or error) and counterexample SVG; so must a cell edited
//! as a student would (other options, a typo). Without the wasm,
//! every cell must stay highlighted code with a note.
//!
//! Needs node, playwright-core (`GSYNC_PLAYWRIGHT`: its `node_modules`
//! folder, default `~/.cache/gsync-playwright/node_modules`), Chromium
//! (`GSYNC_CHROMIUM`, default `/usr/bin/chromium`), mdbook and the
//! `wasm32-unknown-unknown` target; `.ci/run` installs them. Without one
//! the test is ignored with a note, and fails under `CI=true`.
//! `GSYNC_SHOTS=DIR` saves a PNG of a cell before and after Check there.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() -> std::process::ExitCode {
    run_trials(vec![needs(
        "every_cell_in_the_browser_shows_what_the_binary_prints",
        missing_tool(),
        every_cell_in_the_browser_shows_what_the_binary_prints,
    )])
}

fn chromium() -> PathBuf {
    std::env::var_os("GSYNC_CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), PathBuf::from)
}

fn node_modules() -> PathBuf {
    std::env::var_os("GSYNC_PLAYWRIGHT").map_or_else(
        || {
            let home = std::env::var_os("HOME").unwrap_or_default();
            Path::new(&home).join(".cache/gsync-playwright/node_modules")
        },
        PathBuf::from,
    )
}

fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What this machine lacks to run the cells, if anything.
fn missing_tool() -> Option<String> {
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let wasm_std = Path::new(&sysroot).join("lib/rustlib/wasm32-unknown-unknown");
    if !wasm_std.is_dir() {
        Some("the wasm32-unknown-unknown target is not installed (rustup target add wasm32-unknown-unknown)".into())
    } else if !runs("mdbook", &["--version"]) {
        Some("mdbook is not installed (cargo install mdbook)".into())
    } else if !runs("node", &["--version"]) {
        Some("node is not installed (apt-get install nodejs npm)".into())
    } else if !node_modules().join("playwright-core").is_dir() {
        Some(format!(
            "playwright-core is not in {} (npm install --prefix ~/.cache/gsync-playwright playwright-core)",
            node_modules().display()
        ))
    } else if !chromium().is_file() {
        Some(format!(
            "no Chromium at {} (apt-get install chromium)",
            chromium().display()
        ))
    } else {
        None
    }
}

/// One cell as the browser left it after Check (`cells.cjs`).
#[derive(serde::Deserialize)]
struct Cell {
    page: String,
    index: usize,
    state: String,
    source: String,
    memory_model: String,
    options: String,
    /// The text under the cell.
    shown: String,
    svg_shown: bool,
    exit: Option<i32>,
    svg: Option<String>,
}

/// How many cells the chapters have (```gsync,cell fences).
fn cells_in_sources() -> usize {
    std::fs::read_dir(repo().join("book/src"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .map(|text| {
            text.lines()
                .filter(|l| l.trim_start().starts_with("```gsync,cell"))
                .count()
        })
        .sum()
}

fn checked(what: &str, out: std::process::Output) {
    assert!(
        out.status.success(),
        "{what} failed\n{}{}",
        stdout(&out),
        stderr(&out)
    );
}

fn every_cell_in_the_browser_shows_what_the_binary_prints() {
    let tmp = std::env::temp_dir().join(format!("gsync-browser-{}", std::process::id()));
    let book = tmp.join("book");
    let script = repo().join("book/build-with-checker.sh");
    checked(
        "book/build-with-checker.sh",
        Command::new(&script).arg(&book).output().unwrap(),
    );
    let json = tmp.join("cells.json");
    let mut node = node_cells();
    node.arg(&book).arg(&json);
    if let Some(shots) = std::env::var_os("GSYNC_SHOTS") {
        node.arg(shots);
    }
    checked("tests/browser/cells.cjs", node.output().unwrap());
    let cells: Vec<Cell> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // Every cell, then the primer's cell edited twice (cells.cjs).
    assert_eq!(
        cells.len(),
        cells_in_sources() + 2,
        "the browser checked a different number of cells than the chapters have"
    );
    assert_eq!(
        cells.last().map(|c| c.exit),
        Some(Some(2)),
        "the spec with a typo is an error"
    );
    let mut failures = Vec::new();
    for (k, cell) in cells.iter().enumerate() {
        if let Err(why) = compare(cell, &tmp.join(format!("cell{k}"))) {
            failures.push(format!("{} cell {}: {why}", cell.page, cell.index));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The same book without the wasm, as plain `mdbook build book` makes it.
    std::fs::remove_file(book.join("gsync/gsync_web.wasm")).unwrap();
    checked(
        "tests/browser/cells.cjs --without-checker",
        node_cells()
            .arg("--without-checker")
            .arg(&book)
            .output()
            .unwrap(),
    );
    std::fs::remove_dir_all(&tmp).ok();
}

/// `node tests/browser/cells.cjs`, its arguments to follow.
fn node_cells() -> Command {
    let mut node = Command::new("node");
    node.arg(repo().join("tests/browser/cells.cjs"))
        .env("NODE_PATH", node_modules())
        .env("GSYNC_CHROMIUM", chromium());
    node
}

/// Runs the native binary as the cell ran and compares.
fn compare(cell: &Cell, dir: &Path) -> Result<(), String> {
    if cell.state != "done" {
        return Err(format!("the check ended `{}`: {}", cell.state, cell.shown));
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("cell.gsync"), &cell.source).unwrap();
    let mut args = vec!["check", "cell.gsync", "--memory-model", &cell.memory_model];
    args.extend(cell.options.split_whitespace());
    args.extend(["--svg", "cell.svg", "--threads", "1"]);
    let out = run_in(dir, &args);
    let exit = code(&out);
    let mut expected = stdout(&out);
    if exit == 2 {
        expected.push_str(&stderr(&out));
    }
    let svg = std::fs::read_to_string(dir.join("cell.svg")).ok();
    let command = format!("gsync-check {}", args.join(" "));
    if cell.exit != Some(exit) {
        return Err(format!(
            "exit {:?} in the browser, {exit} from `{command}`",
            cell.exit
        ));
    }
    if cell.shown != expected {
        return Err(format!(
            "`{command}`\n--- browser\n{}\n--- binary\n{expected}",
            cell.shown
        ));
    }
    if cell.svg != svg {
        return Err(format!("the SVG differs from `{command}`'s"));
    }
    if cell.svg_shown != svg.is_some() {
        return Err("the SVG is not shown under the cell".into());
    }
    Ok(())
}
