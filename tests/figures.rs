//! The book's counterexample figures cannot drift: each SVG under
//! `book/src/figures/` is redrawn by `gsync-check ... --svg` and must be
//! identical to the committed file, every figure the book shows is drawn
//! here, and every figure drawn here is shown by the book.
//!
//! `GSYNC_BLESS=1` redraws the committed figures after a deliberate change.
//!
//! The concept diagrams under `book/src/figures/concepts/` are SVG source
//! written by hand, not drawings of a counterexample: each must be
//! well-formed SVG with a `<title>`, and shown by the book.

mod common;

use common::*;

/// Figure file stem and the arguments that draw it.
const FIGURES: &[(&str, &[&str])] = &[
    (
        "tree_barrier_single",
        &[
            "tree_barrier_single",
            "--param",
            "iters=1",
            "--memory-model",
            "sc",
        ],
    ),
    (
        "semaphore_check_outside_lock",
        &["semaphore_check_outside_lock", "--memory-model", "sc"],
    ),
    (
        "sense_barrier_no_flip",
        &["sense_barrier_no_flip", "--memory-model", "sc"],
    ),
];

#[test]
fn figures_are_redrawn_identically() {
    let bless = std::env::var_os("GSYNC_BLESS").is_some();
    let dir = repo().join("book/src/figures");
    let tmp = std::env::temp_dir().join(format!("gsync-figures-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failures = Vec::new();
    for (stem, args) in FIGURES {
        let drawn = tmp.join(format!("{stem}.svg"));
        let mut argv: Vec<&str> = args.to_vec();
        argv.extend(["--svg", drawn.to_str().unwrap()]);
        let out = run(&argv);
        assert_eq!(code(&out), 1, "{stem}: the figure shows a violation");
        let svg = std::fs::read_to_string(&drawn).expect("--svg wrote the file");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        let committed = dir.join(format!("{stem}.svg"));
        if bless {
            std::fs::write(&committed, &svg).unwrap();
        } else if std::fs::read_to_string(&committed).ok().as_deref() != Some(svg.as_str()) {
            failures.push(format!(
                "{} differs from a fresh drawing",
                committed.display()
            ));
        }
    }
    remove_and_assert_goldens_match(&tmp, &failures);
}

#[test]
fn the_book_shows_exactly_the_drawn_figures() {
    let mut shown = Vec::new();
    for entry in std::fs::read_dir(repo().join("book/src"))
        .unwrap()
        .flatten()
    {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for piece in text.split("](figures/").skip(1) {
            let name = piece.split(')').next().unwrap();
            // Concept diagrams are drawn by hand, not by the tool.
            if !name.starts_with("concepts/") {
                shown.push(name.trim_end_matches(".svg").to_string());
            }
        }
    }
    shown.sort();
    shown.dedup();
    let mut drawn: Vec<String> = FIGURES.iter().map(|(s, _)| s.to_string()).collect();
    drawn.sort();
    assert_eq!(
        shown, drawn,
        "figures shown by the book vs drawn by this test"
    );
}

#[test]
fn svg_is_refused_for_a_family_and_explained_when_verified() {
    let out = run(&["mutex", "--svg", "/dev/null"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--svg draws the counterexample of one spec"));
    let tmp = std::env::temp_dir().join(format!("gsync-nofig-{}.svg", std::process::id()));
    let out = run(&["ticket_mutex", "--svg", tmp.to_str().unwrap()]);
    assert_eq!(code(&out), 0);
    assert!(stderr(&out).contains("no counterexample to draw"));
    assert!(!tmp.exists(), "nothing is drawn for a verified spec");
}

#[test]
fn concept_diagrams_are_hand_written_svg_and_all_shown() {
    let dir = repo().join("book/src/figures/concepts");
    let mut book = String::new();
    for entry in std::fs::read_dir(repo().join("book/src"))
        .unwrap()
        .flatten()
    {
        book.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
    }
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.ends_with(".svg"), "{name}: only SVG source here");
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{name}: one <svg> element"
        );
        assert!(
            svg.contains("<title>"),
            "{name}: has a <title> for screen readers"
        );
        // Balanced elements: every opening tag that is not self-closing is closed.
        let opens = svg.matches('<').count();
        let closes = svg.matches("</").count() + svg.matches("/>").count();
        let comments = svg.matches("<!--").count();
        assert_eq!(
            opens - comments,
            2 * svg.matches("</").count() + svg.matches("/>").count(),
            "{name}: {opens} tags, {closes} closings"
        );
        assert!(
            book.contains(&format!("](figures/concepts/{name})")),
            "{name} is not shown by any chapter"
        );
        count += 1;
    }
    assert!(count >= 1, "the primer's state graph is here");
}
