//! A counterexample drawn as an SVG sequence diagram: one lifeline per
//! thread, time flowing down, each executed instruction a box on its
//! thread's lifeline with what it read and wrote, and the repeating part of
//! a lasso on a shaded band with an arrow back to its start. A dashed
//! arrow runs from each load of another thread's write to that write (the
//! most recent earlier write of the value read to that location; a load of
//! the initial value, or of its own thread's write, gets none). Plain text
//! out, no renderer needed, and
//! deterministic: the book's figures are regenerated and compared by the
//! tests like the golden counterexamples.

use super::text::{effects, thread_columns, wrap, ThreadNames, COLUMN};
use super::xml::escape;
use crate::report::{RunConfig, Step, Trace, ViolationReport};
use std::fmt::Write;

/// Pixels: one text line, a lifeline's width, the step-number gutter.
const LINE: usize = 16;
const LANE: usize = 300;
const GUTTER: usize = 48;
const PAD: usize = 6;
const MARGIN: usize = 16;
/// Characters per line in a box (monospace 12 px is about 7.2 px a glyph).
const BOX_CHARS: usize = COLUMN;

const INK: &str = "#222";
const FAINT: &str = "#888";
const BOX_FILL: &str = "#f4f7fb";
const BOX_STROKE: &str = "#6b8bb5";
const WRITE_INK: &str = "#0b6e6e";
const NOTE_INK: &str = "#8a5a00";
const BAD: &str = "#c0262d";
const CYCLE_FILL: &str = "#fff6d6";
const READS_FROM: &str = "#7a4fb5";

/// A write drawn so far: where, what, and the middle of its box's edge.
struct DrawnWrite {
    location: String,
    value: i64,
    lane: usize,
    y: usize,
}

/// What the rows of the trace need to remember while they are drawn: the
/// writes so far, and the reads-from arrows to draw on top of the boxes.
#[derive(Default)]
struct Rows {
    writes: Vec<DrawnWrite>,
    arrows: String,
}

/// Draws one violation of spec `spec`, checked under `config`, as a
/// sequence diagram.
pub fn render_svg(spec: &str, config: &RunConfig, violation: &ViolationReport) -> String {
    let trace = &violation.trace;
    let threads = thread_columns(&trace.steps, &trace.cycle);
    let width = 2 * MARGIN + GUTTER + threads.len().max(1) * LANE;
    let title = if violation.property == violation.kind.name() {
        format!("{spec}: {}", violation.kind)
    } else {
        format!("{spec}: {} [{}]", violation.kind, violation.property)
    };
    let mut body = String::new();
    let heading_end = draw_heading(&mut body, &title, violation, (width - 2 * MARGIN) / 7);
    let lanes_top = heading_end + LINE + PAD;
    draw_lane_labels(&mut body, &threads, &ThreadNames::of(config), lanes_top);
    // Rows, drawn after the lifelines so boxes cover them.
    let mut rows = String::new();
    let mut state = Rows::default();
    let rows_end = draw_trace(
        &mut rows,
        &mut state,
        trace,
        &threads,
        width,
        lanes_top + LINE + PAD,
    );
    let bottom = rows_end + PAD;
    for i in 0..threads.len() {
        let cx = lane_x(i) + LANE / 2;
        let _ = writeln!(
            body,
            r#"<line x1="{cx}" y1="{lanes_top}" x2="{cx}" y2="{bottom}" stroke="{FAINT}" stroke-dasharray="3 3"/>"#
        );
    }
    body.push_str(&rows);
    body.push_str(&state.arrows);
    document(width, bottom + MARGIN, &title, &body)
}

/// The whole picture: `body` on a white page of `width` × `height`.
fn document(width: usize, height: usize, title: &str, body: &str) -> String {
    format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" "#,
            r#"font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="12">"#,
            "\n<title>{title}</title>\n",
            r#"<defs><marker id="rf" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{rf}"/></marker>"#,
            r#"<marker id="loop" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{note}"/></marker></defs>"#,
            "\n",
            r#"<rect width="{w}" height="{h}" fill="white"/>"#,
            "\n{body}</svg>\n"
        ),
        w = width,
        h = height,
        title = escape(title),
        body = body,
        rf = READS_FROM,
        note = NOTE_INK
    )
}

