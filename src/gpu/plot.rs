//! The benchmark's plots: one SVG per family of time per operation against
//! blocks per SM, with the points that did not complete marked apart.

use super::bench::Row;
use crate::cuda::harness::Outcome;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Distinct colours (Tableau 10 and four more), the baseline first.
const COLORS: [RGBColor; 14] = [
    RGBColor(0, 0, 0),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(0, 0, 128),
    RGBColor(255, 187, 0),
    RGBColor(0, 128, 128),
];

/// A time in ns as a tick label in µs: `0.5`, `1`, `2.5`, `40`.
pub(crate) fn us_label(ns: f64) -> String {
    let us = ns / 1000.0;
    let text = if us >= 10.0 {
        format!("{us:.0}")
    } else if us >= 1.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.2}")
    };
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// How a point did not complete, for its marker in the top row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Missing {
    Hung,
    Refused,
    CheckFailed,
}

impl Missing {
    pub(crate) fn of(r: &Row) -> Option<Missing> {
        match r.outcome {
            Outcome::Completed if r.checks_passed && r.ns_per_op.is_some() => None,
            Outcome::Completed => Some(Missing::CheckFailed),
            Outcome::Refused => Some(Missing::Refused),
            Outcome::Hung | Outcome::HungUndrained => Some(Missing::Hung),
        }
    }
}

/// One SVG plot per family: time per operation (log scale, µs) against
/// blocks per SM (log2 scale: 1, 2, 4, 8, 16); points that did not
/// complete sit in a labelled row above the data (× hung, □ refused by
/// the model check, △ a device check failed); the legend is below the
/// chart, off the data.
pub(crate) fn plot(rows: &[Row], family: &str, title: &str, path: &Path) -> Result<(), String> {
    let rows: Vec<&Row> = rows.iter().filter(|r| r.family == family).collect();
    if rows.is_empty() {
        return Ok(());
    }
    let mut labels: Vec<&str> = Vec::new();
    for r in &rows {
        if !labels.contains(&r.variant.as_str()) {
            labels.push(&r.variant);
        }
    }
    let frame = Frame::of(&rows);
    // Two legend columns when the labels are short enough, else one.
    let columns = if labels.iter().all(|l| l.chars().count() <= 52) {
        2
    } else {
        1
    };
    let legend_rows = labels.len().div_ceil(columns) as u32;
    let (width, height) = (960u32, CHART_HEIGHT + 24 * legend_rows + 8);
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (upper, lower) = root.split_vertically(CHART_HEIGHT);
    let mut chart = frame.chart(&upper, title)?;
    for (i, label) in labels.iter().enumerate() {
        let mine: Vec<&Row> = rows
            .iter()
            .copied()
            .filter(|r| r.variant == *label)
            .collect();
        let spread = (i as f64 - (labels.len() as f64 - 1.0) / 2.0) * 0.045;
        frame.variant(&mut chart, &mine, i, spread)?;
    }
    legend(&lower, &labels, columns, width)?;
    root.present().map_err(err)?;
    Ok(())
}