/// The title, then the message and who waits, wrapped to `text_chars`;
/// returns the y of the last line.
fn draw_heading(
    out: &mut String,
    title: &str,
    violation: &ViolationReport,
    text_chars: usize,
) -> usize {
    let mut y = MARGIN + LINE;
    text(out, MARGIN, y, title, "bold", BAD, 14);
    for line in wrap(&violation.message, text_chars) {
        y += LINE;
        text(out, MARGIN, y, &line, "", INK, 12);
    }
    for w in &violation.waiting {
        for (k, line) in wrap(w, text_chars - 2).into_iter().enumerate() {
            y += LINE;
            let lead = if k == 0 { "• " } else { "  " };
            text(out, MARGIN, y, &format!("{lead}{line}"), "", FAINT, 12);
        }
    }
    y
}

/// The name of each lane's thread, on the line below `top`.
fn draw_lane_labels(out: &mut String, threads: &[u32], names: &ThreadNames, top: usize) {
    for (i, t) in threads.iter().enumerate() {
        let cx = lane_x(i) + LANE / 2;
        let _ = writeln!(
            out,
            r#"<text x="{cx}" y="{}" text-anchor="middle" font-weight="bold" fill="{INK}">{}</text>"#,
            top + LINE - 4,
            escape(&names.label(*t))
        );
    }
}

/// The steps from `y` down, then the cycle on its band (or a line saying
/// the initial state already violates); returns the y below them.
fn draw_trace(
    out: &mut String,
    state: &mut Rows,
    trace: &Trace,
    threads: &[u32],
    width: usize,
    y: usize,
) -> usize {
    let failing = trace.steps.last().filter(|s| {
        s.note
            .as_deref()
            .is_some_and(|n| n.starts_with("violation:"))
    });
    let mut y = draw_steps(out, state, &trace.steps, threads, y, failing);
    if !trace.cycle.is_empty() {
        y = draw_cycle(out, state, &trace.cycle, threads, width, y);
    }
    if trace.steps.is_empty() && trace.cycle.is_empty() {
        y += LINE;
        let empty = "(already violated in the initial state)";
        text(out, MARGIN, y, empty, "", FAINT, 12);
    }
    y
}

/// The repeating part of a lasso below `y`, on a shaded band under its
/// label; returns the y below the band.
fn draw_cycle(
    out: &mut String,
    state: &mut Rows,
    cycle: &[Step],
    threads: &[u32],
    width: usize,
    y: usize,
) -> usize {
    let band_top = y + PAD;
    let label_y = band_top + LINE;
    let mut rows = String::new();
    let end = draw_steps(&mut rows, state, cycle, threads, label_y + PAD, None);
    let _ = writeln!(
        out,
        r#"<rect x="{MARGIN}" y="{band_top}" width="{}" height="{}" fill="{CYCLE_FILL}" stroke="{NOTE_INK}" stroke-dasharray="4 3"/>"#,
        width - 2 * MARGIN,
        end + PAD - band_top
    );
    let label = "then forever, repeating:";
    text(out, MARGIN + PAD, label_y, label, "bold", NOTE_INK, 12);
    // The loop: from the end of the band back up to its first step, in
    // the gutter left of the step numbers.
    let x = MARGIN + 2 * PAD;
    let _ = writeln!(
        out,
        r#"<path d="M{x},{} L{x},{}" stroke="{NOTE_INK}" stroke-width="2" fill="none" marker-end="url(#loop)"/>"#,
        end.saturating_sub(PAD),
        label_y + 2 * PAD
    );
    out.push_str(&rows);
    end + PAD
}

/// Left edge of lane `i`.
fn lane_x(i: usize) -> usize {
    MARGIN + GUTTER + i * LANE
}

/// Draws one box per step from `y` down; returns the y below the last.
/// The step that raised the violation gets a red outline.
fn draw_steps(
    out: &mut String,
    state: &mut Rows,
    steps: &[Step],
    threads: &[u32],
    mut y: usize,
    failing: Option<&Step>,
) -> usize {
    let mut last_step = None;
    for s in steps {
        let lane = threads.iter().position(|t| *t == s.thread).unwrap_or(0);
        let lines = box_lines(s);
        let h = lines.len() * LINE + PAD;
        let x = lane_x(lane) + 8;
        let bad = failing.is_some_and(|f| std::ptr::eq(f, s));
        let stroke = if bad { BAD } else { BOX_STROKE };
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{y}" width="{}" height="{h}" rx="4" fill="{BOX_FILL}" stroke="{stroke}"/>"#,
            LANE - 16
        );
        if last_step != Some(s.step) {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" text-anchor="end" fill="{FAINT}">{}</text>"#,
                MARGIN + GUTTER - 10,
                y + LINE,
                s.step
            );
            last_step = Some(s.step);
        }
        for (k, (line, kind)) in lines.iter().enumerate() {
            let (weight, colour) = match kind {
                LineKind::Instruction => ("", INK),
                LineKind::Effect => ("", WRITE_INK),
                LineKind::Note if bad => ("bold", BAD),
                LineKind::Note => ("", NOTE_INK),
            };
            text(out, x + PAD, y + (k + 1) * LINE, line, weight, colour, 12);
        }
        let mid = y + LINE / 2 + PAD / 2;
        for r in &s.reads {
            let from = state
                .writes
                .iter()
                .rev()
                .find(|w| w.location == r.location && w.value == r.value);
            if let Some(w) = from.filter(|w| w.lane != lane) {
                // From the writer's box edge that faces the reader.
                // An S-curve from the writer's box edge that faces the
                // reader, leaving and arriving horizontally.
                let (x1, x2, c1, c2) = if w.lane < lane {
                    let (x1, x2) = (lane_x(w.lane) + LANE - 8, lane_x(lane) + 8);
                    (x1, x2, x1 + 40, x2.saturating_sub(40))
                } else {
                    let (x1, x2) = (lane_x(w.lane) + 8, lane_x(lane) + LANE - 8);
                    (x1, x2, x1.saturating_sub(40), x2 + 40)
                };
                let y1 = w.y;
                let _ = writeln!(
                    state.arrows,
                    r#"<path d="M{x1},{y1} C{c1},{y1} {c2},{mid} {x2},{mid}" stroke="{READS_FROM}" stroke-width="1.5" stroke-dasharray="5 3" fill="none" opacity="0.8" marker-end="url(#rf)"><title>reads {} = {} from this write</title></path>"#,
                    escape(&r.location),
                    r.value
                );
            }
        }
        for wr in &s.writes {
            state.writes.push(DrawnWrite {
                location: wr.location.clone(),
                value: wr.value,
                lane,
                y: mid,
            });
        }
        y += h + PAD;
    }
    y
}

#[derive(Clone, Copy)]
enum LineKind {
    Instruction,
    Effect,
    Note,
}

/// The text lines of a step's box: `line: instruction`, then its reads and
/// writes, then its note, each wrapped to the box.
fn box_lines(s: &Step) -> Vec<(String, LineKind)> {
    let mut parts = vec![(
        format!("{}: {}", s.span.line, s.instruction),
        LineKind::Instruction,
    )];
    let fx = effects(s);
    if !fx.is_empty() {
        parts.push((fx, LineKind::Effect));
    }
    if let Some(n) = &s.note {
        parts.push((n.clone(), LineKind::Note));
    }
    parts
        .into_iter()
        .flat_map(|(t, kind)| wrap(&t, BOX_CHARS).into_iter().map(move |l| (l, kind)))
        .collect()
}

fn text(out: &mut String, x: usize, y: usize, s: &str, weight: &str, fill: &str, size: usize) {
    let weight = if weight.is_empty() {
        String::new()
    } else {
        format!(r#" font-weight="{weight}""#)
    };
    let _ = writeln!(
        out,
        r#"<text x="{x}" y="{y}" fill="{fill}" font-size="{size}"{weight} xml:space="preserve">{}</text>"#,
        escape(s)
    );
}