/// Height of the chart above the legend, pixels.
const CHART_HEIGHT: u32 = 560;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The x coordinate of a number of blocks per SM.
fn x_of(b: u32) -> f64 {
    f64::from(b.max(1)).log2()
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, LogCoord<f64>>>;

/// The scales of one family's chart.
struct Frame {
    /// The numbers of blocks per SM measured, in order.
    levels: Vec<u32>,
    x: (f64, f64),
    /// Lowest and highest time shown.
    y: (f64, f64),
    /// The rule between the data and the row of points that did not complete.
    rule: f64,
    /// The height of that row, in the log scale's units.
    band: f64,
}

impl Frame {
    fn of(rows: &[&Row]) -> Frame {
        let mut levels: Vec<u32> = rows.iter().map(|r| r.blocks_per_sm.max(1)).collect();
        levels.sort_unstable();
        levels.dedup();
        let x = (
            x_of(levels[0]) - 0.35,
            x_of(*levels.last().expect("rows")) + 0.35,
        );
        let ys: Vec<f64> = rows
            .iter()
            .filter(|r| Missing::of(r).is_none())
            .filter_map(|r| r.ns_per_op)
            .collect();
        let lo = ys
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min)
            .clamp(1.0, 1e12)
            / 1.25;
        let hi = ys.iter().cloned().fold(lo * 2.0, f64::max) * 1.25;
        // The top row for points that did not complete, above a rule: a
        // seventh of the height, whatever the data's range.
        let band = ((hi / lo).ln() / 6.0).max(0.4);
        let rule = hi * 1.1;
        Frame {
            levels,
            x,
            y: (lo, rule * band.exp()),
            rule,
            band,
        }
    }

    /// Where the markers of the points that did not complete sit.
    fn row_y(&self) -> f64 {
        self.rule * (self.band * 0.4).exp()
    }

    /// The axes, the rule and the top row's caption.
    fn chart<'a, 'b>(
        &self,
        area: &'a DrawingArea<SVGBackend<'b>, Shift>,
        title: &str,
    ) -> Result<Chart<'a, 'b>, String> {
        let (x_lo, x_hi) = self.x;
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 20))
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(x_lo..x_hi, (self.y.0..self.y.1).log_scale())
            .map_err(err)?;
        let level_of = |x: &f64| {
            self.levels
                .iter()
                .find(|&&b| (x_of(b) - x).abs() < 1e-6)
                .map(|b| b.to_string())
                .unwrap_or_default()
        };
        let y_text = |y: &f64| {
            if *y > self.rule {
                String::new()
            } else {
                us_label(*y)
            }
        };
        chart
            .configure_mesh()
            .x_labels(self.levels.len())
            .x_label_formatter(&level_of)
            .y_labels(12)
            .y_label_formatter(&y_text)
            .x_desc("blocks per SM (log2 scale)")
            .y_desc("µs per operation (log scale)")
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 16))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x_lo, self.rule), (x_hi, self.rule)],
                BLACK.mix(0.4).stroke_width(1),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(Text::new(
                "did not complete:  × hung   □ refused   △ check failed",
                (x_lo + 0.05, self.rule * (self.band * 0.93).exp()),
                ("sans-serif", 14).into_font().color(&BLACK.mix(0.7)),
            )))
            .map_err(err)?;
        Ok(chart)
    }

    /// The `i`th variant's line through its completed points, and its
    /// markers in the top row, moved right by `spread` so that variants do
    /// not hide each other.
    fn variant(
        &self,
        chart: &mut Chart,
        mine: &[&Row],
        i: usize,
        spread: f64,
    ) -> Result<(), String> {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = mine
            .iter()
            .filter(|r| Missing::of(r).is_none())
            .map(|r| (x_of(r.blocks_per_sm), r.ns_per_op.unwrap_or(1.0)))
            .collect();
        let width = if i == 0 { 3 } else { 2 };
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(width)))
            .map_err(err)?;
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(err)?;
        let style = color.stroke_width(2);
        for r in mine {
            let at = (x_of(r.blocks_per_sm) + spread, self.row_y());
            match Missing::of(r) {
                None => Ok(()),
                Some(Missing::Hung) => chart
                    .draw_series(std::iter::once(Cross::new(at, 6, style)))
                    .map(drop),
                Some(Missing::Refused) => chart
                    .draw_series(std::iter::once(
                        EmptyElement::at(at) + Rectangle::new([(-5, -5), (5, 5)], style),
                    ))
                    .map(drop),
                Some(Missing::CheckFailed) => chart
                    .draw_series(std::iter::once(TriangleMarker::new(at, 7, style)))
                    .map(drop),
            }
            .map_err(err)?;
        }
        Ok(())
    }
}

/// The legend, in `columns` columns below the chart.
fn legend(
    area: &DrawingArea<SVGBackend, Shift>,
    labels: &[&str],
    columns: usize,
    width: u32,
) -> Result<(), String> {
    let col = width as i32 / columns as i32;
    for (i, label) in labels.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let (c, r) = ((i % columns) as i32, (i / columns) as i32);
        let (x, y) = (24 + col * c, 8 + 24 * r);
        area.draw(&PathElement::new(
            vec![(x, y + 8), (x + 26, y + 8)],
            color.stroke_width(3),
        ))
        .map_err(err)?;
        area.draw(&Circle::new((x + 13, y + 8), 4, color.filled()))
            .map_err(err)?;
        area.draw(&Text::new(
            label.to_string(),
            (x + 34, y),
            ("sans-serif", 15),
        ))
        .map_err(err)?;
    }
    Ok(())
}
